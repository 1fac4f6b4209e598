/* runner/decode/paths: the data root (see paths.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "runner/decode/paths.h"
#include "sim/fileio.h"

const char *ls_data_root(void)
{
  const char *env = getenv("LEVERSIM_DATA");
  return (env && env[0]) ? env : LS_SOURCE_DIR;
}

int ls_data_root_check(ls_error *err)
{
  const char *env = getenv("LEVERSIM_DATA");
  struct stat st;
  if (!env || !env[0]) return LS_OK;
  if (stat(env, &st) != 0)
    return ls_error_set(err, LS_ENOTFOUND, "LEVERSIM_DATA=%s: %s (the data root: a folder holding "
                        "devices/, workloads/ and runner/experiments/; unset it for the source tree's)",
                        env, strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return ls_error_set(err, LS_ENOTFOUND, "LEVERSIM_DATA=%s: is %s, not a folder (the data root: a "
                        "folder holding devices/, workloads/ and runner/experiments/)", env,
                        ls_file_kind(env));
  return LS_OK;
}
