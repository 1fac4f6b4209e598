/* tests/runner/uncertainty: the uncertainty study (runner/study/uncertainty.h). The Sobol
 * indices of two functions whose indices are known in closed form, computed through the
 * study's own design and estimators: a linear model (S_i = ST_i = c_i^2 var_i / sum) and
 * Ishigami's function (src:saltelli-2010); the ranges file's values and errors; and the
 * command on a tiny sample: every claim with p_holds in [0, 1], a 5-95 % range and its
 * indices, in JSON and in the database's tables and views; bad input's exit codes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sqlite3.h>
#include "ls_test.h"
#include "rtest.h"
#include "runner/study/unc_int.h"

/* f over the design's points (A, B, AB_i), x_i uniform on [lo, hi] from u. */
static void eval_design(int n, int k, double (*f)(const double *x), double lo, double hi, double *fa, double *fb,
                        double *fab)
{
  double *a = malloc((size_t)(n * k) * sizeof *a), *b = malloc((size_t)(n * k) * sizeof *b), x[8];
  CU_ASSERT_EQUAL_FATAL(ls_unc_design(n, k, a, b, NULL), LS_OK);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < k; i++) x[i] = lo + (hi - lo) * a[j * k + i];
    fa[j] = f(x);
    for (int i = 0; i < k; i++) x[i] = lo + (hi - lo) * b[j * k + i];
    fb[j] = f(x);
    for (int s = 0; s < k; s++) {
      for (int i = 0; i < k; i++) x[i] = lo + (hi - lo) * (i == s ? b[j * k + i] : a[j * k + i]);
      fab[s * n + j] = f(x);
    }
  }
  free(a), free(b);
}

static double linear(const double *x) { return 1 * x[0] + 2 * x[1] + 3 * x[2] + 0 * x[3]; }

/* Ishigami, a = 7, b = 0.1 on [-pi, pi]^3. */
static double ishigami(const double *x) { return sin(x[0]) + 7 * sin(x[1]) * sin(x[1]) + 0.1 * pow(x[2], 4) * sin(x[0]); }

static void test_indices_closed_form(void)
{
  enum { N = 8192 };
  double *fa = malloc(N * sizeof *fa), *fb = malloc(N * sizeof *fb), *fab = malloc(4 * N * sizeof *fab), s1[4], st[4];
  /* linear: S_i = ST_i = c_i^2 / 14 (equal variances), the inert input 0 */
  eval_design(N, 4, linear, 0, 1, fa, fb, fab);
  ls_unc_indices(fa, fb, fab, N, 4, s1, st);
  const double lin[4] = {1.0 / 14, 4.0 / 14, 9.0 / 14, 0};
  for (int i = 0; i < 4; i++) {
    CU_ASSERT_DOUBLE_EQUAL(s1[i], lin[i], 0.01);
    CU_ASSERT_DOUBLE_EQUAL(st[i], lin[i], 0.01);
  }
  /* Ishigami: V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2, V1 = (1 + b pi^4/5)^2 / 2, V2 = a^2/8,
   * V13 = b^2 pi^8 (1/18 - 1/50): S = (0.3139, 0.4424, 0), ST = (0.5576, 0.4424, 0.2437) */
  const double pi = acos(-1.0), b = 0.1, a = 7;
  double v = a * a / 8 + b * pow(pi, 4) / 5 + b * b * pow(pi, 8) / 18 + 0.5;
  double v1 = 0.5 * pow(1 + b * pow(pi, 4) / 5, 2), v2 = a * a / 8, v13 = b * b * pow(pi, 8) * (1.0 / 18 - 1.0 / 50);
  eval_design(N, 3, ishigami, -pi, pi, fa, fb, fab);
  ls_unc_indices(fa, fb, fab, N, 3, s1, st);
  CU_ASSERT_DOUBLE_EQUAL(s1[0], v1 / v, 0.02);
  CU_ASSERT_DOUBLE_EQUAL(s1[1], v2 / v, 0.02);
  CU_ASSERT_DOUBLE_EQUAL(s1[2], 0, 0.02);
  CU_ASSERT_DOUBLE_EQUAL(st[0], (v1 + v13) / v, 0.02);
  CU_ASSERT_DOUBLE_EQUAL(st[1], v2 / v, 0.02);
  CU_ASSERT_DOUBLE_EQUAL(st[2], v13 / v, 0.02);
  /* a constant: no variance, every index 0 */
  for (int j = 0; j < N; j++) fa[j] = fb[j] = 3;
  for (int j = 0; j < 3 * N; j++) fab[j] = 3;
  ls_unc_indices(fa, fb, fab, N, 3, s1, st);
  CU_ASSERT(s1[0] == 0 && st[2] == 0);
  free(fa), free(fb), free(fab);
}


/* The claims at one point by hand: one configuration of the OnePlus 12 and Qwen3-4B with
 * Lever at 10 tok/s, AR at 10 / 2.93 (the paper's mean: holds), SpecInfer at 10 / 1.6 (6.7 %
 * off 1.50: fails), no pruning at 10 / 1.02 (a 2 % gain: holds), SpecInfer wasting 25 % of its
 * compute (holds) or 85 % of its tokens (fails), AR's flash share 80 % (78.3 +- 3: holds);
 * Fig. 14: the on-demand CPU head faster and cheaper than both NPU placements (holds), then
 * slower than one of them (fails). */
static void test_claims_by_hand(void)
{
  static const char *const dev[] = {"oneplus-12"}, *const mod[] = {"qwen3-4b"}, *const ds[] = {"gsm8k"};
  static const char *const sys[] = {"lever", "ar-flash", "specinfer", "lever-no-prune"};
  static const char *const lm[] = {"a", "b", "c"};
  unc_matrix m = {dev, mod, ds, sys, lm, 1, 1, 1, 4, 3, mod, ds, 1, 1};
  CU_ASSERT_EQUAL_FATAL(ls_unc_jobs(&m), 7);
  double met[7][UNC_NMETRICS] = {{0}}, val[UNC_NCLAIMS];
  signed char h[UNC_NCLAIMS];
  const double tps[7] = {10, 10 / 2.93, 10 / 1.6, 10 / 1.02, 3.0, 2.0, 2.5};
  for (int j = 0; j < 7; j++) met[j][UM_TPS] = tps[j], met[j][UM_IO_BUSY] = 0.8;
  met[2][UM_WASTED] = 0.25, met[2][UM_WASTED_TOK] = 0.85;
  met[4][UM_LMHEAD] = 0.05, met[5][UM_LMHEAD] = 0.07, met[6][UM_LMHEAD] = 0.06;
  ls_unc_claims_at(&m, (const double(*)[UNC_NMETRICS])met, 0, val, h);
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_AR], 2.93, 1e-12);
  CU_ASSERT_EQUAL(h[UNC_AR], 1);
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_SPEC], 1.6, 1e-12);
  CU_ASSERT_EQUAL(h[UNC_SPEC], 0);
  CU_ASSERT(val[UNC_FASTEST] == 1 && h[UNC_FASTEST] == 1);
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_FIG12], 2.0, 1e-9);
  CU_ASSERT_EQUAL(h[UNC_FIG12], 1);
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_WASTED], 25, 1e-9);
  CU_ASSERT_EQUAL(h[UNC_WASTED], 1);
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_T1_Q4], 80, 1e-9);
  CU_ASSERT_EQUAL(h[UNC_T1_Q4], 1);
  CU_ASSERT(isnan(val[UNC_T1_L8]) && h[UNC_T1_L8] == -1); /* not in the matrix */
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_FIG14], 3.0 / 2.5, 1e-12);
  CU_ASSERT_EQUAL(h[UNC_FIG14], 1);
  ls_unc_claims_at(&m, (const double(*)[UNC_NMETRICS])met, 1, val, h); /* counting tokens */
  CU_ASSERT_DOUBLE_EQUAL(val[UNC_WASTED], 85, 1e-9);
  CU_ASSERT_EQUAL(h[UNC_WASTED], 0);
  met[1][UM_TPS] = 10; /* AR level with Lever: Lever is not fastest */
  met[6][UM_TPS] = 3.5; /* demand-npu faster than the CPU head */
  ls_unc_claims_at(&m, (const double(*)[UNC_NMETRICS])met, 0, val, h);
  CU_ASSERT(val[UNC_FASTEST] == 0 && h[UNC_FASTEST] == 0);
  CU_ASSERT_EQUAL(h[UNC_FIG14], 0);
}

static char g_dir[64];

static void write_file(const char *name, const char *text, char *path, size_t size)
{
  snprintf(path, size, "%s/%s", g_dir, name);
  FILE *f = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(text, f);
  fclose(f);
}

/* The shipped ranges file loads; values at u; a log range's middle is the geometric mean. */
static void test_ranges_file(void)
{
  ls_unc_ranges *r = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_unc_ranges_load(&r, LS_TEST_DIR "/../runner/experiments/ranges.yaml", &err), LS_OK);
  CU_ASSERT(ls_unc_ranges_count(r) >= 8);
  char v[128];
  int found = 0;
  for (int i = 0; i < ls_unc_ranges_count(r); i++) {
    const ls_unc_assumption *a = ls_unc_ranges_at(r, i);
    if (!strcmp(a->name, "op12-vector-rate")) {
      found = 1;
      ls_unc_value(a, 0.5, v, sizeof v);
      CU_ASSERT_DOUBLE_EQUAL(atof(v), sqrt(a->lo * a->hi), 1e-3);
      ls_unc_value(a, 0, v, sizeof v);
      CU_ASSERT_DOUBLE_EQUAL(atof(v), a->lo, 1e-3);
    }
    if (!strcmp(a->name, "specinfer-tree")) {
      ls_unc_value(a, 0.99, v, sizeof v);
      CU_ASSERT_STRING_EQUAL(v, a->values[a->n_values - 1]);
    }
  }
  CU_ASSERT(found);
  ls_unc_ranges_free(r);
  /* a value that is neither a range nor alternatives, and an unknown key, name the line */
  char path[256];
  write_file("bad.yaml", "assumptions:\n  - name: x\n    setting: prune.exit_layer\n    default: 0.5\n"
                         "    sources: \"src:lever-paper\"\n    why: w\n    range: [0.9, 0.1]\n    scale: linear\n", path,
             sizeof path);
  CU_ASSERT_EQUAL(ls_unc_ranges_load(&r, path, &err), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "low < high"));
  write_file("bad2.yaml", "assumptions:\n  - name: x\n    claim: wasted\n    default: a\n    sources: s\n    why: w\n"
                          "    values: [a, b]\n    colour: red\n", path, sizeof path);
  CU_ASSERT_NOT_EQUAL(ls_unc_ranges_load(&r, path, &err), LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "colour"));
}

static int count_rows(const char *db, const char *sql)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  int n = -1;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

/* The command on a tiny sample (one configuration, 4 base samples, one short prompt). */
static void test_cli_tiny(void)
{
  static char out[1 << 17];
  char args[1024], db[128];
  snprintf(db, sizeof db, "%s/u.db", g_dir);
  snprintf(args, sizeof args, "uncertainty --quick --samples 4 --prompts 1 --tokens 8 --jobs 2 --json --no-figure --db '%s' --out '%s'", db, g_dir);
  CU_ASSERT_EQUAL_FATAL(ls_test_cli(args, out, sizeof out), 0);
  static const char *const claims[] = {"\"ar\"", "\"specinfer\"", "\"fastest\"", "\"table1-qwen3-4b\"", "\"fig12\"", "\"wasted\"", "\"fig14\""};
  for (int c = 0; c < 7; c++) CU_ASSERT_PTR_NOT_NULL(strstr(out, claims[c]));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"samples\": 4"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"assumption\": \"op12-vector-rate\", \"first_order\": "));
  /* every claim checked in this configuration has p_holds in [0, 1] and an ordered 5-95 % range */
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_summary"), 9);
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_claims WHERE points > 0 AND (p_holds < 0 OR p_holds > 1"
                                 " OR p05 > median OR median > p95)"), 0);
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_claims WHERE claim = 'ar' AND points = 8"), 1);
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_claims WHERE verdict = 'cannot check'"), 2); /* two Table 1 targets */
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_points WHERE assumption = 'overlap'"), 4 * (9 + 2));
  CU_ASSERT_EQUAL(count_rows(db, "SELECT count(*) FROM unc_indices"), 9 * 9);
  /* --jobs does not change a value */
  char db1[128];
  snprintf(db1, sizeof db1, "%s/u1.db", g_dir);
  snprintf(args, sizeof args, "uncertainty --quick --samples 4 --prompts 1 --tokens 8 --jobs 1 --no-figure --db '%s' --out '%s'", db1, g_dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  char q[512];
  snprintf(q, sizeof q, "SELECT count(*) FROM unc_values a JOIN (SELECT * FROM u2.unc_values) b USING(claim, point)"
                        " WHERE a.value IS NOT b.value");
  sqlite3 *h = NULL;
  char attach[256];
  snprintf(attach, sizeof attach, "ATTACH '%s' AS u2", db);
  CU_ASSERT_EQUAL(sqlite3_open(db1, &h), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  CU_ASSERT_EQUAL(sqlite3_prepare_v2(h, q, -1, &st, NULL), SQLITE_OK);
  CU_ASSERT(sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  /* bad input: too few samples is a usage error; a bad ranges file is bad data */
  CU_ASSERT_EQUAL(ls_test_cli("uncertainty --quick --samples 1", out, sizeof out), 64);
  snprintf(args, sizeof args, "uncertainty --quick --samples 2 --ranges '%s/bad.yaml' --no-figure --db '%s'", g_dir, db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  /* settings lists the ranges */
  CU_ASSERT_EQUAL(ls_test_cli("settings", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "op12-vector-rate"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "1,1,3,1,1,1,1,1 | 1,1,1,1,1 | 4,2,2,1,1"));
}

static int init(void)
{
  snprintf(g_dir, sizeof g_dir, "/tmp/leversim-unc-XXXXXX");
  return mkdtemp(g_dir) ? 0 : 1;
}

static int clean(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : 1;
}

static CU_TestInfo tests[] = {
    {"Sobol indices in closed form: a linear model and Ishigami's function", test_indices_closed_form},
    {"the claims at one point by hand", test_claims_by_hand},
    {"the ranges file: values, log middle, errors naming the key", test_ranges_file},
    {"uncertainty on a tiny sample: JSON, tables, views, --jobs, exit codes", test_cli_tiny},
    CU_TEST_INFO_NULL};

CU_SuiteInfo ls_rt_uncertainty_suite = {"uncertainty", init, clean, NULL, NULL, tests};
