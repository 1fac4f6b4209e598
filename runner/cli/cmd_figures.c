/* runner/cli/cmd_figures: 'leversim figures [--db FILE] [--out DIR] [NAME...]'.
 * Parses the command line and calls the report API (runner/report/draw.h), which does the
 * work and documents the failure policy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/report/draw.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: leversim figures [--db FILE] [--out DIR] [NAME...]\n"
             "Exports each figure's view as CSV into DIR and draws it with gnuplot (PNG 1200x800\n"
             "and SVG), scripts in plots/. Defaults: --db results/leversim.db, --out\n"
             "results/figures, every figure. Names:\n");
  ls_draw_list(f);
  fprintf(f, "Each figure prints the paper's claim it reproduces and the verdict on its data;\n"
             "DIR/claims.md lists them with their tests.\n");
  fprintf(f, "Exit: 0 ok (also when gnuplot is missing: plots skipped with a note), 64 usage,\n"
             "65 database without ok runs, 66 database missing, 70 gnuplot failed (see\n"
             "DIR/NAME.log), 74 output not writable. $LEVERSIM_GNUPLOT overrides the program.\n");
}

static int parse_args(int argc, char **argv, const char **db, const char **out, const char **names,
                      int *n_names)
{
  *n_names = 0;
  for (int i = 1; i < argc; i++) {
    int r;
    if ((r = ls_opt_value("figures", argc, argv, &i, "--db", db)) ||
        (r = ls_opt_value("figures", argc, argv, &i, "--out", out))) {
      if (r < 0) return 64;
      continue;
    }
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return -1;
    }
    if (argv[i][0] == '-') return ls_usage_error("figures", "unknown option '%s'", argv[i]);
    if (!ls_draw_known(argv[i]))
      return ls_usage_error("figures", "unknown figure '%s' (see the list in --help)", argv[i]);
    names[(*n_names)++] = argv[i];
  }
  return 0;
}

int ls_cmd_figures(int argc, char **argv)
{
  ls_draw_opts o = {"results/leversim.db", "results/figures", NULL, 0, getenv("LEVERSIM_GNUPLOT"), stdout};
  const char **names = calloc((size_t)argc + 1, sizeof *names);
  if (!names) return 70;
  int st = parse_args(argc, argv, &o.db_path, &o.out_dir, names, &o.n_names);
  if (st) {
    free(names);
    return st < 0 ? 0 : st;
  }
  o.names = names;
  ls_error err;
  ls_error_clear(&err);
  ls_draw_outcome n;
  int rc = ls_draw(&o, &n, &err);
  free(names);
  return ls_draw_exit("figures", &o, &n, rc, &err);
}
