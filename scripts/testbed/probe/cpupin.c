/* scripts/testbed/probe/cpupin.c: does it matter on which of the VM's two CPUs the measuring
 * thread runs (docs/VALIDATION.md §3.16)? The virtual disk's completion interrupt is bound to
 * one CPU (/proc/interrupts, virtio1-req.0); a thread that shares that CPU also runs the
 * completions of the reads it waits for. Run the probe pinned with taskset, alternating CPUs:
 *   for i in 1 2 3 4; do for c in 0 1; do taskset -c $c /tmp/cpupin LIB MODEL 2 $c; done; done
 * Build (from the build directory, as ctxstep.c):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/cpupin ../scripts/testbed/probe/cpupin.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 * Each repetition: a stream of the file through a mapping from a cold cache (no compute), the
 * same with memory reads worth 60 % of it (cold, then warm), then cold passes of 1, 4 and 8 tokens, then a warm pass of each size (the compute alone), each cold
 * one on a model evicted right before it. Prints one line per measurement: the CPU asked for,
 * the CPU the thread ended on, what, N, the repetition, time_s (wall less run-queue wait), the
 * thread's CPU seconds, and the disk interrupts each CPU took during it. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "probe.h"

/* The disk's completion interrupts taken so far by CPU 0 and CPU 1 (0 when not found). */
static void disk_irqs(long long n[2])
{
  char line[512];
  n[0] = n[1] = 0;
  FILE *f = fopen("/proc/interrupts", "r");
  if (!f)
    return;
  while (fgets(line, sizeof line, f))
    if (strstr(line, "virtio1-req")) {
      char *p = strchr(line, ':');
      if (p)
        sscanf(p + 1, "%lld %lld", &n[0], &n[1]);
    }
  fclose(f);
}

static int report(int want, const char *what, int n, int rep, const ls_llamadrv_cost *c, const long long a[2])
{
  long long b[2];
  disk_irqs(b);
  return printf("cpu%d on%d %-6s %3d %2d %.4f %.4f %lld %lld\n", want, sched_getcpu(), what, n, rep, c->time_s,
                c->cpu_s, b[0] - a[0], b[1] - a[1]) < 0 || fflush(stdout) ? 74 : 0;
}

int main(int argc, char **argv)
{
  static const int sizes[] = {1, 4, 8};
  ls_error err = {0};
  ls_llamadrv *d;
  ls_llamadrv_model *t;
  int reps = argc == 5 ? atoi(argv[3]) : 0, want = argc == 5 ? atoi(argv[4]) : -1;
  if (reps < 1) {
    fprintf(stderr, "usage: cpupin LIBDIR MODEL.gguf REPS CPU-ASKED-FOR\n");
    return 64;
  }
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  if (probe_start(argv[1], argv[2], &o, &d, &t))
    return 1;
  uint64_t mem_rate = ls_llamadrv_mem_rate();
  for (int rep = 0; rep < reps; rep++) {
    ls_llamadrv_cost c;
    long long a[2];
    /* the mapping is dropped for the stream and the file evicted (ls_llamadrv_stream does it) */
    if (ls_llamadrv_evict(t, NULL, &err))
      return ls_error_print(&err, stderr), 1;
    disk_irqs(a);
    if (ls_llamadrv_stream(argv[2], &c, &err))
      return ls_error_print(&err, stderr), 1;
    if (report(want, "stream", 0, rep, &c, a))
      return 74;
    /* memory reads worth 60 % of that stream, cold (the `stream-busy-mem` pass) and warm */
    uint64_t bytes = (uint64_t)(0.6 * c.time_s * (double)mem_rate);
    for (int cold = 1; cold >= 0; cold--) {
      disk_irqs(a);
      if (ls_llamadrv_stream_busy_mem(argv[2], cold, bytes, &c, &err))
        return ls_error_print(&err, stderr), 1;
      if (report(want, cold ? "bmem" : "bmemw", 60, rep, &c, a))
        return 74;
    }
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      for (int cold = 1; cold >= 0; cold--) {
        ls_llamadrv_clear(t);
        if (cold && ls_llamadrv_evict(t, NULL, &err))
          return ls_error_print(&err, stderr), 1;
        disk_irqs(a);
        if (ls_llamadrv_prompt(t, sizes[i], 0, &c, &err))
          return ls_error_print(&err, stderr), 1;
        if (report(want, cold ? "cold" : "warm", sizes[i], rep, &c, a))
          return 74;
      }
    }
  }
  ls_llamadrv_unload(t);
  ls_llamadrv_close(d);
  return 0;
}
