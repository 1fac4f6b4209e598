/* scripts/testbed/probe/ctxstep.c: what a cold one-token pass costs after a warm prompt pass,
 * against one after nothing (docs/VALIDATION.md §3.15). Four states, interleaved, REPS
 * repetitions each, every one a one-token pass on a model evicted right before it:
 *   plain    nothing before the eviction but the previous state's pass;
 *   prefix   a warm 64-token prompt pass, then the eviction; the pass at context 64 (a `step`);
 *   cleared  the same prompt pass, the cache cleared, then the eviction; the pass at context 0;
 *   spin     0.3 s of arithmetic on the thread, then the eviction; the pass at context 0.
 * Not part of `make testbed`; build and run by hand:
 *   cd build && cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/ctxstep ../scripts/testbed/probe/ctxstep.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/ctxstep build/testbed/pkg/package/bins/linux-x64 build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 10
 * Prints one line per pass: the state, the repetition, time_s (wall less run-queue wait), and
 * the thread's user and system CPU seconds (getrusage) over the pass. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include "probe.h"

enum { PLAIN, PREFIX, CLEARED, SPIN, NSTATES };
static const char *const NAMES[NSTATES] = {"plain", "prefix", "cleared", "spin"};

static void thread_cpu(double *user, double *sys)
{
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  *user = r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6;
  *sys = r.ru_stime.tv_sec + r.ru_stime.tv_usec * 1e-6;
}

/* Arithmetic only, no memory traffic, for s seconds of wall time. */
static void spin(double s)
{
  struct timespec a, b;
  volatile double x = 1;
  clock_gettime(CLOCK_MONOTONIC, &a);
  do {
    for (int i = 0; i < 100000; i++)
      x = x * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &b);
  } while ((double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9 < s);
}

/* What comes before the timed pass in `state`; *ctx its context. */
static int before(ls_llamadrv_model *t, int state, int *ctx, ls_error *err)
{
  int rc = LS_OK;
  *ctx = state == PREFIX ? 64 : 0;
  ls_llamadrv_clear(t);
  if (state == PREFIX || state == CLEARED)
    rc = ls_llamadrv_prompt(t, 64, 0, NULL, err);
  if (!rc && state == CLEARED)
    ls_llamadrv_clear(t);
  if (state == SPIN)
    spin(0.3);
  return rc ? rc : ls_llamadrv_evict(t, NULL, err);
}

int main(int argc, char **argv)
{
  ls_error err = {0};
  ls_llamadrv *d;
  ls_llamadrv_model *t;
  int reps = argc == 4 ? atoi(argv[3]) : 0;
  if (reps < 1) {
    fprintf(stderr, "usage: ctxstep LIBDIR MODEL.gguf REPS\n");
    return 64;
  }
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  if (probe_start(argv[1], argv[2], &o, &d, &t))
    return 1;
  for (int rep = 0; rep < reps; rep++)
    for (int s = 0; s < NSTATES; s++) {
      int ctx;
      ls_llamadrv_cost c;
      double u0, s0, u1, s1;
      if (before(t, s, &ctx, &err))
        return ls_error_print(&err, stderr), 1;
      thread_cpu(&u0, &s0);
      if (ls_llamadrv_prompt(t, 1, ctx, &c, &err))
        return ls_error_print(&err, stderr), 1;
      thread_cpu(&u1, &s1);
      if (printf("%-8s %2d %.4f %.4f %.4f\n", NAMES[s], rep, c.time_s, u1 - u0, s1 - s0) < 0 || fflush(stdout))
        return 74;
    }
  ls_llamadrv_unload(t);
  ls_llamadrv_close(d);
  return 0;
}
