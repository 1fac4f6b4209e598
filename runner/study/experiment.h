/* runner/experiment: experiment files (runner/experiments/NAME.yaml) expanded into run specs.
 *
 * An experiment has global settings, optional --quick settings, and parts; each part is a
 * matrix devices x models x datasets x systems with sweep axes (setting -> list of values),
 * expanded in that order (sweep axes last, in key order), so run i is the same run on every
 * machine: --shard i/N keeps the runs whose index is congruent to i-1 modulo N.
 * Settings precedence (later wins): experiment settings, quick settings (with --quick), the
 * `sizing` block (without --quick: workload.prompts per target model for the listed systems
 * of the listed parts), part settings, the sweep point, command-line --set; a part setting, a scoped experiment setting
 * or a --set that would replace a part's sweep axis is refused (every point would be one run).
 * Refused at load, located: experiment and part names that are not file names (letters,
 * digits, '.', '_', '-', not starting with '.', under LS_NAME_MAX), a name, part or sweep
 * value listed twice, and an experiment with no runs. Each setting keeps its origin
 * (file:line:col, or the command-line argument) for later messages. */
#ifndef LS_RUNNER_EXPERIMENT_H
#define LS_RUNNER_EXPERIMENT_H
#include <stdint.h>
#include "sim/error.h"
#include "sim/kv.h"
#include "runner/decode/runspec.h"


typedef struct ls_experiment ls_experiment;

/* Loads path; names are checked against the data folders under data_root; `overrides` (may be
 * NULL, borrowed) are applied to every run. shard_i in 1..shard_n (1/1 = everything).
 * *out owned by caller: ls_experiment_free. */
int ls_experiment_load(ls_experiment **out, const char *path, const char *data_root, int quick,
                       const ls_kv *overrides, int shard_i, int shard_n, ls_error *err);
/* A study: an experiment file, or none, plus the command line's settings and axes.
 * Without a file the study is one part named "run" whose devices, models, datasets and
 * systems are the --axis device=/model=/dataset=/system= lists (all four required), on the
 * paper experiment's top-level settings, seed and sizing, exactly as `leversim run` sees
 * them: a point of such a sweep is the same run (same run id) as `leversim run` with the
 * same --set. With a file, a names axis replaces that list in every part and a setting axis
 * replaces the part's sweep of that key or is added to it. Every --set is recorded with the
 * sweep point in the run's axes (ls_run_spec.axes_json). docs/EXPERIMENTS.md. */
typedef struct ls_study_args {
  const char *path;        /* experiment YAML (borrowed), or NULL */
  const char *data_root;   /* borrowed */
  int quick;
  const ls_kv *overrides;  /* --set key=value (may be NULL; borrowed) */
  const ls_kv *axes;       /* --axis key -> "v1,v2,..." (may be NULL; borrowed) */
  int shard_i, shard_n;
} ls_study_args;
int ls_experiment_open(ls_experiment **out, const ls_study_args *a, ls_error *err);
void ls_experiment_free(ls_experiment *x);
const char *ls_experiment_name(const ls_experiment *x);
int ls_experiment_count(const ls_experiment *x);      /* runs in this shard */
int ls_experiment_total(const ls_experiment *x);      /* runs in all shards */
/* The experiment's quick.settings when they were not applied (loaded without --quick), so
 * that validation checks their keys anyway; NULL when none (borrowed). */
const ls_kv *ls_experiment_quick_unused(const ls_experiment *x);
ls_run_spec *ls_experiment_run(ls_experiment *x, int i); /* borrowed */

/* The top-level `settings` and `seed` of the experiment at path (no parts, no quick
 * settings), for `leversim run`'s defaults: settings are added to into (later ls_kv_set
 * calls override them), each with its file:line:col origin. With model and system (may be
 * NULL), the `sizing` block's workload.prompts for them too, as in the replay's cell. */
int ls_experiment_defaults(const char *path, const char *data_root, const char *model,
                           const char *system, ls_kv *into, uint64_t *seed, ls_error *err);

/* A one-run experiment from names and settings (for `leversim run`); settings copied; names
 * checked against the data folders (unknown -> LS_ENOTFOUND listing the valid choices). */
int ls_experiment_single(ls_experiment **out, const char *device, const char *model,
                         const char *dataset, const char *system, const ls_kv *settings,
                         uint64_t seed, const char *data_root, ls_error *err);

/* The experiment's `roles` block (results/db.h ls_db_set_role): what the results views
 * compare; a study without a file has the paper experiment's. Borrowed; never NULL. */
const ls_kv *ls_experiment_roles(const ls_experiment *x);
/* Adds the `roles` block of the experiment file at path (none: nothing) to into. */
int ls_experiment_roles_file(const char *path, ls_kv *into, ls_error *err);

/* Records given (the command line's --set, --prompts, --tokens; borrowed) as the axes of
 * every run of x (ls_experiment_single makes "{}"), as a sweep records its --set. */
int ls_experiment_record_axes(ls_experiment *x, const ls_kv *given, ls_error *err);

#endif
