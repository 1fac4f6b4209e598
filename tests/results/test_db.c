/* tests/results: schema creation, the writer (round trip, resume lookup, atomicity), run ids. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fixture.h"

static void test_schema_created(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "schema.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT value FROM meta WHERE key = 'schema_version'"),
                  LS_DB_SCHEMA_VERSION);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND "
                               "name IN ('meta', 'runs', 'metrics', 'steps') AND sql LIKE '%STRICT%'"), 4);
  for (int i = 0; ls_db_view_name(i); i++) {
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM sqlite_schema WHERE type = 'view' AND name = '%s'",
             ls_db_view_name(i));
    CU_ASSERT_EQUAL(fx_query(db, sql), 1);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM %s", ls_db_view_name(i));
    CU_ASSERT_EQUAL(fx_query(db, sql), 0);  /* every view compiles and is empty */
  }
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'"), 1);
  ls_db_close(db);
  /* Re-opening keeps the data and the version; a foreign version is refused. */
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_set_meta(db, "schema_version", "99", &e), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL(ls_db_open(&db, p, &e), LS_EDB);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "schema_version '99'"));
}

/* The reference schema's STRICT flags, read from its own CREATE text (not the costly pragma):
 * the pragma's answer for every table of a database leversim made, and by hand on texts with
 * "strict" inside the column list, in a name, or with other table options. */
static void test_reference_strict(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  ls_db_ref *ref = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "strict.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_ref_create(&ref, &e), LS_OK);
  int tables = 0, agree = 0;
  for (int i = 0; i < 64; i++) {
    char q[256];
    snprintf(q, sizeof q, "SELECT count(*) FROM (SELECT name FROM sqlite_schema WHERE type = 'table'"
                          " AND name NOT LIKE 'sqlite_%%' ORDER BY name LIMIT 1 OFFSET %d)", i);
    if (fx_query(db, q) < 1) break;
    snprintf(q, sizeof q, "SELECT strict FROM pragma_table_list WHERE schema = 'main' AND name ="
                          " (SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE"
                          " 'sqlite_%%' ORDER BY name LIMIT 1 OFFSET %d)", i);
    int strict = (int)fx_query(db, q);
    char name[64] = "";
    sqlite3_stmt *st = NULL;
    snprintf(q, sizeof q, "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE"
                          " 'sqlite_%%' ORDER BY name LIMIT 1 OFFSET %d", i);
    if (sqlite3_prepare_v2(db->h, q, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
      snprintf(name, sizeof name, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    tables++;
    agree += ls_db_ref_is_strict(ref, name) == strict && ls_db_ref_is_table(ref, name);
  }
  CU_ASSERT(tables >= 10);
  CU_ASSERT_EQUAL(agree, tables);
  CU_ASSERT_EQUAL(ls_db_ref_is_strict(ref, "v_runs"), 0); /* a view */
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a INTEGER) STRICT"), 1);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a, PRIMARY KEY(a)) STRICT, WITHOUT ROWID"), 1);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a) WITHOUT ROWID, strict"), 1);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a) WITHOUT ROWID"), 0);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a TEXT CHECK(a IN ('strict')))"), 0);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE strict(strict)"), 0);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(strict INTEGER, b) WITHOUT ROWID"), 0);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict("CREATE TABLE t(a) STRICTLY"), 0);
  CU_ASSERT_EQUAL(ls_db_sql_declares_strict(NULL), 0);
  ls_db_ref_free(ref);
  ls_db_close(db);
}

static void test_open_errors(void)
{
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_NOT_EQUAL(ls_db_open(&db, "/nonexistent-dir/x.db", &e), LS_OK);
  CU_ASSERT_PTR_NULL(db);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "/nonexistent-dir/x.db"));
}

/* "" and ":memory:" would be private, temporary databases: results would vanish. */
static void test_temporary_paths_refused(void)
{
  const char *paths[] = {"", ":memory:", "file:x.db?mode=memory"};
  for (int i = 0; i < 3; i++) {
    ls_db *db = NULL;
    ls_error e;
    CU_ASSERT_EQUAL(ls_db_open(&db, paths[i], &e), LS_EUSAGE);
    CU_ASSERT_PTR_NULL(db);
    CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "would be lost"));
    CU_ASSERT_EQUAL(ls_db_open_read(&db, paths[i], &e), LS_EUSAGE);
  }
}

/* Reads a database as user nobody in a child process: 0 when the read gave the expected run
 * count, 1 when it failed, 2 when the child could not drop its privileges. */
static int read_as_nobody(const char *path, int plain_readonly)
{
  pid_t pid = fork();
  if (pid == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0)
      _exit(2);
    ls_db *db = NULL;
    ls_error e;
    if (!plain_readonly) {
      int ok = ls_db_open_read(&db, path, &e) == LS_OK && fx_query(db, "SELECT count(*) FROM runs") == 1;
      ls_db_close(db);
      _exit(ok ? 0 : 1);
    }
    /* What leversim did before: a read-only open without immutable. */
    sqlite3 *h = NULL;
    sqlite3_stmt *st = NULL;
    int ok = sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
             sqlite3_prepare_v2(h, "SELECT count(*) FROM runs", -1, &st, NULL) == SQLITE_OK &&
             sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    sqlite3_close(h);
    _exit(ok ? 0 : 1);
  }
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 3;
}

/* A finished WAL database copied to a folder nobody may write (read-only media): immutable is
 * chosen from the mode bits (so even root takes that path), the copy reads, and no -shm file
 * appears beside it. As root, a child that drops to user nobody shows the real failure: a
 * plain read-only open cannot read the file, ls_db_open_read can. */
static void test_read_only_media(void)
{
  char src[512], dir[] = "/tmp/leversim-ro-XXXXXX", ro[600], path[700], uri[1024], cmd[1600];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(src, "ro-src.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10, 2), LS_OK);
  ls_db_close(db);
  CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
  chmod(dir, 0755);
  snprintf(ro, sizeof ro, "%s/media", dir);
  snprintf(path, sizeof path, "%s/sweep.db", ro);
  snprintf(cmd, sizeof cmd, "mkdir '%s' && cp '%s' '%s' && chmod 0444 '%s' && chmod 0555 '%s'", ro,
           src, path, path, ro);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  CU_ASSERT_EQUAL(ls_db_input_uri(path, uri, sizeof uri), 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(uri, "?mode=ro&immutable=1"));
  CU_ASSERT_EQUAL(strncmp(uri, "file:///tmp/leversim-ro-", 24), 0);
  CU_ASSERT_EQUAL(ls_db_open_read(&db, path, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 1);
  ls_db_close(db);
  char shm[800];
  snprintf(shm, sizeof shm, "%s-shm", path);
  CU_ASSERT_NOT_EQUAL(access(shm, F_OK), 0);
  if (geteuid() == 0) {
    CU_ASSERT_EQUAL(read_as_nobody(path, 1), 1); /* the defect, reproduced */
    CU_ASSERT_EQUAL(read_as_nobody(path, 0), 0); /* fixed */
  }
  /* A writable file in a writable folder is opened read-only but not immutable; special
   * characters are escaped. */
  CU_ASSERT_EQUAL(ls_db_input_uri(src, uri, sizeof uri), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(uri, "?mode=ro"));
  CU_ASSERT_PTR_NULL(strstr(uri, "immutable"));
  CU_ASSERT_EQUAL(ls_db_input_uri("a?b#c%d.db", uri, sizeof uri), 0); /* the folder is writable */
  CU_ASSERT_STRING_EQUAL(uri, "file:a%3Fb%23c%25d.db?mode=ro");
  CU_ASSERT_EQUAL(ls_db_input_uri("x.db", uri, 8), -1);
  snprintf(cmd, sizeof cmd, "chmod -R u+w '%s' && rm -rf '%s'", dir, dir);
  CU_ASSERT_EQUAL(system(cmd), 0);
}

static void test_hash(void)
{
  char a[LS_DB_RUN_ID_LEN + 1], b[LS_DB_RUN_ID_LEN + 1], c[LS_DB_RUN_ID_LEN + 1],
      d[LS_DB_RUN_ID_LEN + 1];
  ls_db_hash_run("main", "{\"x\":1}", 1, a);
  ls_db_hash_run("main", "{\"x\":1}", 1, b);
  CU_ASSERT_STRING_EQUAL(a, b);  /* deterministic */
  CU_ASSERT_EQUAL(strlen(a), LS_DB_RUN_ID_LEN);
  CU_ASSERT_EQUAL(strspn(a, "0123456789abcdef"), LS_DB_RUN_ID_LEN);
  ls_db_hash_run("main", "{\"x\":1}", 2, c);
  ls_db_hash_run("budget", "{\"x\":1}", 1, d);
  CU_ASSERT_STRING_NOT_EQUAL(a, c);  /* seed matters */
  CU_ASSERT_STRING_NOT_EQUAL(a, d);  /* part matters */
  /* "ab"+"c" vs "a"+"bc": the separator keeps fields apart. */
  ls_db_hash_run("ab", "c", 1, c);
  ls_db_hash_run("a", "bc", 1, d);
  CU_ASSERT_STRING_NOT_EQUAL(c, d);
  /* No collisions over 10^5 configurations, in either 64-bit half. */
  enum { N = 100000 };
  static char ids[N][LS_DB_RUN_ID_LEN + 1];
  for (int i = 0; i < N; i++) {
    char cfg[32];
    snprintf(cfg, sizeof cfg, "{\"i\":%d}", i);
    ls_db_hash_run("main", cfg, 0, ids[i]);
  }
  qsort(ids, N, sizeof ids[0], (int (*)(const void *, const void *))strcmp);
  int dup = 0;
  for (int i = 1; i < N; i++) dup += strncmp(ids[i - 1], ids[i], 16) == 0;
  CU_ASSERT_EQUAL(dup, 0);
}

static void test_round_trip(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "rt.db"), &e), LS_OK);
  ls_db_run r = {"run1", "main", "oneplus-12", "qwen3-8b", "gsm8k", "lever",
                 "{\"draft.budget\":\"16\"}", "{\"a\":[1,2]}", "deadbeef", "0.1.0", "ok", NULL,
                 UINT64_C(0xfedcba9876543210), 1.25, NULL, 0, NULL, 0};
  ls_db_metric m[] = {{"throughput_tps", 1.0 / 3.0, "tok/s"}, {"tau", 3.25, NULL},
                      {"custom_metric", -0.0, "x"}, {"ttft_s", NAN, "s"}};
  ls_db_step st[] = {{0, 16, 12, 3, 0.02, 0.5, 0.004}};
  CU_ASSERT_EQUAL_FATAL(ls_db_write_run(db, &r, m, 4, st, 1, &e), LS_OK);
  double v;
  CU_ASSERT_EQUAL(ls_db_get_metric(db, "run1", "throughput_tps", &v, &e), LS_OK);
  CU_ASSERT(v == 1.0 / 3.0);  /* bit-identical */
  CU_ASSERT_EQUAL(ls_db_get_metric(db, "run1", "ttft_s", &v, &e), LS_ENOTFOUND); /* NaN -> NULL */
  CU_ASSERT_EQUAL(ls_db_get_metric(db, "run1", "nope", &v, &e), LS_ENOTFOUND);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT tau FROM v_runs WHERE run_id = 'run1'"), 3.25);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT seed FROM runs"), (double)(int64_t)UINT64_C(0xfedcba9876543210));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT verify_s FROM steps WHERE run_id = 'run1' AND cycle = 0"), 0.5);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT wall_s FROM runs"), 1.25);
  /* Rewriting the same id replaces the run, its metrics and its steps. */
  ls_db_metric m2[] = {{"throughput_tps", 7.0, "tok/s"}};
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, m2, 1, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM steps"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT throughput_tps FROM v_runs"), 7.0);
  ls_db_close(db);
}

static void test_resume_lookup(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "resume.db"), &e), LS_OK);
  int done = -1;
  CU_ASSERT_EQUAL(ls_db_run_done(db, "x", &done, &e), LS_OK);
  CU_ASSERT_EQUAL(done, 0);
  ls_db_run r = {"x", "main", "d", "m", "s", "ar-mem", "{}", "{}", NULL, NULL, "invalid",
                 "ar-mem: target does not fit the DRAM budget", 1, 0, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, NULL, 0, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_run_done(db, "x", &done, &e), LS_OK);
  CU_ASSERT_EQUAL(done, 1);  /* invalid runs are finished too: resume must not redo them */
  CU_ASSERT_EQUAL(ls_db_run_done(db, "y", &done, &e), LS_OK);
  CU_ASSERT_EQUAL(done, 0);
  ls_db_run f = {"z", "main", "d", "m", "s", "lever", "{}", "{}", NULL, NULL, "failed", "boom", 1, 0, NULL, 0, NULL, 0};
  CU_ASSERT_EQUAL(ls_db_write_run(db, &f, NULL, 0, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_run_done(db, "z", &done, &e), LS_OK);
  CU_ASSERT_EQUAL(done, 0); /* failed runs are retried by --resume */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs"), 0);  /* not ok: not pivoted */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_failed WHERE message LIKE 'ar-mem:%'"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_failed"), 2);
  ls_db_close(db);
  /* A second connection sees the committed run. */
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_run_done(db, "x", &done, &e), LS_OK);
  CU_ASSERT_EQUAL(done, 1);
  ls_db_close(db);
}

static void test_atomicity(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "atomic.db"), &e), LS_OK);
  ls_db_run r = {"a", "main", "d", "m", "s", "lever", "{}", "{}", NULL, NULL, "ok", NULL, 1, 0, NULL, 0, NULL, 0};
  ls_db_metric good[] = {{"throughput_tps", 5, NULL}, {"tau", 2, NULL}};
  ls_db_metric dup[] = {{"throughput_tps", 9, NULL}, {"tau", 3, NULL}, {"tau", 4, NULL}};
  ls_db_step steps[] = {{0, 1, 1, 1, 0, 0, 0}, {0, 2, 2, 2, 0, 0, 0}};  /* duplicate cycle */
  /* A failing write of a new run leaves nothing. */
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, dup, 3, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "tau"));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), 0);
  /* A failing rewrite of a stored run keeps the old one whole. */
  CU_ASSERT_EQUAL_FATAL(ls_db_write_run(db, &r, good, 2, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, good, 2, steps, 2, &e), LS_EDB);
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, dup, 3, NULL, 0, &e), LS_EDB);
  ls_db_run bad = r;
  bad.status = "maybe";  /* CHECK constraint */
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  bad = r;
  bad.axes_json = "not json";
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  bad = r;
  bad.device = NULL;
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT throughput_tps FROM v_runs WHERE run_id = 'a'"), 5);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM steps"), 0);
  /* The connection is usable after the rollbacks. */
  r.run_id = "b";
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, good, 2, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 2);
  ls_db_close(db);
}

/* A failed row's error names the run and the row (formatted only on failure), and the
 * statements kept on the handle (settings, prompts, intervals) leave nothing bound that a
 * later run could pick up: a run after failures is written whole, as in a fresh database. */
static void test_row_errors_named(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "rowerr.db"), &e), LS_OK);
  ls_db_run r = {"r1", "main", "d", "m", "s", "lever", "{}", "{}", NULL, NULL, "ok", NULL, 1, 0, NULL, 0, NULL, 0};
  ls_db_metric good[] = {{"throughput_tps", 5, NULL}, {"tau", 2, NULL}};
  ls_db_metric dup[] = {{"throughput_tps", 9, NULL}, {"tau", 3, NULL}, {"tau", 4, NULL}};
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, dup, 3, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "run r1: metric tau"));
  ls_db_run bad = r;
  bad.status = "maybe";
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "writing run r1 (d/m/s/lever)"));
  ls_db_setting set[] = {{"draft.budget", "64", 64, NULL, "integer", 0},
                         {"verify.overlap", "serial", NAN, NULL, "choice", 1},
                         {"verify.overlap", "prefetch", NAN, NULL, "choice", 0}};
  bad = r;
  bad.settings = set;
  bad.n_settings = 3;
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "run r1: setting verify.overlap"));
  ls_db_prompt pr[3];
  memset(pr, 0, sizeof pr);
  for (int j = 0; j < 3; j++) {
    pr[j].prompt = j == 2 ? 1 : j; /* prompt 1 twice */
    pr[j].tokens = 10 + j;
    pr[j].decode_s = 1 + j;
    pr[j].cycles = 4 + j;
    pr[j].tau_sum = 8 + j;
  }
  bad = r;
  bad.prompts = pr;
  bad.n_prompts = 3;
  CU_ASSERT_EQUAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "writing prompts"));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 0);
  /* after the failures: two settings and two prompts, nothing else */
  bad = r;
  bad.settings = set;
  bad.n_settings = 2;
  bad.prompts = pr;
  bad.n_prompts = 2;
  CU_ASSERT_EQUAL_FATAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings WHERE run_id = 'r1'"), 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT value_num FROM run_settings WHERE key = 'draft.budget'"), 64);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings WHERE value_num IS NULL"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM prompts WHERE run_id = 'r1'"), 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum(tokens) FROM prompts"), 21);
  CU_ASSERT(fx_query(db, "SELECT count(*) FROM metric_ci WHERE run_id = 'r1'") > 0);
  /* a second run through the same kept statements: its own id on every row */
  bad.run_id = "r2";
  CU_ASSERT_EQUAL_FATAL(ls_db_write_run(db, &bad, good, 2, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM prompts WHERE run_id = 'r2'"), 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metric_ci WHERE run_id = 'r2'"),
                  fx_query(db, "SELECT count(*) FROM metric_ci WHERE run_id = 'r1'"));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings WHERE run_id = 'r2'"), 2);
  ls_db_close(db);
}

/* Settings and metrics go LS_DB_ROWS (16) rows to a statement: 40 settings are two chunks and
 * eight rows alone, every one written with its own values; a duplicate key inside a chunk
 * (row 21 repeats row 18) is named as a row-by-row write names it, and nothing stays. */
static void test_rows_in_chunks(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "chunks.db"), &e), LS_OK);
  enum { N = 40 };
  char keys[N][32], vals[N][16];
  ls_db_setting set[N];
  ls_db_metric met[N];
  for (int i = 0; i < N; i++) {
    snprintf(keys[i], sizeof keys[i], "k%02d", i);
    snprintf(vals[i], sizeof vals[i], "%d", 3 * i + 1);
    set[i] = (ls_db_setting){keys[i], vals[i], 3 * i + 1, i % 2 ? "s" : NULL, "number", i % 3 == 0};
    met[i] = (ls_db_metric){keys[i], i == 7 ? NAN : 0.5 * i, i % 2 ? "tok/s" : NULL};
  }
  ls_db_run r = {"c1", "main", "d", "m", "s", "lever", "{}", "{}", NULL, NULL, "ok", NULL, 1, 0, set, N, NULL, 0};
  CU_ASSERT_EQUAL_FATAL(ls_db_write_run(db, &r, met, N, NULL, 0, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings"), N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum(value_num) FROM run_settings"), 3 * (N - 1) * N / 2 + N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum(CAST(value_text AS INTEGER) = value_num AND"
                               " value_num = 3 * CAST(substr(key, 2) AS INTEGER) + 1) FROM run_settings"), N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum(is_default) FROM run_settings"), 14);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings WHERE unit = 's'"), N / 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum((coalesce(unit, '') = 's') = (CAST(substr(key, 2) AS INTEGER) % 2)) FROM run_settings"), N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics WHERE value IS NULL AND name = 'k07'"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT sum(value = 0.5 * CAST(substr(name, 2) AS INTEGER)) FROM metrics"), N - 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics WHERE unit = 'tok/s'"), N / 2);
  set[21].key = keys[18];
  r.run_id = "c2";
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, met, N, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "run c2: setting k18"));
  set[21].key = keys[21];
  met[37].name = keys[5]; /* in the rows after the chunks */
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, met, N, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "run c2: metric k05"));
  met[37].name = keys[37];
  met[3].name = keys[1]; /* in the first chunk */
  CU_ASSERT_EQUAL(ls_db_write_run(db, &r, met, N, NULL, 0, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "run c2: metric k01"));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM run_settings"), N);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metrics"), N);
  ls_db_close(db);
}

CU_TestInfo fx_schema_tests[] = {
    {"tables, views, WAL, schema_version", test_schema_created},
    {"the reference schema's STRICT flags equal the pragma's", test_reference_strict},
    {"open errors name the path", test_open_errors},
    {"'' and :memory: are refused", test_temporary_paths_refused},
    {"a database on read-only media is read (immutable)", test_read_only_media},
    {"run id hash", test_hash},
    CU_TEST_INFO_NULL};
CU_TestInfo fx_write_tests[] = {
    {"round trip and replace", test_round_trip},
    {"resume lookup", test_resume_lookup},
    {"a failing write leaves nothing", test_atomicity},
    {"a failed row is named; kept statements carry nothing over", test_row_errors_named},
    {"settings and metrics in chunks of rows", test_rows_in_chunks},
    CU_TEST_INFO_NULL};
