/* tests/runner/studies: studies as first-class objects (issue 18.1), through the leversim
 * binary on the repository's data: variants of one configuration coexist in one database,
 * every --set and --axis is an axis of the run, identical settings are not run twice (unless
 * --force), `sweep --axis` needs no experiment file and its points are `run`'s runs, and a
 * bad value typed on the command line exits 64. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "ls_test.h"
#include "rtest.h"
#include "results/db.h"
#include "runner/decode/paths.h"
#include "runner/report/plot.h"
#include "runner/study/noeffect.h"

#define SMALL "--prompts 5 --tokens 24"
#define CELL "--device oneplus-12 --model llama-3.1-8b --dataset gsm8k"

static char g_dir[64];

/* One text value of a query (first row, first column) into out; "" when none. */
static void query(const char *db, const char *sql, char *out, size_t size)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  out[0] = '\0';
  CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
}

static int leversim(char *out, size_t size, const char *fmt, const char *db, const char *extra)
{
  char args[2048];
  snprintf(args, sizeof args, fmt, db, extra);
  return ls_test_cli(args, out, (unsigned)size);
}

/* The issue's loop: six budgets with --set into one database, each exit 0, six runs told
 * apart by their axes; the seventh (a repeat) is a no-op that says so; --force redoes it. */
static void test_budget_loop(void)
{
  char db[128], out[16384], v[256];
  snprintf(db, sizeof db, "%s/loop.db", g_dir);
  const char *budgets[] = {"4", "8", "16", "32", "64", "128"};
  for (int i = 0; i < 6; i++) {
    char extra[64];
    snprintf(extra, sizeof extra, "--set draft.budget=%s", budgets[i]);
    CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  }
  query(db, "SELECT count(DISTINCT axes_json) || '/' || count(*) FROM v_runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "6/6");
  query(db, "SELECT group_concat(b, ',') FROM (SELECT json_extract(axes_json, '$.\"draft.budget\"')"
            " AS b FROM runs ORDER BY CAST(b AS INTEGER))", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "4,8,16,32,64,128");
  /* --prompts/--tokens are settings too: recorded */
  query(db, "SELECT json_extract(axes_json, '$.\"workload.prompts\"') FROM runs LIMIT 1", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "5");
  query(db, "SELECT wall_s FROM runs WHERE axes_json LIKE '%\"8\"%'", v, sizeof v);
  char wall[64];
  snprintf(wall, sizeof wall, "%s", v);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db,
                           "--set draft.budget=8"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--force"));
  query(db, "SELECT wall_s FROM runs WHERE axes_json LIKE '%\"8\"%'", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, wall); /* not rewritten */
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db,
                           "--set draft.budget=8 --force"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "throughput_tps"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "6");
}

/* Issue 18.1: a run is its resolved configuration. After a plain run, setting a default
 * explicitly (the value the run recorded as default, not a literal), naming the shipped
 * profile by its path, or by a byte-identical copy, is the same run (exit 0, "already holds");
 * --force runs it again; another budget, or an edited copy of the profile, is another run. */
static void test_resolved_identity(void)
{
  char db[128], out[16384], v[256], extra[512], id[64];
  snprintf(db, sizeof db, "%s/ident.db", g_dir);
  CU_ASSERT_EQUAL_FATAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, ""), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "throughput_tps"));
  query(db, "SELECT run_id FROM runs", id, sizeof id);
  query(db, "SELECT value_text FROM run_settings WHERE key = 'draft.budget' AND is_default = 1", v, sizeof v);
  CU_ASSERT_FATAL(v[0] != '\0');
  char dflt[64];
  snprintf(dflt, sizeof dflt, "%s", v);
  snprintf(extra, sizeof extra, "--set draft.budget=%s", dflt);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, id));
  /* a setting of the device, written in another unit: its default in base units */
  query(db, "SELECT value_num FROM run_settings WHERE key = 'device.flash.bandwidth' AND is_default = 1", v, sizeof v);
  snprintf(extra, sizeof extra, "--set device.flash.bandwidth=%.17gKB/s", atof(v) / 1e3);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  /* the profile by path, and a byte-identical copy elsewhere */
  const char *by_path = "--device '" LS_TEST_DIR "/../devices/profiles/oneplus-12.yaml'";
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, by_path), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  snprintf(extra, sizeof extra, "cp '" LS_TEST_DIR "/../devices/profiles/oneplus-12.yaml' '%s/oneplus-12.yaml' && "
           "cp '%s/oneplus-12.yaml' '%s/edited.yaml' && printf '# edited\\n' >> '%s/edited.yaml'",
           g_dir, g_dir, g_dir, g_dir);
  CU_ASSERT_EQUAL_FATAL(system(extra), 0);
  snprintf(extra, sizeof extra, "--device '%s/oneplus-12.yaml'", g_dir);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "1");
  snprintf(extra, sizeof extra, "--device '%s/edited.yaml'", g_dir);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "already holds this run"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2");
  /* --force runs the explicit default again, in place */
  snprintf(extra, sizeof extra, "--set draft.budget=%s --force", dflt);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "throughput_tps"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2");
  /* two other budgets: two more runs */
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, "--set draft.budget=8"), 0);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, "--set draft.budget=16"), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "already holds this run"));
  query(db, "SELECT count(*) || ' ' || count(DISTINCT config_json) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "4 4");
  /* the same run written the other way into another database merges as the same run */
  char db2[128], args[512];
  snprintf(db2, sizeof db2, "%s/ident2.db", g_dir);
  snprintf(extra, sizeof extra, "--set draft.budget=%s %s", dflt, by_path);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db2, extra), 0);
  query(db2, "SELECT run_id FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, id);
  snprintf(args, sizeof args, "merge '%s' '%s'", db, db2);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "4");
  /* a number that differs from the default only in its 10th significant digit is another run
   * (identity keeps 17 digits: "%g" would print both as the same 6) */
  query(db, "SELECT value_num FROM run_settings WHERE key = 'device.flash.bandwidth' AND is_default = 1", v, sizeof v);
  snprintf(extra, sizeof extra, "--set device.flash.bandwidth=%.17gB/s", atof(v) * (1 + 1e-9));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, extra), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "already holds this run"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "5");
}

/* `sweep --axis` without a file: the four names are axes too (and required), each point is
 * the run `leversim run --set` makes (the same run id), and a second sweep skips them all. */
static void test_sweep_axes_without_file(void)
{
  char db[128], out[16384], v[256];
  snprintf(db, sizeof db, "%s/axes.db", g_dir);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "sweep --db '%s' --axis draft.budget=4,8,16 %s", db,
                           "--axis device=oneplus-12,honor-500-pro --axis model=llama-3.1-8b "
                           "--axis dataset=gsm8k --axis system=lever --set workload.prompts=5 "
                           "--set workload.max_tokens=24 --jobs 2"), 0);
  query(db, "SELECT count(*) || ' ' || count(DISTINCT device || axes_json) FROM v_runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "6 6");
  query(db, "SELECT axes_json FROM runs WHERE device = 'honor-500-pro' ORDER BY"
            " CAST(json_extract(axes_json, '$.\"draft.budget\"') AS INTEGER) LIMIT 1", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "{\"draft.budget\":\"4\",\"workload.max_tokens\":\"24\",\"workload.prompts\":\"5\"}");
  /* the same point through run: nothing to do */
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever --db '%s' %s", db,
                           "--set draft.budget=16 --set workload.prompts=5 --set workload.max_tokens=24"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "sweep --db '%s' --axis draft.budget=4,8,16 %s", db,
                           "--axis device=oneplus-12,honor-500-pro --axis model=llama-3.1-8b "
                           "--axis dataset=gsm8k --axis system=lever --set workload.prompts=5 "
                           "--set workload.max_tokens=24"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "6 already done"));
  /* a names axis missing, a repeated value, a --set on an axis: usage errors, no database */
  char db2[128];
  snprintf(db2, sizeof db2, "%s/none.db", g_dir);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "sweep --db '%s' %s", db2,
                           "--axis draft.budget=4,8 --axis device=oneplus-12 --axis model=llama-3.1-8b "
                           "--axis system=lever"), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "missing: dataset"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "sweep --db '%s' %s", db2,
                           "--axis draft.budget=4,4 --axis device=oneplus-12 --axis model=llama-3.1-8b "
                           "--axis dataset=gsm8k --axis system=lever"), 64);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "sweep --db '%s' %s", db2,
                           "--axis draft.budget=4,8 --set draft.budget=8 --axis device=oneplus-12 "
                           "--axis model=llama-3.1-8b --axis dataset=gsm8k --axis system=lever"), 64);
  CU_ASSERT_NOT_EQUAL(access(db2, F_OK), 0);
}

/* An experiment file swept again with --set into a database that holds its plain variant:
 * both variants stay, each with its own ratios. */
static void test_sweep_set_beside_variant(void)
{
  char db[128], yaml[128], out[16384], v[256];
  snprintf(db, sizeof db, "%s/variant.db", g_dir);
  snprintf(yaml, sizeof yaml, "%s/one.yaml", g_dir);
  FILE *f = fopen(yaml, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs("name: one\nseed: 3\nsettings:\n  workload.prompts: 5\n  workload.max_tokens: 24\nparts:\n"
        "  - name: p\n    devices: [oneplus-12]\n    models: [llama-3.1-8b]\n    datasets: [gsm8k]\n"
        "    systems: [lever, ar-flash]\n", f);
  fclose(f);
  char args[512];
  snprintf(args, sizeof args, "sweep '%s' --db '%s'", yaml, db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  snprintf(args, sizeof args, "sweep '%s' --db '%s' --set draft.budget=16", yaml, db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  query(db, "SELECT count(*) || ' ' || count(lever_speedup) FROM v_vs_lever WHERE system = 'ar-flash'", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2 2");
  snprintf(args, sizeof args, "sweep '%s' --db '%s' --axis system=ar-flash --force", yaml, db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "1 runs (1 ok"));
}

/* `leversim plot` on the loop's and the sweep's databases: the CSV has one row per run in x
 * order with its interval around the value, filters and groups work, and ambiguous points,
 * unknown keys and unknown metrics are usage errors. */
static void test_plot(void)
{
  char db[128], db2[128], out[16384], png[160];
  snprintf(db, sizeof db, "%s/loop.db", g_dir);
  snprintf(db2, sizeof db2, "%s/axes.db", g_dir);
  CU_ASSERT_EQUAL_FATAL(leversim(out, sizeof out, "plot --db '%s' %s", db, "--x draft.budget --y tps --format csv"), 0);
  CU_ASSERT(strncmp(out, "group,draft.budget,draft.budget_num,throughput_tps,lo,hi,run_id\n", 64) == 0);
  const char *line = strchr(out, '\n') + 1;
  double last = 0;
  int rows = 0;
  for (; *line; line = strchr(line, '\n') + 1, rows++) {
    double x, xn, y, lo, hi;
    CU_ASSERT_EQUAL_FATAL(sscanf(line, ",%lf,%lf,%lf,%lf,%lf,", &x, &xn, &y, &lo, &hi), 5);
    CU_ASSERT(x > last && x == xn && lo < y && y < hi);
    last = x;
  }
  CU_ASSERT_EQUAL(rows, 6);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "plot --db '%s' %s", db2,
                           "--x draft.budget --y throughput_tps --by device --where draft.budget=8 --format csv"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nhonor-500-pro,8,8,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\noneplus-12,8,8,"));
  CU_ASSERT_PTR_NULL(strstr(out, ",16,16,"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "plot --db '%s' %s", db2, "--x draft.budget --y tps --format csv"), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--where KEY=VALUE, or split them with --by KEY"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "plot --db '%s' %s", db, "--x draft.budgte --y tps --format csv"), 64);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "plot --db '%s' %s", db, "--x draft.budget --y speed --format csv"), 64);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "plot --db '%s' %s", db, "--x draft.budget --y tps --where device=pixel-9 --format csv"), 66);
  /* the y axis is labelled with the metric's unit as the runs recorded it */
  ls_db *h = NULL;
  ls_plot_table t;
  ls_plot_query pq = {0};
  pq.x = "draft.budget";
  pq.y = "tps";
  CU_ASSERT_EQUAL_FATAL(ls_db_open_read(&h, db, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_plot_read(h, &pq, &t, NULL), LS_OK);
  CU_ASSERT_STRING_EQUAL(t.unit, "tok/s");
  ls_plot_table_free(&t);
  pq.y = "wasted_verify";
  CU_ASSERT_EQUAL(ls_plot_read(h, &pq, &t, NULL), LS_OK);
  CU_ASSERT_STRING_EQUAL(t.unit, "ratio");
  ls_plot_table_free(&t);
  ls_db_close(h);
  snprintf(png, sizeof png, "--x draft.budget --y tps --by device --out '%s/b.png'", g_dir);
  int rc = leversim(out, sizeof out, "plot --db '%s' %s", db2, png);
  if (system("command -v gnuplot >/dev/null") == 0) {
    CU_ASSERT_EQUAL(rc, 0);
    snprintf(png, sizeof png, "test -s '%s/b.png' && grep -c '^[0-9]' '%s/b.png.dat' | grep -qx 6", g_dir, g_dir);
    CU_ASSERT_EQUAL(system(png), 0);
  }
}

/* `cases`: each case is one point, crossed with the sweep and recorded as axes; a case may
 * not set a swept key (65, located), nor may a --set replace a case's key (64). */
static void test_cases(void)
{
  char db[128], yaml[128], out[16384], v[256], args[512];
  snprintf(db, sizeof db, "%s/cases.db", g_dir);
  snprintf(yaml, sizeof yaml, "%s/cases.yaml", g_dir);
  const char *base = "name: cases\nseed: 3\nsettings:\n  workload.prompts: 2\n  workload.max_tokens: 16\nparts:\n"
                     "  - name: p\n    devices: [oneplus-12]\n    models: [qwen3-4b]\n    datasets: [gsm8k]\n"
                     "    systems: [lever]\n    cases:\n      - {}\n      - {verify.overlap: prefetch}\n"
                     "      - {device.npu.regime: static-graph}\n    sweep:\n      %s: [4, 8]\n";
  FILE *f = fopen(yaml, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, base, "draft.budget");
  fclose(f);
  snprintf(args, sizeof args, "sweep '%s' --db '%s'", yaml, db);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  query(db, "SELECT count(*) || ' ' || count(DISTINCT axes_json) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "6 6");
  query(db, "SELECT axes_json FROM runs WHERE axes_json LIKE '%prefetch%' ORDER BY axes_json LIMIT 1", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "{\"verify.overlap\":\"prefetch\",\"draft.budget\":\"4\"}");
  snprintf(args, sizeof args, "sweep '%s' --check --set verify.overlap=serial", yaml);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 64);
  f = fopen(yaml, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, base, "verify.overlap");
  fclose(f);
  snprintf(args, sizeof args, "sweep '%s' --check", yaml);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "case 2 sets verify.overlap, which the part sweeps"));
}

/* Issue 33: runs of one study with the same resolved settings and seed are simulated once and
 * recorded under each (their own part, point and run id), bit for bit what simulating each
 * gives; runs that differ (another budget) are not shared; two cases that resolve alike stay
 * two rows; --jobs 1 and 2 record the same values. */
static void test_reuse(void)
{
  char db1[128], db2[128], yaml[128], out[16384], v[256], args[512];
  snprintf(db1, sizeof db1, "%s/reuse1.db", g_dir);
  snprintf(db2, sizeof db2, "%s/reuse2.db", g_dir);
  snprintf(yaml, sizeof yaml, "%s/reuse.yaml", g_dir);
  FILE *f = fopen(yaml, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  /* part b repeats part a; part c's second case is the first on the Honor 500 Pro, whose
   * profile has the matrix path already */
  fprintf(f, "name: reuse\nseed: 5\nsettings:\n  workload.prompts: 2\n  workload.max_tokens: 16\nparts:\n"
             "  - name: a\n    devices: [oneplus-12]\n    models: [qwen3-4b]\n    datasets: [gsm8k]\n"
             "    systems: [ar-flash, lever]\n    sweep:\n      draft.budget: [4, 8]\n"
             "  - name: b\n    devices: [oneplus-12]\n    models: [qwen3-4b]\n    datasets: [gsm8k]\n"
             "    systems: [ar-flash, lever]\n    sweep:\n      draft.budget: [4, 8]\n"
             "  - name: c\n    devices: [honor-500-pro]\n    models: [qwen3-4b]\n    datasets: [gsm8k]\n"
             "    systems: [lever]\n    cases:\n      - {}\n      - {device.npu.matrix_path: \"true\"}\n");
  fclose(f);
  snprintf(args, sizeof args, "sweep '%s' --db '%s' --jobs 2", yaml, db2);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "runs have the same resolved settings and seed as another run"));
  query(db2, "SELECT count(*) || ' ' || count(DISTINCT run_id) || ' ' || count(DISTINCT config_json) FROM runs", v,
        sizeof v);
  /* 10 rows: a's 4, b's 4 (copies of a's 4 simulations), c's 2 (one configuration: the
   * Honor 500 Pro's profile has the matrix path already) */
  CU_ASSERT_STRING_EQUAL(v, "10 10 5");
  query(db2, "SELECT count(*) FROM runs WHERE part = 'c'", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2");
  /* a copy is its source's every metric, and another budget is another simulation */
  query(db2, "SELECT count(*) FROM runs x JOIN runs y ON x.config_json = y.config_json AND x.run_id < y.run_id"
             " JOIN metrics mx ON mx.run_id = x.run_id LEFT JOIN metrics my ON my.run_id = y.run_id AND"
             " my.name = mx.name WHERE my.value IS NOT mx.value", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "0");
  query(db2, "SELECT count(DISTINCT m.value) FROM runs r JOIN metrics m ON m.run_id = r.run_id WHERE r.part = 'a'"
             " AND r.system = 'lever' AND m.name = 'throughput_tps'", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2");
  /* one job simulating every run gives the same values */
  snprintf(args, sizeof args, "sweep '%s' --db '%s' --jobs 1", yaml, db1);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  char sql[1024];
  snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM runs) || ' ' || (SELECT count(*) FROM runs r JOIN metrics m"
           " ON m.run_id = r.run_id JOIN o.runs q ON q.run_id = r.run_id JOIN o.metrics n ON n.run_id = q.run_id"
           " AND n.name = m.name WHERE n.value IS NOT m.value OR q.axes_json != r.axes_json)");
  sqlite3 *h = NULL;
  CU_ASSERT_EQUAL_FATAL(sqlite3_open(db1, &h), SQLITE_OK);
  char attach[256];
  snprintf(attach, sizeof attach, "ATTACH '%s' AS o", db2);
  CU_ASSERT_EQUAL(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
  sqlite3_stmt *st = NULL;
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
  CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "10 0");
  sqlite3_finalize(st);
  sqlite3_close(h);
}

/* query() on db with db2 attached as o. */
static void query2(const char *db, const char *db2, const char *sql, char *out, size_t size)
{
  sqlite3 *h = NULL;
  sqlite3_stmt *st = NULL;
  char attach[256];
  out[0] = '\0';
  snprintf(attach, sizeof attach, "ATTACH '%s' AS o", db2);
  CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_exec(h, attach, NULL, NULL, NULL), SQLITE_OK);
  CU_ASSERT_EQUAL_FATAL(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  sqlite3_close(h);
}

/* Issue 33: the NPU's padding report (devices/npu.h) on whole runs: AR from flash on the Honor
 * 500 Pro (one-token passes, bound by the weight read) has no call padding decides; Lever on the
 * OnePlus 12 with the matrix path (131.8 against 588.7 GFLOP/s: passes of 8 tokens and more pad)
 * has. ls_noeffect_twin_result takes the first for its twin, with the twin's own settings, and
 * refuses the second. */
static void test_pad_report_runs(void)
{
  ls_decode_result ar, lv, chk, out;
  const char *mat = "device.npu.matrix_path=true;workload.prompts=2;workload.max_tokens=16";
  CU_ASSERT_EQUAL_FATAL(ls_rt_run(ls_data_root(), "honor-500-pro", "qwen3-4b", "gsm8k", "ar-flash", mat, 0, &ar), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_rt_run(ls_data_root(), "oneplus-12", "qwen3-4b", "gsm8k", "lever", mat, 0, &lv), LS_OK);
  CU_ASSERT_EQUAL(ar.npu_reported, 1);
  CU_ASSERT_EQUAL(ar.npu_report.pad_decides, 0);
  CU_ASSERT_EQUAL(lv.npu_reported, 1);
  CU_ASSERT(lv.npu_report.pad_decides > 0);
  ls_error err;
  ls_kv *kv = NULL;
  ls_experiment *x = NULL;
  ls_decode_cache *c = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "device.npu.matrix_path=true", "test", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "device.npu.pad_small=true", "test", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "workload.prompts=2", "test", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "workload.max_tokens=16", "test", &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_experiment_single(&x, "honor-500-pro", "qwen3-4b", "gsm8k", "ar-flash", kv, 7,
                                             ls_data_root(), &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_decode_cache_create(&c, ls_data_root(), &err), LS_OK);
  CU_ASSERT_EQUAL(ls_noeffect_twin_result(c, ls_experiment_run(x, 0), &ar, &chk, &out), 1);
  int pad = 0;
  for (int i = 0; i < out.n_settings; i++)
    pad += !strcmp(out.settings[i].key, "device.npu.pad_small") && !strcmp(out.settings[i].value, "true");
  CU_ASSERT_EQUAL(pad, 1); /* the twin's own settings */
  CU_ASSERT_PTR_EQUAL(out.prompts, ar.prompts); /* the lead's results */
  ls_decode_result_free(&chk);
  CU_ASSERT_EQUAL(ls_noeffect_twin_result(c, ls_experiment_run(x, 0), &lv, &chk, &out), 0);
  ar.npu_reported = 0; /* a run without a report proves nothing */
  CU_ASSERT_EQUAL(ls_noeffect_twin_result(c, ls_experiment_run(x, 0), &ar, &chk, &out), 0);
  ls_decode_cache_free(c);
  ls_experiment_free(x);
  ls_kv_free(kv);
  ls_decode_result_free(&ar);
  ls_decode_result_free(&lv);
}

/* Issue 33: a padding twin (a run with device.npu.pad_small true whose configuration is another
 * run's with it false) is recorded as that run's simulation when the NPU reports that padding
 * decided no call, and simulated otherwise; either way every per-prompt value and metric equals
 * the twin simulated in a study of its own, where it has no lead. The study holds both kinds:
 * AR from flash and SpecInfer on the Honor 500 Pro (reused), Lever on the OnePlus 12 (padding
 * moves its times, so simulated). */
/* Writes text to yaml and sweeps it into db with jobs workers; the exit status. */
static int sweep_text(const char *yaml, const char *text, const char *db, int jobs)
{
  char args[512], out[16384];
  FILE *f = fopen(yaml, "w");
  if (!f)
    return -1;
  fputs(text, f);
  fclose(f);
  snprintf(args, sizeof args, "sweep '%s' --db '%s' --jobs %d", yaml, db, jobs);
  return ls_test_cli(args, out, sizeof out);
}

static void test_pad_twins(void)
{
  char db1[128], db2[128], yaml[128], v[256], text[1024];
  snprintf(db1, sizeof db1, "%s/twins1.db", g_dir);
  snprintf(db2, sizeof db2, "%s/twins2.db", g_dir);
  snprintf(yaml, sizeof yaml, "%s/twins.yaml", g_dir);
  const char *study = "name: twins\nseed: 5\nsettings:\n  workload.prompts: 5\n  workload.max_tokens: 16\nparts:\n"
                      "  - name: p\n    devices: [honor-500-pro, oneplus-12]\n    models: [qwen3-4b]\n"
                      "    datasets: [gsm8k]\n    systems: [ar-flash, specinfer, lever]\n    cases:\n%s"
                      "      - {device.npu.matrix_path: \"true\", device.npu.pad_small: \"true\"}\n";
  snprintf(text, sizeof text, study, "      - {device.npu.matrix_path: \"true\"}\n");
  CU_ASSERT_EQUAL(sweep_text(yaml, text, db1, 2), 0);
  snprintf(text, sizeof text, study, ""); /* the twins alone: each simulated */
  CU_ASSERT_EQUAL(sweep_text(yaml, text, db2, 1), 0);
  /* six twins, each matched by its resolved configuration */
  char sql[2048];
  query2(db1, db2, "SELECT count(*) FROM runs r JOIN o.runs q ON q.config_json = r.config_json AND q.run_id ="
                   " r.run_id WHERE r.axes_json LIKE '%pad_small%'", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "6");
  /* every per-prompt value and every metric of each twin equal, bit for bit */
  snprintf(sql, sizeof sql, "SELECT (SELECT count(*) FROM runs r JOIN o.runs q ON q.run_id = r.run_id"
           " JOIN prompts p ON p.run_id = r.run_id LEFT JOIN o.prompts s ON s.run_id = q.run_id AND s.prompt ="
           " p.prompt AND s.tokens IS p.tokens AND s.cycles IS p.cycles AND s.decode_s IS p.decode_s AND s.ttft_s IS"
           " p.ttft_s AND s.draft_s IS p.draft_s AND s.verify_s IS p.verify_s AND s.npu_busy_s IS p.npu_busy_s AND"
           " s.energy_j IS p.energy_j AND s.io_wait_s IS p.io_wait_s WHERE s.prompt IS NULL) || ' ' || (SELECT"
           " count(*) FROM runs r JOIN o.runs q ON q.run_id = r.run_id JOIN metrics m ON m.run_id = r.run_id LEFT"
           " JOIN o.metrics n ON n.run_id = q.run_id AND n.name = m.name WHERE n.value IS NOT m.value)");
  query2(db1, db2, sql, v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "0 0");
  /* and padding moved Lever's times on the OnePlus 12: its twin is not its lead's copy */
  query(db1, "SELECT count(DISTINCT m.value) FROM runs r JOIN metrics m ON m.run_id = r.run_id WHERE r.system ="
             " 'lever' AND r.device = 'oneplus-12' AND r.axes_json LIKE '%matrix_path%' AND m.name = 'throughput_tps'",
        v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "2");
}

/* Issue 33: verify.head_memory=auto is the placement it resolves to (in flash for an NPU head,
 * in DRAM for Lever's on-demand CPU head), so setting that placement is the same run, and the
 * other placement is another run. */
static void test_head_memory_identity(void)
{
  char db[128], out[16384], v[64];
  snprintf(db, sizeof db, "%s/head.db", g_dir);
  CU_ASSERT_EQUAL_FATAL(leversim(out, sizeof out, "run " CELL " --system specinfer " SMALL " --db '%s' %s", db, ""), 0);
  /* the identity names the placement: SpecInfer's eager NPU head streams from flash */
  query(db, "SELECT json_extract(config_json, '$.settings.\"verify.head_memory\"') FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "flash");
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system specinfer " SMALL " --db '%s' %s", db,
                           "--set verify.head_memory=flash"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system specinfer " SMALL " --db '%s' %s", db,
                           "--set verify.head_memory=dram"), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "already holds this run"));
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db, ""), 0);
  CU_ASSERT_EQUAL(leversim(out, sizeof out, "run " CELL " --system lever " SMALL " --db '%s' %s", db,
                           "--set verify.head_memory=dram"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "already holds this run"));
  query(db, "SELECT count(*) FROM runs", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "3");
  /* the run's own settings still say what was given or defaulted */
  query(db, "SELECT group_concat(value_text, ',') FROM (SELECT value_text FROM run_settings"
            " WHERE key = 'verify.head_memory' ORDER BY value_text)", v, sizeof v);
  CU_ASSERT_STRING_EQUAL(v, "auto,auto,dram");
}

/* Issue 21.4: results/ names no system, part or axis of the paper's study in its SQL (only
 * comments may): the views compare what table roles says. */
static void test_results_policy_agnostic(void)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "cd '%s/..' && grep -nE \"'(lever|ar-flash|ar-mem|specinfer|sequoia|eagle2|main|budget|"
           "regime|oneplus-12)'|draft\\.budget|policy\\.map|map\\.lmhead\" results/*.c | grep -vE '^[^:]+:[0-9]+: *(/?\\*)'",
           LS_TEST_DIR);
  CU_ASSERT_NOT_EQUAL(system(cmd), 0); /* grep finds nothing */
}

/* `--set model.draft=<the target>` is a bad value typed on the command line: 64, not 65. */
static void test_typed_bad_value_is_usage(void)
{
  char out[4096];
  CU_ASSERT_EQUAL(ls_test_cli("run " CELL " --system lever --set model.draft=llama-3.1-8b", out, sizeof out), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "a target cannot draft for itself"));
}

/* Runs the binary in folder dir (a shell command line after the binary); output into out. */
static int leversim_in(const char *dir, const char *args, char *out, size_t size)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s 2>&1", dir, LS_BINARY, args);
  FILE *p = popen(cmd, "r");
  if (!p)
    return -1;
  size_t n = fread(out, 1, size - 1, p);
  out[n] = '\0';
  char sink[4096];
  while (fread(sink, 1, sizeof sink, p) > 0) {
  }
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int file_is(const char *path, const char *text)
{
  char buf[64] = "";
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return strcmp(buf, text) == 0;
}

/* Issue 18.4: a trial-size replay (--prompts/--tokens) in a copy of the results layout leaves
 * the committed database and figures alone and writes results/trial-p2-t16/; resumed, it
 * says how many runs were already done. */
static void test_trial_replay_keeps_results(void)
{
  char dir[160], path[256], out[1 << 15];
  snprintf(dir, sizeof dir, "%s/repo", g_dir);
  snprintf(path, sizeof path, "mkdir -p '%s/results/figures' && printf committed > '%s/results/leversim.db'"
           " && printf committed > '%s/results/figures/fig10.png'", dir, dir, dir);
  CU_ASSERT_EQUAL_FATAL(system(path), 0);
  CU_ASSERT_EQUAL(leversim_in(dir, "reproduce --quick --prompts 2 --tokens 16 --jobs 2", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "-> results/trial-p2-t16/leversim.db"));
  snprintf(path, sizeof path, "%s/results/leversim.db", dir);
  CU_ASSERT(file_is(path, "committed"));
  snprintf(path, sizeof path, "%s/results/figures/fig10.png", dir);
  CU_ASSERT(file_is(path, "committed"));
  snprintf(path, sizeof path, "%s/results/trial-p2-t16/leversim.db", dir);
  CU_ASSERT_EQUAL(access(path, F_OK), 0);
  snprintf(path, sizeof path, "%s/results/trial-p2-t16/figures/claims.md", dir);
  CU_ASSERT_EQUAL(access(path, F_OK), 0);
  /* nothing else appeared beside the committed files */
  snprintf(path, sizeof path, "cd '%s/results' && test \"$(ls | tr '\\n' ' ')\" = 'figures leversim.db trial-p2-t16 '"
           " && test \"$(ls figures)\" = fig10.png", dir);
  CU_ASSERT_EQUAL(system(path), 0);
  CU_ASSERT_EQUAL(leversim_in(dir, "reproduce --quick --prompts 2 --tokens 16 --resume --no-figures", out, sizeof out), 0);
  char *line = strstr(out, "leversim reproduce: ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(line);
  int total = 0, skipped = -1;
  CU_ASSERT_PTR_NOT_NULL_FATAL(strstr(line, "already done before this resume"));
  sscanf(line, "leversim reproduce: %d runs", &total);
  const char *k = strstr(line, "failed, ");
  CU_ASSERT_PTR_NOT_NULL_FATAL(k);
  sscanf(k, "failed, %d already done", &skipped);
  CU_ASSERT(total > 100);
  CU_ASSERT_EQUAL(skipped, total);
}

/* docs/EXPERIMENTS.md: every ```yaml example is a valid experiment (`sweep --check`), and
 * every key the loader reads is documented as `key`. */
static void test_experiments_doc(void)
{
  char path[512], out[8192], cmd[1024];
  snprintf(path, sizeof path, "%s/../docs/EXPERIMENTS.md", LS_TEST_DIR);
  FILE *f = fopen(path, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  static char doc[1 << 16];
  size_t n = fread(doc, 1, sizeof doc - 1, f);
  doc[n] = '\0';
  fclose(f);
  int examples = 0;
  for (const char *p = strstr(doc, "\n```yaml\n"); p; p = strstr(p, "\n```yaml\n")) {
    p += 9;
    const char *end = strstr(p, "\n```\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    char file[256];
    snprintf(file, sizeof file, "%s/example%d.yaml", g_dir, ++examples);
    FILE *y = fopen(file, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    fwrite(p, 1, (size_t)(end - p) + 1, y);
    fclose(y);
    snprintf(cmd, sizeof cmd, "sweep '%s' --check", file);
    int rc = ls_test_cli(cmd, out, sizeof out);
    if (rc != 0) fprintf(stderr, "docs/EXPERIMENTS.md example %d: %s\n", examples, out);
    CU_ASSERT_EQUAL(rc, 0);
    p = end;
  }
  CU_ASSERT(examples >= 4);
  snprintf(cmd, sizeof cmd, "cd '%s/..' && grep -oE '(ls_ymap_find|ls_ymap_require|ls_yopt_[a-z]+|"
           "ls_yreq_[a-z]+|read_names)\\([^\"]*\"[a-z_]+\"' runner/study/experiment.c | grep -oE "
           "'\"[a-z_]+\"' | tr -d '\"' | sort -u", LS_TEST_DIR);
  FILE *p = popen(cmd, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  char key[64];
  int keys = 0;
  while (fgets(key, sizeof key, p)) {
    key[strcspn(key, "\n")] = '\0';
    char quoted[80];
    snprintf(quoted, sizeof quoted, "`%s`", key);
    if (!strstr(doc, quoted)) fprintf(stderr, "docs/EXPERIMENTS.md does not document `%s`\n", key);
    CU_ASSERT_PTR_NOT_NULL(strstr(doc, quoted));
    keys++;
  }
  pclose(p);
  CU_ASSERT(keys >= 12);
}

/* `profiles list` with a long id and a long phone name: every column still starts at one
 * offset (issue 18.6). */
static void test_profiles_list_aligned(void)
{
  char cmd[1024], out[8192];
  snprintf(cmd, sizeof cmd, "cp -r '%s/runner/data' '%s/data' && cd '%s/data/devices/profiles' && "
           "sed -e 's/^id: tiny/id: a-profile-with-a-rather-long-identifier/' "
           "-e 's/^name: Tiny test phone/name: A phone with a name longer than the column/' tiny.yaml "
           "> a-profile-with-a-rather-long-identifier.yaml", LS_TEST_DIR, g_dir, g_dir);
  CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "LEVERSIM_DATA='%s/data' '%s' profiles list", g_dir, LS_BINARY);
  FILE *p = popen(cmd, "r");
  CU_ASSERT_PTR_NOT_NULL_FATAL(p);
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = '\0';
  CU_ASSERT_EQUAL(pclose(p), 0);
  int lines = 0, soc = -1;
  for (char *line = out; *line; lines++) {
    char *end = strchr(line, '\n');
    CU_ASSERT_PTR_NOT_NULL_FATAL(end);
    *end = '\0';
    const char *at = lines == 0 ? strstr(line, "soc") : strstr(line, "Snapdragon");
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    if (soc < 0) soc = (int)(at - line);
    CU_ASSERT_EQUAL((int)(at - line), soc);
    line = end + 1;
  }
  CU_ASSERT_EQUAL(lines, 3);
}

static int init(void)
{
  snprintf(g_dir, sizeof g_dir, "/tmp/leversim-studies-XXXXXX");
  unsetenv("LEVERSIM_DATA");
  return mkdtemp(g_dir) ? 0 : -1;
}

static int clean(void)
{
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : -1;
}

CU_TestInfo ls_rt_studies[] = {
    {"a --set loop into one database: six runs, a repeat is a no-op", test_budget_loop},
    {"a run is its resolved settings: explicit defaults, profile by path", test_resolved_identity},
    {"sweep --axis without a file; its points are run's runs", test_sweep_axes_without_file},
    {"a --set variant beside the plain one", test_sweep_set_beside_variant},
    {"plot: csv, filters, groups, refusals, PNG", test_plot},
    {"a bad --set value exits 64", test_typed_bad_value_is_usage},
    {"results/ names no system, part or axis in its SQL", test_results_policy_agnostic},
    {"cases: one point each, recorded as axes; clashes refused", test_cases},
    {"runs with the same resolved settings are simulated once, recorded under each", test_reuse},
    {"the NPU's padding report on whole runs; a twin's record", test_pad_report_runs},
    {"a padding twin is its lead's run only when padding decided nothing", test_pad_twins},
    {"verify.head_memory=auto is the placement it resolves to", test_head_memory_identity},
    {"profiles list stays aligned with a long id and name", test_profiles_list_aligned},
    {"every example of docs/EXPERIMENTS.md loads; every key is documented", test_experiments_doc},
    {"a trial replay keeps the committed results; resumed, it counts", test_trial_replay_keeps_results},
    CU_TEST_INFO_NULL};
CU_SuiteInfo ls_rt_studies_suite = {"studies", init, clean, NULL, NULL, ls_rt_studies};
