/* runner/report/draw: redraws the paper's figures from a results database — each figure's
 * view exported as CSV, gnuplot run on plots/<name>.gp, the claim judged on the data, and
 * <out>/claims.md. The C API behind `leversim figures` and the end of `leversim reproduce`
 * (which calls it directly, with its figure lines sent wherever it wants them). */
#ifndef LS_RUNNER_REPORT_DRAW_H
#define LS_RUNNER_REPORT_DRAW_H
#include <stdio.h>
#include "sim/error.h"

typedef struct ls_draw_opts {
  const char *db_path;      /* borrowed: the results database (read only) */
  const char *out_dir;      /* borrowed: created when missing */
  const char *const *names; /* borrowed: figures to draw ("all" allowed); n_names 0: all */
  int n_names;
  const char *gnuplot;      /* borrowed: program name or path; NULL or "": gnuplot on $PATH */
  FILE *log;                /* borrowed: one line per figure written (NULL: stdout) */
} ls_draw_opts;

typedef struct ls_draw_outcome {
  int plotted;           /* figures drawn */
  int skipped_empty;     /* figures whose view had no rows (their part was not run) */
  int skipped_nognuplot; /* plots skipped because gnuplot was not found (CSV still written) */
  int failed;            /* gnuplot failed on a script (its log is <out>/<name>.log) */
} ls_draw_outcome;

/* 1 when name is a figure (or "all"). */
int ls_draw_known(const char *name);
/* Writes "  name  what it shows" for every figure to f. */
void ls_draw_list(FILE *f);
/* Draws the figures of o. Status: LS_ENOTFOUND database missing, LS_ESCHEMA no ok run in it,
 * LS_EIO output not writable. A figure gnuplot failed on is counted in out->failed, not an
 * error: the others are still drawn. */
int ls_draw(const ls_draw_opts *o, ls_draw_outcome *out, ls_error *err);
/* The process exit status of a draw whose status was rc: prints err (when rc fails) and the
 * note on plots skipped for want of gnuplot, as "leversim <cmd>: ...", to stderr; a failed
 * gnuplot script gives the status of LS_ESTATE (70). */
int ls_draw_exit(const char *cmd, const ls_draw_opts *o, const ls_draw_outcome *n, int rc,
                 const ls_error *err);

/* Appends `name='value'; ` to the gnuplot -e text vars (size bytes), quoting value. */
void ls_draw_var(char *vars, size_t size, const char *name, const char *value);

#endif
