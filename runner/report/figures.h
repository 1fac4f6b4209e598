/* runner/figures: the paper's claims behind each figure of `leversim figures`, and their
 * verdicts computed from the data a figure plots (the command is runner/cli/cmd_figures.c).
 *
 * Each figure that reproduces a claim of the paper carries, in one table in figures.c,
 * the claim's text and its test: what "holds" means in numbers on the figure's own CSV (the
 * view it plots, as written to <out>/<name>.csv). The command prints the claim and the
 * verdict on the figure's face and collects them in <out>/claims.md. */
#ifndef LS_RUNNER_FIGURES_H
#define LS_RUNNER_FIGURES_H
#include <stddef.h>
#include <stdio.h>
#include "runner/report/csvtab.h"
#include "sim/error.h"

/* A verdict: holds 1 (the data show the claim), 0 (they do not), -1 (no claim of the paper
 * to check, or no data to check it on); text: the numbers, and the reason when it fails. */
typedef struct ls_verdict {
  int holds;
  char text[320];
  double value, lo, hi; /* the claim's number (ls_figures_cell says what it is) and its 95 %
                           interval over the configurations (t, configurations as the units);
                           NaN when the test has none */
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
/* The same on a parsed table; returns fig's entry index (below), -1 without an entry (v
 * untouched). */
int ls_figures_judge_table(const char *fig, const ls_csvtab *t, ls_verdict *v);

/* The entries in table order: ls_figures_count() of them, entry i for figure
 * ls_figures_name(i); ls_figures_index(fig) is fig's entry, -1 when it has none.
 * ls_figures_from_paper: 1 when fig's entry is a claim of the paper, 0 when it is beyond the
 * paper or has no entry. */
int ls_figures_count(void);
const char *ls_figures_name(int i);
int ls_figures_index(const char *fig);
int ls_figures_from_paper(const char *fig);

/* The regime map (beyond the paper): each claim of ls_figures_regime_claim(i) (NULL past the
 * last) judged by its figure's own test under each assumption the paper leaves open. The
 * default column is the figures' verdicts (defaults[k] for claim k of the claim table, used
 * when judged[k]), else the same test on the view's own 'default' rows (the regime study's
 * first case, runner/experiments/regime.yaml); every other column applies the same test to the
 * rows of view regime (results/schema.c) of that assumption. Writes CSV to out: row, col, fig, claim, cell,
 * column, is_default, value, lo, hi, holds, one line per claim and column. */
const char *ls_figures_regime_claim(int i);
const char *ls_figures_cell(const char *fig); /* what a claim's number is ("Lever / AR (flash)") */
int ls_figures_regime_map(const ls_csvtab *regime, const ls_verdict *defaults, const int *judged,
                          FILE *out, ls_error *err);

/* The paper's numbers printed beside the simulated ones. Table 1 (src:lever-notes): target k's
 * I/O share in percent (< 0: the paper gives none) and a label; 0 past the last target.
 * Lever's mean speedup over system in Fig. 10 (src:lever-paper), -1 when the paper gives none. */
int ls_figures_paper_io(int k, const char **model, double *percent, const char **label);
double ls_figures_paper_speedup(const char *system);

/* Table 1's rows in view table1: the part that stands for the paper's table (the dedicated
 * part "table1" when present, else "main"), and the row of (part, model), -1 when none. */
const char *ls_figures_table1_part(const ls_csvtab *t);
int ls_figures_table1_row(const ls_csvtab *t, const char *part, const char *model);

#endif
