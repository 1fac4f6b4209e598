/* runner/cmd_sweep: 'leversim sweep EXPERIMENT.yaml' — run an experiment into SQLite. */
#include <stdio.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

static const char USAGE[] =
    "usage: leversim sweep EXPERIMENT.yaml [--jobs N] [--shard i/N] [--db FILE] [--resume]\n"
    "                      [--quick] [--set key=value]... [--steps] [--check]\n"
    "Runs every run of the experiment's matrix x sweep axes into the database (default\n"
    "results/<experiment>.db). Results are identical for any --jobs. --shard i/N runs a fixed\n"
    "1/N of the runs (merge shards with 'leversim merge'). --resume skips finished runs.\n"
    "Every run is checked (names, settings, values) before the database is created; --check\n"
    "only checks and writes nothing.\n";

static int parse_shard(const char *text, int *i, int *n)
{
  char tail;
  return sscanf(text, "%d/%d%c", i, n, &tail) == 2 && *n >= 1 && *i >= 1 && *i <= *n ? 0 : -1;
}

int ls_cmd_sweep(int argc, char **argv)
{
  const char *exp_path = NULL, *db_path = NULL, *v;
  long jobs = 1;
  int shard_i = 1, shard_n = 1, resume = 0, quick = 0, steps = 0, check = 0, rc = 0;
  ls_error err;
  ls_error_clear(&err);
  ls_kv *kv = NULL;
  if (ls_kv_create(&kv, &err))
    return ls_status_exit(err.code);
  for (int i = 1; i < argc && rc == 0; i++) {
    int m;
    if (strcmp(argv[i], "--help") == 0) {
      fputs(USAGE, stdout);
      ls_kv_free(kv);
      return 0;
    } else if ((m = ls_opt_value("sweep", argc, argv, &i, "--db", &db_path))) {
      rc = m < 0 ? 64 : 0;
    } else if ((m = ls_opt_value("sweep", argc, argv, &i, "--jobs", &v))) {
      rc = (m < 0 || ls_opt_long("sweep", "--jobs", v, 1, 64, &jobs)) ? 64 : 0;
    } else if ((m = ls_opt_value("sweep", argc, argv, &i, "--shard", &v))) {
      if (m < 0 || parse_shard(v, &shard_i, &shard_n))
        rc = ls_usage_error("sweep", "--shard: bad value '%s' (expected i/N with 1 <= i <= N)", m < 0 ? "" : v);
    } else if ((m = ls_opt_value("sweep", argc, argv, &i, "--set", &v))) {
      rc = (m < 0 || ls_opt_set("sweep", kv, v, i + 1)) ? 64 : 0;
    } else if (strcmp(argv[i], "--resume") == 0) {
      resume = 1;
    } else if (strcmp(argv[i], "--quick") == 0) {
      quick = 1;
    } else if (strcmp(argv[i], "--steps") == 0) {
      steps = 1;
    } else if (strcmp(argv[i], "--check") == 0) {
      check = 1;
    } else if (argv[i][0] == '-' || exp_path) {
      rc = ls_usage_error("sweep", "unexpected argument '%s'", argv[i]);
    } else {
      exp_path = argv[i];
    }
  }
  if (rc == 0 && !exp_path)
    rc = ls_usage_error("sweep", "an experiment file is required");
  if (rc) {
    ls_kv_free(kv);
    return rc;
  }
  ls_experiment *x = NULL;
  int e = ls_experiment_load(&x, exp_path, ls_data_root(), quick, kv, shard_i, shard_n, &err);
  if (!e) /* every run is checked before the database exists */
    e = ls_validate_runs(x, &err);
  if (!e && check) {
    fprintf(stderr, "leversim sweep: %d runs checked, nothing written\n", ls_experiment_count(x));
    ls_experiment_free(x);
    ls_kv_free(kv);
    return 0;
  }
  char dbbuf[512], hint[4096];
  if (!e && !db_path) {
    snprintf(dbbuf, sizeof dbbuf, "results/%s.db", ls_experiment_name(x));
    db_path = dbbuf;
  }
  ls_driver_summary sum;
  if (!e) {
    ls_resume_hint(hint, sizeof hint, argc, argv);
    ls_driver_opts o = {db_path, ls_data_root(), hint, (int)jobs, resume, steps, 0, 0, "sweep", NULL};
    e = ls_driver_run(x, &o, &sum, &err);
    if (!e || e == LS_EINTR)
      fprintf(stderr, "leversim sweep: %d runs (%d ok, %d not valid here, %d failed, %d already done) in %.1f s -> %s\n",
              sum.total, sum.ok, sum.invalid, sum.failed, sum.skipped, sum.wall_s, db_path);
  }
  if (e && e != LS_EINTR)
    ls_error_print(&err, stderr);
  ls_experiment_free(x);
  ls_kv_free(kv);
  if (e)
    return ls_status_exit(e);
  return sum.failed ? 1 : 0;
}
