/* tests/policies/test_builders_same: Sequoia's, OPT-Tree's and EAGLE-2's builders against plain
 * references of what they compute (issue 33, session 18: the builders keep less and recompute
 * less; every answer must stay the same bit for bit).
 *  - Sequoia: the DP (values, choices, per-level widths) against the full scan of its
 *    recurrence, and the hardware-aware choice (size and depth bound) against the scan of its
 *    definition over every (n, d), on random vectors, budgets, widths, depths and costs;
 *  - the kept-across-layers top-m selection (its set and its list in index order) against a
 *    sort of the whole pool after each layer;
 *  - OPT-Tree and EAGLE-2 against their algorithms written with eagerly keyed candidates and a
 *    from-scratch selection: the same trees, keys and step logs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"
#include "sim/rng.h"

#define RB 64 /* the references' largest budget, width and depth */
#define RW 8
#define RD 12

/* A uniform in [0, 1) from a counter (splitmix64). */
static double unif(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  z ^= z >> 31;
  return (double)(z >> 11) / 9007199254740992.0;
}

typedef struct {
  double t[RD + 1][RB + 1];
  short ch[RD + 1][RB + 1][RW]; /* first argument of each maximum, 0: none */
} seq_ref;

/* The recurrence at the top of draft_sequoia.c, every size scanned (first maximum kept). */
static void seq_reference(const double *p, int W, int B, int D, seq_ref *r)
{
  static double c[RB + 1][RW + 1];
  memset(r->ch, 0, sizeof r->ch);
  for (int n = 0; n <= B; n++)
    r->t[0][n] = n == 1 ? 1.0 : -INFINITY;
  for (int d = 1; d <= D; d++) {
    for (int m = 0; m <= B; m++)
      c[m][W] = m == 0 ? 0.0 : -INFINITY;
    for (int j = W - 1; j >= 0; j--)
      for (int m = 0; m <= B; m++) {
        double best = m == 0 ? 0.0 : -INFINITY;
        for (int sz = 1; sz <= m; sz++) {
          double a = r->t[d - 1][sz], b = c[m - sz][j + 1];
          if (a != -INFINITY && b != -INFINITY && p[j] * a + b > best) {
            best = p[j] * a + b;
            r->ch[d][m][j] = (short)sz;
          }
        }
        c[m][j] = best;
      }
    r->t[d][0] = -INFINITY;
    for (int n = 1; n <= B; n++)
      r->t[d][n] = 1.0 + c[n - 1][0];
  }
}

/* Expanded nodes per level of the shape (d, n) rebuilt node by node from the choices. */
static void seq_ref_widths(const seq_ref *r, int W, int d, int n, int level, int *w)
{
  if (n <= 1 || d == 0)
    return;
  w[level]++;
  for (int j = 0, rest = n - 1; rest > 0 && j < W; j++) {
    int sz = r->ch[d][rest][j];
    seq_ref_widths(r, W, d - 1, sz, level + 1, w);
    rest -= sz;
  }
}

typedef struct {
  double a, b, c0, c1, lv;
  int step; /* verify_s has a step at this size (padding-like plateaus make ties) */
} seq_cost;

static double sc_verify(const void *ctx, int n)
{
  const seq_cost *c = ctx;
  return c->a + c->b * (n > c->step ? c->step + 8 : n);
}

static double sc_draft(const void *ctx, int w, int level)
{
  const seq_cost *c = ctx;
  return (c->c0 + c->c1 * w) * (1.0 + c->lv * level);
}

/* The choice from its definition: argmin over (d, n) with T > 0 of (verify(n) + the shape's
 * draft steps level by level) / T, ties to the later (n, d). */
static void seq_ref_choose(const seq_ref *r, const ls_cost_model *c, int W, int B, int D, int *bn, int *bd)
{
  double best = INFINITY;
  *bn = 1;
  *bd = 0;
  for (int n = 1; n <= B; n++)
    for (int d = n == 1 ? 0 : 1; d <= (n == 1 ? 0 : D); d++) {
      double t = c->verify_s(c->ctx, n), e = r->t[d][n];
      if (e <= 0.0)
        continue;
      int w[RD + 1] = {0};
      seq_ref_widths(r, W, d, n, 0, w);
      for (int l = 0; l < d && w[l] > 0; l++)
        t += c->draft_step_s(c->ctx, w[l], l);
      if (t / e <= best) {
        best = t / e;
        *bn = n;
        *bd = d;
      }
    }
}

/* 60 random settings: vectors decaying, flat (ties in T) or with zero ranks; the DP's table,
 * choices and widths and the choice under three cost models each equal the references. */
static void test_sequoia_random(void)
{
  static seq_ref r;
  uint64_t x = 33;
  int bad_t = 0, bad_ch = 0, bad_w = 0, bad_choice = 0, chosen_deep = 0;
  for (int it = 0; it < 60; it++) {
    int B = it < 6 ? 64 : 2 + (int)(unif(&x) * 63), W = 1 + (int)(unif(&x) * 8), D = 1 + (int)(unif(&x) * 12);
    if (it < 6)
      W = 8, D = 12;
    double p[RW], left = 1.0;
    for (int j = 0; j < W; j++) {
      int kind = it % 4; /* 3: powers of two, whose products tie exactly across shapes */
      p[j] = kind == 0   ? left * (0.2 + 0.6 * unif(&x))
             : kind == 1 ? 0.5 / W
             : kind == 2 ? (unif(&x) < 0.3 ? 0.0 : 0.5 * unif(&x) / W)
                         : ldexp(1.0, -(j + 1 + (it / 4) % 2));
      if (j == 0 && p[0] == 0.0)
        p[0] = 0.4;
      left -= p[j];
    }
    char set[512];
    int o = snprintf(set, sizeof set, "draft.budget=%d;draft.width=%d;draft.max_depth=%d;draft.acceptance=", B, W, D);
    for (int j = 0; j < W; j++)
      o += snprintf(set + o, sizeof set - (size_t)o, "%s%.17g", j ? "," : "", p[j]);
    ls_kv *kv = ptest_kv(set);
    void *st = NULL;
    CU_ASSERT_EQUAL_FATAL(ls_draft_sequoia.create(&st, kv, NULL), LS_OK);
    seq_reference(p, W, B, D, &r);
    for (int d = 0; d <= D; d++)
      for (int n = 0; n <= B; n++) {
        double a = ls_sequoia_value(st, n, d);
        bad_t += memcmp(&a, &r.t[d][n], sizeof a) != 0;
        int w[RD + 1] = {0};
        seq_ref_widths(&r, W, d, n, 0, w);
        for (int l = 0; l < D; l++)
          bad_w += ls_sequoia_width(st, n, d, l) != w[l];
        for (int j = 0; d > 0 && n <= B - 1 - j && j < W; j++)
          bad_ch += ls_sequoia_choice(st, d, n, j) != r.ch[d][n][j];
      }
    for (int k = 0; k < 3; k++) {
      seq_cost sc = {0.01 + 0.02 * unif(&x), 1e-5 * unif(&x), 1e-4 + 2e-3 * unif(&x) * (k + 1), 1e-4 * unif(&x),
                     0.3 * unif(&x), 4 + (int)(unif(&x) * 40)};
      ls_cost_model c = {0};
      c.ctx = &sc;
      c.verify_s = sc_verify;
      c.draft_step_s = sc_draft;
      int n, d, rn, rd;
      ls_sequoia_choose(st, &c, &n, &d);
      seq_ref_choose(&r, &c, W, B, D, &rn, &rd);
      bad_choice += n != rn || d != rd;
      chosen_deep += rd > 1 && rd < D;
    }
    ls_draft_sequoia.destroy(st);
    ls_kv_free(kv);
  }
  CU_ASSERT_EQUAL(bad_t, 0);
  CU_ASSERT_EQUAL(bad_ch, 0);
  CU_ASSERT_EQUAL(bad_w, 0);
  CU_ASSERT_EQUAL(bad_choice, 0);
  CU_ASSERT(chosen_deep > 10); /* choices away from the edges of the depth range were compared */
}

/* before()'s order: path_prob descending, index ascending. */
static const ls_tree *g_sort_tree;
static int by_path(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  const ls_tree *t = g_sort_tree;
  if (t->path_prob[x] != t->path_prob[y])
    return t->path_prob[x] > t->path_prob[y] ? -1 : 1;
  return x < y ? -1 : 1;
}

static void ref_top(const ls_tree *t, int m, unsigned char *keep)
{
  int idx[LS_TREE_MAX];
  for (int i = 1; i < t->n; i++)
    idx[i - 1] = i;
  g_sort_tree = t;
  qsort(idx, (size_t)(t->n - 1), sizeof idx[0], by_path);
  memset(keep, 0, (size_t)t->n);
  keep[0] = 1;
  for (int i = 0; i < m && i < t->n - 1; i++)
    keep[idx[i]] = 1;
}

/* Pools grown layer by layer (random probabilities, and equal ones so that path
 * probabilities tie): after each layer the kept selection marks the sort's m first. */
static void test_top_incremental(void)
{
  uint64_t x = 7;
  ls_tree *t = malloc(sizeof *t);
  int bad = 0, layers = 0;
  for (int it = 0; it < 200; it++) {
    int m = (int)(unif(&x) * 90), ties = it % 2;
    ls_tree_top tp;
    ls_tree_top_init(&tp, m, 1);
    ls_tree_init(t, NULL);
    int lo = 0, hi = 1;
    for (int layer = 0; layer < 6 && t->n < 600; layer++) {
      for (int u = lo; u < hi && t->n < 600; u++)
        for (int r = 0, k = 1 + (int)(unif(&x) * 5); r < k; r++)
          ls_tree_add_unkeyed(t, u, r, ties ? (r == 0 ? 0.5 : 0.25) : unif(&x));
      lo = hi;
      hi = t->n;
      ls_tree_top_update(&tp, t);
      unsigned char a[LS_TREE_MAX], b[LS_TREE_MAX];
      int got = ls_tree_top_mark(&tp, t, a), count, j = 0;
      ref_top(t, m, b);
      bad += memcmp(a, b, (size_t)t->n) != 0 || got != (m < t->n - 1 ? m : t->n - 1);
      const int *asc = ls_tree_top_nodes(&tp, &count); /* the same nodes, ascending */
      for (int i = 1; i < t->n; i++)
        if (b[i])
          bad += j >= count || asc[j++] != i;
      bad += j != count;
      layers++;
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(layers > 600);
  free(t);
}

/* OPT-Tree as it was written before session 18: every candidate keyed when added, the
 * proposed tree selected from the whole pool at every layer. */
static void ref_opttree(ls_tree *t, const ls_draft_view *v, int k, int max_depth, int keep_n, double thr)
{
  unsigned char cur[LS_TREE_MAX], next[LS_TREE_MAX];
  int layer[LS_TREE_MAX];
  double probs[LS_TREE_MAX];
  ls_tree_init(t, v);
  cur[0] = 1;
  double e = 1.0;
  int m = 1;
  layer[0] = 0;
  for (int d = 1; d <= max_depth && m > 0 && keep_n > 0; d++) {
    if (m * k > LS_TREE_MAX)
      m = LS_TREE_MAX / k;
    ls_tree_expand(t, v, layer, m, k, probs);
    int n0 = t->n, full = 0;
    for (int i = 0; i < m && !full; i++)
      for (int r = 0; r < k && !full; r++)
        if (probs[i * k + r] > 0.0)
          full = ls_tree_add(t, v, layer[i], r, probs[i * k + r]) < 0;
    for (int i = n0; i < t->n; i++)
      cur[i] = 0;
    ref_top(t, keep_n, next);
    double e2 = 1.0;
    for (int i = 1; i < t->n; i++)
      if (next[i])
        e2 += t->path_prob[i];
    if (e2 - e < thr)
      break;
    e = e2;
    memcpy(cur, next, (size_t)t->n); /* T = T', and its nodes at depth d are evaluated next */
    m = 0;
    for (int i = 1; i < t->n; i++)
      if (cur[i] && t->depth[i] == d)
        layer[m++] = i;
  }
  ls_tree_compact(t, cur);
}

/* EAGLE-2 as it was written before session 18 (eager keys). */
static void ref_eagle2(ls_tree *t, const ls_draft_view *v, int k, int depth, int keep_n)
{
  int sel[LS_VIEW_TOPK_MAX];
  double probs[LS_VIEW_TOPK_MAX * LS_VIEW_TOPK_MAX];
  unsigned char keep[LS_TREE_MAX];
  ls_tree_init(t, v);
  int m = 1, lo = 0, hi = 1, full = 0;
  sel[0] = 0;
  for (int step = 0; step < depth && m > 0 && !full; step++) {
    ls_tree_expand(t, v, sel, m, k, probs);
    lo = hi;
    for (int i = 0; i < m && !full; i++)
      for (int r = 0; r < k; r++)
        if (probs[i * k + r] > 0.0 && ls_tree_add(t, v, sel[i], r, probs[i * k + r]) < 0) {
          full = 1;
          break;
        }
    hi = t->n;
    int idx[LS_TREE_MAX], n = 0;
    for (int u = lo; u < hi; u++)
      idx[n++] = u;
    g_sort_tree = t;
    qsort(idx, (size_t)n, sizeof idx[0], by_path);
    m = n < k ? n : k;
    memcpy(sel, idx, sizeof(int) * (size_t)m);
  }
  ref_top(t, keep_n, keep);
  ls_tree_compact(t, keep);
}

/* Everything a verification and the runner read of a tree, compared. */
static int same_tree(const ls_tree *a, const ls_tree *b)
{
  if (a->n != b->n || a->n_steps != b->n_steps)
    return 0;
  size_t n = (size_t)a->n, s = (size_t)a->n_steps;
  return !memcmp(a->parent, b->parent, n * sizeof(int)) && !memcmp(a->depth, b->depth, n * sizeof(int)) &&
         !memcmp(a->rank, b->rank, n * sizeof(int)) && !memcmp(a->prob, b->prob, n * sizeof(double)) &&
         !memcmp(a->path_prob, b->path_prob, n * sizeof(double)) && !memcmp(a->key, b->key, n * sizeof(uint64_t)) &&
         !memcmp(a->node_step, b->node_step, n * sizeof(int)) && !memcmp(a->step_nodes, b->step_nodes, s * sizeof(int)) &&
         !memcmp(a->step_depth, b->step_depth, s * sizeof(int)) && !memcmp(a->step_dep, b->step_dep, s * sizeof(int));
}

/* Random views (seeds 1..40) and positional ones (equal probabilities at every node: ties),
 * over settings from one candidate to 16, shallow to deep, small to the whole tree. */
static void test_pool_builders_same(void)
{
  static const char *opt[] = {"", "draft.topk=16;draft.max_nodes=200;draft.threshold=0.05;draft.max_depth=12",
                              "draft.topk=3;draft.max_nodes=20;draft.threshold=0;draft.max_depth=30",
                              "draft.topk=1;draft.threshold=0.01"};
  static const int optk[] = {8, 16, 3, 1}, optd[] = {10, 12, 30, 10}, optn[] = {60, 200, 20, 60};
  static const double optt[] = {0.5, 0.05, 0.0, 0.01};
  static const char *eag[] = {"", "draft.topk=16;draft.depth=7;draft.total_tokens=300", "draft.topk=2;draft.depth=12;draft.total_tokens=9"};
  static const int eagk[] = {10, 16, 2}, eagd[] = {5, 7, 12}, eagn[] = {60, 300, 9};
  ls_tree *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  int bad = 0, trees = 0, big = 0;
  for (int seed = 1; seed <= 44; seed++) {
    ptest_rview rv;
    ls_posview pv;
    ls_draft_view v;
    if (seed <= 40)
      ptest_rview_init(&rv, (uint64_t)seed, 16, 0.0, &v);
    else {
      static const double pos[4][3] = {{0.5, 0.25, 0.125}, {0.3, 0.3, 0.3}, {0.6, 0.2, 0.1}, {0.25, 0.25, 0.25}};
      ls_posview_init(&pv, pos[seed - 41], 3, (uint64_t)seed, &v, NULL);
    }
    for (int i = 0; i < 4; i++) {
      CU_ASSERT_EQUAL_FATAL(ptest_build("opt-tree", opt[i], a, &v, NULL), LS_OK);
      ref_opttree(b, &v, optk[i], optd[i], optn[i] - 1, optt[i]);
      bad += !same_tree(a, b);
      big += a->n > 30;
      trees++;
    }
    for (int i = 0; i < 3; i++) {
      CU_ASSERT_EQUAL_FATAL(ptest_build("eagle2", eag[i], a, &v, NULL), LS_OK);
      ref_eagle2(b, &v, eagk[i], eagd[i], eagn[i] - 1);
      bad += !same_tree(a, b);
      trees++;
    }
  }
  CU_ASSERT_EQUAL(bad, 0);
  CU_ASSERT(big > 40); /* trees deep and wide enough that unkept candidates abound */
  CU_ASSERT_EQUAL(trees, 44 * 7);
  free(a);
  free(b);
}

CU_TestInfo ls_t_builders_same[] = {
    {"sequoia: DP, choices, widths and choice equal the references (60 settings)", test_sequoia_random},
    {"top-m kept across layers equals a sort of the pool", test_top_incremental},
    {"opt-tree and eagle2 equal their eager references", test_pool_builders_same},
    CU_TEST_INFO_NULL};
