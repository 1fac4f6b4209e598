/* runner/decode/paths: the data root (see paths.h). */
#include <stdlib.h>
#include "runner/decode/paths.h"

const char *ls_data_root(void)
{
  const char *env = getenv("LEVERSIM_DATA");
  return (env && env[0]) ? env : LS_SOURCE_DIR;
}
