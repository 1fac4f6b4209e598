/* tests/fuzz/fuzz_experiment: libFuzzer harness for experiment files (ls_experiment_load),
 * with names checked against the shipped data folders. Both the full and the --quick
 * expansion are loaded, and a 2-way shard, whose run indices must partition the full list. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "runner/study/experiment.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fz_write("experiment.yaml", data, size);
  ls_experiment *x = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_experiment_load(&x, path, fz_data_root(), 0, NULL, 1, 1, &err) != LS_OK) {
    fz_report("load", &err);
    return 0;
  }
  int total = ls_experiment_total(x);
  for (int i = 0; i < ls_experiment_count(x); i++) {
    ls_run_spec *r = ls_experiment_run(x, i);
    if (r->index != i || !r->settings) {
      fprintf(stderr, "fuzz_experiment: run %d has index %d\n", i, r->index);
      abort();
    }
  }
  ls_experiment_free(x);
  ls_experiment *a = NULL, *b = NULL;
  if (ls_experiment_load(&a, path, fz_data_root(), 0, NULL, 1, 2, &err) != LS_OK ||
      ls_experiment_load(&b, path, fz_data_root(), 0, NULL, 2, 2, &err) != LS_OK ||
      ls_experiment_count(a) + ls_experiment_count(b) != total) {
    fprintf(stderr, "fuzz_experiment: shards 1/2 + 2/2 do not partition %d runs\n", total);
    abort();
  }
  ls_experiment_free(a);
  ls_experiment_free(b);
  if (ls_experiment_load(&x, path, fz_data_root(), 1, NULL, 1, 1, &err) == LS_OK)
    ls_experiment_free(x);
  return 0;
}
