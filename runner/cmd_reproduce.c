/* runner/cmd_reproduce: 'leversim reproduce' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_reproduce(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim reproduce: not implemented yet\n");
  return 70;
}
