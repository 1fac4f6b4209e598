/* tests/results: the regression check (exact paired comparison of every metric, two-sided
 * interval tolerance, replay identity, bad baselines) and the
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

#define HASH_QUICK "00000000000000aa"
#define HASH_FULL "00000000000000bb"

/* Records the replay a database holds, as `leversim reproduce` does. */
static void set_replay(ls_db *db, const char *replay, const char *hash, const char *prompts)
{
  ls_db_set_meta(db, "experiment", "paper", NULL);
  ls_db_set_meta(db, "replay", replay, NULL);
  ls_db_set_meta(db, "spec_hash", hash, NULL);
  ls_db_set_meta(db, "prompts", prompts, NULL);
  ls_db_set_meta(db, "max_tokens", "64", NULL);
}

/* The written baseline with `compare: exact` taken out: the interval comparison. */
static void to_interval(const char *path)
{
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  char *c = strstr(text, "compare: exact\nexact_tolerance: 1e-09\n");
  CU_ASSERT_PTR_NOT_NULL_FATAL(c);
  memmove(c, c + strlen("compare: exact\nexact_tolerance: 1e-09\n"), strlen(c) - 38 + 1);
  write_file(path, text);
}

static ls_db *setup_mode(char *dbp, char *base, int exact);

/* A main-matrix db of the quick replay and its baseline quick.yaml (interval comparison). */
static ls_db *setup(char *dbp, char *base)
{
  return setup_mode(dbp, base, 0);
}

/* The same with the baseline as written: the exact comparison. */
static ls_db *setup_mode(char *dbp, char *base, int exact)
{
  ls_db *db = NULL;
  ls_error e;
  if (ls_db_open(&db, fx_path(dbp, "check.db"), &e) != LS_OK || fx_fill_main(db) != LS_OK)
    return NULL;
  set_replay(db, "quick", HASH_QUICK, "8");
  FILE *f = fopen(fx_path(base, "quick.yaml"), "w");
  int rc = ls_db_write_baseline(db, 1, base, f, &e);
  fclose(f);
  if (rc != LS_OK) {
    ls_db_close(db);
    return NULL;
  }
  if (!exact) to_interval(base);
  return db;
}

static int run_check(ls_db *db, const char *base, double k, int *reg, ls_error *e)
{
  FILE *f = fopen("/dev/null", "w");
  int rc = ls_db_check(db, base, k, f, reg, e);
  fclose(f);
  return rc;
}

/* Lever's throughput on configuration (d1, m1) scaled by f, intervals recomputed. */
static void scale_lever(ls_db *db, double f)
{
  CU_ASSERT_EQUAL(fx_add(db, "main", "d1", "m1", "s0", "lever", "{}", 7, 13 * f, 2), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(db, NULL), LS_OK);
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
  /* The half-width of Lever's speedup over ar-flash on (d1, m1), relative. */
  double hw = fx_query(db, "SELECT (lever_speedup_hi - lever_speedup_lo) / 2 / lever_speedup"
                           " FROM v_speedup WHERE device = 'd1' AND model = 'm1'"
                           " AND system = 'ar-flash'");
  CU_ASSERT_FATAL(hw > 1e-4 && hw < 0.05);
  /* Within a fifth of the interval: passes. */
  scale_lever(db, 1 + 0.2 * hw);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* Raised by three half-widths (beyond sqrt(2) x combined): both ratios of (d1, m1) flagged. */
  scale_lever(db, 1 + 3 * hw);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(ls_db_check(db, base, -1, f, &reg, &e), LS_OK);
  fclose(f);
  CU_ASSERT_EQUAL(reg, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "REGRESSION (higher)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "2 regressions"));
  free(buf);
  /* Lowered as much: flagged too. */
  scale_lever(db, 1 - 3 * hw);
  buf = NULL;
  f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(ls_db_check(db, base, -1, f, &reg, &e), LS_OK);
  fclose(f);
  CU_ASSERT_EQUAL(reg, 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "REGRESSION (lower)"));
  free(buf);
  /* A larger k accepts it. */
  CU_ASSERT_EQUAL(run_check(db, base, 10, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* A configuration that vanished is a regression (MISSING): its ratio and its run's two
   * metrics (throughput, I/O share). */
  scale_lever(db, 1);
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "DELETE FROM runs WHERE device = 'd0' AND model = 'm0' AND "
                                      "system = 'ar-flash'", NULL, NULL, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 3);
  ls_db_close(db);
}

/* Where a side has no interval, the baseline's no_interval tolerance applies. */
static void test_no_interval(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  char p[512];
  write_file(fx_path(p, "nointerval.yaml"),
             "experiment: paper\nreplay: quick\nspec_hash: \"" HASH_QUICK "\"\nprompts: 8\n"
             "max_tokens: 64\nk: 1\nfloor: 0\nno_interval: 0.02\nentries:\n"
             "  - {device: d0, model: m0, dataset: s0, system: ar-flash, ratio: 2.03}\n"
             "  - {device: d0, model: m0, dataset: s0, system: specinfer, ratio: 1.23}\n");
  ls_error e;
  int reg = -1;
  /* 2 vs 2.03: 1.5 % < 2 %; 1.2 vs 1.23: 2.4 % > 2 % */
  CU_ASSERT_EQUAL(run_check(db, p, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 1);
  ls_db_close(db);
}

/* A database of another replay is refused, naming the baseline that fits it. */
static void test_replay_refused(void)
{
  char dbp[512], base[512], full[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  set_replay(db, "full", HASH_FULL, "20");
  FILE *f = fopen(fx_path(full, "full.yaml"), "w");
  ls_error e;
  CU_ASSERT_EQUAL(ls_db_write_baseline(db, 1, full, f, &e), LS_OK);
  fclose(f);
  int reg = -1;
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "full.yaml"));
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "quick replay"));
  CU_ASSERT_EQUAL(ls_status_exit(e.code), 65);
  CU_ASSERT_EQUAL(run_check(db, full, -1, &reg, &e), LS_OK); /* its own baseline passes */
  CU_ASSERT_EQUAL(reg, 0);
  /* No replay recorded (a sweep's database): refused against a replay's baseline; its own
   * baseline is a study's, under any name but a replay's. */
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "DELETE FROM meta WHERE key = 'spec_hash'", NULL, NULL,
                               NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(run_check(db, full, -1, &reg, &e), LS_EINVALID);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "records no replay"));
  f = fopen("/dev/null", "w");
  CU_ASSERT_EQUAL(ls_db_write_baseline(db, 1, full, f, &e), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "it is a study"));
  set_replay(db, "custom", HASH_FULL, "20"); /* reproduce --prompts/--tokens: a trial */
  CU_ASSERT_EQUAL(ls_db_write_baseline(db, 1, full, f, &e), LS_EUSAGE);
  char mine[512];
  FILE *g = fopen(fx_path(mine, "mine.yaml"), "w");
  CU_ASSERT_EQUAL(ls_db_write_baseline(db, 1, mine, g, &e), LS_OK);
  fclose(g);
  CU_ASSERT_EQUAL(run_check(db, mine, -1, &reg, &e), LS_OK); /* a study's baseline fits */
  CU_ASSERT_EQUAL(reg, 0);
  char *text = ls_test_slurp(mine);
  CU_ASSERT_PTR_NOT_NULL(text ? strstr(text, "\nreplay: study\n") : NULL);
  free(text);
  set_replay(db, "full", HASH_FULL, "20");
  CU_ASSERT_EQUAL(ls_db_write_baseline(db, 1, base, f, &e), LS_EUSAGE); /* full into quick.yaml */
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "full.yaml"));
  fclose(f);
  ls_db_close(db);
}

static void test_baseline_format(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  /* 4 configurations x 2 non-lever systems, exact ratios with intervals around them. */
  FILE *f = fopen(base, "r");
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, f);
  text[n] = '\0';
  fclose(f);
  int entries = 0, rows = 0;
  for (char *c = text; (c = strstr(c, "- {device")); c++) entries++;
  for (char *c = text; (c = strstr(c, "- {part")); c++) rows++;
  CU_ASSERT_EQUAL(entries, 8);
  CU_ASSERT_EQUAL(rows, 12); /* every run: 4 configurations x 3 systems, lever included */
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "throughput_tps: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "io_share: "));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "replay: quick\nspec_hash: \"" HASH_QUICK "\"\nprompts: \"8\"\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "k: 1\n"));
  const char *row = strstr(text, "system: \"ar-flash\", ratio: 3.5");  /* k = 3: 2 + 1.5 */
  CU_ASSERT_PTR_NOT_NULL_FATAL(row);
  double lo = NAN, hi = NAN;
  const char *l = strstr(row, "lo: "), *h = strstr(row, "hi: ");
  if (l && h) {
    lo = strtod(l + 4, NULL);
    hi = strtod(h + 4, NULL);
  }
  CU_ASSERT(lo < 3.5 && 3.5 < hi && hi - lo < 0.35);
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

#define HEAD "experiment: paper\nreplay: quick\nspec_hash: \"" HASH_QUICK "\"\nprompts: 8\n" \
             "max_tokens: 64\nk: 1\nfloor: 0.001\nno_interval: 0.02\n"  /* 8 lines */

static void test_bad_baselines(void)
{
  char dbp[512], base[512];
  ls_db *db = setup(dbp, base);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  expect_bad(db, "b1.yaml", HEAD "entries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: ar-flash, ratio: 2, tolerence: 0.1}\n", LS_ESCHEMA, 10, "tolerence");
  expect_bad(db, "b2.yaml", HEAD "entries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: ar-flash, ratio: -2}\n", LS_ERANGE, 10, "ratio");
  expect_bad(db, "b3.yaml", "experiment: paper\nreplay: quick\nspec_hash: \"x\"\nprompts: 8\n"
             "max_tokens: 64\nk: 0\nfloor: 0\nno_interval: 0\nentries: []\n", LS_ERANGE, 6, "k");
  expect_bad(db, "b4.yaml", HEAD "entries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: x, ratio: 2}\n  - {device: d0, model: m0, dataset: s0, system: x,"
             " ratio: 3}\n", LS_ESCHEMA, 11, "duplicate entry");
  expect_bad(db, "b5.yaml", HEAD, LS_ESCHEMA, 1, "entries");
  expect_bad(db, "b6.yaml", HEAD "entries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: x, ratio: fast}\n", LS_ESCHEMA, 10, "fast");
  expect_bad(db, "b7.yaml", HEAD "entries:\n  - {device: d0, model: m0, dataset: s0,"
             " system: x, ratio: 2, lo: 1.9}\n", LS_ESCHEMA, 10, "lo and hi");
  expect_bad(db, "b8.yaml", "tolerance: 0.05\nentries: []\n", LS_ESCHEMA, 1, "experiment");
  expect_bad(db, "b9.yaml", "experiment: paper\nreplay: full\nspec_hash: \"x\"\nprompts: \"16-8\"\n"
             "max_tokens: 64\nk: 1\nfloor: 0\nno_interval: 0\nentries: []\n", LS_ESCHEMA, 4, "16-8");
  expect_bad(db, "b10.yaml", "experiment: paper\nreplay: full\nspec_hash: \"x\"\nprompts: many\n"
             "max_tokens: 64\nk: 1\nfloor: 0\nno_interval: 0\nentries: []\n", LS_ESCHEMA, 4, "many");
  ls_error e;
  int reg;
  CU_ASSERT_NOT_EQUAL(run_check(db, "/nonexistent/baseline.yaml", -1, &reg, &e), LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "baseline.yaml") ? e.msg : e.file);
  ls_db_close(db);
}

/* The exact comparison: paired over the same prompts, any move of any guarded value beyond
 * floating-point noise is flagged, within its interval or not, in either direction; values no
 * ratio sees (a baseline's own throughput, an I/O share) are guarded too. */
static void test_exact(void)
{
  char dbp[512], base[512];
  ls_db *db = setup_mode(dbp, base, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  ls_error e;
  int reg = -1;
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* 1e-12 relative: floating-point noise, passes */
  scale_lever(db, 1 + 1e-12);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* 1e-6 relative, far inside every interval: Lever's throughput and its two ratios on (d1, m1) */
  scale_lever(db, 1 + 1e-6);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(ls_db_check(db, base, -1, f, &reg, &e), LS_OK);
  fclose(f);
  CU_ASSERT_EQUAL(reg, 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "CHANGED (within interval)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "largest change: "));
  free(buf);
  /* lower by as much: flagged too */
  scale_lever(db, 1 - 1e-6);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 3);
  scale_lever(db, 1);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT_EQUAL(reg, 0);
  /* one run's I/O share, which no ratio sees */
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "UPDATE metrics SET value = value * 1.0001 WHERE name = 'io_share' AND run_id"
                                      " = (SELECT run_id FROM runs WHERE device = 'd0' AND model = 'm0' AND system ="
                                      " 'specinfer')", NULL, NULL, NULL), SQLITE_OK);
  buf = NULL;
  f = open_memstream(&buf, &len);
  CU_ASSERT_EQUAL(ls_db_check(db, base, -1, f, &reg, &e), LS_OK);
  fclose(f);
  CU_ASSERT_EQUAL(reg, 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(buf, "io_share of specinfer on d0/m0/s0"));
  free(buf);
  /* a run that vanished: its metrics and its ratio are missing */
  CU_ASSERT_EQUAL(sqlite3_exec(db->h, "DELETE FROM runs WHERE device = 'd1' AND model = 'm1' AND system = 'ar-flash'",
                               NULL, NULL, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(run_check(db, base, -1, &reg, &e), LS_OK);
  CU_ASSERT(reg >= 3); /* the io_share above, the ratio, the run's two metrics */
  ls_db_close(db);
}

/* --- the commands ------------------------------------------------------------------------ */

static void test_cli_check(void)
{
  char dbp[512], base[512], args[2048], out[8192], wb[512];
  ls_db *db = setup_mode(dbp, base, 1);
  CU_ASSERT_PTR_NOT_NULL_FATAL(db);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, base);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0 regressions"));
  /* --write-baseline round-trips through the command too, into <replay>.yaml only. */
  snprintf(args, sizeof args, "check --db '%s' --write-baseline '%s' --k 2", dbp,
           fx_path(wb, "written.yaml"));
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  snprintf(args, sizeof args, "check --db '%s' --write-baseline '%s' --k 2", dbp,
           fx_path(wb, "quick.yaml"));
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, wb);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "exact: any move beyond 1e-09"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "largest change: none"));
  CU_ASSERT_EQUAL(fx_add(db, "main", "d0", "m1", "s0", "lever", "{}", 7, 5, 2), LS_OK);
  CU_ASSERT_EQUAL(ls_db_stats_refresh(db, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "CHANGED"));
  /* Another replay: 65, naming the baseline that fits. */
  set_replay(db, "full", HASH_FULL, "20");
  ls_db_close(db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "full replay"));
  /* Bad input: 64+. */
  char bad[512];
  write_file(fx_path(bad, "bad.yaml"), HEAD "entries: {a: 1}\n");
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s'", dbp, bad);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad.yaml:9:"));
  snprintf(args, sizeof args, "check --db /nonexistent.db --baseline '%s'", base);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 66);
  snprintf(args, sizeof args, "check --db '%s'", dbp);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  snprintf(args, sizeof args, "check --db '%s' --baseline '%s' --k 0", dbp, base);
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
    {"two-sided: within, above, below the interval; missing", test_check_pass_and_regress},
    {"no interval: the baseline's relative tolerance", test_no_interval},
    {"exact: paired, every metric, any move beyond 1e-9", test_exact},
    {"another replay is refused, naming the baseline that fits", test_replay_refused},
    {"written baseline format", test_baseline_format},
    {"malformed baselines name file:line", test_bad_baselines},
    CU_TEST_INFO_NULL};
CU_TestInfo fx_cli_tests[] = {
    {"leversim check", test_cli_check},
    {"leversim export", test_cli_export},
    {"leversim merge", test_cli_merge},
    CU_TEST_INFO_NULL};
