/* runner/decode/cpu_replay: see cpu_replay.h. */
#include "runner/decode/cpu_replay.h"

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
