/* runner/testbed/probe: the testbed's two probes of llama.cpp's CPU kernels, behind
 * `leversim testbed probe` (they were hand-built programs under scripts/testbed/probe/ until
 * issue 32; their committed outputs are results/testbed/probe-tiles*.txt and
 * probe-nodes.txt.xz, docs/VALIDATION.md §3.7, §3.16, §3.17):
 *   tiles  warm prompt passes of N = 1 ... 12 and 16 tokens (one output row), interleaved,
 *          `reps` repetitions: where the layers' cost steps with N (the blocked kernel's tiles,
 *          devices/cpu.c's batch_group and batch_remainder). One line a pass:
 *          "N repetition time_s cpu_s".
 *   nodes  for N = 1, 2, 4, 5, 8, 16, `reps` repetitions, a cold pass (the model evicted right
 *          before it) and a warm one, each reporting every node of the graph as the library
 *          computes it (ls_llamadrv_opts.observe): a node's time is the time since the previous
 *          node. One line a node, "state N repetition index name seconds", then one a pass,
 *          "pass state N repetition time_s" (scripts/testbed/probe/nodes-sum.sh and
 *          matmul-sum.sh read them).
 * Every pass is timed as the testbed times one (wall less run-queue wait, llamadrv.h); one
 * untimed 4-token pass first. Timings are printed, never asserted. */
#ifndef LS_RUNNER_TESTBED_PROBE_H
#define LS_RUNNER_TESTBED_PROBE_H
#include <stdio.h>
#include "sim/error.h"

typedef enum { LS_TBPROBE_TILES = 0, LS_TBPROBE_NODES = 1 } ls_tbprobe_kind;

/* Runs probe kind on the model file gguf with the library in libdir, printing to out. */
int ls_tbprobe_run(ls_tbprobe_kind kind, const char *libdir, const char *gguf, int reps, FILE *out, ls_error *err);

#endif
