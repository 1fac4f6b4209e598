/* runner/testbed/validate: see validate.h. */
#include "runner/testbed/validate.h"
#include "runner/commands.h"

int ls_tbv_command(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  return ls_usage_error("testbed", "validate: not built yet");
}
