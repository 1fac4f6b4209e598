/* policies/map_lever: Lever's CPU/NPU mapping (src:lever-notes, mapping; src:lever-html, output projection).
 *
 * Draft steps evaluating fewer than map.batch_min nodes (the early, small, irregular
 * expansions) run as one CPU call over their nodes: a GEMV-bound CPU forward costs about the
 * same for 1..4 tokens and pays no NPU dispatch or padding. Steps with >= map.batch_min nodes
 * (accumulated expansions, batched with causal masks) run as one NPU call. Target layers run
 * on the NPU; the output projection is taken out of the NPU graph and computed on demand on
 * the CPU along the accepted path (map.lmhead default demand-cpu).
 * map.batch_min default 4: assumed (break-even of one NPU graph call against a CPU GEMV
 * forward of the draft; a setting, swept in the Fig. 13 experiment). */
#include "policies/policies_int.h"

static int create(void **state, ls_kv *kv, ls_error *err)
{
  return ls_map_state_create(state, kv, LS_LMHEAD_DEMAND_CPU, 1, err);
}

static ls_draft_exec draft_step(const void *state, int n_nodes, int depth)
{
  (void)depth;
  const ls_map_state *s = state;
  ls_draft_exec e = {n_nodes >= s->batch_min ? LS_UNIT_NPU : LS_UNIT_CPU, 1, n_nodes};
  return e;
}

const ls_map_ops ls_map_lever = {"lever", "small draft steps on CPU, batched steps on NPU, LM head on demand on CPU",
                                 create, ls_map_state_destroy, draft_step, ls_map_state_lmhead,
                                 ls_map_state_target_npu};
