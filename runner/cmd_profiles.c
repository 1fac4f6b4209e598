/* runner/cmd_profiles: 'leversim profiles' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_profiles(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim profiles: not implemented yet\n");
  return 70;
}
