/* workloads/workloads_int: helpers shared inside workloads/ (and its tests) only:
 * listing the YAML ids of a data folder and resolving an id to a path with a helpful
 * "not found" message. */
#ifndef LS_WORKLOADS_INT_H
#define LS_WORKLOADS_INT_H
#include "sim/error.h"

#define LS_WL_PATH 1024

/* Sorted ids (file names without ".yaml") in data_root/sub; returns how many exist (may
 * exceed max; only max are written), or LS_EIO when the folder cannot be opened. */
int ls_wl_list(const char *data_root, const char *sub, char (*ids)[64], int max);
/* Writes data_root/sub/<id>.yaml into path. When that file does not exist, returns
 * LS_ENOTFOUND with "unknown <what> 'id' (valid: a, b, ...)". */
int ls_wl_resolve(const char *data_root, const char *sub, const char *what, const char *id,
                  char *path, unsigned size, ls_error *err);
/* The id a file name stands for: basename without ".yaml", into out. */
void ls_wl_file_id(const char *path, char *out, unsigned size);

#endif
