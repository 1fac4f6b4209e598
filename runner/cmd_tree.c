/* runner/cmd_tree: 'leversim tree' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_tree(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim tree: not implemented yet\n");
  return 70;
}
