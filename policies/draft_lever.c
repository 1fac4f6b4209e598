/* policies/draft_lever: "lever", Lever's I/O- and compute-aware gain/cost tree builder
 * (src:lever-html Algorithm 1, src:lever-notes: expand greedily by gain/cost; the objective is expected output
 * tokens per cycle latency).
 *
 * Gain of a node c (child of u, draft probability q, depth d): its probability of being
 * accepted, g(c) = g(u) * min(1, q * f(d, b(q))), g(root) = 1, where f corrects the draft's
 * confidence with online acceptance statistics per depth bin d (1..8+) and confidence bucket
 * b(q) (tenths): f = (hits + K) / (sum of q + K), K = 10 (assumed: about ten observations
 * before the statistics outweigh the draft's own calibration). g never rises along a path, so
 * the n - 1 candidates of largest gain always form a tree (ties: earlier index first).
 * Expected tokens of a tree: E(n) = 1 + sum of its gains (bonus included).
 * Cost of a cycle: T(n) = D + V(n): D = draft time of the passes run so far (draft_step_s,
 * as the map policy executes them: CPU for small irregular steps, one NPU call for batched
 * ones), V(n) = verify_s(n) (flash I/O paid once per pass, NPU compute at the padded count,
 * output projection as mapped). Objective: J(n) = E(n) / T(n), tokens per second.
 *
 * Algorithm (rounds of batched expansion; each round is one draft pass):
 *   1. round 0 evaluates the root; its top-k candidates join the pool (top B-1 by gain).
 *   2. the tree of the pool is its top n - 1, n* from the stopping rule (best_prefix).
 *   3. the next batch: unexpanded pool nodes (depth < max_depth) of gain >= batch_ratio x
 *      the best unexpanded gain, in gain order, at most draft.width of them.
 *   3b. a batch may run as two concurrent passes, its high-gain head and its low-gain tail,
 *      when the map places them on different units (CPU and NPU) and the pair is faster
 *      (best_split); D then grows by the slower of the two.
 *   4. look-ahead: estimate the batch's top-2 children as g(u) * m(d+1, r), m the running
 *      mean of corrected candidate probabilities per depth and rank; if the best J with these
 *      estimates and the extra pass (D + step) is >= the current best J, run the round
 *      (evaluate the batch, add its candidates, back to 2), else stop.
 *   5. the tree: top n* - 1 of the pool (every evaluated node still cost draft time).
 * Bookkeeping (the same trees as the plain algorithm, bit for bit: tests/policies
 * test_lever_same.c runs a plain reference beside it): the pool is kept sorted as nodes join
 * (insert); a candidate that could never be chosen is not added; a node's key is asked of the
 * view only when it is expanded or kept (keys_for); verification times are asked once per
 * size and build.
 * Which nodes and batches come next never depends on costs (only on gains), so costs decide
 * only where the sequence stops and how big the final tree is. Hence (proof in the tests'
 * comments, checked by property tests): adding to T(n) a term that does not grow with n
 * (slower flash: more I/O per pass) never shrinks the tree; a free verification grows it to
 * the budget. Settings: draft.budget (64: a cap, the top of the paper's range), draft.stop
 * (marginal: Algorithm 1's rule, see best_prefix; or best), draft.topk (8: assumed, candidates per evaluated
 * node), draft.max_depth (the budget - 1, i.e. no cap of its own: Algorithm 1 has none, and
 * a cap of 12 bound in 67-73 % of Llama-3.1-8B cycles; docs/CALIBRATION.md §3), draft.width (16: assumed, nodes per pass),
 * draft.batch_ratio (0.25: assumed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies_int.h"

#define DBINS 9 /* depth bins 1..8, deeper nodes share bin 8 (index 0 unused) */
#define QBINS 10
#define CAL_K 10.0
#define M_SMOOTH 0.1 /* weight of a new observation in the running means m(d, r) */
#define AHEAD_RANKS 2 /* ranks the look-ahead estimates (step 4), the only means m(d, r) read */

typedef struct {
  int B, k, max_depth, width, marginal;
  double ratio;
  double hits[DBINS][QBINS], expect[DBINS][QBINS];
  double m[DBINS][AHEAD_RANKS]; /* only ranks the look-ahead reads: the others' means were never used */
  int m_seen[DBINS];
  /* per-build scratch */
  double g[LS_TREE_MAX];
  unsigned char expanded[LS_TREE_MAX];
  unsigned char keyed[LS_TREE_MAX]; /* the node's key is set (keys are asked lazily, see keys_for) */
  int list[LS_TREE_MAX]; /* pool: node indices sorted by (gain desc, index asc), <= B - 1 */
  int n_list;
  double vmemo[LS_TREE_MAX + 1];
} lever_state;

static int create(void **state, ls_kv *kv, ls_error *err)
{
  int B;
  long k, d, w;
  double ratio;
  static const char *const STOPS[] = {"marginal", "best", NULL};
  int stop = 0;
  /* the cap is the top of the paper's budget range 4..64 (src:lever-paper Fig. 5); the tree's
   * size comes from the stopping rule below it */
  int rc = ls_policy_budget(kv, 64, &B, err);
  if (rc == LS_OK)
    rc = ls_kv_enum(kv, "draft.stop", STOPS, 0, &stop, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.topk", 1, LS_VIEW_TOPK_MAX, 8, &k, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.max_depth", 1, 256, B > 1 ? B - 1 : 1, &d, err); /* no cap but the budget */
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.width", 1, LS_TREE_MAX, 16, &w, err);
  if (rc == LS_OK)
    rc = ls_kv_double(kv, "draft.batch_ratio", 0.0, 1.0, 0.25, &ratio, err);
  if (rc != LS_OK)
    return rc;
  lever_state *s = calloc(1, sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "lever: out of memory");
  s->B = B;
  s->k = (int)k;
  s->max_depth = (int)d;
  s->width = (int)w;
  s->ratio = ratio;
  s->marginal = stop == 0;
  *state = s;
  return LS_OK;
}

static int dbin(int depth) { return depth < DBINS - 1 ? depth : DBINS - 1; }
static int qbin(double q) { return q >= 1.0 ? QBINS - 1 : (int)(q * QBINS); }

static double corrected(const lever_state *s, int depth, double q)
{
  int d = dbin(depth), b = qbin(q);
  double x = q * (s->hits[d][b] + CAL_K) / (s->expect[d][b] + CAL_K);
  return x < 1.0 ? x : 1.0;
}

/* Running mean of corrected candidate probability at (depth, rank); deeper bins fall back
 * to the deepest one seen. */
static double mean_child(const lever_state *s, int depth, int rank)
{
  for (int d = dbin(depth); d >= 1; d--)
    if (s->m_seen[d])
      return s->m[d][rank];
  return 0.0;
}

/* V(n) of this build; without a cost model the memo holds zeros (set in build), so c is never
 * read then and no test of it is made per query. */
static double verify(lever_state *s, const ls_cost_model *c, int n)
{
  if (s->vmemo[n] < 0.0)
    s->vmemo[n] = c->verify_s(c->ctx, n);
  return s->vmemo[n];
}

/* Puts node c into the pool's sorted list, whose first n entries are kept (the entry at n, if
 * any, drops out). The list is in (gain descending, index ascending) order, a total order, so
 * its content fixes its order; c is the newest node (ls_tree_add numbers nodes in order), so
 * it goes after every entry of gain >= its own and before the rest: found by bisection. */
static void insert(lever_state *s, int c, int n)
{
  int lo = 0, hi = n;
  double gain = s->g[c];
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->g[s->list[mid]] >= gain)
      lo = mid + 1;
    else
      hi = mid;
  }
  memmove(s->list + lo + 1, s->list + lo, (size_t)(n - lo) * sizeof s->list[0]);
  s->list[lo] = c;
}

/* The marginal rule's refusal of the next entry: its gain per second added, gain / (T2 - T),
 * does not beat the tree's E / T (a node that adds no time always joins). */
static inline int refuses(double gain, double E, double T, double T2) { return T2 - T > 0.0 && !(gain * T > E * (T2 - T)); }

/* The tree size for a gain list under draft time D: returns n (root included) and its E and T
 * through the pointers. The list is the merge, descending, of the pool (s->list, its gains in
 * s->g) and extra[0..ne) (sorted descending; the look-ahead's estimates, ne = 0 for none), the
 * pool's entry first on a tie, at most B - 1 entries. The merge is taken one entry at a time
 * as the rule reads it, so the marginal rule, which stops at its first refusal, reads only
 * the entries up to it (the same list, and so the same n, as merging first). Compares ratios
 * by cross-multiplication so that zero costs are well defined. The marginal rule's walk makes
 * the merge's choice per entry only while estimates are left, then reads the pool alone.
 * draft.stop = marginal (the paper's Algorithm 1, src:lever-html): nodes join in gain order
 * while the next node's gain per second it adds beats the tree's current E/T, i.e.
 * g * T > E * dT; a node that adds no time (dT <= 0: same padded pass) always joins.
 * draft.stop = best: the prefix of largest E/T over all lengths (ties: larger n), which can
 * look past a costly step to a cheaper region further on. */
static int best_prefix(lever_state *s, const ls_cost_model *c, const double *extra, int ne, double D,
                       double *bestE, double *bestT)
{
  double E = 1.0, T = D + verify(s, c, 1), bE = E, bT = T; /* locals: no store per entry through the pointers */
  int bn = 1, a = 0, b = 0;
  if (s->marginal) { /* two phases: the merge's choice per entry while estimates are left, then the pool alone */
    int i = 0, open = 1;
    for (; i < s->B - 1 && b < ne; i++) {
      double gain = a < s->n_list && s->g[s->list[a]] >= extra[b] ? s->g[s->list[a++]] : extra[b++];
      double T2 = D + verify(s, c, i + 2);
      if (refuses(gain, E, T, T2)) {
        open = 0;
        break;
      }
      E += gain;
      T = T2;
    }
    for (; open && i < s->B - 1 && a < s->n_list; i++, a++) {
      double gain = s->g[s->list[a]], T2 = D + verify(s, c, i + 2);
      if (refuses(gain, E, T, T2))
        break;
      E += gain;
      T = T2;
    }
    *bestE = E;
    *bestT = T;
    return i + 1;
  }
  for (int i = 0; i < s->B - 1 && (a < s->n_list || b < ne); i++) {
    double gain = (b >= ne || (a < s->n_list && s->g[s->list[a]] >= extra[b])) ? s->g[s->list[a++]] : extra[b++];
    double T2 = D + verify(s, c, i + 2);
    E += gain;
    T = T2;
    if (E * bT >= bE * T) {
      bn = i + 2;
      bE = E;
      bT = T;
    }
  }
  *bestE = bE;
  *bestT = bT;
  return bn;
}

/* Sets the keys of nodes[0..m) that have none. A node's key is asked only when it is expanded
 * or kept: most candidates that join the pool leave it again unexpanded (a later, better one
 * pushes them out, or the stopping rule cuts them off), and a key is a pure function of the
 * path (workloads/view.h), so asking it late gives the key ls_tree_add would have set. */
static void keys_for(lever_state *s, ls_tree *t, const ls_draft_view *v, const int *nodes, int m)
{
  for (int i = 0; i < m; i++)
    if (!s->keyed[nodes[i]]) {
      ls_tree_set_key(t, v, nodes[i]);
      s->keyed[nodes[i]] = 1;
    }
}

/* Merges the new nodes nw[0..nn) into the sorted list, which they do not fill beyond its cap.
 * They are the newest nodes, in index order: sorted among themselves by gain (a stable
 * insertion sort keeps equal gains in index order), then merged from the back, where a new
 * node goes after an old entry of gain >= its own (the larger index) and before the rest, as
 * insert would place it. One pass over the list's tail instead of a bisection and a memmove
 * per node. */
static void merge_new(lever_state *s, int *nw, int nn)
{
  for (int i = 1; i < nn; i++)
    for (int j = i; j > 0 && s->g[nw[j]] > s->g[nw[j - 1]]; j--) {
      int x = nw[j];
      nw[j] = nw[j - 1];
      nw[j - 1] = x;
    }
  int i = s->n_list - 1, j = nn - 1, w = s->n_list + nn - 1;
  double gj = s->g[nw[j]];
  while (j >= 0) {
    if (i >= 0 && s->g[s->list[i]] < gj) {
      s->list[w--] = s->list[i--];
      continue;
    }
    s->list[w--] = nw[j--];
    gj = j >= 0 ? s->g[nw[j]] : 0.0;
  }
  s->n_list += nn;
}

/* Adds the batch's evaluated candidates to the tree (pool) and the sorted list. When the list
 * cannot fill (room for every candidate), none is refused or dropped, so the new nodes are
 * collected and merged at the end (merge_new); otherwise each goes in as it comes (insert),
 * the full list refusing or dropping its last. */
static void absorb(lever_state *s, ls_tree *t, const int *batch, int m, const double *probs)
{
  const int cap = s->B - 1;
  int nw[LS_TREE_MAX], nn = 0, merge = s->n_list + m * s->k <= cap;
  for (int i = 0; i < m; i++) {
    int u = batch[i];
    int d = t->depth[u] + 1, db = dbin(d);
    for (int r = 0; r < s->k; r++) {
      double q = probs[i * s->k + r];
      if (q <= 0.0)
        break;
      double cq = corrected(s, d, q);
      if (r < AHEAD_RANKS)
        s->m[db][r] = s->m_seen[db] ? (1.0 - M_SMOOTH) * s->m[db][r] + M_SMOOTH * cq : cq;
      double gain = s->g[u] * cq;
      if (s->n_list == cap && !(gain > s->g[s->list[cap - 1]]))
        continue; /* never selectable: the list only improves */
      int c = ls_tree_add_unkeyed(t, u, r, q);
      if (c < 0)
        return;
      s->g[c] = gain;
      s->expanded[c] = 0;
      s->keyed[c] = 0;
      if (merge)
        nw[nn++] = c;
      else
        insert(s, c, s->n_list < cap ? s->n_list++ : cap - 1);
    }
    for (int r = 0; r < s->k && r < AHEAD_RANKS; r++) /* a rank the draft did not offer counts as zero */
      if (probs[i * s->k + r] <= 0.0)
        s->m[db][r] = s->m_seen[db] ? (1.0 - M_SMOOTH) * s->m[db][r] : 0.0;
    s->m_seen[db] = 1;
  }
  if (nn > 0)
    merge_new(s, nw, nn);
}

static int pick_batch(const lever_state *s, const ls_tree *t, int *batch)
{
  int m = 0;
  double top = -1.0;
  if (!s->expanded[0])
    batch[m++] = 0;
  for (int i = 0; i < s->n_list && m < s->width; i++) {
    int u = s->list[i];
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

/* CPU/NPU concurrency (src:lever-html, mapping): the tail of k nodes of an m-node batch can
 * run as its own pass beside the head's pass when the map puts the two on different units;
 * returns the k that makes the pair fastest if that beats one pass (0 otherwise). */
static int best_split(const ls_cost_model *c, int m, int depth)
{
  if (!c || !c->draft_pair_s || m < 2)
    return 0;
  double best = c->draft_step_s(c->ctx, m, depth);
  int k = 0;
  for (int j = 1; j < m; j++) {
    double t = c->draft_pair_s(c->ctx, m - j, j, depth);
    if (t < best) {
      best = t;
      k = j;
    }
  }
  return k;
}

/* Step 4, the look-ahead: whether the round of batch[0..m) with draft time D (the pass
 * included) may reach a J of at least bestE / bestT, its children estimated as g(u) x m(d + 1,
 * r) for ranks 0 and 1. */
static int worth_round(lever_state *s, const ls_tree *t, const ls_cost_model *c, const int *batch, int m, double D,
                       double bestE, double bestT)
{
  double est[AHEAD_RANKS * LS_TREE_MAX], e2, t2;
  int ne = 0;
  for (int i = 0; i < m; i++)
    for (int r = 0; r < AHEAD_RANKS && r < s->k; r++)
      est[ne++] = s->g[batch[i]] * mean_child(s, t->depth[batch[i]] + 1, r);
  for (int i = 1; i < ne; i++) /* insertion sort, descending (ne <= 2 * width; a batch is 1 to 3 nodes mostly) */
    for (int j = i; j > 0 && est[j] > est[j - 1]; j--) {
      double x = est[j];
      est[j] = est[j - 1];
      est[j - 1] = x;
    }
  best_prefix(s, c, est, ne, D, &e2, &t2);
  return e2 * bestT >= bestE * t2;
}

static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *err)
{
  lever_state *s = state;
  double probs[LS_TREE_MAX * 2];
  int batch[LS_TREE_MAX];
  ls_tree_init(t, v);
  s->g[0] = 1.0;
  s->expanded[0] = 0;
  s->keyed[0] = 1;
  s->n_list = 0;
  for (int i = 0; i <= s->B; i++) /* V(n) is asked once per size and build (the costs change between builds) */
    s->vmemo[i] = c ? -1.0 : 0.0;
  double D = 0.0, bestE = 1.0, bestT = verify(s, c, 1);
  int bestn = 1;
  for (;;) {
    int m = pick_batch(s, t, batch);
    if (m == 0 || s->B <= 1 || t->n + m * s->k > LS_TREE_MAX || m * s->k > (int)(sizeof probs / sizeof probs[0]))
      break;
    int maxd = 0;
    for (int i = 0; i < m; i++)
      maxd = t->depth[batch[i]] > maxd ? t->depth[batch[i]] : maxd;
    int split = best_split(c, m, maxd); /* 0: one pass; k: the last k nodes in a concurrent pass */
    double step = c ? (split ? c->draft_pair_s(c->ctx, m - split, split, maxd) : c->draft_step_s(c->ctx, m, maxd)) : 0.0;
    /* look-ahead (the root's pass is always made: nothing to draft otherwise) */
    if (t->n_steps > 0 && !worth_round(s, t, c, batch, m, D + step, bestE, bestT))
      break;
    D += step;
    for (int i = 0; i < m; i++)
      s->expanded[batch[i]] = 1;
    /* the batch's high-gain head, then (split) its low-gain tail as a second pass that needs
     * nothing the first produces, so the runner runs both at once on different units */
    int parts[2] = {m - split, split};
    for (int p = 0, off = 0; p < 2 && parts[p] > 0; off += parts[p], p++) {
      keys_for(s, t, v, batch + off, parts[p]);
      if (ls_tree_expand(t, v, batch + off, parts[p], s->k, probs) != LS_OK)
        return ls_error_set(err, LS_ERANGE, "lever: draft step log full");
      absorb(s, t, batch + off, parts[p], probs);
    }
    bestn = best_prefix(s, c, NULL, 0, D, &bestE, &bestT);
  }
  unsigned char keep[LS_TREE_MAX];
  memset(keep, 0, (size_t)t->n);
  keep[0] = 1;
  for (int i = 0; i < bestn - 1; i++)
    keep[s->list[i]] = 1;
  keys_for(s, t, v, s->list, bestn - 1);
  ls_tree_compact(t, keep);
  return LS_OK;
}

static void feedback(void *state, const ls_tree *t, const int *accepted, int n)
{
  lever_state *s = state;
  int u = 0;
  for (int i = 0; i <= n; i++) {
    int next = i < n ? accepted[i] : -1;
    for (int c = u + 1; c < t->n; c++)
      if (t->parent[c] == u) {
        int d = dbin(t->depth[c]), b = qbin(t->prob[c]);
        s->expect[d][b] += t->prob[c];
        s->hits[d][b] += c == next;
      }
    u = next;
  }
}

const ls_draft_ops ls_draft_lever = {"lever", "greedy gain/cost tree: expected tokens per second of the whole cycle",
                                     create, free, build, feedback, NULL};
