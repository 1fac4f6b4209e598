/* scripts/testbed/probe/freed.c: does a cold read of a file cost more when the memory it lands
 * in sat free for a while (docs/VALIDATION.md §3.15)? On a VM whose guest reports free memory
 * to its host (virtio free page reporting), memory free long enough is taken back by the host,
 * and the next touch of each page faults on the host, which the guest sees as its thread's CPU
 * time. Four states, interleaved, REPS repetitions each; each streams the file (cached now),
 * evicts it, waits, then streams it cold, timed:
 *   now        no wait: the read reuses the memory the eviction has just freed;
 *   idle       2.5 s of wait;
 *   touch800   2.5 s, then 800 MiB of anonymous memory touched and freed before the read;
 *   touch1600  the same with 1600 MiB.
 * Not part of `make testbed`; build and run by hand:
 *   cd build && cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/freed ../scripts/testbed/probe/freed.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/freed build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 4
 * Prints one line per read: the state, the repetition, time_s (wall less run-queue wait) and
 * the thread's CPU seconds. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include "runner/testbed/llamadrv.h"

enum { NOW, IDLE, TOUCH800, TOUCH1600, NSTATES };
static const char *const NAMES[NSTATES] = {"now", "idle", "touch800", "touch1600"};

static void nap(double s)
{
  struct timespec t = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
  nanosleep(&t, NULL);
}

/* Touches every page of `mib` MiB of fresh anonymous memory, then frees it; 0 on success. */
static int touch_and_free(size_t mib)
{
  size_t bytes = mib << 20;
  char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED)
    return -1;
  for (size_t off = 0; off < bytes; off += 4096)
    p[off] = 1;
  return munmap(p, bytes);
}

int main(int argc, char **argv)
{
  ls_error err = {0};
  int reps = argc == 3 ? atoi(argv[2]) : 0;
  if (reps < 1) {
    fprintf(stderr, "usage: freed MODEL.gguf REPS\n");
    return 64;
  }
  const char *path = argv[1];
  for (int rep = 0; rep < reps; rep++)
    for (int s = 0; s < NSTATES; s++) {
      ls_llamadrv_cost c;
      if (ls_llamadrv_stream(path, &c, &err) || ls_llamadrv_evict_file(path, NULL, &err))
        return ls_error_print(&err, stderr), 1;
      if (s != NOW)
        nap(2.5);
      if ((s == TOUCH800 && touch_and_free(800)) || (s == TOUCH1600 && touch_and_free(1600))) {
        perror("freed: anonymous memory");
        return 1;
      }
      if (ls_llamadrv_stream(path, &c, &err))
        return ls_error_print(&err, stderr), 1;
      if (printf("%-9s %d %.4f %.4f\n", NAMES[s], rep, c.time_s, c.cpu_s) < 0 || fflush(stdout))
        return 74;
    }
  return 0;
}
