/* runner/cmd_bench: 'leversim bench engine|policies' (measurements, never tests). */
#include <stdio.h>
#include <string.h>
#include "runner/commands.h"

int ls_cmd_bench(int argc, char **argv)
{
  if (argc < 2 || strcmp(argv[1], "--help") == 0) {
    printf("usage: leversim bench engine [--pending N] [--events N]\n"
           "       leversim bench policies [--budget N] [--reps N]\n");
    return argc < 2 ? 64 : 0;
  }
  if (strcmp(argv[1], "engine") == 0)
    return ls_bench_engine(argc - 1, argv + 1);
  if (strcmp(argv[1], "policies") == 0)
    return ls_bench_policies(argc - 1, argv + 1);
  return ls_usage_error("bench", "unknown benchmark '%s' (expected engine or policies)", argv[1]);
}
