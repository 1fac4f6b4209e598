/* runner/cmd_sweep: 'leversim sweep [EXPERIMENT.yaml] [--axis KEY=V,...]...' — run a study
 * (an experiment file, or the command line's axes alone) into SQLite. */
#include <stdio.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

typedef struct sweep_opts {
  ls_opt_list args; /* the experiment file (none: the axes alone) */
  ls_opt_list axes; /* --axis KEY=V1,V2,... */
  const char *db;
  long jobs;
  int shard[2]; /* i of N */
  int resume, force, quick, steps, check;
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
    "docs/EXPERIMENTS.md documents the experiment file.\n",
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
  ls_driver_opts d = {db, ls_data_root(), hint, (int)o->jobs, !o->force, o->steps, 0, 0, "sweep", NULL};
  int e = ls_driver_run(x, &d, sum, err);
  if (!e || e == LS_EINTR)
    fprintf(stderr, "leversim sweep: %d runs (%d ok, %d not valid here, %d failed, %d already done) in %.1f s -> %s\n",
            sum->total, sum->ok, sum->invalid, sum->failed, sum->skipped, sum->wall_s, db);
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
  if (!e) /* every run is checked before the database exists */
    e = ls_validate_runs(x, &err);
  if (!e && o.check)
    fprintf(stderr, "leversim sweep: %d runs checked, nothing written\n", ls_experiment_count(x));
  else if (!e)
    e = sweep(&o, x, argc, argv, &sum, &err);
  if (e && e != LS_EINTR)
    ls_error_print(&err, stderr);
  ls_experiment_free(x);
  ls_kv_free(kv);
  ls_kv_free(axes);
  return e ? ls_status_exit(e) : sum.failed ? ls_status_exit(LS_ERUN) : 0;
}
