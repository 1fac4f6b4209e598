/* tests/policies/test_effective: the value a setting takes in effect (ls_draft_ops.effective),
 * checked against the trees the policies really build, and what the commands do with it:
 * `run` and `sweep` store it beside the setting (run_settings "effective.KEY"), `sweep`
 * warns about points that change nothing, `plot` marks them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"

/* The policy's claim for draft.budget under settings: 1 and *value when it caps it. */
static int claim(const char *policy, const char *settings, double *value, char *why, size_t size)
{
  const ls_draft_ops *ops = ls_draft_find(policy);
  ls_kv *kv = ptest_kv(settings);
  ls_error err;
  void *st = NULL;
  int capped = -1;
  if (ops->create(&st, kv, &err) == LS_OK)
    capped = ops->effective ? ops->effective(st, "draft.budget", value, why, size) : 0;
  if (st) ops->destroy(st);
  ls_kv_free(kv);
  return capped;
}

/* Largest tree the policy builds over several views with 16 candidates per node (every
 * candidate above zero), no cost model (cost-aware policies build their largest). */
static int largest(const char *policy, const char *settings)
{
  ls_tree *t = malloc(sizeof *t);
  int most = 0;
  for (uint64_t seed = 1; t && seed <= 5; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, seed, 16, 0, &v);
    if (ptest_build(policy, settings, t, &v, NULL) == LS_OK && t->n > most) most = t->n;
  }
  free(t);
  return most;
}

static void test_claims_hold(void)
{
  const struct { const char *policy, *settings, *cap_setting; int capped; double eff; } cases[] = {
      {"specinfer", "draft.budget=64", "draft.expansion=1,1,3,1,1,1,1,1", 1, 21},
      {"specinfer", "draft.budget=32", "draft.expansion", 1, 21},
      {"specinfer", "draft.budget=16", NULL, 0, 16},
      {"specinfer", "draft.budget=64;draft.expansion=4,2,2,1,1", "draft.expansion=4,2,2,1,1", 1, 61},
      {"specinfer", "draft.budget=21", NULL, 0, 21},
      {"chain", "draft.budget=8", "draft.gamma=4", 1, 5},
      {"chain", "draft.budget=5", NULL, 0, 5},
      {"eagle2", "draft.budget=64", "draft.total_tokens=60", 1, 60},
      {"eagle2", "draft.budget=32", NULL, 0, 32},
      {"opt-tree", "draft.budget=100", "draft.max_nodes=60", 1, 60},
      {"ar", "draft.budget=16", "ar drafts nothing", 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (!ls_draft_find(cases[i].policy)) continue;
    double v = NAN;
    char why[200] = "";
    int c = claim(cases[i].policy, cases[i].settings, &v, why, sizeof why);
    CU_ASSERT_EQUAL(c, cases[i].capped);
    if (c != cases[i].capped) fprintf(stderr, "\n  %s %s: claimed %d\n", cases[i].policy, cases[i].settings, c);
    if (cases[i].capped) {
      CU_ASSERT_EQUAL(v, cases[i].eff);
      CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].cap_setting));
    }
    /* the claim is what the policy does: its largest tree is the effective budget (or the
     * budget itself when it is not capped; opt-tree's threshold may stop it earlier) */
    int most = largest(cases[i].policy, cases[i].settings);
    if (strcmp(cases[i].policy, "opt-tree") == 0) {
      CU_ASSERT(most <= cases[i].eff);
    } else {
      CU_ASSERT_EQUAL(most, (int)cases[i].eff);
    }
  }
  /* policies whose budget binds say nothing */
  double v;
  char why[200];
  CU_ASSERT_EQUAL(claim("lever", "draft.budget=64", &v, why, sizeof why), 0);
  CU_ASSERT_EQUAL(claim("sequoia", "draft.budget=64", &v, why, sizeof why), 0);
}

static void test_cli_sweep_run_plot(void)
{
  static char out[65536];
  char dir[] = "/tmp/ls_effective_XXXXXX", args[2048];
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  snprintf(args, sizeof args, "sweep --axis draft.budget=16,32,64 --axis system=specinfer,lever --axis device=oneplus-12 "
           "--axis model=llama-3.1-8b --axis dataset=gsm8k --set workload.prompts=2 --set workload.max_tokens=8 "
           "--db '%s/e.db'", dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  /* the warning names the values, the value they take, why, and only specinfer */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "warning: draft.budget=32,64 on specinfer: no effect, each takes effect as 21 "
                                     "(draft.expansion=1,1,3,1,1,1,1,1 caps specinfer's tree at 21 tokens)"));
  CU_ASSERT_PTR_NULL(strstr(out, "on lever"));
  /* the summary table at the end: one line per system, and what to ask next */
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "  system              runs    geomean"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\n  specinfer              3 "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "which value wins: leversim best --db"));
  CU_ASSERT_PTR_NULL(strstr(out, "draft.budget=16,"));
  /* stored beside the setting; the identical points are identical */
  snprintf(args, sizeof args, "plot --db '%s/e.db' --x draft.budget --y tps --by system --format csv", dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",draft.budget_effective\n"));
  char *s32 = strstr(out, "specinfer,32,32,"), *s64 = strstr(out, "specinfer,64,64,"), *s16 = strstr(out, "specinfer,16,16,");
  CU_ASSERT_PTR_NOT_NULL_FATAL(s32);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s64);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s16);
  CU_ASSERT_EQUAL(strtod(s32 + 16, NULL), strtod(s64 + 16, NULL));
  CU_ASSERT_NOT_EQUAL(strtod(s16 + 16, NULL), strtod(s64 + 16, NULL));
  CU_ASSERT_EQUAL(strcspn(s64, "\n") > 2 && strncmp(s64 + strcspn(s64, "\n") - 3, ",21", 3) == 0, 1);
  CU_ASSERT_EQUAL(strncmp(s16 + strcspn(s16, "\n") - 1, ",", 1), 0); /* no effective value at 16 */
  /* `run` prints the value that took effect under the one asked */
  CU_ASSERT_EQUAL(ls_test_cli("run --system specinfer --device oneplus-12 --model llama-3.1-8b --dataset gsm8k "
                              "--prompts 1 --tokens 4 --set draft.budget=48", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "took effect: draft.expansion=1,1,3,1,1,1,1,1 caps specinfer's tree at 21 tokens"));
  snprintf(args, sizeof args, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL(system(args), 0);
}

/* Values no cap explains but that change nothing: Lever's stopping rule ends every tree on
 * qwen3-4b below 16 tokens, so budgets 16, 32 and 64 give the same runs. The sweep says so
 * once for the axis after the runs (none of it before: no cap is known), and `best` calls the
 * values tied; an axis whose values do change the results gets no such warning. */
static void test_cli_sweep_ties(void)
{
  static char out[65536];
  char dir[] = "/tmp/ls_ties_XXXXXX", args[2048];
  CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
  const char *common = "--axis device=oneplus-12 --axis model=qwen3-4b --axis dataset=gsm8k --set workload.prompts=2 "
                       "--set workload.max_tokens=16";
  snprintf(args, sizeof args, "sweep --axis draft.budget=16,32,64 --axis system=lever %s --db '%s/t.db'", common, dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  const char *w = strstr(out, "leversim sweep: warning: draft.budget=16,32,64: every value gave the same results, "
                              "prompt for prompt, in every configuration (1): the setting changed nothing here (a "
                              "cap the policy never reached");
  CU_ASSERT_PTR_NOT_NULL(w);
  const char *first = strstr(out, "warning: draft.budget");
  CU_ASSERT_PTR_NULL(first ? strstr(first + 1, "warning: draft.budget") : NULL); /* once per axis */
  snprintf(args, sizeof args, "best --db '%s/t.db' --y throughput_tps --over draft.budget", dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "no best draft.budget: its 3 values tie"));
  /* budgets that bind (a tree of 2 or 4 tokens) change the runs: no warning */
  snprintf(args, sizeof args, "sweep --axis draft.budget=2,4 --axis system=lever %s --db '%s/b.db'", common, dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NULL(strstr(out, "gave the same results"));
  /* the same budgets over Lever and AR: only AR (which drafts nothing) is named as tied */
  snprintf(args, sizeof args, "sweep --axis draft.budget=2,4 --axis system=lever,ar-flash %s --db '%s/p.db'", common,
           dir);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "draft.budget=2,4: no effect for system ar-flash: every value gave the same "
                                     "results, prompt for prompt, in every configuration of it (1;"));
  CU_ASSERT_PTR_NULL(strstr(out, "system lever"));
  snprintf(args, sizeof args, "rm -rf '%s'", dir);
  CU_ASSERT_EQUAL(system(args), 0);
}

CU_TestInfo ls_t_effective[] = {{"effective values are the trees built", test_claims_hold},
                                {"sweep warns, run and plot show it", test_cli_sweep_run_plot},
                                {"sweep warns of values that tied, best calls them tied", test_cli_sweep_ties},
                                CU_TEST_INFO_NULL};
