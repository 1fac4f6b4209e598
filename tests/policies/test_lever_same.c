/* tests/policies/test_lever_same: Lever's builder (policies/draft_lever.c) picks the same trees
 * as a straightforward reference of its algorithm, written here from the header of
 * draft_lever.c: the pool is not kept sorted but sorted from scratch whenever it is read, the
 * stopping rule reads an explicitly merged gain list and queries the cost model afresh for
 * every entry, and every child key comes from the view when its node is created. The builder
 * keeps its pool, the stopping rule's prefix and the keys incrementally (lazily); the trees,
 * keys, step logs and online statistics must come out identical, bit for bit, over many
 * random views, cost models, settings and cycles of feedback. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "ptest.h"
#include "sim/rng.h"

#define RDBINS 9
#define RQBINS 10

typedef struct {
  int B, k, max_depth, width, marginal;
  double ratio;
  double hits[RDBINS][RQBINS], expect[RDBINS][RQBINS];
  double m[RDBINS][LS_VIEW_TOPK_MAX];
  int m_seen[RDBINS];
  double g[LS_TREE_MAX];
  unsigned char expanded[LS_TREE_MAX];
} lref;

static int rdbin(int depth) { return depth < RDBINS - 1 ? depth : RDBINS - 1; }
static int rqbin(double q) { return q >= 1.0 ? RQBINS - 1 : (int)(q * RQBINS); }

static double rcorrected(const lref *s, int depth, double q)
{
  int d = rdbin(depth), b = rqbin(q);
  double x = q * (s->hits[d][b] + 10.0) / (s->expect[d][b] + 10.0);
  return x < 1.0 ? x : 1.0;
}

static double rmean_child(const lref *s, int depth, int rank)
{
  for (int d = rdbin(depth); d >= 1; d--)
    if (s->m_seen[d])
      return s->m[d][rank];
  return 0.0;
}

static double rverify(const ls_cost_model *c, int n) { return c ? c->verify_s(c->ctx, n) : 0.0; }

/* The pool: every non-root node, ordered by (gain descending, index ascending), its first
 * B - 1 entries (the rest can never be chosen). */
static const lref *sort_ctx;
static int by_gain(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  if (sort_ctx->g[x] != sort_ctx->g[y])
    return sort_ctx->g[x] > sort_ctx->g[y] ? -1 : 1;
  return x < y ? -1 : 1;
}

static int rpool(const lref *s, const ls_tree *t, int *list)
{
  int n = 0;
  for (int i = 1; i < t->n; i++)
    list[n++] = i;
  sort_ctx = s;
  qsort(list, (size_t)n, sizeof *list, by_gain);
  return n < s->B - 1 ? n : s->B - 1;
}

/* The stopping rule over gains[0..n) (descending), as draft_lever.c's header states it. */
static int rprefix(const lref *s, const ls_cost_model *c, const double *gains, int n, double D, double *bE, double *bT)
{
  double E = 1.0, T = D + rverify(c, 1);
  int bn = 1;
  *bE = E;
  *bT = T;
  for (int i = 0; i < n && i < s->B - 1; i++) {
    double T2 = D + rverify(c, i + 2);
    if (s->marginal && T2 - T > 0.0 && !(gains[i] * T > E * (T2 - T)))
      break;
    E += gains[i];
    T = T2;
    if (s->marginal || E * *bT >= *bE * T) {
      bn = i + 2;
      *bE = E;
      *bT = T;
    }
  }
  return bn;
}

/* The pool's gains merged with extra[0..ne) (descending), the pool's entry first on a tie. */
static int rmerge(const lref *s, const int *list, int nl, const double *extra, int ne, double *out)
{
  int a = 0, b = 0, n = 0;
  while (a < nl || b < ne)
    out[n++] = (b >= ne || (a < nl && s->g[list[a]] >= extra[b])) ? s->g[list[a++]] : extra[b++];
  return n;
}

static int rsplit(const ls_cost_model *c, int m, int depth)
{
  if (!c || !c->draft_pair_s || m < 2)
    return 0;
  double best = c->draft_step_s(c->ctx, m, depth);
  int k = 0;
  for (int j = 1; j < m; j++) {
    double x = c->draft_pair_s(c->ctx, m - j, j, depth);
    if (x < best) {
      best = x;
      k = j;
    }
  }
  return k;
}

static void rabsorb(lref *s, ls_tree *t, const ls_draft_view *v, const int *batch, int m, const double *probs)
{
  for (int i = 0; i < m; i++) {
    int u = batch[i], d = t->depth[u] + 1, db = rdbin(d);
    for (int r = 0; r < s->k; r++) {
      double q = probs[i * s->k + r];
      if (q <= 0.0)
        break;
      double cq = rcorrected(s, d, q);
      s->m[db][r] = s->m_seen[db] ? 0.9 * s->m[db][r] + 0.1 * cq : cq;
      double gain = s->g[u] * cq;
      int before = 0; /* nodes that would precede the new one in the pool's order */
      for (int x = 1; x < t->n; x++)
        before += s->g[x] >= gain;
      if (before >= s->B - 1)
        continue; /* it could never be chosen */
      int c = ls_tree_add(t, v, u, r, q);
      if (c < 0)
        return;
      s->g[c] = gain;
      s->expanded[c] = 0;
    }
    for (int r = 0; r < s->k; r++)
      if (probs[i * s->k + r] <= 0.0)
        s->m[db][r] = s->m_seen[db] ? 0.9 * s->m[db][r] : 0.0;
    s->m_seen[db] = 1;
  }
}

static int rbatch(const lref *s, const ls_tree *t, int *batch)
{
  int list[LS_TREE_MAX], nl = rpool(s, t, list), m = 0;
  double top = -1.0;
  if (!s->expanded[0])
    batch[m++] = 0;
  for (int i = 0; i < nl && m < s->width; i++) {
    int u = list[i];
    if (s->expanded[u] || t->depth[u] >= s->max_depth)
      continue;
    if (top < 0.0)
      top = s->g[u];
    if (s->g[u] < s->ratio * top)
      break;
    batch[m++] = u;
  }
  return m;
}

static int by_value_desc(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x > y ? -1 : (x < y ? 1 : 0);
}

/* The look-ahead of one round: whether running it can improve the best E/T. */
static int rworth(const lref *s, const ls_tree *t, const ls_cost_model *c, const int *batch, int m, double D,
                  double bE, double bT)
{
  double est[2 * LS_TREE_MAX], merged[3 * LS_TREE_MAX], e2, t2;
  int list[LS_TREE_MAX], nl = rpool(s, t, list), ne = 0;
  for (int i = 0; i < m; i++)
    for (int r = 0; r < 2 && r < s->k; r++)
      est[ne++] = s->g[batch[i]] * rmean_child(s, t->depth[batch[i]] + 1, r);
  qsort(est, (size_t)ne, sizeof *est, by_value_desc);
  int n = rmerge(s, list, nl, est, ne, merged);
  rprefix(s, c, merged, n, D, &e2, &t2);
  return e2 * bT >= bE * t2;
}

static int rbuild(lref *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c)
{
  double probs[LS_TREE_MAX * 2], gains[LS_TREE_MAX];
  int batch[LS_TREE_MAX], list[LS_TREE_MAX];
  ls_tree_init(t, v);
  s->g[0] = 1.0;
  s->expanded[0] = 0;
  double D = 0.0, bE = 1.0, bT = rverify(c, 1);
  int bn = 1;
  for (;;) {
    int m = rbatch(s, t, batch);
    if (m == 0 || s->B <= 1 || t->n + m * s->k > LS_TREE_MAX || m * s->k > LS_TREE_MAX * 2)
      break;
    int maxd = 0;
    for (int i = 0; i < m; i++)
      maxd = t->depth[batch[i]] > maxd ? t->depth[batch[i]] : maxd;
    int split = rsplit(c, m, maxd);
    double step = c ? (split ? c->draft_pair_s(c->ctx, m - split, split, maxd) : c->draft_step_s(c->ctx, m, maxd)) : 0.0;
    if (t->n_steps > 0 && !rworth(s, t, c, batch, m, D + step, bE, bT))
      break;
    D += step;
    for (int i = 0; i < m; i++)
      s->expanded[batch[i]] = 1;
    int parts[2] = {m - split, split};
    for (int p = 0, off = 0; p < 2 && parts[p] > 0; off += parts[p], p++) {
      if (ls_tree_expand(t, v, batch + off, parts[p], s->k, probs) != LS_OK)
        return LS_ERANGE;
      rabsorb(s, t, v, batch + off, parts[p], probs);
    }
    int nl = rpool(s, t, list);
    for (int i = 0; i < nl; i++)
      gains[i] = s->g[list[i]];
    bn = rprefix(s, c, gains, nl, D, &bE, &bT);
  }
  int nl = rpool(s, t, list);
  unsigned char keep[LS_TREE_MAX];
  memset(keep, 0, (size_t)t->n);
  keep[0] = 1;
  for (int i = 0; i < bn - 1 && i < nl; i++)
    keep[list[i]] = 1;
  ls_tree_compact(t, keep);
  return LS_OK;
}

static void rfeedback(lref *s, const ls_tree *t, const int *accepted, int n)
{
  int u = 0;
  for (int i = 0; i <= n; i++) {
    int next = i < n ? accepted[i] : -1;
    for (int c = u + 1; c < t->n; c++)
      if (t->parent[c] == u) {
        int d = rdbin(t->depth[c]), b = rqbin(t->prob[c]);
        s->expect[d][b] += t->prob[c];
        s->hits[d][b] += c == next;
      }
    u = next;
  }
}

/* ---- cost models: ptest_cost (one unit), and a CPU/NPU pair as map_lever places passes ---- */

typedef struct {
  ptest_cost base;
  int batch_min, npu_pad;
  double cpu0, cpu1, npu0, npu1;
} pair_cost;

static double pair_step(const void *ctx, int n, int depth)
{
  const pair_cost *p = ctx;
  if (n <= 0)
    return 0.0;
  if (n < p->batch_min)
    return p->cpu0 + p->cpu1 * n * (1.0 + 0.01 * depth);
  int pad = (n + p->npu_pad - 1) / p->npu_pad * p->npu_pad;
  return p->npu0 + p->npu1 * pad;
}

static double pair_pair(const void *ctx, int n1, int n2, int depth)
{
  const pair_cost *p = ctx;
  double a = pair_step(ctx, n1, depth), b = pair_step(ctx, n2, depth);
  if (n1 <= 0 || n2 <= 0)
    return a + b;
  return (n1 < p->batch_min) != (n2 < p->batch_min) ? (a > b ? a : b) : a + b;
}

static double pair_verify(const void *ctx, int n)
{
  const pair_cost *p = ctx;
  ls_cost_model c;
  ptest_cost_bind((ptest_cost *)&p->base, &c);
  return c.verify_s(c.ctx, n);
}

static void pair_bind(pair_cost *p, ls_cost_model *c)
{
  ptest_cost_bind(&p->base, c);
  c->ctx = p;
  c->verify_s = pair_verify;
  c->draft_step_s = pair_step;
  c->draft_pair_s = pair_pair;
  c->verify_saved_s = NULL;
}

static int same_tree(const ls_tree *a, const ls_tree *b)
{
  size_t n = (size_t)a->n, s = (size_t)a->n_steps;
  return a->n == b->n && a->n_steps == b->n_steps && !memcmp(a->parent, b->parent, n * sizeof(int)) &&
         !memcmp(a->depth, b->depth, n * sizeof(int)) && !memcmp(a->rank, b->rank, n * sizeof(int)) &&
         !memcmp(a->prob, b->prob, n * sizeof(double)) && !memcmp(a->path_prob, b->path_prob, n * sizeof(double)) &&
         !memcmp(a->key, b->key, n * sizeof(uint64_t)) && !memcmp(a->node_step, b->node_step, n * sizeof(int)) &&
         !memcmp(a->step_nodes, b->step_nodes, s * sizeof(int)) &&
         !memcmp(a->step_depth, b->step_depth, s * sizeof(int)) && !memcmp(a->step_dep, b->step_dep, s * sizeof(int));
}

/* A random accepted path: from the root, a child of the node picked by the key's hash, or the
 * walk stops (about one cycle in four accepts nothing). */
static int random_path(const ls_tree *t, uint64_t h, int *acc)
{
  int u = 0, n = 0;
  for (;;) {
    h = ls_mix64(h + 1);
    if (ls_uniform(h) < 0.25)
      return n;
    int kids[LS_VIEW_TOPK_MAX], nk = 0;
    for (int c = u + 1; c < t->n && nk < LS_VIEW_TOPK_MAX; c++)
      if (t->parent[c] == u)
        kids[nk++] = c;
    if (nk == 0)
      return n;
    u = kids[ls_mix64(h) % (uint64_t)nk];
    acc[n++] = u;
  }
}

typedef struct {
  long cycles, nodes, differ;
} tally;

/* One configuration: the builder and the reference side by side over `cycles` cycles with the
 * same feedback, the cost model's *drift (a per-token compute cost, when not NULL) growing
 * from cycle to cycle as the context does in a run; counts the cycles, the nodes of the builder's trees (so a caller can see they
 * are not trivial) and the cycles whose trees differed (0 expected). */
static void compare_run(const char *settings, const ls_draft_view *v, const ls_cost_model *c, double *drift,
                        int cycles, uint64_t seed, tally *tl)
{
  ls_kv *kv = ptest_kv(settings);
  void *st = NULL;
  lref *r = calloc(1, sizeof *r);
  ls_tree *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  ls_error err;
  CU_ASSERT_FATAL(kv && r && a && b && ls_draft_lever.create(&st, kv, &err) == LS_OK);
  long B, k, d, w;
  double ratio;
  const char *stops[] = {"marginal", "best", NULL};
  int stop = 0;
  ls_kv_int(kv, "draft.budget", 1, LS_TREE_MAX, 64, &B, &err);
  ls_kv_enum(kv, "draft.stop", stops, 0, &stop, &err);
  ls_kv_int(kv, "draft.topk", 1, LS_VIEW_TOPK_MAX, 8, &k, &err);
  ls_kv_int(kv, "draft.max_depth", 1, 256, B > 1 ? B - 1 : 1, &d, &err);
  ls_kv_int(kv, "draft.width", 1, LS_TREE_MAX, 16, &w, &err);
  ls_kv_double(kv, "draft.batch_ratio", 0.0, 1.0, 0.25, &ratio, &err);
  *r = (lref){.B = (int)B, .k = (int)k, .max_depth = (int)d, .width = (int)w, .marginal = stop == 0, .ratio = ratio};
  for (int i = 0; i < cycles; i++) {
    ls_draft_view vi = *v;
    vi.root_key = ls_mix64(v->root_key + (uint64_t)i); /* a new text position each cycle */
    if (drift)
      *drift *= 1.03;
    int ra = ls_draft_lever.build(st, a, &vi, c, &err), rb = rbuild(r, b, &vi, c);
    CU_ASSERT_EQUAL(ra, rb);
    tl->differ += !same_tree(a, b);
    tl->nodes += a->n;
    tl->cycles++;
    int acc[LS_TREE_MAX], n = random_path(a, seed * 7919u + (uint64_t)i, acc);
    ls_draft_lever.feedback(st, a, acc, n);
    rfeedback(r, b, acc, n);
  }
  ls_draft_lever.destroy(st);
  ls_kv_free(kv);
  free(r);
  free(a);
  free(b);
}

static void test_lever_same_trees(void)
{
  static const char *const settings[] = {
      "draft.budget=64",
      "draft.budget=64;draft.stop=best",
      "draft.budget=24;draft.topk=4;draft.width=6",
      "draft.budget=128;draft.topk=16;draft.batch_ratio=0.1",
      "draft.budget=40;draft.max_depth=5;draft.topk=3",
      "draft.budget=2;draft.topk=1",
      "draft.budget=1",
      "draft.budget=300;draft.width=64;draft.topk=12",
      /* batches of every depth (no ratio): the look-ahead's estimates per rank out of order */
      "draft.budget=96;draft.topk=2;draft.width=32;draft.batch_ratio=0",
      "draft.budget=64;draft.topk=3;draft.width=24;draft.batch_ratio=0;draft.stop=best",
  };
  const double io[] = {0.0, 0.003, 0.02, 0.2};
  tally tl = {0, 0, 0};
  for (size_t si = 0; si < sizeof settings / sizeof settings[0]; si++)
    for (int seed = 1; seed <= 6; seed++) {
      ptest_rview rv;
      ls_draft_view v;
      ptest_rview_init(&rv, (uint64_t)seed * 31u + si, seed % 3 == 0 ? 16 : 10, 0.0, &v);
      for (int ci = 0; ci < 4; ci++) {
        ptest_cost pc = {32, ci % 2 ? 16 : 1, io[ci], 0.001, 0.00005 * ci, 0.002 + 0.001 * ci, 0.0003};
        pair_cost pp = {pc, 4, 8, 0.002, 0.0004, 0.003, 0.00002 * (ci + 1)};
        ls_cost_model c;
        if (seed % 2)
          pair_bind(&pp, &c);
        else
          ptest_cost_bind(&pc, &c);
        compare_run(settings[si], &v, &c, seed % 2 ? &pp.base.c1 : &pc.c1, 25, (uint64_t)seed, &tl);
      }
      compare_run(settings[si], &v, NULL, NULL, 5, (uint64_t)seed, &tl); /* no cost model */
    }
  CU_ASSERT_EQUAL(tl.differ, 0);
  CU_ASSERT(tl.nodes > 10 * tl.cycles); /* trees of more than ten nodes on average */
}

/* A single-candidate view (chain-like trees) and a positional view with equal probabilities
 * (ties everywhere: the order of creation decides). */
static void test_lever_same_degenerate(void)
{
  tally tl = {0, 0, 0};
  for (int seed = 1; seed <= 4; seed++) {
    ptest_rview rv;
    ls_draft_view v;
    ptest_rview_init(&rv, (uint64_t)seed, 1, 0.3 + 0.15 * seed, &v);
    ptest_cost pc = {32, 1, 0.01, 0.001, 0.0001, 0.002, 0.0002};
    ls_cost_model c;
    ptest_cost_bind(&pc, &c);
    compare_run("draft.budget=32", &v, &c, &pc.c1, 20, (uint64_t)seed, &tl);
    double p[4] = {0.2, 0.2, 0.2, 0.2};
    ls_posview pv;
    ls_posview_init(&pv, p, 4, (uint64_t)seed, &v, NULL);
    compare_run("draft.budget=48;draft.topk=4", &v, &c, &pc.c1, 20, (uint64_t)seed, &tl);
    compare_run("draft.budget=48;draft.topk=4;draft.stop=best", &v, NULL, NULL, 5, (uint64_t)seed, &tl);
  }
  CU_ASSERT_EQUAL(tl.differ, 0);
  CU_ASSERT(tl.nodes > 2 * tl.cycles);
}

CU_TestInfo ls_t_lever_same[] = {{"same trees as the reference over random views and costs", test_lever_same_trees},
                                 {"same trees on single-candidate and tied views", test_lever_same_degenerate},
                                 CU_TEST_INFO_NULL};
