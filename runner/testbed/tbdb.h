/* runner/testbed/tbdb: the testbed's SQLite tables, beside (not inside) results/'s schema:
 *   tb_run         one measurement run: machine, library, models, settings;
 *   tb_pass        every timed pass (kind, tokens, context, repetition, time on an
 *                  uncontended machine, wall, CPU, run-queue wait, faults, bytes read);
 *   tb_spec        the speculative run's totals;
 *   tb_prediction  each held-out (or calibration) point: measured, predicted, relative error;
 *   view tb_passes per kind, tokens and context: repetitions, fastest and mean time, mean CPU
 *                  and bytes read;
 *   view tb_error  per run, profile and kind: points, mean and largest absolute error of the
 *                  held-out points.
 * Every statement is checked; failures are LS_EDB naming the database and SQLite's message. */
#ifndef LS_RUNNER_TESTBED_TBDB_H
#define LS_RUNNER_TESTBED_TBDB_H
#include "runner/testbed/measure.h"

#define LS_TBDB_ID 64

typedef struct ls_tbdb ls_tbdb;

/* What a run measured, besides its passes. */
typedef struct ls_tbdb_meta {
  char run_id[LS_TBDB_ID];
  char target[512], draft[512];
  char model_id[512];      /* the target's shape: a workloads/models id or a model YAML's path */
  char draft_model[512];   /* the draft's shape: a model YAML written beside the models */
  int threads, reps;
} ls_tbdb_meta;

/* One compared point. */
typedef struct ls_tbdb_point {
  char kind[LS_TBM_KIND];
  int n_tokens, ctx;
  double measured_s, predicted_s;
  int held_out;            /* 0: the calibration used it */
  double baseline_s;       /* the trivial model's prediction (validate.c; not stored) */
  int near;                /* 1: a near-copy of a calibration pass (validate.c; not stored) */
} ls_tbdb_point;

/* How a command uses the database: measure may create it; validate reads a run and stores
 * its predictions (the file must exist); head-rate only reads (opened read-only). */
typedef enum ls_tbdb_mode { LS_TBDB_CREATE, LS_TBDB_UPDATE, LS_TBDB_READ } ls_tbdb_mode;

/* Opens path after checking it whole, so that a refusal writes nothing: a symbolic link is
 * not written through, a 0-byte file or a file that is not SQLite is LS_EPARSE, as is a
 * database with other tables but no tb_run, or a testbed table lacking a column; then the
 * missing tables and views are created (not for LS_TBDB_READ). Triggers stored in the file
 * never fire. *out owned by caller (ls_tbdb_close). */
int ls_tbdb_open(ls_tbdb **out, const char *path, ls_tbdb_mode mode, ls_error *err);
void ls_tbdb_close(ls_tbdb *db);
/* Stores a run; meta->run_id is set ("tb-<UTC time>") when empty. */
int ls_tbdb_store_run(ls_tbdb *db, ls_tbdb_meta *meta, const ls_tbm_result *r, ls_error *err);
/* Loads a run (run_id NULL or "": the latest) into *r (caller frees with ls_tbm_result_free)
 * and *meta. LS_ENOTFOUND when there is none. */
int ls_tbdb_load_run(ls_tbdb *db, const char *run_id, ls_tbdb_meta *meta, ls_tbm_result *r, ls_error *err);
/* Replaces the predictions of (run, profile) with pts. */
int ls_tbdb_store_points(ls_tbdb *db, const char *run_id, const char *profile, const ls_tbdb_point *pts, int n,
                         ls_error *err);

#endif
