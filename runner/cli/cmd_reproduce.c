/* runner/cmd_reproduce: 'leversim reproduce' — the paper replay: runs
 * runner/experiments/paper.yaml into a fresh database, prints the summary (tokens/s per
 * configuration and system, Lever's average speedups over ar-flash and specinfer,
 * arithmetic and geometric, with 95 % intervals, and the precision achieved against the
 * targets), records the replay (quick or full, spec hash, sizes) in the database's meta for
 * `leversim check`, then redraws the figures. --json: stdout is exactly one JSON document. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "results/db.h"
#include "sim/rng.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"
#include "runner/report/draw.h"

static const char USAGE[] =
    "usage: leversim reproduce [--quick] [--db FILE] [--out DIR] [--jobs N] [--resume]\n"
    "                          [--no-figures] [--json] [--prompts N] [--tokens N]\n"
    "Replays the paper (runner/experiments/paper.yaml) into FILE (default results/leversim.db,\n"
    "recreated unless --resume), prints the summary and draws the figures into DIR (default\n"
    "results/figures). --quick: a regression guard for CI, not a result (few prompts, only\n"
    "the 48-configuration main study and the budget sweep). Replay size: workload.prompts and\n"
    "workload.max_tokens in the experiment file; --prompts/--tokens override them for a trial\n"
    "(a 'custom' replay: checked against no baseline, and none is written from it). --json: stdout is one JSON document (summary,\n"
    "per-configuration ratios with 95 % intervals, precision); everything else goes to stderr.\n";

typedef struct {
  const char *db, *out, *prompts, *tokens; /* prompts/tokens: NULL = the experiment's */
  long jobs;
  int quick, resume, json, figures;
} repro_opts;

static int parse(int argc, char **argv, repro_opts *o)
{
  const char *v;
  for (int i = 1; i < argc; i++) {
    int m;
    if (strcmp(argv[i], "--help") == 0) {
      fputs(USAGE, stdout);
      return 1;
    } else if ((m = ls_opt_value("reproduce", argc, argv, &i, "--db", &o->db)) ||
               (m = ls_opt_value("reproduce", argc, argv, &i, "--out", &o->out))) {
      if (m < 0)
        return 64;
    } else if ((m = ls_opt_value("reproduce", argc, argv, &i, "--jobs", &v))) {
      if (m < 0 || ls_opt_long("reproduce", "--jobs", v, 1, 64, &o->jobs))
        return 64;
    } else if ((m = ls_opt_value("reproduce", argc, argv, &i, "--prompts", &o->prompts)) ||
               (m = ls_opt_value("reproduce", argc, argv, &i, "--tokens", &o->tokens))) {
      long n;
      if (m < 0 || ls_opt_long("reproduce", argv[i - 1], argv[i], 1, 1000000, &n))
        return 64;
    } else if (strcmp(argv[i], "--quick") == 0) {
      o->quick = 1;
    } else if (strcmp(argv[i], "--resume") == 0) {
      o->resume = 1;
    } else if (strcmp(argv[i], "--json") == 0) {
      o->json = 1;
    } else if (strcmp(argv[i], "--no-figures") == 0) {
      o->figures = 0;
    } else {
      return ls_usage_error("reproduce", "unknown option '%s'", argv[i]);
    }
  }
  return 0;
}

static void remove_db(const char *path)
{
  char side[600];
  unlink(path);
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
}

/* What the replay was: recorded in the database's meta so that `leversim check` can tell a
 * quick database from a full one (results/check.c). spec_hash: 64-bit hash of every run id
 * of the expansion, in order. */
typedef struct replay_info {
  char spec_hash[17], prompts[16], max_tokens[16];
  const char *replay;
} replay_info;

/* The runs' workload.prompts as "N" or, when the sizing gives some systems more, "MIN-MAX"
 * ("default" when a run leaves it to its dataset). */
static void prompts_range(ls_experiment *x, char *out, size_t size)
{
  long lo = 0, hi = 0;
  for (int i = 0; i < ls_experiment_count(x); i++) {
    const char *p = ls_kv_find(ls_experiment_run(x, i)->settings, "workload.prompts");
    if (!p) {
      snprintf(out, size, "default");
      return;
    }
    long n = strtol(p, NULL, 10);
    lo = i == 0 || n < lo ? n : lo;
    hi = i == 0 || n > hi ? n : hi;
  }
  if (lo == hi)
    snprintf(out, size, "%ld", lo);
  else
    snprintf(out, size, "%ld-%ld", lo, hi);
}

static int replay_of(ls_experiment *x, int quick, int custom, replay_info *r, ls_error *err)
{
  uint64_t h = 0x7265706c6179ULL;
  for (int i = 0; i < ls_experiment_count(x); i++) {
    char id[LS_DB_RUN_ID_LEN + 1];
    int rc = ls_driver_spec_id(ls_experiment_run(x, i), id, err);
    if (rc) return rc;
    h = ls_key_str(h, id);
  }
  snprintf(r->spec_hash, sizeof r->spec_hash, "%016llx", (unsigned long long)h);
  ls_run_spec *s0 = ls_experiment_run(x, 0);
  const char *t = s0 ? ls_kv_find(s0->settings, "workload.max_tokens") : NULL;
  prompts_range(x, r->prompts, sizeof r->prompts);
  snprintf(r->max_tokens, sizeof r->max_tokens, "%s", t ? t : "default");
  r->replay = custom ? "custom" : quick ? "quick" : "full";
  return LS_OK;
}

static int record_replay(ls_db *db, const replay_info *r, ls_error *err)
{
  int rc = ls_db_set_meta(db, "experiment", "paper", err);
  if (!rc) rc = ls_db_set_meta(db, "replay", r->replay, err);
  if (!rc) rc = ls_db_set_meta(db, "spec_hash", r->spec_hash, err);
  if (!rc) rc = ls_db_set_meta(db, "prompts", r->prompts, err);
  if (!rc) rc = ls_db_set_meta(db, "max_tokens", r->max_tokens, err);
  return rc;
}

static const char QUICK_NOTE[] =
    "--quick is a regression guard, not a result: too few prompts and tokens per\n"
    "configuration for tight intervals; compare it with results/baseline/quick.yaml only.";

static void print_hw(const char *what, double hw, double target)
{
  if (isnan(hw))
    printf("  %-47s   n/a   (target <= %.0f %%: not measurable, too few prompts)\n", what,
           100 * target);
  else
    printf("  %-47s %5.2f %% (target <= %.0f %%: %s)\n", what, 100 * hw, 100 * target,
           hw <= target ? "met" : "NOT met");
}

static void precision_text(const ls_db_precision *p, const replay_info *r)
{
  printf("\nPrecision: relative half-widths of the 95 %% intervals (paired bootstrap over "
         "prompts;\n%s prompts x %s tokens per run, %d to %d prompts per run of part main):\n",
         r->prompts, r->max_tokens, p->prompts, p->prompts_max);
  print_hw("Lever vs ar-flash, mean of the configurations", p->vs_ar_flash, LS_DB_TARGET_HEADLINE);
  print_hw("Lever vs specinfer, mean of the configurations", p->vs_specinfer,
           LS_DB_TARGET_HEADLINE);
  print_hw("widest per-configuration Lever ratio", p->worst_config, LS_DB_TARGET_CONFIG);
  if (p->worst[0]) printf("    (%s)\n", p->worst);
  if (isfinite(p->worst_any))
    printf("  %-47s %5.2f %% (no target: %s)\n", "widest Lever ratio over any system",
           100 * p->worst_any, p->worst_any_name);
}

static void json_num(const char *key, double v)
{
  if (isfinite(v)) printf(",\"%s\":%.17g", key, v);
  else printf(",\"%s\":null", key);
}

/* The whole JSON document: replay, run counts, summary, per-configuration ratios, precision. */
static int summary_json(ls_db *db, const replay_info *r, const ls_driver_summary *sum,
                        const ls_db_precision *p, ls_error *err)
{
  printf("{\"experiment\":\"paper\",\"replay\":\"%s\",\"spec_hash\":\"%s\",\"prompts\":\"%s\","
         "\"max_tokens\":\"%s\",\"runs\":{\"total\":%d,\"ok\":%d,\"invalid\":%d,\"failed\":%d,"
         "\"wall_s\":%.3f},\"summary\":", r->replay, r->spec_hash, r->prompts, r->max_tokens,
         sum->total, sum->ok, sum->invalid, sum->failed, sum->wall_s);
  int rc = ls_db_export(db, "summary", "json", stdout, err);
  printf(",\"lever_ratios\":");
  if (!rc) rc = ls_db_export(db, "lever_ratios", "json", stdout, err);
  printf(",\"precision\":{\"min_prompts\":%d", p->prompts);
  json_num("vs_ar_flash_halfwidth", p->vs_ar_flash);
  json_num("vs_specinfer_halfwidth", p->vs_specinfer);
  json_num("worst_config_halfwidth", p->worst_config);
  json_num("worst_any_system_halfwidth", p->worst_any);
  printf(",\"max_prompts\":%d", p->prompts_max);
  json_num("target_headline", LS_DB_TARGET_HEADLINE);
  json_num("target_config", LS_DB_TARGET_CONFIG);
  printf(",\"headline_met\":%s,\"config_met\":%s}",
         p->vs_ar_flash <= LS_DB_TARGET_HEADLINE && p->vs_specinfer <= LS_DB_TARGET_HEADLINE
             ? "true" : "false",
         p->worst_config <= LS_DB_TARGET_CONFIG ? "true" : "false");
  if (!strcmp(r->replay, "quick")) {
    printf(",\"note\":\"");
    for (const char *c = QUICK_NOTE; *c; c++) putchar(*c == '\n' ? ' ' : *c);
    printf("\"");
  }
  printf("}\n");
  return rc;
}

static int summary(const char *db_path, int json, const replay_info *r,
                   const ls_driver_summary *sum, ls_error *err)
{
  ls_db *db = NULL;
  ls_db_precision p;
  int rc = ls_db_open(&db, db_path, err);
  if (!rc) rc = record_replay(db, r, err);
  if (!rc) rc = ls_db_precision_get(db, &p, err);
  if (!rc && json) {
    rc = summary_json(db, r, sum, &p, err);
  } else if (!rc) {
    printf("\nDecode throughput (tokens/s) per configuration and system (part main):\n");
    rc = ls_db_export(db, "throughput", "table", stdout, err);
    printf("\nLever's speedup over ar-flash and specinfer per configuration, with 95 %% "
           "intervals (empty: too few prompts):\n");
    if (!rc) rc = ls_db_export(db, "lever_ratios", "table", stdout, err);
    printf("\nAverage speedup of Lever over each system across the configurations "
           "(arithmetic and geometric mean, 95 %% intervals):\n");
    if (!rc) rc = ls_db_export(db, "summary", "table", stdout, err);
    if (!rc) precision_text(&p, r);
    printf("\nPlanned vs charged: each system's cycle time as its cost model predicts it, against the "
           "simulated cycle\n(median relative error over cycles, then over runs; Lever's target < 5 %%):\n");
    if (!rc) rc = ls_db_export(db, "consistency", "table", stdout, err);
    if (!rc && !strcmp(r->replay, "quick")) printf("\n%s\n", QUICK_NOTE);
  }
  ls_db_close(db);
  return rc;
}

/* Draws the figures through the report API; with --json their lines go to stderr, so stdout
 * stays one document. */
static int figures(const repro_opts *o)
{
  ls_draw_opts d = {o->db, o->out, NULL, 0, getenv("LEVERSIM_GNUPLOT"), o->json ? stderr : stdout};
  ls_draw_outcome n;
  ls_error err;
  ls_error_clear(&err);
  int rc = ls_draw(&d, &n, &err);
  return ls_draw_exit("reproduce", &d, &n, rc, &err);
}

int ls_cmd_reproduce(int argc, char **argv)
{
  repro_opts o = {"results/leversim.db", "results/figures", NULL, NULL, 2, 0, 0, 0, 1};
  int rc = parse(argc, argv, &o);
  if (rc)
    return rc == 1 ? 0 : rc;
  char exp_path[1024], hint[4096];
  snprintf(exp_path, sizeof exp_path, "%s/runner/experiments/paper.yaml", ls_data_root());
  ls_resume_hint(hint, sizeof hint, argc, argv);
  ls_error err;
  ls_error_clear(&err);
  ls_experiment *x = NULL;
  replay_info info;
  ls_kv *sizes = NULL;
  int e = ls_kv_create(&sizes, &err);
  if (!e && o.prompts)
    e = ls_kv_set(sizes, "workload.prompts", o.prompts, "--prompts", &err);
  if (!e && o.tokens)
    e = ls_kv_set(sizes, "workload.max_tokens", o.tokens, "--tokens", &err);
  if (!e)
    e = ls_experiment_load(&x, exp_path, ls_data_root(), o.quick, sizes, 1, 1, &err);
  ls_kv_free(sizes);
  if (!e)
    e = replay_of(x, o.quick, o.prompts || o.tokens, &info, &err);
  if (!e) /* before the old database is removed */
    e = ls_validate_runs(x, &err);
  if (!e && !o.resume)
    remove_db(o.db);
  ls_driver_summary sum;
  if (!e) {
    ls_driver_opts d = {o.db, ls_data_root(), hint, (int)o.jobs, o.resume, 0, 0};
    e = ls_driver_run(x, &d, &sum, &err);
  }
  if (!e) {
    fprintf(stderr, "leversim reproduce: %d runs (%d ok, %d not valid here, %d failed) in %.1f s -> %s\n",
            sum.total, sum.ok, sum.invalid, sum.failed, sum.wall_s, o.db);
    e = summary(o.db, o.json, &info, &sum, &err);
  }
  ls_experiment_free(x);
  if (e) {
    if (e != LS_EINTR)
      ls_error_print(&err, stderr);
    return ls_status_exit(e);
  }
  if (o.figures) {
    int frc = figures(&o);
    if (frc)
      fprintf(stderr, "leversim reproduce: figures were not drawn (exit %d); the database is complete\n", frc);
  }
  return sum.failed ? 1 : 0;
}
