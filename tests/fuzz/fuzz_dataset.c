/* tests/fuzz/fuzz_dataset: libFuzzer harness for dataset files (ls_dataset_load).
 * A dataset that loads drives a token oracle (one prompt, shipped llama-3.1-8b target and
 * llama-3.2-1b draft, loaded once) through a few cycles, so hostile-but-valid parameters
 * also reach the oracle's equations. Datasets whose outputs could exceed 4096 tokens skip
 * the oracle: their cost is linear in the length by design, not a reader defect. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "workloads/dataset_int.h"
#include "workloads/oracle.h"

static void models(const ls_model **target, const ls_model **draft)
{
  static ls_model *t, *d;
  if (!t) {
    ls_error err;
    if (ls_model_load_id(&t, fz_data_root(), "llama-3.1-8b", &err) ||
        ls_model_load_id(&d, fz_data_root(), "llama-3.2-1b", &err)) {
      fprintf(stderr, "fuzz_dataset: %s\n", err.msg);
      abort();
    }
  }
  *target = t;
  *draft = d;
}

static void drive(const ls_dataset *ds)
{
  double scale = 1.0;
  for (int i = 0; i < LS_PROC_COUNT; i++)
    if (ds->proc[i].present && ds->proc[i].output_scale > scale)
      scale = ds->proc[i].output_scale;
  if ((double)ds->output_len.max * scale > 4096.0)
    return;
  const ls_model *t, *d;
  models(&t, &d);
  ls_kv *kv = NULL;
  ls_oracle *o = NULL;
  ls_error err;
  if (ls_kv_create(&kv, &err) || ls_kv_set(kv, "workload.prompts", "1", "fuzz", &err)) {
    ls_kv_free(kv);
    return;
  }
  if (ls_oracle_create(&o, ds, t, d, 7, kv, &err) != LS_OK)
    fz_report("oracle", &err);
  else {
    int n = ls_oracle_output_len(o, 0);
    for (int pos = 0; pos < n && pos < 64; pos += 7) {
      ls_oracle_cycle cyc;
      ls_draft_view v;
      double q[LS_VIEW_TOPK_MAX];
      ls_oracle_begin(o, 0, pos, &cyc, &v);
      int k = v.candidates(v.ctx, v.root_key, 0, q, LS_VIEW_TOPK_MAX);
      for (int r = 0; r < k && r < 3; r++) {
        uint64_t ck = v.child_key(v.ctx, v.root_key, 0, r);
        (void)ls_oracle_true_rank(&cyc, ck, 1);
        (void)ls_oracle_exit_score(&cyc, ck, 1, q[r]);
      }
      (void)ls_oracle_true_rank(&cyc, v.root_key, 0);
    }
    ls_oracle_free(o);
  }
  ls_kv_free(kv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char id[64], name[80];
  fz_yaml_id(data, size, id, sizeof id);
  snprintf(name, sizeof name, "%s.yaml", id);
  const char *path = fz_write(name, data, size);
  ls_dataset *ds = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_dataset_load(&ds, path, &err) != LS_OK) {
    fz_report("load", &err);
    return 0;
  }
  {
    drive(ds);
    ls_dataset_free(ds);
  }
  return 0;
}
