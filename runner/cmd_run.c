/* runner/cmd_run: 'leversim run' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_run(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim run: not implemented yet\n");
  return 70;
}
