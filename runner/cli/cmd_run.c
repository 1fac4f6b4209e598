/* runner/cmd_run: 'leversim run' — simulate one configuration, print its metrics with their
 * 95 % intervals over the prompts (results/stats.c) and the settings it used. --json: stdout
 * is one JSON document (errors go to stderr). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "results/db.h"
#include "sim/boot.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/decode/decode.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

static const char USAGE[] =
    "usage: leversim run --device D --model M --dataset S --system Y [--set key=value]...\n"
    "                    [--prompts N] [--tokens N] [--seed N] [--db FILE [--force]] [--steps]\n"
    "                    [--json]\n"
    "Simulates one configuration and prints its metrics (throughput, accepted length, ...)\n"
    "with 95 % intervals over the prompts (none below 5 prompts; --json: one JSON document),\n"
    "then every setting the run used: its value and where it came from (default, the paper\n"
    "experiment, or an argument). Unless overridden, the seed and settings are those of\n"
    "runner/experiments/paper.yaml (its top-level seed and settings), so a run reproduces the\n"
    "paper replay's cell of the same configuration. See 'leversim settings' for every key.\n"
    "--prompts/--tokens are shorthands for --set workload.prompts=N / workload.max_tokens=N.\n"
    "With --db the run is also written to that SQLite database (--steps: per-cycle series).\n"
    "A run is identified by its settings and seed: any number of variants live in one\n"
    "database, each --set recorded as an axis of the run (leversim plot --x KEY draws them).\n"
    "A run already in the database with the same settings and seed is not run again (it\n"
    "says so and exits 0); --force runs and replaces it.\n";

static void json_text(const char *s)
{
  putchar('"');
  for (; *s; s++)
    if (*s == '"' || *s == '\\')
      printf("\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      printf("\\u%04x", *s);
    else
      putchar(*s);
  putchar('"');
}

/* The resolved settings: every key the run read, its value and its origin. */
static void print_settings(const ls_run_spec *s, const char *seed_from, const ls_decode_result *r, int json)
{
  if (json) {
    printf(",\"seed\":%llu,\"settings\":{", (unsigned long long)s->seed);
    for (int i = 0; i < r->n_settings; i++) {
      const ls_kv_decl *d = &r->settings[i];
      printf("%s", i ? "," : "");
      json_text(d->key);
      printf(":{\"value\":");
      json_text(d->value);
      printf(",\"default\":%s,\"from\":", d->is_default ? "true" : "false");
      json_text(d->is_default ? "default" : d->origin);
      printf("}");
    }
    printf("}");
    return;
  }
  printf("settings (seed %llu from %s):\n", (unsigned long long)s->seed, seed_from);
  for (int i = 0; i < r->n_settings; i++) {
    const ls_kv_decl *d = &r->settings[i];
    printf("  %-24s %-22s %s\n", d->key, d->value[0] ? d->value : "(none)",
           d->is_default ? "default" : d->origin);
  }
}

static void json_real(double v)
{
  if (isfinite(v)) printf("%.17g", v);
  else printf("null");
}

/* Metric name's 95 % interval over the run's prompts (NaN: too few prompts, or none). */
static void interval(const ls_decode_result *r, const char *name, double *lo, double *hi)
{
  *lo = *hi = NAN;
  for (int i = 0; r->n_prompts > 0 && ls_db_ci_metric_name(i); i++)
    if (!strcmp(ls_db_ci_metric_name(i), name)) {
      double est;
      ls_error e;
      ls_db_metric_ci(r->prompts, r->n_prompts, r->run_id, i, &est, lo, hi, &e);
    }
}

static void print_json(const ls_run_spec *s, const char *seed_from, const ls_decode_result *r)
{
  const char *names[][2] = {{"device", s->device}, {"model", s->model},
                            {"dataset", s->dataset}, {"system", s->system}};
  for (int i = 0; i < 4; i++) {
    printf("%s\"%s\":", i ? "," : "{", names[i][0]);
    json_text(names[i][1]);
  }
  printf(",\"run_id\":\"%s\",\"valid\":%s,\"prompts\":%d", r->run_id, r->valid ? "true" : "false",
         r->n_prompts);
  if (!r->valid) {
    printf(",\"message\":");
    json_text(r->message);
  }
  printf(",\"metrics\":{");
  for (int i = 0; i < r->n_metrics; i++) {
    double lo, hi;
    interval(r, r->metrics[i].name, &lo, &hi);
    printf("%s\"%s\":{\"value\":", i ? "," : "", r->metrics[i].name);
    json_real(r->metrics[i].value);
    printf(",\"lo\":");
    json_real(lo);
    printf(",\"hi\":");
    json_real(hi);
    printf("}");
  }
  printf("}");
  print_settings(s, seed_from, r, 1);
  printf("}\n");
}

static void print_metrics(const ls_run_spec *s, const char *seed_from, const ls_decode_result *r, int json)
{
  if (json) {
    print_json(s, seed_from, r);
    return;
  }
  printf("%s / %s / %s / %s\n", s->device, s->model, s->dataset, s->system);
  if (!r->valid)
    printf("  not valid here: %s\n", r->message);
  else
    printf("  %-24s %14s %-10s %s\n", "metric", "value", "unit",
           "95 % interval (bootstrap over prompts)");
  for (int i = 0; i < r->n_metrics; i++) {
    double lo, hi;
    interval(r, r->metrics[i].name, &lo, &hi);
    printf("  %-24s %14.6g %-10s", r->metrics[i].name, r->metrics[i].value, r->metrics[i].unit);
    if (isfinite(lo)) printf(" [%.6g, %.6g]", lo, hi);
    printf("\n");
  }
  if (r->valid && r->n_prompts < LS_BOOT_MIN_UNITS)
    printf("  (%d prompt%s: no intervals below %d prompts; --prompts N sets the sample)\n",
           r->n_prompts, r->n_prompts == 1 ? "" : "s", LS_BOOT_MIN_UNITS);
  print_settings(s, seed_from, r, 0);
}

/* The paper experiment's top-level settings (and its sizing of this model and system) under the
 * command line's (which win). A data root without the paper experiment (a test fixture) has the
 * code's defaults and seed 1, and the echo says so. */
static int with_defaults(const ls_kv *given, const char *model, const char *system, ls_kv **out,
                         uint64_t *seed, char *from, size_t size, ls_error *err)
{
  snprintf(from, size, "%s/runner/experiments/paper.yaml", ls_data_root());
  int rc = ls_kv_create(out, err);
  if (!rc && access(from, F_OK) == 0)
    rc = ls_experiment_defaults(from, ls_data_root(), model, system, *out, seed, err);
  else if (!rc) {
    *seed = 1;
    snprintf(from, size, "the built-in default (no runner/experiments/paper.yaml)");
  }
  for (int i = 0; !rc && i < ls_kv_count(given); i++)
    rc = ls_kv_set(*out, ls_kv_key(given, i), ls_kv_value(given, i), ls_kv_origin(given, i), err);
  return rc;
}

/* The paper experiment's roles (what the views compare), as for its seed and settings. */
static int paper_roles(ls_db *db, ls_error *err)
{
  char path[600];
  ls_kv *roles = NULL;
  snprintf(path, sizeof path, "%s/runner/experiments/paper.yaml", ls_data_root());
  if (access(path, F_OK) != 0)
    return LS_OK;
  int rc = ls_kv_create(&roles, err);
  if (!rc) rc = ls_experiment_roles_file(path, roles, err);
  if (!rc) rc = ls_driver_write_roles(db, roles, err);
  ls_kv_free(roles);
  return rc;
}

/* Re-running identical settings is a no-op that says so: *done = 1 when the database holds
 * this run (same id: settings and seed) as ok or invalid. */
static int already_there(ls_db *db, const char *path, ls_run_spec *spec, int json, int *done,
                         ls_error *err)
{
  char id[LS_DB_RUN_ID_LEN + 1];
  int rc = ls_driver_spec_id(spec, id, err);
  if (!rc) rc = ls_db_run_done(db, id, done, err);
  if (rc || !*done)
    return rc;
  fprintf(stderr, "leversim run: %s already holds this run (id %s: same settings and seed); "
                  "nothing to do (--force runs it again)\n", path, id);
  if (json)
    printf("{\"run_id\":\"%s\",\"already_done\":true}\n", id);
  return LS_OK;
}

int ls_cmd_run(int argc, char **argv)
{
  const char *dev = NULL, *model = NULL, *ds = NULL, *sys = NULL, *db_path = NULL, *v;
  long seed = -1, n;
  int json = 0, steps = 0, force = 0, rc = 0;
  ls_kv *kv = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_kv_create(&kv, &err))
    return ls_status_exit(err.code);
  for (int i = 1; i < argc && rc == 0; i++) {
    int m;
    if (strcmp(argv[i], "--help") == 0) {
      fputs(USAGE, stdout);
      ls_kv_free(kv);
      return 0;
    } else if ((m = ls_opt_value("run", argc, argv, &i, "--device", &dev)) ||
               (m = ls_opt_value("run", argc, argv, &i, "--model", &model)) ||
               (m = ls_opt_value("run", argc, argv, &i, "--dataset", &ds)) ||
               (m = ls_opt_value("run", argc, argv, &i, "--system", &sys)) ||
               (m = ls_opt_value("run", argc, argv, &i, "--db", &db_path))) {
      rc = m < 0 ? 64 : 0;
    } else if ((m = ls_opt_value("run", argc, argv, &i, "--set", &v))) {
      rc = (m < 0 || ls_opt_set("run", kv, v, i + 1)) ? 64 : 0;
    } else if ((m = ls_opt_value("run", argc, argv, &i, "--seed", &v))) {
      rc = (m < 0 || ls_opt_long("run", "--seed", v, 0, 0x7fffffffL, &seed)) ? 64 : 0;
    } else if ((m = ls_opt_value("run", argc, argv, &i, "--prompts", &v))) {
      rc = (m < 0 || ls_opt_long("run", "--prompts", v, 1, 100000, &n) ||
            ls_kv_set(kv, "workload.prompts", v, "--prompts", &err)) ? 64 : 0;
    } else if ((m = ls_opt_value("run", argc, argv, &i, "--tokens", &v))) {
      rc = (m < 0 || ls_opt_long("run", "--tokens", v, 1, 1000000, &n) ||
            ls_kv_set(kv, "workload.max_tokens", v, "--tokens", &err)) ? 64 : 0;
    } else if (strcmp(argv[i], "--json") == 0) {
      json = 1;
    } else if (strcmp(argv[i], "--steps") == 0) {
      steps = 1;
    } else if (strcmp(argv[i], "--force") == 0) {
      force = 1;
    } else {
      rc = ls_usage_error("run", "unknown option '%s'", argv[i]);
    }
  }
  if (rc == 0 && (!dev || !model || !ds || !sys))
    rc = ls_usage_error("run", "--device, --model, --dataset and --system are required");
  if (rc) {
    ls_kv_free(kv);
    return rc;
  }
  ls_experiment *x = NULL;
  ls_decode_cache *cache = NULL;
  ls_db *db = NULL;
  ls_kv *all = NULL;
  ls_decode_result res;
  memset(&res, 0, sizeof res);
  int st = 0;
  uint64_t paper_seed = 0;
  char from[600];
  int e = with_defaults(kv, model, sys, &all, &paper_seed, from, sizeof from, &err);
  if (!e) e = ls_experiment_single(&x, dev, model, ds, sys, all, seed >= 0 ? (uint64_t)seed : paper_seed,
                                   ls_data_root(), &err);
  if (!e) e = ls_experiment_record_axes(x, kv, &err);
  if (!e) e = ls_validate_runs(x, &err); /* before the database is opened */
  if (!e) e = ls_decode_cache_create(&cache, ls_data_root(), &err);
  if (!e && db_path) e = ls_db_open(&db, db_path, &err);
  if (!e && db) e = paper_roles(db, &err);
  int done = 0;
  if (!e && db && !force) e = already_there(db, db_path, ls_experiment_run(x, 0), json, &done, &err);
  if (done) {
    e = -1;
  } else if (!e) {
    e = ls_driver_run_one(cache, db, ls_experiment_run(x, 0), steps, &res, &st, &err);
  }
  if (!e && db) e = ls_db_stats_refresh(db, &err); /* ratios against runs already there */
  if (done)
    e = 0;
  else if (!e)
    print_metrics(ls_experiment_run(x, 0), seed >= 0 ? "--seed" : from, &res, json);
  else
    ls_error_print(&err, stderr);
  ls_decode_result_free(&res);
  ls_db_close(db);
  ls_decode_cache_free(cache);
  ls_experiment_free(x);
  ls_kv_free(all);
  ls_kv_free(kv);
  return e ? ls_status_exit(e) : (st == 1 ? 65 : 0);
}
