/* tests/plots/test_best: `leversim best` (runner/report/best.c) on a database whose answer is
 * known in closed form. Runs of 10 prompts; prompt j takes base_j / speed seconds for 10
 * tokens, base_j = 1 + 0.1 j, so two runs' throughput ratio is the ratio of their speeds on
 * every prompt and its paired interval is that single point.
 *   device d1: budget 8 speed 1, 16 speed 2, 32 speed 2, 64 speed 2 x (0.95 or 1.05 by prompt)
 *   device d2: budget 8 speed 3, 16 speed 1, 32 speed 1 (one configuration's 32 with seed 9)
 * Two configurations (datasets a, b) per device. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"
#include "ls_test.h"
#include "runner/report/best.h"

static int put(ls_db *db, const char *dev, const char *ds, int budget, double speed, double wobble, uint64_t seed)
{
  char cfg[256], id[LS_DB_RUN_ID_LEN + 1], axes[64], val[16];
  snprintf(axes, sizeof axes, "{\"draft.budget\":\"%d\"}", budget);
  snprintf(val, sizeof val, "%d", budget);
  snprintf(cfg, sizeof cfg, "{\"device\":\"%s\",\"dataset\":\"%s\",\"budget\":%d,\"seed\":%llu}", dev, ds, budget,
           (unsigned long long)seed);
  ls_db_hash_run("study", cfg, seed, id);
  ls_db_prompt p[10];
  memset(p, 0, sizeof p);
  double tokens = 0, time = 0;
  for (int j = 0; j < 10; j++) {
    double s = speed * (wobble > 0 ? (j % 2 ? 1 + wobble : 1 - wobble) : 1);
    p[j].prompt = j;
    p[j].tokens = 10;
    p[j].cycles = 5;
    p[j].tau_sum = 10;
    p[j].decode_s = (1 + 0.1 * j) / s;
    tokens += p[j].tokens;
    time += p[j].decode_s;
  }
  ls_db_setting set[] = {{"draft.budget", val, budget, NULL, "integer", 0}, {"workload.max_tokens", "10", 10, NULL, "integer", 0}};
  ls_db_run r = {id, "study", dev, "m", ds, "lever", axes, cfg, NULL, "test", "ok", NULL, seed, 0.1, set, 2, p, 10};
  ls_db_metric m[] = {{"throughput_tps", tokens / time, "tok/s"}, {"tau", 2, NULL}};
  return ls_db_write_run(db, &r, m, 2, NULL, 0, NULL);
}

static char *best_text(ls_db *db, const char *format, const char *const *by, int n_by, int *rc)
{
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  ls_best_query q = {"throughput_tps", "draft.budget", by, n_by, 0};
  ls_error err;
  *rc = ls_best_run(db, &q, format, m, &err);
  if (*rc) fprintf(m, "error: %s", err.msg);
  fclose(m);
  return text;
}

/* The database of the top of the file in dir/best.db; NULL on failure. */
static ls_db *make_db(const char *dir, char *path, size_t size)
{
  snprintf(path, size, "%s/best.db", dir);
  ls_db *db = NULL;
  ls_error err;
  if (ls_db_open(&db, path, &err) != LS_OK) return NULL;
  const char *ds[2] = {"a", "b"};
  int rc = 0;
  for (int k = 0; k < 2; k++) {
    rc |= put(db, "d1", ds[k], 8, 1, 0, 7) | put(db, "d1", ds[k], 16, 2, 0, 7) | put(db, "d1", ds[k], 32, 2, 0, 7);
    rc |= put(db, "d1", ds[k], 64, 2, 0.05, 7);
    rc |= put(db, "d2", ds[k], 8, 3, 0, 7) | put(db, "d2", ds[k], 16, 1, 0, 7) | put(db, "d2", ds[k], 32, 1, 0, k ? 9 : 7);
  }
  if (rc) {
    ls_db_close(db);
    return NULL;
  }
  return db;
}

static void test_closed_form(void)
{
  char dir[512], path[600];
  CU_ASSERT_PTR_NOT_NULL_FATAL(px_tmpdir(dir, sizeof dir));
  ls_db *db = make_db(dir, path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int rc = 0;
  const char *by[] = {"device"};
  char *t = best_text(db, "table", by, 1, &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "d1: best draft.budget = 16: throughput_tps"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "within its interval: 16, 32, 64\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "draft.budget=8          0.5 [0.5, 0.5] x best  below"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "draft.budget=32         1 [1, 1] x best  within"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "d2: best draft.budget = 8:"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "draft.budget=16         0.3333 [0.3333, 0.3333] x best  below"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "seeds differ (7, 9)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "  runs: seed 7, 10 prompts of 10 tokens\n")); /* d1: one seed */
  const char *d1 = strstr(t, "d1:"), *d2 = strstr(t, "d2:");
  CU_ASSERT_PTR_NULL(d1 && d2 ? strstr(d1, "seeds differ") < d2 ? strstr(d1, "seeds differ") : NULL : NULL);
  free(t);
  /* the score is the geometric mean of the configurations' throughputs: d2's best, 8 at speed 3 */
  t = best_text(db, "json", by, 1, &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"group\":\"d2\",\"best\":\"8\",\"configs\":2"));
  char *sc = strstr(t, "\"group\":\"d2\"");
  sc = sc ? strstr(sc, "\"score\":") : NULL;
  CU_ASSERT_PTR_NOT_NULL_FATAL(sc);
  LS_ASSERT_CLOSE(strtod(sc + 8, NULL), 3 * 100 / 14.5, 1e-12); /* 100 tokens in sum(base_j) = 14.5 s / 3 */
  free(t);
  t = best_text(db, "csv", by, 1, &rc);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "group,value,configs,score,score_lo,score_hi,ratio_to_best,ratio_lo,ratio_hi,best,within,notes\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"d1\",\"16\",2,"));
  free(t);
  /* without --by: one group; d1 and d2 are configurations of it, and d2's lack budget 64 */
  t = best_text(db, "table", NULL, 0, &rc);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "over 2 configurations"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "2 configuration(s) lack a value and are left out; compared over 2"));
  free(t);
  ls_db_close(db);
  px_rmdir(dir);
}

/* Values that change nothing: d1's budgets 16 and 32 run at one speed (the same prompts, bit
 * for bit: "the same as the best"); a database where every budget does tie names no best. */
static void test_ties(void)
{
  char dir[512], path[600];
  CU_ASSERT_PTR_NOT_NULL_FATAL(px_tmpdir(dir, sizeof dir));
  ls_db *db = make_db(dir, path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int rc = 0;
  const char *by[] = {"device"};
  char *t = best_text(db, "table", by, 1, &rc);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "draft.budget=32         1 [1, 1] x best  within (the same on every prompt as the best)\n"));
  const char *same = strstr(t, "(the same on every prompt"); /* not 64: prompt by prompt it differs */
  CU_ASSERT_PTR_NULL(same ? strstr(same + 1, "(the same on every prompt") : NULL);
  CU_ASSERT_PTR_NULL(strstr(t, "tie"));
  free(t);
  ls_db_close(db);
  px_rmdir(dir);
  CU_ASSERT_PTR_NOT_NULL_FATAL(px_tmpdir(dir, sizeof dir));
  snprintf(path, sizeof path, "%s/tie.db", dir);
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, path, &err), LS_OK);
  const char *ds[2] = {"a", "b"};
  for (int k = 0; k < 2; k++)
    CU_ASSERT_EQUAL((put(db, "d3", ds[k], 16, 2, 0, 7) | put(db, "d3", ds[k], 32, 2, 0, 7) | put(db, "d3", ds[k], 64, 2, 0, 7)), 0);
  t = best_text(db, "table", by, 1, &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "d3: no best draft.budget: its 3 values tie, throughput_tps "));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "draft.budget=64         1 [1, 1] x best  tie\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "note: the 3 values tie: the same throughput_tps on every prompt of every configuration"));
  CU_ASSERT_PTR_NULL(strstr(t, "best draft.budget ="));
  free(t);
  t = best_text(db, "json", by, 1, &rc);
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"group\":\"d3\",\"best\":null,\"configs\":2,\"tie\":true"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"same_as_best\":true}"));
  free(t);
  t = best_text(db, "csv", by, 1, &rc); /* no row is marked best */
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"d3\",\"16\",2,"));
  CU_ASSERT_PTR_NULL(strstr(t, ",1,1,\""));
  free(t);
  ls_db_close(db);
  px_rmdir(dir);
}

static void test_cli(void)
{
  static char out[16384];
  CU_ASSERT_EQUAL(ls_test_cli("best --db /nonexistent.db --y tps --over draft.budget", out, sizeof out), 66);
  CU_ASSERT_EQUAL(ls_test_cli("best --y throughput_tps --over draft.budget", out, sizeof out), 64);
}

/* `plot` with several groupings: two --by keys make one line per combination (neither replaces
 * the other), --panel one panel per value; a point two runs share is refused, naming --panel. */
static void test_plot_groupings(void)
{
  static char out[16384];
  char dir[512], path[600], args[2048];
  CU_ASSERT_PTR_NOT_NULL_FATAL(px_tmpdir(dir, sizeof dir));
  ls_db *db = make_db(dir, path, sizeof path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  ls_db_close(db);
  snprintf(args, sizeof args, "plot --db '%s' --x draft.budget --y tps --by device --format csv", path);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64); /* datasets a and b at one point */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--panel KEY"));
  snprintf(args, sizeof args, "plot --db '%s' --x draft.budget --y tps --by device --by dataset --format csv", path);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "device / dataset,draft.budget,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nd1 / a,8,8,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nd2 / b,32,32,"));
  snprintf(args, sizeof args, "plot --db '%s' --x draft.budget --y tps --by dataset --panel device --format csv", path);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "device,dataset,draft.budget,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nd2,b,8,8,20.689655")); /* speed 3: 100 tokens in 14.5 s / 3 */
  char png[700], dat[760];
  snprintf(png, sizeof png, "%s/p.png", dir);
  snprintf(args, sizeof args, "plot --db '%s' --x draft.budget --y tps --by dataset --panel device --out '%s'", path, png);
  int rc = ls_test_cli(args, out, sizeof out);
  if (system("command -v gnuplot >/dev/null") == 0) {
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(dat, sizeof dat, "%s.2.dat", png); /* one data file per panel */
    char *d = ls_test_slurp(dat);
    CU_ASSERT_PTR_NOT_NULL(d ? strstr(d, "# b") : NULL);
    free(d);
  }
  px_rmdir(dir);
}

CU_TestInfo px_best_tests[] = {{"plot: two --by keys, --panel", test_plot_groupings},{"closed form: best, ratios, within, notes", test_closed_form},
                               {"command line", test_cli},
                               {"values that change nothing: the same as the best, ties", test_ties},
                               CU_TEST_INFO_NULL};
