/* runner/cli/cmd_plot: 'leversim plot' — any metric against any setting of a results database,
 * with 95 % intervals: parses the command line and calls the report API (runner/report/plot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/db.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/report/plot.h"

typedef struct plot_opts {
  const char *db, *x, *y, *out, *format;
  ls_opt_list where, by, panel;
} plot_opts;

static const ls_opt PLOT_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(plot_opts, db), "FILE", "results database (read only)", .flags = LS_OPT_REQUIRED},
    {"--x", LS_OPT_STR, OPT_AT(plot_opts, x), "KEY", "the x axis: part, device, model, dataset, system, seed or a setting key", .flags = LS_OPT_REQUIRED},
    {"--y", LS_OPT_STR, OPT_AT(plot_opts, y), "METRIC", "a metric of v_runs (tps is throughput_tps)", .flags = LS_OPT_REQUIRED},
    {"--by", LS_OPT_MULTI, OPT_AT(plot_opts, by), "KEY", "one line (colour) per value of this key; repeatable: per combination"},
    {"--panel", LS_OPT_MULTI, OPT_AT(plot_opts, panel), "KEY", "one panel per value of this key; repeatable: per combination"},
    {"--where", LS_OPT_MULTI, OPT_AT(plot_opts, where), "KEY=VALUE", "keep the runs whose KEY is VALUE (as written, or the same number); repeatable"},
    {"--out", LS_OPT_STR, OPT_AT(plot_opts, out), "FILE.png", "draw into this PNG (the data gnuplot read is kept as FILE.png.dat)"},
    {"--format", LS_OPT_CHOICE, OPT_AT(plot_opts, format), "csv", "print the table instead of drawing", .choices = "csv"},
    {NULL}};

static const ls_cmd_spec PLOT = {
    "plot", NULL, 0, 0, 0, "draw any metric against any setting of a database, with 95 % intervals",
    "One point per run of the database, each with its 95 % interval over the prompts (none\n"
    "below 5 prompts), one line (colour) per value of --by and one panel per value of --panel;\n"
    "several --by (or --panel) keys take every combination of their values, never the last key\n"
    "alone. A KEY is a name column of the run or a setting key: the run's resolved value, given,\n"
    "swept or defaulted. Two runs at one point are refused: add --where, --by or --panel. One of\n"
    "--out and --format is required. Example, after a sweep over budgets:\n"
    "  leversim plot --db b.db --x draft.budget --y tps --by system --panel device --out b.png\n",
    NULL, PLOT_OPTS};

int ls_cmd_plot(int argc, char **argv)
{
  plot_opts o;
  memset(&o, 0, sizeof o);
  int rc = ls_opts_parse(&PLOT, argc, argv, &o, NULL);
  if (rc)
    return ls_opts_exit(rc);
  if (!o.out && !o.format)
    return ls_usage_error("plot", "--out FILE.png or --format csv is required");
  if (o.where.n > 8)
    return ls_usage_error("plot", "at most 8 --where filters");
  if (o.by.n > LS_PLOT_KEYS_MAX || o.panel.n > LS_PLOT_KEYS_MAX)
    return ls_usage_error("plot", "at most %d --by and %d --panel keys", LS_PLOT_KEYS_MAX, LS_PLOT_KEYS_MAX);
  ls_plot_query q = {o.x, o.y, NULL, o.where.v, o.where.n, o.by.v, o.by.n, o.panel.v, o.panel.n};
  ls_error err;
  ls_error_clear(&err);
  ls_db *db = NULL;
  ls_plot_table t = {NULL, 0, 0};
  rc = ls_db_open_read(&db, o.db, &err);
  if (!rc) rc = ls_plot_read(db, &q, &t, &err);
  if (!rc && o.format) rc = ls_plot_write_csv(&t, &q, stdout, &err);
  if (!rc && o.out) rc = ls_plot_draw(&t, &q, o.db, o.out, ls_data_root(), getenv("LEVERSIM_GNUPLOT"), &err);
  if (!rc && o.out) fprintf(stderr, "leversim plot: %d point%s -> %s\n", t.n, t.n == 1 ? "" : "s", o.out);
  if (rc) ls_error_print(&err, stderr);
  ls_plot_table_free(&t);
  ls_db_close(db);
  return rc ? ls_status_exit(rc) : 0;
}
