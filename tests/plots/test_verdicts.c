/* tests/plots/test_verdicts: the paper's claims on the figures (runner/report/figures.h): for each
 * claim, a CSV on which it holds and one on which it fails, the numbers in the verdict
 * checked against hand arithmetic; the error bars of Figs. 10 and 11 with and without the
 * interval columns; `leversim tree`'s drawing. Suites: verdicts, errorbars, tree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fixture.h"
#include "ls_test.h"
#include "runner/report/csvtab.h"
#include "runner/report/figures.h"
#include "verdicts.h"

/* The verdict on fig's claim for csv; holds -2 when the call itself failed. */
static ls_verdict judge(const char *fig, const char *csv)
{
  ls_verdict v = {-2, "", 0, 0, 0};
  ls_error err;
  ls_error_clear(&err);
  if (ls_figures_judge(fig, csv, strlen(csv), &v, &err) != LS_OK) v.holds = -2;
  return v;
}

/* Asserts the verdict and that its text has want (a fragment of the hand-computed numbers). */
#define CHECK(v, h, want)                                                                  \
  do {                                                                                     \
    ls_verdict v_ = (v);                                                                   \
    if (v_.holds != (h) || !strstr(v_.text, (want)))                                       \
      fprintf(stderr, "\n%s:%d: holds %d (want %d): '%s' (want '%s')\n", __FILE__, __LINE__, \
              v_.holds, (h), v_.text, (want));                                             \
    CU_ASSERT_EQUAL(v_.holds, (h));                                                        \
    CU_ASSERT_PTR_NOT_NULL(strstr(v_.text, (want)));                                       \
  } while (0)

/* Fig. 4: 64-token pass 8x one token on the NPU (own regime), 1.1x on the GPU; the other
 * regime's flat curve does not count. */
static void test_fig04(void)
{
  const char *head = "kind,own,tokens,relative\nNPU,1,1,1\nGPU,1,1,1\nNPU,0,64,1.5\n";
  char csv[512];
  snprintf(csv, sizeof csv, "%sNPU,1,64,8\nGPU,1,64,1.1\n", head);
  CHECK(judge("fig04", csv), 1, "8.0× one token on the NPU, 1.10× on the GPU");
  snprintf(csv, sizeof csv, "%sNPU,1,64,1.9\nGPU,1,64,1.1\n", head); /* NPU below 2x */
  CHECK(judge("fig04", csv), 0, "1.9× one token on the NPU, 1.10× on the GPU (NPU too flat)");
  snprintf(csv, sizeof csv, "%sNPU,1,64,8\nGPU,1,64,1.3\n", head); /* GPU above 1.25x */
  CHECK(judge("fig04", csv), 0, "(GPU not flat)");
}

/* Fig. 5: SpecInfer's speed peaks at 16 (2.0) and falls to 1.2 at 64: 1 - 1.2/2 = 40 %;
 * Lever's rows (speed at the edge) are not the claim's. */
static void test_fig05(void)
{
  const char *head = "system,dataset,budget,tau,throughput_tps\n"
                     "lever,mt,4,2,1\nlever,mt,64,6,3\n"
                     "specinfer,mt,4,2,1.0\nspecinfer,mt,8,3,1.5\nspecinfer,mt,16,4,2.0\n";
  char csv[512];
  snprintf(csv, sizeof csv, "%sspecinfer,mt,32,5,1.8\nspecinfer,mt,64,6,1.2\n", head);
  CHECK(judge("fig05", csv), 1, "in 1/1 curves; specinfer, mt: τ 2.0→6.0, speed peaks at budget 16 "
                                "then falls 40 % by 64");
  snprintf(csv, sizeof csv, "%sspecinfer,mt,32,5,2.2\nspecinfer,mt,64,6,2.4\n", head);
  CHECK(judge("fig05", csv), 0, "speed peaks at budget 64 (at the edge of 4–64, no fall inside)");
  snprintf(csv, sizeof csv, "%sspecinfer,mt,32,5,1.8\nspecinfer,mt,64,1.5,1.2\n", head);
  CHECK(judge("fig05", csv), 0, "τ 2.0→1.5, speed peaks at budget 16 (τ does not rise)");
}

/* Fig. 10: two configurations; mean of 1/vs_lever per baseline. */
static void fig10_csv(char *csv, size_t size, double ar1, double ar2, double seq2)
{
  snprintf(csv, size,
           "device,model,dataset,system,vs_lever\n"
           "d,m,a,lever,1\nd,m,a,ar-flash,%.17g\nd,m,a,specinfer,%.17g\nd,m,a,sequoia,0.9\n"
           "d,m,a,ar-mem,3\n" /* not a drawn baseline: faster, but not the claim's */
           "d,m,b,lever,1\nd,m,b,ar-flash,%.17g\nd,m,b,specinfer,%.17g\nd,m,b,sequoia,%.17g\n",
           1 / ar1, 1 / 1.5, 1 / ar2, 1 / 1.5, seq2);
}

static void test_fig10(void)
{
  char csv[1024];
  fig10_csv(csv, sizeof csv, 2.9, 2.7, 0.95); /* mean 2.80: 2.80/2.93 - 1 = -4.4 %, inside 5 % */
  CHECK(judge("fig10", csv), 1, "fastest in 2/2 configurations; 2.80× vs AR-flash (paper 2.93×, -4 %); "
                                "1.50× vs SpecInfer (paper 1.50×, +0 %)");
  fig10_csv(csv, sizeof csv, 2.9, 2.5, 0.95); /* mean 2.70: -7.8 % */
  CHECK(judge("fig10", csv), 0, "2.70× vs AR-flash (paper 2.93×, -8 %)");
  CHECK(judge("fig10", csv), 0, "a mean is off by more than 5 %");
  fig10_csv(csv, sizeof csv, 2.93, 2.93, 1.02); /* sequoia ahead in configuration b */
  CHECK(judge("fig10", csv), 0, "fastest in 1/2 configurations (sequoia ahead or level in some)");
}

static void test_fig11(void)
{
  const char *head = "system,tps_vs_specinfer\nspecinfer,1\nlever,1.3\nlever,1.5\n";
  char csv[256];
  snprintf(csv, sizeof csv, "%ssequoia,1.2\n", head);
  CHECK(judge("fig11", csv), 1, "Lever 1.40× SpecInfer on average, next best sequoia 1.20×");
  snprintf(csv, sizeof csv, "%ssequoia,1.45\n", head);
  CHECK(judge("fig11", csv), 0, "sequoia leads at 1.45× SpecInfer on average, Lever 1.40×");
}

static void test_fig12(void)
{
  CHECK(judge("fig12", "system,tps_vs_no_prune,wasted_verify\nlever,1.041,0.12\nlever-no-prune,1,0.23\n"),
        1, "+4.1 % throughput, wasted compute 23.0 %→12.0 %");
  CHECK(judge("fig12", "system,tps_vs_no_prune,wasted_verify\nlever,0.99,0.12\nlever-no-prune,1,0.23\n"),
        0, "-1.0 % throughput, wasted compute 23.0 %→12.0 % (the gain is not above 1 %)");
  CHECK(judge("fig12", "system,tps_vs_no_prune,wasted_verify\nlever,1.05,0.25\nlever-no-prune,1,0.23\n"),
        0, "(pruning does not cut the waste)");
  /* the threshold is "above 1 %" (one definition, figures.c FIG12_MIN_GAIN, used by the regime
   * map too): a gain of 0.8 % does not pay */
  CHECK(judge("fig12", "system,tps_vs_no_prune,wasted_verify\nlever,1.008,0.12\nlever-no-prune,1,0.23\n"),
        0, "+0.8 % throughput, wasted compute 23.0 %→12.0 % (the gain is not above 1 %)");
  /* a loss that rounds to zero prints as +0.0, not -0.0 */
  CHECK(judge("fig12", "system,tps_vs_no_prune,wasted_verify\nlever,0.99996,0.12\nlever-no-prune,1,0.23\n"),
        0, "+0.0 % throughput");
  /* a column the test reads is missing: no verdict, the column named */
  CHECK(judge("fig12", "system,tps_vs_no_prune\nlever,1.05\n"), -1, "lack column wasted_verify");
}

static void test_fig13(void)
{
  const char *head = "map,draft_s_mean,throughput_tps\nlever,0.05,2.0\nnpu,0.12,1.6\nnpu-batch,0.10,1.7\n";
  char csv[256];
  snprintf(csv, sizeof csv, "%scpu,0.08,1.8\n", head);
  /* 2.0/1.8 - 1 = +11.1 %, 2.0/1.6 - 1 = +25.0 % */
  CHECK(judge("fig13", csv), 1, "lever draft 50.0 ms/cycle vs cpu 80.0, npu 120.0; throughput +11.1 % vs "
                                "cpu, +25.0 % vs npu; batch-aware NPU 100.0 ms (in between)");
  snprintf(csv, sizeof csv, "%scpu,0.08,2.1\n", head); /* CPU drafting faster end to end */
  CHECK(judge("fig13", csv), 0, "throughput -4.8 % vs cpu");
}

static void test_fig14(void)
{
  const char *head = "lmhead,lmhead_s_mean,throughput_tps\ndemand-cpu,0.01,2.0\ndemand-npu,0.03,1.95\n";
  char csv[256];
  snprintf(csv, sizeof csv, "%seager-npu,0.05,1.9\n", head);
  CHECK(judge("fig14", csv), 1, "demand-cpu LM head 10.0 ms/cycle vs eager-npu 50.0, demand-npu 30.0");
  snprintf(csv, sizeof csv, "%seager-npu,0.005,1.9\n", head); /* eager NPU head cheaper */
  CHECK(judge("fig14", csv), 0, "(not ahead of each on both)");
}

static void test_table1(void)
{
  /* the dedicated part wins over main; qwen3-8b has no paper value */
  const char *head = "part,model,io_share\nmain,llama-3.1-8b,0.5\ntable1,qwen3-4b,0.80\n"
                     "table1,qwen3-8b,0.1\ntable1,qwen3-14b,0.93\n";
  char csv[256];
  snprintf(csv, sizeof csv, "%stable1,llama-3.1-8b,0.90\n", head);
  CHECK(judge("table1", csv), 1, "3/3 targets within 3 points: qwen3-4b 80.0 % (paper 78.3 %)");
  snprintf(csv, sizeof csv, "%stable1,llama-3.1-8b,0.88\n", head); /* 91.4 - 88.0 = 3.4 points */
  CHECK(judge("table1", csv), 0, "2/3 targets within 3 points");
}

static void test_table_entries(void)
{
  static const char *const figs[] = {"fig04", "fig05", "fig10", "fig11", "fig12", "fig13", "fig14",
                                     "table1", "energy", "sensitivity", NULL};
  for (int i = 0; figs[i]; i++) {
    CU_ASSERT_PTR_NOT_NULL(ls_figures_claim(figs[i]));
    CU_ASSERT_PTR_NOT_NULL(ls_figures_test(figs[i]));
  }
  CU_ASSERT_PTR_NOT_NULL(strstr(ls_figures_claim("fig12"), "pruning raises throughput"));
  CU_ASSERT_PTR_NOT_NULL(strstr(ls_figures_claim("energy"), "beyond the paper"));
  CU_ASSERT_PTR_NULL(ls_figures_claim("fig99"));
  ls_verdict v;
  ls_error err;
  CU_ASSERT_EQUAL(ls_figures_judge("fig99", "a\n1\n", 4, &v, &err), LS_ENOTFOUND);
  CU_ASSERT_EQUAL(ls_figures_judge("fig12", "a,b\n1\n", 6, &v, &err), LS_EPARSE);
  /* beyond the paper: an observation, never a verdict */
  v = judge("energy", "device,system,energy_per_token_j\nd,lever,1\nd,sequoia,2\nd,ar-mem,0.5\n");
  CHECK(v, -1, "least of the flash-offloaded systems on 1/1 devices");
}

/* ---- error bars (Figs. 10 and 11) ---- */
static char g_dir[256];
static int eb_init(void) { return px_tmpdir(g_dir, sizeof g_dir) ? 0 : 1; }
static int eb_clean(void)
{
  px_rmdir(g_dir);
  return 0;
}

/* Runs plots/<fig>.gp on csv (svg into out) with has_ci; returns gnuplot's exit status. */
static int draw(const char *fig, const char *csv, const char *out, int has_ci, const char *cats)
{
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "gnuplot -e \"fmt='svg'; out='%s'; csv='%s'; plotdir='%s/../plots'; has_ci=%d; "
           "has_tau_ci=%d; %s\" '%s/../plots/%s.gp' >/dev/null 2>&1",
           out, csv, LS_TEST_DIR, has_ci, has_ci, cats, LS_TEST_DIR, fig);
  return system(cmd);
}

static int count(const char *path, const char *what)
{
  char *s = px_read(path, NULL);
  int n = 0;
  for (const char *p = s; p && (p = strstr(p, what)); p++) n++;
  free(s);
  return n;
}

/* With the interval columns the whiskers are drawn (more SVG paths); without the flag the
 * same data draw without them; a CSV without the columns draws with the flag off. */
static void errorbars_case(const char *fig, const char *body, const char *cats)
{
  char csv[512], with[512], without[512];
  snprintf(csv, sizeof csv, "%s/%s.csv", g_dir, fig);
  snprintf(with, sizeof with, "%s/%s_ci.svg", g_dir, fig);
  snprintf(without, sizeof without, "%s/%s_noci.svg", g_dir, fig);
  FILE *f = fopen(csv, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  fputs(body, f);
  fclose(f);
  CU_ASSERT_EQUAL(draw(fig, csv, with, 1, cats), 0);
  CU_ASSERT_EQUAL(draw(fig, csv, without, 0, cats), 0);
  int a = count(with, "<path"), b = count(without, "<path");
  if (a <= b) fprintf(stderr, "\n%s: %d paths with intervals, %d without\n", fig, a, b);
  CU_ASSERT(a > b);
}

static void test_errorbars(void)
{
  errorbars_case("fig10",
                 "device,model,dataset,system,throughput_tps,vs_lever,ratio_lo,ratio_hi\n"
                 "oneplus-12,qwen3-8b,gsm8k,lever,2,1,0.9,1.1\n"
                 "oneplus-12,qwen3-8b,gsm8k,specinfer,1.5,0.75,0.6,0.8\n"
                 "oneplus-12,qwen3-8b,mbpp,lever,2,1,0.95,1.05\n"
                 "oneplus-12,qwen3-8b,mbpp,specinfer,1.5,0.75,0.7,0.85\n",
                 "devices='oneplus-12'; models='qwen3-8b'; datasets='mbpp gsm8k'; systems='specinfer lever'");
  errorbars_case("fig11",
                 "device,model,dataset,system,throughput_tps,tau,tps_vs_specinfer,tau_vs_specinfer,"
                 "ratio_lo,ratio_hi,tau_ratio_lo,tau_ratio_hi\n"
                 "oneplus-12,qwen3-8b,gsm8k,lever,2,4,1.3,1.2,1.2,1.4,1.1,1.3\n"
                 "oneplus-12,qwen3-8b,gsm8k,specinfer,1.5,3,1,1,1,1,1,1\n",
                 "devices='oneplus-12'; models='qwen3-8b'; datasets='gsm8k'; systems='specinfer lever'");
}

/* ---- leversim tree ---- */
static void test_tree_drawing(void)
{
  char out[16384];
  /* chain of 3 under p = 0.7: gains 0.7, 0.49, 0.343; the draft probability 0.7/0.7 = 1 */
  CU_ASSERT_EQUAL(ls_test_cli("tree --policy chain --acceptance 0.7 --set draft.gamma=3", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "q_k = p_k / 0.7"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "└─ 1"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "   └─ 2"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0   1.0000   1.0000   0.7000"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0   1.0000   1.0000   0.3430"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "sum of the gains: 2.5330")); /* 1 + 0.7 + 0.49 + 0.343 */
  /* p = 0.6, 0.4 sum to 1, so no scaling; ASCII branches (node 2 has two children) */
  CU_ASSERT_EQUAL(ls_test_cli("tree --policy specinfer --acceptance 0.6,0.4 --ascii", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "p itself (sum 1)"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "`- 1 "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "      |- 3 "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "0   0.6000   0.3600   0.3600")); /* node 2: 0.6 * 0.6 */
  CU_ASSERT_PTR_NULL(strstr(out, "├─"));
  /* --json: the gains and draft probabilities as arrays */
  CU_ASSERT_EQUAL(ls_test_cli("tree --policy chain --acceptance 0.5 --set draft.gamma=2 --json", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"gain\":[1.000000,0.500000,0.250000]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"draft_probabilities\":[1.000000]"));
}

/* The regime study's map (issue 33): with no figure verdicts (a database of the regime study
 * alone), the default column is the claim's test on the view's own 'default' rows, the other
 * columns on theirs. Fig. 12 by hand: default +4.1 % (holds), prefetch -1.0 % (does not). */
static void test_regime_own_default(void)
{
  const char *view = "claims,assumption,system,tps_vs_no_prune,wasted_verify\n"
                     "systems,default,lever,1.041,0.12\nsystems,default,lever-no-prune,1,0.23\n"
                     "systems,overlap prefetch,lever,0.99,0.12\nsystems,overlap prefetch,lever-no-prune,1,0.23\n";
  ls_csvtab t;
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL_FATAL(ls_csvtab_parse(&t, view, strlen(view), &err), LS_OK);
  int n = ls_figures_count();
  ls_verdict *defaults = calloc((size_t)n, sizeof *defaults);
  int *judged = calloc((size_t)n, sizeof *judged);
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  CU_ASSERT_EQUAL(ls_figures_regime_map(&t, defaults, judged, m, &err), LS_OK);
  fclose(m);
  /* row, col, fig, claim, cell, column, is_default, value, lo, hi, holds */
  CU_ASSERT_PTR_NOT_NULL(strstr(text, ",\"default\",1,1.0409999999999999,,,1\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(text, ",\"overlap prefetch\",0,0.98999999999999999,,,0\n"));
  ls_csvtab_free(&t);
  free(text);
  free(defaults);
  free(judged);
}

CU_TestInfo px_verdict_tests[] = {{"Fig. 4", test_fig04},   {"Fig. 5", test_fig05},
                                  {"Fig. 10", test_fig10},  {"Fig. 11", test_fig11},
                                  {"Fig. 12", test_fig12},  {"Fig. 13", test_fig13},
                                  {"Fig. 14", test_fig14},  {"Table 1", test_table1},
                                  {"table entries", test_table_entries},
                                  {"regime map: the study's own default column", test_regime_own_default},
                                  CU_TEST_INFO_NULL};
CU_TestInfo px_errorbar_tests[] = {{"with and without intervals", test_errorbars}, CU_TEST_INFO_NULL};
CU_TestInfo px_tree_tests[] = {{"tree drawing", test_tree_drawing}, CU_TEST_INFO_NULL};
int px_eb_init(void) { return eb_init(); }
int px_eb_clean(void) { return eb_clean(); }
