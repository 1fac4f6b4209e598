/* runner/cmd_sweep: 'leversim sweep' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_sweep(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim sweep: not implemented yet\n");
  return 70;
}
