/* tests/fuzz/fuzz_model: libFuzzer harness for model architecture files (ls_model_load).
 * The file is named after its "id:" line so that documents that pass the schema also pass
 * the id/file-name check and reach the cost formulas. */
#include <stdint.h>
#include <stdio.h>
#include "fuzz_util.h"
#include "workloads/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char id[64], name[80];
  fz_yaml_id(data, size, id, sizeof id);
  snprintf(name, sizeof name, "%s.yaml", id);
  const char *path = fz_write(name, data, size);
  ls_model *m = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_model_load(&m, path, &err) != LS_OK) {
    fz_report("load", &err);
    return 0;
  }
  {
    static const char *const quants[] = {NULL, "q4_0", "w4a16", "q8_0", "fp16", "bogus"};
    for (size_t i = 0; i < sizeof quants / sizeof quants[0]; i++) {
      ls_model_costs c;
      (void)ls_model_costs_get(m, quants[i], &c, &err);
    }
    ls_model_arch a;
    ls_model_arch_get(m, &a);
    (void)ls_model_params(m);
    (void)ls_model_params_declared(m);
    (void)ls_model_default_draft(m);
    ls_model_free(m);
  }
  return 0;
}
