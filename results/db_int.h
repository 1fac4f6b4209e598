/* results/db_int: internals shared by the results/ sources and tests/results (not public). */
#ifndef LS_RESULTS_DB_INT_H
#define LS_RESULTS_DB_INT_H
#include <signal.h>
#include <sqlite3.h>
#include "results/db.h"

typedef struct ls_db_ref ls_db_ref; /* leversim's schema as built in memory (results/trust.c) */

struct ls_db {
  sqlite3 *h;               /* owned */
  char *path;               /* owned: any length */
  ls_db_ref *ref;           /* owned, built on first use: what leversim's schema holds */
  double read_t0, read_limit_s; /* an input's statement: its start and its time limit */
  int read_expired;             /* a statement on an input ran past the limit */
  const volatile sig_atomic_t *stop; /* borrowed: nonzero asks a lock wait to give up */
  double wait_last, wait_said;       /* the lock wait's last look at the clock; last progress line */
  double waited_s;                   /* every lock wait of this connection so far, in seconds:
                                        the bound (wait_limit_s) is on this total, not per wait */
  double wait_limit_s;               /* LS_DB_BUSY_MS, or LEVERSIM_DB_LOCK_WAIT=SECONDS */
  long wait_steps;                   /* pauses taken while waiting (tests count them: no clock) */
  int wait_spent;                    /* the total reached the bound: further waits fail at once */
  int interrupted;                   /* a lock wait gave up because of *stop */
  int claim_fd;                      /* the writer claim's descriptor (results/lock.c), -1: none */
  int claim_shared;                  /* its kind */
  sqlite3_stmt *st_del, *st_run, *st_metric, *st_step, *st_done, *st_meta, *st_get, *st_setting; /* owned */
  sqlite3_stmt *st_metrics_k, *st_settings_k; /* owned: LS_DB_ROWS rows at once (results/db.c),
                                                 prepared at the first run that fills one */
  void *ci_last; /* owned (results/stats.c): the last run's prompts and metric intervals */
  int ci_want_read;        /* the study's declared intervals were read (results/stats.c): */
  unsigned long ci_mask;   /*   bit i: metric i's per-run interval is written (metric_ci) */
  int ci_ratios;           /*   which paired ratio intervals (ratio_ci, summary_ci): */
#define LS_CI_RATIOS_NONE 0  /*     none */
#define LS_CI_RATIOS_ALL 1   /*     every pair's */
#define LS_CI_RATIOS_SHOWN 2 /*     the pairs whose interval a view shows; the others'
                                    estimates only (results/stats.c, PAIR_SHOWN) */
  sqlite3_stmt *st_pairs; /* owned (results/stats.c): one run's pairs without an interval,
                             asked after every run written; prepared once (about 1 M
                             instructions each time: the query joins the roles' views) */
  sqlite3_stmt *st_prompt, *st_ci; /* owned (results/stats.c): a run's prompts and metric
                                      intervals, prepared at the first run written (about
                                      45 k instructions each, every run before) */
};

/* The SQLite URI that opens path read-only ("file:PATH?mode=ro"), so that a -wal left by a
 * killed or running writer is read too. Only when the folder is not writable (read-only
 * media: SQLite could not create the -shm it needs) and there is no -wal to miss, it adds
 * "&immutable=1", which reads the main file alone. Returns 1 when immutable was chosen, 0
 * when not, -1 when uri (size bytes) is too small, -2 when the folder is read-only and holds
 * a non-empty -wal: its committed runs cannot be read there, so the input is refused. */
int ls_db_input_uri(const char *path, char *uri, size_t size);
/* The size of a buffer that always holds path's input URI. */
size_t ls_db_input_uri_size(const char *path);
/* The same, with -1 and -2 as located errors (LS_EUSAGE, LS_EIO). */
int ls_db_input_uri_checked(const char *path, char *uri, size_t size, ls_error *err);
/* LS_OK when h holds a leversim results database of our schema version; else LS_EPARSE (not
 * SQLite, or SQLite without leversim's meta table), LS_EDB (other version) or LS_EIO. */
int ls_db_check_input(sqlite3 *h, const char *path, ls_error *err);
/* results/trust.c: databases are data, never code. ls_db_harden sets the connection's safety
 * options (input: views stored in the file disabled too). ls_db_check_objects compares the
 * schema of database `schema` ("main", "src") with leversim's: LS_EPARSE naming an object
 * that is not leversim's (output) or a leversim name of the wrong type or columns (both).
 * ls_db_guard_input checks an input and installs its authorizer and time limit;
 * ls_db_limit_said is the error of a statement the time limit ended (ls_db_fail uses it). */
int ls_db_harden(sqlite3 *h, int input);
int ls_db_check_objects(ls_db *db, const char *schema, int output, ls_error *err);
/* An existing output is fit to be written (checked before anything changes it): no damaged
 * page, no foreign key to a table it lacks; else LS_EPARSE saying which. */
int ls_db_check_fit(ls_db *db, ls_error *err);
int ls_db_guard_input(ls_db *db, ls_error *err);
/* LEVERSIM_DB_READ_LIMIT in seconds (its default when unset); LS_EUSAGE when malformed. */
int ls_db_read_limit(double *v, ls_error *err);
int ls_db_limit_said(ls_db *db, ls_error *err, const char *what);
int ls_db_ref_create(ls_db_ref **out, ls_error *err);
void ls_db_ref_free(ls_db_ref *ref);
int ls_db_ref_is_table(const ls_db_ref *ref, const char *name);
/* 1 when table name of the reference is STRICT (0: not, or no such table). */
int ls_db_ref_is_strict(const ls_db_ref *ref, const char *name);
/* 1 when CREATE TABLE text sql declares STRICT after its column list (NULL: 0); for the
 * reference's own text only (results/schema.c's), never a file's. */
int ls_db_sql_declares_strict(const char *sql);
/* The columns of leversim's table as ",a,b,c,"; NULL when no such table. Borrowed. */
const char *ls_db_ref_columns(const ls_db_ref *ref, const char *table);
/* results/recheck.c: an input's stored values against leversim's rules and the range table;
 * LS_EPARSE naming file, table, run, key and value. */
int ls_db_recheck_input(ls_db *db, ls_error *err);
/* leversim's views as TEMP views over an input's tables (results/schema.c). */
int ls_db_temp_views(ls_db *db, ls_error *err);
/* The writer claim of results/lock.c in its two steps (ls_db_claim is both): the lock alone
 * (refused at once, naming the holders) and the holder's row in meta. Released by
 * ls_db_close. */
int ls_db_claim_lock(ls_db *db, int exclusive, ls_error *err);
int ls_db_claim_record(ls_db *db, const char *command, ls_error *err);
void ls_db_claim_release(ls_db *db);
/* Maps a failed statement to LS_EINTR when a lock wait was interrupted, else ls_db_fail. */
int ls_db_fail_wait(ls_db *db, ls_error *err, const char *what);
/* Records the connection's last SQLite error as LS_EDB: "<path>: <what>: <sqlite msg>". */
int ls_db_fail(ls_db *db, ls_error *err, const char *what);
/* Runs SQL text without results (several statements allowed). */
int ls_db_exec(ls_db *db, const char *sql, ls_error *err);
/* Creates tables and indexes if absent and (re)creates the views (in the caller's
 * transaction). */
int ls_db_schema_create(ls_db *db, ls_error *err);
/* Recreates the views that are built from the roles' values (throughput). */
int ls_db_roles_refresh(ls_db *db, ls_error *err);
/* Shortest %g text of x that reads back to the same double (export, check). */
void ls_db_format_real(double x, char *buf, size_t size);
/* Registers ln() and exp() on the connection (views use them for geometric means). */
int ls_db_register_math(sqlite3 *h);
/* Writes run id's prompts and their metric intervals (results/stats.c), inside the caller's
 * transaction; nothing when n is 0. */
int ls_db_stats_write_run(ls_db *db, const char *id, const ls_db_prompt *p, int n, ls_error *err);

#endif
