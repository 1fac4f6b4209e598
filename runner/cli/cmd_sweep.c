/* runner/cmd_sweep: 'leversim sweep EXPERIMENT.yaml' — run an experiment into SQLite. */
#include <stdio.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

typedef struct sweep_opts {
  ls_opt_list args; /* the experiment file */
  const char *db;
  long jobs;
  int shard[2]; /* i of N */
  int resume, quick, steps, check;
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
    {"--resume", LS_OPT_FLAG, OPT_AT(sweep_opts, resume), NULL, "skip the runs the database already holds"},
    {"--quick", LS_OPT_FLAG, OPT_AT(sweep_opts, quick), NULL, "only the parts without quick: false, with their quick: sizes"},
    {"--set", LS_OPT_SET, 0, "key=value", "a setting for every run (see 'leversim settings')"},
    {"--steps", LS_OPT_FLAG, OPT_AT(sweep_opts, steps), NULL, "store each run's per-cycle series"},
    {"--check", LS_OPT_FLAG, OPT_AT(sweep_opts, check), NULL, "only check every run (names, settings, values); write nothing"},
    {NULL}};

static const ls_cmd_spec SWEEP = {
    "sweep", "EXPERIMENT.yaml", 1, 1, OPT_AT(sweep_opts, args),
    "run an experiment file (matrix x sweep axes) into SQLite",
    "Runs every run of the experiment's matrix x sweep axes into the database. --shard i/N\n"
    "runs a fixed 1/N of the runs (merge shards with 'leversim merge'). Every run is checked\n"
    "(names, settings, values) before the database is created.\n",
    NULL, SWEEP_OPTS};

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
  ls_driver_opts d = {db, ls_data_root(), hint, (int)o->jobs, o->resume, o->steps, 0, 0, "sweep", NULL};
  int e = ls_driver_run(x, &d, sum, err);
  if (!e || e == LS_EINTR)
    fprintf(stderr, "leversim sweep: %d runs (%d ok, %d not valid here, %d failed, %d already done) in %.1f s -> %s\n",
            sum->total, sum->ok, sum->invalid, sum->failed, sum->skipped, sum->wall_s, db);
  return e;
}

int ls_cmd_sweep(int argc, char **argv)
{
  sweep_opts o = {.jobs = 1, .shard = {1, 1}};
  ls_error err;
  ls_error_clear(&err);
  ls_kv *kv = NULL;
  int e = ls_kv_create(&kv, &err);
  if (!e && (e = ls_opts_parse(&SWEEP, argc, argv, &o, kv)) != LS_OK) {
    ls_kv_free(kv);
    return ls_opts_exit(e);
  }
  ls_experiment *x = NULL;
  ls_driver_summary sum = {0};
  if (!e)
    e = ls_experiment_load(&x, o.args.v[0], ls_data_root(), o.quick, kv, o.shard[0], o.shard[1], &err);
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
  return e ? ls_status_exit(e) : sum.failed ? ls_status_exit(LS_ERUN) : 0;
}
