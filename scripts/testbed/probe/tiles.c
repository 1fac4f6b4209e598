/* scripts/testbed/probe/tiles.c: warm prompt passes of N = 1 ... 12 and 16 tokens (one output
 * row) on a testbed model, interleaved, 7 repetitions each: where the layers' cost steps with
 * N (docs/VALIDATION.md §3.7). Not part of `make testbed`; build and run by hand:
 *   cd build && cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/tiles ../scripts/testbed/probe/tiles.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/tiles build/testbed/pkg/package/bins/linux-x64 build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf
 * Prints one line per pass: N, repetition, time_s (wall less run-queue wait), cpu_s. */
#include <stdio.h>
#include "runner/testbed/llamadrv.h"

int main(int argc, char **argv)
{
  ls_error err = {0};
  ls_llamadrv *d;
  ls_llamadrv_model *t;
  if (argc != 3) {
    fprintf(stderr, "usage: tiles LIBDIR MODEL.gguf\n");
    return 64;
  }
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  if (ls_llamadrv_open(&d, argv[1], &err) || ls_llamadrv_load(d, argv[2], &o, &t, &err)) {
    ls_error_print(&err, stderr);
    return 1;
  }
  static const int ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16};
  const int nn = (int)(sizeof ns / sizeof ns[0]);
  ls_llamadrv_cost c;
  if (ls_llamadrv_prompt(t, 4, 0, NULL, &err)) /* untimed warm-up: pages in, buffers made */
    return ls_error_print(&err, stderr), 1;
  for (int rep = 0; rep < 7; rep++)
    for (int i = 0; i < nn; i++) {
      ls_llamadrv_clear(t);
      if (ls_llamadrv_prompt(t, ns[i], 0, &c, &err))
        return ls_error_print(&err, stderr), 1;
      printf("%d %d %.4f %.4f\n", ns[i], rep, c.time_s, c.cpu_s);
      fflush(stdout);
    }
  ls_llamadrv_unload(t);
  ls_llamadrv_close(d);
  return 0;
}
