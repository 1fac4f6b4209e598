/* runner/cli/cmd_figures: 'leversim figures [--db FILE] [--out DIR] [NAME...]'.
 * Parses the command line and calls the report API (runner/report/draw.h), which does the
 * work and documents the failure policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/report/draw.h"

typedef struct figures_opts {
  ls_opt_list names;
  const char *db, *out;
} figures_opts;

static const ls_opt FIGURES_OPTS[] = {
    {"--db", LS_OPT_STR, OPT_AT(figures_opts, db), "FILE", "results database (default results/leversim.db)"},
    {"--out", LS_OPT_STR, OPT_AT(figures_opts, out), "DIR", "output folder (default results/figures)"},
    {NULL}};

static void figure_names(FILE *f)
{
  fprintf(f, "Figures (NAME; default every one):\n");
  ls_draw_list(f);
}

static const ls_cmd_spec FIGURES = {
    "figures", "[NAME...]", 0, -1, OPT_AT(figures_opts, names),
    "redraw the paper's figures from a results database",
    "Exports each figure's view as CSV into DIR and draws it with gnuplot (PNG 1200x800 and\n"
    "SVG), scripts in plots/. Each figure prints the paper's claim it reproduces and the\n"
    "verdict on its data; DIR/claims.md lists them with their tests. Exit: 0 ok (also when\n"
    "gnuplot is missing: plots skipped with a note), 64 usage, 65 database without ok runs,\n"
    "66 database missing, 70 gnuplot failed (see DIR/NAME.log), 74 output not writable.\n"
    "$LEVERSIM_GNUPLOT overrides the program; it runs without start-up files (-d) and is\n"
    "stopped after 120 s ($LEVERSIM_GNUPLOT_LIMIT seconds); a statement on --db ends after\n"
    "600 s ($LEVERSIM_DB_READ_LIMIT).\n",
    figure_names, FIGURES_OPTS};

int ls_cmd_figures(int argc, char **argv)
{
  figures_opts o = {.db = "results/leversim.db", .out = "results/figures"};
  int rc = ls_opts_parse(&FIGURES, argc, argv, &o, NULL);
  if (rc)
    return ls_opts_exit(rc);
  for (int i = 0; i < o.names.n; i++)
    if (!ls_draw_known(o.names.v[i]))
      return ls_usage_error("figures", "unknown figure '%s' (see the list in --help)", o.names.v[i]);
  ls_draw_opts d = {o.db, o.out, o.names.v, o.names.n, getenv("LEVERSIM_GNUPLOT"), stdout};
  ls_error err;
  ls_error_clear(&err);
  ls_draw_outcome n;
  rc = ls_draw(&d, &n, &err);
  return ls_draw_exit("figures", &d, &n, rc, &err);
}
