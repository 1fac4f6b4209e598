/* policies/prune_early_exit: "early-exit", Lever's branch pruning at an intermediate target
 * layer (src:lever-notes, pruning safeguards; src:lever-paper, the predictor).
 *
 * At the exit layer a lightweight predictor scores every tree node (a logit: higher = more
 * likely to be the target's token). Scores are normalised within each candidate set (the
 * children of one node) together with a "shadow" candidate of logit prune.shadow standing for
 * every token the draft did not propose:  s_i = exp(x_i) / (exp(shadow) + sum_j exp(x_j)).
 * A node is kept when s_i >= prune.threshold, then the safeguards apply, in this order:
 *   near the root: in candidate sets whose parent has depth < prune.root_depth, the
 *     prune.root_keep best children are kept whatever their score (several candidates);
 *   main path: from the root, the most confident child at each level, down to a leaf;
 *   ancestors: every ancestor of a kept node is kept (a node is verifiable only with its
 *     whole path), so the kept set is a tree;
 *   cancel: if fewer than prune.min_nodes nodes or prune.min_leaves leaves (each capped at
 *     the tree's own count) would survive, nothing is pruned.
 *   cost gate (prune.gate = cost; our extension, off by default, see below): if the prune
 *     would not raise the cycle's expected tokens per second, nothing is pruned.
 * Lossless: a pruned node on the true path only shortens acceptance; the target still
 * produces the bonus token at the last kept accepted node.
 *
 * Cost gate. The paper's safeguards cancel a prune that would leave too little of the tree;
 * the gate cancels one that buys no time, the same idea driven by the device cost model the
 * draft policy plans with (ls_prune_ctx; docs/CALIBRATION.md section 3, an assumption of
 * ours). A prune removes n - k of the tree's n tokens from the layers after the exit layer:
 *   saved = cost->verify_saved_s(n, k, exit_layer)     (policies/costmodel.c: zero where the
 *           pass is flash-bound or the NPU pads k and n to one shape)
 * and, in expectation, accepted tokens: with s_i the normalised score above (an estimate of
 * node i's acceptance given its parent's, from the exit-layer evidence) and
 *   a_i = product of s_j along the path root -> i   (estimated P(i is accepted)),
 *   E_all = sum over the tree's nodes i != 0 of a_i,  E_kept = the same over kept nodes,
 * the expected tokens of the cycle are 1 + E (the bonus token plus the accepted ones). With
 *   T = pc->spent_s + cost->verify_s(n)   (drafting so far + the whole tree's pass),
 * the prune stands only when (1 + E_kept) / (T - saved) > (1 + E_all) / T, i.e. when the
 * expected tokens per second of the cycle rise; otherwise the whole tree is verified. A prune
 * that saves no time is therefore always cancelled (E_kept <= E_all). Without cost queries
 * (pc or its cost model or verify_saved_s NULL) the gate cannot price a prune and lets it
 * stand. prune.gate = off: no gate, the paper's rules alone.
 * Defaults (the paper's predictor layer and threshold are not public; assumed, documented
 * and swept): exit_layer 0.5 (fraction of the layers; >= 1 is a layer index), threshold 0.1,
 * shadow 0, root_depth 1, root_keep 2, min_nodes 4, min_leaves 2, gate off (the paper's rules:
 * on the default NPU build pruning never loses to its ablation beyond the interval without
 * the gate, and gains more on average; docs/CALIBRATION.md section 3). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies_int.h"

enum { GATE_COST = 0, GATE_OFF = 1 };
static const char *const GATES[] = {"cost", "off", NULL};

typedef struct {
  double exit_layer, threshold, shadow;
  int root_depth, root_keep, min_nodes, min_leaves, gate;
} ee_state;

static int create(void **state, ls_kv *kv, ls_error *err)
{
  ee_state s;
  long rd, rk, mn, ml;
  int rc = ls_kv_double(kv, "prune.exit_layer", 0.0, 1e6, 0.5, &s.exit_layer, err);
  if (rc == LS_OK)
    rc = ls_kv_double(kv, "prune.threshold", 0.0, 1.0, 0.1, &s.threshold, err);
  if (rc == LS_OK)
    rc = ls_kv_double(kv, "prune.shadow", -100.0, 100.0, 0.0, &s.shadow, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "prune.root_depth", 0, LS_TREE_MAX, 1, &rd, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "prune.root_keep", 0, LS_TREE_MAX, 2, &rk, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "prune.min_nodes", 0, LS_TREE_MAX, 4, &mn, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "prune.min_leaves", 0, LS_TREE_MAX, 2, &ml, err);
  if (rc == LS_OK)
    rc = ls_kv_enum(kv, "prune.gate", GATES, GATE_OFF, &s.gate, err);
  if (rc != LS_OK)
    return rc;
  if (s.exit_layer > 0.0 && s.exit_layer >= 1.0 && s.exit_layer != floor(s.exit_layer))
    return ls_error_set(err, LS_EINVALID, "prune.exit_layer: %g is neither a fraction below 1 nor a layer index",
                        s.exit_layer);
  s.root_depth = (int)rd;
  s.root_keep = (int)rk;
  s.min_nodes = (int)mn;
  s.min_leaves = (int)ml;
  ee_state *p = malloc(sizeof *p);
  if (!p)
    return ls_error_set(err, LS_ENOMEM, "early-exit: out of memory");
  *p = s;
  *state = p;
  return LS_OK;
}

static int exit_layer(const void *state, int n_layers)
{
  const ee_state *s = state;
  if (n_layers < 2 || s->exit_layer <= 0.0)
    return 0;
  int l = s->exit_layer < 1.0 ? (int)lround(s->exit_layer * n_layers) : (int)s->exit_layer;
  return l < 1 ? 1 : (l > n_layers - 1 ? n_layers - 1 : l);
}

/* Normalised score of every non-root node within its candidate set (with the shadow). Each
 * exp is taken once (a node's term is its sum's share and its numerator), and a set whose
 * maximum is the shadow (every leaf's) starts its sum at exp(0) = 1 exactly without the call:
 * the same values with about 40 % fewer calls in a Lever cycle. */
static void normalise(const ee_state *s, const ls_tree *t, const double *score, double *ns)
{
  double mx[LS_TREE_MAX], sum[LS_TREE_MAX];
  for (int i = 0; i < t->n; i++)
    mx[i] = s->shadow;
  for (int i = 1; i < t->n; i++)
    if (score[i] > mx[t->parent[i]])
      mx[t->parent[i]] = score[i];
  for (int i = 0; i < t->n; i++)
    sum[i] = mx[i] == s->shadow ? 1.0 : exp(s->shadow - mx[i]);
  ns[0] = 1.0;
  for (int i = 1; i < t->n; i++) {
    ns[i] = exp(score[i] - mx[t->parent[i]]);
    sum[t->parent[i]] += ns[i];
  }
  for (int i = 1; i < t->n; i++)
    ns[i] /= sum[t->parent[i]];
}

static void keep_near_root(const ee_state *s, const ls_tree *t, const double *ns, unsigned char *keep)
{
  for (int p = 0; p < t->n; p++) {
    if (t->depth[p] >= s->root_depth)
      continue;
    for (int round = 0; round < s->root_keep; round++) { /* root_keep passes of "best not yet kept" */
      int best = -1;
      for (int c = p + 1; c < t->n; c++)
        if (t->parent[c] == p && keep[c] != 2 && (best < 0 || ns[c] > ns[best]))
          best = c;
      if (best < 0)
        break;
      keep[best] = 2; /* 2: kept by this safeguard in this pass */
    }
    for (int c = p + 1; c < t->n; c++)
      if (keep[c] == 2)
        keep[c] = 1;
  }
}

static void keep_main_path(const ls_tree *t, const double *ns, unsigned char *keep)
{
  int u = 0;
  for (;;) {
    int best = -1;
    for (int c = u + 1; c < t->n; c++)
      if (t->parent[c] == u && (best < 0 || ns[c] > ns[best]))
        best = c;
    if (best < 0)
      return;
    keep[best] = 1;
    u = best;
  }
}

static int leaves(const ls_tree *t, const unsigned char *keep)
{
  unsigned char has_child[LS_TREE_MAX];
  memset(has_child, 0, (size_t)t->n);
  for (int i = 1; i < t->n; i++)
    if (keep[i])
      has_child[t->parent[i]] = 1;
  int n = 0;
  for (int i = 0; i < t->n; i++)
    n += keep[i] && !has_child[i];
  return n;
}

/* Expected accepted tokens of the nodes with keep set (keep NULL: all): sum of a_i, the
 * product of normalised scores along each node's path (top comment). */
static double expected_accepted(const ls_tree *t, const double *ns, const unsigned char *keep)
{
  double a[LS_TREE_MAX], e = 0.0;
  a[0] = 1.0;
  for (int i = 1; i < t->n; i++) { /* parents precede children */
    a[i] = a[t->parent[i]] * ns[i];
    if (!keep || keep[i])
      e += a[i];
  }
  return e;
}

/* The cost gate (top comment): 1 when the prune to `kept` nodes raises the cycle's expected
 * tokens per second, or when there is nothing to price it with. */
static int gate_allows(const ls_tree *t, const double *ns, const unsigned char *keep, int kept,
                       const ls_prune_ctx *pc)
{
  if (!pc || !pc->cost || !pc->cost->verify_saved_s)
    return 1;
  const ls_cost_model *c = pc->cost;
  double T = pc->spent_s + c->verify_s(c->ctx, t->n);
  double saved = c->verify_saved_s(c->ctx, t->n, kept, pc->exit_layer);
  if (!(T - saved > 0.0))
    return 1; /* the pruned pass would cost nothing: degenerate costs, nothing to weigh */
  double e_all = expected_accepted(t, ns, NULL), e_kept = expected_accepted(t, ns, keep);
  return (1.0 + e_kept) / (T - saved) > (1.0 + e_all) / T;
}

static int prune(void *state, const ls_tree *t, const double *score, unsigned char *keep, const ls_prune_ctx *pc)
{
  const ee_state *s = state;
  double ns[LS_TREE_MAX];
  normalise(s, t, score, ns);
  for (int i = 0; i < t->n; i++)
    keep[i] = i == 0 || ns[i] >= s->threshold;
  keep_near_root(s, t, ns, keep);
  keep_main_path(t, ns, keep);
  for (int i = t->n - 1; i > 0; i--) /* ancestors of kept nodes (parents precede children) */
    if (keep[i])
      keep[t->parent[i]] = 1;
  int kept = 0;
  for (int i = 0; i < t->n; i++)
    kept += keep[i];
  unsigned char all[LS_TREE_MAX];
  memset(all, 1, (size_t)t->n);
  int min_nodes = s->min_nodes < t->n ? s->min_nodes : t->n;
  int full_leaves = leaves(t, all), min_leaves = s->min_leaves < full_leaves ? s->min_leaves : full_leaves;
  if (kept < min_nodes || leaves(t, keep) < min_leaves) {
    memcpy(keep, all, (size_t)t->n);
    kept = t->n;
  }
  if (kept < t->n && s->gate == GATE_COST && !gate_allows(t, ns, keep, kept, pc)) {
    memcpy(keep, all, (size_t)t->n);
    kept = t->n;
  }
  return kept;
}

const ls_prune_ops ls_prune_early_exit = {"early-exit", "early-exit predictor pruning with Lever's safeguards", create,
                                          free, exit_layer, prune};
