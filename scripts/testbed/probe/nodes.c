/* scripts/testbed/probe/nodes.c: where in a cold pass its time goes, node by node
 * (docs/VALIDATION.md §3.16). The library is asked to report every node of the graph as it is
 * computed (ls_llamadrv_opts.observe, the scheduler's evaluation callback), so each node's
 * time is the time since the previous node was reported. For each size N, REPS repetitions,
 * interleaved: a cold pass (the model evicted right before it) and a warm one, each of N
 * tokens asking for the last row, as llama-bench times a prompt (N = 1, 2, 4, 5, 8, 16). A cold node's time less the
 * warm node's is what the reads cost that node beyond its compute.
 * Not part of `make testbed`; build and run by hand (from the build directory):
 *   cc -O2 -std=c11 -D_GNU_SOURCE -I.. -o /tmp/nodes ../scripts/testbed/probe/nodes.c \
 *     libls_runner_testbed.a libls_workloads.a libls_devices.a libls_sim.a -ldl -lm -lyaml -ljansson -lsqlite3
 *   /tmp/nodes testbed/pkg/package/bins/linux-x64 testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 5 > nodes.txt
 * Prints one line per node: state, N, repetition, the node's index in the pass, its name, its
 * time in seconds; then one line per pass: "pass", state, N, repetition, the pass's time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "probe.h"

#define MAX_NODES 4096

typedef struct trace {
  int n;
  double t0;
  double t[MAX_NODES];
  char name[MAX_NODES][48];
} trace;

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void observe(const char *node, void *user)
{
  trace *tr = user;
  if (tr->n >= MAX_NODES)
    return;
  tr->t[tr->n] = now();
  snprintf(tr->name[tr->n++], sizeof tr->name[0], "%s", node ? node : "?");
}

static int print_pass(const trace *tr, const char *state, int n, int rep, double pass_s)
{
  double prev = tr->t0;
  for (int i = 0; i < tr->n; i++) {
    if (printf("%s %d %d %d %s %.6f\n", state, n, rep, i, tr->name[i], tr->t[i] - prev) < 0)
      return 74;
    prev = tr->t[i];
  }
  return printf("pass %s %d %d %.6f\n", state, n, rep, pass_s) < 0 || fflush(stdout) ? 74 : 0;
}

int main(int argc, char **argv)
{
  static const int sizes[] = {1, 2, 4, 5, 8, 16};
  ls_error err = {0};
  ls_llamadrv *d;
  ls_llamadrv_model *t;
  int reps = argc == 4 ? atoi(argv[3]) : 0;
  if (reps < 1) {
    fprintf(stderr, "usage: nodes LIBDIR MODEL.gguf REPS\n");
    return 64;
  }
  trace *tr = calloc(1, sizeof *tr);
  if (!tr)
    return 1;
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.observe = observe;
  o.observe_user = tr;
  if (probe_start(argv[1], argv[2], &o, &d, &t))
    return 1;
  for (int rep = 0; rep < reps; rep++)
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
      for (int cold = 1; cold >= 0; cold--) {
        ls_llamadrv_cost c;
        ls_llamadrv_clear(t);
        if (cold && ls_llamadrv_evict(t, NULL, &err))
          return ls_error_print(&err, stderr), 1;
        tr->n = 0;
        tr->t0 = now();
        if (ls_llamadrv_prompt(t, sizes[i], 0, &c, &err))
          return ls_error_print(&err, stderr), 1;
        if (print_pass(tr, cold ? "cold" : "warm", sizes[i], rep, c.time_s))
          return 74;
      }
  ls_llamadrv_unload(t);
  ls_llamadrv_close(d);
  free(tr);
  return 0;
}
