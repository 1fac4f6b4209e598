/* results/db: opening a results database and writing runs into it.
 *
 * Invariants:
 *  - a run is written in one BEGIN IMMEDIATE transaction (delete previous row of the id, insert
 *    run, metrics, steps, commit); on any error the transaction is rolled back, so readers and
 *    a later --resume see either the whole run or nothing;
 *  - WAL journal + busy timeout: concurrent writers (shards, two sweeps on one file) queue on
 *    the write lock instead of failing; BEGIN IMMEDIATE takes the lock up front, so two
 *    writers never deadlock upgrading a read transaction;
 *  - synchronous=NORMAL in WAL mode: a killed process loses nothing committed; a power cut may
 *    lose the last commits but never corrupts the file (SQLite's documented WAL guarantee);
 *  - statements are prepared once per connection and reset after each use.
 * The run id hash: two 64-bit chains over the bytes of part, NUL, config JSON, NUL and the seed's
 * 8 bytes — FNV-1a 64 and a SplitMix64-finalised multiply-xorshift chain with another seed.
 * Not cryptographic: it only has to make accidental collisions between configurations
 * vanishingly unlikely (2^-128 per pair). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "results/db_int.h"
#include "sim/clock.h"
#include "sim/fileio.h"
#include "sim/stop.h"

#define LS_DB_BUSY_MS 60000  /* a command waits up to a minute in all for others' commits */
#define LS_DB_WAIT_SAY_S 5.0 /* a progress line on stderr this often while waiting */
#define LS_DB_APP_ID 0x4C565253 /* PRAGMA application_id of a leversim database: "LVRS" */

/* SQLite's text for a failed write says "disk I/O error"; the system's reason (No space left
 * on device, File too large) is what the user can act on. "" when there is none. */
static const char *os_reason(sqlite3 *h, char *buf, size_t size)
{
  int code = sqlite3_errcode(h) & 0xff, sys = sqlite3_system_errno(h);
  buf[0] = '\0';
  if ((code == SQLITE_IOERR || code == SQLITE_FULL || code == SQLITE_CANTOPEN) && sys)
    snprintf(buf, size, " (%s)", strerror(sys));
  return buf;
}

/* After the lock waits reached their bound: says so, with the total and how to change it. */
static int wait_said_spent(ls_db *db, ls_error *err, const char *what)
{
  return ls_error_set(err, LS_EDB, "%s: %s: database is locked: waited %.0f s in all for another "
                      "process's lock, the most one command waits (LEVERSIM_DB_LOCK_WAIT=SECONDS "
                      "changes it)", db->path, what, db->waited_s);
}

int ls_db_fail(ls_db *db, ls_error *err, const char *what)
{
  char why[160];
  if (db->read_expired) return ls_db_limit_said(db, err, what);
  if (db->wait_spent && (sqlite3_errcode(db->h) & 0xff) == SQLITE_BUSY) return wait_said_spent(db, err, what);
  return ls_error_set(err, LS_EDB, "%s: %s: %s%s", db->path, what, sqlite3_errmsg(db->h),
                      os_reason(db->h, why, sizeof why));
}

int ls_db_fail_wait(ls_db *db, ls_error *err, const char *what)
{
  if (db->interrupted)
    return ls_error_set(err, LS_EINTR, "%s: %s: interrupted while waiting for another "
                        "writer's lock", db->path, what);
  return ls_db_fail(db, err, what);
}

int ls_db_exec(ls_db *db, const char *sql, ls_error *err)
{
  char *msg = NULL, why[160];
  if (sqlite3_exec(db->h, sql, NULL, NULL, &msg) == SQLITE_OK) return LS_OK;
  if (db->interrupted) {
    sqlite3_free(msg);
    return ls_db_fail_wait(db, err, "waiting for the lock");
  }
  if (db->read_expired) {
    sqlite3_free(msg);
    return ls_db_limit_said(db, err, "a query");
  }
  if (db->wait_spent && (sqlite3_errcode(db->h) & 0xff) == SQLITE_BUSY) {
    sqlite3_free(msg);
    return wait_said_spent(db, err, "waiting for the lock");
  }
  int rc = ls_error_set(err, LS_EDB, "%s: %s%s", db->path, msg ? msg : sqlite3_errmsg(db->h),
                        os_reason(db->h, why, sizeof why));
  sqlite3_free(msg);
  return rc;
}

static const char *const stmt_sql[] = {
    "DELETE FROM runs WHERE run_id = ?1",
    "INSERT INTO runs(run_id, part, device, model, dataset, system, axes_json, config_json,"
    " seed, git_sha, version, status, message, wall_s)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
    "INSERT INTO metrics(run_id, name, value, unit) VALUES(?1, ?2, ?3, ?4)",
    "INSERT INTO steps(run_id, cycle, tree_size, verified_tokens, accepted, draft_s, verify_s,"
    " lmhead_s) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    "SELECT 1 FROM runs WHERE run_id = ?1 AND status <> 'failed'",
    "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
    "SELECT value FROM metrics WHERE run_id = ?1 AND name = ?2",
    "INSERT INTO run_settings(run_id, key, value_text, value_num, unit, type, is_default)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
};

static sqlite3_stmt **stmt_slot(ls_db *db, int i)
{
  sqlite3_stmt **slots[] = {&db->st_del, &db->st_run, &db->st_metric, &db->st_step,
                            &db->st_done, &db->st_meta, &db->st_get, &db->st_setting};
  return slots[i];
}
#define N_STMT ((int)(sizeof stmt_sql / sizeof *stmt_sql))

/* The schema_version a file holds: LS_OK when it is ours (*found 1) or absent (*found 0),
 * LS_EDB naming another version (compared as text: 'two' is reported as 'two', not 0). */
static int read_version(ls_db *db, int *found, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  *found = 0;
  if (sqlite3_prepare_v2(db->h, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st,
                         NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return ls_db_fail(db, err, "reading schema_version");
  }
  int rc = LS_OK, s = sqlite3_step(st);
  if (s == SQLITE_ROW) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char num[16];
    snprintf(num, sizeof num, "%d", LS_DB_SCHEMA_VERSION);
    *found = 1;
    if (!v || strcmp(v, num) != 0)
      rc = ls_error_set(err, LS_EDB, "%s: schema_version '%s', this leversim reads %d",
                        db->path, v ? v : "(null)", LS_DB_SCHEMA_VERSION);
  } else if (s != SQLITE_DONE) {
    rc = ls_db_fail(db, err, "reading schema_version");
  }
  sqlite3_finalize(st);
  return rc;
}

/* Schema and schema_version, once, under the write lock (two processes may create at once). */
static int init_schema(ls_db *db, ls_error *err)
{
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE", err);
  if (rc != LS_OK) return rc;
  char app[64];
  snprintf(app, sizeof app, "PRAGMA application_id = %d", LS_DB_APP_ID);
  rc = ls_db_exec(db, app, err);
  if (rc == LS_OK) rc = ls_db_schema_create(db, err);
  int found = 0;
  if (rc == LS_OK) rc = read_version(db, &found, err);
  if (rc == LS_OK && !found) {
    char sql[128];
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES('schema_version', '%d')",
             LS_DB_SCHEMA_VERSION);
    rc = ls_db_exec(db, sql, err);
  }
  if (rc == LS_OK) return ls_db_exec(db, "COMMIT", err);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* One more look at the clock during a lock wait: the time since the last look joins the
 * connection's total. 1 when the total reached the bound (the wait must give up). Every wait
 * of a command draws on one budget, so "at most 60 s" is what the user waits in all, however
 * many transactions a sweep makes (issue 35: a sweep said "at most 60 s" and waited 75). */
static int wait_spend(ls_db *db, int first)
{
  double now = ls_now_s();
  if (first) db->wait_said = now;
  else if (now > db->wait_last) db->waited_s += now - db->wait_last;
  db->wait_last = now;
  db->wait_spent = db->waited_s >= db->wait_limit_s; /* stays so: the total only grows */
  return db->wait_spent;
}

/* Switching a fresh file to WAL needs an exclusive lock, and SQLite returns SQLITE_BUSY at
 * once (no busy handler: it would deadlock) when another process holds a shared lock while
 * doing the same. So retry with a growing pause, drawing on the same budget of lock waits. */
static int set_wal(ls_db *db, ls_error *err)
{
  for (int attempt = 1;; attempt++) {
    int rc = ls_db_exec(db, "PRAGMA journal_mode=WAL", err);
    int code = sqlite3_errcode(db->h) & 0xff;
    if (rc == LS_OK || (code != SQLITE_BUSY && code != SQLITE_LOCKED) || wait_spend(db, attempt == 1))
      return rc;
    if (*ls_stop_flag()) {
      db->interrupted = 1;
      return ls_db_fail_wait(db, err, "switching to WAL");
    }
    long ms = attempt < 50 ? attempt : 50;
    struct timespec ts = {0, ms * 1000000L};
    db->wait_steps++;
    nanosleep(&ts, NULL);
  }
}

/* SQLite's busy handler: waits for another writer's lock while the connection's lock waits
 * stay under their bound in all (wait_spend), says so on stderr every LS_DB_WAIT_SAY_S
 * seconds, and gives up at once when a stop was asked (SIGINT/SIGTERM), so a waiting command
 * is never deaf to Ctrl-C. */
static int busy_wait(void *ctx, int count)
{
  ls_db *db = ctx;
  if (*ls_stop_flag()) {
    db->interrupted = 1;
    return 0;
  }
  if (wait_spend(db, count == 0)) return 0;
  if (db->wait_last - db->wait_said >= LS_DB_WAIT_SAY_S) {
    fprintf(stderr, "leversim: %s: waiting for another process's lock on the database "
            "(%.0f s of at most %.0f s in all; Ctrl-C stops)\n", db->path, db->waited_s, db->wait_limit_s);
    db->wait_said = db->wait_last;
  }
  struct timespec ts = {0, (count < 20 ? count + 1 : 20) * 1000000L};
  db->wait_steps++;
  nanosleep(&ts, NULL);
  return 1;
}

/* Prepares the statements not prepared yet (persistent: SQLite prepares them again itself
 * after a schema change). */
static int prepare_all(ls_db *db, ls_error *err)
{
  for (int i = 0; i < N_STMT; i++)
    if (!*stmt_slot(db, i) &&
        sqlite3_prepare_v3(db->h, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, stmt_slot(db, i),
                           NULL) != SQLITE_OK)
      return ls_db_fail(db, err, "preparing statements");
  return LS_OK;
}

/* A file that already holds leversim's tables is checked whole before anything changes it
 * (its journal mode, its views): a file the command refuses is left exactly as it was. */
static int check_before_change(ls_db *db, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  int has_meta = sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_master WHERE type = 'table' "
                                    "AND name = 'meta'", -1, &st, NULL) == SQLITE_OK &&
                 sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  if (!has_meta) return LS_OK; /* new or empty: nothing of a user's to keep */
  int found = 0, rc = ls_db_check_fit(db, err);
  if (rc == LS_OK) rc = read_version(db, &found, err);
  return rc; /* a missing leversim table is made again by init_schema: a repair, not a refusal */
}

static int configure(ls_db *db, ls_error *err)
{
  int rc = ls_db_check_objects(db, "main", 1, err); /* before anything reads or writes it */
  if (rc != LS_OK) return rc;
  if (sqlite3_busy_handler(db->h, busy_wait, db) != SQLITE_OK ||
      ls_db_register_math(db->h) != SQLITE_OK)
    return ls_db_fail(db, err, "configuring the connection");
  rc = check_before_change(db, err);
  if (rc == LS_OK) rc = set_wal(db, err);
  if (rc == LS_OK)
    rc = ls_db_exec(db, "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;", err);
  if (rc == LS_OK) rc = init_schema(db, err);
  if (rc == LS_OK) rc = prepare_all(db, err);
  return rc;
}

/* SQLite reads "" as a private temporary file and ":memory:" as a database in memory: both
 * vanish when the connection closes, so results written there would be lost silently. */
static int path_is_temporary(const char *path)
{
  return path[0] == '\0' || strcmp(path, ":memory:") == 0 || strncmp(path, "file:", 5) == 0;
}

/* SQLite's unix VFS opens paths of at most mxPathname (512) bytes once made absolute: a
 * longer one is refused here, saying why, instead of "unable to open database file". */
static int path_fits_sqlite(const char *path, ls_error *err)
{
  sqlite3_vfs *vfs = sqlite3_vfs_find(NULL);
  size_t len = strlen(path);
  if (path[0] != '/') {
    char *cwd = getcwd(NULL, 0);
    len += cwd ? strlen(cwd) + 1 : 0;
    free(cwd);
  }
  if (vfs && len >= (size_t)vfs->mxPathname)
    return ls_error_set(err, LS_EIO, "database %s: its absolute path is %zu bytes long; SQLite "
                        "opens database paths of at most %d bytes (move it to a shorter path)",
                        path, len, vfs->mxPathname - 1);
  return LS_OK;
}

/* What stands at path for an output database: 0 absent, 1 a regular file (size in *size),
 * or LS_EIO naming what else it is (a directory, a device, a FIFO: SQLite would write its
 * journal next to /dev/null or block on a FIFO). */
static int db_target(const char *path, const char *role, int output, off_t *size, ls_error *err)
{
  struct stat st;
  *size = 0;
  /* an output is never written through a symbolic link (SQLite would follow it, and create
   * the file a dangling one points to); an input may be read through one */
  if (output && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s %s: is a symbolic link; refusing to write through it "
                        "(give the database's own path)", role, path);
  if (stat(path, &st) != 0) {
    if (errno == ENOENT) return 0;
    return ls_error_set(err, LS_EIO, "%s %s: %s", role, path, strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s %s: is %s, not a leversim database; refusing to use "
                        "it (give a file name)", role, path, ls_file_kind(path));
  *size = st.st_size;
  return 1;
}

/* One integer from a query (a pragma, a count); LS_EPARSE when the file is not SQLite. */
static int query_int(ls_db *db, const char *sql, int *v, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = LS_OK;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK || sqlite3_step(st) != SQLITE_ROW) {
    int code = sqlite3_errcode(db->h) & 0xff;
    if (code == SQLITE_NOTADB)
      rc = ls_error_set(err, LS_EPARSE, "%s: not a SQLite database, so not a leversim results "
                        "database; refusing to write into it", db->path);
    else
      rc = ls_db_fail_wait(db, err, "reading the database header");
  } else {
    *v = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  return rc;
}

/* An existing file is written only when it is ours: leversim's application_id, or (written
 * before the id existed) a meta table holding schema_version, or an empty SQLite file. Any
 * other SQLite database is another program's and is refused before anything is written. */
static int check_owner(ls_db *db, ls_error *err)
{
  int app = 0, tables = 0, meta = 0;
  int rc = query_int(db, "PRAGMA application_id", &app, err);
  if (rc) return rc;
  if (app == LS_DB_APP_ID) return LS_OK;
  if (app != 0)
    return ls_error_set(err, LS_EPARSE, "%s: a SQLite database of another program "
                        "(application_id 0x%08X), not a leversim results database; refusing to "
                        "write into it", db->path, (unsigned)app);
  rc = query_int(db, "SELECT count(*) FROM sqlite_master", &tables, err);
  if (!rc && tables > 0)
    rc = query_int(db, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = "
                   "'meta' AND sql LIKE '%key%value%'", &meta, err);
  if (rc || tables == 0 || meta == 0)
    return rc ? rc : tables == 0 ? LS_OK
                  : ls_error_set(err, LS_EPARSE, "%s: a SQLite database without leversim's "
                                 "tables (not a leversim results database); refusing to write "
                                 "into it", db->path);
  sqlite3_stmt *st = NULL;
  int has = sqlite3_prepare_v2(db->h, "SELECT 1 FROM meta WHERE key = 'schema_version'", -1,
                               &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  if (!has)
    return ls_error_set(err, LS_EPARSE, "%s: a SQLite database with a meta table but no "
                        "schema_version (not a leversim results database); refusing to write "
                        "into it", db->path);
  return LS_OK;
}

/* The bound on a command's lock waits in all: LS_DB_BUSY_MS, or LEVERSIM_DB_LOCK_WAIT=SECONDS
 * (tests and a user who would rather fail fast). */
static const ls_env_limit LOCK_WAIT = {"LEVERSIM_DB_LOCK_WAIT", LS_DB_BUSY_MS / 1000.0, 1e9, 1};

static int wait_limit(double *v, ls_error *err) { return ls_env_seconds(&LOCK_WAIT, v, err); }

static double wait_limit_s(void) { return ls_env_seconds_or_default(&LOCK_WAIT); }

int ls_db_env_check(ls_error *err)
{
  double v;
  int rc = wait_limit(&v, err);
  return rc ? rc : ls_db_read_limit(&v, err);
}

/* A handle for path with nothing open yet; NULL when out of memory. */
static ls_db *db_new(const char *path)
{
  ls_db *db = calloc(1, sizeof *db);
  if (db && !(db->path = strdup(path))) {
    free(db);
    db = NULL;
  }
  if (db) db->claim_fd = -1;
  if (db) db->wait_limit_s = wait_limit_s();
  return db;
}

/* claim: -1 none, 0 shared, 1 exclusive (taken before anything waits for SQLite's lock) */
static int open_rw(ls_db **out, const char *path, int claim, const char *command, ls_error *err)
{
  *out = NULL;
  if (path_is_temporary(path))
    return ls_error_set(err, LS_EUSAGE,
                        "--db '%s': not a file: results written there would be lost (give a "
                        "file name such as results/run.db)", path);
  off_t size;
  int exists = db_target(path, "database", 1, &size, err);
  if (exists < 0) return exists;
  int rc = path_fits_sqlite(path, err);
  if (rc != LS_OK) return rc;
  ls_db *db = db_new(path);
  if (!db) return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  /* URI names are allowed so that merge can ATTACH its inputs read-only (ls_db_input_uri);
   * a plain path given here never starts with "file:" (refused above). CREATE only when the
   * file is absent, so nothing is made where the check above did not look. */
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_URI | (exists ? 0 : SQLITE_OPEN_CREATE);
  rc = LS_OK;
  if (sqlite3_open_v2(path, &db->h, flags, NULL) != SQLITE_OK)
    rc = ls_error_set(err, LS_EIO, "%s: cannot open database: %s", path,
                      db->h ? sqlite3_errmsg(db->h) : "out of memory");
  /* SQLite opens a file it may not write read-only without saying so; its first read would
   * then leave an empty -wal and -shm beside a database the command refuses */
  if (!rc && sqlite3_db_readonly(db->h, "main") == 1)
    rc = ls_error_set(err, LS_EIO, "%s: cannot write the database: %s (an output database must be "
                      "writable)", path, strerror(access(path, W_OK) == 0 ? EROFS : EACCES));
  if (!rc && (sqlite3_busy_handler(db->h, busy_wait, db) != SQLITE_OK ||
              ls_db_harden(db->h, 0) != SQLITE_OK))
    rc = ls_db_fail(db, err, "configuring the connection");
  if (!rc && exists && size > 0) rc = check_owner(db, err);
  if (!rc && claim >= 0) rc = ls_db_claim_lock(db, claim, err);
  if (!rc) rc = configure(db, err);
  if (!rc && claim >= 0) rc = ls_db_claim_record(db, command, err);
  if (rc != LS_OK) {
    ls_db_close(db);
    return rc;
  }
  *out = db;
  return LS_OK;
}

int ls_db_open(ls_db **out, const char *path, ls_error *err)
{
  return open_rw(out, path, -1, NULL, err);
}

int ls_db_open_claim(ls_db **out, const char *path, int exclusive, const char *command,
                     ls_error *err)
{
  return open_rw(out, path, exclusive != 0, command, err);
}

/* --- opening an input read-only ---------------------------------------------------------- */

/* Writable for us: the process may write it AND some write bit is set. The mode bits are
 * looked at too because root passes access(W_OK) on a chmod'ed folder, yet a folder made
 * read-only on purpose (or read-only media) should be treated as such. */
static int writable(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && (st.st_mode & 0222) && access(path, W_OK) == 0;
}

static int dir_writable(const char *path)
{
  char *dir = strdup(path);
  if (!dir) return 0;
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  int w = writable(slash ? dir : ".");
  free(dir);
  return w;
}

/* 1 when path-wal exists and is not empty: committed runs may be there and not yet in path. */
static int has_wal(const char *path)
{
  size_t n = strlen(path) + 5;
  char *wal = malloc(n);
  struct stat st;
  if (!wal) return 0;
  snprintf(wal, n, "%s-wal", path);
  int yes = stat(wal, &st) == 0 && st.st_size > 0;
  free(wal);
  return yes;
}

size_t ls_db_input_uri_size(const char *path) { return 3 * strlen(path) + 32; }

int ls_db_input_uri(const char *path, char *uri, size_t size)
{
  int immutable = !dir_writable(path);
  if (immutable && has_wal(path)) return -2;
  size_t n = (size_t)snprintf(uri, size, "file:%s", path[0] == '/' ? "//" : "");
  for (const unsigned char *p = (const unsigned char *)path; *p && n < size; p++)
    if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p >= 0x7f)
      n += (size_t)snprintf(uri + n, size - n, "%%%02X", *p);
    else
      uri[n++] = (char)*p;
  if (n < size)
    n += (size_t)snprintf(uri + n, size - n, "?mode=ro%s", immutable ? "&immutable=1" : "");
  if (n >= size) return -1;
  return immutable;
}

/* The input URI or a located refusal (path too long; a -wal that cannot be read). */
int ls_db_input_uri_checked(const char *path, char *uri, size_t size, ls_error *err)
{
  int r = ls_db_input_uri(path, uri, size);
  if (r == -1) return ls_error_set(err, LS_EUSAGE, "%s: path too long", path);
  if (r == -2)
    return ls_error_set(err, LS_EIO, "%s-wal: holds committed runs not yet in %s, and its "
                        "folder is read-only, so SQLite cannot read them there; refusing to "
                        "read a stale copy (copy %s and %s-wal to a writable folder)", path,
                        path, path, path);
  return LS_OK;
}

int ls_db_check_input(sqlite3 *h, const char *path, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = LS_OK;
  if (sqlite3_prepare_v2(h, "PRAGMA application_id", -1, &st, NULL) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) != 0 &&
      sqlite3_column_int(st, 0) != LS_DB_APP_ID)
    rc = ls_error_set(err, LS_EPARSE, "%s: a SQLite database of another program "
                      "(application_id 0x%08X), not a leversim results database", path,
                      (unsigned)sqlite3_column_int(st, 0));
  sqlite3_finalize(st);
  st = NULL;
  if (rc) return rc;
  if (sqlite3_prepare_v2(h, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st,
                         NULL) != SQLITE_OK) {
    int code = sqlite3_errcode(h) & 0xff;
    if (code == SQLITE_NOTADB)
      rc = ls_error_set(err, LS_EPARSE, "%s: not a SQLite database, so not a leversim results "
                        "database", path);
    else if (code == SQLITE_ERROR && strstr(sqlite3_errmsg(h), "no such table"))
      rc = ls_error_set(err, LS_EPARSE, "%s: not a leversim results database (no meta table)",
                        path);
    else if (code == SQLITE_CORRUPT || strstr(sqlite3_errmsg(h), "malformed"))
      rc = ls_error_set(err, LS_EPARSE, "%s: damaged database: %s", path, sqlite3_errmsg(h));
    else if (sqlite3_extended_errcode(h) == SQLITE_READONLY_ROLLBACK)
      /* SQLite's own words ("attempt to write a readonly database") puzzle a reader */
      rc = ls_error_set(err, LS_EIO, "%s: cannot read: %s-journal is a hot journal (a writer "
                        "stopped mid-write) that must be rolled back, and leversim opens an input "
                        "read-only; roll it back once (sqlite3 %s 'PRAGMA quick_check'), or move the "
                        "journal away if it is not this file's", path, path, path);
    else {
      int sys = sqlite3_system_errno(h);
      rc = ls_error_set(err, LS_EIO, "%s: cannot read: %s%s%s%s", path, sqlite3_errmsg(h),
                        sys ? " (" : "", sys ? strerror(sys) : "", sys ? ")" : "");
    }
  } else {
    int s = sqlite3_step(st);
    const char *v = s == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
    char num[16];
    snprintf(num, sizeof num, "%d", LS_DB_SCHEMA_VERSION);
    if (s == SQLITE_ROW && (!v || strcmp(v, num) != 0))
      rc = ls_error_set(err, LS_EDB, "%s: schema_version '%s', this leversim reads %d", path,
                        v ? v : "(null)", LS_DB_SCHEMA_VERSION);
    else if (s == SQLITE_DONE)
      rc = ls_error_set(err, LS_EPARSE, "%s: not a leversim results database (no "
                        "schema_version)", path);
    else if (s != SQLITE_ROW)
      rc = ls_error_set(err, LS_EIO, "%s: cannot read: %s", path, sqlite3_errmsg(h));
  }
  sqlite3_finalize(st);
  return rc;
}

int ls_db_open_read(ls_db **out, const char *path, ls_error *err)
{
  *out = NULL;
  if (path_is_temporary(path))
    return ls_db_open(out, path, err); /* the same refusal */
  off_t bytes;
  int exists = db_target(path, "database", 0, &bytes, err);
  if (exists < 0) return exists;
  if (!exists)
    return ls_error_set(err, LS_ENOTFOUND, "%s: %s", path, strerror(ENOENT));
  int rc = path_fits_sqlite(path, err);
  if (rc != LS_OK) return rc;
  size_t size = ls_db_input_uri_size(path);
  char *uri = malloc(size);
  ls_db *db = uri ? db_new(path) : NULL;
  if (!db) {
    free(uri);
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  }
  rc = ls_db_input_uri_checked(path, uri, size, err);
  if (rc == LS_OK &&
      sqlite3_open_v2(uri, &db->h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK)
    rc = ls_error_set(err, LS_EIO, "%s: cannot open database: %s", path,
                      db->h ? sqlite3_errmsg(db->h) : "out of memory");
  free(uri);
  if (rc == LS_OK && (sqlite3_busy_handler(db->h, busy_wait, db) != SQLITE_OK ||
                      ls_db_harden(db->h, 1) != SQLITE_OK ||
                      ls_db_register_math(db->h) != SQLITE_OK))
    rc = ls_db_fail(db, err, "configuring the connection");
  if (rc == LS_OK) rc = ls_db_guard_input(db, err);
  if (rc == LS_OK) rc = ls_db_check_input(db->h, path, err);
  if (rc == LS_OK) rc = ls_db_recheck_input(db, err); /* its CHECK constraints prove nothing */
  if (rc == LS_OK) rc = ls_db_temp_views(db, err);
  if (rc != LS_OK) {
    ls_db_close(db);
    return rc;
  }
  *out = db;
  return LS_OK;
}

void ls_db_close(ls_db *db)
{
  if (!db) return;
  ls_db_claim_release(db); /* first: it deletes its meta row through the connection */
  for (int i = 0; i < N_STMT; i++) sqlite3_finalize(*stmt_slot(db, i));
  sqlite3_finalize(db->st_pairs);
  sqlite3_finalize(db->st_prompt);
  sqlite3_finalize(db->st_metrics_k);
  sqlite3_finalize(db->st_settings_k);
  sqlite3_finalize(db->st_ci);
  sqlite3_close(db->h);
  ls_db_ref_free(db->ref);
  free(db->ci_last);
  free(db->path);
  free(db);
}

/* --- run ids ---------------------------------------------------------------------------- */

typedef struct hash2 { uint64_t a, b; } hash2;

static void hash_bytes(hash2 *h, const void *p, size_t n)
{
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) {
    h->a = (h->a ^ s[i]) * 0x100000001b3ULL;                 /* FNV-1a 64 */
    h->b = (h->b + s[i] + 0x9e3779b97f4a7c15ULL) * 0xbf58476d1ce4e5b9ULL;
    h->b ^= h->b >> 31;
  }
}

static uint64_t mix64(uint64_t z)  /* SplitMix64 finaliser */
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void ls_db_hash_run(const char *part, const char *config_json, uint64_t seed,
                    char out[LS_DB_RUN_ID_LEN + 1])
{
  hash2 h = {0xcbf29ce484222325ULL, 0x6a09e667f3bcc909ULL};
  hash_bytes(&h, part, strlen(part) + 1);
  hash_bytes(&h, config_json, strlen(config_json) + 1);
  unsigned char sb[8];
  for (int i = 0; i < 8; i++) sb[i] = (unsigned char)(seed >> (8 * i));
  hash_bytes(&h, sb, sizeof sb);
  snprintf(out, LS_DB_RUN_ID_LEN + 1, "%016llx%016llx", (unsigned long long)mix64(h.a),
           (unsigned long long)mix64(h.b));
}

/* --- queries and writes ----------------------------------------------------------------- */

int ls_db_run_done(ls_db *db, const char *run_id, int *done, ls_error *err)
{
  sqlite3_stmt *st = db->st_done;
  sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
  int s = sqlite3_step(st);
  *done = s == SQLITE_ROW;
  int rc = (s == SQLITE_ROW || s == SQLITE_DONE) ? LS_OK : ls_db_fail(db, err, "resume lookup");
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc;
}

int ls_db_get_metric(ls_db *db, const char *run_id, const char *name, double *value,
                     ls_error *err)
{
  sqlite3_stmt *st = db->st_get;
  sqlite3_bind_text(st, 1, run_id, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  int s = sqlite3_step(st), rc;
  if (s == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    *value = sqlite3_column_double(st, 0);
    rc = LS_OK;
  } else if (s == SQLITE_ROW || s == SQLITE_DONE) {
    rc = ls_error_set(err, LS_ENOTFOUND, "%s: run %s has no metric %s", db->path, run_id, name);
  } else {
    rc = ls_db_fail(db, err, "reading a metric");
  }
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc;
}

/* Steps a bound statement once and resets it; LS_OK or the SQLite error. */
static int step_reset(ls_db *db, sqlite3_stmt *st, ls_error *err, const char *what)
{
  int s = sqlite3_step(st);
  int rc = (s == SQLITE_DONE) ? LS_OK : ls_db_fail(db, err, what);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc;
}

/* Steps a bound row insert once: 1 when it is written. On 0 the statement is not reset yet,
 * so that the caller's ls_db_fail reads its error; row_done resets it either way. The error's
 * text (run, key) is formatted only then: a run writes about 70 rows, and formatting each
 * row's "what" beforehand was a tenth of writing it. */
static int row_written(sqlite3_stmt *st) { return sqlite3_step(st) == SQLITE_DONE; }

static int row_done(sqlite3_stmt *st, int rc)
{
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  return rc;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
  if (s) sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
  else sqlite3_bind_null(st, i);
}

static int insert_run(ls_db *db, const ls_db_run *r, ls_error *err)
{
  sqlite3_stmt *st = db->st_run;
  const char *text[] = {r->run_id, r->part, r->device, r->model, r->dataset, r->system,
                        r->axes_json ? r->axes_json : "{}", r->config_json ? r->config_json : "{}"};
  for (int i = 0; i < 8; i++) bind_text_or_null(st, i + 1, text[i]);
  sqlite3_bind_int64(st, 9, (sqlite3_int64)r->seed);
  bind_text_or_null(st, 10, r->git_sha);
  bind_text_or_null(st, 11, r->version);
  bind_text_or_null(st, 12, r->status);
  bind_text_or_null(st, 13, r->message);
  sqlite3_bind_double(st, 14, r->wall_s);
  if (row_written(st)) return row_done(st, LS_OK);
  char what[160];
  snprintf(what, sizeof what, "writing run %s (%s/%s/%s/%s)", r->run_id ? r->run_id : "(null)",
           r->device ? r->device : "?", r->model ? r->model : "?",
           r->dataset ? r->dataset : "?", r->system ? r->system : "?");
  return row_done(st, ls_db_fail(db, err, what));
}

/* A table's rows of one run, written LS_DB_ROWS at a time by one kept statement (a run's
 * settings and metrics, about 35 and 30): a statement's own cost (its start, its statement
 * journal, its foreign-key check at the end, the reset) is paid once for the chunk instead
 * of once a row. The rows and their order are those of one insert a row; what does not fill
 * a chunk, and a chunk that fails, goes one row at a time, so a failing row is named as
 * before (SQLite backs out a failed statement alone; the transaction stays open). */
#define LS_DB_ROWS 16

typedef struct row_table {
  const char *insert; /* "INSERT INTO t(cols) VALUES" */
  int cols;           /* columns bound per row, ?1..?cols for the first */
  const char *what;   /* the row's kind in an error: "metric", "setting" */
} row_table;

static const row_table metric_rows = {"INSERT INTO metrics(run_id, name, value, unit) VALUES", 4, "metric"};
static const row_table setting_rows = {"INSERT INTO run_settings(run_id, key, value_text, value_num, unit,"
                                       " type, is_default) VALUES", 7, "setting"};

/* The kept statement of LS_DB_ROWS rows of t in *slot, prepared at its first use; NULL when it
 * cannot be (then every row goes alone). */
static sqlite3_stmt *chunk_stmt(ls_db *db, sqlite3_stmt **slot, const row_table *t)
{
  if (*slot) return *slot;
  size_t size = strlen(t->insert) + (size_t)LS_DB_ROWS * (size_t)t->cols * 8 + 8, len;
  char *sql = malloc(size);
  if (!sql) return NULL;
  len = (size_t)snprintf(sql, size, "%s", t->insert);
  for (int r = 0; r < LS_DB_ROWS; r++)
    for (int c = 0; c < t->cols; c++)
      len += (size_t)snprintf(sql + len, size - len, "%s?%d%s", c ? ", " : r ? ",(" : "(",
                              r * t->cols + c + 1, c == t->cols - 1 ? ")" : "");
  if (sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL) != SQLITE_OK) {
    sqlite3_finalize(*slot);
    *slot = NULL;
  }
  free(sql);
  return *slot;
}

/* Binds row i of rows to the parameters at + 1 .. at + cols. */
typedef void (*row_bind)(sqlite3_stmt *st, int at, const char *id, const void *rows, int i);
/* Row i's key, for an error. */
typedef const char *(*row_key)(const void *rows, int i);

static void bind_metric(sqlite3_stmt *st, int at, const char *id, const void *rows, int i)
{
  const ls_db_metric *m = (const ls_db_metric *)rows + i;
  sqlite3_bind_text(st, at + 1, id, -1, SQLITE_STATIC);
  bind_text_or_null(st, at + 2, m->name);
  if (isfinite(m->value)) sqlite3_bind_double(st, at + 3, m->value);
  else sqlite3_bind_null(st, at + 3);
  bind_text_or_null(st, at + 4, m->unit);
}

static const char *metric_key(const void *rows, int i) { return ((const ls_db_metric *)rows)[i].name; }

static void bind_setting(sqlite3_stmt *st, int at, const char *id, const void *rows, int i)
{
  const ls_db_setting *s = (const ls_db_setting *)rows + i;
  sqlite3_bind_text(st, at + 1, id, -1, SQLITE_STATIC);
  bind_text_or_null(st, at + 2, s->key);
  sqlite3_bind_text(st, at + 3, s->value ? s->value : "", -1, SQLITE_STATIC);
  if (isfinite(s->num)) sqlite3_bind_double(st, at + 4, s->num);
  else sqlite3_bind_null(st, at + 4);
  bind_text_or_null(st, at + 5, s->unit);
  bind_text_or_null(st, at + 6, s->type);
  sqlite3_bind_int(st, at + 7, s->is_default != 0);
}

static const char *setting_key(const void *rows, int i) { return ((const ls_db_setting *)rows)[i].key; }

/* Rows [0, n) of run id into t: whole chunks through *chunk, the rest through one (the
 * single-row statement); the first row that fails is named. */
static int insert_rows(ls_db *db, const row_table *t, sqlite3_stmt **chunk, sqlite3_stmt *one, const char *id,
                       const void *rows, int n, row_bind bind, row_key key, ls_error *err)
{
  int i = 0;
  sqlite3_stmt *st = n >= LS_DB_ROWS ? chunk_stmt(db, chunk, t) : NULL;
  for (; st && i + LS_DB_ROWS <= n; i += LS_DB_ROWS) {
    for (int r = 0; r < LS_DB_ROWS; r++) bind(st, r * t->cols, id, rows, i + r);
    if (!row_done(st, row_written(st))) break; /* its rows again, alone: the failing one is named */
  }
  for (; i < n; i++) {
    bind(one, 0, id, rows, i);
    if (row_written(one)) {
      row_done(one, LS_OK);
      continue;
    }
    const char *k = key(rows, i);
    char what[160];
    snprintf(what, sizeof what, "run %s: %s %s", id, t->what, k ? k : "(null)");
    return row_done(one, ls_db_fail(db, err, what));
  }
  return LS_OK;
}

static int insert_metrics(ls_db *db, const char *id, const ls_db_metric *m, int n, ls_error *err)
{
  return insert_rows(db, &metric_rows, &db->st_metrics_k, db->st_metric, id, m, n, bind_metric, metric_key, err);
}

static int insert_settings(ls_db *db, const char *id, const ls_db_setting *s, int n, ls_error *err)
{
  return insert_rows(db, &setting_rows, &db->st_settings_k, db->st_setting, id, s, n, bind_setting, setting_key,
                     err);
}

static int insert_steps(ls_db *db, const char *id, const ls_db_step *s, int n, ls_error *err)
{
  sqlite3_stmt *st = db->st_step;
  for (int i = 0; i < n; i++) {
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 2, s[i].cycle);
    sqlite3_bind_int(st, 3, s[i].tree_size);
    sqlite3_bind_int(st, 4, s[i].verified_tokens);
    sqlite3_bind_int(st, 5, s[i].accepted);
    sqlite3_bind_double(st, 6, s[i].draft_s);
    sqlite3_bind_double(st, 7, s[i].verify_s);
    sqlite3_bind_double(st, 8, s[i].lmhead_s);
    int rc = step_reset(db, st, err, "writing steps");
    if (rc != LS_OK) return rc;
  }
  return LS_OK;
}

int ls_db_write_run(ls_db *db, const ls_db_run *run, const ls_db_metric *m, int n_metrics,
                    const ls_db_step *steps, int n_steps, ls_error *err)
{
  if (!run->run_id || n_metrics < 0 || n_steps < 0 || (n_metrics > 0 && !m) ||
      (n_steps > 0 && !steps) || run->n_settings < 0 || (run->n_settings > 0 && !run->settings) ||
      run->n_prompts < 0 || (run->n_prompts > 0 && !run->prompts))
    return ls_error_set(err, LS_EUSAGE, "%s: ls_db_write_run: bad arguments", db->path);
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE", err);
  if (rc != LS_OK) return rc;
  sqlite3_bind_text(db->st_del, 1, run->run_id, -1, SQLITE_STATIC);
  rc = step_reset(db, db->st_del, err, "replacing a previous run");
  if (rc == LS_OK) rc = insert_run(db, run, err);
  if (rc == LS_OK) rc = insert_metrics(db, run->run_id, m, n_metrics, err);
  if (rc == LS_OK) rc = insert_steps(db, run->run_id, steps, n_steps, err);
  if (rc == LS_OK && run->n_settings > 0)
    rc = insert_settings(db, run->run_id, run->settings, run->n_settings, err);
  if (rc == LS_OK && run->n_prompts > 0)
    rc = ls_db_stats_write_run(db, run->run_id, run->prompts, run->n_prompts, err);
  if (rc == LS_OK) rc = ls_db_exec(db, "COMMIT", err);
  if (rc != LS_OK) sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

int ls_db_set_meta(ls_db *db, const char *key, const char *value, ls_error *err)
{
  sqlite3_bind_text(db->st_meta, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text(db->st_meta, 2, value, -1, SQLITE_STATIC);
  return step_reset(db, db->st_meta, err, "writing meta");
}
