/* policies/draft_sequoia: "sequoia", the optimal tree for a positional acceptance vector
 * (Chen et al. 2024, "Sequoia"; src:sequoia).
 *
 * Model: the child of rank r (0 = the draft's best candidate) of an accepted node is accepted
 * with probability p_r, independently of the tree's shape. The expected accepted length of a
 * tree (bonus included) is then sum over nodes of the product of p along its path (root: 1).
 *
 * Dynamic programme, for every size n <= B (root included) and depth bound d <= D:
 *   T(d, 1) = 1;  T(0, n > 1) = -inf;  T(d, n) = 1 + C(d, n - 1, 0)
 *   C(d, m, j) = best of sum_{i >= j} p_i T(d - 1, m_i) over child subtrees of ranks j, j+1,
 *                .. (sizes m_i >= 1 summing to m) = max(0 if m = 0,
 *                max_{s=1..m} p_j T(d - 1, s) + C(d, m - s, j + 1))    (j < W)
 * O(B^2 D W) time (sizes whose terms are -inf are not visited: at depth bounds 0 and 1 a
 * subtree has at most 1 and W + 1 nodes); choices are kept to rebuild the shapes. Rows
 * repeat: C(d, m, .) reads T(d - 1, s) for s <= m only, so where rows d - 1 and d - 2 of T
 * agree bit for bit on sizes 0..K (always K >= d - 2: a depth bound at or past n - 1 does not
 * bind a tree of n nodes), row d's columns and choices for m <= K are row d - 1's, the same
 * operations on the same numbers; they are kept, not recomputed.
 * Hardware-aware choice (Sequoia's section 4): (n*, d*) = argmin (draft time + t_verify(n))
 * / T(d, n) where the draft time is the sum over the shape's levels of one batched draft
 * pass over the level's expanded nodes (draft_step_s, i.e. as the map policy executes it;
 * Sequoia writes d * t_draft). Without a cost model the largest tree (n = B, d = D) is taken.
 * Consecutive depth bounds d, d + 1 of one size often give the same shape (the same T and
 * per-level widths), hence the same ratio; of such a run only its last bound is compared,
 * which is what the scan with ties to the later (n, d) picks among equal ratios.
 *
 * The vector: draft.acceptance (fixed), else measured online from feedback starting from a
 * prior: per rank, trials = times a rank-r child of an accepted node was in the tree, hits =
 * times it was the accepted child; p_r = (hits + K p0_r) / (trials + K), K = 20 (assumed: a
 * prior worth about 20 cycles). The DP is recomputed only when some p_r moved by more than
 * draft.recompute_tol (default 0.02) since the last DP, since build runs every cycle.
 * Settings: draft.budget (64), draft.max_depth (12), draft.width (8, children per node at
 * most), draft.acceptance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies_int.h"

#define W_MAX LS_VIEW_TOPK_MAX
#define D_MAX 32
#define PRIOR_K 20.0

/* One (size, depth bound) choose() compares: its expected length and the indices in
 * seq_state.steps of its levels' (level, width) keys; d is the last bound of its run;
 * shared: how many leading keys it has in common with the shape before it of the same size
 * (0 for the first), whose running sums over them choose() reuses. */
typedef struct {
  double e;
  int n, d, first, count, shared;
} seq_shape;

typedef struct {
  int B, D, W, online;
  double tol;
  double p_used[W_MAX];              /* vector the cached DP was computed with */
  double p0[W_MAX], hits[W_MAX], trials[W_MAX];
  int dp_valid;
  long solves;                       /* DP recomputations (test hook) */
  double *T;      /* (D+1) x (B+1) */
  double *C;      /* (W+1) x (B+1) scratch for one d: column j of C(., j) contiguous */
  short *choice;  /* (D+1) x (B+1) x (W+1): size of the rank-j subtree */
  short *widths;  /* (D+1) x (B+1) x D: expanded nodes per level of the optimal shape */
  int *steps;     /* the (level, width) keys, level * (B+1) + width, the shapes of T > 0 cost,
                     each once, in the order choose() first meets them (made by solve) */
  int n_steps;
  double *step_s; /* n_steps: draft_step_s of steps[i] in the current build */
  int *step_at;   /* D x (B+1): index in steps of a key while the list is made, -1 unseen */
  seq_shape *shapes; /* the (n, d) choose() compares, in its order, one per run of equal shapes */
  int n_shapes;
  int *shape_steps;  /* shapes' step indices, level by level (shape k: first .. first+count) */
} seq_state;

#define T_AT(s, d, n) ((s)->T[(size_t)(d) * (size_t)((s)->B + 1) + (size_t)(n)])
#define CH_AT(s, d, m, j) \
  ((s)->choice[((size_t)(d) * (size_t)((s)->B + 1) + (size_t)(m)) * (size_t)((s)->W + 1) + (size_t)(j)])
#define WD_AT(s, d, n, l) ((s)->widths[((size_t)(d) * (size_t)((s)->B + 1) + (size_t)(n)) * (size_t)(s)->D + (size_t)(l)])

static void destroy(void *state)
{
  seq_state *s = state;
  if (!s)
    return;
  free(s->T);
  free(s->C);
  free(s->choice);
  free(s->widths);
  free(s->steps);
  free(s->step_s);
  free(s->step_at);
  free(s->shapes);
  free(s->shape_steps);
  free(s);
}

static int create(void **state, ls_kv *kv, ls_error *err)
{
  long D, W;
  int B, n = 0;
  double p[W_MAX];
  /* assumed prior (no draft.acceptance): a typical top-1 acceptance near 0.6 (tau of chain
     SD ~2.3, src:spec-bench) with a quickly decaying tail */
  static const double PRIOR[8] = {0.6, 0.15, 0.08, 0.05, 0.03, 0.02, 0.01, 0.01};
  double tol;
  int rc = ls_policy_budget(kv, 64, &B, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.max_depth", 1, D_MAX - 1, 12, &D, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.width", 1, W_MAX, 8, &W, err);
  if (rc == LS_OK)
    rc = ls_kv_double(kv, "draft.recompute_tol", 0.0, 1.0, 0.02, &tol, err);
  if (rc == LS_OK)
    rc = ls_kv_doubles(kv, "draft.acceptance", 0.0, 1.0, p, W_MAX, &n, err);
  if (rc != LS_OK)
    return rc;
  seq_state *s = calloc(1, sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "sequoia: out of memory");
  s->B = B;
  s->D = (int)D;
  s->W = (int)W;
  s->tol = tol;
  s->online = n == 0;
  for (int r = 0; r < W_MAX; r++)
    s->p0[r] = n ? (r < n ? p[r] : 0.0) : (r < 8 ? PRIOR[r] : 0.0);
  s->T = malloc(sizeof(double) * (size_t)(s->D + 1) * (size_t)(B + 1));
  s->C = malloc(sizeof(double) * (size_t)(B + 1) * (size_t)(s->W + 1));
  size_t cells = (size_t)(s->D + 1) * (size_t)(B + 1); /* (d, n) pairs */
  s->choice = calloc(cells * (size_t)(s->W + 1), sizeof(short));
  s->widths = calloc(cells * (size_t)s->D, sizeof(short));
  s->steps = malloc(sizeof(int) * (size_t)s->D * (size_t)(B + 1));
  s->step_s = malloc(sizeof(double) * (size_t)s->D * (size_t)(B + 1));
  s->step_at = malloc(sizeof(int) * (size_t)s->D * (size_t)(B + 1));
  s->shapes = malloc(sizeof(seq_shape) * cells);
  s->shape_steps = malloc(sizeof(int) * cells * (size_t)s->D);
  if (!s->T || !s->C || !s->choice || !s->widths || !s->steps || !s->step_s || !s->step_at || !s->shapes ||
      !s->shape_steps) {
    destroy(s);
    return ls_error_set(err, LS_ENOMEM, "sequoia: out of memory for the DP table (budget %d)", B);
  }
  *state = s;
  return LS_OK;
}

static void current_vector(const seq_state *s, double *p)
{
  for (int r = 0; r < W_MAX; r++)
    p[r] = s->online ? (s->hits[r] + PRIOR_K * s->p0[r]) / (s->trials[r] + PRIOR_K) : s->p0[r];
}

/* The expanded-node count per level of the optimal shape of (d, n), from the counts of its
 * children's shapes (d - 1, one level down): the root of a tree of more than one node at a
 * depth bound > 0 is expanded (level 0), and its rank-j child's subtree is the optimal shape
 * of (d - 1, CH(d, m, j)). Integer counts: the same numbers as walking the shape node by node
 * (which cost O(B) per (d, n), this O(W D)); needs row d - 1 filled (zeros for d - 1 = 0). */
static void shape_widths(seq_state *s, int d, int n)
{
  short *w = &WD_AT(s, d, n, 0);
  if (n <= 1 || d == 0)
    return;
  w[0] = 1;
  int m = n - 1;
  for (int j = 0; m > 0 && j < s->W; j++) {
    int sz = CH_AT(s, d, m, j);
    const short *c = &WD_AT(s, d - 1, sz, 0);
    for (int l = 0; l + 1 < d; l++) /* a depth-(d - 1) shape expands levels 0..d - 2 only */
      w[l + 1] = (short)(w[l + 1] + c[l]);
    m -= sz;
  }
}

/* The last index of a[0..n] holding a finite value (-1 when none). Finite entries of a DP row
 * form a prefix of the sizes a depth and width allow; the rest are -inf. */
static int last_finite(const double *a, int n)
{
  while (n >= 0 && a[n] == -INFINITY)
    n--;
  return n;
}

/* Column j of C (j = W .. 0) for depth bound d, as a max-plus convolution of the rank-j
 * subtree's value p_j T(d - 1, sz) with column j + 1 (contiguous, C is (W+1) x (B+1)):
 *   C(m, j) = max(0 if m = 0, max_{sz} p_j T(d - 1, sz) + C(m - sz, j + 1)),
 * for m >= from; entries below from are row d - 1's, left in place (solve: rows repeat).
 * Column j is computed up to m = B - 1 - j: a tree of at most B nodes holds the root and one
 * node under each rank before j, so nothing (T, column j - 1, the shapes) reads it further;
 * its entries past that are stale and column j - 1's scan stops before them.
 * Only sizes whose two terms are finite are visited (sz <= top, m - sz <= ctop): an entry
 * with a -inf term is -inf or NaN (p_j = 0), which never beats the running best, so the
 * maximum and its first argument are those of the full scan over sz = 1..m, bit for bit
 * (the products and sums are the same operations; with -ffp-contract=off no FMA merges
 * them). */
/* The first maximum of pt[sz] + cn[m - sz] over sz = lo..hi, counted only above *best (then
 * in *best, its sz in *arg), as the plain scan finds it; four sums at a time, whose largest
 * is compared first: a block with none above the running best changes nothing, so only
 * blocks that hold one are scanned in order. No sum is NaN (both terms finite), so the
 * largest of four is above the best exactly when one of them is. */
static void conv_max(const double *pt, const double *cn, int m, int lo, int hi, double *best, int *arg)
{
  double b = *best;
  int a = *arg, sz = lo;
  for (; sz + 3 <= hi; sz += 4) {
    const double *c = cn + (m - sz);
    double v0 = pt[sz] + c[0], v1 = pt[sz + 1] + c[-1], v2 = pt[sz + 2] + c[-2], v3 = pt[sz + 3] + c[-3];
    double x = v0 > v1 ? v0 : v1, y = v2 > v3 ? v2 : v3;
    if (!((x > y ? x : y) > b))
      continue;
    if (v0 > b)
      b = v0, a = sz;
    if (v1 > b)
      b = v1, a = sz + 1;
    if (v2 > b)
      b = v2, a = sz + 2;
    if (v3 > b)
      b = v3, a = sz + 3;
  }
  for (; sz <= hi; sz++) {
    double val = pt[sz] + cn[m - sz];
    if (val > b) {
      b = val;
      a = sz;
    }
  }
  *best = b;
  *arg = a;
}

static void solve_column(seq_state *s, int d, int j, double pj, int from)
{
  const int B = s->B, last = B - 1 - j; /* the last m any reader asks (above) */
  const double *tp = &T_AT(s, d - 1, 0);
  const double *cn = &s->C[(size_t)(j + 1) * (size_t)(B + 1)];
  double *cj = &s->C[(size_t)j * (size_t)(B + 1)];
  double pt[LS_TREE_MAX + 1];
  int top = last_finite(tp, B), ctop = last_finite(cn, last - 1);
  for (int sz = 1; sz <= top && sz <= last; sz++)
    pt[sz] = pj * tp[sz];
  for (int m = from; m <= last; m++) {
    double best = m == 0 ? 0.0 : -INFINITY;
    int arg = 0;
    int lo = m - ctop > 1 ? m - ctop : 1, hi = m < top ? m : top;
    conv_max(pt, cn, m, lo, hi, &best, &arg);
    cj[m] = best;
    CH_AT(s, d, m, j) = (short)arg;
  }
}

/* Whether shape (d, n) is shape (d - 1, n): the same T bits and the same expanded widths
 * level by level (d - 1's level d - 1 is empty), so choose() computes the same ratio. Equal
 * T with other widths was not met in the tests (dyadic vectors included: the scan's ties go
 * to the smallest subtree first), but the ratio reads both, so both are compared. */
static int same_shape(const seq_state *s, int d, int n)
{
  double a = T_AT(s, d, n), b = T_AT(s, d - 1, n);
  return memcmp(&a, &b, sizeof a) == 0 &&
         memcmp(&WD_AT(s, d, n, 0), &WD_AT(s, d - 1, n, 0), sizeof(short) * (size_t)s->D) == 0;
}

/* Appends shape (d, n) to the list choose() compares, with the indices of its levels' (level,
 * width) keys in s->steps; a key met first is appended to s->steps. The keys are listed in
 * choose's loop order, each once, so a build asks the cost model for exactly these, in the
 * order a lazy memo filled in that loop would (draft_step_s depends on the build's context,
 * not on the order). */
static void add_shape(seq_state *s, int d, int n, int *used)
{
  seq_shape *sh = &s->shapes[s->n_shapes++];
  sh->e = T_AT(s, d, n);
  sh->n = n;
  sh->d = d;
  sh->first = *used;
  sh->count = 0;
  for (int l = 0; l < d && WD_AT(s, d, n, l) > 0; l++) {
    int key = l * (s->B + 1) + WD_AT(s, d, n, l);
    if (s->step_at[key] < 0) {
      s->step_at[key] = s->n_steps;
      s->steps[s->n_steps++] = key;
    }
    s->shape_steps[(*used)++] = s->step_at[key];
    sh->count++;
  }
  sh->shared = 0;
  const seq_shape *prev = s->n_shapes > 1 ? sh - 1 : NULL;
  if (prev && prev->n == n)
    while (sh->shared < sh->count && sh->shared < prev->count &&
           s->shape_steps[sh->first + sh->shared] == s->shape_steps[prev->first + sh->shared])
      sh->shared++;
}

/* The shapes choose() compares: every (n, d) with T(d, n) > 0 in its loop order (n = 1: the
 * root alone, d = 0), except that a run of consecutive bounds with the same shape is one
 * entry holding the run's last d. choose() keeps the later of equal ratios (<=), so of a run
 * it picks the last bound or none: the entry gives the scan's answer with one comparison. */
static void list_shapes(seq_state *s)
{
  const int B = s->B;
  int used = 0;
  for (int i = 0; i < s->D * (B + 1); i++)
    s->step_at[i] = -1;
  s->n_steps = 0;
  s->n_shapes = 0;
  if (T_AT(s, 0, 1) > 0.0)
    add_shape(s, 0, 1, &used);
  for (int n = 2; n <= B; n++)
    for (int d = 1; d <= s->D; d++) {
      if (T_AT(s, d, n) <= 0.0)
        continue;
      seq_shape *last = s->n_shapes ? &s->shapes[s->n_shapes - 1] : NULL;
      if (last && last->n == n && last->d == d - 1 && same_shape(s, d, n))
        last->d = d;
      else
        add_shape(s, d, n, &used);
    }
}

/* The number of sizes, from 0, on which rows d and d - 1 of T agree bit for bit, less one;
 * they are known to agree below from. */
static int rows_agree(const seq_state *s, int d, int from)
{
  int n = from < s->B ? from : s->B; /* from is B + 1 once two rows agree everywhere */
  while (n + 1 <= s->B) {
    double a = T_AT(s, d, n + 1), b = T_AT(s, d - 1, n + 1);
    if (memcmp(&a, &b, sizeof a) != 0)
      break;
    n++;
  }
  return n;
}

static void solve(seq_state *s, const double *p)
{
  const int B = s->B, W = s->W;
  int same = -1; /* rows d - 1 and d - 2 of T agree on sizes 0..same (none before row 2) */
  for (int n = 0; n <= B; n++)
    T_AT(s, 0, n) = n == 1 ? 1.0 : -INFINITY;
  for (int d = 1; d <= s->D; d++) {
    int from = same + 1; /* C(d, m, .) = C(d - 1, m, .), still in the scratch, for m < from */
    double *cw = &s->C[(size_t)W * (size_t)(B + 1)];
    for (int m = 0; m <= B; m++)
      cw[m] = m == 0 ? 0.0 : -INFINITY;
    if (from > 0)
      memcpy(&CH_AT(s, d, 0, 0), &CH_AT(s, d - 1, 0, 0), sizeof(short) * (size_t)from * (size_t)(W + 1));
    for (int j = W - 1; j >= 0; j--) /* C(m, j) over j from W down to 0 */
      solve_column(s, d, j, p[j], from);
    T_AT(s, d, 0) = -INFINITY;
    for (int n = 1; n <= B; n++)
      T_AT(s, d, n) = 1.0 + s->C[n - 1];
    same = rows_agree(s, d, from); /* T(d, n) = T(d - 1, n) for n <= from */
  }
  memset(s->widths, 0, sizeof(short) * (size_t)(s->D + 1) * (size_t)(B + 1) * (size_t)s->D);
  for (int d = 1; d <= s->D; d++) /* row d from row d - 1 */
    for (int n = 1; n <= B; n++)
      shape_widths(s, d, n);
  list_shapes(s);
  memcpy(s->p_used, p, sizeof s->p_used);
  s->dp_valid = 1;
  s->solves++;
}

/* argmin over (d, n) of cycle time per expected token; ties keep the smaller tree. */
static void choose(seq_state *s, const ls_cost_model *c, int *bn, int *bd)
{
  *bn = 1;
  *bd = 0;
  if (!c) { /* no costs: the largest feasible tree */
    for (int n = s->B; n > 1; n--)
      if (T_AT(s, s->D, n) > 0.0) {
        *bn = n;
        *bd = s->D;
        return;
      }
    return;
  }
  for (int i = 0; i < s->n_steps; i++) { /* each step time once per build, as choose meets them */
    int l = s->steps[i] / (s->B + 1), w = s->steps[i] % (s->B + 1);
    s->step_s[i] = c->draft_step_s(c->ctx, w, l);
  }
  double best = INFINITY;
  double part[D_MAX]; /* part[l]: tv plus the steps of levels 0..l of the last shape of this n */
  for (int n = 1, k = 0; n <= s->B; n++) {
    double tv = c->verify_s(c->ctx, n);
    for (; k < s->n_shapes && s->shapes[k].n == n; k++) {
      const seq_shape *sh = &s->shapes[k];
      const int *idx = &s->shape_steps[sh->first];
      double t = sh->shared ? part[sh->shared - 1] : tv; /* the same sums, in the same order */
      for (int l = sh->shared; l < sh->count; l++)
        part[l] = t = t + s->step_s[idx[l]];
      if (t / sh->e <= best) { /* ties: the larger tree */
        best = t / sh->e;
        *bn = n;
        *bd = sh->d;
      }
    }
  }
}

/* Plan of one tree node: the (depth bound, size) of its subtree in the optimal shape. */
static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  seq_state *s = state;
  double p[W_MAX];
  current_vector(s, p);
  int stale = !s->dp_valid;
  for (int r = 0; r < W_MAX && !stale; r++)
    stale = fabs(p[r] - s->p_used[r]) > s->tol;
  if (stale)
    solve(s, p);
  int n, d;
  choose(s, cost, &n, &d);
  short pd[LS_TREE_MAX], pn[LS_TREE_MAX];
  int nodes[LS_TREE_MAX];
  double probs[LS_TREE_MAX * 2];
  ls_tree_init(t, v);
  pd[0] = (short)d;
  pn[0] = (short)n;
  int lo = 0, hi = 1;
  while (hi > lo) {
    int m = 0, k = 0;
    for (int u = lo; u < hi; u++)
      if (pn[u] > 1 && pd[u] > 0) {
        nodes[m++] = u;
        int kids = 0;
        for (int j = 0, rest = pn[u] - 1; rest > 0 && j < s->W; rest -= CH_AT(s, pd[u], rest, j), j++)
          kids++;
        k = kids > k ? kids : k;
      }
    if (m == 0)
      break;
    if ((size_t)m * (size_t)k > sizeof probs / sizeof probs[0] || ls_tree_expand(t, v, nodes, m, k, probs) != LS_OK)
      return ls_error_set(err, LS_ERANGE, "sequoia: draft step too large");
    lo = hi;
    for (int i = 0; i < m; i++) {
      int u = nodes[i], rest = pn[u] - 1;
      for (int j = 0; rest > 0 && j < s->W; j++) {
        int sz = CH_AT(s, pd[u], rest, j);
        rest -= sz;
        double q = probs[i * k + j];
        if (q <= 0.0)
          continue; /* the draft offered fewer candidates: that subtree is dropped */
        int c = ls_tree_add(t, v, u, j, q);
        if (c < 0)
          break;
        pd[c] = (short)(pd[u] - 1);
        pn[c] = (short)sz;
      }
    }
    hi = t->n;
  }
  return LS_OK;
}

static void feedback(void *state, const ls_tree *t, const int *accepted, int n)
{
  seq_state *s = state;
  if (!s->online)
    return;
  int u = 0;
  for (int i = 0; i <= n; i++) {
    int next = i < n ? accepted[i] : -1;
    for (int c = u + 1; c < t->n; c++)
      if (t->parent[c] == u && t->rank[c] < W_MAX) {
        s->trials[t->rank[c]] += 1.0;
        if (c == next)
          s->hits[t->rank[c]] += 1.0;
      }
    u = next;
  }
}

/* Test hook (policies_int.h): expected accepted length of the DP's best tree of size n
 * (root included) and depth <= d under the cached vector. */
double ls_sequoia_value(void *state, int n, int d)
{
  seq_state *s = state;
  if (!s->dp_valid) {
    double p[W_MAX];
    current_vector(s, p);
    solve(s, p);
  }
  return T_AT(s, d, n);
}

long ls_sequoia_solves(const void *state) { return ((const seq_state *)state)->solves; }

int ls_sequoia_width(const void *state, int n, int d, int l)
{
  const seq_state *s = state;
  return s->dp_valid && n >= 0 && n <= s->B && d >= 0 && d <= s->D && l >= 0 && l < s->D ? WD_AT(s, d, n, l) : 0;
}

void ls_sequoia_choose(void *state, const ls_cost_model *c, int *n, int *d)
{
  seq_state *s = state;
  if (!s->dp_valid) {
    double p[W_MAX];
    current_vector(s, p);
    solve(s, p);
  }
  choose(s, c, n, d);
}

int ls_sequoia_choice(const void *state, int d, int m, int j)
{
  const seq_state *s = state;
  return s->dp_valid && d >= 1 && d <= s->D && m >= 0 && j >= 0 && j < s->W && m <= s->B - 1 - j ? CH_AT(s, d, m, j) : -1;
}

const ls_draft_ops ls_draft_sequoia = {"sequoia", "DP-optimal tree for a positional acceptance vector, hardware-aware size/depth",
                                       create, destroy, build, feedback, NULL};
