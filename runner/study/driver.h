/* runner/driver: runs an experiment's run specs into a results database.
 *
 * --jobs N forks N worker processes; each takes the next run not yet taken (a counter they
 * share), simulates it and writes each finished run in its own transaction (results/db.h: WAL, busy timeout), so
 * results are identical for any N and a killed sweep loses only runs in flight. --resume skips
 * runs already finished in the database. SIGINT or SIGTERM — to the whole process group or to
 * the parent alone, which passes it on — lets every worker finish its current run, then stops
 * and prints how to resume (exit 130). A worker that fails stops with its own exit status (74
 * for a full disk or a file-size limit), one killed by a signal is named with it; the others
 * are then stopped after their current run, and the driver returns that error. Progress goes to stderr: on a terminal a bar redrawn after every
 * run, elsewhere a line (done/total, failures, elapsed, time left) about every 5 s. */
#ifndef LS_RUNNER_DRIVER_H
#define LS_RUNNER_DRIVER_H
#include "runner/decode/decode.h"
#include "runner/study/experiment.h"

typedef struct ls_driver_opts {
  const char *db_path;    /* borrowed */
  const char *data_root;  /* borrowed */
  const char *resume_hint;/* command to print after an interruption (borrowed; may be NULL) */
  int jobs;               /* >= 1 */
  int resume;
  int keep_steps;         /* write per-cycle series */
  double progress_s;      /* off a terminal, a progress line every this many seconds (0: 5) */
  int fresh;              /* empty the database first (needs it to itself: ls_db_claim) */
  const char *command;    /* names the writer in another command's refusal ("sweep") */
  const char *const *meta;/* key, value, ..., NULL: written into meta before any run */
  const ls_policy_set *policies; /* borrowed; NULL: the built-in policies */
} ls_driver_opts;

typedef struct ls_driver_summary {
  int total, skipped, ok, invalid, failed;
  int reused;             /* runs recorded from another run's simulation (same reuse_id) */
  int interrupted;
  double wall_s;
} ls_driver_summary;

/* Runs every spec of x into o->db_path, then recomputes the database's paired intervals
 * (ls_db_stats_refresh). Specs with the same reuse_id (ls_driver_hash_ids) are simulated once,
 * by the worker that takes the first of them, which then records the same result under each
 * of the others (their own run id, part and sweep point; wall_s the time of the copy). */
int ls_driver_run(ls_experiment *x, const ls_driver_opts *o, ls_driver_summary *sum, ls_error *err);

/* Records roles (an experiment's `roles` block: ls_experiment_roles) in db; a role the
 * database already names otherwise keeps its name, with a note on stderr. */
int ls_driver_write_roles(ls_db *db, const ls_kv *roles, ls_error *err);

/* A run is identified by its part and its fully resolved configuration: device (a profile named by
 * path counts as its shipped id when the file is byte for byte the shipped profile, else as
 * its content's hash), model, dataset, system (canonical name), seed, and every setting the
 * run read with its effective value, given or default (numbers in base units; the output
 * projection's placement as resolved, ls_decode_result.head_memory), sorted by key.
 * Writes that (without the part and sweep point, which ls_driver_hash_ids adds) as canonical JSON into buf (the
 * row's config_json); -1 when it does not fit.
 * res: from ls_decode_check or ls_decode_run of spec. data_root: where shipped profiles are. */
int ls_driver_resolved_json(const ls_run_spec *spec, const ls_decode_result *res, const char *data_root,
                            char *buf, size_t size);
/* Sets spec->run_id and spec->reuse_id from json, spec's resolved configuration
 * (ls_driver_resolved_json). run_id, the row's key, hashes the part, json and the seed, and for
 * a run of a part with `cases` its point (axes_json) too, so that each case of a one-factor
 * design is a row of its own even where it resolves as another case does (elsewhere setting a
 * default explicitly is the same run); reuse_id hashes json and the seed alone: two runs with the same reuse_id
 * simulate the same thing bit for bit (a run reads nothing but its resolved settings and its
 * seed), and the driver computes such a group once and records the result under each run. */
void ls_driver_hash_ids(ls_run_spec *spec, const char *json);
/* Sets spec->run_id from ls_driver_resolved_json (res as there). */
int ls_driver_set_id(ls_run_spec *spec, const ls_decode_result *res, const char *data_root, ls_error *err);
/* Resolves spec's settings without simulating (ls_decode_check) and sets spec->run_id; a spec
 * that cannot be set up gets the hash of its settings as given (it is recorded as failed). */
int ls_driver_resolve_id(ls_decode_cache *cache, ls_run_spec *spec, ls_error *err);
/* A hash of spec as the experiment expanded it (part, names as written, settings as given,
 * seed), not of what they resolve to: names a replay's expansion (meta spec_hash) whatever
 * the profiles' values, so a changed profile is a regression to check, not another replay. */
int ls_driver_given_hash(const ls_run_spec *spec, char id[LS_DB_RUN_ID_LEN + 1], ls_error *err);
/* The run id of spec (the database key; 32 hex digits): spec->run_id, which ls_validate_*
 * or ls_driver_resolve_id set; LS_ESTATE when neither has. */
int ls_driver_spec_id(const ls_run_spec *spec, char id[LS_DB_RUN_ID_LEN + 1], ls_error *err);

/* Runs one spec and writes it to db (NULL: not written; shared by the driver and `leversim
 * run`). *status_out: 0 ok, 1 not valid here, 2 the run failed (and was recorded),
 * 3 nothing was recorded (the spec or the database write failed: stop). */
int ls_driver_run_one(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, int keep_steps,
                      ls_decode_result *res, int *status_out, ls_error *err);

#endif
