/* runner/cli/cmd_plot: 'leversim plot' — any metric against any setting of a results database,
 * with 95 % intervals: parses the command line and calls the report API (runner/report/plot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/db.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/report/plot.h"

static const char USAGE[] =
    "usage: leversim plot --db DB --x KEY --y METRIC [--by KEY] [--where KEY=VALUE]...\n"
    "                     (--out FILE.png | --format csv)\n"
    "Draws METRIC against KEY, one point per run of DB, each with its 95 % interval (bootstrap\n"
    "over prompts), one line per value of --by; --format csv prints the same table instead.\n"
    "KEY: part, device, model, dataset, system, seed, or any setting key (its resolved value:\n"
    "given, swept or defaulted; e.g. draft.budget). METRIC: a metric of v_runs (tps is\n"
    "throughput_tps). --where keeps the runs whose KEY is VALUE (as written, or the same\n"
    "number). Two runs at one point are refused: add --where or --by. Beside FILE.png the\n"
    "data gnuplot read is kept as FILE.png.dat. Example, after a sweep over budgets:\n"
    "  leversim plot --db b.db --x draft.budget --y tps --by device --out b.png\n";

typedef struct plot_args {
  const char *db, *out, *format;
  ls_plot_query q;
  const char *where[8];
} plot_args;

static int parse(int argc, char **argv, plot_args *a)
{
  for (int i = 1; i < argc; i++) {
    const char *v;
    int m;
    if (strcmp(argv[i], "--help") == 0) {
      fputs(USAGE, stdout);
      return -1;
    } else if ((m = ls_opt_value("plot", argc, argv, &i, "--db", &a->db)) ||
               (m = ls_opt_value("plot", argc, argv, &i, "--x", &a->q.x)) ||
               (m = ls_opt_value("plot", argc, argv, &i, "--y", &a->q.y)) ||
               (m = ls_opt_value("plot", argc, argv, &i, "--by", &a->q.by)) ||
               (m = ls_opt_value("plot", argc, argv, &i, "--out", &a->out)) ||
               (m = ls_opt_value("plot", argc, argv, &i, "--format", &a->format))) {
      if (m < 0) return 64;
    } else if ((m = ls_opt_value("plot", argc, argv, &i, "--where", &v))) {
      if (m < 0) return 64;
      if (a->q.n_where == 8) return ls_usage_error("plot", "at most 8 --where filters");
      a->where[a->q.n_where++] = v;
    } else {
      return ls_usage_error("plot", "unknown option '%s'", argv[i]);
    }
  }
  if (!a->db || !a->q.x || !a->q.y)
    return ls_usage_error("plot", "--db, --x and --y are required");
  if (a->format && strcmp(a->format, "csv"))
    return ls_usage_error("plot", "--format: '%s' (the only format is csv; --out FILE.png draws)", a->format);
  if (!a->format && !a->out)
    return ls_usage_error("plot", "--out FILE.png or --format csv is required");
  a->q.where = a->where;
  return 0;
}

int ls_cmd_plot(int argc, char **argv)
{
  plot_args a;
  memset(&a, 0, sizeof a);
  int st = parse(argc, argv, &a);
  if (st) return st < 0 ? 0 : st;
  ls_error err;
  ls_error_clear(&err);
  ls_db *db = NULL;
  ls_plot_table t = {NULL, 0, 0};
  int rc = ls_db_open_read(&db, a.db, &err);
  if (!rc) rc = ls_plot_read(db, &a.q, &t, &err);
  if (!rc && a.format) rc = ls_plot_write_csv(&t, &a.q, stdout, &err);
  if (!rc && a.out) rc = ls_plot_draw(&t, &a.q, a.db, a.out, ls_data_root(), getenv("LEVERSIM_GNUPLOT"), &err);
  if (!rc && a.out) fprintf(stderr, "leversim plot: %d point%s -> %s\n", t.n, t.n == 1 ? "" : "s", a.out);
  if (rc) ls_error_print(&err, stderr);
  ls_plot_table_free(&t);
  ls_db_close(db);
  return rc ? ls_status_exit(rc) : 0;
}
