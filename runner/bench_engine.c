/* runner/bench_engine: 'leversim bench engine' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_bench_engine(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim bench engine: not implemented yet\n");
  return 70;
}
