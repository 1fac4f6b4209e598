/* runner/report/best: see best.h. The query binds every user-given name as a parameter
 * (ls_plot_key_sql); the statistics are sim/boot.h's, on the prompts table. */
#include "runner/report/best.h"
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "runner/report/plot.h"
#include "sim/boot.h"

#define MAX_BY 4
#define MAX_VALUES 64

typedef struct brun {
  char id[LS_DB_RUN_ID_LEN + 1], group[256], value[128], unit[768], seed[32], prompts[16], tokens[16];
  double value_num;
} brun;

typedef struct runs_ctx {
  brun *r;
  int n, cap;
} runs_ctx;

static int add_run(void *ctx, int n, const char *const *t, const double *num, ls_error *err)
{
  (void)n;
  runs_ctx *c = ctx;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    brun *r = realloc(c->r, (size_t)cap * sizeof *r);
    if (!r) return ls_error_set(err, LS_ENOMEM, "best: out of memory");
    c->r = r;
    c->cap = cap;
  }
  brun *r = &c->r[c->n++];
  snprintf(r->id, sizeof r->id, "%s", t[0] ? t[0] : "");
  snprintf(r->group, sizeof r->group, "%s", t[1] ? t[1] : "");
  snprintf(r->value, sizeof r->value, "%s", t[2] ? t[2] : "(none)");
  r->value_num = num[3];
  snprintf(r->unit, sizeof r->unit, "%s", t[4] ? t[4] : "");
  snprintf(r->seed, sizeof r->seed, "%s", t[5] ? t[5] : "");
  snprintf(r->prompts, sizeof r->prompts, "%s", t[6] ? t[6] : "?");
  snprintf(r->tokens, sizeof r->tokens, "%.0f", num[7]);
  return LS_OK;
}

static int by_group_value(const void *a, const void *b)
{
  const brun *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  if (c) return c;
  if (!isnan(x->value_num) && !isnan(y->value_num) && x->value_num != y->value_num)
    return (x->value_num > y->value_num) - (x->value_num < y->value_num);
  c = strcmp(x->value, y->value);
  if (!c) c = strcmp(x->unit, y->unit);
  return c ? c : strcmp(x->id, y->id); /* a total order: the same database, the same answer */
}

/* The runs with y, their group, value of over and configuration (everything but over). */
static int read_runs(ls_db *db, const ls_best_query *q, runs_ctx *c, ls_error *err)
{
  char sql[8192], t[512];
  const char *params[2 + 2 * MAX_BY];
  int np = 0;
  params[np++] = q->y;
  params[np++] = q->over;
  size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT r.run_id, ");
  for (int i = 0; i < q->n_by; i++) {
    if (ls_plot_key_sql(q->by[i], np + 1, 0, t, sizeof t) == 0) params[np++] = q->by[i];
    len += (size_t)snprintf(sql + len, sizeof sql - len, "%scoalesce(%s, '(none)')", i ? " || ' / ' || " : "", t);
  }
  len += (size_t)snprintf(sql + len, sizeof sql - len, "%s, ", q->n_by ? "" : "''");
  ls_plot_key_sql(q->over, 2, 0, t, sizeof t);
  len += (size_t)snprintf(sql + len, sizeof sql - len, "%s, ", t);
  ls_plot_key_sql(q->over, 2, 1, t, sizeof t);
  len += (size_t)snprintf(sql + len, sizeof sql - len, "%s, ", t);
  snprintf(sql + len, sizeof sql - len,
           "r.part || ' ' || r.device || ' ' || r.model || ' ' || r.dataset || ' ' || r.system || ' ' ||"
           " json_remove(r.axes_json, '$.\"' || ?2 || '\"'), CAST(r.seed AS TEXT),"
           " (SELECT count(*) FROM prompts p WHERE p.run_id = r.run_id),"
           " (SELECT value_num FROM run_settings s WHERE s.run_id = r.run_id AND s.key = 'workload.max_tokens')"
           " FROM runs r JOIN metrics m ON m.run_id = r.run_id AND m.name = ?1 WHERE r.status = 'ok'");
  return ls_db_select(db, sql, params, np, add_run, c, err);
}

typedef struct prompts_ctx {
  ls_db_prompt *p;
  int n, cap;
} prompts_ctx;

static int add_prompt(void *ctx, int n, const char *const *t, const double *v, ls_error *err)
{
  (void)t;
  prompts_ctx *c = ctx;
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    ls_db_prompt *p = realloc(c->p, (size_t)cap * sizeof *p);
    if (!p) return ls_error_set(err, LS_ENOMEM, "best: out of memory");
    c->p = p;
    c->cap = cap;
  }
  ls_db_prompt *p = &c->p[c->n++];
  double *f[] = {&p->tokens, &p->cycles, &p->tau_sum, &p->decode_s, &p->ttft_s, &p->draft_s, &p->draft_work_s,
                 &p->verify_s, &p->lmhead_s, &p->tree_nodes, &p->verify_tok, &p->io_wait_s, &p->compute_s,
                 &p->waste_s, &p->token_layers, &p->waste_layers, &p->npu_busy_s, &p->cpu_busy_s,
                 &p->flash_busy_s, &p->energy_j};
  p->prompt = (int)v[0];
  for (int i = 0; i + 1 < n && i < (int)(sizeof f / sizeof f[0]); i++) *f[i] = v[i + 1];
  return LS_OK;
}

/* One run's prompts as y's numerators and denominators (owned: num, den; *n prompts). */
static int run_parts(ls_db *db, const char *y, const char *id, double **num, double **den, int *n, ls_error *err)
{
  prompts_ctx c = {NULL, 0, 0};
  const char *param = id;
  int rc = ls_db_select(db, "SELECT prompt, tokens, cycles, tau_sum, decode_s, ttft_s, draft_s, draft_work_s,"
                        " verify_s, lmhead_s, tree_nodes, verify_tok, io_wait_s, compute_s, waste_s,"
                        " token_layers, waste_layers, npu_busy_s, cpu_busy_s, flash_busy_s, energy_j"
                        " FROM prompts WHERE run_id = ?1 ORDER BY prompt", &param, 1, add_prompt, &c, err);
  *num = rc || !c.n ? NULL : malloc((size_t)c.n * sizeof **num);
  *den = rc || !c.n ? NULL : malloc((size_t)c.n * sizeof **den);
  if (!rc && c.n && (!*num || !*den)) rc = ls_error_set(err, LS_ENOMEM, "best: out of memory");
  for (int i = 0; !rc && i < c.n; i++) rc = ls_db_metric_parts(y, &c.p[i], &(*num)[i], &(*den)[i], err);
  *n = c.n;
  free(c.p);
  return rc;
}

/* One value of a group: its score and its comparison with the best. */
typedef struct bvalue {
  const char *value;
  ls_boot_ci score, ratio; /* geometric means: of y, of y over the best's */
  int within;              /* 1 within the best's interval, 0 not, -1 unknown (too few prompts) */
  int same;                /* 1: y's parts equal the best's bit for bit, every prompt of every
                              compared configuration: the value changed nothing (a cap never
                              reached, a setting the system does not read) */
} bvalue;

typedef struct bgroup {
  const char *group;
  bvalue v[MAX_VALUES];
  int n_values, best, configs;
  int tie;        /* every value is the same as the best: no value is better */
  char notes[1024];
  char runs[128]; /* seed and sizes of the compared runs (the first's; differences are noted) */
} bgroup;

typedef struct cellp {
  double *num, *den;
  int n;
} cellp;

static void note(bgroup *g, const char *fmt, const char *a, const char *b)
{
  size_t len = strlen(g->notes);
  snprintf(g->notes + len, sizeof g->notes - len, "%s", len ? "; " : "");
  len = strlen(g->notes);
  snprintf(g->notes + len, sizeof g->notes - len, fmt, a, b);
}

/* "a, b, c": the distinct texts of the runs' field, or NULL when there is one. */
static const char *distinct(const brun *r, const int *cells, int n, size_t off, char *buf, size_t size)
{
  size_t len = 0;
  int count = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) {
    if (cells[i] < 0) continue;
    const char *s = (const char *)&r[cells[i]] + off;
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = cells[j] >= 0 && !strcmp(s, (const char *)&r[cells[j]] + off);
    if (seen) continue;
    count++;
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%s%s", len ? ", " : "", s);
  }
  return count > 1 ? buf : NULL;
}

/* 1 when two values' cells hold the same parts bit for bit (m configurations). */
static int same_parts(const cellp *a, const cellp *b, int m)
{
  for (int u = 0; u < m; u++)
    if (a[u].n != b[u].n || memcmp(a[u].num, b[u].num, (size_t)a[u].n * sizeof *a[u].num) != 0 ||
        memcmp(a[u].den, b[u].den, (size_t)a[u].n * sizeof *a[u].den) != 0)
      return 0;
  return 1;
}

/* Geometric-mean interval of value v's cells (b NULL: of y itself; else of y over b's). */
static int compare(const cellp *a, const cellp *b, int m, ls_boot_ci *out, ls_error *err)
{
  ls_boot_pair *pairs = calloc((size_t)m, sizeof *pairs);
  if (!pairs) return ls_error_set(err, LS_ENOMEM, "best: out of memory");
  for (int u = 0; u < m; u++) {
    int n = b && b[u].n < a[u].n ? b[u].n : a[u].n; /* prompt j is the same text: pair the first min(n) */
    pairs[u] = (ls_boot_pair){n, a[u].num, a[u].den, b ? b[u].num : NULL, b ? b[u].den : NULL, 0, 0, 0, 0};
  }
  pairs[0].seed = ls_boot_seed_of(ls_boot_seed_of(0xbe57ULL, a[0].num, (size_t)pairs[0].n), b ? b[0].num : a[0].den,
                                  (size_t)pairs[0].n);
  int rc = ls_boot_ci_agg(pairs, m, LS_BOOT_GEOMEAN, LS_BOOT_RESAMPLES, LS_BOOT_LEVEL, out, err);
  free(pairs);
  return rc;
}

/* The configurations (units) of runs[0..n) and the run of each (value, unit): cell[v * nu + u]. */
static int layout(const brun *r, int n, const int *vstart, int nv, const char ***units, int *nu, int **cell,
                  bgroup *g, ls_error *err)
{
  *units = malloc((size_t)n * sizeof **units);
  *cell = malloc((size_t)n * (size_t)nv * sizeof **cell);
  if (!*units || !*cell) return ls_error_set(err, LS_ENOMEM, "best: out of memory");
  *nu = 0;
  for (int i = 0; i < n; i++) {
    int u = 0;
    while (u < *nu && strcmp((*units)[u], r[i].unit)) u++;
    if (u == *nu) (*units)[(*nu)++] = r[i].unit;
  }
  for (int i = 0; i < n * nv; i++) (*cell)[i] = -1;
  for (int v = 0; v < nv; v++)
    for (int i = vstart[v]; i < vstart[v + 1]; i++) {
      int u = 0;
      while (strcmp((*units)[u], r[i].unit)) u++;
      if ((*cell)[v * *nu + u] >= 0)
        note(g, "two runs at %s in configuration %s: the first is compared", r[i].value, r[i].unit);
      else
        (*cell)[v * *nu + u] = i;
    }
  return LS_OK;
}

/* What differs between the compared runs: said, never silently mixed. */
static void differences(const brun *r, const int *cells, int n, bgroup *g)
{
  char buf[512];
  if (distinct(r, cells, n, offsetof(brun, seed), buf, sizeof buf))
    note(g, "seeds differ (%s)%s: runs of different seeds decode different texts, the pairing is weaker", buf, "");
  if (distinct(r, cells, n, offsetof(brun, prompts), buf, sizeof buf))
    note(g, "prompts differ (%s)%s: pairs use the prompts both runs decoded", buf, "");
  if (distinct(r, cells, n, offsetof(brun, tokens), buf, sizeof buf))
    note(g, "tokens per prompt (workload.max_tokens) differ (%s)%s", buf, "");
}

static int analyse(ls_db *db, const ls_best_query *q, const brun *r, int n, bgroup *g, ls_error *err)
{
  int vstart[MAX_VALUES + 1], nv = 0;
  for (int i = 0; i < n; i++)
    if (i == 0 || strcmp(r[i].value, r[i - 1].value)) {
      if (nv == MAX_VALUES) return ls_error_set(err, LS_EUSAGE, "best: more than %d values of %s", MAX_VALUES, q->over);
      g->v[nv].value = r[i].value;
      vstart[nv++] = i;
    }
  vstart[nv] = n;
  g->n_values = nv;
  g->best = -1;
  const char **units = NULL;
  int nu = 0, *cell = NULL, m = 0;
  int rc = layout(r, n, vstart, nv, &units, &nu, &cell, g, err);
  int *common = rc ? NULL : malloc((size_t)nu * sizeof *common), *used = rc ? NULL : malloc((size_t)(nu * nv + 1) * sizeof *used);
  cellp *parts = rc ? NULL : calloc((size_t)(nu * nv + 1), sizeof *parts);
  if (!rc && (!common || !used || !parts)) rc = ls_error_set(err, LS_ENOMEM, "best: out of memory");
  for (int u = 0; !rc && u < nu; u++) {
    int all = 1;
    for (int v = 0; v < nv; v++) all &= cell[v * nu + u] >= 0;
    if (all) common[m++] = u;
  }
  g->configs = m;
  if (!rc && m < nu) {
    char a[16], b[16];
    snprintf(a, sizeof a, "%d", nu - m);
    snprintf(b, sizeof b, "%d", m);
    note(g, "%s configuration(s) lack a value and are left out; compared over %s", a, b);
  }
  for (int v = 0; !rc && v < nv; v++)
    for (int k = 0; !rc && k < m; k++) {
      used[v * m + k] = cell[v * nu + common[k]];
      rc = run_parts(db, q->y, r[used[v * m + k]].id, &parts[v * m + k].num, &parts[v * m + k].den, &parts[v * m + k].n, err);
      if (!rc && parts[v * m + k].n == 0) rc = ls_error_set(err, LS_ENOTFOUND, "run %s has no prompts stored", r[used[v * m + k]].id);
    }
  if (!rc && m) {
    differences(r, used, nv * m, g);
    const brun *f = &r[used[0]];
    snprintf(g->runs, sizeof g->runs, "seed %s, %s prompts of %s tokens", f->seed, f->prompts, f->tokens);
  }
  for (int v = 0; !rc && m && v < nv; v++) {
    rc = compare(&parts[v * m], NULL, m, &g->v[v].score, err);
    if (!rc && (g->best < 0 || (q->lower ? g->v[v].score.est < g->v[g->best].score.est : g->v[v].score.est > g->v[g->best].score.est)))
      g->best = v;
  }
  for (int v = 0; !rc && m && v < nv; v++) {
    rc = compare(&parts[v * m], &parts[g->best * m], m, &g->v[v].ratio, err);
    g->v[v].within = v == g->best ? 1 : !g->v[v].ratio.reliable ? -1 : g->v[v].ratio.lo <= 1 && 1 <= g->v[v].ratio.hi;
    g->v[v].same = same_parts(&parts[v * m], &parts[g->best * m], m);
  }
  g->tie = !rc && m > 0 && nv > 1;
  for (int v = 0; g->tie && v < nv; v++) g->tie = g->v[v].same;
  if (g->tie) {
    char a[16];
    snprintf(a, sizeof a, "%d", nv);
    note(g, "the %s values tie: the same %s on every prompt of every configuration (the setting changed nothing "
         "here: a cap the policy never reached, or a setting these systems do not read)", a, q->y);
  }
  for (int i = 0; parts && i < nv * m; i++) {
    free(parts[i].num);
    free(parts[i].den);
  }
  free(parts);
  free(used);
  free(common);
  free(units);
  free(cell);
  return rc;
}

static void fmt_ci(char *buf, size_t size, const ls_boot_ci *c)
{
  if (c->reliable)
    snprintf(buf, size, "%.4g [%.4g, %.4g]", c->est, c->lo, c->hi);
  else
    snprintf(buf, size, "%.4g [n/a: < %d prompts]", c->est, LS_BOOT_MIN_UNITS);
}

static void within_list(const bgroup *g, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int v = 0; v < g->n_values; v++)
    if (g->v[v].within == 1)
      len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%s%s", len ? ", " : "", g->v[v].value);
}

static void print_table(const ls_best_query *q, const bgroup *g, int ng, FILE *out)
{
  char by[256] = "";
  for (int i = 0, len = 0; i < q->n_by; i++) len += snprintf(by + len, sizeof by - (size_t)len, "%s%s", i ? " / " : "", q->by[i]);
  fprintf(out, "best %s for %s (%s is better)%s%s\n", q->over, q->y, q->lower ? "lower" : "higher", q->n_by ? " by " : "", by);
  fprintf(out, "score: geometric mean of %s over the configurations that have every value; ratios to the best\n"
               "paired over the same prompts, 95 %% bootstrap intervals; \"within\": the ratio's interval holds 1\n\n", q->y);
  for (int k = 0; k < ng; k++) {
    char ci[96], within[512];
    if (g[k].best < 0) {
      fprintf(out, "%s: no comparison (%s)\n\n", g[k].group[0] ? g[k].group : "all runs", g[k].notes);
      continue;
    }
    fmt_ci(ci, sizeof ci, &g[k].v[g[k].best].score);
    within_list(&g[k], within, sizeof within);
    if (g[k].tie) /* no value is better: said, never a best picked among equals */
      fprintf(out, "%s%sno best %s: its %d values tie, %s %s over %d configuration%s\n", g[k].group,
              g[k].group[0] ? ": " : "", q->over, g[k].n_values, q->y, ci, g[k].configs, g[k].configs == 1 ? "" : "s");
    else
      fprintf(out, "%s%sbest %s = %s: %s %s over %d configuration%s; within its interval: %s\n", g[k].group,
              g[k].group[0] ? ": " : "", q->over, g[k].v[g[k].best].value, q->y, ci, g[k].configs,
              g[k].configs == 1 ? "" : "s", within);
    for (int v = 0; v < g[k].n_values; v++) {
      const bvalue *b = &g[k].v[v];
      fmt_ci(ci, sizeof ci, &b->ratio);
      fprintf(out, "  %s=%-10s %s x best  %s%s\n", q->over, b->value, ci,
              g[k].tie ? "tie" : v == g[k].best ? "best" : b->within == 1 ? "within" : b->within == 0 ? "below" : "unknown",
              !g[k].tie && v != g[k].best && b->same ? " (the same on every prompt as the best)" : "");
    }
    fprintf(out, "  runs: %s%s\n", g[k].runs, g[k].notes[0] ? " (see the note)" : "");
    if (g[k].notes[0]) fprintf(out, "  note: %s\n", g[k].notes);
    fputc('\n', out);
  }
}

static void csv_text(FILE *out, const char *s)
{
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

static void csv_real(FILE *out, double v)
{
  if (isfinite(v)) fprintf(out, ",%.17g", v);
  else fputs(",", out);
}

static void print_csv(const bgroup *g, int ng, FILE *out)
{
  fputs("group,value,configs,score,score_lo,score_hi,ratio_to_best,ratio_lo,ratio_hi,best,within,notes\n", out);
  for (int k = 0; k < ng; k++)
    for (int v = 0; v < g[k].n_values && g[k].best >= 0; v++) {
      const bvalue *b = &g[k].v[v];
      csv_text(out, g[k].group);
      fputc(',', out);
      csv_text(out, b->value);
      fprintf(out, ",%d", g[k].configs);
      csv_real(out, b->score.est);
      csv_real(out, b->score.lo);
      csv_real(out, b->score.hi);
      csv_real(out, b->ratio.est);
      csv_real(out, b->ratio.lo);
      csv_real(out, b->ratio.hi);
      fprintf(out, ",%d,%s,", v == g[k].best && !g[k].tie, b->within < 0 ? "" : b->within ? "1" : "0");
      csv_text(out, g[k].notes);
      fputc('\n', out);
    }
}

static void json_text(FILE *out, const char *s)
{
  fputc('"', out);
  for (; *s; s++)
    if (*s == '"' || *s == '\\') fprintf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20) fprintf(out, "\\u%04x", *s);
    else fputc(*s, out);
  fputc('"', out);
}

static void json_real(FILE *out, const char *key, double v)
{
  fprintf(out, ",\"%s\":", key);
  if (isfinite(v)) fprintf(out, "%.17g", v);
  else fputs("null", out);
}

static void print_json(const ls_best_query *q, const bgroup *g, int ng, FILE *out)
{
  fputs("{\"metric\":", out);
  json_text(out, q->y);
  fputs(",\"over\":", out);
  json_text(out, q->over);
  fprintf(out, ",\"lower_is_better\":%s,\"groups\":[", q->lower ? "true" : "false");
  for (int k = 0; k < ng; k++) {
    fprintf(out, "%s{\"group\":", k ? "," : "");
    json_text(out, g[k].group);
    fputs(",\"best\":", out); /* null when the values tie: none is better */
    if (g[k].best >= 0 && !g[k].tie) json_text(out, g[k].v[g[k].best].value);
    else fputs("null", out);
    fprintf(out, ",\"configs\":%d,\"tie\":%s,\"values\":[", g[k].configs, g[k].tie ? "true" : "false");
    for (int v = 0; v < g[k].n_values && g[k].best >= 0; v++) {
      const bvalue *b = &g[k].v[v];
      fprintf(out, "%s{\"value\":", v ? "," : "");
      json_text(out, b->value);
      json_real(out, "score", b->score.est);
      json_real(out, "score_lo", b->score.lo);
      json_real(out, "score_hi", b->score.hi);
      json_real(out, "ratio_to_best", b->ratio.est);
      json_real(out, "ratio_lo", b->ratio.lo);
      json_real(out, "ratio_hi", b->ratio.hi);
      fprintf(out, ",\"within\":%s,\"same_as_best\":%s}", b->within < 0 ? "null" : b->within ? "true" : "false",
              b->same ? "true" : "false");
    }
    fputs("],\"runs\":", out);
    json_text(out, g[k].runs);
    fputs(",\"notes\":", out);
    json_text(out, g[k].notes);
    fputc('}', out);
  }
  fputs("]}\n", out);
}

int ls_best_run(ls_db *db, const ls_best_query *q, const char *format, FILE *out, ls_error *err)
{
  if (q->n_by > MAX_BY) return ls_error_set(err, LS_EUSAGE, "--by: at most %d keys", MAX_BY);
  double num, den;
  ls_db_prompt zero;
  memset(&zero, 0, sizeof zero);
  int rc = ls_db_metric_parts(q->y, &zero, &num, &den, err);
  if (rc) { /* wrapped, not printed into itself: err->msg is both source and target */
    ls_error_wrap(err, "--y");
    err->code = LS_EUSAGE;
    return LS_EUSAGE;
  }
  rc = ls_plot_check_key(db, q->over, "--over", err);
  for (int i = 0; !rc && i < q->n_by; i++) rc = ls_plot_check_key(db, q->by[i], "--by", err);
  runs_ctx c = {NULL, 0, 0};
  if (!rc) rc = read_runs(db, q, &c, err);
  /* a metric named on the command line that the database lacks: 64, as plot says it */
  if (!rc && c.n == 0)
    rc = ls_error_set(err, LS_EUSAGE, "--y '%s': no ok run in the database has this metric", q->y);
  bgroup *g = rc ? NULL : calloc((size_t)c.n, sizeof *g);
  if (!rc && !g) rc = ls_error_set(err, LS_ENOMEM, "best: out of memory");
  int ng = 0;
  if (!rc) qsort(c.r, (size_t)c.n, sizeof *c.r, by_group_value);
  for (int i = 0, j; !rc && i < c.n; i = j) {
    for (j = i + 1; j < c.n && !strcmp(c.r[j].group, c.r[i].group); j++) {}
    g[ng].group = c.r[i].group;
    rc = analyse(db, q, c.r + i, j - i, &g[ng++], err);
  }
  if (!rc && !strcmp(format, "csv")) print_csv(g, ng, out);
  else if (!rc && !strcmp(format, "json")) print_json(q, g, ng, out);
  else if (!rc) print_table(q, g, ng, out);
  free(g);
  free(c.r);
  return rc;
}
