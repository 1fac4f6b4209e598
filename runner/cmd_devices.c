/* runner/cmd_devices: 'leversim devices' (placeholder until its issue lands). */
#include <stdio.h>
#include "runner/commands.h"

int ls_cmd_devices(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  fprintf(stderr, "leversim devices: not implemented yet\n");
  return 70;
}
