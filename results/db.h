/* results/db: the SQLite results store of leversim — schema, writer, export, merge, check.
 *
 * One database file holds many runs. A run is one simulated configuration (device x model x
 * dataset x system x swept settings x seed); it is written in ONE transaction together with
 * its metrics and optional per-cycle steps, so a killed process never leaves half a run.
 * WAL journal + busy timeout: several processes may write the same file at once.
 * Tables (STRICT) and views are documented at the top of results/schema.c; `leversim export
 * --view NAME` prints a view as CSV/JSON, `leversim check` compares speedup ratios against a
 * committed baseline (format in results/check.c), `leversim merge` combines shard databases.
 * results/ depends only on sim/ and SQLite. Every function returns an LS_* status. */
#ifndef LS_RESULTS_DB_H
#define LS_RESULTS_DB_H
#include <stdint.h>
#include <stdio.h>
#include "sim/error.h"
#include "sim/boot.h"

#define LS_DB_SCHEMA_VERSION 3 /* 2: run_settings; 3: roles */
#define LS_DB_RUN_ID_LEN 32  /* hex digits of a run id from ls_db_hash_run (plus NUL: 33) */

typedef struct ls_db ls_db;

/* Opens (creating if absent) the database at path: tables, views, meta.schema_version and
 * PRAGMA application_id (leversim's mark). Writes only into a file that is leversim's: an
 * existing path that is not a regular file is LS_EIO; a non-SQLite file, another program's
 * SQLite database (other application_id, or tables without leversim's meta) is LS_EPARSE,
 * refused before anything is written; an empty file or empty SQLite database is adopted.
 * An existing file with another schema_version is LS_EDB naming both versions.
 * A wait for another writer's lock lasts at most a minute, prints a line on stderr every 5 s
 * and ends with LS_EINTR when a stop is asked (sim/stop.h).
 * *out is owned by the caller; free with ls_db_close. */
int ls_db_open(ls_db **out, const char *path, ls_error *err);
/* LS_EUSAGE naming the variable and its value when LEVERSIM_DB_LOCK_WAIT or
 * LEVERSIM_DB_READ_LIMIT is set but is not a time in seconds (checked when a command starts,
 * runner/cli/main.c, so a typo is never replaced by the default in silence). */
int ls_db_env_check(ls_error *err);
void ls_db_close(ls_db *db);  /* NULL allowed */
/* "" and ":memory:" (and "file:" URIs) are refused by both opens with LS_EUSAGE: SQLite would
 * keep such a database only until it is closed. */

/* Opens an existing database for reading only (export, check, figures, merge inputs): never
 * creates a file, never writes into it (no schema), sees the -wal of a killed or running
 * writer, and reads databases on read-only media (see ls_db_input_uri). Missing file:
 * LS_ENOTFOUND; not a regular file, or a -wal it cannot read: LS_EIO; not a leversim
 * database: LS_EPARSE; other schema version: LS_EDB. */
int ls_db_open_read(ls_db **out, const char *path, ls_error *err);

/* A writer's claim on an open database for the length of a command (results/lock.c).
 * Shared claims (sweep, merge, run --db, reproduce --resume) coexist: each run commits its
 * own rows. An exclusive claim (a fresh reproduce, which empties the database) is granted only
 * when no other process holds one. A claim that cannot be granted is refused at once with
 * LS_EDB naming the holder ("leversim sweep since <time> (host.pid ...)"). command names the
 * holder in messages. The claim lasts until ls_db_close (or the process dies). */
int ls_db_claim(ls_db *db, int exclusive, const char *command, ls_error *err);
/* ls_db_open and ls_db_claim in one, with the claim taken before anything waits for
 * SQLite's lock: a refusal comes at once even while the holder is inside a transaction. */
int ls_db_open_claim(ls_db **out, const char *path, int exclusive, const char *command,
                     ls_error *err);
/* Turns an exclusive claim into a shared one (after emptying: workers then write). */
int ls_db_claim_share(ls_db *db, ls_error *err);
/* Empties every table (runs, metrics, ... and meta except schema_version and the claims) in
 * one transaction; needs an exclusive claim (else LS_ESTATE). */
int ls_db_clear(ls_db *db, ls_error *err);

/* Removes a leversim database (with its -wal and -shm) that no writer claims: for a fresh
 * reproduce over a database of another schema version. Anything not leversim's: LS_EPARSE,
 * untouched; claimed by a writer: LS_EDB. */
int ls_db_remove_old(const char *path, ls_error *err);

/* A 128-bit content hash (two independent 64-bit chains) of part, the resolved config JSON
 * and the seed, as 32 lowercase hex digits into out (33 bytes). Include part so that the same
 * configuration swept in two parts of an experiment gets two rows. */
void ls_db_hash_run(const char *part, const char *config_json, uint64_t seed,
                    char out[LS_DB_RUN_ID_LEN + 1]);

/* *done = 1 when a run with this id is stored as ok or invalid, else 0: --resume redoes
 * failed runs (a failure may have been transient) and never redoes finished ones. */
int ls_db_run_done(ls_db *db, const char *run_id, int *done, ls_error *err);

/* All strings borrowed for the call. NULL text fields are stored as NULL (message, git_sha,
 * version may be NULL; run_id, part, device, model, dataset, system, status may not).
 * axes_json: the swept settings as a JSON object of strings, e.g. {"draft.budget":"16"}
 * ("{}" when none). status: "ok" | "failed" | "invalid". seed is stored as INTEGER (the
 * 64 bits reinterpreted as signed). */
/* One resolved setting of a run: every key the run read, given or defaulted. */
typedef struct ls_db_setting {
  const char *key, *value; /* value as text: as written, or the default's text */
  double num;              /* the value as a number in base units; NaN when not a number */
  const char *unit;        /* base unit of num ("B/s", "s"); NULL for plain numbers and text */
  const char *type;        /* "integer", "number", "quantity", "choice", "numbers", "text" */
  int is_default;
} ls_db_setting;
/* One prompt of a run: the per-prompt sums every interval is resampled from (results/stats.c).
 * Times in seconds of simulated decode (after prefill); sums are over the prompt's cycles. */
typedef struct ls_db_prompt {
  int prompt;                        /* index in the dataset (the same text for every system) */
  double tokens, cycles, tau_sum;    /* emitted tokens; decode cycles; sum of accepted + 1 */
  double decode_s, ttft_s;           /* decode time; time to first token */
  double draft_s, draft_work_s, verify_s, lmhead_s; /* stage wall times; passes added up */
  double tree_nodes, verify_tok;     /* sums of tree size and tokens per target layer */
  double io_wait_s, compute_s, waste_s;        /* NPU waits for flash; layer compute; beyond useful */
  double token_layers, waste_layers; /* token-layers computed; beyond the useful ones */
  double npu_busy_s, cpu_busy_s, flash_busy_s; /* busy times (cpu: core-seconds / cores) */
  double energy_j;                   /* decode energy */
} ls_db_prompt;
typedef struct ls_db_run {
  const char *run_id, *part, *device, *model, *dataset, *system, *axes_json, *config_json,
      *git_sha, *version, *status, *message;
  uint64_t seed;
  double wall_s;
  const ls_db_setting *settings; /* the run's resolved settings (may be NULL when n is 0) */
  int n_settings;
  const ls_db_prompt *prompts; /* per-prompt sums (may be NULL when n_prompts is 0) */
  int n_prompts;
} ls_db_run;
typedef struct ls_db_metric {
  const char *name;  /* see ls_db_metric_name; other names are stored but not pivoted */
  double value;      /* NaN/inf stored as NULL */
  const char *unit;  /* may be NULL */
} ls_db_metric;
typedef struct ls_db_step {
  int cycle, tree_size, verified_tokens, accepted;
  double draft_s, verify_s, lmhead_s;
} ls_db_step;

/* One transaction (BEGIN IMMEDIATE): replaces any previous row of run->run_id with the run,
 * its per-prompt sums with each metric's 95 % interval (table metric_ci), its n_metrics metrics
 * and n_steps steps (steps may be NULL when n_steps is 0). Any failure
 * rolls back and leaves the database as it was. Prepared statements are reused. */
int ls_db_write_run(ls_db *db, const ls_db_run *run, const ls_db_metric *m, int n_metrics,
                    const ls_db_step *steps, int n_steps, ls_error *err);

/* Reads one stored metric of a run: LS_ENOTFOUND when absent (or NULL). */
int ls_db_get_metric(ls_db *db, const char *run_id, const char *name, double *value,
                     ls_error *err);

/* A read-only query for reports (runner/report): sql (one SELECT over the tables and views
 * documented in results/schema.c) with text parameters ?1..?n_params bound from params; fn
 * is called once per row with the row's n columns as text (NULL for SQL NULL) and as numbers
 * (NaN when NULL or not a number). fn returning non-zero stops with that status. */
typedef int (*ls_db_row_fn)(void *ctx, int n, const char *const *text, const double *num,
                            ls_error *err);
int ls_db_select(ls_db *db, const char *sql, const char *const *params, int n_params,
                 ls_db_row_fn fn, void *ctx, ls_error *err);

/* Roles (table roles): the names a study gives the systems, parts and sweep axes the views
 * compare — which system is the reference of the speedups, which part holds the headline
 * configurations, which axis is the budget axis... — so that results/ names no policy.
 * Written by the driver from the experiment's `roles` block (docs/EXPERIMENTS.md). The first
 * value written for a role is kept: *kept (may be NULL) = 1 when value differed from it.
 * An unknown role is LS_EUSAGE. ls_db_role_name/about list them (NULL past the end). */
int ls_db_set_role(ls_db *db, const char *role, const char *value, int *kept, ls_error *err);
const char *ls_db_role_name(int i);
const char *ls_db_role_about(int i);

/* Inserts or replaces meta(key, value). */
int ls_db_set_meta(ls_db *db, const char *key, const char *value, ls_error *err);

/* The pivoted metric names (v_runs columns), in column order; NULL past the end. */
const char *ls_db_metric_name(int i);

/* The exportable views' names; NULL past the end (ls_db_list_views prints their descriptions). */
const char *ls_db_view_name(int i);
/* Prints "name  description" lines of every view to out. */
int ls_db_list_views(FILE *out);

/* Writes view (one of ls_db_view_name; anything else is LS_ENOTFOUND) to out.
 * format: "csv" (RFC 4180, header row, NULL as empty field), "json" (array of objects, NULL
 * as null) or "table" (aligned text for people). Reals are printed with %.17g so they read
 * back bit-identical. */
int ls_db_export(ls_db *db, const char *view, const char *format, FILE *out, ls_error *err);
/* The same with one more column per swept setting of the database (every key of the runs'
 * axes_json, named as the setting, e.g. "draft.budget"): its value in the row's axes_json, a
 * number when written as one. Only for views with an axes_json column (else LS_EUSAGE). */
int ls_db_export_axes(ls_db *db, const char *view, const char *format, FILE *out, ls_error *err);

/* Merges the input databases into out_path (created if absent). Idempotent: a run already in
 * the output with the same content (everything but wall_s, git_sha and version, including
 * metrics and steps) is skipped. The same run_id with different content is LS_EDB naming the
 * run and the input file. Every input is compared with the output before any is copied, so
 * a conflict with the output's runs leaves it unchanged; a conflict between two inputs is
 * found after the first of them was merged (re-running after the fix is safe). Missing or
 * foreign inputs are refused before anything is written. *added (may be NULL) receives the
 * number of runs copied. */
int ls_db_merge(const char *out_path, const char *const *inputs, int n, int *added,
                ls_error *err);

/* --- confidence intervals (results/stats.c; method: sim/boot.h, docs/STATISTICS.md) ---- */

/* The metrics that get an interval from the per-prompt sums, in order; NULL past the end.
 * (Totals of the design - tokens, cycles, decode_s - and latency quantiles get none.) */
const char *ls_db_ci_metric_name(int i);
/* The 95 % intervals of every metric of ls_db_ci_metric_name over a run's n prompts (out[i]
 * for metric i), resampled jointly: one list of prompts per replicate serves every metric.
 * The seed is a hash of the prompts' numbers, so identical data gets identical intervals.
 * lo = hi = NaN when n < LS_BOOT_MIN_UNITS (sim/boot.h); est is the metric as the runner
 * computes it. */
int ls_db_metric_cis(const ls_db_prompt *p, int n, ls_boot_ci out[], ls_error *err);
/* The intervals a study declares it reads (docs/EXPERIMENTS.md, "Intervals"), as the roles
 * of its database: role intervals.metrics, the comma-separated metrics of
 * ls_db_ci_metric_name whose per-run interval is written (table metric_ci; unset or "all":
 * every one), and intervals.ratios, "all" (unset), "shown" (every pair's estimate, but the
 * interval only of the pairs whose interval a view shows: lo and hi NULL for the others) or
 * "none" (no paired ratio intervals: tables ratio_ci and summary_ci stay empty, the views'
 * ratios are the runs' own quotients).
 * 0 when value is valid for role (any value of another role is); else -1, why (size bytes)
 * saying what is wrong. */
int ls_db_intervals_role_check(const char *role, const char *value, char *why, size_t size);
/* *written: 1 when the database's study writes the per-run interval of metric name (one of
 * ls_db_ci_metric_name), 0 when its role intervals.metrics leaves it out; *ratios: 1 when it
 * writes every pair's ratio interval, 2 those a view shows only (intervals.ratios = shown), 0
 * none. Either pointer may be NULL. LS_EDB for an invalid role. */
int ls_db_intervals_written(ls_db *db, const char *name, int *written, int *ratios, ls_error *err);
/* Metric name (one of ls_db_ci_metric_name) on one prompt, as a numerator and a denominator:
 * over a set of prompts the metric is sum num / sum den (what the intervals resample).
 * LS_ENOTFOUND for a metric without a per-prompt definition. */
int ls_db_metric_parts(const char *name, const ls_db_prompt *p, double *num, double *den, ls_error *err);
/* Metric i's interval of ls_db_metric_cis. */
int ls_db_metric_ci(const ls_db_prompt *p, int n, int i, double *est, double *lo, double *hi,
                    ls_error *err);

/* Recomputes the paired intervals between runs of a configuration (table ratio_ci: every ok
 * run against the lever, ar-flash, specinfer and lever-no-prune runs of its configuration,
 * for throughput and tau) and of Lever's mean speedups over part main (table summary_ci).
 * One transaction; the views (v_vs_lever, v_speedup, v_summary, fig10, fig11, fig12) read
 * these tables. Called after a sweep, a `run --db` and a merge. */
int ls_db_stats_refresh(ls_db *db, ls_error *err);
/* The ratio_ci rows that involve run_id (as the run or as the reference) and whose other run
 * is already in the database, for the pairs that have none yet: a sweep's worker calls it
 * after writing each run, so every pair is computed once, by whoever writes its second run,
 * while the other runs are still simulating. One IMMEDIATE transaction (two workers finishing
 * a pair's runs at once compute it once). The rows equal those of ls_db_stats_refresh (each
 * is a function of the two runs' prompts). run_id NULL: every pair that has none yet (a
 * worker stopped between writing a run and pairing it). */
int ls_db_stats_pair_run(ls_db *db, const char *run_id, ls_error *err);
/* Recomputes summary_ci alone from the runs and ratio_ci as they stand (after a sweep whose
 * workers called ls_db_stats_pair_run for every run). */
int ls_db_stats_summary(ls_db *db, ls_error *err);

/* The achieved precision of a replay (part main): relative 95 % half-widths, NaN when not
 * available (too few prompts). */
typedef struct ls_db_precision {
  double vs_ar_flash, vs_specinfer; /* Lever's arithmetic mean speedup over ar-flash, specinfer */
  double worst_config;              /* the widest per-configuration Lever speedup over ar-flash
                                       or specinfer (the ratios with the 3 % target) */
  char worst[192];                  /* which configuration and system that is */
  double worst_any;                 /* the widest over every system (no target: the other
                                       systems decode fewer prompts) */
  char worst_any_name[192];
  int prompts, prompts_max;         /* smallest and largest prompt count of a main run */
  double own_smaller;               /* the sizing rule's measure: the widest half-width of a
                                       headline system's own throughput among its main runs
                                       with fewer prompts than Lever's run of the configuration
                                       (NaN: none is smaller; INFINITY: one has no interval) */
  char own_smaller_name[192];
} ls_db_precision;
#define LS_DB_TARGET_HEADLINE 0.01  /* target half-width of a headline mean ratio */
#define LS_DB_TARGET_CONFIG 0.03    /* target half-width of a per-configuration ratio */
#define LS_DB_TARGET_OWN 0.003      /* the sizing rule: a headline system may decode fewer
                                       prompts than Lever when its own throughput's half-width
                                       stays under a tenth of LS_DB_TARGET_CONFIG */
int ls_db_precision_get(ls_db *db, ls_db_precision *out, ls_error *err);

/* Two-sided regression check of v_speedup (lever throughput / system throughput per
 * configuration, with its 95 % interval) against a baseline file (YAML; format and rule in
 * results/check.c). k > 0 overrides the file's multiplier of the combined half-width. Prints
 * a table to report (may be NULL); *regressions = entries outside their tolerance in either
 * direction, or missing. Returns LS_OK when the comparison ran (even with regressions);
 * LS_EINVALID when the database is from another replay than the baseline (the message names
 * the baseline that fits); an input error otherwise (file:line:col). */
int ls_db_check(ls_db *db, const char *baseline_path, double k, FILE *report,
                int *regressions, ls_error *err);
/* The same, the report in two layers: first the verdict (values checked, regressions, the
 * largest change), the headline (geometric mean throughput of the runs, baseline and now) and
 * the values that moved, largest first (at most 10); then, with verbose, every value
 * (ls_db_check is verbose). A baseline of replay "study" (written from any database that is
 * not a `reproduce` replay) fits any database: its values are matched by configuration. */
int ls_db_check_report(ls_db *db, const char *baseline_path, double k, int verbose, FILE *report,
                       int *regressions, ls_error *err);

/* Writes a baseline file (every non-lever row of v_speedup with its interval, every run's
 * throughput and I/O share) with multiplier k. From a database that records its replay (meta
 * experiment, replay, spec_hash, prompts, max_tokens: `leversim reproduce` writes them),
 * out_name (may be NULL) must be named <replay>.yaml; from any other database with a finished
 * run (a sweep, runs), the baseline is of replay "study", its sizes read from the runs, under
 * any name. */
int ls_db_write_baseline(ls_db *db, double k, const char *out_name, FILE *out, ls_error *err);

#endif
