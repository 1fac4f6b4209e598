/* workloads/workloads_int: helpers shared inside workloads/ (and its tests) only:
 * listing the YAML ids of a data folder, resolving an id to a path with a helpful
 * "not found" message, and the one loader of a model or dataset file. */
#ifndef LS_WORKLOADS_INT_H
#define LS_WORKLOADS_INT_H
#include <stddef.h>
#include "sim/error.h"
#include "sim/yaml.h"

#define LS_WL_PATH LS_PATH_MAX

/* Sorted ids (file names without ".yaml") in data_root/sub; returns how many exist (may
 * exceed max; only max are written), or LS_EIO when the folder cannot be opened. */
int ls_wl_list(const char *data_root, const char *sub, char (*ids)[64], int max);
/* Writes data_root/sub/<id>.yaml into path. When that file does not exist, returns
 * LS_ENOTFOUND with "unknown <what> 'id' (valid: a, b, ...)". */
int ls_wl_resolve(const char *data_root, const char *sub, const char *what, const char *id,
                  char *path, unsigned size, ls_error *err);
/* The id a file name stands for: basename without ".yaml", into out. */
void ls_wl_file_id(const char *path, char *out, unsigned size);

/* Loads the YAML file at path into a zeroed object of size bytes: read fills it from the
 * document, then the id it read (the char array at id_off) must match the file's name (an
 * error at the id's line otherwise). *out owned by the caller (free), NULL on error. The
 * loader of models and of datasets. */
int ls_wl_load(const char *path, size_t size, size_t id_off, int (*read)(ls_ydoc *doc, void *obj, ls_error *err),
               void **out, ls_error *err);

#endif
