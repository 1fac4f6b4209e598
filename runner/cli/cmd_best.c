/* runner/cli/cmd_best: 'leversim best' — which value of a setting wins, per group, with its
 * interval and the values within it (runner/report/best.h). */
#include <stdio.h>
#include <string.h>
#include "results/db.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/report/best.h"

typedef struct best_opts {
  const char *db, *y, *over, *format;
  ls_opt_list by;
  int lower;
} best_opts;

static const ls_opt BEST_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(best_opts, db), "FILE", "results database (read only)", .flags = LS_OPT_REQUIRED},
    {"--y", LS_OPT_STR, OPT_AT(best_opts, y), "METRIC", "the metric to compare (throughput_tps, tau, energy_per_token_j, ...)", .flags = LS_OPT_REQUIRED},
    {"--over", LS_OPT_STR, OPT_AT(best_opts, over), "KEY", "the setting (or name column) whose best value is sought", .flags = LS_OPT_REQUIRED},
    {"--by", LS_OPT_MULTI, OPT_AT(best_opts, by), "KEY", "one answer per value of this key (repeatable: per combination)"},
    {"--lower", LS_OPT_FLAG, OPT_AT(best_opts, lower), NULL, "lower is better (energy, latency)"},
    {"--format", LS_OPT_CHOICE, OPT_AT(best_opts, format), "F", "table (default), csv or json", .choices = "table,csv,json"},
    {NULL}};

static const ls_cmd_spec BEST = {
    "best", NULL, 0, 0, 0, "which value of a setting wins: the best, its interval, the values within it",
    "Per group (--by), compares the values of --over on the configurations that have a run at\n"
    "every value (same part, device, model, dataset, system and other swept settings). Score:\n"
    "the geometric mean of the metric over those configurations; the best has the highest\n"
    "(--lower: lowest). Every value's ratio to the best is paired over the same prompts and\n"
    "gets a 95 % bootstrap interval (docs/STATISTICS.md); \"within\" means that interval holds\n"
    "1: the data cannot tell the value from the best. When every value gives the same metric\n"
    "on every prompt of every configuration, the values tie and no best is named (a cap the\n"
    "policy never reached, a setting the system does not read). Seeds, prompt counts or\n"
    "tokens per prompt that differ between the compared runs, and configurations left out,\n"
    "are noted per group.\n"
    "Example, after a sweep over budgets:\n"
    "  leversim best --db b.db --y throughput_tps --over draft.budget --by device\n",
    NULL, BEST_OPTS};

int ls_cmd_best(int argc, char **argv)
{
  best_opts o;
  memset(&o, 0, sizeof o);
  o.format = "table";
  int rc = ls_opts_parse(&BEST, argc, argv, &o, NULL);
  if (rc)
    return ls_opts_exit(rc);
  ls_best_query q = {o.y, o.over, o.by.v, o.by.n, o.lower};
  ls_error err;
  ls_error_clear(&err);
  ls_db *db = NULL;
  rc = ls_db_open_read(&db, o.db, &err);
  if (!rc) rc = ls_best_run(db, &q, o.format, stdout, &err);
  if (rc) ls_error_print(&err, stderr);
  ls_db_close(db);
  return rc ? ls_status_exit(rc) : 0;
}
