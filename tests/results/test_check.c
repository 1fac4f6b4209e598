/* tests/results: the regression check (pass, regression, missing, bad baselines) and the
 * check/export/merge commands through the leversim binary. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "fixture.h"

static void write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

/* A main-matrix db and a baseline written from it. */
static ls_db *setup(char *dbp, char *base)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, fx_path(dbp, "check.db"), &e) != LS_OK || fx_fill_main(db) != LS_OK)
    return NULL;
  FILE *f = fopen(fx_path(base, "baseline.yaml"), "w");
  int rc = ls_db_write_baseline(db, 0.05, f, &e);
  fclose(f);
  if (rc != LS_OK) {
    ls_db_close(db);
    return NULL;
  }
  return db;
}

static int run_check(ls_db *db, const char *base, double tol, int *reg, ls_error *e)
{
  FILE *f = fopen("/dev/null", "w");
  int rc = ls_db_check(db, base, tol, f, reg, e);
  fclose(f);
  return rc;
}

static void test_check_pass_and_regress(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  ls_error e;
  int reg = -1;
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* lever on configuration (d1, m1) 4% slower: within 5%, outside 3%. */
  CU_ASSERT_EQUAL(fx_add(db, "main", "d1", "m1", "s0", "lever", "{}", 7, 13 * 0.96, 2), LS_OK);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  CU_ASSERT_EQUAL(run_check(db, base, 0.03, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 2);  /* lever vs ar-flash and vs specinfer of that configuration */
  /* The report lists ratio, baseline, delta and status. */
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(ls_db_check(db, base, 0.03, f, &reg, &e), LS_OK);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "REGRESSION"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "-4.00%"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "2 regressions"));
  free(buf);
  /* Faster is not a regression. */
  CU_ASSERT_EQUAL(fx_add(db, "main", "d1", "m1", "s0", "lever", "{}", 7, 13 * 1.5, 2), LS_OK);
  CU_ASSERT_EQUAL(run_check(db, base, 0.03, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* A configuration that vanished is a regression (MISSING). */
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "DELETE FROM runs WHERE device = 'd0' AND model = 'm0' AND "
                                      "system = 'ar-flash'", NULL, NULL, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 1);
  ls_db_close(db);
}

static void test_baseline_format(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  /* 4 configurations x 2 non-lever systems, exact ratios. */
  FILE *f = fopen(base, "r");
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  int entries = 0;
  for (char *c = text; (c = strstr(c, "- {")); c++) entries++;
  CU_ASSERT_EQUAL(entries, 8);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "tolerance: 0.05"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "system: \"ar-flash\", ratio: 3.5}"));  /* k = 3: 2 + 1.5 */
  ls_db_close(db);
}

static void expect_bad(ls_db *db, const char *name, const char *text, int code, int line,
                       const char *needle)
{
  char p[512];
  write_file(fx_path(p, name), text);
  ls_error e;
  ls_error_clear(&e);
  int reg = 0;
  CU_ASSERT_EQUAL(run_check(db, p, -1, &reg, &e), code);
  CU_ASSERT_EQUAL(e.line, line);
  if (!strstr(e.msg, needle)) fprintf(stderr, "\n%s: message '%s' lacks '%s'\n", name, e.msg, needle);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, needle));
}

static void test_bad_baselines(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  expect_bad(db, "b1.yaml", "tolerance: 0.05\nentries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: ar-flash, ratio: 2, tolerence: 0.1}\n", LS_ESCHEMA, 3, "tolerence");
  expect_bad(db, "b2.yaml", "tolerance: 0.05\nentries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: ar-flash, ratio: -2}\n", LS_ERANGE, 3, "ratio");
  expect_bad(db, "b3.yaml", "tolerance: 1.5\nentries: []\n", LS_ERANGE, 1, "tolerance");
  expect_bad(db, "b4.yaml", "tolerance: 0.05\nentries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: x, ratio: 2}\n  - {device: d0, model: m0, dataset: s0, system: x,"
             " ratio: 3}\n", LS_ESCHEMA, 4, "duplicate entry");
  expect_bad(db, "b5.yaml", "tolerance: 0.05\n", LS_ESCHEMA, 1, "entries");
  expect_bad(db, "b6.yaml", "tolerance: 0.05\nentries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: x, ratio: fast}\n", LS_ESCHEMA, 3, "fast");
  ls_error e;
  int reg;
  CU_ASSERT_NOT_EQUAL(run_check(db, "/nonexistent/baseline.yaml", -1, &reg, &e), LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "baseline.yaml") ? e.msg : e.file);
  ls_db_close(db);
}

/* --- the commands ------------------------------------------------------------------------ */

static void test_cli_check(void)
{
  char dbp[512], base[512], args[2048], out[8192], wb[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, base);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 regressions"));
  /* --write-baseline round-trips through the command too. */
  snprintf(args, sizeof args, "check --db '%s' --write-baseline '%s' --tolerance 0.02", dbp,
           fx_path(wb, "written.yaml"));
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, wb);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "tolerance 2%"));
  CU_ASSERT_EQUAL(fx_add(db, "main", "d0", "m1", "s0", "lever", "{}", 7, 5, 2), LS_OK);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "REGRESSION"));
  ls_db_close(db);
  /* Bad input: 64+. */
  char bad[512];
  write_file(fx_path(bad, "bad.yaml"), "tolerance: 0.05\nentries: {a: 1}\n");
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, bad);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad.yaml:2:"));
  snprintf(args, sizeof args, "check --db /nonexistent.db --baseline '%s'", base);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 66);
  snprintf(args, sizeof args, "check --db '%s'", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s' --tolerance 2", dbp, base);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
}

static void test_cli_export(void)
{
  char dbp[512], base[512], args[2048], out[16384], csv[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  ls_db_close(db);
  snprintf(args, sizeof args, "export --db '%s' --view v_summary --format csv", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_EQUAL(strncmp(out, "system,configs,speedup_mean,speedup_geomean", 43), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "ar-flash,4,2.75,"));  /* (2 + 2.5 + 3 + 3.5) / 4 */
  snprintf(args, sizeof args, "export --db '%s' --view fig10 --format json --out '%s'", dbp,
           fx_path(csv, "fig10.json"));
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  FILE *f = fopen(csv, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  size_t n = fread(out, 1, sizeof out - 1, f);
  out[n] = '\0';
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"vs_lever\": 1,"));
  snprintf(args, sizeof args, "export --db '%s' --view energy --format table", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_EQUAL(strncmp(out, "device  system     configs  energy_per_token_j", 46), 0);
  snprintf(args, sizeof args, "export --db '%s' --view nope", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "v_summary"));  /* lists the views */
  snprintf(args, sizeof args, "export --db '%s' --format xml", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("export --db /nonexistent.db", out, sizeof out), 66);
}

static void test_cli_merge(void)
{
  char a[512], b[512], o[512], args[2048], out[4096];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(a, "ma.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10, 2), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(b, "mb.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "ar-flash", "{}", 1, 4, 1), LS_OK);
  ls_db_close(db);
  snprintf(args, sizeof args, "merge '%s' '%s' '%s'", fx_path(o, "mo.db"), a, b);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "2 runs added"));
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 runs added"));
  /* Same run id (same config and seed), different metric: conflict, exit 74, names the run. */
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, b, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10.5, 2), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 74);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "system lever"));
  CU_ASSERT_EQUAL(ls_test_cli("merge only-one.db", out, sizeof out), 64);
}

CU_TestInfo fx_check_tests[] = {
    {"pass, regression, improvement, missing", test_check_pass_and_regress},
    {"written baseline format", test_baseline_format},
    {"malformed baselines name file:line", test_bad_baselines},
    CU_TEST_INFO_NULL};
CU_TestInfo fx_cli_tests[] = {
    {"leversim check", test_cli_check},
    {"leversim export", test_cli_export},
    {"leversim merge", test_cli_merge},
    CU_TEST_INFO_NULL};
