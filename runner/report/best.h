/* runner/report/best: which value of a setting wins — `leversim best`.
 *
 * For a metric y over a key (a setting or name column), grouped by other keys: in each group
 * the runs are matched by configuration (part, device, model, dataset, system and the other
 * swept settings), and only the configurations that have a run at every value are compared.
 * A value's score is the geometric mean of y over those configurations; the best value has
 * the highest (--lower: lowest). Each other value is compared with the best by the geometric
 * mean of its ratio to the best, paired over the same prompts (prompt j is the same text in
 * every run of one seed; runs of different sizes pair their first min(n) prompts) with the
 * percentile bootstrap of docs/STATISTICS.md (sim/boot.h, one list of prompt indices per
 * replicate for all configurations). A value is "within the interval of the best" when that
 * ratio's 95 % interval contains 1. Values whose per-prompt parts of y are the best's bit for
 * bit in every compared configuration are "the same as the best"; when every value is, the
 * values tie and no best is named (table: "no best"; csv: no row marked best; json: best null,
 * tie true). Differences between the compared runs that make the
 * pairing weaker or the comparison unfair (seeds, prompts, tokens per prompt, missing
 * configurations, several runs in one cell) are reported with the group. */
#ifndef LS_RUNNER_REPORT_BEST_H
#define LS_RUNNER_REPORT_BEST_H
#include <stdio.h>
#include "results/db.h"

typedef struct ls_best_query {
  const char *y;              /* metric with a per-prompt definition (ls_db_metric_parts) */
  const char *over;           /* the key whose best value is sought */
  const char *const *by;      /* group keys (borrowed) */
  int n_by;
  int lower;                  /* 1: lower is better */
} ls_best_query;

/* Writes the answer to out as "table", "csv" or "json". LS_EUSAGE for a key or metric no run
 * has, LS_ENOTFOUND when no ok run has the metric. */
int ls_best_run(ls_db *db, const ls_best_query *q, const char *format, FILE *out, ls_error *err);

#endif
