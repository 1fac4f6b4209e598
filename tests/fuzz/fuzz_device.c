/* tests/fuzz/fuzz_device: libFuzzer harness for device profiles (ls_device_load).
 * A profile that loads is then printed, cloned, overridden with an empty settings list and
 * asked the pure cost queries, so hostile-but-valid numbers also reach the device models. */
#include <stdint.h>
#include <stdio.h>
#include "devices/device.h"
#include "fuzz_util.h"

static void exercise(ls_device *d)
{
  ls_error err;
  ls_device_print(d, fz_devnull());
  ls_device *c = NULL;
  if (ls_device_clone(&c, d, &err) == LS_OK) {
    ls_kv *kv = NULL;
    if (ls_kv_create(&kv, &err) == LS_OK) {
      (void)ls_device_apply(c, kv, &err);
      ls_kv_free(kv);
    }
    ls_device_free(c);
  }
  const ls_flash_params *f = ls_device_flash(d);
  (void)ls_flash_read_ns(f, 200e6);
  (void)ls_flash_read_ns_at(f, 4096, 4096, 1);
  ls_layer_work w = {200e6, 400e6, 16384, 1024};
  for (int tokens = 1; tokens <= 300; tokens += 37) {
    (void)ls_npu_layer_ns(ls_device_npu(d), &w, tokens, 512);
    (void)ls_npu_padded_tokens(ls_device_npu(d), tokens);
    (void)ls_cpu_layer_ns(ls_device_cpu(d), &w, tokens, 512, ls_device_cpu(d)->default_threads);
  }
  (void)ls_npu_lmhead_ns(ls_device_npu(d), 500e6, 1e9, 3);
  (void)ls_dram_resident_budget(ls_device_dram(d));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fz_write("profile.yaml", data, size);
  ls_device *d = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_device_load(&d, path, &err) != LS_OK) {
    fz_report("load", &err);
    return 0;
  }
  {
    exercise(d);
    ls_device_free(d);
  }
  return 0;
}
