/* runner/decode/cpu_replay: see cpu_replay.h. */
#include "runner/decode/cpu_replay.h"
#include <stdlib.h>
#include "sim/error.h"

double ls_cpureplay_pass_s(const ls_costmodel_pass *p, const ls_model_costs *target, const ls_model_costs *draft,
                           const ls_cpureplay_pass *q)
{
  const ls_model_costs *m = q->draft ? draft : target;
  if (!m)
    return 0;
  return q->cold ? ls_costmodel_pass_cold_s(p, m, q->n_tokens, q->ctx, q->rows)
                 : ls_costmodel_pass_warm_s(p, m, q->n_tokens, q->ctx, q->rows);
}

double ls_cpureplay_run_s(const ls_costmodel_pass *p, const ls_model_costs *target, const ls_model_costs *draft,
                          const ls_cpureplay_pass *q, int n, double *draft_s, double *target_s)
{
  double s[2] = {0, 0}; /* the draft's, the target's: each summed in the passes' order */
  for (int i = 0; i < n; i++)
    s[!q[i].draft] += ls_cpureplay_pass_s(p, target, draft, &q[i]);
  if (draft_s)
    *draft_s = s[0];
  if (target_s)
    *target_s = s[1];
  return s[0] + s[1];
}

int ls_cpureplay_spec_passes(const int *rank, int n_rank, int prompt_tokens, int k, int tokens,
                             ls_cpureplay_pass **out, int *n_out, int *cycles, int *generated)
{
  *out = NULL;
  *n_out = 0;
  if (k < 1 || k > 16 || prompt_tokens < 1 || tokens < 1 || tokens > 1000000)
    return LS_ERANGE;
  /* at most one cycle a token, k + 1 passes a cycle */
  ls_cpureplay_pass *q = malloc((size_t)tokens * (size_t)(k + 1) * sizeof *q);
  if (!q)
    return LS_ENOMEM;
  int n = 0, cyc = 0, gen = 0, dft_next = prompt_tokens - 1; /* the draft's first uncached position */
  while (gen < tokens) {
    int pos = prompt_tokens - 1 + gen; /* the last accepted token's: the verification's context */
    int catchup = pos + 1 - dft_next;
    q[n++] = (ls_cpureplay_pass){1, catchup, dft_next, 1, 0};
    for (int i = 1; i < k; i++)
      q[n++] = (ls_cpureplay_pass){1, 1, pos + i, 1, 0};
    q[n++] = (ls_cpureplay_pass){0, k + 1, pos, k + 1, 1};
    int a = 0;
    while (a < k && gen + a < n_rank && rank[gen + a] == 0)
      a++;
    if (a < k && gen + a >= n_rank) { /* the cycle's acceptance runs past the recorded ranks */
      free(q);
      return LS_ERANGE;
    }
    gen += a + 1;
    cyc++;
    /* the draft keeps what was accepted, and never more than it computed (pos + k - 1) */
    dft_next = pos + 1 + a < pos + k ? pos + 1 + a : pos + k;
  }
  *out = q;
  *n_out = n;
  if (cycles)
    *cycles = cyc;
  if (generated)
    *generated = gen;
  return LS_OK;
}
