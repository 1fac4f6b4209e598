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

/* A llama.cpp-style speculative run's passes, cycle by cycle, as runner/testbed/measure.c makes
 * them (its speculative run; llama.cpp's speculative example has the same shape). Both models
 * hold the prompt's first prompt_tokens - 1 tokens; no token comes out of prefill. A cycle:
 *   the draft's catch-up, one pass of the accepted tokens it has not seen (1 token, or 2 after
 *   a cycle that accepted all k: the last proposal and the target's token), at the context its
 *   cache kept; then k - 1 one-token draft passes at contexts c + 1 .. c + k - 1;
 *   the target's verification of k + 1 tokens (the last accepted token and the k proposals) at
 *   context c, every row's output, from an evicted page cache;
 * where c = prompt_tokens - 1 + generated. Acceptance from rank[] (the target's rank at text
 * position T, T = 0 the token after the prompt, workloads/TRACE_FORMAT.md): the cycle at T
 * accepts a = the leading zeros of rank[T .. T + k - 1]; generated and T then move by a + 1,
 * until generated >= tokens. Draft passes ask for one row, warm; verifications for k + 1, cold.
 * *out (owned by the caller, free()) gets the passes in the order made, *n_out their number,
 * *cycles and *generated (either may be NULL) the run's. Returns LS_OK, LS_ERANGE when k, the
 * prompt or the tokens are out of range or rank[] is too short for the cycles (n_rank >= tokens
 * + k is always enough), LS_ENOMEM. */
int ls_cpureplay_spec_passes(const int *rank, int n_rank, int prompt_tokens, int k, int tokens,
                             ls_cpureplay_pass **out, int *n_out, int *cycles, int *generated);

#endif
