/* runner/cmd_sweep: 'leversim sweep EXPERIMENT.yaml' — run an experiment into SQLite. */
#include <stdio.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/study/driver.h"
#include "runner/study/validate.h"

static const char USAGE[] =
    "usage: leversim sweep [EXPERIMENT.yaml] [--axis KEY=V1,V2,...]... [--set key=value]...\n"
    "                      [--jobs N] [--shard i/N] [--db FILE] [--force] [--quick] [--steps]\n"
    "                      [--check]\n"
    "Runs every run of the experiment's matrix x sweep axes into the database (default\n"
    "results/<experiment>.db; without a file results/sweep.db). Results are identical for\n"
    "any --jobs. --shard i/N runs a fixed 1/N of the runs (merge shards with 'leversim merge').\n"
    "--axis KEY=V1,V2,... sweeps a setting (every value x every other axis); device=, model=,\n"
    "dataset= and system= axes list names. Without EXPERIMENT.yaml the four names axes are\n"
    "required and the settings, seed and sizing are those of `leversim run` (the paper\n"
    "experiment's): each point is the run `leversim run --set KEY=V` makes. With a file, a\n"
    "names axis replaces that list in every part; a setting axis replaces or adds a sweep.\n"
    "Every --set and axis is recorded as an axis of the run (leversim plot --x KEY).\n"
    "Runs already in the database with the same settings and seed are not run again (counted\n"
    "as already done; --resume is the same); --force runs them again. Every run is checked\n"
    "(names, settings, values) before the database is created; --check only checks and\n"
    "writes nothing. docs/EXPERIMENTS.md documents the experiment file.\n";

static int parse_shard(const char *text, int *i, int *n)
{
  char tail;
  return sscanf(text, "%d/%d%c", i, n, &tail) == 2 && *n >= 1 && *i >= 1 && *i <= *n ? 0 : -1;
}

/* "--axis KEY=V1,V2,...": KEY -> "V1,V2,..." in axes, its origin the argument's position; a
 * key given twice or without values is a usage error. */
static int add_axis(ls_kv *axes, const char *text, int argpos)
{
  const char *eq = strchr(text, '=');
  char key[128], origin[48];
  if (!eq || eq == text || !eq[1] || (size_t)(eq - text) >= sizeof key)
    return ls_usage_error("sweep", "--axis '%s': expected KEY=V1,V2,... (e.g. draft.budget=4,8,16)", text);
  snprintf(key, sizeof key, "%.*s", (int)(eq - text), text);
  if (ls_kv_has(axes, key))
    return ls_usage_error("sweep", "--axis %s is given twice (list every value in one --axis)", key);
  snprintf(origin, sizeof origin, "argument %d (--axis)", argpos);
  ls_error err;
  if (ls_kv_set(axes, key, eq + 1, origin, &err)) {
    ls_error_print(&err, stderr);
    return -1;
  }
  return 0;
}

int ls_cmd_sweep(int argc, char **argv)
{
  const char *exp_path = NULL, *db_path = NULL, *v;
  long jobs = 1;
  int shard_i = 1, shard_n = 1, force = 0, quick = 0, steps = 0, check = 0, rc = 0;
  ls_error err;
  ls_error_clear(&err);
  ls_kv *kv = NULL, *axes = NULL;
  if (ls_kv_create(&kv, &err) || ls_kv_create(&axes, &err)) {
    ls_kv_free(kv);
    return ls_status_exit(err.code);
  }
  for (int i = 1; i < argc && rc == 0; i++) {
    int m;
    if (strcmp(argv[i], "--help") == 0) {
      fputs(USAGE, stdout);
      ls_kv_free(kv);
      ls_kv_free(axes);
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
    } else if ((m = ls_opt_value("sweep", argc, argv, &i, "--axis", &v))) {
      rc = (m < 0 || add_axis(axes, v, i + 1)) ? 64 : 0;
    } else if (strcmp(argv[i], "--resume") == 0) {
      force = 0; /* the default: finished runs are skipped */
    } else if (strcmp(argv[i], "--force") == 0) {
      force = 1;
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
  if (rc == 0 && !exp_path && ls_kv_count(axes) == 0)
    rc = ls_usage_error("sweep", "an experiment file or --axis is required");
  if (rc) {
    ls_kv_free(kv);
    ls_kv_free(axes);
    return rc;
  }
  ls_experiment *x = NULL;
  ls_study_args a = {exp_path, ls_data_root(), quick, kv, axes, shard_i, shard_n};
  int e = ls_experiment_open(&x, &a, &err);
  if (!e) /* every run is checked before the database exists */
    e = ls_validate_runs(x, &err);
  if (!e && check) {
    fprintf(stderr, "leversim sweep: %d runs checked, nothing written\n", ls_experiment_count(x));
    ls_experiment_free(x);
    ls_kv_free(kv);
    ls_kv_free(axes);
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
    ls_driver_opts o = {db_path, ls_data_root(), hint, (int)jobs, !force, steps, 0};
    e = ls_driver_run(x, &o, &sum, &err);
    if (!e || e == LS_EINTR)
      fprintf(stderr, "leversim sweep: %d runs (%d ok, %d not valid here, %d failed, %d already done) in %.1f s -> %s\n",
              sum.total, sum.ok, sum.invalid, sum.failed, sum.skipped, sum.wall_s, db_path);
    if ((!e || e == LS_EINTR) && sum.skipped)
      fprintf(stderr, "leversim sweep: %d run%s already in %s with the same settings and seed: not "
              "run again (--force runs them again)\n", sum.skipped, sum.skipped == 1 ? " was" : "s were",
              db_path);
  }
  if (e && e != LS_EINTR)
    ls_error_print(&err, stderr);
  ls_experiment_free(x);
  ls_kv_free(kv);
  ls_kv_free(axes);
  if (e)
    return ls_status_exit(e);
  return sum.failed ? 1 : 0;
}
