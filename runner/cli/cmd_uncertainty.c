/* runner/cmd_uncertainty: 'leversim uncertainty' — each paper claim's distribution over the
 * plausible values of the replay's open assumptions, the share of samples in which it holds,
 * and the Sobol indices of every assumption (runner/study/uncertainty.h). Writes the tables
 * and views into --db, the figure (plots/uncertainty.gp) into --out. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "runner/decode/paths.h"
#include "runner/report/draw.h"
#include "runner/study/uncertainty.h"
#include "sim/fileio.h"
#include "sim/gnuplot.h"

typedef struct unc_cli {
  const char *ranges, *db, *out, *gnuplot;
  long samples, prompts, tokens, jobs;
  int json, quick, no_figure;
} unc_cli;

static const ls_opt UNC_OPTS[] = {
    {"--samples", LS_OPT_LONG, OPT_AT(unc_cli, samples), "N", "base samples N of the design: N (k + 2) points (default 32)", .lo = 2, .hi = 4096},
    {"--prompts", LS_OPT_LONG, OPT_AT(unc_cli, prompts), "N", "prompts of every run (default 4)", .lo = 1, .hi = 1000},
    {"--tokens", LS_OPT_LONG, OPT_AT(unc_cli, tokens), "N", "tokens of every prompt (default 64)", .lo = 1, .hi = 100000},
    {"--jobs", LS_OPT_LONG, OPT_AT(unc_cli, jobs), "N", "worker processes (default 2; results are identical for any N)", .lo = 1, .hi = 64},
    {"--ranges", LS_OPT_STR, OPT_AT(unc_cli, ranges), "FILE", "the assumptions and their ranges (default runner/experiments/ranges.yaml)"},
    {"--db", LS_OPT_STR, OPT_AT(unc_cli, db), "FILE", "results database for the unc_* tables and views (default results/uncertainty.db)"},
    {"--out", LS_OPT_STR, OPT_AT(unc_cli, out), "DIR", "folder of the figure and its CSV (default results/figures)"},
    {"--no-figure", LS_OPT_FLAG, OPT_AT(unc_cli, no_figure), NULL, "do not draw the figure"},
    {"--gnuplot", LS_OPT_STR, OPT_AT(unc_cli, gnuplot), "PROG", "gnuplot program (default gnuplot on PATH)"},
    {"--quick", LS_OPT_FLAG, OPT_AT(unc_cli, quick), NULL, "one configuration (OnePlus 12, Qwen3-4B, GSM8K): a check that it runs, not a result"},
    {"--json", LS_OPT_FLAG, OPT_AT(unc_cli, json), NULL, "stdout is one JSON document"},
    {NULL}};

static const ls_cmd_spec UNC = {
    "uncertainty", NULL, 0, 0, 0, "how each paper claim depends on the replay's open assumptions (Sobol indices)",
    "Samples the open assumptions of runner/experiments/ranges.yaml jointly (a Sobol sequence,\n"
    "Saltelli's design: N (k + 2) points for k assumptions), replays at every point the 48\n"
    "configurations for each system a claim compares (and Fig. 14's placements), and reports per\n"
    "claim its median and 5-95 % range, p_holds (the share of samples in which the claim's test\n"
    "holds), a verdict (holds / fails at every sample, or depends, naming the assumption whose\n"
    "values part it most and the share holding at each), and each assumption's first-order\n"
    "(Saltelli 2010) and total (Jansen 1999) Sobol index. Runs that a point does not change are\n"
    "shared, so the cost is far below N (k + 2) replays. A progress bar on a terminal.\n",
    NULL, UNC_OPTS};

static int draw(const unc_cli *o, ls_error *err)
{
  size_t len = strlen(o->out) + strlen(ls_data_root()) + 64;
  char *csv = malloc(len), *png = malloc(len), *gp = malloc(len), *log = malloc(len), vars[4096] = "";
  int rc = csv && png && gp && log ? LS_OK : ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  ls_file_out img; /* drawn into a temporary file, renamed over the figure after (sim/fileio.h) */
  if (!rc) {
    snprintf(csv, len, "%s/uncertainty.csv", o->out);
    snprintf(png, len, "%s/uncertainty.png", o->out);
    snprintf(log, len, "%s/uncertainty.log", o->out);
    snprintf(gp, len, "%s/plots/uncertainty.gp", ls_data_root());
    rc = ls_file_out_open(&img, png, "uncertainty --out", "PNG", err);
  }
  if (!rc) {
    ls_draw_var(vars, sizeof vars, "csv", csv);
    ls_draw_var(vars, sizeof vars, "out", ls_file_out_release(&img));
    int g = ls_gnuplot_run(o->gnuplot, vars, gp, log);
    if (g != 0) ls_file_out_abort(&img);
    if (g == LS_GNUPLOT_NOT_FOUND)
      fprintf(stderr, "leversim uncertainty: gnuplot not found: no figure (the CSV is %s)\n", csv);
    else if (g != 0) rc = ls_error_set(err, LS_ESTATE, "gnuplot failed on %s (log: %s)", gp, log);
    else rc = ls_file_out_commit(&img, err);
    if (!rc && g == 0) fprintf(stderr, "leversim uncertainty: figure %s\n", png);
  }
  free(csv), free(png), free(gp), free(log);
  return rc;
}

int ls_cmd_uncertainty(int argc, char **argv)
{
  unc_cli o = {NULL, "results/uncertainty.db", "results/figures", NULL, 32, 4, 64, 2, 0, 0, 0};
  int prc = ls_opts_parse(&UNC, argc, argv, &o, NULL);
  if (prc) return ls_opts_exit(prc);
  ls_error err;
  ls_error_clear(&err);
  size_t len = strlen(ls_data_root()) + 64;
  char *ranges = malloc(len);
  if (!ranges) return ls_status_exit(LS_ENOMEM);
  snprintf(ranges, len, "%s/runner/experiments/ranges.yaml", ls_data_root());
  ls_unc_opts uo = {o.ranges ? o.ranges : ranges, o.db, o.out, (int)o.samples, (int)o.prompts, (int)o.tokens,
                    (int)o.jobs, isatty(STDERR_FILENO), o.quick};
  ls_unc_report *r = NULL;
  int rc = ls_unc_run(&uo, &r, &err);
  if (!rc && o.db) rc = ls_unc_report_write_db(r, o.db, &err);
  if (!rc && o.out && mkdir(o.out, 0777) && errno != EEXIST) rc = ls_error_set(&err, LS_EIO, "%s: %s", o.out, strerror(errno));
  if (!rc && o.out) rc = ls_unc_report_write_csv(r, o.out, &err);
  if (!rc && o.out && !o.no_figure) rc = draw(&o, &err);
  if (!rc) {
    if (o.json) ls_unc_report_json(r, stdout);
    else ls_unc_report_print(r, stdout);
  }
  if (rc) ls_error_print(&err, stderr);
  ls_unc_report_free(r);
  free(ranges);
  return rc ? ls_status_exit(rc) : 0;
}
