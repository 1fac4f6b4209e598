/* runner/cmd_sweep: 'leversim sweep [EXPERIMENT.yaml] [--axis KEY=V,...]...' — run a study
 * (an experiment file, or the command line's axes alone) into SQLite. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "results/db.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/study/driver.h"
#include "runner/study/noeffect.h"
#include "runner/study/sweep_tie.h"
#include "runner/study/validate.h"

typedef struct sweep_opts {
  ls_opt_list args; /* the experiment file (none: the axes alone) */
  ls_opt_list axes; /* --axis KEY=V1,V2,... */
  const char *db;
  long jobs;
  int shard[2]; /* i of N */
  int resume, force, quick, steps, check;
  ls_opt_list plugins;
  ls_policy_set *policies; /* from --plugin */
} sweep_opts;

/* --shard i/N with 1 <= i <= N. */
static const char *parse_shard(const char *text, void *field)
{
  int *s = field;
  char tail;
  return sscanf(text, "%d/%d%c", &s[0], &s[1], &tail) == 2 && s[1] >= 1 && s[0] >= 1 && s[0] <= s[1]
             ? NULL : "expected i/N with 1 <= i <= N";
}

static const ls_opt SWEEP_OPTS[] = {
    {"--jobs", LS_OPT_LONG, OPT_AT(sweep_opts, jobs), "N", "worker processes (results are identical for any N)", .lo = 1, .hi = 64},
    {"--shard", LS_OPT_CALL, OPT_AT(sweep_opts, shard), "i/N", "run only the i-th of N fixed parts of the runs", .call = parse_shard},
    {"--db", LS_OPT_STR, OPT_AT(sweep_opts, db), "FILE", "results database (default results/<experiment>.db)"},
    {"--axis", LS_OPT_MULTI, OPT_AT(sweep_opts, axes), "KEY=V1,V2,...", "sweep a setting, or device=, model=, dataset=, system= names (repeatable)"},
    {"--force", LS_OPT_FLAG, OPT_AT(sweep_opts, force), NULL, "run again the runs the database already holds"},
    {"--resume", LS_OPT_FLAG, OPT_AT(sweep_opts, resume), NULL, "skip the runs the database already holds (the default)"},
    {"--quick", LS_OPT_FLAG, OPT_AT(sweep_opts, quick), NULL, "only the parts without quick: false, with their quick: sizes"},
    {"--set", LS_OPT_SET, 0, "key=value", "a setting for every run (see 'leversim settings')"},
    {"--steps", LS_OPT_FLAG, OPT_AT(sweep_opts, steps), NULL, "store each run's per-cycle series"},
    {"--check", LS_OPT_FLAG, OPT_AT(sweep_opts, check), NULL, "only check every run (names, settings, values); write nothing"},
    {"--plugin", LS_OPT_MULTI, OPT_AT(sweep_opts, plugins), "FILE.so", LS_CLI_PLUGIN_HELP},
    {NULL}};

static const ls_cmd_spec SWEEP = {
    "sweep", "[EXPERIMENT.yaml]", 0, 1, OPT_AT(sweep_opts, args),
    "run a study (an experiment file, or --axis alone) into SQLite",
    "Runs every run of the experiment's matrix x sweep axes into the database (default\n"
    "results/<experiment>.db; without a file results/sweep.db). --axis KEY=V1,V2,... sweeps a\n"
    "setting; device=, model=, dataset= and system= axes list names. Without EXPERIMENT.yaml\n"
    "the four names axes are required and the settings, seed and sizing are those of\n"
    "`leversim run`: each point is the run `leversim run --set KEY=V` makes (the same id).\n"
    "Every --set and axis is recorded as an axis of the run (leversim plot --x KEY). Runs\n"
    "already in the database with the same resolved settings and seed are not run again (--force runs\n"
    "them again). --shard i/N runs a fixed 1/N of the runs (merge shards with 'leversim\n"
    "merge'). Every run is checked (names, settings, values) before the database is created.\n"
    "Waits for another process's lock on the database last at most 60 s in all, however many\n"
    "runs are written ($LEVERSIM_DB_LOCK_WAIT=SECONDS changes it).\n"
    "Before the runs, values a known cap turns into another are warned about; after them, an\n"
    "axis whose values all gave the same per-prompt results (a cap never reached, a setting\n"
    "not read) is named in one warning. docs/EXPERIMENTS.md documents the experiment file.\n",
    NULL, SWEEP_OPTS};

/* The --axis arguments as KEY -> "V1,V2,..." (origin "--axis KEY"); a key given twice or
 * without values is a usage error. */
static int axes_kv(const ls_opt_list *axes, ls_kv *kv, ls_error *err)
{
  for (int i = 0; i < axes->n; i++) {
    const char *text = axes->v[i], *eq = strchr(text, '=');
    char key[128], origin[160];
    if (!eq || eq == text || !eq[1] || (size_t)(eq - text) >= sizeof key)
      return ls_error_set(err, LS_EUSAGE, "--axis '%s': expected KEY=V1,V2,... (e.g. draft.budget=4,8,16)", text);
    snprintf(key, sizeof key, "%.*s", (int)(eq - text), text);
    if (ls_kv_has(kv, key))
      return ls_error_set(err, LS_EUSAGE, "--axis %s is given twice (list every value in one --axis)", key);
    snprintf(origin, sizeof origin, "--axis %s", key);
    int rc = ls_kv_set(kv, key, eq + 1, origin, err);
    if (rc) return rc;
  }
  return LS_OK;
}

/* ---- the summary table after a sweep ---- */

typedef struct sys_sum {
  char system[64];
  int runs;
  double log_sum, lo, hi;
} sys_sum;

typedef struct sum_ctx {
  sys_sum s[64];
  int n;
} sum_ctx;

static int sum_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)err;
  sum_ctx *c = ctx;
  if (!text[0] || !(num[1] > 0)) return LS_OK;
  int k = 0;
  while (k < c->n && strcmp(c->s[k].system, text[0])) k++;
  if (k == c->n) {
    if (c->n == 64) return LS_OK;
    c->s[c->n] = (sys_sum){.lo = INFINITY};
    snprintf(c->s[c->n++].system, sizeof c->s[0].system, "%s", text[0]);
  }
  c->s[k].runs++;
  c->s[k].log_sum += log(num[1]);
  c->s[k].lo = fmin(c->s[k].lo, num[1]);
  c->s[k].hi = fmax(c->s[k].hi, num[1]);
  return LS_OK;
}

/* After the runs: the axes whose values gave the same results (runner/study/sweep_tie.h), a
 * warning each. Advice, not a result: a database it cannot read is a note, not the sweep's
 * failure (its runs are written). */
static void tie_warnings(ls_experiment *x, const char *db_path)
{
  ls_db *db = NULL;
  ls_error err;
  ls_error_clear(&err);
  int n = 0, rc = ls_db_open_read(&db, db_path, &err);
  if (rc == LS_OK) rc = ls_sweep_tie_warn(x, db, stderr, "leversim sweep: warning: ", &n, &err);
  if (rc != LS_OK)
    fprintf(stderr, "leversim sweep: note: the runs were not compared for values that changed nothing: %s\n", err.msg);
  ls_db_close(db);
}

/* Per system: runs, geometric mean, min and max throughput over the ok runs of the parts the
 * sweep ran, and the command that says which setting wins. On stderr, like the progress. */
static void summary_table(ls_experiment *x, const char *db_path)
{
  ls_db *db = NULL;
  ls_error err;
  sum_ctx c;
  memset(&c, 0, sizeof c);
  if (ls_experiment_count(x) == 0 || ls_db_open_read(&db, db_path, &err) != LS_OK) return;
  const char *part = ls_experiment_run(x, 0)->part;
  ls_db_select(db, "SELECT r.system, m.value FROM runs r JOIN metrics m ON m.run_id = r.run_id AND"
               " m.name = 'throughput_tps' WHERE r.status = 'ok' AND r.part = ?1 ORDER BY r.system", &part, 1,
               sum_row, &c, &err);
  ls_db_close(db);
  if (c.n == 0) return;
  fprintf(stderr, "leversim sweep: throughput of part %s in %s (every run there, this sweep's and earlier):\n"
                  "  %-18s %5s %10s %10s %10s\n", part, db_path, "system", "runs", "geomean", "min", "max");
  for (int k = 0; k < c.n; k++)
    fprintf(stderr, "  %-18s %5d %10.4g %10.4g %10.4g\n", c.s[k].system, c.s[k].runs,
            exp(c.s[k].log_sum / c.s[k].runs), c.s[k].lo, c.s[k].hi);
  const char *axes = ls_experiment_run(x, 0)->axes_json, *q = strchr(axes, '"'), *e = q ? strchr(q + 1, '"') : NULL;
  if (e)
    fprintf(stderr, "  which value wins: leversim best --db %s --y throughput_tps --over %.*s --by system\n", db_path,
            (int)(e - q - 1), q + 1);
}

static int sweep(const sweep_opts *o, ls_experiment *x, int argc, char **argv, ls_driver_summary *sum,
                 ls_error *err)
{
  char dbbuf[512], hint[4096];
  const char *db = o->db;
  if (!db) {
    snprintf(dbbuf, sizeof dbbuf, "results/%s.db", ls_experiment_name(x));
    db = dbbuf;
  }
  ls_resume_hint(hint, sizeof hint, ls_cli_program(), argc, argv);
  ls_driver_opts d = {db, ls_data_root(), hint, (int)o->jobs, !o->force, o->steps, 0, 0, "sweep", NULL, o->policies};
  int e = ls_driver_run(x, &d, sum, err);
  if (!e || e == LS_EINTR)
    fprintf(stderr, "leversim sweep: %d runs (%d ok, %d not valid here, %d failed, %d already done) in %.1f s -> %s\n",
            sum->total, sum->ok, sum->invalid, sum->failed, sum->skipped, sum->wall_s, db);
  if (!e && sum->ok) {
    tie_warnings(x, db);
    summary_table(x, db);
  }
  if ((!e || e == LS_EINTR) && sum->skipped)
    fprintf(stderr, "leversim sweep: %d run%s already in %s with the same resolved settings and seed: not run "
            "again (--force runs them again)\n", sum->skipped, sum->skipped == 1 ? " was" : "s were", db);
  if ((!e || e == LS_EINTR) && sum->reused) /* docs/EXPERIMENTS.md, "Reuse" */
    fprintf(stderr, "leversim sweep: %d run%s the same resolved settings and seed as another run of the study: "
            "simulated once, recorded under each\n", sum->reused, sum->reused == 1 ? " has" : "s have");
  return e;
}

int ls_cmd_sweep(int argc, char **argv)
{
  sweep_opts o = {.jobs = 1, .shard = {1, 1}};
  ls_error err;
  ls_error_clear(&err);
  ls_kv *kv = NULL, *axes = NULL;
  int e = ls_kv_create(&kv, &err);
  if (!e) e = ls_kv_create(&axes, &err);
  if (!e && (e = ls_opts_parse(&SWEEP, argc, argv, &o, kv)) != LS_OK) {
    ls_kv_free(kv);
    ls_kv_free(axes);
    return ls_opts_exit(e);
  }
  if (!e) e = axes_kv(&o.axes, axes, &err);
  if (!e && o.args.n == 0 && o.axes.n == 0)
    e = ls_error_set(&err, LS_EUSAGE, "an experiment file or --axis is required");
  ls_experiment *x = NULL;
  ls_driver_summary sum = {0};
  ls_study_args a = {o.args.n ? o.args.v[0] : NULL, ls_data_root(), o.quick, kv, axes, o.shard[0], o.shard[1]};
  if (!e)
    e = ls_experiment_open(&x, &a, &err);
  if (!e) e = ls_cli_plugins(&o.plugins, &o.policies, &err);
  if (!e) /* every run is checked before the database exists */
    e = ls_validate_runs_with(x, o.policies, &err);
  int n_warn = 0;
  if (!e) /* before any run: a point that changes nothing is worth knowing before it costs */
    e = ls_noeffect_warn(x, o.policies, stderr, "leversim sweep: warning: ", &n_warn, &err);
  if (!e && o.check)
    fprintf(stderr, "leversim sweep: %d runs checked, nothing written\n", ls_experiment_count(x));
  else if (!e)
    e = sweep(&o, x, argc, argv, &sum, &err);
  if (e && e != LS_EINTR)
    ls_error_print(&err, stderr);
  ls_experiment_free(x);
  ls_kv_free(kv);
  ls_kv_free(axes);
  ls_policy_set_free(o.policies);
  return e ? ls_status_exit(e) : sum.failed ? ls_status_exit(LS_ERUN) : 0;
}
