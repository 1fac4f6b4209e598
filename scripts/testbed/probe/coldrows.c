/* scripts/testbed/probe/coldrows.c: where a cold pass's extra CPU time goes (docs/VALIDATION.md
 * §3.10). Passes of 5 tokens on an empty cache, asking for no output row (no output projection)
 * or for all 5, in three states, interleaved, REPS repetitions:
 *   warm   the model in the page cache since earlier passes;
 *   cold   the model evicted right before the pass (it streams in while the pass computes);
 *   fresh  evicted, then streamed through a mapping without compute, then the pass (its pages
 *          are new in memory, but no read overlaps the pass).
 * Not part of `make testbed`; build and run by hand:
 *   cd build && cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/coldrows ../scripts/testbed/probe/coldrows.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/coldrows build/testbed/pkg/package/bins/linux-x64 build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 6
 * Prints one line per pass: user and system CPU seconds of the thread (getrusage), then the
 * kind, the repetition, time_s (wall less run-queue wait), cpu_s, run-queue s, major and minor
 * faults and MB read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include "probe.h"

static void thread_cpu(double *user, double *sys)
{
  struct rusage r;
  getrusage(RUSAGE_THREAD, &r);
  *user = r.ru_utime.tv_sec + r.ru_utime.tv_usec * 1e-6;
  *sys = r.ru_stime.tv_sec + r.ru_stime.tv_usec * 1e-6;
}

/* One pass in `state` (0 warm, 1 cold, 2 fresh) asking for `rows` of the 5 output rows. */
static int pass(ls_llamadrv_model *t, const char *path, int state, int rows, int rep, ls_error *err)
{
  ls_llamadrv_tok tk[5];
  ls_llamadrv_cost c, sc;
  ls_llamadrv_clear(t);
  int rc = state ? ls_llamadrv_evict(t, NULL, err) : LS_OK;
  if (!rc && state == 2)
    rc = ls_llamadrv_stream(path, &sc, err);
  for (int i = 0; i < 5; i++) {
    memset(&tk[i], 0, sizeof tk[i]);
    tk[i].id = 3 + i;
    tk[i].pos = i;
    tk[i].n_seq = 1;
    tk[i].logits = i >= 5 - rows;
  }
  double u0, s0, u1, s1;
  thread_cpu(&u0, &s0);
  if (!rc)
    rc = ls_llamadrv_decode(t, tk, 5, &c, err);
  thread_cpu(&u1, &s1);
  if (rc)
    return rc;
  static const char *const names[] = {"warm", "cold", "fresh"};
  printf("usr %.3f sys %.3f  %s5r%d %d %.4f %.4f %.4f %ld %ld %.1f\n", u1 - u0, s1 - s0, names[state], rows, rep,
         c.time_s, c.cpu_s, c.runqueue_s, (long)c.majflt, (long)c.minflt, c.read_bytes / 1e6);
  return fflush(stdout) == 0 ? LS_OK : LS_EIO;
}

int main(int argc, char **argv)
{
  ls_error err = {0};
  ls_llamadrv *d;
  ls_llamadrv_model *t;
  if (argc != 4) {
    fprintf(stderr, "usage: coldrows LIBDIR MODEL.gguf REPS\n");
    return 64;
  }
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  if (probe_start(argv[1], argv[2], &o, &d, &t))
    return 1;
  int reps = atoi(argv[3]), rc = LS_OK;
  for (int rep = 0; rep < reps && !rc; rep++)
    for (int state = 0; state < 3 && !rc; state++)
      for (int rows = 0; rows <= 5 && !rc; rows += 5)
        rc = pass(t, argv[2], state, rows, rep, &err);
  if (rc)
    ls_error_print(&err, stderr);
  ls_llamadrv_unload(t);
  ls_llamadrv_close(d);
  return rc ? 1 : 0;
}
