/* runner/experiment: see experiment.h.
 * Invariants: every run spec's names exist (checked at load with the valid choices in the
 * message); runs[] holds only this shard's runs, each with its own settings copy. */
#include "runner/study/experiment.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "results/db.h"
#include "runner/decode/system.h"
#include "sim/fileio.h"
#include "sim/range.h"
#include "sim/yaml.h"
#include "workloads/dataset.h"
#include "workloads/model.h"

#define MAX_AXES 8
#define MAX_VALUES 32
#define MAX_LIST 64
#define MAX_RUNS 100000 /* runs in all parts, before sharding */

#define MAX_PARTS 64
#define MAX_CASES 16

struct ls_experiment {
  char name[LS_NAME_MAX];
  ls_kv *roles;                       /* the `roles` block (owned; empty when none) */
  char parts[MAX_PARTS][LS_NAME_MAX]; /* part names, for the duplicate check */
  int n_parts;
  ls_run_spec *runs;
  int n, cap, total;
  ls_kv *quick_unused; /* owned: quick.settings read but not applied (no --quick), to check */
};

typedef struct {
  char key[128];
  char values[MAX_VALUES][64];
  int line[MAX_VALUES], col[MAX_VALUES]; /* where each value is written */
  char origin[LS_ERR_FILE + 32];         /* "" : in the file; else where (e.g. "--axis") */
  int n;
} axis;

typedef struct { /* one part while it is being expanded */
  const char *name;
  char devices[MAX_LIST][LS_NAME_MAX], models[MAX_LIST][LS_NAME_MAX];
  char datasets[MAX_LIST][LS_NAME_MAX], systems[MAX_LIST][LS_NAME_MAX];
  int n_dev, n_mod, n_ds, n_sys;
  axis axes[MAX_AXES];
  int n_axes;
  ls_kv *cases[MAX_CASES]; /* `cases`: settings of each case (owned); crossed with the sweep */
  int n_cases;
} part_def;

#define MAX_SIZED 32

/* The top-level `sizing` block: workload.prompts per target model for some systems of some
 * parts (the paper replay gives the systems of its headline ratios as many prompts as their
 * 95 % intervals need, docs/STATISTICS.md). Ignored with --quick. */
typedef struct {
  char parts[MAX_LIST][LS_NAME_MAX], systems[MAX_LIST][LS_NAME_MAX], models[MAX_SIZED][LS_NAME_MAX];
  char prompts[MAX_SIZED][24];
  char origin[MAX_SIZED][LS_ERR_FILE + 32];
  int part_line[MAX_LIST], part_col[MAX_LIST];
  int n_parts, n_sys, n_models;
} sizing;

typedef struct {
  const char *file;        /* the experiment file, for origins */
  const char *data_root;
  const ls_kv *base;       /* experiment (+quick) settings */
  const ls_kv *overrides;  /* command line --set: recorded as axes of every run */
  const ls_kv *cli_axes;   /* command line --axis KEY=V1,V2 (may be NULL) */
  const sizing *size;      /* NULL: none (or --quick) */
  int size_any_part;       /* the sizing applies whatever the part (a study without a file) */
  uint64_t seed;
  int shard_i, shard_n;
} expand_ctx;

void ls_experiment_free(ls_experiment *x)
{
  if (!x)
    return;
  ls_kv_free(x->roles);
  for (int i = 0; i < x->n; i++) {
    ls_kv_free(x->runs[i].settings);
    free(x->runs[i].device);
  }
  free(x->runs);
  ls_kv_free(x->quick_unused);
  free(x);
}

const ls_kv *ls_experiment_quick_unused(const ls_experiment *x)
{
  return x->quick_unused;
}

const char *ls_experiment_name(const ls_experiment *x) { return x->name; }
int ls_experiment_count(const ls_experiment *x) { return x->n; }
int ls_experiment_total(const ls_experiment *x) { return x->total; }
ls_run_spec *ls_experiment_run(ls_experiment *x, int i) { return &x->runs[i]; }

/* A scalar, or a sequence of scalars joined by commas ("0.6,0.2,0.1"), as setting text. */
static int setting_text(const ls_ynode *v, char *buf, size_t size, ls_error *err)
{
  if (ls_ynode_kind(v) == LS_Y_SCALAR) {
    if ((size_t)snprintf(buf, size, "%s", ls_ynode_text(v)) >= size)
      return ls_ynode_error(v, err, LS_ERANGE, "value too long (at most %zu characters)", size - 1);
    return LS_OK;
  }
  int rc = ls_ynode_expect(v, LS_Y_SEQ, err);
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; rc == LS_OK && i < ls_yseq_len(v); i++) {
    ls_ynode it = ls_yseq_at(v, i);
    if ((rc = ls_ynode_expect(&it, LS_Y_SCALAR, err)) == LS_OK && len < size)
      len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? "," : "", ls_ynode_text(&it));
  }
  /* A cut value would silently become another value: refuse it instead. */
  if (rc == LS_OK && len >= size)
    rc = ls_ynode_error(v, err, LS_ERANGE, "value too long (at most %zu characters)", size - 1);
  return rc;
}

static int read_settings(const ls_ynode *map, ls_kv *kv, ls_error *err)
{
  int rc = ls_ynode_expect(map, LS_Y_MAP, err);
  for (int i = 0; rc == LS_OK && i < ls_ymap_size(map); i++) {
    const char *key;
    ls_ynode v;
    char text[512], origin[LS_ERR_FILE + 32];
    ls_ymap_at(map, i, &key, &v);
    if ((rc = setting_text(&v, text, sizeof text, err)))
      break;
    snprintf(origin, sizeof origin, "%s:%d:%d", ls_ydoc_name(map->doc), ls_ynode_line(&v),
             ls_ynode_col(&v));
    rc = ls_kv_set(kv, key, text, origin, err);
  }
  return rc;
}

/* The `roles` block: role -> name (results/db.h, ls_db_role_name lists the roles); an unknown
 * role is a wrong name (64), located. */
static int read_roles(const ls_ynode *map, ls_kv *kv, ls_error *err)
{
  int rc = ls_ynode_expect(map, LS_Y_MAP, err);
  for (int i = 0; rc == LS_OK && i < ls_ymap_size(map); i++) {
    const char *key, *value;
    ls_ynode v;
    ls_ymap_at(map, i, &key, &v);
    int known = 0;
    for (int k = 0; ls_db_role_name(k); k++) known |= !strcmp(ls_db_role_name(k), key);
    if (!known)
      return ls_ynode_error(&v, err, LS_EUSAGE, "roles: unknown role '%s' (roles: results/schema.c, "
                            "docs/EXPERIMENTS.md)", key);
    char origin[LS_ERR_FILE + 32];
    snprintf(origin, sizeof origin, "%s:%d:%d", ls_ydoc_name(map->doc), ls_ynode_line(&v), ls_ynode_col(&v));
    char why[LS_ERR_MSG / 2];
    if (!(rc = ls_yas_string(&v, &value, err)) && ls_db_intervals_role_check(key, value, why, sizeof why))
      rc = ls_ynode_error(&v, err, LS_ESCHEMA, "roles: %s: %s", key, why);
    if (!rc) rc = ls_kv_set(kv, key, value, origin, err);
  }
  return rc;
}

int ls_experiment_roles_file(const char *path, ls_kv *into, ls_error *err)
{
  ls_ydoc *doc = NULL;
  ls_ynode r;
  int rc = ls_ydoc_load_file(&doc, path, err);
  ls_ynode root = rc ? (ls_ynode){0} : ls_ydoc_root(doc);
  if (!rc) rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (!rc && ls_ymap_find(&root, "roles", &r))
    rc = read_roles(&r, into, err);
  ls_ydoc_free(doc);
  return rc;
}

const ls_kv *ls_experiment_roles(const ls_experiment *x) { return x->roles; }

typedef int (*list_fn)(const char *root, char (*ids)[64], int max);

/* 1 when name is valid; else fills valid with the comma-separated choices. */
static int name_ok(const char *name, const char *root, list_fn list, char *valid, size_t size)
{
  valid[0] = '\0';
  if (!list) {
    if (ls_system_find(name))
      return 1;
    ls_system_names(valid, (unsigned)size);
    return 0;
  }
  char ids[128][64];
  int count = list(root, ids, 128);
  size_t len = 0;
  for (int i = 0; i < count; i++) {
    if (strcmp(ids[i], name) == 0)
      return 1;
    if (len < size)
      len += (size_t)snprintf(valid + len, size - len, "%s%s", i ? ", " : "", ids[i]);
  }
  return 0;
}

static int check_name(const ls_ynode *n, const char *what, const char *name, const char *root,
                      list_fn list, ls_error *err)
{
  char valid[1024];
  if (name_ok(name, root, list, valid, sizeof valid))
    return LS_OK;
  /* A device, model or dataset names a file that is not there (66); a system is a built-in
   * name, so a wrong one is a usage error (64), like an unknown setting key. */
  if (!n)
    return ls_error_set(err, list ? LS_ENOTFOUND : LS_EUSAGE, "unknown %s '%s' (valid: %s)", what, name, valid);
  return ls_ynode_error(n, err, list ? LS_ENOTFOUND : LS_EUSAGE, "unknown %s '%s' (valid: %s)", what, name, valid);
}

/* A host system (ls_system.host, llama-spec) prices llama.cpp on the CPU of a host profile, not
 * a phone: it is not one of the paper's systems, so no experiment file or --axis runs it (every
 * phone profile would only be "not valid here"); `leversim run` does. n: its YAML entry, or NULL
 * with origin the argument that gave it. */
static int not_host(const ls_ynode *n, const char *origin, const char *name, ls_error *err)
{
  const ls_system *s = ls_system_find(name);
  if (!s || !s->host)
    return LS_OK;
  if (n)
    return ls_ynode_error(n, err, LS_EINVALID, "system '%s' is not one of the paper's systems: it prices llama.cpp "
                          "on a host profile's CPU; run it with leversim run --device HOST.yaml --system %s",
                          name, name);
  return ls_error_set(err, LS_EUSAGE, "%s: system '%s' is not one of the paper's systems: it prices llama.cpp on a "
                      "host profile's CPU; run it with leversim run --device HOST.yaml --system %s", origin, name,
                      name);
}

static int read_names(const ls_ynode *part, const char *key, const char *what, const char *root,
                      list_fn list, char (*out)[LS_NAME_MAX], int *n, ls_error *err)
{
  ls_ynode seq;
  int rc = ls_ymap_require(part, key, &seq, err);
  if (rc || (rc = ls_ynode_expect(&seq, LS_Y_SEQ, err)))
    return rc;
  *n = ls_yseq_len(&seq);
  if (*n == 0 || *n > MAX_LIST)
    return ls_ynode_error(&seq, err, LS_ERANGE, "expected 1 to %d names, found %d", MAX_LIST, *n);
  for (int i = 0; i < *n; i++) {
    ls_ynode it = ls_yseq_at(&seq, i);
    const char *name;
    if ((rc = ls_yas_string(&it, &name, err)) || (rc = check_name(&it, what, name, root, list, err)) ||
        (!list && (rc = not_host(&it, NULL, name, err))))
      return rc;
    for (int j = 0; j < i; j++) /* a repeated name would run (and count) the same runs twice */
      if (strcmp(out[j], name) == 0)
        return ls_ynode_error(&it, err, LS_ESCHEMA, "%s '%s' is listed twice", what, name);
    if (strlen(name) >= LS_NAME_MAX) /* never cut: a cut path would name another file */
      return ls_ynode_error(&it, err, LS_ERANGE, "%s '%s' is longer than %d characters (in an "
                            "experiment file; give a profile id, or the path on the command "
                            "line with --device)", what, name, LS_NAME_MAX - 1);
    snprintf(out[i], LS_NAME_MAX, "%s", name);
  }
  return LS_OK;
}

/* A part's models are the targets it decodes: a draft model there is located at its entry
 * (the run would only say "is a draft model" without a line). A model that does not load is
 * left to the run's own check, which names its file. */
static int targets_only(const ls_ynode *part, const char *root, ls_error *err)
{
  ls_ynode seq;
  if (!ls_ymap_find(part, "models", &seq))
    return LS_OK;
  for (int i = 0; i < ls_yseq_len(&seq); i++) {
    ls_ynode it = ls_yseq_at(&seq, i);
    const char *id = ls_ynode_text(&it);
    ls_model *m = NULL;
    if (id && ls_model_load_id(&m, root, id, NULL) == LS_OK && !ls_model_is_target(m)) {
      ls_model_free(m);
      return ls_ynode_error(&it, err, LS_EINVALID, "'%s' is a draft model, not a target (drafts "
                            "are chosen by model.draft or the target's default_draft)", id);
    }
    ls_model_free(m);
  }
  return LS_OK;
}

/* Sweep points are stored as JSON text ({"key":"value"}): refuse the characters that would
 * need escaping, so the record is valid JSON and the message names the culprit. */
static int json_plain(const ls_ynode *n, const char *what, const char *s, ls_error *err)
{
  for (const unsigned char *c = (const unsigned char *)s; *c; c++)
    if (*c == '"' || *c == '\\' || *c < 0x20)
      return ls_ynode_error(n, err, LS_ESCHEMA, "sweep %s '%s' contains a quote, backslash or control "
                            "character", what, s);
  return LS_OK;
}

static int read_axes(const ls_ynode *part, part_def *p, ls_error *err)
{
  ls_ynode sweep;
  p->n_axes = 0;
  if (!ls_ymap_find(part, "sweep", &sweep))
    return LS_OK;
  int rc = ls_ynode_expect(&sweep, LS_Y_MAP, err);
  if (rc == LS_OK && ls_ymap_size(&sweep) > MAX_AXES)
    return ls_ynode_error(&sweep, err, LS_ERANGE, "at most %d sweep axes", MAX_AXES);
  for (int i = 0; rc == LS_OK && i < ls_ymap_size(&sweep); i++) {
    axis *a = &p->axes[p->n_axes++];
    const char *key;
    ls_ynode vals;
    ls_ymap_at(&sweep, i, &key, &vals);
    if (strlen(key) >= sizeof a->key)
      return ls_ynode_error(&vals, err, LS_ERANGE, "setting name too long (at most %zu characters)",
                            sizeof a->key - 1);
    snprintf(a->key, sizeof a->key, "%s", key);
    if ((rc = json_plain(&vals, "setting name", key, err)) || (rc = ls_ynode_expect(&vals, LS_Y_SEQ, err)))
      break;
    a->n = ls_yseq_len(&vals);
    if (a->n == 0 || a->n > MAX_VALUES)
      return ls_ynode_error(&vals, err, LS_ERANGE, "expected 1 to %d values, found %d", MAX_VALUES, a->n);
    for (int j = 0; rc == LS_OK && j < a->n; j++) {
      ls_ynode it = ls_yseq_at(&vals, j);
      a->line[j] = ls_ynode_line(&it);
      a->col[j] = ls_ynode_col(&it);
      rc = setting_text(&it, a->values[j], sizeof a->values[j], err);
      if (rc == LS_OK)
        rc = json_plain(&it, "value", a->values[j], err);
      for (int k = 0; rc == LS_OK && k < j; k++)
        if (strcmp(a->values[k], a->values[j]) == 0)
          rc = ls_ynode_error(&it, err, LS_ESCHEMA, "sweep value '%s' is listed twice", a->values[j]);
    }
  }
  return rc;
}

/* `cases`: a list of setting maps, each one point of a one-factor design (the sweep crosses
 * its axes; cases list the points). An empty map is the case of the settings as they are. */
static int read_cases(const ls_ynode *part, part_def *p, ls_error *err)
{
  ls_ynode seq;
  p->n_cases = 0;
  if (!ls_ymap_find(part, "cases", &seq))
    return LS_OK;
  int rc = ls_ynode_expect(&seq, LS_Y_SEQ, err);
  if (!rc && (ls_yseq_len(&seq) == 0 || ls_yseq_len(&seq) > MAX_CASES))
    return ls_ynode_error(&seq, err, LS_ERANGE, "expected 1 to %d cases, found %d", MAX_CASES, ls_yseq_len(&seq));
  for (int i = 0; !rc && i < ls_yseq_len(&seq); i++) {
    ls_ynode c = ls_yseq_at(&seq, i);
    if (!(rc = ls_kv_create(&p->cases[i], err))) {
      p->n_cases = i + 1;
      rc = read_settings(&c, p->cases[i], err);
    }
    for (int a = 0; !rc && a < p->n_axes; a++)
      if (ls_kv_has(p->cases[i], p->axes[a].key))
        rc = ls_ynode_error(&c, err, LS_ESCHEMA, "case %d sets %s, which the part sweeps", i + 1, p->axes[a].key);
  }
  return rc;
}

static void free_cases(part_def *p)
{
  for (int i = 0; i < p->n_cases; i++) ls_kv_free(p->cases[i]);
  p->n_cases = 0;
}

/* Names become file names (results/<name>.db) and database keys: 1 to LS_NAME_MAX - 1
 * letters, digits, '.', '_' or '-', not starting with '.' (no "..", no hidden files). */
static int check_ident(const ls_ynode *n, const char *what, const char *name, ls_error *err)
{
  size_t len = strlen(name);
  if (len == 0)
    return ls_ynode_error(n, err, LS_ESCHEMA, "empty %s", what);
  if (len >= LS_NAME_MAX)
    return ls_ynode_error(n, err, LS_ESCHEMA, "%s '%s' is %zu characters long (at most %d)", what,
                          name, len, LS_NAME_MAX - 1);
  if (name[0] == '.')
    return ls_ynode_error(n, err, LS_ESCHEMA, "%s '%s' must not start with '.'", what, name);
  for (const char *c = name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '.' && *c != '_' && *c != '-')
      return ls_ynode_error(n, err, LS_ESCHEMA, "%s '%s': only letters, digits, '.', '_' and '-' "
                            "are allowed (it becomes a file name)", what, name);
  return LS_OK;
}

/* 1 when setting key would override sweep axis `axis` for some system: the same key, or
 * the key scoped to a system ("lever:draft.budget"), since scoped settings win. */
static int shadows(const char *key, const char *axis)
{
  const char *colon = strchr(key, ':');
  if (strcmp(key, axis) == 0)
    return 1;
  return colon && !strchr(axis, ':') && strcmp(colon + 1, axis) == 0;
}

/* A part setting, a scoped experiment setting or a --set that would silently replace a sweep
 * axis turns every sweep point into the same run: refuse it, located at the setting. */
static int check_clash(const ls_kv *kv, int scoped_only, const part_def *p, const char *what,
                       ls_error *err)
{
  for (int i = 0; kv && i < ls_kv_count(kv); i++) {
    const char *key = ls_kv_key(kv, i);
    if (scoped_only && !strchr(key, ':'))
      continue;
    for (int a = 0; a < p->n_axes; a++)
      if (shadows(key, p->axes[a].key))
        return ls_error_set(err, LS_EUSAGE, "%s: %s %s: part %s sweeps %s; drop the setting or the "
                            "sweep axis", ls_kv_origin(kv, i), what, key, p->name, p->axes[a].key);
  }
  return LS_OK;
}

static int listed(const char (*names)[LS_NAME_MAX], int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0)
      return 1;
  return 0;
}

/* Sets workload.prompts from the sizing block when it covers (part, model, system); part
 * settings, sweeps and --set come later and win. part may be NULL: any part (leversim run). */
static int apply_sizing(const sizing *z, const char *part, const char *model, const char *system,
                        ls_kv *kv, ls_error *err)
{
  if (!z || (part && !listed(z->parts, z->n_parts, part)) || !listed(z->systems, z->n_sys, system))
    return LS_OK;
  for (int i = 0; i < z->n_models; i++)
    if (strcmp(z->models[i], model) == 0)
      return ls_kv_set(kv, "workload.prompts", z->prompts[i], z->origin[i], err);
  return LS_OK;
}

/* Reads the sizing block (names checked against the data folders; its parts are checked
 * once all parts are read, by sizing_parts_known). */
static int read_sizing(const ls_ynode *node, const char *data_root, sizing *z, ls_error *err)
{
  ls_ynode parts, models;
  int rc = ls_ynode_expect(node, LS_Y_MAP, err);
  if (!rc) rc = read_names(node, "systems", "system", data_root, NULL, z->systems, &z->n_sys, err);
  if (!rc) rc = ls_ymap_require(node, "parts", &parts, err);
  if (!rc) rc = ls_ynode_expect(&parts, LS_Y_SEQ, err);
  if (!rc && (ls_yseq_len(&parts) == 0 || ls_yseq_len(&parts) > MAX_LIST))
    rc = ls_ynode_error(&parts, err, LS_ERANGE, "expected 1 to %d part names, found %d", MAX_LIST,
                        ls_yseq_len(&parts));
  for (int i = 0; !rc && i < ls_yseq_len(&parts) && i < MAX_LIST; i++) {
    ls_ynode it = ls_yseq_at(&parts, i);
    const char *name;
    if (!(rc = ls_yas_string(&it, &name, err))) {
      snprintf(z->parts[i], LS_NAME_MAX, "%s", name);
      z->part_line[i] = ls_ynode_line(&it);
      z->part_col[i] = ls_ynode_col(&it);
      z->n_parts = i + 1;
    }
  }
  if (!rc) rc = ls_ymap_require(node, "prompts", &models, err);
  if (!rc) rc = ls_ynode_expect(&models, LS_Y_MAP, err);
  if (!rc && ls_ymap_size(&models) > MAX_SIZED)
    rc = ls_ynode_error(&models, err, LS_ERANGE, "more than %d models", MAX_SIZED);
  for (int i = 0; !rc && i < ls_ymap_size(&models); i++) {
    const char *model;
    ls_ynode v;
    double n;
    ls_ymap_at(&models, i, &model, &v);
    if ((rc = check_name(&v, "model", model, data_root, ls_model_list, err)) ||
        (rc = ls_range_yas(&v, LS_R_PROMPTS, &n, err)))
      break;
    snprintf(z->models[i], LS_NAME_MAX, "%s", model);
    snprintf(z->prompts[i], sizeof z->prompts[i], "%.0f", n);
    snprintf(z->origin[i], sizeof z->origin[i], "%s:%d:%d", ls_ydoc_name(node->doc), ls_ynode_line(&v),
             ls_ynode_col(&v));
    z->n_models = i + 1;
  }
  if (!rc) rc = ls_ymap_finish(node, err);
  return rc;
}

/* Every part the sizing block names is a part of the experiment (located error otherwise). */
static int sizing_parts_known(const ls_experiment *x, const sizing *z, const char *file, ls_error *err)
{
  for (int i = 0; i < z->n_parts; i++)
    if (!listed(x->parts, x->n_parts, z->parts[i]))
      return ls_error_set(err, LS_ESCHEMA, "%s:%d:%d: sizing: unknown part '%s'", file,
                          z->part_line[i], z->part_col[i], z->parts[i]);
  return LS_OK;
}

/* Appends "key":"value" (JSON-escaped) to the axes record; returns the new length (may be
 * >= size: cut). */
static size_t axes_put(char *buf, size_t size, size_t len, const char *key, const char *value)
{
  const char *parts[2] = {key, value};
  for (int k = 0; k < 2; k++) {
    if (len < size) len += (size_t)snprintf(buf + len, size - len, "%s\"", k ? ":" : len > 1 ? "," : "");
    for (const unsigned char *c = (const unsigned char *)parts[k]; *c && len < size; c++)
      if (*c == '"' || *c == '\\') len += (size_t)snprintf(buf + len, size - len, "\\%c", *c);
      else if (*c < 0x20) len += (size_t)snprintf(buf + len, size - len, "\\u%04x", *c);
      else buf[len++] = (char)*c;
    if (len < size) buf[len++] = '"';
  }
  if (len < size) buf[len] = '\0';
  return len;
}

/* Refuses a record that does not fit (limit: the characters it holds): it would not identify
 * the run, and a cut one would merge runs. Names the setting whose entry overflowed it, where
 * it was given, and its value: 64 when typed on the command line (--axis), 65 when read from
 * the experiment file. */
static int axes_too_long(size_t limit, const char *part, const char *key, const char *value, const char *origin,
                         int typed, ls_error *err)
{
  size_t n = strlen(value);
  return ls_error_set(err, typed ? LS_EUSAGE : LS_ERANGE,
                      "%s: part %s: sweep axis %s (value '%.40s%s', %zu characters) makes the run's record of its "
                      "sweep point longer than the %zu characters it holds as JSON (shorten the setting's values, "
                      "or sweep fewer settings at once)", origin, part, key, value, n > 40 ? "..." : "", n, limit);
}

/* The run's axes record: the case's settings, the part's sweep point (axes in the part's
 * order), then every command-line --set (sorted by key, as ls_kv keeps them). A --set is an
 * axis of the run: runs that differ only by it are different configurations, told apart in
 * every view. file: the experiment file, for the origin of the part's own axes. */
static int axes_record(ls_run_spec *r, const char *file, const part_def *p, const int *point, const ls_kv *kase,
                       const ls_kv *overrides, ls_error *err)
{
  const size_t limit = sizeof r->axes_json - 1, size = limit; /* the record's room, then '}' */
  size_t len = (size_t)snprintf(r->axes_json, size, "{");
  char origin[LS_ERR_FILE + 32];
  r->axes_json[limit] = '\0';
  for (int i = 0; kase && i < ls_kv_count(kase); i++)
    if ((len = axes_put(r->axes_json, size, len, ls_kv_key(kase, i), ls_kv_value(kase, i))) >= size)
      return axes_too_long(limit, p->name, ls_kv_key(kase, i), ls_kv_value(kase, i), ls_kv_origin(kase, i), 0, err);
  for (int a = 0; a < p->n_axes; a++) {
    const axis *ax = &p->axes[a];
    if ((len = axes_put(r->axes_json, size, len, ax->key, ax->values[point[a]])) < size)
      continue;
    if (ax->origin[0])
      snprintf(origin, sizeof origin, "%s", ax->origin);
    else
      snprintf(origin, sizeof origin, "%s:%d:%d", file, ax->line[point[a]], ax->col[point[a]]);
    return axes_too_long(limit, p->name, ax->key, ax->values[point[a]], origin, ax->origin[0] != '\0', err);
  }
  for (int i = 0; overrides && i < ls_kv_count(overrides); i++) /* typed: a usage error naming the --set */
    if ((len = axes_put(r->axes_json, size, len, ls_kv_key(overrides, i), ls_kv_value(overrides, i))) >= size)
      return ls_error_set(err, LS_EUSAGE, "--set %s: the value (%zu characters) makes the run's record of its "
                          "settings longer than the %zu characters it holds as JSON (give a shorter value)",
                          ls_kv_key(overrides, i), strlen(ls_kv_value(overrides, i)), limit);
  snprintf(r->axes_json + len, sizeof r->axes_json - len, "}");
  return LS_OK;
}

static int push_run(ls_experiment *x, const expand_ctx *c, const part_def *p, const int *ix,
                    const ls_kv *part_kv, const ls_kv *kase, const int *point, ls_error *err)
{
  int index = x->total++;
  if (index % c->shard_n != c->shard_i - 1)
    return LS_OK;
  if (x->n == x->cap) {
    int cap = x->cap ? 2 * x->cap : 64;
    ls_run_spec *r = realloc(x->runs, (size_t)cap * sizeof *r);
    if (!r)
      return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
    x->runs = r;
    x->cap = cap;
  }
  ls_run_spec *r = &x->runs[x->n];
  memset(r, 0, sizeof *r);
  snprintf(r->part, sizeof r->part, "%s", p->name);
  if (!(r->device = strdup(p->devices[ix[0]])))
    return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  snprintf(r->model, sizeof r->model, "%s", p->models[ix[1]]);
  snprintf(r->dataset, sizeof r->dataset, "%s", p->datasets[ix[2]]);
  snprintf(r->system, sizeof r->system, "%s", p->systems[ix[3]]);
  r->seed = c->seed;
  r->index = index;
  r->cased = p->n_cases > 0; /* a case is a label of its own: runner/study/driver.h */
  int rc = ls_kv_copy(&r->settings, c->base, err);
  if (rc == LS_OK)
    rc = apply_sizing(c->size, c->size_any_part ? NULL : p->name, r->model, r->system, r->settings, err);
  for (int i = 0; rc == LS_OK && part_kv && i < ls_kv_count(part_kv); i++)
    rc = ls_kv_set(r->settings, ls_kv_key(part_kv, i), ls_kv_value(part_kv, i), ls_kv_origin(part_kv, i), err);
  for (int i = 0; rc == LS_OK && kase && i < ls_kv_count(kase); i++)
    rc = ls_kv_set(r->settings, ls_kv_key(kase, i), ls_kv_value(kase, i), ls_kv_origin(kase, i), err);
  for (int a = 0; rc == LS_OK && a < p->n_axes; a++) {
    char origin[LS_ERR_FILE + 32];
    if (p->axes[a].origin[0])
      snprintf(origin, sizeof origin, "%s", p->axes[a].origin);
    else
      snprintf(origin, sizeof origin, "%s:%d:%d", c->file, p->axes[a].line[point[a]], p->axes[a].col[point[a]]);
    rc = ls_kv_set(r->settings, p->axes[a].key, p->axes[a].values[point[a]], origin, err);
  }
  for (int i = 0; rc == LS_OK && c->overrides && i < ls_kv_count(c->overrides); i++)
    rc = ls_kv_set(r->settings, ls_kv_key(c->overrides, i), ls_kv_value(c->overrides, i),
                   ls_kv_origin(c->overrides, i), err);
  if (rc == LS_OK)
    rc = axes_record(r, c->file, p, point, kase, c->overrides, err);
  if (rc) {
    ls_kv_free(r->settings);
    free(r->device);
    return rc;
  }
  x->n++;
  return LS_OK;
}

static int check_device(const char *device, const char *data_root, ls_error *err);

/* Splits an --axis value list "a,b,c" into out (at most max values of width LS_NAME_MAX or
 * 64); an empty or repeated value is a usage error naming the axis. Returns the count or < 0. */
static int split_values(const char *key, const char *list, const char *origin, char *out,
                        size_t width, int max, ls_error *err)
{
  int n = 0;
  for (const char *s = list;; n++) {
    const char *comma = strchr(s, ',');
    size_t len = comma ? (size_t)(comma - s) : strlen(s);
    if (n == max)
      return ls_error_set(err, LS_EUSAGE, "%s: --axis %s: more than %d values", origin, key, max);
    if (len == 0 || len >= width)
      return ls_error_set(err, LS_EUSAGE, "%s: --axis %s: value %d is %s", origin, key, n + 1,
                          len ? "too long" : "empty (expected KEY=V1,V2,...)");
    memcpy(out + (size_t)n * width, s, len);
    out[(size_t)n * width + len] = '\0';
    for (int k = 0; k < n; k++)
      if (strcmp(out + (size_t)k * width, out + (size_t)n * width) == 0)
        return ls_error_set(err, LS_EUSAGE, "%s: --axis %s: value '%s' is listed twice", origin,
                            key, out + (size_t)n * width);
    if (!comma)
      return n + 1;
    s = comma + 1;
  }
}

/* A names axis (device, model, dataset, system) replaces the part's list of that name. */
static int cli_names(part_def *p, const expand_ctx *c, const char *key, const char *list,
                     const char *origin, ls_error *err)
{
  static const char *const keys[] = {"device", "model", "dataset", "system"};
  static const list_fn lists[] = {ls_device_list, ls_model_list, ls_dataset_list, NULL};
  char(*dst[])[LS_NAME_MAX] = {p->devices, p->models, p->datasets, p->systems};
  int *count[] = {&p->n_dev, &p->n_mod, &p->n_ds, &p->n_sys};
  for (int k = 0; k < 4; k++) {
    if (strcmp(key, keys[k]))
      continue;
    int n = split_values(key, list, origin, &dst[k][0][0], LS_NAME_MAX, MAX_LIST, err);
    for (int i = 0; n > 0 && i < n; i++) {
      char valid[1024];
      int rc = k == 0 ? check_device(dst[k][i], c->data_root, err)
               : name_ok(dst[k][i], c->data_root, lists[k], valid, sizeof valid) ? LS_OK
               : ls_error_set(err, lists[k] ? LS_ENOTFOUND : LS_EUSAGE, "%s: unknown %s '%s' (valid: %s)",
                              origin, key, dst[k][i], valid);
      if (!rc && k == 3) rc = not_host(NULL, origin, dst[k][i], err);
      if (rc) return rc;
    }
    if (n < 0) return err->code;
    *count[k] = n;
    return 1;
  }
  return 0;
}

/* Applies the command line's --axis to a part: names axes replace its lists, a setting axis
 * replaces the part's sweep of that key or is added to it. */
static int apply_cli_axes(part_def *p, const expand_ctx *c, ls_error *err)
{
  for (int i = 0; c->cli_axes && i < ls_kv_count(c->cli_axes); i++) {
    const char *key = ls_kv_key(c->cli_axes, i), *list = ls_kv_value(c->cli_axes, i);
    const char *origin = ls_kv_origin(c->cli_axes, i);
    int rc = cli_names(p, c, key, list, origin, err);
    if (rc < 0) return rc;
    if (rc == 1) continue;
    int a = 0;
    while (a < p->n_axes && strcmp(p->axes[a].key, key)) a++;
    if (a == MAX_AXES)
      return ls_error_set(err, LS_EUSAGE, "%s: --axis %s: at most %d sweep axes", origin, key, MAX_AXES);
    if (strlen(key) >= sizeof p->axes[a].key)
      return ls_error_set(err, LS_EUSAGE, "%s: --axis: setting name too long", origin);
    axis *ax = &p->axes[a];
    int n = split_values(key, list, origin, &ax->values[0][0], sizeof ax->values[0], MAX_VALUES, err);
    if (n < 0) return err->code;
    snprintf(ax->key, sizeof ax->key, "%s", key);
    snprintf(ax->origin, sizeof ax->origin, "%s", origin);
    ax->n = n;
    if (a == p->n_axes) p->n_axes++;
  }
  return LS_OK;
}

/* Expands one part: the name matrix, then every point of the sweep axes. */
static int expand_part(ls_experiment *x, const expand_ctx *c, const part_def *p,
                       const ls_kv *part_kv, ls_error *err)
{
  int ix[4];
  int rc = LS_OK;
  for (ix[0] = 0; ix[0] < p->n_dev; ix[0]++)
    for (ix[1] = 0; ix[1] < p->n_mod; ix[1]++)
      for (ix[2] = 0; ix[2] < p->n_ds; ix[2]++)
        for (ix[3] = 0; ix[3] < p->n_sys; ix[3]++)
          for (int k = 0; k < (p->n_cases ? p->n_cases : 1); k++) {
            int point[MAX_AXES] = {0};
            for (;;) {
              if ((rc = push_run(x, c, p, ix, part_kv, p->n_cases ? p->cases[k] : NULL, point, err)))
                return rc;
              int a = p->n_axes - 1; /* odometer over the axes, last axis fastest */
              while (a >= 0 && ++point[a] == p->axes[a].n)
                point[a--] = 0;
              if (a < 0)
                break;
            }
          }
  return rc;
}

static int read_part(ls_experiment *x, const expand_ctx *c, const ls_ynode *part, int quick,
                     ls_error *err)
{
  part_def *pd = calloc(1, sizeof *pd);
  ls_kv *kv = NULL;
  if (!pd)
    return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  ls_ynode name_node;
  int in_quick = 1, rc = ls_ymap_require(part, "name", &name_node, err);
  if (!rc) rc = ls_yas_string(&name_node, &pd->name, err);
  if (!rc) rc = check_ident(&name_node, "part name", pd->name, err);
  for (int i = 0; !rc && i < x->n_parts; i++)
    if (strcmp(x->parts[i], pd->name) == 0)
      rc = ls_ynode_error(&name_node, err, LS_ESCHEMA, "part '%s' is defined twice", pd->name);
  if (!rc && x->n_parts == MAX_PARTS)
    rc = ls_ynode_error(&name_node, err, LS_ERANGE, "more than %d parts", MAX_PARTS);
  if (!rc)
    snprintf(x->parts[x->n_parts++], LS_NAME_MAX, "%s", pd->name);
  if (!rc) rc = ls_yopt_bool(part, "quick", 1, &in_quick, err);
  if (!rc) rc = read_names(part, "devices", "device", c->data_root, ls_device_list, pd->devices, &pd->n_dev, err);
  if (!rc) rc = read_names(part, "models", "model", c->data_root, ls_model_list, pd->models, &pd->n_mod, err);
  if (!rc) rc = targets_only(part, c->data_root, err);
  if (!rc) rc = read_names(part, "datasets", "dataset", c->data_root, ls_dataset_list, pd->datasets, &pd->n_ds, err);
  if (!rc) rc = read_names(part, "systems", "system", c->data_root, NULL, pd->systems, &pd->n_sys, err);
  if (!rc) rc = read_axes(part, pd, err);
  if (!rc) rc = apply_cli_axes(pd, c, err);
  if (!rc) rc = read_cases(part, pd, err);
  if (!rc) rc = ls_kv_create(&kv, err);
  ls_ynode s;
  if (!rc && ls_ymap_find(part, "settings", &s))
    rc = read_settings(&s, kv, err);
  if (!rc) rc = ls_ymap_finish(part, err);
  if (!rc) rc = check_clash(kv, 0, pd, "part setting", err);
  if (!rc) rc = check_clash(c->base, 1, pd, "scoped setting", err);
  if (!rc) rc = check_clash(c->overrides, 0, pd, "--set", err);
  for (int k = 0; !rc && c->overrides && k < pd->n_cases; k++)
    for (int i = 0; !rc && i < ls_kv_count(c->overrides); i++)
      if (ls_kv_has(pd->cases[k], ls_kv_key(c->overrides, i)))
        rc = ls_error_set(err, LS_EUSAGE, "%s: --set %s: part %s's cases set it; drop the --set or the "
                          "case", ls_kv_origin(c->overrides, i), ls_kv_key(c->overrides, i), pd->name);
  double runs = (double)pd->n_dev * pd->n_mod * pd->n_ds * pd->n_sys;
  for (int a = 0; a < pd->n_axes; a++)
    runs *= pd->axes[a].n;
  if (pd->n_cases) runs *= pd->n_cases;
  if (!rc && x->total + runs > MAX_RUNS) /* a few lines of YAML must not exhaust memory */
    rc = ls_ynode_error(part, err, LS_ERANGE, "expands to %.0f runs; an experiment has at most %d",
                        x->total + runs, MAX_RUNS);
  if (!rc && (!quick || in_quick))
    rc = expand_part(x, c, pd, kv, err);
  ls_kv_free(kv);
  free_cases(pd);
  free(pd);
  return rc;
}

static int read_top(ls_experiment *x, ls_ynode *root, expand_ctx *c, ls_kv *base, int quick,
                    ls_error *err)
{
  const char *name;
  double seed;
  ls_ynode s, parts, q, name_node;
  int rc = ls_ynode_expect(root, LS_Y_MAP, err);
  if (!rc) rc = ls_ymap_require(root, "name", &name_node, err);
  if (!rc) rc = ls_yas_string(&name_node, &name, err);
  if (!rc) rc = check_ident(&name_node, "experiment name", name, err);
  if (!rc) rc = ls_range_yreq(root, "seed", LS_R_SEED, &seed, err);
  const char *desc;
  if (!rc) rc = ls_yopt_string(root, "description", "", &desc, err);
  if (!rc && ls_ymap_find(root, "settings", &s))
    rc = read_settings(&s, base, err);
  ls_ynode rl;
  if (!rc && ls_ymap_find(root, "roles", &rl))
    rc = read_roles(&rl, x->roles, err);
  if (!rc && ls_ymap_find(root, "quick", &q)) {
    ls_ynode qs;
    /* read always (values and keys checked); applied only with --quick. Without it the keys
     * are kept for ls_validate_experiment, so a typo there never waits for a --quick run */
    if (!(rc = ls_ynode_expect(&q, LS_Y_MAP, err)) && ls_ymap_find(&q, "settings", &qs)) {
      if (!quick && !x->quick_unused)
        rc = ls_kv_create(&x->quick_unused, err);
      if (!rc)
        rc = read_settings(&qs, quick ? base : x->quick_unused, err);
    }
    if (!rc) rc = ls_ymap_finish(&q, err);
  }
  ls_ynode zn;
  sizing *z = NULL;
  if (!rc && ls_ymap_find(root, "sizing", &zn)) {
    if (!(z = calloc(1, sizeof *z)))
      rc = ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
    if (!rc) rc = read_sizing(&zn, c->data_root, z, err);
    c->size = quick ? NULL : z;
  }
  if (!rc) rc = ls_ymap_require(root, "parts", &parts, err);
  if (!rc) rc = ls_ynode_expect(&parts, LS_Y_SEQ, err);
  if (!rc && ls_yseq_len(&parts) == 0)
    rc = ls_ynode_error(&parts, err, LS_ESCHEMA, "no parts (an experiment needs at least one run)");
  if (!rc) rc = ls_ymap_finish(root, err);
  if (rc) {
    free(z);
    return rc;
  }
  snprintf(x->name, sizeof x->name, "%s", name);
  c->seed = (uint64_t)seed;
  for (int i = 0; rc == LS_OK && i < ls_yseq_len(&parts); i++) {
    ls_ynode part = ls_yseq_at(&parts, i);
    if (!(rc = ls_ynode_expect(&part, LS_Y_MAP, err)))
      rc = read_part(x, c, &part, quick, err);
  }
  if (rc == LS_OK && z)
    rc = sizing_parts_known(x, z, ls_ydoc_name(zn.doc), err);
  free(z);
  c->size = NULL;
  if (!rc && x->total == 0) /* e.g. --quick and every part says quick: false */
    rc = ls_ynode_error(&parts, err, LS_ESCHEMA, "%s", quick ? "no runs with --quick: every part has quick: false"
                                                             : "no runs (an experiment needs at least one)");
  return rc;
}

/* The data root's paper experiment into *path (malloc'd; NULL when the data root has none,
 * which is no error). Opened as every input is (sim/fileio): a FIFO or a folder standing there
 * is refused (LS_EIO) instead of blocking the probe for ever. */
static int paper_file(const char *data_root, char **path, ls_error *err)
{
  static const char rel[] = "/runner/experiments/paper.yaml";
  size_t n = strlen(data_root) + sizeof rel;
  *path = malloc(n);
  if (!*path) return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  snprintf(*path, n, "%s%s", data_root, rel);
  FILE *f = NULL;
  int rc = ls_file_open_read(&f, *path, "paper experiment", err);
  if (rc == LS_OK) {
    fclose(f);
    return LS_OK;
  }
  free(*path);
  *path = NULL;
  if (rc != LS_ENOTFOUND) return rc;
  ls_error_clear(err);
  return LS_OK;
}

/* The defaults of a study without a file: the paper experiment's top-level settings, seed and
 * sizing (as `leversim run` uses them), or none and seed 1 when the data root has none. */
static int file_free_defaults(const char *data_root, ls_kv *base, ls_kv *roles, uint64_t *seed,
                              sizing *z, ls_error *err)
{
  char *path = NULL;
  *seed = 1;
  int rc = paper_file(data_root, &path, err);
  if (rc || !path)
    return rc;
  rc = ls_experiment_defaults(path, data_root, NULL, NULL, base, seed, err);
  if (!rc) rc = ls_experiment_roles_file(path, roles, err);
  ls_ydoc *doc = NULL;
  ls_ynode zn;
  if (!rc) rc = ls_ydoc_load_file(&doc, path, err);
  ls_ynode root = rc ? (ls_ynode){0} : ls_ydoc_root(doc);
  if (!rc && ls_ymap_find(&root, "sizing", &zn))
    rc = read_sizing(&zn, data_root, z, err);
  ls_ydoc_free(doc);
  free(path);
  return rc;
}

/* A study from the command line alone: one part "run" whose names and sweep axes are the
 * --axis arguments (device, model, dataset and system required), on the defaults above. */
static int load_axes_only(ls_experiment *x, const ls_study_args *a, ls_kv *base, ls_error *err)
{
  sizing *z = calloc(1, sizeof *z);
  part_def *pd = calloc(1, sizeof *pd);
  int rc = z && pd ? LS_OK : ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  expand_ctx c = {"(command line)", a->data_root, base, a->overrides, a->axes, z, 1, 0,
                  a->shard_i, a->shard_n};
  if (!rc) rc = file_free_defaults(a->data_root, base, x->roles, &c.seed, z, err);
  if (!rc) {
    pd->name = "run";
    rc = apply_cli_axes(pd, &c, err);
  }
  if (!rc && (!pd->n_dev || !pd->n_mod || !pd->n_ds || !pd->n_sys))
    rc = ls_error_set(err, LS_EUSAGE, "a sweep without an experiment file needs --axis device=..., "
                      "--axis model=..., --axis dataset=... and --axis system=... (missing: %s%s%s%s)",
                      pd->n_dev ? "" : "device ", pd->n_mod ? "" : "model ",
                      pd->n_ds ? "" : "dataset ", pd->n_sys ? "" : "system");
  if (!rc) rc = check_clash(base, 1, pd, "scoped setting", err);
  if (!rc) rc = check_clash(a->overrides, 0, pd, "--set", err);
  if (!rc) {
    snprintf(x->name, sizeof x->name, "sweep");
    snprintf(x->parts[x->n_parts++], LS_NAME_MAX, "%s", pd->name);
    rc = expand_part(x, &c, pd, NULL, err);
  }
  free(pd);
  free(z);
  return rc;
}

int ls_experiment_open(ls_experiment **out, const ls_study_args *a, ls_error *err)
{
  *out = NULL;
  if (a->shard_n < 1 || a->shard_i < 1 || a->shard_i > a->shard_n)
    return ls_error_set(err, LS_EUSAGE, "bad shard %d/%d (expected i/N with 1 <= i <= N)", a->shard_i, a->shard_n);
  ls_ydoc *doc = NULL;
  ls_kv *base = NULL;
  ls_experiment *x = calloc(1, sizeof *x);
  if (!x)
    return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  int rc = ls_kv_create(&base, err);
  if (!rc) rc = ls_kv_create(&x->roles, err);
  if (!rc && !a->path) {
    rc = load_axes_only(x, a, base, err);
  } else if (!rc) {
    /* an experiment without a `roles` block (or with part of one) compares what the paper
     * experiment's views compare */
    char *paper = NULL;
    rc = paper_file(a->data_root, &paper, err);
    if (!rc && paper) rc = ls_experiment_roles_file(paper, x->roles, err);
    free(paper);
    if (!rc) rc = ls_ydoc_load_file(&doc, a->path, err);
    if (!rc) {
      expand_ctx c = {a->path, a->data_root, base, a->overrides, a->axes, NULL, 0, 0, a->shard_i, a->shard_n};
      ls_ynode root = ls_ydoc_root(doc);
      rc = read_top(x, &root, &c, base, a->quick, err);
    }
  }
  ls_kv_free(base);
  ls_ydoc_free(doc);
  if (rc) {
    ls_experiment_free(x);
    return rc;
  }
  *out = x;
  return LS_OK;
}

int ls_experiment_load(ls_experiment **out, const char *path, const char *data_root, int quick,
                       const ls_kv *overrides, int shard_i, int shard_n, ls_error *err)
{
  ls_study_args a = {path, data_root, quick, overrides, NULL, shard_i, shard_n};
  return ls_experiment_open(out, &a, err);
}

int ls_experiment_defaults(const char *path, const char *data_root, const char *model,
                           const char *system, ls_kv *into, uint64_t *seed, ls_error *err)
{
  ls_ydoc *doc = NULL;
  double v = 0;
  ls_ynode s, zn;
  int rc = ls_ydoc_load_file(&doc, path, err);
  ls_ynode root = rc ? (ls_ynode){0} : ls_ydoc_root(doc);
  if (!rc) rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (!rc) rc = ls_range_yreq(&root, "seed", LS_R_SEED, &v, err);
  if (!rc && ls_ymap_find(&root, "settings", &s))
    rc = read_settings(&s, into, err);
  if (!rc && model && system && ls_ymap_find(&root, "sizing", &zn)) {
    sizing *z = calloc(1, sizeof *z);
    rc = z ? read_sizing(&zn, data_root, z, err) : ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
    if (!rc) rc = apply_sizing(z, NULL, model, system, into, err);
    free(z);
  }
  if (!rc)
    *seed = (uint64_t)v;
  ls_ydoc_free(doc);
  return rc;
}

/* A device is a profile id, or a profile file (ls_device_is_path: e.g. `leversim calibrate`'s
 * output), which must load and fit the run record's name field. */
static int check_device(const char *device, const char *data_root, ls_error *err)
{
  if (!ls_device_is_path(device))
    return check_name(NULL, "device", device, data_root, ls_device_list, err);
  ls_device *d;
  int rc = ls_device_load(&d, device, err);
  ls_device_free(d);
  return rc;
}

/* A single run's model is typed by the user (--model): a draft model there is a usage error
 * naming the option, like any other wrong name (a model that does not load is left to the
 * run's own check, which names its file). A host system (llama-spec) runs any model as its
 * target, as the runtime it prices does (the testbed's target is a draft model's shape). */
static int target_given(const char *model, const char *system, const char *root, ls_error *err)
{
  const ls_system *sys = ls_system_find(system);
  if (sys && sys->host)
    return LS_OK;
  ls_model *m = NULL;
  int draft = ls_model_load_any(&m, root, model, NULL) == LS_OK && !ls_model_is_target(m);
  ls_model_free(m);
  if (draft)
    return ls_error_set(err, LS_EUSAGE, "--model %s: a draft model, not a target (drafts are "
                        "chosen by --set model.draft or the target's default_draft)", model);
  return LS_OK;
}

/* A single run's model: an id of workloads/models, or a model file (a name ending in .yaml, as
 * ls_model_load_any reads it), which must load: its errors name the file, line, key and value. */
static int check_model(const char *model, const char *data_root, ls_error *err)
{
  size_t n = strlen(model);
  if (!(n > 5 && strcmp(model + n - 5, ".yaml") == 0))
    return check_name(NULL, "model", model, data_root, ls_model_list, err);
  if (n >= LS_NAME_MAX) /* never cut: a cut path would name another file */
    return ls_error_set(err, LS_EUSAGE, "--model %s: longer than %d characters (copy the model file nearer, or "
                        "give an id)", model, LS_NAME_MAX - 1);
  ls_model *m = NULL;
  int rc = ls_model_load_any(&m, data_root, model, err);
  ls_model_free(m);
  return rc;
}

int ls_experiment_single(ls_experiment **out, const char *device, const char *model,
                         const char *dataset, const char *system, const ls_kv *settings,
                         uint64_t seed, const char *data_root, ls_error *err)
{
  *out = NULL;
  int rc = check_device(device, data_root, err);
  if (!rc) rc = check_model(model, data_root, err);
  if (!rc) rc = target_given(model, system, data_root, err);
  if (!rc) rc = check_name(NULL, "dataset", dataset, data_root, ls_dataset_list, err);
  if (!rc) rc = check_name(NULL, "system", system, data_root, NULL, err);
  if (rc)
    return rc;
  ls_experiment *x = calloc(1, sizeof *x);
  ls_run_spec *r = x ? calloc(1, sizeof *r) : NULL;
  if (!r || ls_kv_create(&x->roles, err)) {
    free(r);
    free(x);
    return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  }
  snprintf(x->name, sizeof x->name, "run");
  x->runs = r;
  x->cap = x->n = x->total = 1;
  snprintf(r->part, sizeof r->part, "run");
  if (!(r->device = strdup(device))) {
    x->n = 0;
    ls_experiment_free(x);
    return ls_error_set(err, LS_ENOMEM, "experiment: out of memory");
  }
  snprintf(r->model, sizeof r->model, "%s", model);
  snprintf(r->dataset, sizeof r->dataset, "%s", dataset);
  snprintf(r->system, sizeof r->system, "%s", system);
  snprintf(r->axes_json, sizeof r->axes_json, "{}");
  r->seed = seed;
  rc = ls_kv_copy(&r->settings, settings, err);
  if (rc) {
    x->n = 0;
    free(r->device);
    ls_experiment_free(x);
    return rc;
  }
  *out = x;
  return LS_OK;
}

int ls_experiment_record_axes(ls_experiment *x, const ls_kv *given, ls_error *err)
{
  part_def none;
  memset(&none, 0, sizeof none);
  for (int i = 0; i < x->n; i++) {
    none.name = x->runs[i].part;
    int rc = axes_record(&x->runs[i], NULL, &none, NULL, NULL, given, err);
    if (rc) return rc;
  }
  return LS_OK;
}
