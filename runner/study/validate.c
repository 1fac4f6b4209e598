/* runner/validate: see validate.h. */
#include "runner/study/validate.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "runner/decode/paths.h"
#include "runner/decode/system.h"
#include "runner/study/driver.h"
#include "workloads/dataset.h"
#include "workloads/model.h"

/* ---- the set of run identities already checked (open addressing over owned strings) ---- */

typedef struct {
  char **slot;
  char **json;   /* NULL, or per slot the resolved configuration of the runs with that text (owned) */
  size_t cap, n; /* n < cap / 2 keeps probing short and always ending */
} seen_set;

static uint64_t hash_text(const char *s)
{
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

/* 1 when text was already in the set, 0 when it was added, -1 when memory ran out; *at
 * (may be NULL) gets its slot. */
static int seen_add(seen_set *st, const char *text, size_t *at)
{
  if (2 * (st->n + 1) > st->cap)
    return -1;
  size_t i = (size_t)(hash_text(text) % st->cap);
  while (st->slot[i]) {
    if (strcmp(st->slot[i], text) == 0) {
      if (at) *at = i;
      return 1;
    }
    i = (i + 1) % st->cap;
  }
  if (at) *at = i;
  size_t n = strlen(text) + 1;
  st->slot[i] = malloc(n);
  if (!st->slot[i])
    return -1;
  memcpy(st->slot[i], text, n);
  st->n++;
  return 0;
}

static void seen_free(seen_set *st)
{
  for (size_t i = 0; st->slot && i < st->cap; i++) {
    free(st->slot[i]);
    if (st->json) free(st->json[i]);
  }
  free(st->slot);
  free(st->json);
}

/* Everything ls_decode_check reads of a spec, as text; -1 when it does not fit. */
static int run_identity(const ls_run_spec *s, char *buf, size_t size)
{
  size_t len = (size_t)snprintf(buf, size, "%s|%s|%s|%s|%llu", s->system, s->device, s->model, s->dataset,
                                (unsigned long long)s->seed);
  for (int i = 0; i < ls_kv_count(s->settings) && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "|%s=%s", ls_kv_key(s->settings, i), ls_kv_value(s->settings, i));
  return len < size ? 0 : -1;
}

/* ---- run ids from the resolved settings ---- */

/* Sets s->run_id from json, the resolved configuration of a run with the same inputs (the
 * part is not in it: ls_driver_hash_ids adds it). */
static int run_id_of(ls_run_spec *s, const char *json, ls_error *err)
{
  if (!json)
    return ls_error_set(err, LS_ESTATE, "validate: no resolved configuration kept for a repeated run");
  ls_driver_hash_ids(s, json);
  return LS_OK;
}

/* Sets s->run_id from what its check resolved (res); keeps the json in *keep (may be NULL). */
static int resolve_id(ls_run_spec *s, const ls_decode_result *res, char **keep, ls_error *err)
{
  size_t size = 32768;
  char *json = malloc(size);
  if (!json)
    return ls_error_set(err, LS_ENOMEM, "validate: out of memory");
  if (ls_driver_resolved_json(s, res, ls_data_root(), json, size)) {
    free(json);
    return ls_error_set(err, LS_EINVALID, "%s/%s/%s/%s: settings too long for one run record", s->device,
                        s->model, s->dataset, s->system);
  }
  int rc = run_id_of(s, json, err);
  if (keep)
    *keep = json;
  else
    free(json);
  return rc;
}

/* ---- which systems read a key ---- */

/* The declarations of system on s's inputs with no settings. */
static int declared_by(ls_decode_cache *cache, const ls_run_spec *s, const char *system,
                       ls_decode_result *res, ls_error *err)
{
  ls_run_spec t = *s;
  memset(res, 0, sizeof *res);
  snprintf(t.system, sizeof t.system, "%s", system);
  int rc = ls_kv_create(&t.settings, err);
  if (!rc) rc = ls_decode_check(cache, &t, res, err);
  ls_kv_free(t.settings);
  return rc;
}

/* Comma-separated systems that read key on s's inputs, into buf ("" when none). */
static void readers_of(ls_decode_cache *cache, const ls_run_spec *s, const char *key, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (const ls_system *sys = ls_system_all(); sys->name; sys++) {
    ls_decode_result res;
    ls_error e;
    ls_error_clear(&e);
    /* a host system that cannot run on these inputs (no host section: llama-spec on a phone)
     * is no place to scope a key to */
    if (declared_by(cache, s, sys->name, &res, &e) == LS_OK && (res.valid || !sys->host))
      for (int i = 0; i < res.n_settings; i++)
        if (strcmp(res.settings[i].key, key) == 0 && len < size) {
          len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", sys->name);
          break;
        }
    ls_decode_result_free(&res);
  }
}

/* Adds to err the run that failed and, for a key its system does not read, who reads it. */
static int explain(ls_decode_cache *cache, const ls_run_spec *s, const ls_decode_result *res, int many,
                   ls_error *err)
{
  char readers[400] = "", hint[600] = "";
  if (res->unknown_key[0])
    readers_of(cache, s, res->unknown_key, readers, sizeof readers);
  if (readers[0]) {
    char first[64];
    snprintf(first, sizeof first, "%.*s", (int)strcspn(readers, ","), readers);
    snprintf(hint, sizeof hint, "; system %s does not read it, %s do%s (scope it: %s:%s)", s->system,
             readers, strchr(readers, ',') ? "" : "es", first, res->unknown_key);
  }
  char msg[LS_ERR_MSG], run[300] = "";
  if (many) /* which of the experiment's runs it broke */
    snprintf(run, sizeof run, " [run: part %s, %s on %s / %s / %s]", s->part, s->system, s->device, s->model,
             s->dataset);
  snprintf(msg, sizeof msg, "%s%s%s", err->msg, hint, run);
  snprintf(err->msg, sizeof err->msg, "%s", msg);
  return err->code;
}

/* The first run of system in x, or NULL. */
static const ls_run_spec *run_of(ls_experiment *x, const char *system)
{
  for (int i = 0; i < ls_experiment_count(x); i++)
    if (strcmp(ls_experiment_run(x, i)->system, system) == 0)
      return ls_experiment_run(x, i);
  return NULL;
}

/* 1 when system reads key on the inputs of s; else *near (may stay NULL) gets the nearest key
 * it reads, within *best edits. */
static int reads_key(ls_decode_cache *cache, const ls_run_spec *s, const char *system, const char *key,
                     const char **near, int *best, char *near_buf, size_t size)
{
  ls_decode_result res;
  ls_error e2;
  ls_error_clear(&e2);
  int found = 0;
  if (declared_by(cache, s, system, &res, &e2) != LS_OK)
    found = 1; /* the system cannot be set up here: its own runs report why */
  for (int j = 0; !found && j < res.n_settings; j++) {
    int d = ls_kv_distance(key, res.settings[j].key);
    found = d == 0;
    if (d < *best) {
      *best = d;
      snprintf(near_buf, size, "%s", res.settings[j].key);
      *near = near_buf;
    }
  }
  ls_decode_result_free(&res);
  return found;
}

/* Setting i of s is "X:key" for a system X other than s's: X's runs read it, so check it
 * against what X reads (on s's inputs), so that a typo cannot hide in a part without X. */
static int check_scoped(ls_experiment *x, ls_decode_cache *cache, const ls_run_spec *s, int i, ls_error *err)
{
  const char *key = ls_kv_key(s->settings, i), *colon = strchr(key, ':'), *origin = ls_kv_origin(s->settings, i);
  char sys[LS_NAME_MAX];
  snprintf(sys, sizeof sys, "%.*s", (int)(colon - key), key);
  if (!ls_system_find(sys) || strcmp(sys, s->system) == 0)
    return LS_OK; /* an unknown scope fails every run's own check; the run's own scope is checked there */
  const ls_run_spec *own = run_of(x, sys);
  int sharded = ls_experiment_count(x) < ls_experiment_total(x); /* X may run in another shard */
  if (!own && !sharded)
    return ls_error_set(err, LS_EUSAGE, "%s%s%s: no run of this experiment uses system %s", origin,
                        origin[0] ? ": " : "", key, sys);
  const char *near = NULL;
  char buf[128];
  int best = (int)strlen(colon + 1) / 3 + 1;
  if (reads_key(cache, s, sys, colon + 1, &near, &best, buf, sizeof buf) ||
      (own && reads_key(cache, own, sys, colon + 1, &near, &best, buf, sizeof buf)))
    return LS_OK;
  return ls_error_set(err, LS_EUSAGE, "%s%s%s=%s: system %s reads no setting %s%s%s%s", origin, origin[0] ? ": " : "",
                      key, ls_kv_value(s->settings, i), sys, colon + 1, near ? " (did you mean " : "",
                      near ? near : "", near ? "?)" : "");
}

/* quick.settings not applied (no --quick): the first run of each system is checked with them
 * added as --quick would add them (under the run's own settings), so a typo or a bad value
 * there is found now, not by the first --quick run. */
static int check_quick(ls_experiment *x, ls_decode_cache *cache, ls_error *err)
{
  const ls_kv *q = ls_experiment_quick_unused(x);
  int rc = LS_OK;
  for (int i = 0; q && rc == LS_OK && i < ls_experiment_count(x); i++) {
    const ls_run_spec *s = ls_experiment_run(x, i);
    if (run_of(x, s->system) != s)
      continue;
    ls_run_spec t = *s;
    rc = ls_kv_copy(&t.settings, s->settings, err);
    for (int k = 0; rc == LS_OK && k < ls_kv_count(q); k++)
      if (!ls_kv_has(t.settings, ls_kv_key(q, k)))
        rc = ls_kv_set(t.settings, ls_kv_key(q, k), ls_kv_value(q, k), ls_kv_origin(q, k), err);
    ls_decode_result res;
    memset(&res, 0, sizeof res);
    if (rc == LS_OK && (rc = ls_decode_check(cache, &t, &res, err)) != LS_OK) {
      explain(cache, &t, &res, 1, err);
      ls_error_wrap(err, "quick.settings (checked without --quick)");
    }
    ls_decode_result_free(&res);
    ls_kv_free(t.settings);
  }
  return rc;
}

int ls_validate_experiment(ls_experiment *x, ls_decode_cache *cache, ls_error *err)
{
  int n = ls_experiment_count(x), rc = LS_OK;
  seen_set st = {calloc((size_t)n * 2 + 2, sizeof(char *)), calloc((size_t)n * 2 + 2, sizeof(char *)),
                 (size_t)n * 2 + 2, 0};
  seen_set sc = {calloc(512, sizeof(char *)), NULL, 512, 0}; /* scoped keys checked */
  if (!st.slot || !st.json || !sc.slot) {
    seen_free(&st);
    seen_free(&sc);
    return ls_error_set(err, LS_ENOMEM, "validate: out of memory");
  }
  char id[8192];
  for (int i = 0; rc == LS_OK && i < n; i++) {
    ls_run_spec *s = ls_experiment_run(x, i);
    size_t at = 0;
    int known = run_identity(s, id, sizeof id) ? -2 : seen_add(&st, id, &at);
    if (known == -1)
      rc = ls_error_set(err, LS_ENOMEM, "validate: out of memory");
    if (known == 1) { /* checked already (in another part, maybe): the same resolved settings */
      rc = run_id_of(s, st.json[at], err);
      continue;
    }
    if (rc)
      continue;
    ls_decode_result res;
    rc = ls_decode_check(cache, s, &res, err);
    if (rc)
      explain(cache, s, &res, ls_experiment_total(x) > 1, err);
    else /* the run's identity: what it resolved to (runner/study/driver.h) */
      rc = resolve_id(s, &res, known == 0 ? &st.json[at] : NULL, err);
    ls_decode_result_free(&res);
    for (int k = 0; rc == LS_OK && k < ls_kv_count(s->settings); k++) {
      char scoped[600];
      snprintf(scoped, sizeof scoped, "scoped|%s", ls_kv_key(s->settings, k)); /* each one once */
      int added = strchr(ls_kv_key(s->settings, k), ':') ? seen_add(&sc, scoped, NULL) : 1;
      if (added < 0)
        rc = ls_error_set(err, LS_ERANGE, "validate: more than %zu distinct scoped settings", sc.cap / 2 - 1);
      else if (added == 0)
        rc = check_scoped(x, cache, s, k, err);
    }
  }
  seen_free(&st);
  seen_free(&sc);
  if (rc == LS_OK) rc = check_quick(x, cache, err);
  return rc;
}

int ls_validate_runs(ls_experiment *x, ls_error *err) { return ls_validate_runs_with(x, NULL, err); }

int ls_validate_runs_with(ls_experiment *x, const ls_policy_set *policies, ls_error *err)
{
  ls_decode_cache *cache = NULL;
  int rc = ls_decode_cache_create(&cache, ls_data_root(), err);
  if (!rc)
    ls_decode_cache_set_policies(cache, policies);
  if (!rc) rc = ls_validate_experiment(x, cache, err);
  ls_decode_cache_free(cache);
  return rc;
}

/* ---- the catalogue ---- */

static int by_key(const void *a, const void *b)
{
  return strcmp(((const ls_validate_entry *)a)->decl.key, ((const ls_validate_entry *)b)->decl.key);
}

static ls_validate_entry *entry(ls_validate_keys *c, const ls_kv_decl *d)
{
  for (int j = 0; j < c->n; j++)
    if (strcmp(c->e[j].decl.key, d->key) == 0)
      return &c->e[j];
  if (c->n == LS_VALIDATE_KEYS_MAX)
    return NULL;
  ls_validate_entry *e = &c->e[c->n++];
  memset(e, 0, sizeof *e);
  e->decl = *d;
  return e;
}

/* The declarations of one system on one dataset. A system's first sighting of a key adds it
 * to the readers and records its default there; later datasets only compare defaults. */
static int add_decls(ls_validate_keys *c, const char *system, const ls_decode_result *res, ls_error *err)
{
  for (int i = 0; i < res->n_settings; i++) {
    const ls_kv_decl *d = &res->settings[i];
    ls_validate_entry *e = entry(c, d);
    if (!e)
      return ls_error_set(err, LS_ERANGE, "settings: more than %d keys (raise LS_VALIDATE_KEYS_MAX)",
                          LS_VALIDATE_KEYS_MAX);
    size_t ls = strlen(e->systems), ld = strlen(e->defaults), sl = strlen(system);
    const char *last = ls >= sl ? e->systems + ls - sl : "";
    if (ls && strcmp(last, system) == 0) { /* this system, another dataset */
      const char *mine = strrchr(e->defaults, '=');
      if (mine && strcmp(mine + 1, d->dflt[0] ? d->dflt : "(none)") != 0)
        e->varies_by_input = 1;
      continue;
    }
    if (strcmp(e->decl.dflt, d->dflt) != 0)
      e->varies_by_system = 1;
    e->n_systems++;
    if (ls < sizeof e->systems)
      snprintf(e->systems + ls, sizeof e->systems - ls, "%s%s", ls ? ", " : "", system);
    if (ld < sizeof e->defaults)
      snprintf(e->defaults + ld, sizeof e->defaults - ld, "%s%s=%s", ld ? ", " : "", system,
               d->dflt[0] ? d->dflt : "(none)");
  }
  return LS_OK;
}

/* The first of the preferred ids that exists, else the first listed. */
static void pick(char (*ids)[64], int n, const char *const *prefer, char *out, size_t size)
{
  for (int p = 0; prefer[p]; p++)
    for (int i = 0; i < n; i++)
      if (strcmp(ids[i], prefer[p]) == 0) {
        snprintf(out, size, "%s", ids[i]);
        return;
      }
  snprintf(out, size, "%s", n > 0 ? ids[0] : "");
}

int ls_validate_catalog(ls_validate_keys *out, ls_decode_cache *cache, const char *data_root,
                       const char *system, ls_error *err)
{
  static const char *const DEVICES[] = {"oneplus-12", NULL}, *const MODELS[] = {"llama-3.1-8b", NULL};
  char ids[128][64], datasets[128][64];
  memset(out, 0, sizeof *out);
  pick(ids, ls_device_list(data_root, ids, 128), DEVICES, out->device, sizeof out->device);
  int n_mod = ls_model_list(data_root, ids, 128);
  pick(ids, n_mod, MODELS, out->model, sizeof out->model);
  for (int i = 0; i < n_mod && strcmp(out->model, MODELS[0]) != 0; i++) { /* else the first target */
    ls_model *m = NULL;
    ls_error e;
    int target = ls_model_load_id(&m, data_root, ids[i], &e) == LS_OK && ls_model_is_target(m);
    ls_model_free(m);
    if (target) {
      snprintf(out->model, sizeof out->model, "%s", ids[i]);
      break;
    }
  }
  int n_ds = ls_dataset_list(data_root, datasets, 128), rc = LS_OK;
  if (system && !ls_system_find(system))
    return ls_error_set(err, LS_EUSAGE, "unknown system '%s'%s%s%s", system,
                        ls_system_nearest(system) ? " (did you mean " : "",
                        ls_system_nearest(system) ? ls_system_nearest(system) : "",
                        ls_system_nearest(system) ? "?)" : "");
  ls_run_spec s;
  memset(&s, 0, sizeof s);
  snprintf(s.part, sizeof s.part, "settings");
  s.device = out->device; /* borrowed */
  snprintf(s.model, sizeof s.model, "%s", out->model);
  s.seed = 1;
  for (const ls_system *sys = ls_system_all(); rc == LS_OK && sys->name; sys++) {
    if (system && strcmp(system, sys->name) != 0)
      continue;
    for (int d = 0; rc == LS_OK && d < n_ds; d++) { /* datasets of each kind read their own keys */
      ls_decode_result res;
      snprintf(s.dataset, sizeof s.dataset, "%s", datasets[d]);
      rc = declared_by(cache, &s, sys->name, &res, err);
      if (!rc)
        rc = add_decls(out, sys->name, &res, err);
      ls_decode_result_free(&res);
    }
  }
  qsort(out->e, (size_t)out->n, sizeof out->e[0], by_key);
  return rc;
}
