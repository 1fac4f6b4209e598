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
#include "runner/cli/opts.h"
#include "sim/range.h"
#include "runner/cli/commands.h"
#include "runner/decode/decode.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

typedef struct run_opts {
  const char *device, *model, *dataset, *system, *db, *draft;
  long seed; /* -1: the paper experiment's */
  int json, steps, force;
  ls_opt_list plugins;
} run_opts;

static const ls_opt RUN_OPTS[] = {
    {"--device", LS_OPT_STR, OPT_AT(run_opts, device), "D", "device profile: an id of devices/profiles or a YAML file", .flags = LS_OPT_REQUIRED},
    {"--model", LS_OPT_STR, OPT_AT(run_opts, model), "M", "target model: an id of workloads/models or a model file (FILE.yaml)", .flags = LS_OPT_REQUIRED},
    {"--draft", LS_OPT_STR, OPT_AT(run_opts, draft), "D", "draft model, an id or a model file: --set model.draft=D (default: the target's default_draft)"},
    {"--dataset", LS_OPT_STR, OPT_AT(run_opts, dataset), "S", "dataset id (workloads/datasets)", .flags = LS_OPT_REQUIRED},
    {"--system", LS_OPT_CHOICE, OPT_AT(run_opts, system), "Y", "system to simulate (leversim settings --system Y: its keys)", .choice_at = ls_cli_system_at, .flags = LS_OPT_REQUIRED},
    {"--set", LS_OPT_SET, 0, "key=value", "a setting (see 'leversim settings'); SYSTEM:key scopes it"},
    {"--prompts", LS_OPT_SETTING, 0, "N", "prompts to simulate: --set workload.prompts=N", .range = LS_OPT_RANGE(LS_R_PROMPTS), .key = "workload.prompts"},
    {"--tokens", LS_OPT_SETTING, 0, "N", "tokens per prompt: --set workload.max_tokens=N (a run generates at most 2e7 tokens: prompts x tokens)", .range = LS_OPT_RANGE(LS_R_TOKENS), .key = "workload.max_tokens"},
    {"--seed", LS_OPT_LONG, OPT_AT(run_opts, seed), "N", "master seed (default: the paper experiment's)", .range = LS_OPT_RANGE(LS_R_SEED)},
    {"--db", LS_OPT_STR, OPT_AT(run_opts, db), "FILE", "also write the run to this SQLite database"},
    {"--steps", LS_OPT_FLAG, OPT_AT(run_opts, steps), NULL, "with --db: store the per-cycle series too"},
    {"--force", LS_OPT_FLAG, OPT_AT(run_opts, force), NULL, "with --db: run again when the database already holds this run"},
    {"--json", LS_OPT_FLAG, OPT_AT(run_opts, json), NULL, "stdout is one JSON document (errors go to stderr)"},
    {"--plugin", LS_OPT_MULTI, OPT_AT(run_opts, plugins), "FILE.so", LS_CLI_PLUGIN_HELP},
    {NULL}};

static const ls_cmd_spec RUN = {
    "run", NULL, 0, 0, 0, "simulate one device/model/dataset/system configuration",
    "Prints the run's metrics (throughput, accepted length, ...) with 95 % intervals over the\n"
    "prompts (none below 5 prompts), then every setting the run used: its value and where it\n"
    "came from (default, the paper experiment, or an argument). Unless overridden, the seed\n"
    "and settings are those of runner/experiments/paper.yaml (its top-level seed and settings),\n"
    "so a run reproduces the paper replay's cell of the same configuration. A run is\n"
    "identified by its resolved settings (given or default) and seed: any number of variants\n"
    "live in one database, each --set recorded as an axis of the run (leversim plot --x KEY\n"
    "draws them). With --db, a run the database already holds (same resolved settings and\n"
    "seed, so setting a default changes nothing) is not run again: it says so and exits 0\n"
    "(--force runs and replaces it).\n"
    "System llama-spec is not the paper's: llama.cpp's speculative run on the CPU of a host\n"
    "profile (one with a host: section, which `leversim testbed validate --host-profile` writes),\n"
    "priced pass by pass as `testbed validate` predicts it (docs/VALIDATION.md, section 0.5); its\n"
    "time_per_token_s is validate's spec prediction. It reads draft.gamma (tokens a cycle\n"
    "drafts), workload.prompt_tokens (the runtime's prompt) and workload.trace (the ranks that\n"
    "decide acceptance); on a profile without a host section it is not valid (exit 65).\n",
    NULL, RUN_OPTS};

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
      for (int k = 0; k < r->n_effective; k++)
        if (strcmp(r->effective[k].key, d->key) == 0) {
          printf(",\"effective\":%.17g,\"why\":", r->effective[k].value);
          json_text(r->effective[k].why);
        }
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
    for (int k = 0; k < r->n_effective; k++)
      if (strcmp(r->effective[k].key, d->key) == 0)
        printf("  %-24s %-22.17g took effect: %s\n", "", r->effective[k].value, r->effective[k].why);
  }
}

static void json_real(double v)
{
  if (isfinite(v)) printf("%.17g", v);
  else printf("null");
}

/* The run's 95 % intervals over its prompts: every metric of ls_db_ci_metric_name from one
 * resampled table (ls_db_metric_cis), which gives each metric the bits it would get alone
 * (ls_db_metric_ci) at a fraction of the draws. */
#define RUN_CIS 64
typedef struct run_cis {
  int n;
  ls_boot_ci ci[RUN_CIS];
} run_cis;

static void run_intervals(const ls_decode_result *r, run_cis *c)
{
  ls_error e;
  c->n = 0;
  while (c->n < RUN_CIS && ls_db_ci_metric_name(c->n))
    c->n++;
  if (r->n_prompts < 1 || ls_db_metric_cis(r->prompts, r->n_prompts, c->ci, &e) != LS_OK)
    c->n = 0;
}

/* Metric name's interval (NaN: too few prompts, none, or a metric without an interval). */
static void interval(const run_cis *c, const char *name, double *lo, double *hi)
{
  *lo = *hi = NAN;
  for (int i = 0; i < c->n; i++)
    if (!strcmp(ls_db_ci_metric_name(i), name)) {
      *lo = c->ci[i].lo;
      *hi = c->ci[i].hi;
    }
}

static void print_json(const ls_run_spec *s, const char *seed_from, const ls_decode_result *r, const run_cis *c)
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
    interval(c, r->metrics[i].name, &lo, &hi);
    printf("%s\"%s\":{\"value\":", i ? "," : "", r->metrics[i].name);
    json_real(r->metrics[i].value);
    printf(",\"lo\":");
    json_real(lo);
    printf(",\"hi\":");
    json_real(hi);
    printf("}");
  }
  printf("}");
  if (r->plugins[0]) /* already JSON (ls_policy_set_provenance) */
    printf(",\"plugins\":%s", r->plugins);
  print_settings(s, seed_from, r, 1);
  printf("}\n");
}

static void print_metrics(const ls_run_spec *s, const char *seed_from, const ls_decode_result *r, int json)
{
  run_cis c;
  run_intervals(r, &c);
  if (json) {
    print_json(s, seed_from, r, &c);
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
    interval(&c, r->metrics[i].name, &lo, &hi);
    printf("  %-24s %14.6g %-10s", r->metrics[i].name, r->metrics[i].value, r->metrics[i].unit);
    if (isfinite(lo)) printf(" [%.6g, %.6g]", lo, hi);
    printf("\n");
  }
  if (r->plugins[0])
    printf("  plug-ins: %s\n", r->plugins);
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

/* The paper experiment's roles (what the views compare), as for its seed and settings; but
 * not the intervals its replay declares for its own readers (intervals.*): a run keeps every
 * interval. */
static int paper_roles(ls_db *db, ls_error *err)
{
  char path[LS_PATH_MAX];
  ls_kv *roles = NULL;
  snprintf(path, sizeof path, "%s/runner/experiments/paper.yaml", ls_data_root());
  if (access(path, F_OK) != 0)
    return LS_OK;
  int rc = ls_kv_create(&roles, err);
  if (!rc) rc = ls_experiment_roles_file(path, roles, err);
  if (!rc) rc = ls_kv_set(roles, "intervals.metrics", "all", "leversim run: every interval", err);
  if (!rc) rc = ls_kv_set(roles, "intervals.ratios", "all", "leversim run: every interval", err);
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
  fprintf(stderr, "leversim run: %s already holds this run (id %s: same resolved settings and seed); "
                  "nothing to do (--force runs it again)\n", path, id);
  if (json)
    printf("{\"run_id\":\"%s\",\"already_done\":true}\n", id);
  return LS_OK;
}

/* Simulates the parsed configuration; kv holds the command line's settings. */
static int simulate(const run_opts *o, const ls_kv *kv, ls_decode_result *res, int *st, ls_error *err)
{
  ls_experiment *x = NULL;
  ls_decode_cache *cache = NULL;
  ls_db *db = NULL;
  ls_kv *all = NULL;
  ls_policy_set *ps = NULL;
  uint64_t paper_seed = 0;
  char from[600];
  int e = ls_cli_plugins(&o->plugins, &ps, err);
  if (!e) e = with_defaults(kv, o->model, o->system, &all, &paper_seed, from, sizeof from, err);
  if (!e) e = ls_experiment_single(&x, o->device, o->model, o->dataset, o->system, all,
                                   o->seed >= 0 ? (uint64_t)o->seed : paper_seed, ls_data_root(), err);
  if (!e) e = ls_experiment_record_axes(x, kv, err); /* every --set is an axis of the run */
  if (!e) e = ls_validate_runs_with(x, ps, err); /* before the database is opened */
  if (!e) e = ls_decode_cache_create(&cache, ls_data_root(), err);
  if (!e) ls_decode_cache_set_policies(cache, ps);
  if (!e && o->db) e = ls_db_open_claim(&db, o->db, 0, "run", err);
  if (!e && db) e = paper_roles(db, err);
  int done = 0;
  if (!e && db && !o->force) e = already_there(db, o->db, ls_experiment_run(x, 0), o->json, &done, err);
  if (!e && !done) e = ls_driver_run_one(cache, db, ls_experiment_run(x, 0), o->steps, res, st, err);
  if (!e && !done && db) e = ls_db_stats_refresh(db, err); /* ratios against runs already there */
  if (!e && !done)
    print_metrics(ls_experiment_run(x, 0), o->seed >= 0 ? "--seed" : from, res, o->json);
  ls_db_close(db);
  ls_decode_cache_free(cache);
  ls_experiment_free(x);
  ls_kv_free(all);
  ls_policy_set_free(ps); /* after the results that name its policies */
  return e;
}

/* --draft D is --set model.draft=D (an axis of the run like any setting); both is a usage error. */
static int draft_setting(const run_opts *o, ls_kv *kv, ls_error *err)
{
  if (!o->draft)
    return LS_OK;
  if (ls_kv_origin_of(kv, "model.draft"))
    return ls_error_set(err, LS_EUSAGE, "run: --draft and %s both give model.draft; give one",
                        ls_kv_origin_of(kv, "model.draft"));
  return ls_kv_set(kv, "model.draft", o->draft, "--draft", err);
}

int ls_cmd_run(int argc, char **argv)
{
  run_opts o = {NULL, NULL, NULL, NULL, NULL, NULL, -1, 0, 0, 0};
  ls_kv *kv = NULL;
  ls_error err;
  ls_error_clear(&err);
  int rc = ls_kv_create(&kv, &err), st = 0;
  if (!rc && (rc = ls_opts_parse(&RUN, argc, argv, &o, kv)) != LS_OK) {
    ls_kv_free(kv);
    return ls_opts_exit(rc);
  }
  ls_decode_result res;
  memset(&res, 0, sizeof res);
  if (!rc) rc = draft_setting(&o, kv, &err);
  if (!rc)
    rc = simulate(&o, kv, &res, &st, &err);
  if (rc)
    ls_error_print(&err, stderr);
  ls_decode_result_free(&res);
  ls_kv_free(kv);
  /* st 1: the configuration is not valid here (e.g. ar-mem's target does not fit): bad input */
  return rc ? ls_status_exit(rc) : st == 1 ? ls_status_exit(LS_EINVALID) : 0;
}
