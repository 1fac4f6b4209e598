/* tests/policies/test_draft: tree helpers, registry, and the non-Lever draft policies against
 * closed forms and brute force. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"
#include "sim/rng.h"

static ls_tree *new_tree(void) { return malloc(sizeof(ls_tree)); }

/* ---- tree ---- */

static void test_tree_basics(void)
{
  ls_posview pv;
  ls_draft_view v;
  double p[3] = {0.5, 0.3, 0.1}, probs[2 * 3];
  CU_ASSERT_EQUAL_FATAL(ls_posview_init(&pv, p, 3, 7, &v, NULL), LS_OK);
  ls_tree *t = new_tree();
  ls_tree_init(t, &v);
  CU_ASSERT_EQUAL(t->n, 1);
  CU_ASSERT_EQUAL(t->key[0], v.root_key);
  int root = 0;
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, &root, 1, 3, probs), LS_OK);
  LS_ASSERT_CLOSE(probs[0], 0.5 / 0.9, 1e-12);
  int a = ls_tree_add(t, &v, 0, 0, probs[0]), b = ls_tree_add(t, &v, 0, 1, probs[1]);
  int nodes[2] = {a, b};
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, nodes, 2, 3, probs), LS_OK);
  int c = ls_tree_add(t, &v, b, 2, probs[3 + 2]);
  /* dependencies: the root's pass needs nothing, the second needs the first (a, b came from
   * it); a pass over the root alone again would need nothing (may run beside the others) */
  CU_ASSERT_EQUAL(t->node_step[0], -1);
  CU_ASSERT_EQUAL(t->node_step[a], 0);
  CU_ASSERT_EQUAL(t->node_step[c], 1);
  CU_ASSERT_EQUAL(t->step_dep[0], -1);
  CU_ASSERT_EQUAL(t->step_dep[1], 0);
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, &root, 1, 3, probs), LS_OK);
  CU_ASSERT_EQUAL(t->step_dep[2], -1);
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, &c, 1, 3, probs), LS_OK);
  CU_ASSERT_EQUAL(t->step_dep[3], 1);
  t->n_steps = 2;
  CU_ASSERT_EQUAL(t->n_steps, 2);
  CU_ASSERT_EQUAL(t->step_nodes[1], 2);
  CU_ASSERT_EQUAL(t->step_depth[1], 1);
  CU_ASSERT_EQUAL(t->depth[c], 2);
  LS_ASSERT_CLOSE(t->path_prob[c], (0.3 / 0.9) * (0.1 / 0.9), 1e-12);
  CU_ASSERT_NOT_EQUAL(t->key[a], t->key[b]);
  CU_ASSERT(ptest_tree_ok(t));
  /* positional expectation: 1 + p0 + p1 + p1 p2 */
  LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), 1 + 0.5 + 0.3 + 0.3 * 0.1, 1e-12);
  /* zero fill past what the view returned */
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, &root, 1, 5, probs), LS_OK);
  CU_ASSERT_EQUAL(probs[3], 0.0);
  CU_ASSERT_EQUAL(probs[4], 0.0);
  /* compaction keeps order and renumbers parents */
  unsigned char keep[LS_TREE_MAX] = {1, 0, 1, 1};
  uint64_t kc = t->key[c];
  ls_tree_compact(t, keep);
  CU_ASSERT_EQUAL(t->n, 3);
  CU_ASSERT_EQUAL(t->parent[2], 1);
  CU_ASSERT_EQUAL(t->key[2], kc);
  CU_ASSERT_EQUAL(t->n_steps, 3); /* draft cost stays */
  CU_ASSERT(ptest_tree_ok(t));
  /* full step log */
  t->n_steps = LS_STEPS_MAX;
  CU_ASSERT_EQUAL(ls_tree_expand(t, &v, &root, 1, 1, probs), LS_ERANGE);
  /* full tree */
  ls_tree_init(t, &v);
  int last = 0;
  for (int i = 1; i < LS_TREE_MAX; i++)
    last = ls_tree_add(t, &v, last, 0, 0.5);
  CU_ASSERT_EQUAL(last, LS_TREE_MAX - 1);
  CU_ASSERT_EQUAL(ls_tree_add(t, &v, 0, 1, 0.5), -1);
  free(t);
}

static void test_top_by_path(void)
{
  ptest_rview rv;
  ls_draft_view v;
  ptest_rview_init(&rv, 3, 6, 0.0, &v);
  ls_tree *t = new_tree();
  CU_ASSERT_EQUAL_FATAL(ptest_build("specinfer", "draft.expansion=6,4,3,2", t, &v, NULL), LS_OK);
  unsigned char keep[LS_TREE_MAX];
  for (int m = 0; m < t->n; m += 7) {
    CU_ASSERT_EQUAL(ls_tree_top_by_path(t, m, keep), m);
    double lo = 2.0, hi = -1.0;
    for (int i = 1; i < t->n; i++) {
      if (keep[i]) {
        CU_ASSERT(keep[t->parent[i]]);
        lo = t->path_prob[i] < lo ? t->path_prob[i] : lo;
      } else
        hi = t->path_prob[i] > hi ? t->path_prob[i] : hi;
    }
    if (m > 0 && m < t->n - 1) {
      CU_ASSERT(lo >= hi);
    }
  }
  free(t);
}

CU_TestInfo ls_t_tree[] = {{"init, add, expand, compact, limits", test_tree_basics},
                           {"top by path probability is connected", test_top_by_path},
                           CU_TEST_INFO_NULL};

/* ---- registry ---- */

static void test_registry(void)
{
  const char *const *d = ls_draft_names(), *const *p = ls_prune_names(), *const *m = ls_map_names();
  int nd = 0, np = 0, nm = 0;
  for (; d[nd]; nd++) {
    const ls_draft_ops *o = ls_draft_find(d[nd]);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_STRING_EQUAL(o->name, d[nd]);
    CU_ASSERT_PTR_NOT_NULL(o->create);
    CU_ASSERT_PTR_NOT_NULL(o->build);
  }
  for (; p[np]; np++) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(ls_prune_find(p[np]));
    CU_ASSERT_STRING_EQUAL(ls_prune_find(p[np])->name, p[np]);
  }
  for (; m[nm]; nm++) {
    CU_ASSERT_PTR_NOT_NULL_FATAL(ls_map_find(m[nm]));
    CU_ASSERT_STRING_EQUAL(ls_map_find(m[nm])->name, m[nm]);
  }
  CU_ASSERT_EQUAL(nd, 7);
  CU_ASSERT_EQUAL(np, 2);
  CU_ASSERT_EQUAL(nm, 4);
  CU_ASSERT_PTR_NULL(ls_draft_find("medusa"));
  CU_ASSERT_PTR_NULL(ls_prune_find(""));
  CU_ASSERT_PTR_NULL(ls_map_find(NULL));
}

/* Every draft policy, from the registry with its defaults, builds a valid tree within its
 * budget on two views, with and without costs, and is deterministic. */
static void test_all_build(void)
{
  ptest_rview rv;
  ls_draft_view v;
  ptest_cost pc = {32, 8, 0.03, 0.002, 0.0004, 0.004, 0.001};
  ls_cost_model c;
  ptest_cost_bind(&pc, &c);
  ls_tree *t = new_tree(), *t2 = new_tree();
  for (const char *const *d = ls_draft_names(); *d; d++)
    for (int seed = 1; seed <= 3; seed++) {
      ptest_rview_init(&rv, (uint64_t)seed, 10, 0.0, &v);
      CU_ASSERT_EQUAL_FATAL(ptest_build(*d, "draft.budget=48", t, &v, seed == 2 ? NULL : &c), LS_OK);
      CU_ASSERT(ptest_tree_ok(t));
      CU_ASSERT(t->n <= 48);
      CU_ASSERT_EQUAL(ptest_build(*d, "draft.budget=48", t2, &v, seed == 2 ? NULL : &c), LS_OK);
      CU_ASSERT_EQUAL(t->n, t2->n);
      CU_ASSERT_EQUAL(memcmp(t->key, t2->key, sizeof(uint64_t) * (size_t)t->n), 0);
      if (strcmp(*d, "ar") != 0) {
        CU_ASSERT(t->n > 1);
      }
    }
  /* a bad setting is an error naming the key */
  ls_kv *kv = ptest_kv("draft.budget=0");
  void *st = NULL;
  ls_error err;
  CU_ASSERT_NOT_EQUAL(ls_draft_find("lever")->create(&st, kv, &err), LS_OK);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "draft.budget"));
  ls_kv_free(kv);
  free(t);
  free(t2);
}

CU_TestInfo ls_t_registry[] = {{"lookups and names", test_registry},
                               {"every draft policy builds valid trees", test_all_build},
                               CU_TEST_INFO_NULL};

/* ---- chain ---- */

static void test_chain_closed_form(void)
{
  const double alphas[] = {0.3, 0.6, 0.8, 0.95};
  const int gammas[] = {1, 2, 4, 7};
  ls_tree *t = new_tree();
  for (int a = 0; a < 4; a++)
    for (int g = 0; g < 4; g++) {
      double alpha = alphas[a];
      ls_posview pv;
      ls_draft_view v;
      CU_ASSERT_EQUAL_FATAL(ls_posview_init(&pv, &alpha, 1, 11, &v, NULL), LS_OK);
      char set[64];
      snprintf(set, sizeof set, "draft.gamma=%d", gammas[g]);
      CU_ASSERT_EQUAL_FATAL(ptest_build("chain", set, t, &v, NULL), LS_OK);
      CU_ASSERT_EQUAL(t->n, gammas[g] + 1);
      CU_ASSERT_EQUAL(t->n_steps, gammas[g]);
      double closed = (1.0 - pow(alpha, gammas[g] + 1)) / (1.0 - alpha);
      LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), closed, 1e-12);
      if (g == 2) { /* Monte Carlo acceptance walks: iid alpha per drafted token */
        const int N = 100000;
        double sum = 0.0, sq = 0.0, u[8];
        int acc[8];
        for (int i = 0; i < N; i++) {
          for (int s = 0; s < 8; s++)
            u[s] = ls_uniform(LS_KEY(99, (uint64_t)a, (uint64_t)i, (uint64_t)s));
          int len = ls_posview_walk(&pv, t, u, 8, acc);
          sum += len;
          sq += (double)len * len;
        }
        double mean = sum / N, sd = sqrt((sq / N - mean * mean) / N);
        CU_ASSERT(fabs(mean - closed) < 4.0 * sd + 1e-9);
      }
    }
  /* budget caps gamma */
  double alpha = 0.5;
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, &alpha, 1, 11, &v, NULL);
  CU_ASSERT_EQUAL(ptest_build("chain", "draft.gamma=9;draft.budget=4", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 4);
  free(t);
}

CU_TestInfo ls_t_chain[] = {{"(1 - a^(g+1)) / (1 - a) tokens per cycle", test_chain_closed_form}, CU_TEST_INFO_NULL};

/* ---- specinfer ---- */

static void test_specinfer_shape(void)
{
  double p[5] = {0.4, 0.2, 0.1, 0.05, 0.05};
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 5, 5, &v, NULL);
  ls_tree *t = new_tree();
  /* default: SpecInfer's 1,1,3,1,1,1,1,1 -> a chain of 2, three branches, chains of 5 */
  CU_ASSERT_EQUAL_FATAL(ptest_build("specinfer", "", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 1 + 1 + 1 + 3 * 6);
  CU_ASSERT_EQUAL(t->n_steps, 8);
  const int want_default[8] = {1, 1, 1, 3, 3, 3, 3, 3};
  for (int s = 0; s < 8; s++)
    CU_ASSERT_EQUAL(t->step_nodes[s], want_default[s]);
  CU_ASSERT_EQUAL_FATAL(ptest_build("specinfer", "draft.expansion=4,2,2,1,1", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 1 + 4 + 8 + 16 + 16 + 16);
  CU_ASSERT_EQUAL(t->n_steps, 5);
  const int want[5] = {1, 4, 8, 16, 16};
  for (int s = 0; s < 5; s++)
    CU_ASSERT_EQUAL(t->step_nodes[s], want[s]);
  /* closed form: level sums of products */
  double lvl1 = 0.4 + 0.2 + 0.1 + 0.05, two = 0.4 + 0.2;
  LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), 1 + lvl1 * (1 + two + two * two + two * two * 0.4 + two * two * 0.4 * 0.4),
                  1e-12);
  CU_ASSERT_EQUAL(ptest_build("specinfer", "draft.expansion=2,2;draft.budget=5", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 5);
  CU_ASSERT(ptest_tree_ok(t));
  CU_ASSERT_NOT_EQUAL(ptest_build("specinfer", "draft.expansion=2.5", t, &v, NULL), LS_OK);
  free(t);
}

CU_TestInfo ls_t_specinfer[] = {{"fixed expansion shape and value", test_specinfer_shape}, CU_TEST_INFO_NULL};

/* ---- sequoia: brute force over every tree (connected node sets of the W-ary tree) ---- */

typedef struct {
  int n, target, maxd, W;
  int depth[16];
  double acc[16];
  const double *p;
  double best;
} brute;

typedef struct {
  int parent, rank;
} cand;

/* Enumerates each connected set containing the root once: the last frontier candidate is
 * either excluded for good or included (its children join the frontier). */
static void enumerate(brute *b, cand *f, int nf, double value)
{
  if (b->n == b->target) {
    b->best = value > b->best ? value : b->best;
    return;
  }
  if (nf == 0)
    return;
  cand c = f[nf - 1];
  enumerate(b, f, nf - 1, value);
  int i = b->n++;
  b->depth[i] = b->depth[c.parent] + 1;
  b->acc[i] = b->acc[c.parent] * b->p[c.rank];
  cand g[64];
  memcpy(g, f, sizeof(cand) * (size_t)(nf - 1));
  int ng = nf - 1;
  if (b->depth[i] < b->maxd)
    for (int r = 0; r < b->W; r++)
      g[ng++] = (cand){i, r};
  enumerate(b, g, ng, value + b->acc[i]);
  b->n--;
}

static double brute_best(const double *p, int W, int n, int maxd)
{
  brute b = {.n = 1, .target = n, .maxd = maxd, .W = W, .p = p, .best = -1.0};
  b.depth[0] = 0;
  b.acc[0] = 1.0;
  cand f[64];
  int nf = 0;
  for (int r = 0; r < W && maxd > 0; r++)
    f[nf++] = (cand){0, r};
  enumerate(&b, f, nf, 1.0);
  return b.best;
}

static void test_sequoia_brute(void)
{
  const double vecs[2][3] = {{0.55, 0.25, 0.1}, {0.8, 0.1, 0.05}};
  ls_tree *t = new_tree();
  for (int vi = 0; vi < 2; vi++) {
    const double *p = vecs[vi];
    ls_kv *kv = ptest_kv("draft.budget=8;draft.width=3;draft.max_depth=7;draft.acceptance=0.55,0.25,0.1");
    if (vi == 1) {
      ls_kv_free(kv);
      kv = ptest_kv("draft.budget=8;draft.width=3;draft.max_depth=7;draft.acceptance=0.8,0.1,0.05");
    }
    void *st = NULL;
    CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
    for (int n = 1; n <= 8; n++)
      for (int d = 1; d <= 7; d += 2) {
        double bf = brute_best(p, 3, n, d);
        double dp = ls_sequoia_value(st, n, d);
        if (bf < 0.0) {
          CU_ASSERT(dp == -INFINITY);
        } else {
          LS_ASSERT_CLOSE(dp, bf, 1e-12);
        }
      }
    /* the built tree (no costs: the largest) reaches the optimum on the positional view */
    ls_posview pv;
    ls_draft_view v;
    ls_posview_init(&pv, p, 3, 1, &v, NULL);
    CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, NULL, NULL), LS_OK);
    CU_ASSERT_EQUAL(t->n, 8);
    CU_ASSERT(ptest_tree_ok(t));
    LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), brute_best(p, 3, 8, 7), 1e-12);
    ls_draft_sequoia.destroy(st);
    ls_kv_free(kv);
  }
  free(t);
}

/* Hardware-aware choice: I/O-dominated verification takes the whole budget; per-token
 * compute cost picks argmin t_verify(n) / T(n) (draft free). */
static void test_sequoia_hardware(void)
{
  double p[3] = {0.6, 0.2, 0.1};
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 3, 1, &v, NULL);
  ls_kv *kv = ptest_kv("draft.budget=32;draft.width=3;draft.max_depth=8;draft.acceptance=0.6,0.2,0.1");
  void *st = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
  ls_tree *t = new_tree();
  ptest_cost io = {32, 1, 1.0, 0.0, 0.0001, 0.0, 0.0};
  ls_cost_model c;
  ptest_cost_bind(&io, &c);
  CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, &c, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 32);
  ptest_cost comp = {1, 1, 0.0, 0.0, 0.01, 0.0, 0.0}; /* verify(n) = 0.01 n, no draft cost */
  ptest_cost_bind(&comp, &c);
  CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, &c, NULL), LS_OK);
  int want = 1;
  for (int n = 1; n <= 32; n++)
    if (0.01 * n / ls_sequoia_value(st, n, 8) <= 0.01 * want / ls_sequoia_value(st, want, 8))
      want = n;
  CU_ASSERT_EQUAL(t->n, want);
  LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), ls_sequoia_value(st, want, 8), 1e-12);
  CU_ASSERT_EQUAL(ls_sequoia_solves(st), 1); /* a given vector: one DP for every build */
  ls_draft_sequoia.destroy(st);
  ls_kv_free(kv);
  free(t);
}

/* The DP's recurrence as written at the top of draft_sequoia.c, every size scanned (the
 * policy visits only sizes whose two terms are finite): T(d, n) for d <= D, n <= B into t. */
static void sequoia_reference(const double *p, int W, int B, int D, double *t)
{
  double c[65][9];
  for (int n = 0; n <= B; n++)
    t[n] = n == 1 ? 1.0 : -INFINITY;
  for (int d = 1; d <= D; d++) {
    const double *tp = &t[(d - 1) * (B + 1)];
    for (int m = 0; m <= B; m++)
      c[m][W] = m == 0 ? 0.0 : -INFINITY;
    for (int j = W - 1; j >= 0; j--)
      for (int m = 0; m <= B; m++) {
        double best = m == 0 ? 0.0 : -INFINITY;
        for (int sz = 1; sz <= m; sz++)
          if (tp[sz] != -INFINITY && c[m - sz][j + 1] != -INFINITY && p[j] * tp[sz] + c[m - sz][j + 1] > best)
            best = p[j] * tp[sz] + c[m - sz][j + 1];
        c[m][j] = best;
      }
    t[d * (B + 1)] = -INFINITY;
    for (int n = 1; n <= B; n++)
      t[d * (B + 1) + n] = 1.0 + c[n - 1][0];
  }
}

/* The policy's DP at its default size (budget 64, width 8, depth 12) equals the full scan
 * bit for bit, for decaying vectors, one with a zero rank and one with a flat tail; the
 * largest tree it builds (no zero rank) reaches T(B, D) on the positional view. */
static void test_sequoia_full_scan(void)
{
  static const double vecs[3][8] = {{0.6, 0.15, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01},
                                    {0.9, 0.05, 0.0, 0.02, 0.01, 0.005, 0.002, 0.001},
                                    {0.3, 0.15, 0.1, 0.09, 0.08, 0.08, 0.08, 0.08}};
  static double ref[13 * 65];
  ls_tree *t = new_tree();
  for (int vi = 0; vi < 3; vi++) {
    const double *p = vecs[vi];
    char set[256];
    snprintf(set, sizeof set, "draft.budget=64;draft.width=8;draft.max_depth=12;draft.acceptance=%.17g,%.17g,%.17g,"
             "%.17g,%.17g,%.17g,%.17g,%.17g", p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7]);
    ls_kv *kv = ptest_kv(set);
    void *st = NULL;
    CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
    sequoia_reference(p, 8, 64, 12, ref);
    int differ = 0;
    for (int d = 0; d <= 12; d++)
      for (int n = 0; n <= 64; n++) {
        double a = ls_sequoia_value(st, n, d), b = ref[d * 65 + n];
        differ += memcmp(&a, &b, sizeof a) != 0;
      }
    CU_ASSERT_EQUAL(differ, 0);
    ls_posview pv;
    ls_draft_view v;
    ls_posview_init(&pv, p, 8, 1, &v, NULL);
    CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, NULL, NULL), LS_OK);
    CU_ASSERT(ptest_tree_ok(t));
    if (p[2] > 0.0) { /* a zero rank's subtrees are dropped (the draft offers no such child) */
      CU_ASSERT_EQUAL(t->n, 64);
      LS_ASSERT_CLOSE(ls_posview_expected(&pv, t), ref[12 * 65 + 64], 1e-12);
    }
    ls_draft_sequoia.destroy(st);
    ls_kv_free(kv);
  }
  free(t);
}

/* A cost model whose draft step depends on the level and on a context factor, as the
 * runner's does (draft_step_s grows with the context; deeper levels see a longer one). */
typedef struct {
  double ctx;
  long steps; /* draft_step_s calls */
} seq_ctx_cost;

static double seq_verify(const void *ctx, int n) { return 0.02 * ((const seq_ctx_cost *)ctx)->ctx + 0.0002 * n; }

static double seq_draft(const void *ctx, int w, int level)
{
  seq_ctx_cost *c = (seq_ctx_cost *)ctx;
  c->steps++;
  return (0.0015 + 0.0004 * w) * (1.0 + 0.25 * level) * c->ctx;
}

/* Sequoia's choice written directly from its definition: argmin over (d, n) with T > 0 of
 * (t_verify(n) + sum over the shape's levels of draft_step(width, level)) / T(d, n), ties
 * to the larger tree; *levels: the chosen shape's number of expanded levels. */
static int sequoia_choice_reference(void *st, const ls_cost_model *c, int B, int D, int *levels)
{
  double best = INFINITY;
  int bn = 1;
  *levels = 0;
  for (int n = 1; n <= B; n++)
    for (int d = n == 1 ? 0 : 1; d <= (n == 1 ? 0 : D); d++) {
      double t = c->verify_s(c->ctx, n), e = ls_sequoia_value(st, n, d);
      if (e <= 0.0)
        continue;
      int l = 0;
      for (; l < d && ls_sequoia_width(st, n, d, l) > 0; l++)
        t += c->draft_step_s(c->ctx, ls_sequoia_width(st, n, d, l), l);
      if (t / e <= best) {
        best = t / e;
        bn = n;
        *levels = l;
      }
    }
  return bn;
}

/* The hardware-aware choice over builds whose context moves (the step times of one build
 * must not leak into the next): each build picks the reference's size and depth, and asks
 * the cost model for each (width, level) of the shapes once. */
static void test_sequoia_choice_moving_context(void)
{
  static const double p[4] = {0.7, 0.12, 0.06, 0.03};
  ls_kv *kv = ptest_kv("draft.budget=24;draft.width=4;draft.max_depth=6;draft.acceptance=0.7,0.12,0.06,0.03");
  void *st = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 4, 1, &v, NULL);
  ls_tree *t = new_tree();
  seq_ctx_cost cc = {1.0, 0};
  ls_cost_model c = {0};
  c.ctx = &cc;
  c.verify_s = seq_verify;
  c.draft_step_s = seq_draft;
  int sizes_seen[25] = {0};
  for (int k = 0; k < 12; k++) {
    cc.ctx = 0.05 + 0.4 * k; /* from draft-cheap (a large tree) to draft-dear (a small one) */
    cc.steps = 0;
    CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, &c, NULL), LS_OK);
    long asked = cc.steps;
    int levels = 0, want = sequoia_choice_reference(st, &c, 24, 6, &levels);
    CU_ASSERT_EQUAL(t->n, want);
    int depth = 0;
    for (int i = 0; i < t->n; i++)
      depth = t->depth[i] > depth ? t->depth[i] : depth;
    CU_ASSERT_EQUAL(depth, levels);
    CU_ASSERT(asked > 0 && asked <= 6 * 25); /* each (width, level) once: widths <= 24, 6 levels */
    sizes_seen[t->n] = 1;
  }
  int distinct = 0;
  for (int n = 0; n <= 24; n++)
    distinct += sizes_seen[n];
  CU_ASSERT(distinct >= 3); /* the context moved the choice, so a stale step time would show */
  ls_draft_sequoia.destroy(st);
  ls_kv_free(kv);
  free(t);
}

/* Online vector: feedback that always accepts rank 0 raises p_0 and so the DP's value. */
static void test_sequoia_online(void)
{
  double p[3] = {0.6, 0.2, 0.1};
  ls_posview pv;
  ls_draft_view v;
  ls_posview_init(&pv, p, 3, 1, &v, NULL);
  ls_kv *kv = ptest_kv("draft.budget=16;draft.width=3;draft.max_depth=8");
  void *st = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
  ls_tree *t = new_tree();
  CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, NULL, NULL), LS_OK);
  double before = ls_sequoia_value(st, 16, 8);
  for (int cyc = 0; cyc < 200; cyc++) {
    int acc[LS_TREE_MAX], n = 0, u = 0;
    for (;;) { /* follow rank-0 children */
      int next = -1;
      for (int c = u + 1; c < t->n && next < 0; c++)
        if (t->parent[c] == u && t->rank[c] == 0)
          next = c;
      if (next < 0)
        break;
      acc[n++] = u = next;
    }
    ls_draft_sequoia.feedback(st, t, acc, n);
    CU_ASSERT_EQUAL(ls_draft_sequoia.build(st, t, &v, NULL, NULL), LS_OK);
  }
  CU_ASSERT(ls_sequoia_value(st, 16, 8) > before + 1.0);
  /* the DP was recomputed as the vector moved, but far less often than once per build */
  long solves = ls_sequoia_solves(st);
  CU_ASSERT(solves > 1 && solves < 50);
  ls_draft_sequoia.destroy(st);
  ls_kv_free(kv);
  free(t);
}

CU_TestInfo ls_t_sequoia[] = {{"DP equals brute force", test_sequoia_brute},
                              {"DP equals the full scan bit for bit at full size", test_sequoia_full_scan},
                              {"choice as the context moves: each build's own step times", test_sequoia_choice_moving_context},
                              {"hardware-aware size and depth", test_sequoia_hardware},
                              {"online acceptance vector", test_sequoia_online},
                              CU_TEST_INFO_NULL};

/* ---- eagle2: independent re-implementation of the candidate pool ---- */

typedef struct {
  uint64_t key;
  double score;
  int depth;
} pool_node;

static int pool_cmp(const void *a, const void *b)
{
  const pool_node *x = a, *y = b;
  return x->score < y->score ? 1 : (x->score > y->score ? -1 : 0);
}

static void test_eagle2_topk(void)
{
  const int K = 4, DEPTH = 4, TOTAL = 20;
  ls_tree *t = new_tree();
  for (int seed = 1; seed <= 20; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, (uint64_t)seed, 8, 0.0, &v);
    CU_ASSERT_EQUAL_FATAL(ptest_build("eagle2", "draft.topk=4;draft.depth=4;draft.total_tokens=20", t, &v, NULL), LS_OK);
    CU_ASSERT_EQUAL(t->n, TOTAL);
    CU_ASSERT(ptest_tree_ok(t));
    CU_ASSERT_EQUAL(t->n_steps, DEPTH);
    /* pool: layer by layer, expand the top-K of the newest layer */
    pool_node pool[1024], layer[64], next[64];
    int np = 0, nl = 1, nn;
    layer[0] = (pool_node){v.root_key, 1.0, 0};
    for (int d = 0; d < DEPTH; d++) {
      nn = 0;
      for (int i = 0; i < nl; i++) {
        double probs[LS_VIEW_TOPK_MAX];
        int got = v.candidates(v.ctx, layer[i].key, layer[i].depth, probs, K);
        for (int r = 0; r < got; r++)
          next[nn++] = pool[np++] =
              (pool_node){v.child_key(v.ctx, layer[i].key, layer[i].depth, r), layer[i].score * probs[r], d + 1};
      }
      qsort(next, (size_t)nn, sizeof next[0], pool_cmp);
      nl = nn < K ? nn : K;
      memcpy(layer, next, sizeof(pool_node) * (size_t)nl);
    }
    qsort(pool, (size_t)np, sizeof pool[0], pool_cmp);
    /* kept keys = the top TOTAL-1 of the pool */
    int found = 0;
    for (int i = 0; i < TOTAL - 1; i++)
      for (int j = 1; j < t->n; j++)
        if (t->key[j] == pool[i].key) {
          found++;
          LS_ASSERT_CLOSE(t->path_prob[j], pool[i].score, 1e-12);
          break;
        }
    CU_ASSERT_EQUAL(found, TOTAL - 1);
  }
  free(t);
}

CU_TestInfo ls_t_eagle2[] = {{"kept set = connected top-(total-1) by cumulative score", test_eagle2_topk},
                             CU_TEST_INFO_NULL};

/* ---- opt-tree ---- */

static void test_opttree_threshold(void)
{
  ptest_rview rv;
  ls_draft_view v;
  ptest_rview_init(&rv, 1, 1, 0.5, &v); /* one candidate of probability 1/2 per node */
  ls_tree *t = new_tree();
  /* layer d adds 0.5^d exactly: with threshold 0.125 layers 1..3 pass, layer 4 stops */
  CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0.125;draft.topk=1", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 4);
  CU_ASSERT_EQUAL(t->n_steps, 4); /* the rejected layer was drafted */
  CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0.12500001;draft.topk=1", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 3);
  CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0;draft.topk=1;draft.max_depth=6", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 7);
  CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0;draft.topk=1;draft.max_nodes=5", t, &v, NULL), LS_OK);
  CU_ASSERT_EQUAL(t->n, 5);
  /* on a branching view: each kept layer's gain >= threshold, the next < threshold */
  for (int seed = 1; seed <= 10; seed++) {
    ptest_rview_init(&rv, (uint64_t)seed, 6, 0.0, &v);
    ls_tree *lo = new_tree();
    CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0.3", t, &v, NULL), LS_OK);
    CU_ASSERT_EQUAL(ptest_build("opt-tree", "draft.threshold=0.05", lo, &v, NULL), LS_OK);
    CU_ASSERT(ptest_tree_ok(t));
    CU_ASSERT(t->n <= lo->n);
    CU_ASSERT(ls_tree_expected_len(t) <= ls_tree_expected_len(lo) + 1e-12);
    free(lo);
  }
  free(t);
}

CU_TestInfo ls_t_opttree[] = {{"stops exactly at its threshold", test_opttree_threshold}, CU_TEST_INFO_NULL};
