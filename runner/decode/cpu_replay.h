/* runner/decode/cpu_replay: a recorded sequence of forward passes (a speculative run's draft and
 * verification passes, cycle by cycle, or any other passes) priced on a device's CPU with the
 * cost model's pass pricing (policies/costmodel.h, ls_costmodel_pass): the draft in memory, the
 * target's verifications from a cold page cache as the read mode says (mapped read-ahead or
 * serial), each as the pass it was. The decode library's pricing of a llama.cpp-style runtime
 * whose acceptance is taken from a trace, so both sides of a comparison see the same cycles;
 * `leversim testbed validate` prices every point it checks through it.
 *
 * Equation: total = sum over the passes, in order, of
 *   cold ? ls_costmodel_pass_cold_s(model, n, ctx, rows) : ls_costmodel_pass_warm_s(model, n, ctx, rows)
 * split into the draft's sum and the target's. No state: the same passes, the same sums, bit for
 * bit. */
#ifndef LS_RUNNER_DECODE_CPU_REPLAY_H
#define LS_RUNNER_DECODE_CPU_REPLAY_H
#include "policies/costmodel.h"

typedef struct ls_cpureplay_pass {
  int draft;    /* 1: a pass of the draft model, 0: of the target */
  int n_tokens; /* tokens of the pass */
  int ctx;      /* tokens already cached */
  int rows;     /* output rows asked for (0: none) */
  int cold;     /* 1: the weights come from a cold page cache; 0: in memory */
} ls_cpureplay_pass;

/* One pass (draft may be NULL when q->draft is 0), s. */
double ls_cpureplay_pass_s(const ls_costmodel_pass *p, const ls_model_costs *target, const ls_model_costs *draft,
                           const ls_cpureplay_pass *q);
/* The passes q[0..n-1] in order: the sum of the draft's in *draft_s and of the target's in
 * *target_s (either may be NULL); returns their total. draft may be NULL when no pass is the
 * draft's. */
double ls_cpureplay_run_s(const ls_costmodel_pass *p, const ls_model_costs *target, const ls_model_costs *draft,
                          const ls_cpureplay_pass *q, int n, double *draft_s, double *target_s);

#endif
