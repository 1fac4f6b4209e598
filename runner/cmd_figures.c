/* runner/cmd_figures: 'leversim figures' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_figures(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim figures: not implemented yet\n");
  return 70;
}
