/* runner/validate: an experiment checked whole before anything runs or is written, and the
 * catalogue of every setting the systems read (`leversim settings`).
 *
 * Validation runs the dry set-up of runner/decode (ls_decode_check) for every run spec: its
 * inputs, its settings scoped to its system, its policies. Runs whose (system, device, model,
 * dataset, seed, settings) repeat are checked once. The first failure is returned with the
 * location of the offending setting (file:line:col or command-line argument), the run it
 * broke, and, for a key this system does not read, the systems that do.
 * The catalogue is collected the same way: one dry set-up per system and dataset on a
 * reference device and target, with no settings, so it lists exactly what the code reads. */
#ifndef LS_RUNNER_VALIDATE_H
#define LS_RUNNER_VALIDATE_H
#include "runner/decode/decode.h"
#include "runner/study/experiment.h"

/* LS_OK when every run of x passes ls_decode_check; else the first error (see above). */
int ls_validate_experiment(ls_experiment *x, ls_decode_cache *cache, ls_error *err);

/* The same with a cache of its own under ls_data_root (for the commands). */
int ls_validate_runs(ls_experiment *x, ls_error *err);
/* The same, choosing policies from policies (borrowed; NULL: the built-ins). */
int ls_validate_runs_with(ls_experiment *x, const ls_policy_set *policies, ls_error *err);

#define LS_VALIDATE_KEYS_MAX 128
typedef struct ls_validate_entry {
  ls_kv_decl decl;         /* first reader's declaration (default of that system) */
  char systems[512];       /* systems that read it, comma-separated */
  char defaults[1024];     /* "system=default, ..." (each system's first dataset) */
  int n_systems;
  int varies_by_system;    /* the default differs between systems */
  int varies_by_input;     /* ... or between datasets for one system */
} ls_validate_entry;

typedef struct ls_validate_keys {
  ls_validate_entry e[LS_VALIDATE_KEYS_MAX];
  int n;
  char device[64], model[64]; /* the reference inputs the defaults were read on */
} ls_validate_keys;

/* Fills *out (caller-owned, large: allocate it) for every system, or for `system` alone when
 * not NULL. Entries sorted by key. */
int ls_validate_catalog(ls_validate_keys *out, ls_decode_cache *cache, const char *data_root,
                       const char *system, ls_error *err);

#endif
