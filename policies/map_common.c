/* policies/map_common: state and settings shared by the map policies (map_*.c).
 *
 * Settings: map.lmhead = eager-npu | demand-npu | demand-cpu (every map policy; the default
 * is the policy's own), map.batch_min (lever only). Target layers always run on the NPU:
 * the paper maps every target layer to the NPU (src:lever-notes, mapping). */
#include <stdlib.h>
#include "policies/policies_int.h"

static const char *const LMHEAD_NAMES[] = {"eager-npu", "demand-npu", "demand-cpu", NULL};

int ls_map_read_lmhead(ls_kv *kv, ls_lmhead dflt, ls_lmhead *out, ls_error *err)
{
  int v;
  int rc = ls_kv_enum(kv, "map.lmhead", LMHEAD_NAMES, (int)dflt, &v, err);
  *out = (ls_lmhead)v;
  return rc;
}

int ls_map_state_create(void **state, ls_kv *kv, ls_lmhead dflt_lmhead, int read_batch_min, ls_error *err)
{
  ls_map_state *s = calloc(1, sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "map policy: out of memory");
  int rc = ls_map_read_lmhead(kv, dflt_lmhead, &s->lmhead, err);
  long bm = 4; /* assumed: below ~4 tokens a CPU GEMV call of the draft beats an NPU graph
                  call (dispatch + padding to the smallest compiled shape); see map_lever.c */
  if (rc == LS_OK && read_batch_min)
    rc = ls_kv_int(kv, "map.batch_min", 1, LS_TREE_MAX, bm, &bm, err);
  s->batch_min = (int)bm;
  if (rc != LS_OK) {
    free(s);
    return rc;
  }
  *state = s;
  return LS_OK;
}

void ls_map_state_destroy(void *state) { free(state); }

ls_lmhead ls_map_state_lmhead(const void *state) { return ((const ls_map_state *)state)->lmhead; }

ls_unit ls_map_state_target_npu(const void *state)
{
  (void)state;
  return LS_UNIT_NPU;
}
