/* scripts/testbed/probe/busylevels.c: does a busy thread slow the reads of a mapped file when its
 * compute outlasts them (docs/VALIDATION.md §3.18)? `testbed measure`'s busy streams
 * (runner/testbed/measure.c) at finer levels around and past 100 %: the file is streamed cold
 * with fixed arithmetic after each page worth LEVEL % of a plain cold stream's time (the faster
 * of two untimed ones), next to a plain cold stream and the same arithmetic over the cached file.
 * A share that slows every read overlapping compute (the rule of §3.10) makes the busy stream
 * outlast its arithmetic until about 1 / (1 - share) x 100 %; a share that slows only a read the
 * thread waits for lets the reads hide as soon as the arithmetic outlasts them.
 * Levels 70, 80, 90, 100, 110, 120, 140, 160 and 200 %, interleaved, REPS repetitions.
 * Not part of `make testbed`; build and run by hand on an idle machine:
 *   cd build && cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/busylevels ../scripts/testbed/probe/busylevels.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/busylevels build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 7
 * Prints one line per repetition and level:
 *   level rep stream_s busy_s alone_s
 * (time_s of each: wall less run-queue wait). */
#include <stdio.h>
#include <stdlib.h>
#include "runner/testbed/llamadrv.h"

static const int LEVELS[] = {70, 80, 90, 100, 110, 120, 140, 160, 200};
#define NLEVELS ((int)(sizeof LEVELS / sizeof LEVELS[0]))

/* One stream of the file, cold (evicted first) or over the cached file, with `work` spin
 * iterations spread over its pages; its time in *t. 0 on success. */
static int stream(const char *path, int cold, uint64_t work, double *t, ls_error *err)
{
  ls_llamadrv_cost c;
  if (cold && ls_llamadrv_evict_file(path, NULL, err))
    return 1;
  if (ls_llamadrv_stream_busy(path, cold, work, &c, err))
    return 1;
  *t = c.time_s;
  return 0;
}

int main(int argc, char **argv)
{
  if (argc != 3 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: busylevels GGUF REPS\n");
    return 64;
  }
  const char *path = argv[1];
  int reps = atoi(argv[2]);
  ls_error err = {0};
  uint64_t rate = ls_llamadrv_spin_rate();
  double a, b;
  if (stream(path, 1, 0, &a, &err) || stream(path, 1, 0, &b, &err)) {
    ls_error_print(&err, stderr);
    return 1;
  }
  double anchor = a < b ? a : b;
  for (int r = 0; r < reps; r++)
    for (int i = 0; i < NLEVELS; i++) {
      uint64_t work = (uint64_t)(LEVELS[i] / 100.0 * anchor * (double)rate);
      double plain, busy, alone;
      if (stream(path, 1, 0, &plain, &err) || stream(path, 1, work, &busy, &err) ||
          stream(path, 0, work, &alone, &err)) {
        ls_error_print(&err, stderr);
        return 1;
      }
      if (printf("%d %d %.4f %.4f %.4f\n", LEVELS[i], r, plain, busy, alone) < 0 || fflush(stdout) != 0)
        return 74;
    }
  return 0;
}
