/* policies/map_cpu: map policy "cpu": single-node CPU draft steps (one call per node), target on NPU.
 * (Fig. 13 of the paper compares single-node NPU, single-node CPU and batch-aware NPU
 * drafting.) The LM head placement is map.lmhead (default eager-npu, the conventional
 * execution: output projection for every tree node inside the NPU graph). */
#include "policies/policies_int.h"

static int create(void **state, ls_kv *kv, ls_error *err) { return ls_map_state_create(state, kv, LS_LMHEAD_EAGER_NPU, 0, err); }

static ls_draft_exec draft_step(const void *state, int n_nodes, int depth)
{
  (void)state;
  (void)depth;
  ls_draft_exec e = {LS_UNIT_CPU, n_nodes, 1};
  return e;
}

const ls_map_ops ls_map_cpu = {"cpu", "single-node CPU draft steps (one call per node), target on NPU", create, ls_map_state_destroy, draft_step,
                                   ls_map_state_lmhead, ls_map_state_target_npu};
