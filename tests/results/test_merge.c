/* tests/results: merging shard databases (idempotence, conflicts) and two processes writing
 * one database at once. */
#include <math.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fixture.h"

/* A content digest of a database: every run's content and metrics, in id order. */
static double digest(const char *path)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, path, &e) != LS_OK) return NAN;
  double d = fx_query(db, "SELECT sum(length(r.run_id || r.config_json) * m.value * (1 + "
                          "length(m.name))) + count(*) * 1000 FROM runs r JOIN metrics m USING(run_id)");
  ls_db_close(db);
  return d;
}

static int count_runs(const char *path)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, path, &e) != LS_OK) return -1;
  int n = (int)fx_query(db, "SELECT count(*) FROM runs");
  ls_db_close(db);
  return n;
}

/* Three shards of the main matrix: configuration k goes to shard k % 3. */
static void make_shards(char shard[3][512], char *whole)
{
  ls_db *db[3], *w;
  ls_error e;
  static const char *const sys[] = {"lever", "ar-flash", "specinfer"};
  for (int i = 0; i < 3; i++) {
    char name[32];
    snprintf(name, sizeof name, "shard%d.db", i);
    fx_path(shard[i], name);
    CU_ASSERT_EQUAL_FATAL(ls_db_open(&db[i], shard[i], &e), LS_OK);
  }
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&w, fx_path(whole, "whole.db"), &e), LS_OK);
  for (int k = 0; k < 9; k++) {
    char dev[8];
    snprintf(dev, sizeof dev, "d%d", k);
    for (int s = 0; s < 3; s++) {
      double tps = (10 + k) / (1 + s * 0.37 + k * 0.01);
      CU_ASSERT_EQUAL(fx_add(db[k % 3], "main", dev, "m", "s", sys[s], "{}", 1, tps, 2), LS_OK);
      CU_ASSERT_EQUAL(fx_add(w, "main", dev, "m", "s", sys[s], "{}", 1, tps, 2), LS_OK);
    }
  }
  for (int i = 0; i < 3; i++) ls_db_close(db[i]);
  ls_db_close(w);
}

static void test_merge_idempotent(void)
{
  char shard[3][512], whole[512], out[512];
  make_shards(shard, whole);
  const char *in[] = {shard[0], shard[1], shard[2]};
  ls_error e;
  int added = -1;
  fx_path(out, "merged.db");
  CU_ASSERT_EQUAL_FATAL(ls_db_merge(out, in, 3, &added, &e), LS_OK);
  CU_ASSERT_EQUAL(added, 27);
  CU_ASSERT_EQUAL(count_runs(out), 27);
  CU_ASSERT(digest(out) == digest(whole));  /* bit-identical metrics */
  double before = digest(out);
  /* Twice, and with overlapping inputs (a shard listed twice, the whole db): nothing changes. */
  CU_ASSERT_EQUAL(ls_db_merge(out, in, 3, &added, &e), LS_OK);
  CU_ASSERT_EQUAL(added, 0);
  const char *again[] = {shard[1], shard[1], whole, out};
  CU_ASSERT_EQUAL(ls_db_merge(out, again, 4, &added, &e), LS_OK);
  CU_ASSERT_EQUAL(added, 0);
  CU_ASSERT(digest(out) == before);
  CU_ASSERT_EQUAL(count_runs(out), 27);
  /* Steps are copied too. */
  ls_db *db = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, out, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM steps"), 54);
  ls_db_close(db);
}

static void test_merge_conflict(void)
{
  char shard[3][512], whole[512], out[512];
  make_shards(shard, whole);
  ls_error e;
  /* Change one metric of one run of shard 1. */
  ls_db *db = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, shard[1], &e), LS_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "UPDATE metrics SET value = value * (1 + 1e-15) WHERE "
                                      "name = 'tau' AND run_id = (SELECT run_id FROM runs WHERE "
                                      "device = 'd4' AND system = 'specinfer')", NULL, NULL, NULL), SQLITE_OK);
  char id[64];
  snprintf(id, sizeof id, "%s", "");
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db->h, "SELECT run_id FROM runs WHERE device = 'd4' AND system = 'specinfer'", -1, &st, NULL);
  if (sqlite3_step(st) == SQLITE_ROW) snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  ls_db_close(db);
  fx_path(out, "conflict.db");
  const char *in0[] = {whole};
  CU_ASSERT_EQUAL_FATAL(ls_db_merge(out, in0, 1, NULL, &e), LS_OK);
  double before = digest(out);
  const char *in[] = {shard[0], shard[1], shard[2]};
  int added = -1;
  CU_ASSERT_EQUAL(ls_db_merge(out, in, 3, &added, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, id));          /* names the run */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "d4"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "specinfer"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, shard[1]));
  CU_ASSERT(digest(out) == before);                   /* output unchanged */
  /* A different configuration under the same id is a conflict too; wall_s/git_sha are not. */
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, shard[2], &e), LS_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "UPDATE runs SET wall_s = 99, git_sha = 'other'", NULL, NULL, NULL), SQLITE_OK);
  ls_db_close(db);
  const char *in2[] = {shard[2]};
  CU_ASSERT_EQUAL(ls_db_merge(out, in2, 1, &added, &e), LS_OK);
  CU_ASSERT_EQUAL(added, 0);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, shard[2], &e), LS_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "UPDATE runs SET config_json = '{\"x\":1}' WHERE device = 'd5'"
                                      " AND system = 'lever'", NULL, NULL, NULL), SQLITE_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL(ls_db_merge(out, in2, 1, &added, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "d5"));
  /* Missing and foreign inputs are refused before anything is written. */
  const char *missing[] = {"/nonexistent/shard.db"};
  CU_ASSERT_EQUAL(ls_db_merge(out, missing, 1, &added, &e), LS_ENOTFOUND);
  char foreign[512];
  fx_path(foreign, "foreign.db");
  sqlite3 *h;
  sqlite3_open(foreign, &h);
  sqlite3_exec(h, "CREATE TABLE t(x)", NULL, NULL, NULL);
  sqlite3_close(h);
  const char *fin[] = {foreign};
  CU_ASSERT_EQUAL(ls_db_merge(out, fin, 1, &added, &e), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not a leversim results database"));
  CU_ASSERT(digest(out) == before);
}

/* Two inputs disagreeing on one run: found when the second is merged, named. */
static void test_merge_inputs_conflict(void)
{
  char a[512], b[512], out[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(a, "ia.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10, 2), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "specinfer", "{}", 1, 7, 2), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(b, "ib.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10, 2.5), LS_OK);
  ls_db_close(db);
  const char *in[] = {a, b};
  int added = -1;
  CU_ASSERT_EQUAL(ls_db_merge(fx_path(out, "iout.db"), in, 2, &added, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, b));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "system lever"));
  CU_ASSERT_EQUAL(count_runs(out), 2);  /* the first input went in whole, nothing of the second */
}

/* Child: writes runs [lo, hi) (ids shared with the other child in the overlap). */
static int child_writes(const char *path, int lo, int hi)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, path, &e) != LS_OK) {
    fprintf(stderr, "child open: %s\n", e.msg);
    return 1;
  }
  int bad = 0;
  for (int i = lo; i < hi && !bad; i++) {
    char dev[16];
    snprintf(dev, sizeof dev, "d%d", i);
    bad = fx_add(db, "main", dev, "m", "s", "lever", "{}", 1, 1.0 + i, 2) != LS_OK;
  }
  ls_db_close(db);
  return bad;
}

static void test_two_writers(void)
{
  char p[512];
  fx_path(p, "concurrent.db");  /* both processes create it: the schema race is covered too */
  enum { N = 1000, OVERLAP = 100 };
  pid_t pid[2];
  int gate[2];
  CU_ASSERT_FATAL(pipe(gate) == 0);
  for (int c = 0; c < 2; c++) {
    fflush(NULL);
    pid[c] = fork();
    CU_ASSERT_FATAL(pid[c] >= 0);
    if (pid[c] == 0) {  /* wait at the gate so both start together */
      char x;
      close(gate[1]);
      if (read(gate[0], &x, 1) < 0) _exit(3);
      _exit(child_writes(p, c == 0 ? 0 : N - OVERLAP, c == 0 ? N : 2 * N - OVERLAP));
    }
  }
  close(gate[0]);
  close(gate[1]);  /* opens the gate: both reads return 0 */
  for (int c = 0; c < 2; c++) {
    int status = 0;
    waitpid(pid[c], &status, 0);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 2 * N - OVERLAP);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), 6 * (2 * N - OVERLAP));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
  /* Every run is present with its own value. */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE throughput_tps = 1 + "
                               "CAST(substr(device, 2) AS INTEGER)"), 2 * N - OVERLAP);
  ls_db_close(db);
}

/* Polls (up to ~20 s) until the database holds at least n runs. */
static void wait_for_runs(const char *path, int n)
{
  for (int i = 0; i < 4000; i++) {
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int have = 0;
    if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
      have = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(h);
    if (have >= n) return;
    struct timespec ts = {0, 5000000L};
    nanosleep(&ts, NULL);
  }
}

/* A writer killed with SIGKILL mid-sweep: every stored run is whole (6 metrics, 2 steps). */
static void test_killed_writer(void)
{
  char p[512];
  fx_path(p, "killed.db");
  for (int attempt = 0; attempt < 3; attempt++) {
    fflush(NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) _exit(child_writes(p, attempt * 100000, attempt * 100000 + 1000000));
    wait_for_runs(p, 20 * (attempt + 1));  /* the child is mid-sweep, then a little more */
    struct timespec ts = {0, 3000000L * (attempt + 1)};
    nanosleep(&ts, NULL);
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    CU_ASSERT(WIFSIGNALED(status));
  }
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check = 'ok'"), 1);
  CU_ASSERT(fx_query(db, "SELECT count(*) FROM runs") > 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs r WHERE (SELECT count(*) FROM metrics m"
                               " WHERE m.run_id = r.run_id) <> 6 OR (SELECT count(*) FROM steps s"
                               " WHERE s.run_id = r.run_id) <> 2"), 0);
  ls_db_close(db);
}

CU_TestInfo fx_merge_tests[] = {
    {"3 shards merge to the unsharded db, idempotently", test_merge_idempotent},
    {"conflicts name the run, output unchanged", test_merge_conflict},
    {"conflict between two inputs", test_merge_inputs_conflict},
    CU_TEST_INFO_NULL};
CU_TestInfo fx_concurrency_tests[] = {
    {"two processes write one database", test_two_writers},
    {"SIGKILL mid-write leaves only whole runs", test_killed_writer},
    CU_TEST_INFO_NULL};
