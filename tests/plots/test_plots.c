/* tests/plots: the CUnit runner for `leversim figures` (runner/cli/cmd_figures.c, plots/figNN.gp)
 * and the Fig. 4 curve (runner/report/curve.c). Suites (tests/plots/SUITES):
 *   curve    closed-form properties of the verification curve, NPU vs GPU
 *   figures  a synthetic database with every part: every PNG (1200x800), SVG, CSV header,
 *            Table 1 and summary Markdown with the fixture's numbers
 *   partial  main part only: the study figures are skipped with a note, the rest drawn
 *   errors   missing/empty database, usage errors, gnuplot missing or failing
 *   verdicts each claim's verdict on a holding and a failing CSV (test_verdicts.c)
 *   errorbars Figs. 10 and 11 with and without interval columns (test_verdicts.c)
 *   tree     `leversim tree` draws the tree (test_verdicts.c)
 * Set PX_KEEP=1 to keep the output folder for a look at the figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fixture.h"
#include "ls_test.h"
#include "runner/report/curve.h"
#include "verdicts.h"

static char g_dir[256];
static char g_out[64 * 1024];

static int suite_init(void) { return px_tmpdir(g_dir, sizeof g_dir) ? 0 : 1; }
static int suite_clean(void)
{
  const char *keep = getenv("PX_KEEP");
  if (keep && keep[0] == '1') fprintf(stderr, "\nkept %s\n", g_dir);
  else px_rmdir(g_dir);
  unsetenv("LEVERSIM_GNUPLOT");
  return 0;
}

static const char *in_dir(char *buf, size_t size, const char *name)
{
  snprintf(buf, size, "%s/%s", g_dir, name);
  return buf;
}

/* Runs `leversim figures` with db (NULL: no --db) into out folder; returns the exit status. */
static int figures(const char *db, const char *out, const char *names)
{
  char args[2048];
  snprintf(args, sizeof args, "figures %s%s%s --out '%s' %s", db ? "--db '" : "", db ? db : "",
           db ? "'" : "", out, names ? names : "");
  return ls_test_cli(args, g_out, sizeof g_out);
}

static int exists(const char *dir, const char *name)
{
  char p[1024];
  snprintf(p, sizeof p, "%s/%s", dir, name);
  return access(p, F_OK) == 0;
}

static int count_lines(const char *s)
{
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

/* ---- curve ---- */
static void test_curve_npu_vs_gpu(void)
{
  int toks[] = {1, 2, 4, 8, 16, 32, 64};
  ls_curve_point npu[7], gpu[7];
  ls_curve_info info;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_curve_compute(LS_TEST_DIR "/..", "oneplus-12", "llama-3.1-8b", NULL,
                                         toks, 7, 256, npu, &info, &err), LS_OK);
  CU_ASSERT_STRING_EQUAL(info.device, "oneplus-12");
  CU_ASSERT_EQUAL(info.is_gpu, 0);
  CU_ASSERT_EQUAL_FATAL(ls_curve_compute(LS_TEST_DIR "/..", "rtx-3090", "llama-3.1-8b", NULL,
                                         toks, 7, 256, gpu, &info, &err), LS_OK);
  CU_ASSERT_EQUAL(info.is_gpu, 1);
  for (int i = 0; i < 7; i++) {
    /* definitions: relative = t/t(1), speedup = n t(1)/t = n / relative */
    LS_ASSERT_CLOSE(npu[i].speedup, toks[i] / npu[i].relative, 1e-12);
    LS_ASSERT_CLOSE(gpu[i].speedup, toks[i] / gpu[i].relative, 1e-12);
    CU_ASSERT(npu[i].padded >= toks[i]);
    /* more tokens never faster on the same kernel path (q4_0-dynamic: vector below 32 tokens,
     * tiled matrix from 32 on, where a pass may be cheaper than a long vector one) */
    if (i && (toks[i] < 32) == (toks[i - 1] < 32))
      CU_ASSERT(npu[i].latency_ms > npu[i - 1].latency_ms);
    if (i) CU_ASSERT(gpu[i].latency_ms >= gpu[i - 1].latency_ms);
  }
  CU_ASSERT_DOUBLE_EQUAL(npu[0].relative, 1.0, 1e-12);
  /* src:lever-paper, Fig. 4: NPU latency grows with tokens, the GPU's stays nearly flat */
  CU_ASSERT(npu[6].relative > 4.0); /* Q4_0 on the NPU: steep (src:llamacpp-snapdragon 39x at 128) */
  CU_ASSERT(gpu[6].relative < 1.3);
  CU_ASSERT(gpu[6].speedup > npu[6].speedup);
}

static void test_curve_errors(void)
{
  int toks[] = {1, 0};
  ls_curve_point p[2];
  ls_error err;
  CU_ASSERT_EQUAL(ls_curve_compute(LS_TEST_DIR "/..", "no-such-phone", "llama-3.1-8b", NULL, toks,
                                   1, 256, p, NULL, &err), LS_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no-such-phone"));
  CU_ASSERT_EQUAL(ls_curve_compute(LS_TEST_DIR "/..", "oneplus-12", "llama-3.1-8b", NULL, toks,
                                   2, 256, p, NULL, &err), LS_EUSAGE);
  CU_ASSERT_EQUAL(ls_curve_compute(LS_TEST_DIR "/..", "oneplus-12", "llama-3.1-8b", NULL, toks,
                                   0, 256, p, NULL, &err), LS_EUSAGE);
}

/* ---- figures on a full database ---- */
static const char *const png_figs[] = {"fig04", "fig05", "fig10", "fig11", "fig12", "fig13",
                                       "fig14", "energy", "sensitivity", NULL};
/* Expected CSV header columns of each file (a subset, comma-separated). */
static const char *const csv_cols[][2] = {
    {"fig04", "device,processor,kind,regime,own,model,tokens,padded,latency_ms,relative,speedup"},
    {"fig05", "device,model,dataset,system,budget,throughput_tps,tau,verify_s_mean"},
    {"fig10", "device,model,dataset,system,throughput_tps,vs_lever,vs_ar_flash"},
    {"fig11", "system,throughput_tps,tau,tps_vs_specinfer,tau_vs_specinfer"},
    {"fig12", "system,wasted_verify,verify_tokens_mean,tps_vs_no_prune"},
    {"fig13", "model,dataset,map,draft_s_mean"},
    {"fig14", "model,dataset,lmhead,lmhead_s_mean,share_lmhead"},
    {"energy", "device,system,energy_per_token_j"},
    {"sensitivity", "bandwidth_gbps,system,throughput_tps,lever_speedup"},
    {"table1", "part,model,datasets,io_share"},
    {"table1_vs_paper", "model,paper_io_share,io_share,io_share_min,io_share_max"},
    {"summary", "system,configs,speedup_mean,speedup_geomean"},
    {NULL, NULL}};

static void check_header(const char *dir, const char *stem, const char *cols)
{
  char p[1024], want[512];
  snprintf(p, sizeof p, "%s/%s.csv", dir, stem);
  char *text = px_read(p, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  text[strcspn(text, "\r\n")] = '\0';
  snprintf(want, sizeof want, "%s", cols);
  for (char *c = strtok(want, ","); c; c = strtok(NULL, ",")) {
    char pat[96];
    snprintf(pat, sizeof pat, ",%s,", c);
    char hdr[2048];
    snprintf(hdr, sizeof hdr, ",%s,", text);
    if (!strstr(hdr, pat)) fprintf(stderr, "\n%s.csv lacks column %s\n", stem, c);
    CU_ASSERT_PTR_NOT_NULL(strstr(hdr, pat));
  }
  free(text);
}

static void test_all_figures(void)
{
  char db[512], out[512], p[1024];
  CU_ASSERT_EQUAL_FATAL(px_make_db(in_dir(db, sizeof db, "all.db"), PX_MAIN | PX_STUDIES), LS_OK);
  in_dir(out, sizeof out, "all");
  int st = figures(db, out, NULL);
  if (st != 0) fprintf(stderr, "\n%s\n", g_out);
  CU_ASSERT_EQUAL_FATAL(st, 0);
  CU_ASSERT_PTR_NULL(strstr(g_out, "skipped"));
  for (int i = 0; png_figs[i]; i++) {
    unsigned w = 0, h = 0;
    size_t bytes = 0;
    snprintf(p, sizeof p, "%s/%s.png", out, png_figs[i]);
    CU_ASSERT(px_png_size(p, &w, &h, &bytes));
    CU_ASSERT_EQUAL(w, 1200);
    CU_ASSERT_EQUAL(h, 800);
    CU_ASSERT(bytes > 20000); /* a drawn figure, not a blank canvas (~6 kB) */
    snprintf(p, sizeof p, "%s/%s.svg", out, png_figs[i]);
    char *svg = px_read(p, NULL);
    CU_ASSERT(svg && strstr(svg, "<svg") && strstr(svg, "</svg>"));
    free(svg);
    snprintf(p, sizeof p, "%s.log", png_figs[i]);
    CU_ASSERT_FALSE(exists(out, p)); /* clean gnuplot runs leave no log */
  }
  for (int i = 0; csv_cols[i][0]; i++) check_header(out, csv_cols[i][0], csv_cols[i][1]);
  CU_ASSERT(exists(out, "table1.md") && exists(out, "summary.md"));
  /* claims.md: a row per judged figure; the fixture's pruning rows waste as much as no
   * pruning (wasted_verify 0.2 for both: tau 4.1 and 4.4 > 3), so Fig. 12's claim fails;
   * its gain is the mean of px_ratio(8, k) = 1.15 + 0.02 (k % 5 - 2) over k < 48:
   * 1.15 + 0.02 (93 / 48 - 2) = 1.14875 */
  snprintf(p, sizeof p, "%s/claims.md", out);
  char *md = px_read(p, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(md);
  static const char *const rows[] = {"| fig04 |", "| fig05 |", "| fig10 |", "| fig11 |", "| fig12 |",
                                     "| fig13 |", "| fig14 |", "| table1 |", "| energy |", NULL};
  for (int i = 0; rows[i]; i++) CU_ASSERT_PTR_NOT_NULL(strstr(md, rows[i]));
  CU_ASSERT_PTR_NOT_NULL(strstr(md, "**does NOT hold**: +14.9 % throughput, wasted compute 20.0 %→20.0 % "
                                    "(pruning does not cut the waste)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "fig12.png, .svg  [paper's claim does NOT hold]"));
  /* redrawing one figure (or the regime map, which judges five claims) keeps every other
   * figure's row: claims.md is byte for byte what the whole run wrote */
  CU_ASSERT_EQUAL(figures(db, out, "fig05"), 0);
  CU_ASSERT_EQUAL(figures(db, out, "regime"), 0);
  char *again = px_read(p, NULL);
  CU_ASSERT(again && !strcmp(again, md));
  free(again);
  free(md);
  /* the verdict is on the figure's face: its text is in the SVG */
  snprintf(p, sizeof p, "%s/fig12.svg", out);
  md = px_read(p, NULL);
  CU_ASSERT(md && strstr(md, "does NOT hold") && strstr(md, "pruning raises throughput"));
  free(md);
}

/* The regime map's default column is the figures' own verdicts (issue 18.5): for every claim
 * on the map, its default cell holds exactly when claims.md says the figure's claim holds;
 * every other column judges the same claim on the fixture's two cases. */
static void test_regime_default_is_figures(void)
{
  char out[512], p[1024];
  in_dir(out, sizeof out, "all");
  snprintf(p, sizeof p, "%s/regime_map.csv", out);
  char *map = px_read(p, NULL);
  snprintf(p, sizeof p, "%s/claims.md", out);
  char *md = px_read(p, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(map);
  CU_ASSERT_PTR_NOT_NULL_FATAL(md);
  int defaults = 0, others = 0;
  for (char *line = strchr(map, '\n') + 1; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    int row, col;
    char fig[16];
    CU_ASSERT_EQUAL_FATAL(sscanf(line, "%d,%d,%15[^,]", &row, &col, fig), 3);
    char *end = strchr(line, '\n');
    char *last = end;
    while (last > line && last[-1] != ',') last--;
    int holds = atoi(last);
    if (col > 0) {
      others++;
      continue;
    }
    defaults++;
    char key[32];
    snprintf(key, sizeof key, "| %s |", fig);
    const char *r = strstr(md, key);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const char *eol = strchr(r, '\n');
    const char *h = strstr(r, "**holds**"), *n = strstr(r, "**does NOT hold**");
    int md_holds = h && h < eol ? 1 : n && n < eol ? 0 : -1;
    if (md_holds != holds) fprintf(stderr, "regime map %s: default cell %d, claims.md %d\n", fig, holds, md_holds);
    CU_ASSERT_EQUAL(holds, md_holds);
  }
  CU_ASSERT_EQUAL(defaults, 5); /* Figs. 10, 12, 13, 14 and Table 1 */
  CU_ASSERT_EQUAL(others, 10);  /* two cases each */
  free(map);
  free(md);
}

/* table1_vs_paper.csv: the simulated share is the fixture's mean over the four datasets. */
static void test_table1_numbers(void)
{
  char out[512], p[1024];
  in_dir(out, sizeof out, "all");
  snprintf(p, sizeof p, "%s/table1_vs_paper.csv", out);
  char *text = px_read(p, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  int rows = 0;
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    char model[64];
    double paper = -1, sim = -1;
    if (!strncmp(line, "model,", 6)) continue;
    int m = -1;
    if (sscanf(line, "%63[^,],", model) != 1) continue;
    for (int k = 0; k < 4; k++)
      if (!strcmp(model, px_models[k])) m = k;
    CU_ASSERT_FATAL(m >= 0);
    const char *c = strchr(line, ',') + 1;
    if (*c != ',') paper = strtod(c, NULL);
    sim = strtod(strchr(c, ',') + 1, NULL);
    double want = 0;
    for (int s = 0; s < 4; s++) want += px_io_share(m, s) / 4;
    LS_ASSERT_CLOSE(sim, want, 1e-9);
    if (m == 0) CU_ASSERT_DOUBLE_EQUAL(paper, 0.914, 1e-9);
    if (m == 2) CU_ASSERT_EQUAL(paper, -1); /* not given by the paper */
    rows++;
  }
  CU_ASSERT_EQUAL(rows, 4);
  free(text);
  snprintf(p, sizeof p, "%s/table1.md", out);
  text = px_read(p, NULL);
  CU_ASSERT(text && strstr(text, "| llama-3.1-8b | 91.4 % |") && strstr(text, "not given"));
  free(text);
}

/* summary.md: Lever vs ar-flash is the mean of the fixture's ratios over the 48 configs. */
static void test_summary_numbers(void)
{
  char out[512], p[1024], want[128];
  in_dir(out, sizeof out, "all");
  snprintf(p, sizeof p, "%s/summary.md", out);
  char *text = px_read(p, NULL);
  CU_ASSERT_PTR_NOT_NULL_FATAL(text);
  double mean = 0, logs = 0;
  for (int k = 0; k < 48; k++) {
    mean += px_ratio(1, k) / 48;
    logs += log(px_ratio(1, k)) / 48;
  }
  snprintf(want, sizeof want, "| ar-flash | 48 | 2.93× | %.2f× | %.2f× |", mean, exp(logs));
  if (!strstr(text, want)) fprintf(stderr, "\nwant '%s' in\n%s\n", want, text);
  CU_ASSERT_PTR_NOT_NULL(strstr(text, want));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, "| specinfer | 48 | 1.50× |"));
  free(text);
}

/* ---- main part only ---- */
static void test_partial(void)
{
  char db[512], out[512];
  CU_ASSERT_EQUAL_FATAL(px_make_db(in_dir(db, sizeof db, "main.db"), PX_MAIN), LS_OK);
  in_dir(out, sizeof out, "main");
  int st = figures(db, out, NULL);
  CU_ASSERT_EQUAL(st, 0);
  static const char *const skipped[] = {"fig05", "fig13", "fig14", "sensitivity", NULL};
  for (int i = 0; skipped[i]; i++) {
    char note[128], png[64];
    snprintf(note, sizeof note, "%s: skipped, view %s is empty", skipped[i], skipped[i]);
    CU_ASSERT_PTR_NOT_NULL(strstr(g_out, note));
    snprintf(png, sizeof png, "%s.png", skipped[i]);
    CU_ASSERT_FALSE(exists(out, png));
  }
  CU_ASSERT(exists(out, "fig10.png") && exists(out, "fig11.png") && exists(out, "fig12.png"));
  CU_ASSERT_PTR_NULL(strstr(g_out, "gnuplot")); /* no gnuplot message of any kind */
  /* one selected figure only */
  in_dir(out, sizeof out, "one");
  CU_ASSERT_EQUAL(figures(db, out, "fig10"), 0);
  CU_ASSERT(exists(out, "fig10.png") && !exists(out, "fig11.png") && !exists(out, "fig04.csv"));
}

/* ---- errors ---- */
static void test_missing_and_empty_db(void)
{
  char db[512], out[512];
  in_dir(out, sizeof out, "err");
  CU_ASSERT_EQUAL(figures(in_dir(db, sizeof db, "absent.db"), out, NULL), 66);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "absent.db"));
  CU_ASSERT(count_lines(g_out) <= 2);
  CU_ASSERT_EQUAL(access(db, F_OK), -1); /* not created by the attempt */
  CU_ASSERT_EQUAL_FATAL(px_make_db(in_dir(db, sizeof db, "empty.db"), 0), LS_OK);
  CU_ASSERT_EQUAL(figures(db, out, NULL), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "no successful run"));
  CU_ASSERT(count_lines(g_out) <= 2);
  CU_ASSERT_FALSE(exists(out, "fig10.png"));
}

static void test_usage(void)
{
  char out[512];
  in_dir(out, sizeof out, "usage");
  CU_ASSERT_EQUAL(figures(NULL, out, "fig99"), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "fig99"));
  CU_ASSERT_EQUAL(ls_test_cli("figures --db", g_out, sizeof g_out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("figures --bogus", g_out, sizeof g_out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("figures --help", g_out, sizeof g_out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "fig14"));
  /* fig04 needs no database: it comes from the device models */
  CU_ASSERT_EQUAL(figures("/nonexistent/x.db", out, "fig04"), 0);
  CU_ASSERT(exists(out, "fig04.csv") && exists(out, "fig04.png"));
}

static void test_gnuplot_missing_or_failing(void)
{
  char db[512], out[512], p[1024];
  CU_ASSERT_EQUAL_FATAL(px_make_db(in_dir(db, sizeof db, "g.db"), PX_MAIN), LS_OK);
  in_dir(out, sizeof out, "nognuplot");
  setenv("LEVERSIM_GNUPLOT", "/nonexistent/gnuplot", 1);
  CU_ASSERT_EQUAL(figures(db, out, "fig10 table1"), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "gnuplot not found"));
  CU_ASSERT(exists(out, "fig10.csv") && exists(out, "table1.md") && !exists(out, "fig10.png"));
  /* a gnuplot that fails: one line per figure naming the log, exit 70, no dump */
  in_dir(out, sizeof out, "badgnuplot");
  snprintf(p, sizeof p, "%s/fake-gnuplot", g_dir);
  FILE *f = fopen(p, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fprintf(f, "#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9; do echo \"line $i: noise\"; done\n"
             "echo 'line 10: undefined variable: bogus' >&2\nexit 1\n");
  fclose(f);
  chmod(p, 0755);
  setenv("LEVERSIM_GNUPLOT", p, 1);
  CU_ASSERT_EQUAL(figures(db, out, "fig10 fig11"), 70);
  CU_ASSERT_EQUAL(count_lines(g_out), 2);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "undefined variable: bogus"));
  CU_ASSERT_PTR_NOT_NULL(strstr(g_out, "fig10.log"));
  CU_ASSERT(exists(out, "fig10.log"));
  unsetenv("LEVERSIM_GNUPLOT");
}

static CU_TestInfo curve_tests[] = {{"NPU grows, GPU flat", test_curve_npu_vs_gpu},
                                    {"errors", test_curve_errors}, CU_TEST_INFO_NULL};
static CU_TestInfo figures_tests[] = {{"every PNG, SVG and CSV", test_all_figures},
                                      {"the regime map's default column is the figures' verdicts",
                                       test_regime_default_is_figures},
                                      {"Table 1 numbers", test_table1_numbers},
                                      {"summary numbers", test_summary_numbers},
                                      CU_TEST_INFO_NULL};
static CU_TestInfo partial_tests[] = {{"empty views skipped", test_partial}, CU_TEST_INFO_NULL};
static CU_TestInfo errors_tests[] = {{"missing and empty database", test_missing_and_empty_db},
                                     {"usage", test_usage},
                                     {"gnuplot missing or failing", test_gnuplot_missing_or_failing},
                                     CU_TEST_INFO_NULL};

extern CU_TestInfo px_best_tests[];

static CU_SuiteInfo suites[] = {
    {"curve", NULL, NULL, NULL, NULL, curve_tests},
    {"figures", suite_init, suite_clean, NULL, NULL, figures_tests},
    {"partial", suite_init, suite_clean, NULL, NULL, partial_tests},
    {"errors", suite_init, suite_clean, NULL, NULL, errors_tests},
    {"verdicts", NULL, NULL, NULL, NULL, px_verdict_tests},
    {"errorbars", px_eb_init, px_eb_clean, NULL, NULL, px_errorbar_tests},
    {"tree", NULL, NULL, NULL, NULL, px_tree_tests},
    {"best", NULL, NULL, NULL, NULL, px_best_tests},
    CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
