/* runner/decode/runspec: one run to simulate — device, model, dataset and system by name, the
 * settings it sees, its seed. Studies (runner/study/experiment) expand files into these;
 * decode only reads them, so the type lives here, below the studies that make it. */
#ifndef LS_RUNNER_DECODE_RUNSPEC_H
#define LS_RUNNER_DECODE_RUNSPEC_H
#include <stdint.h>
#include "sim/kv.h"

#define LS_NAME_MAX 64

typedef struct ls_run_spec {
  char part[LS_NAME_MAX];
  char *device;        /* a profile id or a profile file's path, any length (owned by the
                          experiment that made the spec; a copy of a spec borrows it) */
  char model[LS_NAME_MAX], dataset[LS_NAME_MAX], system[LS_NAME_MAX];
  ls_kv *settings;     /* owned by the experiment: merged settings of this run */
  char axes_json[512]; /* the sweep point, e.g. {"draft.budget":"16"} */
  uint64_t seed;
  int index;           /* position in the full expansion (before sharding) */
  int cased;           /* 1: from a part with `cases` (its sweep point is part of its run id) */
  char run_id[33];     /* its identity once resolved (runner/study/driver: ls_driver_resolve_id), else "" */
  char reuse_id[33];   /* what it simulates once resolved: runs with the same one are computed once
                          (runner/study/driver: ls_driver_hash_ids), else "" */
} ls_run_spec;

#endif
