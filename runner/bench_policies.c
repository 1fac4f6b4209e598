/* runner/bench_policies: 'leversim bench policies' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_bench_policies(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim bench policies: not implemented yet\n");
  return 70;
}
