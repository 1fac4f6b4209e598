/* runner/decode/paths: where leversim finds its data folders (devices/profiles,
 * workloads/models, workloads/datasets, runner/experiments, plots).
 *
 * The root is $LEVERSIM_DATA when that is set and not empty, else the source tree the binary
 * was built from (LS_SOURCE_DIR, baked in by CMake), so a build runs from any folder. Every
 * layer above decode/ (studies, reports, calibration, the CLI) asks here, never getenv. */
#ifndef LS_RUNNER_DECODE_PATHS_H
#define LS_RUNNER_DECODE_PATHS_H
#include "sim/error.h"

/* Borrowed: the environment's string or a literal; valid for the whole process. */
const char *ls_data_root(void);

/* LS_ENOTFOUND naming $LEVERSIM_DATA when it is set but is not a folder (checked when a
 * command starts, runner/cli/main.c: otherwise every device, model and dataset would be
 * "unknown" without a word about where they were looked for). */
int ls_data_root_check(ls_error *err);

#endif
