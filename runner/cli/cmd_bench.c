/* runner/cli/cmd_bench: 'leversim bench engine|cycle|policies' (measurements, never tests). */
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"

static const ls_subcmd BENCH[] = {
    {"engine", ls_bench_engine, "events per second of the event engine (hold model)"},
    {"cycle", ls_bench_cycle, "wall time per simulated decode cycle, per system"},
    {"policies", ls_bench_policies, "median wall time of one tree build per draft policy"},
    {NULL, NULL, NULL}};

int ls_cmd_bench(int argc, char **argv)
{
  return ls_opts_group("bench", "Micro-benchmarks: measurements that vary with the machine, never tests.", BENCH,
                       argc, argv);
}
