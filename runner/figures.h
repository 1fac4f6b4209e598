/* runner/figures: the paper's claims behind each figure of `leversim figures`, and their
 * verdicts computed from the data a figure plots (runner/cmd_figures.c).
 *
 * Each figure that reproduces a claim of the paper carries, in one table in cmd_figures.c,
 * the claim's text and its test: what "holds" means in numbers on the figure's own CSV (the
 * view it plots, as written to <out>/<name>.csv). The command prints the claim and the
 * verdict on the figure's face and collects them in <out>/claims.md. */
#ifndef LS_RUNNER_FIGURES_H
#define LS_RUNNER_FIGURES_H
#include <stddef.h>
#include "sim/error.h"

/* A verdict: holds 1 (the data show the claim), 0 (they do not), -1 (no claim of the paper
 * to check, or no data to check it on); text: the numbers, and the reason when it fails. */
typedef struct ls_verdict {
  int holds;
  char text[320];
} ls_verdict;

/* The claim of figure fig ("fig04", "fig05", "fig10".."fig14", "table1", "energy",
 * "sensitivity") as printed on it, and its test; NULL for a figure without an entry. */
const char *ls_figures_claim(const char *fig);
const char *ls_figures_test(const char *fig);

/* Judges figure fig's claim on its CSV text (csv, len bytes; header row first, columns by
 * name, as `leversim figures` writes it) into *v. LS_ENOTFOUND for a figure without an
 * entry, LS_EPARSE for a malformed CSV; a CSV lacking a column the test reads is a verdict
 * with holds -1 that names the column, not an error. */
int ls_figures_judge(const char *fig, const char *csv, size_t len, ls_verdict *v, ls_error *err);

#endif
