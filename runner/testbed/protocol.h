/* runner/testbed/protocol: the testbed's pre-registered protocol (runner/testbed/protocol.yaml,
 * docs/VALIDATION.md §0): its configurations (what scripts/testbed/run.sh measures), and the
 * verdict over the held-out points every configuration's validation wrote (validate --points):
 *   N  every held-out point that is no near-copy of a calibration pass, over K point files;
 *   X  the median of |predicted / measured - 1| over them; Y the same for the trivial baseline;
 *   Z  sum of the predicted speculative times per token / the same measured - 1 (signed);
 * targets met when K >= configurations_min, X <= median_max, X <= baseline_ratio_max x Y and
 * |Z| <= spec_max, and every file has a held-out point (a configuration whose calibration was
 * refused writes a file with none: it counts among the K and is a missed target). The verdict's last line is the protocol's one-line result. */
#ifndef LS_RUNNER_TESTBED_PROTOCOL_H
#define LS_RUNNER_TESTBED_PROTOCOL_H
#include <stdio.h>
#include "sim/error.h"

#define LS_TBPR_NAME 64
#define LS_TBPR_MAX 32 /* configurations */

typedef struct ls_tbpr_config {
  char name[LS_TBPR_NAME];
  int layers, width, threads, draft_layers, step_ctx, spec_k;
} ls_tbpr_config;

typedef struct ls_tbpr {
  char id[LS_TBPR_NAME];
  int configurations_min;
  double median_max, baseline_ratio_max, spec_max;
  int reps, max_n, tg, rows, spec_tokens;
  int n;
  ls_tbpr_config c[LS_TBPR_MAX];
} ls_tbpr;

/* Reads a protocol file (every key required, unknown keys an error naming file:line:col). */
int ls_tbpr_load(const char *path, ls_tbpr *out, ls_error *err);

/* One line a configuration for the run script: name layers width threads draft_layers step_ctx
 * spec_k reps max_n tg rows spec_tokens, separated by spaces. */
int ls_tbpr_list(const ls_tbpr *p, FILE *out, ls_error *err);

/* The verdict over n point files (validate --points): one line per file, then (when any file
 * has a speculative point) `spec per configuration (information; the target is on the sum):
 * |error| <= S % in A of B; the largest E % (FILE)`, then the protocol's line, `held-out: N points over K configurations; median absolute error X % (trivial baseline
 * Y %); spec per-token error Z %; targets met` or, when one is missed, `...; targets NOT met:
 * <each missed target>`. *met: 1 when every target is met. A malformed file is LS_EPARSE
 * naming file and line. */
int ls_tbpr_verdict(const ls_tbpr *p, const char *const *files, int n, FILE *out, int *met, ls_error *err);

#endif
