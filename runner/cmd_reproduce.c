/* runner/cmd_reproduce: 'leversim reproduce' — the paper replay: runs
 * runner/experiments/paper.yaml into a fresh database, prints the summary (tokens/s per
 * configuration and system, Lever's average speedups over ar-flash and specinfer,
 * arithmetic and geometric), then redraws the figures. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "results/db.h"
#include "runner/cli_opts.h"
#include "runner/commands.h"
#include "runner/driver.h"
#include "runner/validate.h"

static const char USAGE[] =
    "usage: leversim reproduce [--quick] [--db FILE] [--out DIR] [--jobs N] [--resume]\n"
    "                          [--no-figures] [--json]\n"
    "Replays the paper (runner/experiments/paper.yaml) into FILE (default results/leversim.db,\n"
    "recreated unless --resume), prints the summary and draws the figures into DIR (default\n"
    "results/figures). --quick: one prompt per configuration and only the 48-configuration\n"
    "main study and the budget sweep (for CI).\n";

typedef struct {
  const char *db, *out;
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

static int summary(const char *db_path, int json, ls_error *err)
{
  ls_db *db = NULL;
  int rc = ls_db_open(&db, db_path, err);
  if (!rc && !json) {
    printf("\nDecode throughput (tokens/s) per configuration and system (part main):\n");
    rc = ls_db_export(db, "throughput", "table", stdout, err);
  }
  if (!rc && !json)
    printf("\nAverage speedup of Lever over each system across the configurations "
           "(arithmetic and geometric mean):\n");
  if (!rc)
    rc = ls_db_export(db, "summary", json ? "json" : "table", stdout, err);
  ls_db_close(db);
  return rc;
}

int ls_cmd_reproduce(int argc, char **argv)
{
  repro_opts o = {"results/leversim.db", "results/figures", 2, 0, 0, 0, 1};
  int rc = parse(argc, argv, &o);
  if (rc)
    return rc == 1 ? 0 : rc;
  char exp_path[1024], hint[4096];
  snprintf(exp_path, sizeof exp_path, "%s/runner/experiments/paper.yaml", ls_data_root());
  ls_resume_hint(hint, sizeof hint, argc, argv);
  ls_error err;
  ls_error_clear(&err);
  ls_experiment *x = NULL;
  int e = ls_experiment_load(&x, exp_path, ls_data_root(), o.quick, NULL, 1, 1, &err);
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
    e = summary(o.db, o.json, &err);
  }
  ls_experiment_free(x);
  if (e) {
    if (e != LS_EINTR)
      ls_error_print(&err, stderr);
    return ls_status_exit(e);
  }
  if (o.figures) {
    char *fargv[] = {"figures", "--db", (char *)o.db, "--out", (char *)o.out, NULL};
    int frc = ls_cmd_figures(5, fargv);
    if (frc)
      fprintf(stderr, "leversim reproduce: figures were not drawn (exit %d); the database is complete\n", frc);
  }
  return sum.failed ? 1 : 0;
}
