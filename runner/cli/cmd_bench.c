/* runner/cmd_bench: 'leversim bench engine|cycle|policies' (measurements, never tests). */
#include <stdio.h>
#include <string.h>
#include "runner/cli/commands.h"

int ls_cmd_bench(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    printf("usage: leversim bench engine [--pending N] [--events N]\n"
           "       leversim bench cycle [--systems a,b] [--prompts N] [--tokens N] [--repeats N]\n"
           "       leversim bench policies [--budget N] [--reps N]\n");
    return argc < 2 ? 64 : 0;
  }
  if (strcmp(argv[1], "engine") == 0)
    return ls_bench_engine(argc - 1, argv + 1);
  if (strcmp(argv[1], "cycle") == 0)
    return ls_bench_cycle(argc - 1, argv + 1);
  if (strcmp(argv[1], "policies") == 0)
    return ls_bench_policies(argc - 1, argv + 1);
  return ls_usage_error("bench", "unknown benchmark '%s' (expected engine, cycle or policies)", argv[1]);
}
