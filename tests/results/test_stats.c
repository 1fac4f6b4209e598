/* tests/results: the intervals of the results database (results/stats.c) — per-run metric
 * intervals against hand arithmetic, paired ratios and their views, the summary's joint
 * resampling, merge, and `run`/`reproduce --json` as one JSON document on stdout. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "fixture.h"
#include "runner/study/driver.h"
#include "sim/boot.h"

/* Every prompt identical: each metric's interval is its value; with 4 prompts there is none. */
static void test_metric_ci_by_hand(void)
{
  ls_db_prompt p[6];
  memset(p, 0, sizeof p);
  for (int j = 0; j < 6; j++) {
    p[j].prompt = j;
    p[j].tokens = 60;
    p[j].cycles = 20;
    p[j].tau_sum = 60;
    p[j].decode_s = 12;
    p[j].verify_s = 6;
    p[j].lmhead_s = 2;
    p[j].io_wait_s = 4;
  }
  double est, lo, hi;
  ls_error e;
  int i_tps = -1, i_io = -1, i_vs = -1;
  for (int i = 0; ls_db_ci_metric_name(i); i++) {
    if (!strcmp(ls_db_ci_metric_name(i), "throughput_tps")) i_tps = i;
    if (!strcmp(ls_db_ci_metric_name(i), "io_share")) i_io = i;
    if (!strcmp(ls_db_ci_metric_name(i), "verify_s_mean")) i_vs = i;
  }
  CU_ASSERT_FATAL(i_tps >= 0 && i_io >= 0 && i_vs >= 0);
  CU_ASSERT_EQUAL(ls_db_metric_ci(p, 6, i_tps, &est, &lo, &hi, &e), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(est, 5.0, 1e-12); /* 360 tokens / 72 s */
  CU_ASSERT_DOUBLE_EQUAL(lo, 5.0, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hi, 5.0, 1e-12);
  ls_db_metric_ci(p, 6, i_io, &est, &lo, &hi, &e);
  CU_ASSERT_DOUBLE_EQUAL(est, 0.5, 1e-12); /* 4 s waits / (6 + 2) s verification */
  ls_db_metric_ci(p, 6, i_vs, &est, &lo, &hi, &e);
  CU_ASSERT_DOUBLE_EQUAL(est, 0.4, 1e-12); /* (6 + 2) s / 20 cycles */
  /* One slow prompt (24 s): a resample holding it K times gives 360 / (72 + 12 K), K ~
   * Binomial(6, 1/6). P(K = 0) = 0.33 > 2.5 %, so the upper bound is 5; P(K >= 4) = 0.9 % and
   * P(K >= 3) = 6.2 % put the 2.5 % quantile at K = 3: 360 / 108. */
  p[5].decode_s = 24;
  ls_db_metric_ci(p, 6, i_tps, &est, &lo, &hi, &e);
  CU_ASSERT_DOUBLE_EQUAL(est, 360.0 / 84, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(lo, 360.0 / 108, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(hi, 5.0, 1e-12);
  CU_ASSERT_EQUAL(ls_db_metric_ci(p, 4, i_tps, &est, &lo, &hi, &e), LS_OK);
  CU_ASSERT(isnan(lo) && isnan(hi));
  /* one metric alone is that metric of all of them, bit for bit (one shared resample) */
  for (int j = 0; j < 6; j++) p[j].tau_sum = 50 + 7 * j, p[j].io_wait_s = 1 + j % 3;
  ls_boot_ci all[32];
  CU_ASSERT_EQUAL_FATAL(ls_db_metric_cis(p, 6, all, &e), LS_OK);
  for (int i = 0; ls_db_ci_metric_name(i); i++) {
    CU_ASSERT_EQUAL(ls_db_metric_ci(p, 6, i, &est, &lo, &hi, &e), LS_OK);
    CU_ASSERT(est == all[i].est || (isnan(est) && isnan(all[i].est)));
    CU_ASSERT(lo == all[i].lo || (isnan(lo) && isnan(all[i].lo)));
    CU_ASSERT(hi == all[i].hi || (isnan(hi) && isnan(all[i].hi)));
  }
}

/* Written runs carry metric_ci rows; refresh fills ratio_ci and the views' _lo/_hi. */
static void test_views_intervals(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "ci.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fx_fill_main(db), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM prompts"), 12 * FX_PROMPTS);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT prompts FROM v_runs LIMIT 1"), FX_PROMPTS);
  /* every run's throughput interval contains its value */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE throughput_tps_lo <="
                               " throughput_tps AND throughput_tps <= throughput_tps_hi"), 12);
  /* ratio_ci's ratio is the ratio of the two runs' throughputs (sums of the same prompts) */
  CU_ASSERT(fx_query(db, "SELECT max(abs(ratio - vs_lever)) FROM ratio_ci c JOIN v_speedup v"
                         " ON c.ref_system = 'lever' AND c.metric = 'throughput_tps'"
                         " AND c.run_id = (SELECT run_id FROM v_runs r WHERE (r.device,"
                         " r.model, r.system) = (v.device, v.model, v.system))") < 1e-12);
  /* lever against itself: the pairing makes the interval the point 1 */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_speedup WHERE system = 'lever'"
                               " AND vs_lever_lo = 1 AND vs_lever_hi = 1"), 4);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_speedup WHERE system <> 'lever' AND"
                               " lever_speedup_lo < lever_speedup AND lever_speedup <"
                               " lever_speedup_hi AND lever_speedup_hi - lever_speedup_lo <"
                               " 0.1 * lever_speedup"), 8);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM fig10 WHERE ratio_lo <= vs_lever AND"
                               " vs_lever <= ratio_hi"), 12);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM fig11 WHERE system = 'lever' AND"
                               " ratio_lo < tps_vs_specinfer AND tps_vs_specinfer < ratio_hi"
                               " AND tau_ratio_lo = tau_ratio_hi"), 4); /* tau: exact */
  /* the summary: mean (2 + 2.5 + 3 + 3.5) / 4 inside its interval, narrower than any one */
  CU_ASSERT_DOUBLE_EQUAL(fx_query(db, "SELECT speedup_mean FROM v_summary WHERE system ="
                                      " 'ar-flash'"), 2.75, 1e-9);
  double lo = fx_query(db, "SELECT speedup_mean_lo FROM v_summary WHERE system = 'ar-flash'");
  double hi = fx_query(db, "SELECT speedup_mean_hi FROM v_summary WHERE system = 'ar-flash'");
  CU_ASSERT(lo < 2.75 && 2.75 < hi);
  double widest = fx_query(db, "SELECT max(lever_speedup_hi - lever_speedup_lo) FROM v_speedup"
                               " WHERE system = 'ar-flash'");
  CU_ASSERT(hi - lo < widest);
  ls_db_precision pr;
  CU_ASSERT_EQUAL(ls_db_precision_get(db, &pr, &e), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(pr.vs_ar_flash, (hi - lo) / 2 / 2.75, 1e-12);
  CU_ASSERT(pr.worst_config > 0 && pr.worst_config < 0.05);
  CU_ASSERT_EQUAL(pr.prompts, FX_PROMPTS);
  CU_ASSERT(isnan(pr.own_smaller)); /* every system as many prompts as Lever: no sizing measure */
  /* rewriting a run removes its stale ratios until the next refresh */
  CU_ASSERT_EQUAL(fx_add(db, "main", "d0", "m0", "s0", "lever", "{}", 7, 11, 2), LS_OK);
  CU_ASSERT(isnan(fx_query(db, "SELECT vs_lever_lo FROM v_speedup WHERE device = 'd0' AND"
                               " model = 'm0' AND system = 'ar-flash'")));
  ls_db_close(db);
}

/* Runs of one configuration with different prompt counts (the replay's sizing gives each
 * system its own): the regression estimate (sim/boot.h) at its two limits. ar-flash's
 * per-prompt speed is the same on every prompt (slope 0): Lever's speedup is the quotient of
 * the two runs' own throughputs, Lever's over all of its prompts. eagle2's is Lever's / 1.5 on
 * every shared prompt (slope 1): the speedup is the ratio over the shared prompts, 1.5,
 * although Lever's own throughput over all its prompts is higher. ratio_ci counts the shared
 * prompts. */
static void test_unequal_prompts(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "prefix.db"), &e), LS_OK);
  ls_db_prompt lv[FX_PROMPTS], ar[FX_PROMPTS];
  fx_prompts("lever", 10, 3, lv);
  fx_prompts("ar-flash", 4, 1, ar);
  ls_db_prompt eg[FX_PROMPTS];
  for (int j = 0; j < FX_PROMPTS; j++) { /* lever's last prompts are its fastest */
    lv[j].decode_s *= j < 6 ? 1.0 : 0.25;
    ar[j].decode_s = ar[j].tokens / 4.0;
    eg[j] = lv[j];
    eg[j].decode_s = 1.5 * lv[j].decode_s;
  }
  double tl = 0, tl6 = 0, ta6 = 0, tok6 = 0;
  for (int j = 0; j < FX_PROMPTS; j++) {
    tl += lv[j].decode_s;
    if (j < 6) tl6 += lv[j].decode_s, ta6 += ar[j].decode_s, tok6 += lv[j].tokens;
  }
  double tps_l = 64.0 * FX_PROMPTS / tl, tps_a = tok6 / ta6;
  CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d0", "m0", "s0", "lever", "{}", 7, tps_l, 3, lv, FX_PROMPTS), LS_OK);
  CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d0", "m0", "s0", "ar-flash", "{}", 7, tps_a, 1, ar, 6), LS_OK);
  CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d0", "m0", "s0", "eagle2", "{}", 7, 1, 3, eg, 6), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_stats_refresh(db, &e), LS_OK);
  double paired = ta6 / tl6; /* Lever's speedup over the 6 shared prompts (same tokens) */
  double own = tps_l / tps_a; /* the quotient of the runs' own throughputs */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT prompts FROM ratio_ci c JOIN runs r USING(run_id) WHERE"
                               " r.system = 'ar-flash' AND c.ref_system = 'lever' AND c.metric = 'throughput_tps'"), 6);
  CU_ASSERT_DOUBLE_EQUAL(fx_query(db, "SELECT lever_speedup FROM v_speedup WHERE system = 'ar-flash'"),
                         own, 1e-12 * own);
  CU_ASSERT_DOUBLE_EQUAL(fx_query(db, "SELECT vs_lever FROM fig10 WHERE system = 'ar-flash'"),
                         1 / own, 1e-12 / own);
  CU_ASSERT_DOUBLE_EQUAL(fx_query(db, "SELECT speedup_mean FROM v_summary WHERE system = 'ar-flash'"),
                         own, 1e-12 * own);
  /* the ratio over the shared prompts only is 1.5x lower here: the test can tell them apart */
  CU_ASSERT(fabs(own - paired) > 0.1 * paired);
  double lo = fx_query(db, "SELECT lever_speedup_lo FROM v_speedup WHERE system = 'ar-flash'");
  double hi = fx_query(db, "SELECT lever_speedup_hi FROM v_speedup WHERE system = 'ar-flash'");
  CU_ASSERT(lo <= own && own <= hi);
  CU_ASSERT_DOUBLE_EQUAL(fx_query(db, "SELECT lever_speedup FROM v_speedup WHERE system = 'eagle2'"),
                         1.5, 1e-12);
  CU_ASSERT(fabs(tps_l / (tok6 / (1.5 * tl6)) - 1.5) > 0.1); /* the quotient of own throughputs */
  ls_db_precision pr;
  CU_ASSERT_EQUAL(ls_db_precision_get(db, &pr, &e), LS_OK);
  CU_ASSERT_EQUAL(pr.prompts, 6);
  CU_ASSERT_EQUAL(pr.prompts_max, FX_PROMPTS);
  /* the sizing rule's measure: ar-flash decoded fewer prompts than Lever, so its own
   * throughput's half-width is reported (0 here: the same speed on every prompt) */
  double own_hw = fx_query(db, "SELECT (hi - lo) / 2 / value FROM metric_ci c JOIN runs r USING(run_id)"
                            " WHERE r.system = 'ar-flash' AND c.name = 'throughput_tps'");
  CU_ASSERT(own_hw >= 0 && own_hw < 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(pr.own_smaller, own_hw, 1e-15);
  CU_ASSERT_PTR_NOT_NULL(strstr(pr.own_smaller_name, "ar-flash"));
  ls_db_close(db);
}

/* The metric intervals of one database's runs (run id x, every metric), as one text. */
static void ci_text(ls_db *db, const char *run, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db->h, "SELECT name, quote(value), quote(lo), quote(hi), prompts FROM"
                                           " metric_ci WHERE run_id = ?1 ORDER BY name", -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_text(st, 1, run, -1, SQLITE_STATIC);
  size_t k = 0;
  while (sqlite3_step(st) == SQLITE_ROW && k < size)
    k += (size_t)snprintf(out + k, size - k, "%s %s %s %s %d;", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1),
                          sqlite3_column_text(st, 2), sqlite3_column_text(st, 3), sqlite3_column_int(st, 4));
  sqlite3_finalize(st);
}

/* Writes a run of system with prompts p[0..n) into db; its metric intervals as ci_text's. */
static void add_ci_text(ls_db *db, const char *system, const ls_db_prompt *p, int n, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  char id[LS_DB_RUN_ID_LEN + 1] = "";
  CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d", "m", "s", system, "{}", 1, 10, 2, p, n), LS_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db->h, "SELECT run_id FROM runs WHERE system = ?1", -1, &st, NULL), SQLITE_OK);
  sqlite3_bind_text(st, 1, system, -1, SQLITE_STATIC);
  if (sqlite3_step(st) == SQLITE_ROW)
    snprintf(id, sizeof id, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  ci_text(db, id, out, size);
}

/* A run written right after another with the same prompts gets its intervals without a second
 * bootstrap (results/stats.c keeps the last run's): they are those a database of its own
 * gives; a run whose prompts differ from the last only in its last prompt, or that has one
 * prompt fewer, gets its own. */
static void test_intervals_of_repeated_prompts(void)
{
  char path[512], alone[512];
  static char a[4096], a2[4096], b[4096], b_alone[4096], c[4096], c_alone[4096], s[4096];
  ls_db_prompt pa[FX_PROMPTS], pb[FX_PROMPTS];
  fx_prompts("lever", 10, 2, pa);
  memcpy(pb, pa, sizeof pb);
  pb[FX_PROMPTS - 1].decode_s *= 1.5; /* the same prompts but the last */
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(path, "memo.db"), &e), LS_OK);
  add_ci_text(db, "lever", pa, FX_PROMPTS, a, sizeof a);
  add_ci_text(db, "ar-flash", pb, FX_PROMPTS, b, sizeof b);
  add_ci_text(db, "specinfer", pa, FX_PROMPTS, s, sizeof s);
  add_ci_text(db, "sequoia", pa, FX_PROMPTS, a2, sizeof a2); /* right after a run of the same prompts */
  add_ci_text(db, "eagle2", pa, FX_PROMPTS - 1, c, sizeof c); /* the same first prompts, one fewer */
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(alone, "memo-alone.db"), &e), LS_OK);
  add_ci_text(db, "ar-flash", pb, FX_PROMPTS, b_alone, sizeof b_alone);
  add_ci_text(db, "eagle2", pa, FX_PROMPTS - 1, c_alone, sizeof c_alone);
  ls_db_close(db);
  CU_ASSERT(strlen(a) > 100);
  CU_ASSERT_STRING_EQUAL(s, a);
  CU_ASSERT_STRING_EQUAL(a2, a);
  CU_ASSERT_STRING_EQUAL(b, b_alone);
  CU_ASSERT_STRING_NOT_EQUAL(b, a);
  CU_ASSERT_STRING_EQUAL(c, c_alone);
  CU_ASSERT_STRING_NOT_EQUAL(c, a);
}

/* Shards merge into one database whose paired intervals span them. */
static void test_merge_intervals(void)
{
  char a[512], b[512], o[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(a, "sa.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "lever", "{}", 1, 10, 2), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(b, "sb.db"), &e), LS_OK);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d", "m", "s", "ar-flash", "{}", 1, 4, 1), LS_OK);
  ls_db_close(db);
  const char *in[] = {a, b};
  CU_ASSERT_EQUAL(ls_db_merge(fx_path(o, "so.db"), in, 2, NULL, &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, o, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM prompts"), 2 * FX_PROMPTS);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metric_ci WHERE name = 'tau'"), 2);
  double lo = fx_query(db, "SELECT lever_speedup_lo FROM v_speedup WHERE system = 'ar-flash'");
  double hi = fx_query(db, "SELECT lever_speedup_hi FROM v_speedup WHERE system = 'ar-flash'");
  CU_ASSERT(lo < 2.5 && 2.5 < hi);
  ls_db_close(db);
}

/* stdout of a command, stderr dropped, through Python's JSON parser: 0 when it parses. */
static int json_parses(const char *args)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "{ '%s' %s; } 2>/dev/null | python3 -m json.tool >/dev/null 2>&1",
           LS_BINARY, args);
  return system(cmd);
}

static void test_json_one_document(void)
{
  CU_ASSERT_EQUAL(json_parses("run --device oneplus-12 --model qwen3-4b --dataset gsm8k"
                              " --system lever --tokens 20 --prompts 6 --json"), 0);
  char out[65536];
  int rc = ls_test_cli("run --device oneplus-12 --model qwen3-4b --dataset gsm8k --system lever"
                       " --tokens 20 --prompts 6 --json", out, sizeof out);
  CU_ASSERT_EQUAL(rc, 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"throughput_tps\":{\"value\":"));
  CU_ASSERT_PTR_NULL(strstr(out, "\"lo\":null,\"hi\":null},\"tau\"")); /* 6 prompts: intervals */
  /* the test of the parser itself: two documents do not parse */
  CU_ASSERT_NOT_EQUAL(json_parses("run --device oneplus-12 --model qwen3-4b --dataset gsm8k"
                                  " --system lever --tokens 5 --prompts 1 --json; echo '{}'"), 0);
}

/* Runs `leversim run <what> --db <a fresh file name>` (stdout into out) and opens the
 * database it wrote; NULL (and a failed assertion) when either fails. Close with ls_db_close. */
static ls_db *run_into_db(const char *what, const char *name, char *out, size_t size)
{
  char p[512], args[1024];
  snprintf(args, sizeof args, "run %s --db '%s'", what, fx_path(p, name));
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL(ls_test_cli(args, out, size), 0);
  CU_ASSERT_EQUAL(ls_db_open(&db, p, &e), LS_OK);
  return db;
}

/* `run --json` prints for every metric with an interval the interval the database stores
 * for the run (ls_db_metric_cis), to the bit: the command takes them all from one table. */
static void test_run_json_intervals_as_stored(void)
{
  static char out[65536];
  ls_db *db = run_into_db("--device oneplus-12 --model qwen3-4b --dataset gsm8k --system lever --tokens 20"
                          " --prompts 6 --json", "json_ci.db", out, sizeof out);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  int checked = 0;
  for (int i = 0; ls_db_ci_metric_name(i); i++) {
    char key[128], q[512];
    snprintf(key, sizeof key, "\"%s\":{\"value\":", ls_db_ci_metric_name(i));
    const char *at = strstr(out, key);
    if (!at) /* a metric the runner does not report for this system */
      continue;
    const char *l = strstr(at, "\"lo\":"), *h = strstr(at, "\"hi\":");
    CU_ASSERT_FATAL(l && h);
    double lo = strtod(l + 5, NULL), hi = strtod(h + 5, NULL);
    snprintf(q, sizeof q, "SELECT lo FROM metric_ci WHERE name = '%s'", ls_db_ci_metric_name(i));
    CU_ASSERT_EQUAL(lo, fx_query(db, q));
    snprintf(q, sizeof q, "SELECT hi FROM metric_ci WHERE name = '%s'", ls_db_ci_metric_name(i));
    CU_ASSERT_EQUAL(hi, fx_query(db, q));
    CU_ASSERT(lo < hi || lo == hi);
    checked++;
  }
  CU_ASSERT(checked >= 15);
  CU_ASSERT_EQUAL(checked, (int)fx_query(db, "SELECT count(*) FROM metric_ci"));
  ls_db_close(db);
}

/* A simulated run's prompt sums add up to its totals, and give its metrics. */
static void test_prompt_sums(void)
{
  char out[16384];
  ls_db *db = run_into_db("--device oneplus-12 --model qwen3-4b --dataset mbpp --system lever --tokens 24"
                          " --prompts 6", "sums.db", out, sizeof out);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM prompts"), 6);
  static const char *const pairs[][2] = {
      {"sum(tokens)", "tokens"}, {"sum(cycles)", "cycles"}, {"sum(decode_s)", "decode_s"},
      {"sum(tokens) / sum(decode_s)", "throughput_tps"}, {"sum(tau_sum) / sum(cycles)", "tau"},
      {"sum(ttft_s) / count(*)", "ttft_s"},
      {"sum(io_wait_s) / (sum(verify_s) + sum(lmhead_s))", "io_share"},
      {"sum(waste_s) / sum(compute_s)", "wasted_verify"},
      {"sum(energy_j) / sum(tokens)", "energy_per_token_j"},
      {"sum(npu_busy_s) / sum(decode_s)", "util_npu"}};
  for (int i = 0; i < (int)(sizeof pairs / sizeof *pairs); i++) {
    char q[512];
    snprintf(q, sizeof q, "SELECT (SELECT %s FROM prompts) / (SELECT value FROM metrics WHERE"
             " name = '%s') - 1", pairs[i][0], pairs[i][1]);
    double rel = fx_query(db, q);
    if (!(fabs(rel) < 1e-9)) fprintf(stderr, "\n%s vs %s: %g\n", pairs[i][0], pairs[i][1], rel);
    CU_ASSERT(fabs(rel) < 1e-9);
  }
  ls_db_close(db);
}

static void test_reproduce_json(void)
{
  char p[512], args[1400];
  fx_path(p, "repro.db");
  snprintf(args, sizeof args, "reproduce --quick --jobs 2 --db '%s' --out '%s.figs' --json", p, p);
  CU_ASSERT_EQUAL(json_parses(args), 0);
  snprintf(args, sizeof args, "export --db '%s' --view summary --format csv", p);
  char out[16384];
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "speedup_mean_lo"));
}

/* Identical data, identical intervals (issue: budgets 64 and 128 decoding the same text got
 * different intervals, as did a profile named by path and by id): two runs whose prompts
 * carry the same numbers under different ids and settings get the same metric intervals and
 * the same paired ratios; one changed prompt changes them. */
static void test_same_data_same_intervals(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "same.db"), &e), LS_OK);
  ls_db_prompt lv[FX_PROMPTS], ar[FX_PROMPTS], ar2[FX_PROMPTS];
  fx_prompts("lever", 10, 3, lv);
  fx_prompts("ar-flash", 4, 1, ar);
  memcpy(ar2, ar, sizeof ar);
  ar2[3].decode_s *= 1.5;
  static const char *const axes[] = {"{\"draft.budget\":\"64\"}", "{\"draft.budget\":\"128\"}", "{\"draft.budget\":\"256\"}"};
  static ls_db_prompt lvk[3][FX_PROMPTS], ark[3][FX_PROMPTS]; /* each run its own copy */
  for (int k = 0; k < 3; k++) {
    memcpy(lvk[k], lv, sizeof lv);
    memcpy(ark[k], k < 2 ? ar : ar2, sizeof ar);
    CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d0", "m0", "s0", "lever", axes[k], 7, 10, 3, lvk[k], FX_PROMPTS), LS_OK);
    CU_ASSERT_EQUAL(fx_add_prompts(db, "main", "d0", "m0", "s0", "ar-flash", axes[k], 7, 4, 1, ark[k], FX_PROMPTS), LS_OK);
  }
  CU_ASSERT_EQUAL_FATAL(ls_db_stats_refresh(db, &e), LS_OK);
  /* three distinct runs per system, of which two have the same data */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(DISTINCT run_id) FROM runs WHERE system = 'ar-flash'"), 3);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(DISTINCT lo || ' ' || hi) FROM metric_ci c JOIN runs r USING(run_id)"
                               " WHERE r.system = 'lever' AND c.name = 'throughput_tps'"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(DISTINCT lo || ' ' || hi) FROM metric_ci c JOIN runs r USING(run_id)"
                               " WHERE r.system = 'ar-flash' AND c.name = 'throughput_tps'"), 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(DISTINCT lo || ' ' || hi) FROM ratio_ci c JOIN runs r USING(run_id)"
                               " WHERE r.system = 'ar-flash' AND c.ref_system = 'lever' AND c.metric = 'throughput_tps'"
                               " AND r.axes_json <> '{\"draft.budget\":\"256\"}'"), 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(DISTINCT lo || ' ' || hi) FROM ratio_ci c JOIN runs r USING(run_id)"
                               " WHERE r.system = 'ar-flash' AND c.ref_system = 'lever' AND c.metric = 'throughput_tps'"), 2);
  CU_ASSERT(fx_query(db, "SELECT min(hi - lo) FROM metric_ci WHERE name = 'throughput_tps'") > 0);
  ls_db_close(db);
}

/* A sweep's workers pair each run as they write it (ls_db_stats_pair_run), and the parent
 * then makes the summary: the same ratio_ci and summary_ci rows as one refresh after all
 * runs, whatever order the runs arrive in; pairing a run twice adds nothing. */
static void test_pairs_as_runs_arrive(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "arrive.db"), &e), LS_OK);
  static const char *const sys[] = {"lever", "ar-flash", "specinfer"};
  for (int k = 0; k < 4; k++) /* fx_fill_main's runs, without its refresh */
    for (int s = 0; s < 3; s++) {
      char dev[8], mod[8];
      snprintf(dev, sizeof dev, "d%d", k / 2);
      snprintf(mod, sizeof mod, "m%d", k % 2);
      CU_ASSERT_EQUAL_FATAL(fx_add(db, "main", dev, mod, "s0", sys[s], "{}", 7,
                                   (10 + k) / fx_main_ratio(sys[s], k), 2 + s), LS_OK);
    }
  sqlite3_stmt *st = NULL;
  char ids[12][LS_DB_RUN_ID_LEN + 1];
  int n = 0;
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(db->h, "SELECT run_id FROM runs ORDER BY system DESC, run_id", -1, &st, NULL), SQLITE_OK);
  while (n < 12 && sqlite3_step(st) == SQLITE_ROW)
    snprintf(ids[n++], sizeof ids[0], "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  CU_ASSERT_EQUAL_FATAL(n, 12);
  for (int i = 0; i < n; i++) {
    CU_ASSERT_EQUAL(ls_db_stats_pair_run(db, ids[i], &e), LS_OK);
    if (i == 0) /* specinfer of one configuration: with itself, lever and ar-flash both ways */
      CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM ratio_ci"), 5 * 2);
  }
  /* every pair already made by its runs' own calls (one handle, its statement kept), before
   * the final pass could make any */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM ratio_ci"), 4 * 3 * 3 * 2);
  CU_ASSERT_EQUAL(ls_db_stats_pair_run(db, ids[3], &e), LS_OK); /* again: nothing new */
  CU_ASSERT_EQUAL(ls_db_stats_pair_run(db, NULL, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_summary(db, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM ratio_ci"), 4 * 3 * 3 * 2); /* 3 refs here */
  CU_ASSERT_EQUAL(ls_db_exec(db, "CREATE TEMP TABLE r0 AS SELECT * FROM ratio_ci;"
                                 " CREATE TEMP TABLE s0 AS SELECT * FROM summary_ci;", &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM s0"), 2);
  CU_ASSERT_EQUAL_FATAL(ls_db_stats_refresh(db, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM (SELECT * FROM ratio_ci EXCEPT SELECT * FROM r0)"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM (SELECT * FROM r0 EXCEPT SELECT * FROM ratio_ci)"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM (SELECT * FROM summary_ci EXCEPT SELECT * FROM s0)"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM summary_ci"), 2);
  ls_db_close(db);
}

/* The interval of metric name of the fixture's run of system (configuration d0/m0/s0). */
static double stored_ci(ls_db *db, const char *system, const char *name, const char *end)
{
  char q[512];
  snprintf(q, sizeof q, "SELECT c.%s FROM metric_ci c JOIN runs r USING(run_id) WHERE r.device = 'd0'"
                        " AND r.model = 'm0' AND r.system = '%s' AND c.name = '%s'", end, system, name);
  return fx_query(db, q);
}

/* A study that declares the intervals its readers use (roles intervals.metrics and
 * intervals.ratios) gets those alone: each declared metric's interval is, bit for bit, the
 * one every metric drawn together gives; no paired ratio or summary interval, the views'
 * ratios the runs' own quotients; readers are told (ls_db_intervals_written); an invalid
 * role value in a database is refused when a run is written. */
static void test_declared_intervals(void)
{
  char p[512];
  ls_db *db = NULL;
  ls_error e;
  int kept = 0, written = -1, ratios = -1;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, fx_path(p, "declared.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_test_paper_roles(db), LS_OK); /* a study declaring nothing: all */
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM roles WHERE role LIKE 'intervals.%' AND value = 'all'"), 2);
  CU_ASSERT_EQUAL(ls_db_exec(db, "DELETE FROM roles WHERE role LIKE 'intervals.%'", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_set_role(db, "intervals.metrics", " target_calls_per_token,throughput_tps", &kept, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_set_role(db, "intervals.ratios", "none", &kept, &e), LS_OK);
  /* a later study that declares nothing keeps the first one's (with a note on stderr) */
  CU_ASSERT_EQUAL(ls_driver_write_roles(db, NULL, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM roles WHERE role = 'intervals.ratios' AND value = 'none'"), 1);
  CU_ASSERT_EQUAL_FATAL(fx_fill_main(db), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_pair_run(db, NULL, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metric_ci"), 12 * 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM metric_ci WHERE name IN ('target_calls_per_token', 'throughput_tps')"), 12 * 2);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM ratio_ci"), 0);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM summary_ci"), 0);
  ls_db_prompt pr[FX_PROMPTS];
  fx_prompts("ar-flash", 10 / fx_main_ratio("ar-flash", 0), 3, pr); /* the fixture's d0/m0 run */
  ls_boot_ci all[64];
  CU_ASSERT_EQUAL_FATAL(ls_db_metric_cis(pr, FX_PROMPTS, all, &e), LS_OK);
  for (int i = 0; ls_db_ci_metric_name(i); i++) {
    const char *name = ls_db_ci_metric_name(i);
    if (strcmp(name, "target_calls_per_token") && strcmp(name, "throughput_tps")) continue;
    CU_ASSERT(isfinite(all[i].lo) && all[i].lo <= all[i].hi);
    CU_ASSERT_EQUAL(stored_ci(db, "ar-flash", name, "lo"), all[i].lo);
    CU_ASSERT_EQUAL(stored_ci(db, "ar-flash", name, "hi"), all[i].hi);
  }
  CU_ASSERT_EQUAL(ls_db_intervals_written(db, "tau", &written, &ratios, &e), LS_OK);
  CU_ASSERT(written == 0 && ratios == 0);
  CU_ASSERT_EQUAL(ls_db_intervals_written(db, "target_calls_per_token", &written, NULL, &e), LS_OK);
  CU_ASSERT_EQUAL(written, 1);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_runs WHERE tau_lo IS NULL AND throughput_tps_lo < throughput_tps_hi"), 12);
  CU_ASSERT_EQUAL(fx_query(db, "SELECT count(*) FROM v_speedup WHERE vs_lever_lo IS NULL AND abs(vs_lever -"
                               " throughput_tps / lever_tps) < 1e-15"), 12);
  ls_db_close(db);
  /* plot says when the study writes no interval of the metric, and only then */
  static char out[8192];
  char args[1024];
  const char *const y[2] = {"tau", "throughput_tps"};
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "plot --db '%s' --x device --y %s --where model=m0 --where system=ar-flash"
                                " --format csv", p, y[k]);
    CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
    CU_ASSERT_EQUAL(strstr(out, "writes no interval of tau (its role intervals.metrics leaves it out)") != NULL, k == 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(out, "d1,"));
  }
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_exec(db, "UPDATE roles SET value = 'tau, bogus' WHERE role = 'intervals.metrics'", &e), LS_OK);
  ls_db_close(db);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&db, p, &e), LS_OK);
  ls_error_clear(&e);
  CU_ASSERT_EQUAL(fx_add(db, "main", "d9", "m9", "s0", "lever", "{}", 7, 10, 2), LS_EDB);
  CU_ASSERT_EQUAL(ls_db_intervals_written(db, "tau", &written, NULL, &e), LS_EDB);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "intervals.metrics = 'tau, bogus': 'bogus' is not a metric"));
  ls_db_close(db);
}

/* The runs of the shown-intervals test: part main (d0/m0/s0) with the four references, two
 * autoregressive systems and eagle2, two of them on 6 of the 8 prompts (runs of unequal sizes:
 * their estimates are the regression's blend), and part budget, which no view with an
 * interval of the tree policy or of the no-prune ablation reads. */
static int fill_shown(ls_db *db)
{
  static const struct { const char *part, *system; double tps, tau; int n; } runs[] = {
      {"main", "lever", 10, 3, FX_PROMPTS}, {"main", "specinfer", 8, 2.5, FX_PROMPTS},
      {"main", "lever-no-prune", 9.7, 3, FX_PROMPTS}, {"main", "ar-flash", 4, 1, 6},
      {"main", "ar-mem", 30, 1, FX_PROMPTS}, {"main", "eagle2", 7, 2.8, 6},
      {"budget", "lever", 11, 3.1, FX_PROMPTS}, {"budget", "specinfer", 8.5, 2.4, FX_PROMPTS},
      {"budget", "ar-flash", 4.2, 1, FX_PROMPTS}};
  int rc = LS_OK;
  for (size_t i = 0; i < sizeof runs / sizeof *runs && rc == LS_OK; i++) {
    ls_db_prompt pr[FX_PROMPTS];
    fx_prompts(runs[i].system, runs[i].tps, runs[i].tau, pr);
    rc = fx_add_prompts(db, runs[i].part, "d0", "m0", "s0", runs[i].system, "{}", 7, runs[i].tps,
                        runs[i].tau, pr, runs[i].n);
  }
  return rc;
}

/* intervals.ratios = shown (the paper replay's declaration): every pair keeps its estimate,
 * bit for bit the one of a study drawing every interval (also for runs of unequal sizes,
 * where the estimate blends); the interval only where a view shows it: against lever and
 * ar-flash every run's, against specinfer the main part's non-autoregressive systems', against
 * lever-no-prune the main part's lever and lever-no-prune (a reference against itself is a
 * pair, the point 1); the others' lo and hi NULL. The summary unchanged. */
static void test_shown_ratio_intervals(void)
{
  char pa[512], pb[512], q[1024];
  ls_db *a = NULL, *b = NULL;
  ls_error e;
  int ratios = -1;
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&a, fx_path(pa, "ratios-all.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_db_open(&b, fx_path(pb, "ratios-shown.db"), &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_test_paper_roles(a), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_test_paper_roles(b), LS_OK);
  CU_ASSERT_EQUAL(ls_db_exec(b, "UPDATE roles SET value = 'shown' WHERE role = 'intervals.ratios'", &e), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fill_shown(a), LS_OK);
  CU_ASSERT_EQUAL_FATAL(fill_shown(b), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(a, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_pair_run(b, NULL, &e), LS_OK); /* the workers' statement */
  CU_ASSERT_EQUAL(ls_db_stats_summary(b, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_intervals_written(b, NULL, NULL, &ratios, &e), LS_OK);
  CU_ASSERT_EQUAL(ratios, 2);
  ls_db_close(a);
  snprintf(q, sizeof q, "ATTACH '%s' AS a", pa);
  CU_ASSERT_EQUAL_FATAL(ls_db_exec(b, q, &e), LS_OK);
  /* 6 x 4 pairs in main (a reference with itself too), 3 x 3 in budget, two metrics each */
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM a.ratio_ci"), (24 + 9) * 2);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci n JOIN a.ratio_ci o USING(run_id, ref_system,"
                              " metric) WHERE n.ratio IS o.ratio AND n.prompts = o.prompts AND"
                              " n.ref_run_id = o.ref_run_id AND o.lo <= o.hi"), (24 + 9) * 2);
  /* the estimates of unequal runs blend (slope not 0): the test tells a blend from a quotient */
  CU_ASSERT(fx_query(b, "SELECT count(*) FROM ratio_ci c JOIN runs r USING(run_id) WHERE r.system"
                        " = 'eagle2' AND c.ref_system = 'lever-no-prune' AND c.prompts = 6") == 2);
  /* not shown: ar-flash and ar-mem against specinfer (main), every main run but lever and
   * lever-no-prune against lever-no-prune (specinfer, ar-flash, ar-mem, eagle2), budget's three
   * against specinfer; their lo and hi NULL, every other one the interval of the study drawing
   * all */
  static const char *const hidden[] = {"main|ar-flash|specinfer", "main|ar-mem|specinfer",
      "main|specinfer|lever-no-prune", "main|ar-flash|lever-no-prune", "main|ar-mem|lever-no-prune",
      "main|eagle2|lever-no-prune", "budget|lever|specinfer", "budget|ar-flash|specinfer",
      "budget|specinfer|specinfer"};
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci WHERE lo IS NULL AND hi IS NULL"), 9 * 2);
  for (size_t i = 0; i < sizeof hidden / sizeof *hidden; i++) {
    snprintf(q, sizeof q, "SELECT count(*) FROM ratio_ci c JOIN runs r USING(run_id) WHERE c.lo IS NULL"
                          " AND c.hi IS NULL AND r.part || '|' || r.system || '|' || c.ref_system = '%s'",
             hidden[i]);
    CU_ASSERT_EQUAL(fx_query(b, q), 2);
  }
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci n JOIN a.ratio_ci o USING(run_id, ref_system,"
                              " metric) WHERE n.lo IS o.lo AND n.hi IS o.hi"), (24 + 9 - 9) * 2);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM (SELECT * FROM summary_ci EXCEPT SELECT * FROM"
                              " a.summary_ci)"), 0);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM summary_ci WHERE mean_lo < mean_hi"), 5);
  /* the views with interval columns have theirs: fig10 (both), fig11, fig12, lever_ratios */
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM fig10 WHERE ratio_lo <= vs_lever AND vs_lever <= ratio_hi"
                              " AND vs_ar_flash_lo <= vs_ar_flash AND vs_ar_flash <= vs_ar_flash_hi"), 6);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM fig11 WHERE ratio_lo <= ratio_hi AND tau_ratio_lo IS NOT NULL"), 4);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM fig12 WHERE tps_vs_no_prune_lo <= tps_vs_no_prune_hi"), 2);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM lever_ratios WHERE vs_ar_flash_lo < vs_ar_flash_hi"
                              " AND vs_specinfer_lo < vs_specinfer_hi"), 1);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM v_vs_lever WHERE part = 'budget' AND lever_speedup_lo"
                              " IS NOT NULL AND vs_ar_flash_lo IS NOT NULL"), 3);
  /* a run against itself takes its interval without drawing (every replicate is 1): the same
   * bits as the bootstrap of its table (any seed: the replicates do not depend on it) */
  ls_db_prompt pr[FX_PROMPTS];
  fx_prompts("lever", 10, 3, pr);
  double rows[FX_PROMPTS * 12];
  for (int j = 0; j < FX_PROMPTS; j++) {
    const double v[4] = {pr[j].tokens, pr[j].decode_s, pr[j].tau_sum, pr[j].cycles};
    for (int k = 0; k < 12; k++) rows[j * 12 + k] = v[k % 4];
  }
  static const ls_boot_cols st[2] = {{0, 1, 4, 5}, {2, 3, 6, 7}};
  ls_boot_ci self[2];
  CU_ASSERT_EQUAL_FATAL(ls_boot_ci_strata(rows, FX_PROMPTS, 0, 12, st, NULL, 2, 0x5e1f, LS_BOOT_RESAMPLES,
                                          LS_BOOT_LEVEL, self, &e), LS_OK);
  static const char *const metric[2] = {"throughput_tps", "tau"};
  for (int k = 0; k < 2; k++) {
    CU_ASSERT(self[k].reliable && self[k].lo == 1.0 && self[k].hi == 1.0);
    static const char *const col[3] = {"ratio", "lo", "hi"};
    const double want[3] = {self[k].est, self[k].lo, self[k].hi};
    for (int i = 0; i < 3; i++) {
      snprintf(q, sizeof q, "SELECT c.%s FROM ratio_ci c JOIN runs r USING(run_id) WHERE r.part = 'main'"
                            " AND r.system = 'lever' AND c.ref_system = 'lever' AND c.metric = '%s'",
               col[i], metric[k]);
      CU_ASSERT_EQUAL(fx_query(b, q), want[i]);
    }
  }
  /* the shortcut only where every replicate is 1: not for a run whose prompts took no time
   * (most replicates 0 / 0 here: no interval, as the bootstrap finds), nor under
   * LS_BOOT_MIN_UNITS prompts */
  CU_ASSERT_EQUAL(fx_add_prompts(b, "mapping", "d0", "m0", "s0", "lever", "{}", 7, 10, 3, pr, 4), LS_OK);
  for (int j = 0; j < 5; j++) pr[j].decode_s = j == 2 ? 1.0 : 0.0;
  CU_ASSERT_EQUAL(fx_add_prompts(b, "overlap", "d0", "m0", "s0", "lever", "{}", 7, 64, 3, pr, 5), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_pair_run(b, NULL, &e), LS_OK);
  for (int j = 0; j < 5; j++)
    for (int k = 0; k < 12; k++) rows[j * 12 + k] = k % 4 == 1 ? pr[j].decode_s : rows[j * 12 + k];
  CU_ASSERT_EQUAL_FATAL(ls_boot_ci_strata(rows, 5, 0, 12, st, NULL, 2, 0x5e1f, LS_BOOT_RESAMPLES,
                                          LS_BOOT_LEVEL, self, &e), LS_OK);
  CU_ASSERT(!self[0].reliable && self[1].reliable);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci c JOIN runs r USING(run_id) WHERE r.part ="
                              " 'overlap' AND c.metric = 'throughput_tps' AND c.lo IS NULL AND c.ratio = 1"), 1);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci c JOIN runs r USING(run_id) WHERE r.part ="
                              " 'overlap' AND c.metric = 'tau' AND c.lo = 1 AND c.hi = 1"), 1);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM ratio_ci c JOIN runs r USING(run_id) WHERE r.part ="
                              " 'mapping' AND c.lo IS NULL AND c.ratio = 1 AND c.prompts = 4"), 2);
  CU_ASSERT_EQUAL(ls_db_exec(b, "DELETE FROM runs WHERE part IN ('overlap', 'mapping')", &e), LS_OK);
  /* a refresh of the shown database writes the same rows */
  CU_ASSERT_EQUAL(ls_db_exec(b, "CREATE TEMP TABLE r0 AS SELECT * FROM ratio_ci", &e), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(b, &e), LS_OK);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM (SELECT * FROM ratio_ci EXCEPT SELECT * FROM r0)"), 0);
  CU_ASSERT_EQUAL(fx_query(b, "SELECT count(*) FROM r0"), (24 + 9) * 2);
  ls_db_close(b);
}

CU_TestInfo fx_stats_tests[] = {
    {"pairs computed as runs arrive equal one refresh after them", test_pairs_as_runs_arrive},
    {"identical data, identical intervals, whatever the run's id", test_same_data_same_intervals},
    {"metric intervals by hand; none under 5 prompts", test_metric_ci_by_hand},
    {"a run with the last run's prompts: its intervals without a second draw", test_intervals_of_repeated_prompts},
    {"paired ratios in the views; summary resampled jointly", test_views_intervals},
    {"a study's declared intervals: those alone, bit for bit", test_declared_intervals},
    {"intervals.ratios shown: every estimate, the intervals the views show", test_shown_ratio_intervals},
    {"runs of different sizes: the regression estimate at slopes 0 and 1", test_unequal_prompts},
    {"merge carries prompts and recomputes ratios", test_merge_intervals},
    {"run --json is one JSON document", test_json_one_document},
    {"run --json prints the intervals the database stores", test_run_json_intervals_as_stored},
    {"a run's prompt sums add up to its metrics", test_prompt_sums},
    {"reproduce --quick --json is one JSON document (figures to stderr)", test_reproduce_json},
    CU_TEST_INFO_NULL};
