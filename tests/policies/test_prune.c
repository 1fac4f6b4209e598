/* tests/policies/test_prune: early-exit pruning, one test per safeguard, and the ancestor
 * property on random trees. Trees are built by hand (a tiny view), scores are logits. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"
#include "sim/rng.h"

typedef struct {
  ls_tree t;
  ls_posview pv;
  ls_draft_view v;
  void *st;
  ls_kv *kv;
} pfix;

/* parents: parent of nodes 1..n-1 (ranks assigned in order among siblings). */
static pfix *pfix_new(const int *parents, int n, const char *settings)
{
  pfix *f = calloc(1, sizeof *f);
  double p[4] = {0.4, 0.3, 0.2, 0.1};
  ls_posview_init(&f->pv, p, 4, 1, &f->v, NULL);
  ls_tree_init(&f->t, &f->v);
  int kids[64] = {0};
  for (int i = 1; i < n; i++)
    ls_tree_add(&f->t, &f->v, parents[i], kids[parents[i]]++, 0.25);
  f->kv = ptest_kv(settings);
  ls_error err;
  CU_ASSERT_EQUAL(ls_prune_early_exit.create(&f->st, f->kv, &err), LS_OK);
  return f;
}

static void pfix_free(pfix *f)
{
  ls_prune_early_exit.destroy(f->st);
  ls_kv_free(f->kv);
  free(f);
}

#define NO_SAFEGUARDS "prune.root_keep=0;prune.min_nodes=0;prune.min_leaves=0"

static void test_threshold_and_normalisation(void)
{
  /* root -> {1, 2}; 1 -> {3, 4}; 2 -> {5} */
  const int par[6] = {-1, 0, 0, 1, 1, 2};
  pfix *f = pfix_new(par, 6, NO_SAFEGUARDS ";prune.threshold=0.3");
  unsigned char keep[8];
  /* set {1,2}: 1 dominates; set {3,4}: 3 and 4 tie high; set {5}: alone but weak vs shadow */
  double score[6] = {0, 4.0, -2.0, 3.0, 3.0, -3.0};
  int kept = ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL);
  /* normalised: s3 = s4 = e^3 / (1 + 2 e^3) ~ 0.49 >= 0.3; s2 ~ 0.002; s5 = e^-3/(1+e^-3) ~ 0.05 */
  CU_ASSERT_EQUAL(keep[0], 1);
  CU_ASSERT_EQUAL(keep[1], 1);
  CU_ASSERT_EQUAL(keep[3], 1);
  CU_ASSERT_EQUAL(keep[4], 1);
  CU_ASSERT_EQUAL(keep[2], 0);
  CU_ASSERT_EQUAL(keep[5], 0);
  CU_ASSERT_EQUAL(kept, 4);
  /* the same raw score 3.0 is pruned in a set with a much stronger sibling */
  double score2[6] = {0, 4.0, -2.0, 3.0, 8.0, -3.0};
  ls_prune_early_exit.prune(f->st, &f->t, score2, keep, NULL);
  CU_ASSERT_EQUAL(keep[3], 0);
  CU_ASSERT_EQUAL(keep[4], 1);
  pfix_free(f);
}

static void test_keep_ancestors(void)
{
  /* chain root -> 1 -> 2 -> 3, plus 4 child of root: only node 3 scores high */
  const int par[5] = {-1, 0, 1, 2, 0};
  pfix *f = pfix_new(par, 5, NO_SAFEGUARDS ";prune.threshold=0.5");
  unsigned char keep[8];
  double score[5] = {0, -5.0, -5.0, 5.0, 1.0}; /* 1 loses to 4 in the root set */
  ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL);
  CU_ASSERT_EQUAL(keep[3], 1);
  CU_ASSERT_EQUAL(keep[2], 1); /* ancestors of a kept node */
  CU_ASSERT_EQUAL(keep[1], 1);
  pfix_free(f);
}

static void test_main_path(void)
{
  /* every score below the threshold: only the main path (most confident child per level) */
  const int par[7] = {-1, 0, 0, 1, 1, 2, 3};
  pfix *f = pfix_new(par, 7, NO_SAFEGUARDS ";prune.threshold=0.99");
  unsigned char keep[8];
  double score[7] = {0, -1.0, -1.5, -2.0, -1.0, 0.0, -4.0};
  int kept = ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL);
  /* root -> 1 (beats 2) -> 4 (beats 3) -> leaf */
  CU_ASSERT_EQUAL(kept, 3);
  CU_ASSERT(keep[0] && keep[1] && keep[4]);
  CU_ASSERT(!keep[2] && !keep[3] && !keep[5] && !keep[6]);
  pfix_free(f);
}

static void test_near_root(void)
{
  const int par[6] = {-1, 0, 0, 0, 0, 1};
  pfix *f = pfix_new(par, 6, "prune.root_keep=3;prune.min_nodes=0;prune.min_leaves=0;prune.threshold=0.99");
  unsigned char keep[8];
  double score[6] = {0, -1.0, -3.0, -2.0, -4.0, -1.0};
  ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL);
  CU_ASSERT(keep[1] && keep[3] && keep[2]); /* the three best root candidates */
  CU_ASSERT(!keep[4]);
  CU_ASSERT(keep[5]); /* main path below node 1 */
  pfix_free(f);
  /* depth 2 sets are not "near the root" with root_depth 1 */
  const int par2[6] = {-1, 0, 1, 1, 1, 1};
  f = pfix_new(par2, 6, "prune.root_keep=3;prune.min_nodes=0;prune.min_leaves=0;prune.threshold=0.99");
  double score2[6] = {0, 0.0, -1.0, -2.0, -3.0, -4.0};
  int kept = ls_prune_early_exit.prune(f->st, &f->t, score2, keep, NULL);
  CU_ASSERT_EQUAL(kept, 3); /* root, 1, main-path child 2 */
  pfix_free(f);
}

static void test_cancel(void)
{
  const int par[8] = {-1, 0, 0, 1, 1, 2, 2, 3};
  double score[8] = {0, 5.0, -5.0, 5.0, -5.0, -5.0, -5.0, 5.0};
  unsigned char keep[8];
  /* survivors: 0, 1, 3, 7 -> 4 nodes, 1 leaf */
  pfix *f = pfix_new(par, 8, "prune.root_keep=0;prune.min_nodes=5;prune.min_leaves=0;prune.threshold=0.5");
  CU_ASSERT_EQUAL(ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL), 8); /* too few nodes */
  pfix_free(f);
  f = pfix_new(par, 8, "prune.root_keep=0;prune.min_nodes=4;prune.min_leaves=2;prune.threshold=0.5");
  CU_ASSERT_EQUAL(ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL), 8); /* too few leaves */
  pfix_free(f);
  f = pfix_new(par, 8, "prune.root_keep=0;prune.min_nodes=4;prune.min_leaves=1;prune.threshold=0.5");
  CU_ASSERT_EQUAL(ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL), 4); /* allowed */
  pfix_free(f);
  /* a chain (one leaf) with min_leaves 2 can still be pruned: the bound is capped */
  const int chain[4] = {-1, 0, 1, 2};
  double cs[4] = {0, 5.0, 5.0, -9.0};
  f = pfix_new(chain, 4, "prune.root_keep=0;prune.min_nodes=0;prune.min_leaves=2;prune.threshold=0.5");
  CU_ASSERT_EQUAL(ls_prune_early_exit.prune(f->st, &f->t, cs, keep, NULL), 4); /* main path keeps the chain */
  pfix_free(f);
}

static void test_ancestor_property(void)
{
  unsigned char keep[LS_TREE_MAX];
  double score[LS_TREE_MAX];
  int par[64];
  for (int trial = 0; trial < 3000; trial++) {
    int n = 2 + (int)(ls_uniform(LS_KEY(5, (uint64_t)trial)) * 60);
    par[0] = -1;
    for (int i = 1; i < n; i++)
      par[i] = (int)(ls_uniform(LS_KEY(6, (uint64_t)trial, (uint64_t)i)) * i);
    pfix *f = pfix_new(par, n, trial % 2 ? "prune.threshold=0.3" : "prune.threshold=0.15;prune.root_keep=1");
    for (int i = 0; i < n; i++)
      score[i] = 3.0 * ls_normal(LS_KEY(7, (uint64_t)trial, (uint64_t)i));
    int kept = ls_prune_early_exit.prune(f->st, &f->t, score, keep, NULL), count = 0;
    CU_ASSERT_EQUAL(keep[0], 1);
    for (int i = 0; i < n; i++) {
      count += keep[i];
      if (i > 0 && keep[i])
        CU_ASSERT(keep[f->t.parent[i]]);
    }
    CU_ASSERT_EQUAL(kept, count);
    pfix_free(f);
  }
}

static void test_exit_layer_and_none(void)
{
  const int par[3] = {-1, 0, 0};
  pfix *f = pfix_new(par, 3, "");
  CU_ASSERT_EQUAL(ls_prune_early_exit.exit_layer(f->st, 32), 16);
  pfix_free(f);
  f = pfix_new(par, 3, "prune.exit_layer=20");
  CU_ASSERT_EQUAL(ls_prune_early_exit.exit_layer(f->st, 32), 20);
  CU_ASSERT_EQUAL(ls_prune_early_exit.exit_layer(f->st, 16), 15);
  pfix_free(f);
  ls_kv *kv = ptest_kv("prune.exit_layer=2.5");
  void *st = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_prune_early_exit.create(&st, kv, &err), LS_EINVALID);
  ls_kv_free(kv);
  unsigned char keep[3];
  double score[3] = {0, -9, -9};
  f = pfix_new(par, 3, "");
  CU_ASSERT_EQUAL(ls_prune_none.exit_layer(NULL, 32), 0);
  CU_ASSERT_EQUAL(ls_prune_none.prune(NULL, &f->t, score, keep, NULL), 3);
  CU_ASSERT(keep[1] && keep[2]);
  pfix_free(f);
}

/* ---- the cost gate (prune.gate = cost) ----
 * One small tree for all of them: root -> {1, 2}, 1 -> {3}. With the safeguards off but the
 * main path and threshold 0.1, the scores below keep {0, 1, 3} and prune node 2 (s2 ~ 0.04). */
static const int GATE_PAR[4] = {-1, 0, 0, 1};
static const double GATE_SCORE[4] = {0, 2.0, -1.0, 1.0};
#define GATE_SET NO_SAFEGUARDS ";prune.threshold=0.1;prune.gate=cost"

static int gate_prune(const char *settings, const ptest_cost *pcost, double spent_s, unsigned char *keep)
{
  pfix *f = pfix_new(GATE_PAR, 4, settings);
  ls_cost_model c;
  ptest_cost pc = *pcost;
  ptest_cost_bind(&pc, &c);
  ls_prune_ctx ctx = {&c, pc.L, 16, spent_s};
  int kept = ls_prune_early_exit.prune(f->st, &f->t, GATE_SCORE, keep, &ctx);
  pfix_free(f);
  return kept;
}

/* A flat cost (the NPU pads 3 and 4 tokens to one 32-token shape): pruning saves no time and
 * only loses expected tokens, so the tree is verified whole; with the gate off, or with no
 * cost queries, the same scores prune node 2. */
static void test_gate_flat_cost_keeps_tree(void)
{
  ptest_cost flat = {32, 32, 0.0, 0.01, 0.001, 0.0, 0.0};
  unsigned char keep[4];
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &flat, 0.0, keep), 4);
  CU_ASSERT(keep[0] && keep[1] && keep[2] && keep[3]);
  CU_ASSERT_EQUAL(gate_prune(GATE_SET ";prune.gate=off", &flat, 0.0, keep), 3);
  CU_ASSERT(!keep[2]);
  /* the default is the paper's rules alone: no gate */
  CU_ASSERT_EQUAL(gate_prune(NO_SAFEGUARDS ";prune.threshold=0.1", &flat, 0.0, keep), 3);
  /* flash-bound: every layer's read (io) is slower than its compute, so nothing is saved */
  ptest_cost io_bound = {32, 1, 1.0, 0.01, 0.001, 0.0, 0.0};
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &io_bound, 0.0, keep), 4);
  pfix *f = pfix_new(GATE_PAR, 4, GATE_SET);
  CU_ASSERT_EQUAL(ls_prune_early_exit.prune(f->st, &f->t, GATE_SCORE, keep, NULL), 3); /* nothing to price with */
  pfix_free(f);
}

/* A cost that falls steeply with tokens (compute-bound, no padding, per-token cost well above
 * the fixed part) and a pruned node of low score: the prune stands. */
static void test_gate_steep_cost_prunes(void)
{
  ptest_cost steep = {32, 1, 0.0, 0.001, 0.01, 0.0, 0.0};
  unsigned char keep[4];
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &steep, 0.0, keep), 3);
  CU_ASSERT(keep[0] && keep[1] && !keep[2] && keep[3]);
}

/* The gate's decision against its closed form. Normalised scores (shadow logit 0):
 *   s1 = e^2 / (1 + e^2 + e^-1), s2 = e^-1 / (1 + e^2 + e^-1), s3 = e / (1 + e);
 *   E_all = s1 + s2 + s1 s3, E_kept = s1 + s1 s3 (node 2 pruned).
 * Cost (io 0, no padding): V(n) = L (c0 + c1 n), saved = (L - e) c1 (4 - 3), T = spent + V(4).
 * (1 + E_kept) / (T - saved) > (1 + E_all) / T  <=>  T < T* = (1 + E_all) saved / (E_all - E_kept),
 * so the prune stands for drafting time below spent* = T* - V(4) and is cancelled above. */
static void test_gate_closed_form(void)
{
  ptest_cost lin = {32, 1, 0.0, 0.01, 0.001, 0.0, 0.0};
  double z = 1.0 + exp(2.0) + exp(-1.0), s1 = exp(2.0) / z, s2 = exp(-1.0) / z, s3 = exp(1.0) / (1.0 + exp(1.0));
  double e_all = s1 + s2 + s1 * s3, e_kept = s1 + s1 * s3;
  double v4 = lin.L * (lin.c0 + lin.c1 * 4), saved = (lin.L - 16) * lin.c1;
  double spent_star = (1.0 + e_all) * saved / (e_all - e_kept) - v4;
  CU_ASSERT_FATAL(spent_star > 0.1); /* both sides of the boundary are reachable */
  unsigned char keep[4];
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &lin, 0.0, keep), 3);
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &lin, 0.98 * spent_star, keep), 3);
  CU_ASSERT(!keep[2]);
  CU_ASSERT_EQUAL(gate_prune(GATE_SET, &lin, 1.02 * spent_star, keep), 4);
  CU_ASSERT(keep[2]);
  /* a bad value names the key and the value */
  ls_kv *kv = ptest_kv("prune.gate=maybe");
  void *st = NULL;
  ls_error err;
  CU_ASSERT_NOT_EQUAL(ls_prune_early_exit.create(&st, kv, &err), LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "prune.gate"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "maybe"));
  ls_kv_free(kv);
}

CU_TestInfo ls_t_prune[] = {{"threshold on scores normalised per candidate set", test_threshold_and_normalisation},
                            {"safeguard: keep ancestors of kept nodes", test_keep_ancestors},
                            {"safeguard: main path", test_main_path},
                            {"safeguard: several candidates near the root", test_near_root},
                            {"safeguard: cancel when too few nodes or leaves", test_cancel},
                            {"never removes an ancestor of a kept node", test_ancestor_property},
                            {"exit layer; none", test_exit_layer_and_none},
                            {"gate: a prune that saves no time is cancelled", test_gate_flat_cost_keeps_tree},
                            {"gate: a prune that saves time on weak nodes stands", test_gate_steep_cost_prunes},
                            {"gate: the decision's boundary in closed form", test_gate_closed_form},
                            CU_TEST_INFO_NULL};
