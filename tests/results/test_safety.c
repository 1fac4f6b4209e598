/* tests/results: what a results database refuses and what it never loses — ownership of the
 * output (application_id, foreign files, non-files), read-only inputs that see a killed
 * writer's -wal, and writer claims (a fresh reproduce never empties a database another
 * process writes). */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fixture.h"
#include "ls_test.h"
#include "sim/clock.h"
#include "sim/stop.h"

static void write_text(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

static long file_size(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* A new database carries leversim's application_id; an existing one without it (written
 * before the id existed) is adopted and stamped. */
static void test_application_id(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "app.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "PRAGMA application_id"), 0x4C565253);
  sqlite3_exec(db->h, "PRAGMA application_id = 0", NULL, NULL, NULL);
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK); /* legacy: meta + schema_version */
  CU_ASSERT_EQUAL(fx_query(db, "PRAGMA application_id"), 0x4C565253);
  ls_db_close(db);
}

/* A regular file that is not SQLite, and SQLite databases of other programs, are refused
 * for writing and left byte for byte as they were (no tables added, no -wal left). */
static void test_foreign_files_untouched(void)
{
  char txt[512], other[512], tagged[512];
  ls_db *db = NULL;
  ls_error e;
  write_text(fx_path(txt, "n.txt"), "x\n");
  CU_ASSERT_EQUAL(ls_db_open(&db, txt, &e), LS_EPARSE);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "n.txt"));
  CU_ASSERT_EQUAL(file_size(txt), 2);
  /* another program's SQLite file: a table, no meta */
  sqlite3 *h = NULL;
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fx_path(other, "other.db"), &h), SQLITE_OK);
  sqlite3_exec(h, "CREATE TABLE notes(x); INSERT INTO notes VALUES(1);", NULL, NULL, NULL);
  sqlite3_close(h);
  long before = file_size(other);
  CU_ASSERT_EQUAL(ls_db_open(&db, other, &e), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "without leversim's tables"));
  CU_ASSERT_EQUAL(file_size(other), before);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(other, &h), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  sqlite3_prepare_v2(h, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
  CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
  CU_ASSERT_EQUAL(sqlite3_column_int(st, 0), 1); /* still one table: nothing added */
  sqlite3_finalize(st);
  sqlite3_close(h);
  /* a SQLite file with another application_id, even if it has a meta table */
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(fx_path(tagged, "tagged.db"), &h), SQLITE_OK);
  sqlite3_exec(h, "PRAGMA application_id = 1234; CREATE TABLE meta(key, value);"
                  "INSERT INTO meta VALUES('schema_version', '2');", NULL, NULL, NULL);
  sqlite3_close(h);
  CU_ASSERT_EQUAL(ls_db_open(&db, tagged, &e), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "another program"));
  CU_ASSERT_EQUAL(ls_db_open_read(&db, tagged, &e), LS_EPARSE);
  /* an empty file is adopted */
  char empty[512];
  write_text(fx_path(empty, "empty.db"), "");
  CU_ASSERT_EQUAL(ls_db_open(&db, empty, &e), LS_OK);
  ls_db_close(db);
}

/* A directory, a FIFO and /dev/null are refused as databases, for writing and reading, and
 * nothing is created next to them (no /dev/null-journal). */
static void test_non_files_refused(void)
{
  char dir[512], fifo[512];
  ls_db *db = NULL;
  ls_error e;
  fx_path(dir, "adir");
  CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
  fx_path(fifo, "afifo");
  CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
  const char *paths[] = {dir, fifo, "/dev/null"};
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(ls_db_open(&db, paths[i], &e), LS_EIO);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "refusing"));
    CU_ASSERT_EQUAL(ls_db_open_read(&db, paths[i], &e), LS_EIO);
    CU_ASSERT_PTR_NULL(db);
  }
  CU_ASSERT_NOT_EQUAL(access("/dev/null-journal", F_OK), 0);
  CU_ASSERT_NOT_EQUAL(access("/dev/null-wal", F_OK), 0);
  rmdir(dir);
  unlink(fifo);
}

/* A writer killed after committing leaves its runs in the -wal: a read-only open sees them
 * all (immutable=1 would not). */
static void test_read_sees_wal(void)
{
  char p[512];
  fx_path(p, "killed.db");
  pid_t pid = fork();
  if (pid == 0) {
    ls_db *db = NULL;
    if (ls_db_open(&db, p, NULL) != LS_OK) _exit(2);
    for (int i = 0; i < 20; i++)
      if (fx_add(db, "main", "d", "m", "s", "lever", "{}", (uint64_t)i, 10, 2) != LS_OK) _exit(3);
    _exit(0); /* no close: no checkpoint, the runs stay in the -wal */
  }
  int st;
  waitpid(pid, &st, 0);
  CU_ASSERT_FATAL(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  char wal[600];
  snprintf(wal, sizeof wal, "%s-wal", p);
  CU_ASSERT(file_size(wal) > 0);
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open_read(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 20);
  ls_db_close(db);
  /* the same database in a folder nobody may write: the -wal cannot be read there, so the
   * input is refused rather than read stale */
  char dir[] = "/tmp/leversim-rowal-XXXXXX", cmd[2048], path[600];
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/x.db", dir);
  snprintf(cmd, sizeof cmd, "cp '%s' '%s' && cp '%s' '%s-wal' && chmod 0555 '%s'", p, path, wal,
           path, dir);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  CU_ASSERT_EQUAL(ls_db_open_read(&db, path, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "-wal"));
  snprintf(cmd, sizeof cmd, "chmod 0755 '%s' && rm -rf '%s'", dir, dir);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

/* Claims: shared ones coexist, an exclusive one is refused while another is held and names
 * the holder, and a shared one is refused while an exclusive one is held. Emptying needs the
 * exclusive claim. */
static void test_claims(void)
{
  char p[512];
  ls_db *a = NULL, *b = NULL, *c = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&a, fx_path(p, "claim.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(a, "main", "d", "m", "s", "lever", "{}", 1, 10, 2), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&b, p, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&c, p, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_claim(a, 0, "sweep", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_claim(b, 0, "merge", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_clear(b, &e), LS_ESTATE); /* shared: may not empty */
  CU_ASSERT_EQUAL(ls_db_claim(c, 1, "reproduce", &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "leversim sweep since"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "leversim merge since"));
  CU_ASSERT_EQUAL(fx_query(c, "SELECT count(*) FROM runs"), 1); /* nothing emptied */
  ls_db_close(a);
  ls_db_close(b);
  CU_ASSERT_EQUAL(fx_query(c, "SELECT count(*) FROM meta WHERE key LIKE 'writer.%'"), 0);
  CU_ASSERT_EQUAL_FATAL(ls_db_claim(c, 1, "reproduce", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&a, p, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_claim(a, 0, "sweep", &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "leversim reproduce since"));
  CU_ASSERT_EQUAL(ls_db_clear(c, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(c, "SELECT count(*) FROM runs"), 0);
  CU_ASSERT_EQUAL(fx_query(c, "SELECT count(*) FROM meta WHERE key = 'schema_version'"), 1);
  CU_ASSERT_EQUAL(ls_db_claim_share(c, &e), LS_OK); /* after emptying, others may join */
  CU_ASSERT_EQUAL(ls_db_claim(a, 0, "sweep", &e), LS_OK);
  ls_db_close(a);
  ls_db_close(c);
  /* the holder is inside a transaction (stopped mid-write): the refusal still comes at once,
   * not after the minute's wait for SQLite's lock */
  CU_ASSERT_EQUAL_FATAL(ls_db_open_claim(&a, p, 0, "sweep", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_exec(a, "BEGIN IMMEDIATE", &e), LS_OK);
  double t0 = ls_now_s();
  CU_ASSERT_EQUAL(ls_db_open_claim(&c, p, 1, "reproduce", &e), LS_EDB);
  CU_ASSERT(ls_now_s() - t0 < 20 * ls_test_time_factor()); /* not SQLite's minute */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "leversim sweep since"));
  CU_ASSERT_PTR_NULL(c);
  ls_db_exec(a, "ROLLBACK", &e);
  ls_db_close(a);
}

/* Another process holds the write lock: the wait ends with LS_EINTR as soon as a stop is
 * asked, not after the whole minute. */
static void test_lock_wait_interrupted(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "busy.db"), &e), LS_OK);
  ls_db_close(db);
  int fd[2];
  CU_ASSERT_EQUAL_FATAL(pipe(fd), 0);
  pid_t pid = fork();
  if (pid == 0) { /* holds BEGIN IMMEDIATE until killed */
    sqlite3 *h = NULL;
    char c = 'x';
    if (sqlite3_open(p, &h) != SQLITE_OK ||
        sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
      c = 'f';
    if (write(fd[1], &c, 1) != 1) _exit(1);
    pause();
    _exit(0);
  }
  char c = 0;
  CU_ASSERT(read(fd[0], &c, 1) == 1 && c == 'x');
  struct sigaction old[2];
  ls_stop_catch(old);
  pid_t stopper = fork();
  if (stopper == 0) {
    struct timespec ts = {0, 300000000L};
    nanosleep(&ts, NULL);
    kill(getppid(), SIGTERM);
    _exit(0);
  }
  double t0 = ls_now_s();
  CU_ASSERT_EQUAL(ls_db_open(&db, p, &e), LS_EINTR); /* opening writes the schema: it waits */
  CU_ASSERT(ls_now_s() - t0 < 30 * ls_test_time_factor()); /* not the minute's wait */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interrupted"));
  CU_ASSERT_PTR_NULL(db);
  ls_stop_restore(old);
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  waitpid(stopper, NULL, 0);
  close(fd[0]);
  close(fd[1]);
}

/* The holder of the write lock in another process: 'h' takes it, 'r' lets it go; each answered
 * with one byte once done. */
static void lock_holder(const char *path, int in, int out)
{
  sqlite3 *h = NULL;
  char c, ok = sqlite3_open(path, &h) == SQLITE_OK ? 'x' : 'f';
  while (read(in, &c, 1) == 1) {
    const char *sql = c == 'h' ? "BEGIN IMMEDIATE" : "ROLLBACK";
    char a = ok == 'x' && sqlite3_exec(h, sql, NULL, NULL, NULL) == SQLITE_OK ? 'x' : 'f';
    if (write(out, &a, 1) != 1) break;
  }
  _exit(0);
}

static int holder_do(int to, int from, char what)
{
  char a = 0;
  return write(to, &what, 1) == 1 && read(from, &a, 1) == 1 && a == 'x';
}

/* The bound of a command's lock waits is on their total (issue 35: a sweep said "at most 60 s"
 * and was still waiting after 75): once one wait has used the budget, a later wait of the same
 * connection gives up without a single pause. Counted in pauses, never timed. */
static void test_lock_wait_bound_in_all(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  struct sigaction old[2];
  ls_stop_catch(old); /* clears a stop an earlier test asked for */
  fx_path(p, "busy_total.db");
  unlink(p);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK); /* made, then closed before the fork: */
  ls_db_close(db);                                       /* SQLite's locks do not cross it */
  int down[2], up[2];
  CU_ASSERT_EQUAL_FATAL(pipe(down), 0);
  CU_ASSERT_EQUAL_FATAL(pipe(up), 0);
  pid_t pid = fork();
  if (pid == 0) {
    close(down[1]); /* else its own copy keeps the pipe open and its read never ends */
    close(up[0]);
    lock_holder(p, down[0], up[1]);
  }
  setenv("LEVERSIM_DB_LOCK_WAIT", "0.2", 1);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  unsetenv("LEVERSIM_DB_LOCK_WAIT");
  CU_ASSERT_FATAL(holder_do(down[1], up[0], 'h'));
  CU_ASSERT_EQUAL(ls_db_exec(db, "BEGIN IMMEDIATE", &e), LS_EDB); /* waits out the budget */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "in all"));
  long steps = db->wait_steps;
  CU_ASSERT(steps > 0);
  CU_ASSERT(holder_do(down[1], up[0], 'r'));
  CU_ASSERT_EQUAL(ls_db_exec(db, "BEGIN IMMEDIATE; ROLLBACK", &e), LS_OK); /* free: no wait */
  CU_ASSERT(holder_do(down[1], up[0], 'h'));
  CU_ASSERT_EQUAL(ls_db_exec(db, "BEGIN IMMEDIATE", &e), LS_EDB);
  CU_ASSERT_EQUAL(db->wait_steps, steps); /* a bound per wait would pause again here */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "in all"));
  close(down[1]);
  waitpid(pid, NULL, 0);
  close(down[0]);
  close(up[0]);
  close(up[1]);
  ls_db_close(db);
  ls_stop_restore(old);
}

/* An input's values are checked again on read (results/recheck.c): a status, an is_default or
 * a stored setting outside the range table that the file's own CHECK constraints let in is
 * refused, naming the table, the key and the value; a sound file reads. */
static void test_input_values_rechecked(void)
{
  static const struct {
    const char *sql, *what;
  } bad[] = {
      {"PRAGMA ignore_check_constraints = 1; UPDATE runs SET status = 'great';", "status 'great'"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE runs SET axes_json = '[1]';", "axes_json '[1]'"},
      {"PRAGMA ignore_check_constraints = 1; UPDATE run_settings SET is_default = 2;", "is_default '2'"},
      {"UPDATE run_settings SET value_num = 1, value_text = '1 B/s';", "device.flash.bandwidth '1 B/s'"},
      {"UPDATE run_settings SET value_num = 0.0, value_text = '0 B/s';", "device.flash.bandwidth '0 B/s'"},
  };
  char p[512];
  ls_error e;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0] + 1; i++) {
    ls_db *db = NULL;
    fx_path(p, "recheck.db");
    unlink(p);
    CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
    CU_ASSERT_EQUAL_FATAL(fx_add(db, "main", "d0", "m0", "s0", "lever", "{}", 1, 10, 2), LS_OK);
    CU_ASSERT_EQUAL_FATAL(ls_db_exec(db, "INSERT INTO run_settings SELECT run_id, 'device.flash.bandwidth', "
                                         "'4.2 GB/s', 4.2e9, 'B/s', 'quantity', 1 FROM runs", &e), LS_OK);
    if (i < sizeof bad / sizeof bad[0]) CU_ASSERT_EQUAL_FATAL(ls_db_exec(db, bad[i].sql, &e), LS_OK);
    ls_db_close(db);
    db = NULL;
    int rc = ls_db_open_read(&db, p, &e);
    if (i == sizeof bad / sizeof bad[0]) { /* the sound file */
      CU_ASSERT_EQUAL(rc, LS_OK);
    } else {
      CU_ASSERT_EQUAL(rc, LS_EPARSE);
      CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, bad[i].what));
      CU_ASSERT_PTR_NULL(db);
    }
    ls_db_close(db);
  }
}

static int count_rows(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)text, (void)num, (void)err;
  ++*(int *)ctx;
  return LS_OK;
}

/* A database with two runs, then code of its own added by another program (sqlite3). */
static void hostile(char *p, const char *name, const char *sql)
{
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, name), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fx_add(db, "main", "d0", "m0", "s0", "lever", "{}", 1, 10, 2), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fx_add(db, "main", "d0", "m0", "s0", "ar-flash", "{}", 1, 5, 1), LS_OK);
  ls_db_close(db);
  sqlite3 *h = NULL;
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(p, &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
}

#define LOOP "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"

/* An input's own views never run (leversim's are TEMP views over its tables), its triggers
 * never fire, and a statement may read only leversim's tables. */
static void test_input_code_never_runs(void)
{
  char p[512];
  hostile(p, "code.db", "DROP VIEW v_runs; CREATE VIEW v_runs AS " LOOP ";"
                        "CREATE VIEW evil AS " LOOP "; CREATE TABLE notes(x);");
  ls_db *db = NULL;
  ls_error e;
  setenv("LEVERSIM_DB_READ_LIMIT", "5", 1); /* a broken guard ends, not hangs, the test */
  CU_ASSERT_EQUAL_FATAL(ls_db_open_read(&db, p, &e), LS_OK);
  unsetenv("LEVERSIM_DB_READ_LIMIT");
  int rows = 0;
  CU_ASSERT_EQUAL(ls_db_select(db, "SELECT run_id, throughput_tps FROM v_runs", NULL, 0,
                               count_rows, &rows, &e), LS_OK);
  CU_ASSERT_EQUAL(rows, 2);
  CU_ASSERT_NOT_EQUAL(ls_db_select(db, "SELECT * FROM evil", NULL, 0, count_rows, &rows,
                                   &e), LS_OK);
  CU_ASSERT_PTR_NULL(strstr(e.msg, "time limit")); /* refused at once, never run */
  CU_ASSERT_NOT_EQUAL(ls_db_select(db, "SELECT * FROM notes", NULL, 0, count_rows, &rows, &e),
                      LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "prohibited"));
  ls_db_close(db);
}

/* A statement on an input ends at the time limit (LEVERSIM_DB_READ_LIMIT), saying so. */
static void test_input_time_limit(void)
{
  char p[512];
  hostile(p, "limit.db", "SELECT 1;");
  setenv("LEVERSIM_DB_READ_LIMIT", "0.2", 1);
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open_read(&db, p, &e), LS_OK);
  unsetenv("LEVERSIM_DB_READ_LIMIT");
  int rows = 0;
  CU_ASSERT_EQUAL(ls_db_select(db, "SELECT count(*) FROM (" LOOP ")", NULL, 0, count_rows,
                               &rows, &e), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "time limit"));
  /* the clock starts again with each statement */
  CU_ASSERT_EQUAL(ls_db_select(db, "SELECT run_id FROM runs", NULL, 0, count_rows, &rows, &e),
                  LS_OK);
  ls_db_close(db);
}

/* An output holding a trigger (or a view, or a table) leversim did not create is refused,
 * naming it, before anything is written. */
static void test_output_foreign_objects(void)
{
  static const char *const code[][2] = {
      {"CREATE TRIGGER wipe AFTER INSERT ON runs BEGIN DELETE FROM runs; END;", "trigger 'wipe'"},
      {"CREATE VIEW evil AS " LOOP ";", "view 'evil'"},
      {"CREATE TABLE notes(x);", "table 'notes'"},
      {"CREATE INDEX runs_by_seed ON runs(seed);", "index 'runs_by_seed'"},
      {"ALTER TABLE roles ADD COLUMN extra TEXT;", "column 'extra'"},
  };
  for (int i = 0; i < (int)(sizeof code / sizeof *code); i++) {
    char p[512], name[32];
    snprintf(name, sizeof name, "out%d.db", i);
    hostile(p, name, code[i][0]);
    long before = file_size(p);
    ls_db *db = NULL;
    ls_error e;
    CU_ASSERT_EQUAL(ls_db_open(&db, p, &e), LS_EPARSE);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, code[i][1]));
    CU_ASSERT_EQUAL(file_size(p), before);
    CU_ASSERT_PTR_NULL(db);
  }
}

CU_TestInfo fx_safety_tests[] = {
    {"a new database carries leversim's application_id", test_application_id},
    {"foreign files and databases are refused and untouched", test_foreign_files_untouched},
    {"a directory, a FIFO, /dev/null are refused", test_non_files_refused},
    {"a read-only input sees a killed writer's -wal", test_read_sees_wal},
    {"writer claims: shared coexist, exclusive refused naming the holder", test_claims},
    {"an input's views and triggers never run", test_input_code_never_runs},
    {"a query on an input ends at the time limit", test_input_time_limit},
    {"an output with objects leversim did not create is refused", test_output_foreign_objects},
    /* last: it leaves the process's stop flag raised */
    {"a lock wait ends at a stop request", test_lock_wait_interrupted},
    {"the lock waits of a command are bounded in all, not each", test_lock_wait_bound_in_all},
    {"an input's values are checked again on read, not trusted to its CHECK", test_input_values_rechecked},
    CU_TEST_INFO_NULL};
