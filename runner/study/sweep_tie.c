/* runner/study/sweep_tie: the axes whose values changed nothing, judged on the results
 * (sweep_tie.h).
 *
 * Each run of the study gives one entry per key of its sweep point (its axes_json, read with
 * SQLite's json_each: the record's own escaping, no parser here): the key, the value, the
 * configuration without that key (part, names, seed and every other key's value) and a digest
 * of the run's per-prompt results. Sorted by key and configuration, the entries of one
 * configuration sit together; it ties when it has two entries or more, all ok, with one digest.
 * The digest hashes every per-prompt column, as stored (64-bit doubles, bit for bit), in prompt
 * order: two runs share it when they decoded the same tokens in the same times, to a chance of
 * about 2^-64 otherwise. */
#include "runner/study/sweep_tie.h"
#include <stdlib.h>
#include <string.h>
#include "runner/study/driver.h"
#include "sim/rng.h"

typedef struct entry {
  char *key, *value, *group; /* owned */
  const char *system;        /* borrowed from the experiment's spec */
  uint64_t digest;
  int ok;                    /* the run is in the database, ok, with prompts */
} entry;

typedef struct sys_count {
  const char *system; /* borrowed */
  int groups, tied;   /* its configurations compared, and those that tie */
} sys_count;

typedef struct axis_sum {
  const char *key;      /* borrowed from an entry */
  char *values;         /* owned: "v1,v2,..." in the order the study ran them */
  int n_values, groups, tied;
  sys_count *sys;       /* owned: per system */
  int n_sys;
} axis_sum;

typedef struct tie_ctx {
  entry *e;
  int n, cap;
  axis_sum *a;
  int n_axes;
  uint64_t digest;
  int rows, ok;
  char (*kv)[2][512]; /* one run's sweep point: key, value (owned) */
  int n_kv;
} tie_ctx;

static int digest_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)text, (void)err;
  tie_ctx *c = ctx;
  for (int i = 0; i < n; i++) {
    uint64_t bits;
    memcpy(&bits, &num[i], sizeof bits);
    c->digest = ls_key2(c->digest, bits);
  }
  c->rows++;
  return LS_OK;
}

static int status_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)num, (void)err;
  ((tie_ctx *)ctx)->ok = text[0] && strcmp(text[0], "ok") == 0;
  return LS_OK;
}

static int point_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)num;
  tie_ctx *c = ctx;
  void *kv = realloc(c->kv, (size_t)(c->n_kv + 1) * sizeof *c->kv);
  if (!kv) return ls_error_set(err, LS_ENOMEM, "sweep: out of memory");
  c->kv = kv;
  snprintf(c->kv[c->n_kv][0], sizeof c->kv[0][0], "%s", text[0] ? text[0] : "");
  snprintf(c->kv[c->n_kv][1], sizeof c->kv[0][1], "%s", text[1] ? text[1] : "");
  c->n_kv++;
  return LS_OK;
}

/* The run's status and digest (c->ok, c->digest) and its sweep point (c->kv). */
static int read_run(ls_db *db, const ls_run_spec *s, const char *id, tie_ctx *c, ls_error *err)
{
  const char *p[1] = {id};
  c->ok = 0;
  c->rows = 0;
  c->digest = 0x7469655f64696731ULL;
  c->n_kv = 0;
  int rc = ls_db_select(db, "SELECT status FROM runs WHERE run_id = ?1", p, 1, status_row, c, err);
  if (!rc && c->ok)
    rc = ls_db_select(db, "SELECT prompt, tokens, cycles, tau_sum, decode_s, ttft_s, draft_s, draft_work_s,"
                      " verify_s, lmhead_s, tree_nodes, verify_tok, io_wait_s, compute_s, waste_s, token_layers,"
                      " waste_layers, npu_busy_s, cpu_busy_s, flash_busy_s, energy_j FROM prompts"
                      " WHERE run_id = ?1 ORDER BY prompt", p, 1, digest_row, c, err);
  c->ok = c->ok && c->rows > 0;
  p[0] = s->axes_json;
  if (!rc) rc = ls_db_select(db, "SELECT key, value FROM json_each(?1) ORDER BY key", p, 1, point_row, c, err);
  return rc;
}

/* The configuration of entry k of c->kv: the run's names and seed, every other key's value. */
static char *group_of(const ls_run_spec *s, const tie_ctx *c, int k)
{
  char *g = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&g, &len);
  if (!m) return NULL;
  fprintf(m, "%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%llu", s->part, s->device, s->model, s->dataset, s->system,
          (unsigned long long)s->seed);
  for (int i = 0; i < c->n_kv; i++)
    if (i != k) fprintf(m, "\x1f%s=%s", c->kv[i][0], c->kv[i][1]);
  if (fclose(m) != 0) {
    free(g);
    return NULL;
  }
  return g;
}

static int add_entries(tie_ctx *c, const ls_run_spec *s, ls_error *err)
{
  for (int k = 0; k < c->n_kv; k++) {
    if (c->n == c->cap) {
      int cap = c->cap ? 2 * c->cap : 256;
      entry *e = realloc(c->e, (size_t)cap * sizeof *e);
      if (!e) return ls_error_set(err, LS_ENOMEM, "sweep: out of memory");
      c->e = e;
      c->cap = cap;
    }
    entry *e = &c->e[c->n];
    *e = (entry){strdup(c->kv[k][0]), strdup(c->kv[k][1]), group_of(s, c, k), s->system, c->digest, c->ok};
    if (!e->key || !e->value || !e->group) {
      free(e->key), free(e->value), free(e->group);
      return ls_error_set(err, LS_ENOMEM, "sweep: out of memory");
    }
    c->n++;
  }
  return LS_OK;
}

/* The summary of axis key (made on first sight), with value added to its list in study order. */
static axis_sum *axis_of(tie_ctx *c, const char *key, const char *value)
{
  int i = 0;
  while (i < c->n_axes && strcmp(c->a[i].key, key)) i++;
  if (i == c->n_axes) {
    axis_sum *a = realloc(c->a, (size_t)(c->n_axes + 1) * sizeof *a);
    if (!a) return NULL;
    c->a = a;
    a[c->n_axes++] = (axis_sum){.key = key, .values = calloc(1, 1)};
    if (!a[i].values) return NULL;
  }
  axis_sum *a = &c->a[i];
  if (!value) return a;
  size_t n = strlen(value), len = strlen(a->values);
  for (const char *v = a->values; *v; v += strcspn(v, ",") + (v[strcspn(v, ",")] == ',')) /* listed? */
    if (strncmp(v, value, n) == 0 && (v[n] == ',' || v[n] == '\0')) return a;
  char *grown = realloc(a->values, len + n + 2);
  if (!grown) return NULL;
  a->values = grown;
  snprintf(grown + len, n + 2, "%s%s", len ? "," : "", value);
  a->n_values++;
  return a;
}

/* Counts one configuration (entries e[0..m), one key) into its axis and its system. */
static int count_group(axis_sum *a, const entry *e, int m)
{
  int ok = m > 1, same = 1;
  for (int i = 0; i < m; i++) {
    ok &= e[i].ok;
    same &= e[i].digest == e[0].digest;
  }
  if (!ok) return LS_OK;
  int s = 0;
  while (s < a->n_sys && strcmp(a->sys[s].system, e[0].system)) s++;
  if (s == a->n_sys) {
    sys_count *grown = realloc(a->sys, (size_t)(s + 1) * sizeof *grown);
    if (!grown) return LS_ENOMEM;
    a->sys = grown;
    a->sys[a->n_sys++] = (sys_count){e[0].system, 0, 0};
  }
  a->groups++;
  a->tied += same;
  a->sys[s].groups++;
  a->sys[s].tied += same;
  return LS_OK;
}

static int by_key_group(const void *x, const void *y)
{
  const entry *a = x, *b = y;
  int c = strcmp(a->key, b->key);
  return c ? c : strcmp(a->group, b->group);
}

/* One warning line for axis a, or none; returns 1 when it printed one. */
static int warn_axis(const axis_sum *a, FILE *f, const char *prefix)
{
  if (a->n_values < 2 || a->groups == 0 || a->tied == 0) return 0;
  if (a->tied == a->groups) {
    fprintf(f, "%s%s=%s: every value gave the same results, prompt for prompt, in every configuration (%d): "
            "the setting changed nothing here (a cap the policy never reached, e.g. a budget above every tree "
            "its own stopping rule builds, or a setting these systems do not read); `leversim best` calls the "
            "values tied\n", prefix, a->key, a->values, a->groups);
    return 1;
  }
  /* The systems whose every configuration tied, written straight to f (no buffer to cut them). */
  int groups = 0, n = 0;
  for (int s = 0; s < a->n_sys; s++)
    if (a->sys[s].groups > 0 && a->sys[s].tied == a->sys[s].groups) {
      groups += a->sys[s].groups;
      n++;
    }
  if (!n) return 0;
  fprintf(f, "%s%s=%s: no effect for system%s ", prefix, a->key, a->values, n == 1 ? "" : "s");
  for (int s = 0, k = 0; s < a->n_sys; s++)
    if (a->sys[s].groups > 0 && a->sys[s].tied == a->sys[s].groups)
      fprintf(f, "%s%s", k++ ? ", " : "", a->sys[s].system);
  fprintf(f, ": every value gave the same results, prompt for prompt, in every configuration of %s (%d; a cap "
          "the policy never reached, or a setting it does not read); the other systems' results changed\n",
          n == 1 ? "it" : "them", groups);
  return 1;
}

static void free_ctx(tie_ctx *c)
{
  for (int i = 0; i < c->n; i++) {
    free(c->e[i].key);
    free(c->e[i].value);
    free(c->e[i].group);
  }
  for (int i = 0; i < c->n_axes; i++) {
    free(c->a[i].values);
    free(c->a[i].sys);
  }
  free(c->e);
  free(c->a);
  free(c->kv);
}

int ls_sweep_tie_warn(ls_experiment *x, ls_db *db, FILE *f, const char *prefix, int *count, ls_error *err)
{
  tie_ctx c;
  memset(&c, 0, sizeof c);
  *count = 0;
  int rc = LS_OK;
  for (int i = 0; !rc && i < ls_experiment_count(x); i++) {
    const ls_run_spec *s = ls_experiment_run(x, i);
    char id[LS_DB_RUN_ID_LEN + 1];
    if (ls_driver_spec_id(s, id, err) != LS_OK) { /* never resolved: not run, nothing to compare */
      ls_error_clear(err);
      continue;
    }
    rc = read_run(db, s, id, &c, err);
    if (!rc) rc = add_entries(&c, s, err);
  }
  for (int i = 0; !rc && i < c.n; i++) /* every axis in the order the study names its values */
    if (!axis_of(&c, c.e[i].key, c.e[i].value)) rc = ls_error_set(err, LS_ENOMEM, "sweep: out of memory");
  if (!rc && c.n) qsort(c.e, (size_t)c.n, sizeof *c.e, by_key_group);
  for (int i = 0, j; !rc && i < c.n; i = j) {
    for (j = i + 1; j < c.n && !strcmp(c.e[j].key, c.e[i].key) && !strcmp(c.e[j].group, c.e[i].group); j++) {}
    axis_sum *a = axis_of(&c, c.e[i].key, NULL);
    if (!a || count_group(a, c.e + i, j - i)) rc = ls_error_set(err, LS_ENOMEM, "sweep: out of memory");
  }
  for (int i = 0; !rc && i < c.n_axes; i++) *count += warn_axis(&c.a[i], f, prefix);
  free_ctx(&c);
  return rc;
}
