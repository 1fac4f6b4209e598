/* runner/cli_util: helpers shared by the subcommands (data root, usage errors). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "runner/commands.h"

const char *ls_data_root(void)
{
  const char *env = getenv("LEVERSIM_DATA");
  return (env && env[0]) ? env : LS_SOURCE_DIR;
}

int ls_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "leversim %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'leversim %s --help')\n", cmd);
  va_end(ap);
  return 64;
}
