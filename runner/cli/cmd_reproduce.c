/* runner/cmd_reproduce: 'leversim reproduce' — the paper replay: runs
 * runner/experiments/paper.yaml into a fresh database, prints the summary (tokens/s per
 * configuration and system, Lever's average speedups over ar-flash and specinfer,
 * arithmetic and geometric, with 95 % intervals, and the precision achieved against the
 * targets), records the replay (quick, full or regime; spec hash, sizes) in the database's meta for
 * `leversim check`, then redraws the figures. --regime runs the regime study instead
 * (runner/experiments/regime.yaml: replay "regime", its own database, baseline and figure) and
 * prints the regime map. Both end with the command's wall and CPU time on stderr. --json:
 * stdout is exactly one JSON document. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "results/db.h"
#include "sim/clock.h"
#include "sim/rng.h"
#include "sim/stop.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "sim/range.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"
#include "runner/report/csvtab.h"
#include "runner/report/draw.h"
#include "runner/report/figures.h"

typedef struct repro_opts {
  const char *db, *out; /* NULL: the defaults (results/leversim.db, results/figures), or a
                           trial size's own folder (trial_paths) */
  long jobs;
  int quick, regime, resume, json, no_figures;
  char trial_db[LS_PATH_MAX], trial_out[LS_PATH_MAX];
} repro_opts;

static const ls_opt REPRO_OPTS[] = {
    {"--quick", LS_OPT_FLAG, OPT_AT(repro_opts, quick), NULL, "a regression guard for CI, not a result: few prompts, the main study and the budget sweep only"},
    {"--regime", LS_OPT_FLAG, OPT_AT(repro_opts, regime), NULL, "the regime study instead of the paper (runner/experiments/regime.yaml: the claims under each open assumption; default database results/regime.db, baseline results/baseline/regime.yaml, figure regime)"},
    {"--db", LS_OPT_STR, OPT_AT(repro_opts, db), "FILE", "results database (default results/leversim.db, with --regime results/regime.db, a trial size results/trial-pN-tM/leversim.db; recreated unless --resume)"},
    {"--out", LS_OPT_STR, OPT_AT(repro_opts, out), "DIR", "figures folder (default results/figures, a trial size results/trial-pN-tM/figures)"},
    {"--jobs", LS_OPT_LONG, OPT_AT(repro_opts, jobs), "N", "worker processes (default 2; results are identical for any N)", .lo = 1, .hi = 64},
    {"--resume", LS_OPT_FLAG, OPT_AT(repro_opts, resume), NULL, "keep the database and skip the runs it already holds"},
    {"--no-figures", LS_OPT_FLAG, OPT_AT(repro_opts, no_figures), NULL, "do not draw the figures"},
    {"--json", LS_OPT_FLAG, OPT_AT(repro_opts, json), NULL, "stdout is one JSON document (summary, ratios with 95 % intervals, precision)"},
    {"--prompts", LS_OPT_SETTING, 0, "N", "a trial size: workload.prompts of every run (a 'custom' replay)", .range = LS_OPT_RANGE(LS_R_PROMPTS), .key = "workload.prompts"},
    {"--tokens", LS_OPT_SETTING, 0, "N", "a trial size: workload.max_tokens of every run (a 'custom' replay)", .range = LS_OPT_RANGE(LS_R_TOKENS), .key = "workload.max_tokens"},
    {NULL}};

static const ls_cmd_spec REPRO = {
    "reproduce", NULL, 0, 0, 0, "replay the paper (runner/experiments/paper.yaml), print the summary, draw the figures",
    "Replays the paper into the database, prints the summary (tokens/s per configuration and\n"
    "system, Lever's average speedups with 95 % intervals, the precision achieved) and draws\n"
    "the figures. The replay's size is workload.prompts and workload.max_tokens in the\n"
    "experiment file; --prompts/--tokens override them for a trial, a 'custom' replay that is\n"
    "checked against no baseline and from which none is written, and which never touches the\n"
    "committed results: unless --db/--out name others, it writes results/trial-pN-tM/\n"
    "(leversim.db and figures/; git ignores them). A resumed replay says how many runs were\n"
    "already done. With --json everything but the document goes to stderr.\n"
    "--regime replays the regime map instead (runner/experiments/regime.yaml, beyond the\n"
    "paper): the paper's claims judged by their figures' tests when one open assumption\n"
    "changes; it prints the map and draws the figure regime. `make reproduce` runs the paper\n"
    "only, `make regime` the regime study. Both print their wall and CPU time at the end.\n",
    NULL, REPRO_OPTS};

/* What the replay was: recorded in the database's meta so that `leversim check` can tell a
 * quick database from a full one (results/check.c). spec_hash: 64-bit hash of every run id
 * of the expansion, in order. */
typedef struct replay_info {
  char spec_hash[17], prompts[16], max_tokens[16];
  const char *replay;
  int regime; /* the regime study (a trial size of it too) */
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

static int replay_of(ls_experiment *x, int quick, int regime, int custom, replay_info *r, ls_error *err)
{
  uint64_t h = 0x7265706c6179ULL;
  for (int i = 0; i < ls_experiment_count(x); i++) {
    char id[LS_DB_RUN_ID_LEN + 1];
    int rc = ls_driver_given_hash(ls_experiment_run(x, i), id, err); /* the expansion, not the profiles */
    if (rc) return rc;
    h = ls_key_str(h, id);
  }
  snprintf(r->spec_hash, sizeof r->spec_hash, "%016llx", (unsigned long long)h);
  ls_run_spec *s0 = ls_experiment_run(x, 0);
  const char *t = s0 ? ls_kv_find(s0->settings, "workload.max_tokens") : NULL;
  prompts_range(x, r->prompts, sizeof r->prompts);
  snprintf(r->max_tokens, sizeof r->max_tokens, "%s", t ? t : "default");
  r->replay = custom ? "custom" : quick ? "quick" : regime ? "regime" : "full";
  r->regime = regime;
  return LS_OK;
}

static const char *experiment_of(const replay_info *r)
{
  return !strcmp(r->replay, "regime") || r->regime ? "regime" : "paper";
}

static int record_replay(ls_db *db, const replay_info *r, ls_error *err)
{
  int rc = ls_db_set_meta(db, "experiment", experiment_of(r), err);
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
  if (!isnan(p->own_smaller)) { /* the sizing rule (docs/STATISTICS.md): met or not */
    printf("  %-47s ", "sized below Lever: own throughput (widest)");
    if (isinf(p->own_smaller))
      printf("no interval (target <= %.1f %%: NOT met)\n", 100 * LS_DB_TARGET_OWN);
    else
      printf("%5.3f %% (target <= %.1f %%: %s)\n", 100 * p->own_smaller, 100 * LS_DB_TARGET_OWN,
             p->own_smaller <= LS_DB_TARGET_OWN ? "met" : "NOT met");
    printf("    (%s)\n", p->own_smaller_name);
  }
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
  printf("{\"experiment\":\"%s\",\"replay\":\"%s\",\"spec_hash\":\"%s\",\"prompts\":\"%s\","
         "\"max_tokens\":\"%s\",\"runs\":{\"total\":%d,\"ok\":%d,\"invalid\":%d,\"failed\":%d,"
         "\"wall_s\":%.3f},\"summary\":", experiment_of(r), r->replay, r->spec_hash, r->prompts, r->max_tokens,
         sum->total, sum->ok, sum->invalid, sum->failed, sum->wall_s);
  int rc = ls_db_export(db, "summary", "json", stdout, err);
  printf(",\"lever_ratios\":");
  if (!rc) rc = ls_db_export(db, "lever_ratios", "json", stdout, err);
  printf(",\"precision\":{\"min_prompts\":%d", p->prompts);
  json_num("vs_ar_flash_halfwidth", p->vs_ar_flash);
  json_num("vs_specinfer_halfwidth", p->vs_specinfer);
  json_num("worst_config_halfwidth", p->worst_config);
  json_num("worst_any_system_halfwidth", p->worst_any);
  json_num("sized_below_lever_own_halfwidth", isinf(p->own_smaller) ? NAN : p->own_smaller);
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

/* The regime map (runner/report/figures.c, ls_figures_regime_map) of the regime study's
 * database as CSV into *text (owned): each claim judged under each assumption, the first
 * column on the study's own default case. */
static int regime_map_csv(ls_db *db, char **text, size_t *len, ls_error *err)
{
  char *view = NULL;
  size_t vlen = 0;
  *text = NULL;
  *len = 0;
  FILE *m = open_memstream(&view, &vlen);
  if (!m) return ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  int rc = ls_db_export(db, "regime", "csv", m, err);
  if (fclose(m) != 0 && rc == LS_OK) rc = ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  ls_csvtab t = {NULL, NULL, 0, 0};
  if (rc == LS_OK) rc = ls_csvtab_parse(&t, view, vlen, err);
  FILE *out = rc == LS_OK ? open_memstream(text, len) : NULL;
  if (rc == LS_OK && !out) rc = ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  /* no figure verdicts (all judged 0): the default case's runs decide the first column */
  ls_verdict *none = calloc((size_t)ls_figures_count(), sizeof *none);
  int *judged = calloc((size_t)ls_figures_count(), sizeof *judged);
  if (rc == LS_OK && (!none || !judged)) rc = ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  if (rc == LS_OK) rc = ls_figures_regime_map(&t, none, judged, out, err);
  free(none);
  free(judged);
  if (out && fclose(out) != 0 && rc == LS_OK) rc = ls_error_set(err, LS_ENOMEM, "regime map: out of memory");
  ls_csvtab_free(&t);
  free(view);
  return rc;
}

/* The regime study's summary: the map, one line per claim and assumption (or, with --json,
 * the map's rows as JSON objects). */
static int regime_summary(ls_db *db, int json, const replay_info *r, const ls_driver_summary *sum,
                          ls_error *err)
{
  char *text = NULL;
  size_t len = 0;
  int rc = regime_map_csv(db, &text, &len, err);
  ls_csvtab t = {NULL, NULL, 0, 0};
  if (rc == LS_OK) rc = ls_csvtab_parse(&t, text, len, err);
  int cf = ls_csvtab_col(&t, "fig"), cc = ls_csvtab_col(&t, "column"), cv = ls_csvtab_col(&t, "value"),
      cl = ls_csvtab_col(&t, "lo"), ch = ls_csvtab_col(&t, "hi"), co = ls_csvtab_col(&t, "holds"),
      cn = ls_csvtab_col(&t, "cell");
  if (rc == LS_OK && json) {
    printf("{\"experiment\":\"regime\",\"replay\":\"%s\",\"spec_hash\":\"%s\",\"prompts\":\"%s\","
           "\"max_tokens\":\"%s\",\"runs\":{\"total\":%d,\"ok\":%d,\"invalid\":%d,\"failed\":%d,"
           "\"wall_s\":%.3f},\"map\":[", r->replay, r->spec_hash, r->prompts, r->max_tokens, sum->total,
           sum->ok, sum->invalid, sum->failed, sum->wall_s);
    for (int i = 0; i < t.nrow; i++) {
      printf("%s{\"claim\":\"%s\",\"assumption\":\"%s\",\"holds\":%s", i ? "," : "", ls_csvtab_at(&t, i, cf),
             ls_csvtab_at(&t, i, cc), atoi(ls_csvtab_at(&t, i, co)) > 0 ? "true"
                                      : atoi(ls_csvtab_at(&t, i, co)) == 0 ? "false" : "null");
      const int cols[3] = {cv, cl, ch};
      const char *names[3] = {"value", "lo", "hi"};
      for (int k = 0; k < 3; k++)
        json_num(names[k], ls_csvtab_at(&t, i, cols[k])[0] ? ls_csvtab_num(&t, i, cols[k]) : NAN);
      printf("}");
    }
    printf("]}\n");
  } else if (rc == LS_OK) {
    printf("\nThe regime map: each claim under each assumption changed (the claim's number, its 95 %% "
           "interval\nover the configurations, and whether the claim's test holds):\n");
    for (int i = 0; i < t.nrow; i++) {
      int h = atoi(ls_csvtab_at(&t, i, co));
      printf("  %-7s %-17s %-36s", ls_csvtab_at(&t, i, cf), ls_csvtab_at(&t, i, cc), ls_csvtab_at(&t, i, cn));
      const int cols[3] = {cv, cl, ch};
      for (int k = 0; k < 3; k++)
        if (ls_csvtab_at(&t, i, cols[k])[0]) printf(k == 0 ? " %7.4f" : k == 1 ? " [%.4f," : " %.4f]", ls_csvtab_num(&t, i, cols[k]));
        else printf(k == 0 ? " %7s" : k == 1 ? " [%s," : " %s]", "-");
      printf("  %s\n", h > 0 ? "holds" : h == 0 ? "does NOT hold" : "-");
    }
  }
  ls_csvtab_free(&t);
  free(text);
  return rc;
}

static int summary(const char *db_path, int json, const replay_info *r,
                   const ls_driver_summary *sum, ls_error *err)
{
  ls_db *db = NULL;
  ls_db_precision p;
  int rc = ls_db_open(&db, db_path, err);
  if (!rc) rc = record_replay(db, r, err);
  if (!rc && r->regime) {
    rc = regime_summary(db, json, r, sum, err);
    ls_db_close(db);
    return rc;
  }
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

/* A trial size (--prompts/--tokens) is not the replay the committed results come from: its
 * database and figures go to a folder of its own, results/trial-pN-tM/, unless --db/--out
 * name others, so a trial never overwrites results/leversim.db or results/figures. */
static int trial_paths(repro_opts *o, const ls_kv *sizes, ls_error *err)
{
  const char *p = NULL, *t = NULL;
  for (int i = 0; i < ls_kv_count(sizes); i++) {
    if (!strcmp(ls_kv_key(sizes, i), "workload.prompts")) p = ls_kv_value(sizes, i);
    if (!strcmp(ls_kv_key(sizes, i), "workload.max_tokens")) t = ls_kv_value(sizes, i);
  }
  if (!p && !t) {
    if (!o->db) o->db = o->regime ? "results/regime.db" : "results/leversim.db";
    if (!o->out) o->out = "results/figures";
    return LS_OK;
  }
  char dir[LS_PATH_MAX];
  snprintf(dir, sizeof dir, "results/trial%s%s%s%s%s", o->regime ? "-regime" : "", p ? "-p" : "", p ? p : "", t ? "-t" : "", t ? t : "");
  snprintf(o->trial_db, sizeof o->trial_db, "%s/leversim.db", dir);
  snprintf(o->trial_out, sizeof o->trial_out, "%s/figures", dir);
  /* the folder is made only when something goes into it (the figures folder itself is made
   * by the report); results/ first, for a replay started outside a checkout */
  int own = !o->db || (!o->out && !o->no_figures);
  if (!o->db) o->db = o->trial_db;
  if (!o->out) o->out = o->trial_out;
  if (own && ((mkdir("results", 0777) != 0 && errno != EEXIST) || (mkdir(dir, 0777) != 0 && errno != EEXIST)))
    return ls_error_set(err, LS_EIO, "%s: cannot create the trial folder: %s", dir, strerror(errno));
  return LS_OK;
}

/* Draws the figures through the report API; with --json their lines go to stderr, so stdout
 * stays one document. */
static int figures(const repro_opts *o)
{
  static const char *const regime_only[] = {"regime"};
  ls_draw_opts d = {o->db, o->out, o->regime ? regime_only : NULL, o->regime ? 1 : 0, getenv("LEVERSIM_GNUPLOT"),
                    o->json ? stderr : stdout};
  ls_draw_outcome n;
  ls_error err;
  ls_error_clear(&err);
  int rc = ls_draw(&d, &n, &err);
  return ls_draw_exit("reproduce", &d, &n, rc, &err);
}

/* Loads, checks and runs the replay into o->db, then prints the summary. */
static int replay(const repro_opts *o, const ls_kv *sizes, int argc, char **argv, ls_driver_summary *sum,
                  ls_error *err)
{
  char exp_path[LS_PATH_MAX], hint[2 * LS_PATH_MAX];
  snprintf(exp_path, sizeof exp_path, "%s/runner/experiments/%s.yaml", ls_data_root(), o->regime ? "regime" : "paper");
  ls_resume_hint(hint, sizeof hint, ls_cli_program(), argc, argv);
  ls_experiment *x = NULL;
  replay_info info;
  int e = ls_experiment_load(&x, exp_path, ls_data_root(), o->quick, sizes, 1, 1, err);
  if (!e)
    e = replay_of(x, o->quick, o->regime, ls_kv_count(sizes) > 0, &info, err);
  if (!e) /* before the old database is removed */
    e = ls_validate_runs(x, err);
  if (!e) { /* the replay is recorded before the first run: an interrupted database says
             * what it is; without --resume the database is emptied (never another file) */
    const char *meta[] = {"experiment", experiment_of(&info), "replay", info.replay, "spec_hash",
                          info.spec_hash, "prompts", info.prompts, "max_tokens", info.max_tokens,
                          NULL};
    ls_driver_opts d = {o->db, ls_data_root(), hint, (int)o->jobs, o->resume, 0, 0,
                        !o->resume, "reproduce", meta};
    e = ls_driver_run(x, &d, sum, err);
  }
  if (!e) {
    fprintf(stderr, "leversim reproduce: %d runs (%d ok, %d not valid here, %d failed",
            sum->total, sum->ok, sum->invalid, sum->failed);
    if (o->resume) /* a resumed replay says what it found already done */
      fprintf(stderr, ", %d already done before this resume", sum->skipped);
    fprintf(stderr, ") in %.1f s -> %s", sum->wall_s, o->db);
    if (sum->reused) /* runs whose resolved configuration another run has: simulated once */
      fprintf(stderr, "; %d of them reuse another run's simulation", sum->reused);
    fputc('\n', stderr);
    struct sigaction old[2]; /* Ctrl-C after the last run: the same hint as during runs */
    ls_stop_catch(old);
    e = summary(o->db, o->json, &info, sum, err);
    ls_stop_restore(old);
    if (!e && *ls_stop_flag()) {
      fprintf(stderr, "leversim: interrupted after %d of %d runs; finished runs are saved.\n"
                      "resume with: %s\n", sum->total, sum->total, hint);
      e = ls_error_set(err, LS_EINTR, "interrupted");
    }
  }
  ls_experiment_free(x);
  return e;
}

/* The whole command's wall time and CPU time (user + system, its workers included) on stderr:
 * what `make reproduce` and `make regime` report (docs/PERFORMANCE.md). */
static void report_time(double t0)
{
  struct rusage self, kids;
  double cpu = 0;
  if (getrusage(RUSAGE_SELF, &self) == 0 && getrusage(RUSAGE_CHILDREN, &kids) == 0) {
    const struct timeval *tv[4] = {&self.ru_utime, &self.ru_stime, &kids.ru_utime, &kids.ru_stime};
    for (int i = 0; i < 4; i++) cpu += (double)tv[i]->tv_sec + 1e-6 * (double)tv[i]->tv_usec;
  }
  fprintf(stderr, "leversim reproduce: %.1f s wall, %.1f s CPU (user + system, workers and figures included)\n",
          ls_now_s() - t0, cpu);
}

int ls_cmd_reproduce(int argc, char **argv)
{
  double t0 = ls_now_s();
  repro_opts o = {NULL, NULL, 2, 0, 0, 0, 0, 0, "", ""};
  ls_error err;
  ls_error_clear(&err);
  ls_kv *sizes = NULL; /* --prompts, --tokens */
  int e = ls_kv_create(&sizes, &err);
  if (!e && (e = ls_opts_parse(&REPRO, argc, argv, &o, sizes)) != LS_OK) {
    ls_kv_free(sizes);
    return ls_opts_exit(e);
  }
  ls_driver_summary sum = {0};
  if (!e && o.regime && o.quick) {
    ls_kv_free(sizes);
    fprintf(stderr, "leversim reproduce: --regime and --quick do not go together (the regime study has no quick "
                    "form; --prompts N gives a trial size)\n");
    return ls_opts_exit(LS_EUSAGE);
  }
  if (!e)
    e = trial_paths(&o, sizes, &err);
  if (!e)
    e = replay(&o, sizes, argc, argv, &sum, &err);
  ls_kv_free(sizes);
  if (e) {
    if (e != LS_EINTR)
      ls_error_print(&err, stderr);
    return ls_status_exit(e);
  }
  if (!o.no_figures) {
    int frc = figures(&o);
    if (frc)
      fprintf(stderr, "leversim reproduce: figures were not drawn (exit %d); the database is complete\n", frc);
  }
  report_time(t0);
  return sum.failed ? ls_status_exit(LS_ERUN) : 0;
}
