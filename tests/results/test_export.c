/* tests/results: export exactness (CSV, JSON) and the views' numbers against hand-computed
 * values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "fixture.h"

/* Exports view to a memory buffer (caller frees). */
static char *export_text(ls_db *db, const char *view, const char *fmt, int *rc)
{
  FILE *f = tmpfile();
  ls_error e;
  *rc = ls_db_export(db, view, fmt, f, &e);
  long n = ftell(f);
  char *buf = calloc((size_t)n + 1, 1);
  rewind(f);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) buf[0] = '\0';
  fclose(f);
  return buf;
}

static ls_db *export_db(char *p)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, fx_path(p, "export.db"), &e) != LS_OK) return NULL;
  ls_db_run r = {"r1", "main", "dev,ice", "mo\"del", "data\nset", "lever", "{}", "{}", NULL,
                 NULL, "ok", NULL, 3, 0, NULL, 0, NULL, 0};
  ls_db_metric m[] = {{"throughput_tps", 0.1 + 0.2, NULL}, {"tau", 1.0 / 3.0, NULL},
                      {"ttft_s", 1e-300, NULL}, {"cycles", 12, NULL}, {"decode_s", 2.93, NULL}};
  if (ls_db_write_run(db, &r, m, 5, NULL, 0, &e) != LS_OK) {
    ls_db_close(db);
    return NULL;
  }
  return db;
}

static void test_csv_exact(void)
{
  char p[512];
  ls_db *db = export_db(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int rc;
  char *t = export_text(db, "v_runs", "csv", &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  /* Header: fixed columns then every metric in ls_db_metric_name order. */
  CU_ASSERT_EQUAL(strncmp(t, "run_id,part,device,model,dataset,system,axes_json,seed,throughput_tps,tau,", 74), 0);
  /* Quoting of comma, quote and newline; shortest exact reals; NULL as empty. */
  const char *row = strchr(t, '\n') + 1;
  const char *want = "r1,main,\"dev,ice\",\"mo\"\"del\",\"data\nset\",lever,{},3,"
                     "0.30000000000000004,0.3333333333333333,1e-300,";
  CU_ASSERT_EQUAL(strncmp(row, want, strlen(want)), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(row, ",2.93,"));  /* shortest form, not 2.9300000000000002 */
  /* after the metrics: prompts (0: none written) and the empty intervals */
  CU_ASSERT_PTR_NOT_NULL(strstr(row, ",0,,,,\n"));
  CU_ASSERT(strtod("0.3333333333333333", NULL) == 1.0 / 3.0);
  CU_ASSERT(strtod("0.30000000000000004", NULL) == 0.1 + 0.2);
  /* Column count: 8 fixed + metrics + prompts and 4 interval bounds. */
  int nmet = 0;
  while (ls_db_metric_name(nmet)) nmet++;
  int commas = 0;
  for (const char *c = t; *c != '\n'; c++) commas += *c == ',';
  CU_ASSERT_EQUAL(commas + 1, 8 + nmet + 5);
  free(t);
  ls_db_close(db);
}

static void test_json_exact(void)
{
  char p[512];
  ls_db *db = export_db(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int rc;
  char *t = export_text(db, "v_runs", "json", &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_EQUAL(t[0], '[');
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"device\": \"dev,ice\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"model\": \"mo\\\"del\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"dataset\": \"data\\nset\""));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"seed\": 3,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"throughput_tps\": 0.30000000000000004,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"cycles\": 12,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"io_share\": null"));
  CU_ASSERT_PTR_NOT_NULL(strstr(t, "}\n]\n"));
  free(t);
  /* An empty view is an empty array; table format prints a header. */
  t = export_text(db, "fig05", "json", &rc);
  CU_ASSERT_STRING_EQUAL(t, "[]\n");
  free(t);
  t = export_text(db, "fig05", "table", &rc);
  CU_ASSERT_EQUAL(rc, LS_OK);
  CU_ASSERT_EQUAL(strncmp(t, "device", 6), 0);
  free(t);
  ls_db_close(db);
}

static void test_export_errors(void)
{
  char p[512];
  ls_db *db = export_db(p);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int rc;
  free(export_text(db, "runs; DROP TABLE runs", "csv", &rc));
  CU_ASSERT_EQUAL(rc, LS_ENOTFOUND);
  free(export_text(db, "v_runs", "xml", &rc));
  CU_ASSERT_EQUAL(rc, LS_EUSAGE);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM runs"), 1);
  ls_db_close(db);
}

/* v_speedup / v_summary against the closed forms of the fixture matrix. */
static void test_summary_means(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "views.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fx_fill_main(db), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_speedup"), 12);
  const char *sys[] = {"ar-flash", "specinfer"};
  for (int s = 0; s < 2; s++) {
    double am = 0, lg = 0, mn = INFINITY, mx = 0;
    for (int k = 0; k < 4; k++) {
      double x = fx_main_ratio(sys[s], k);
      am += x / 4;
      lg += log(x) / 4;
      mn = fmin(mn, x);
      mx = fmax(mx, x);
    }
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT speedup_mean FROM v_summary WHERE system = '%s'", sys[s]);
    LS_ASSERT_CLOSE(fx_query(db, sql), am, 1e-12);
    snprintf(sql, sizeof sql, "SELECT speedup_geomean FROM v_summary WHERE system = '%s'", sys[s]);
    LS_ASSERT_CLOSE(fx_query(db, sql), exp(lg), 1e-12);
    CU_ASSERT(exp(lg) < am - 1e-6);  /* AM-GM: the two means are really different here */
    snprintf(sql, sizeof sql, "SELECT speedup_min FROM v_summary WHERE system = '%s'", sys[s]);
    LS_ASSERT_CLOSE(fx_query(db, sql), mn, 1e-12);
    snprintf(sql, sizeof sql, "SELECT speedup_max FROM v_summary WHERE system = '%s'", sys[s]);
    LS_ASSERT_CLOSE(fx_query(db, sql), mx, 1e-12);
    snprintf(sql, sizeof sql, "SELECT configs FROM v_summary WHERE system = '%s'", sys[s]);
    CU_ASSERT_EQUAL(fx_query(db, sql), 4);
  }
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_summary WHERE system = 'lever'"), 0);
  /* fig10: normalised to lever and to ar-flash. */
  LS_ASSERT_CLOSE(fx_query(db, "SELECT vs_lever FROM fig10 WHERE device = 'd1' AND model = 'm1'"
                               " AND system = 'ar-flash'"), 1 / fx_main_ratio("ar-flash", 3), 1e-12);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT vs_ar_flash FROM fig10 WHERE device = 'd0' AND model = 'm1'"
                               " AND system = 'specinfer'"),
                  fx_main_ratio("ar-flash", 1) / fx_main_ratio("specinfer", 1), 1e-12);
  /* fig11: normalised to specinfer (tau of the fixture: lever 2, specinfer 4). */
  LS_ASSERT_CLOSE(fx_query(db, "SELECT tau_vs_specinfer FROM fig11 WHERE device = 'd0' AND "
                               "model = 'm0' AND system = 'lever'"), 0.5, 1e-12);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT tps_vs_specinfer FROM fig11 WHERE device = 'd0' AND "
                               "model = 'm0' AND system = 'lever'"), 1.2, 1e-12);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM fig11 WHERE system = 'ar-flash'"), 0);
  /* throughput: one row per configuration, one column per system. */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM throughput"), 4);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT lever FROM throughput WHERE device = 'd1' AND model = 'm0'"), 12);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT \"ar-flash\" FROM throughput WHERE device = 'd1' AND "
                               "model = 'm0'"), 12 / fx_main_ratio("ar-flash", 2), 1e-15);
  CU_ASSERT(isnan(fx_query(db, "SELECT \"ar-mem\" FROM throughput LIMIT 1")));
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM summary JOIN v_summary USING(system, "
                               "configs, speedup_mean, speedup_geomean)"), 2);
  /* energy: mean of 1/tps over the two configurations of a device. */
  LS_ASSERT_CLOSE(fx_query(db, "SELECT energy_per_token_j FROM energy WHERE device = 'd1' AND "
                               "system = 'lever'"), (1.0 / 12 + 1.0 / 13) / 2, 1e-12);
  ls_db_close(db);
}

static void test_figure_views(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "figs.db"), &e), LS_OK);
  /* fig05: budgets written as strings sort numerically. */
  const char *budgets[] = {"16", "4", "64", "8"};
  for (int i = 0; i < 4; i++) {
    char axes[64];
    snprintf(axes, sizeof axes, "{\"draft.budget\":\"%s\"}", budgets[i]);
    CU_ASSERT_EQUAL(fx_add(db, "budget", "oneplus-12", "m", "s", "lever", axes, 1,
                           100.0 / atof(budgets[i]), atof(budgets[i])), LS_OK);
  }
  CU_ASSERT_EQUAL(fx_query(db, "SELECT budget FROM fig05 LIMIT 1"), 4);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT group_concat(budget, ',') = '4.0,8.0,16.0,64.0' FROM fig05"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT throughput_tps FROM fig05 WHERE budget = 8"), 12.5);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_speedup"), 0);  /* not part main */
  /* sensitivity: the axis value with a unit gives its number. */
  const char *bw[] = {"0.5 GB/s", "4 GB/s"};
  for (int i = 0; i < 2; i++) {
    char axes[64];
    snprintf(axes, sizeof axes, "{\"device.flash.bandwidth\":\"%s\"}", bw[i]);
    CU_ASSERT_EQUAL(fx_add(db, "sensitivity", "o", "m", "s", "lever", axes, 1, 30 + i, 3), LS_OK);
    CU_ASSERT_EQUAL(fx_add(db, "sensitivity", "o", "m", "s", "ar-flash", axes, 1, 10, 1), LS_OK);
  }
  CU_ASSERT_EQUAL(fx_query(db, "SELECT lever_speedup FROM sensitivity WHERE bandwidth_gbps = 4"
                               " AND system = 'ar-flash'"), 3.1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT bandwidth_gbps FROM sensitivity LIMIT 1"), 0.5);
  /* table1: mean I/O share of a one-token verification (ar-flash) on oneplus-12 over
   * datasets, per model; other systems do not count. */
  CU_ASSERT_EQUAL(fx_add(db, "main", "oneplus-12", "qwen3-14b", "a", "ar-flash", "{}", 1, 5, 2), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "oneplus-12", "qwen3-14b", "b", "ar-flash", "{}", 1, 5, 4), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "oneplus-12", "qwen3-14b", "b", "lever", "{}", 1, 5, 9), LS_OK);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT io_share FROM table1 WHERE model = 'qwen3-14b'"),
                  ((0.9 - 0.02) + (0.9 - 0.04)) / 2, 1e-12);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT datasets FROM table1 WHERE model = 'qwen3-14b'"), 2);
  /* regime: one row per run, with the assumption its case changes and the columns of the
   * figures whose tests the regime map applies (vs_lever, tps_vs_no_prune, ...) */
  const char *ax = "{\"verify.overlap\":\"prefetch\"}";
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o", "m", "s", "lever", ax, 1, 6, 3), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o", "m", "s", "ar-flash", ax, 1, 2, 1), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o", "m", "s", "lever-no-prune", ax, 1, 4, 3), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "regime-map", "o", "m", "s", "lever", "{\"device.npu.pad_small\":\"false\","
                         "\"policy.map\":\"cpu\"}", 1, 5, 3), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(db, NULL), LS_OK);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT vs_lever FROM regime WHERE system = 'ar-flash'"), 2.0 / 6, 1e-9);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT tps_vs_no_prune FROM regime WHERE system = 'lever'"
                           " AND claims = 'systems'"), 1.5, 0.02);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM regime WHERE assumption = 'overlap prefetch'"
                               " AND claims = 'systems'"), 3);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM regime WHERE assumption = 'pad false'"
                               " AND claims = 'map' AND map = 'cpu'"), 1);
  /* the view computes vs_lever itself (v_runs read once): v_vs_lever's, bit for bit, on each
   * of its rows; runs of other parts are not its rows */
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o2", "m", "s", "lever", "{}", 1, 7, 3), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o2", "m", "s", "sequoia", "{}", 1, 3, 2), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o2", "m", "s", "opt-tree", "{\"verify.overlap\":\"prefetch\"}", 1, 3, 2), LS_OK);
  ls_db_prompt few[FX_PROMPTS]; /* runs of other sizes: the paired estimate, not the quotient */
  fx_prompts("sequoia", 4, 2, few);
  CU_ASSERT_EQUAL(fx_add(db, "regime", "o3", "m", "s", "lever", "{}", 1, 7, 3), LS_OK);
  CU_ASSERT_EQUAL(fx_add_prompts(db, "regime", "o3", "m", "s", "sequoia", "{}", 1, 4, 2, few, FX_PROMPTS - 2), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(db, NULL), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM regime"), 9);
  CU_ASSERT(fx_query(db, "SELECT abs(vs_lever - 4.0 / 7) FROM regime WHERE device = 'o3' AND system = 'sequoia'") > 1e-6);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT (SELECT group_concat(x, ' ') FROM (SELECT printf('%.17g', vs_lever) AS x"
                               " FROM regime ORDER BY x)) = (SELECT group_concat(x, ' ') FROM (SELECT"
                               " printf('%.17g', vs_lever) AS x FROM v_vs_lever WHERE part LIKE 'regime%'"
                               " ORDER BY x))"), 1);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT vs_lever FROM regime WHERE device = 'o2' AND system = 'sequoia'"), 3.0 / 7,
                  1e-9);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM regime WHERE device = 'o2' AND system = 'opt-tree'"
                               " AND vs_lever IS NULL"), 1); /* no Lever run in its case */
  /* fig13/fig14 expose their axis. */
  CU_ASSERT_EQUAL(fx_add(db, "mapping", "o", "m", "s", "lever", "{\"policy.map\":\"npu\"}", 1, 5, 2), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM fig13 WHERE map = 'npu'"), 1);
  CU_ASSERT_EQUAL(fx_add(db, "lmhead", "o", "m", "s", "lever", "{\"map.lmhead\":\"demand-cpu\"}", 1, 5, 2), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM fig14 WHERE lmhead = 'demand-cpu'"), 1);
  ls_db_close(db);
}

/* One ok run of part 'main' with only a cost error and bias (the consistency view's inputs);
 * err NAN writes no error metric. */
static int add_cost_run(ls_db *db, const char *part, const char *system, int i, double err, double bias)
{
  char cfg[256], dev[16], id[LS_DB_RUN_ID_LEN + 1];
  snprintf(dev, sizeof dev, "d%d", i);
  snprintf(cfg, sizeof cfg, "{\"device\":\"%s\",\"system\":\"%s\"}", dev, system);
  ls_db_hash_run(part, cfg, 1, id);
  if (ls_test_paper_roles(db)) return LS_EDB;
  ls_db_run r = {id, part, dev, "m", "s", system, "{}", cfg, "abc", "0.1.0", "ok", NULL, 1, 0.5, NULL, 0, NULL, 0};
  ls_db_metric m[] = {{"throughput_tps", 10, "tok/s"}, {"cost_bias_median", bias, NULL}, {"cost_err_median", err, NULL}};
  return ls_db_write_run(db, &r, m, isnan(err) ? 2 : 3, NULL, 0, NULL);
}

/* consistency: the median of the runs' errors in closed form, for an odd count (the middle
 * one) and an even count (the mean of the two middle ones); other parts and runs without an
 * error do not count. */
static void test_consistency_median(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "consistency.db"), &e), LS_OK);
  const double odd[] = {0.05, 0.01, 0.03, 0.02, 0.04}, even[] = {0.4, 0.1, 0.3, 0.2};
  for (int i = 0; i < 5; i++)
    CU_ASSERT_EQUAL(add_cost_run(db, "main", "lever", i, odd[i], 0.01 * i), LS_OK);
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(add_cost_run(db, "main", "sd", i, even[i], -0.1), LS_OK);
  CU_ASSERT_EQUAL(add_cost_run(db, "main", "sd", 9, NAN, 5), LS_OK);        /* no error: left out */
  CU_ASSERT_EQUAL(add_cost_run(db, "budget", "lever", 7, 9.0, 9.0), LS_OK); /* not part main */
  LS_ASSERT_CLOSE(fx_query(db, "SELECT err_median FROM consistency WHERE system = 'lever'"), 0.03, 1e-15);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT err_median FROM consistency WHERE system = 'sd'"), 0.25, 1e-15);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT runs FROM consistency WHERE system = 'lever'"), 5);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT runs FROM consistency WHERE system = 'sd'"), 4);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT err_max FROM consistency WHERE system = 'lever'"), 0.05, 1e-15);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT bias_mean FROM consistency WHERE system = 'lever'"), 0.02, 1e-15);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT bias_mean FROM consistency WHERE system = 'sd'"), -0.1, 1e-15);
  ls_db_close(db);
}

/* Views that pick systems by role on a matrix of several devices: lever_ratios keeps each
 * configuration's own ratios (d0 and d1 share models and datasets), table1 reads the role's
 * device only, its one-token and its tree runs by the baseline and tree roles. */
static void test_role_views_devices(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "roles.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fx_fill_main(db), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM lever_ratios"), 4);
  for (int k = 0; k < 4; k++) {
    char q[256];
    snprintf(q, sizeof q, "SELECT vs_ar_flash FROM lever_ratios WHERE device = 'd%d' AND model = 'm%d'", k / 2, k % 2);
    LS_ASSERT_CLOSE(fx_query(db, q), fx_main_ratio("ar-flash", k), 1e-9);
    snprintf(q, sizeof q, "SELECT vs_specinfer FROM lever_ratios WHERE device = 'd%d' AND model = 'm%d'", k / 2, k % 2);
    LS_ASSERT_CLOSE(fx_query(db, q), fx_main_ratio("specinfer", k), 1e-9);
    /* the fastest of the flash systems (role systems.flash) is specinfer here */
    snprintf(q, sizeof q, "SELECT vs_fastest_flash FROM lever_ratios WHERE device = 'd%d' AND model = 'm%d'", k / 2, k % 2);
    LS_ASSERT_CLOSE(fx_query(db, q), fx_main_ratio("specinfer", k), 1e-9);
  }
  /* table1: io_share = 0.9 - 0.01 tau in the fixture */
  const char *devs[] = {"oneplus-12", "honor-500-pro"};
  for (int d = 0; d < 2; d++) {
    double tau = d ? 30 : 10;
    CU_ASSERT_EQUAL(fx_add(db, "table1", devs[d], "m0", "a", "ar-flash", "{}", 1, 5, tau), LS_OK);
    CU_ASSERT_EQUAL(fx_add(db, "table1", devs[d], "m0", "b", "ar-flash", "{}", 1, 5, tau + 2), LS_OK);
    CU_ASSERT_EQUAL(fx_add(db, "table1", devs[d], "m0", "a", "lever", "{}", 1, 5, 50), LS_OK);
    CU_ASSERT_EQUAL(fx_add(db, "table1-tree", devs[d], "m0", "a", "specinfer", "{}", 1, 5, tau + 5), LS_OK);
    CU_ASSERT_EQUAL(fx_add(db, "table1-tree", devs[d], "m0", "a", "ar-flash", "{}", 1, 5, 60), LS_OK);
  }
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM table1"), 2);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT io_share FROM table1 WHERE part = 'table1'"), 0.9 - 0.11, 1e-12);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT datasets FROM table1 WHERE part = 'table1'"), 2);
  LS_ASSERT_CLOSE(fx_query(db, "SELECT io_share FROM table1 WHERE part = 'table1-tree'"), 0.9 - 0.15, 1e-12);
  ls_db_close(db);
}

/* v_runs takes each metric by its key; the definition it replaces pivoted the joined rows
 * (max(CASE ...) per column, grouped by run). Over runs with every metric, with a NULL value,
 * with one metric missing, with none, with a metric of another name, and a failed run, the two
 * give the same rows, value for value (EXCEPT both ways, NULLs alike), in the view's order. */
static void test_v_runs_pivot(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "pivot.db"), &e), LS_OK);
  char (*names)[40] = calloc(64, sizeof *names);
  ls_db_metric m[64];
  int n = 0;
  CU_ASSERT_PTR_NOT_NULL_FATAL(names);
  for (const char *k; n < 63 && (k = ls_db_metric_name(n)); n++) {
    snprintf(names[n], sizeof names[n], "%s", k);
    m[n] = (ls_db_metric){names[n], 1.5 + 0.25 * n, NULL};
  }
  m[n] = (ls_db_metric){"not_pivoted", 99, NULL};
  const char *ids[] = {"all", "nullv", "missing", "none", "failed"};
  for (int i = 0; i < 5; i++) {
    ls_db_run r = {ids[i], "main", i == 4 ? "d0" : "d", "m", "s", i % 2 ? "lever" : "ar-flash", "{}", "{}", NULL,
                   NULL, i == 4 ? "failed" : "ok", NULL, (uint64_t)i, 0, NULL, 0, NULL, 0};
    if (i == 1) m[3].value = NAN; /* stored NULL */
    int k = i == 3 ? 0 : i == 2 ? n - 1 : n + 1; /* "missing": planner_tau absent */
    CU_ASSERT_EQUAL(ls_db_write_run(db, &r, m, k, NULL, 0, &e), LS_OK);
    m[3].value = 1.5 + 0.25 * 3;
  }
  char pivot[8192];
  size_t len = (size_t)snprintf(pivot, sizeof pivot, "SELECT r.run_id, r.part, r.device, r.model, r.dataset, r.system,"
                                " r.axes_json, r.seed");
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(pivot + len, sizeof pivot - len, ", max(CASE WHEN m.name = '%s' THEN m.value END)", names[i]);
  snprintf(pivot + len, sizeof pivot - len, " FROM runs r LEFT JOIN metrics m ON m.run_id = r.run_id"
           " WHERE r.status = 'ok' GROUP BY r.run_id");
  char cols[4096], q[16384];
  len = (size_t)snprintf(cols, sizeof cols, "run_id, part, device, model, dataset, system, axes_json, seed");
  for (int i = 0; i < n; i++) len += (size_t)snprintf(cols + len, sizeof cols - len, ", %s", names[i]);
  snprintf(q, sizeof q, "SELECT (SELECT count(*) FROM (SELECT %s FROM v_runs EXCEPT %s))"
           " + (SELECT count(*) FROM (%s EXCEPT SELECT %s FROM v_runs))", cols, pivot, pivot, cols);
  CU_ASSERT_EQUAL(fx_query(db, q), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs"), 4);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT group_concat(run_id, ',') = 'all,missing,nullv,none' FROM v_runs"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE run_id = 'nullv' AND token_latency_p50_s IS NULL"
                               " AND tau = 1.75"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE run_id = 'missing' AND planner_tau IS NULL"
                               " AND cost_bias_median IS NOT NULL"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE run_id = 'none' AND throughput_tps IS NULL"), 1);
  free(names);
  ls_db_close(db);
}

CU_TestInfo fx_export_tests[] = {
    {"CSV quoting and exact reals", test_csv_exact},
    {"JSON escaping, numbers, null", test_json_exact},
    {"unknown view and format", test_export_errors},
    CU_TEST_INFO_NULL};
CU_TestInfo fx_views_tests[] = {
    {"speedup, arithmetic vs geometric mean", test_summary_means},
    {"figure views", test_figure_views},
    {"consistency: the median in closed form (odd and even counts)", test_consistency_median},
    {"role views on several devices (lever_ratios, table1)", test_role_views_devices},
    {"v_runs: each metric by its key, as the pivot gave it", test_v_runs_pivot},
    CU_TEST_INFO_NULL};
