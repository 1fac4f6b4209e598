/* runner/cmd_trace: 'leversim trace' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_trace(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim trace: not implemented yet\n");
  return 70;
}
