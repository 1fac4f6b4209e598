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
 * Lossless: a pruned node on the true path only shortens acceptance; the target still
 * produces the bonus token at the last kept accepted node.
 * Defaults (the paper's predictor layer and threshold are not public; assumed, documented
 * and swept): exit_layer 0.5 (fraction of the layers; >= 1 is a layer index), threshold 0.1,
 * shadow 0, root_depth 1, root_keep 2, min_nodes 4, min_leaves 2. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies_int.h"

typedef struct {
  double exit_layer, threshold, shadow;
  int root_depth, root_keep, min_nodes, min_leaves;
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

/* Normalised score of every non-root node within its candidate set (with the shadow). */
static void normalise(const ee_state *s, const ls_tree *t, const double *score, double *ns)
{
  double mx[LS_TREE_MAX], sum[LS_TREE_MAX];
  for (int i = 0; i < t->n; i++)
    mx[i] = s->shadow;
  for (int i = 1; i < t->n; i++)
    if (score[i] > mx[t->parent[i]])
      mx[t->parent[i]] = score[i];
  for (int i = 0; i < t->n; i++)
    sum[i] = exp(s->shadow - mx[i]);
  for (int i = 1; i < t->n; i++)
    sum[t->parent[i]] += exp(score[i] - mx[t->parent[i]]);
  ns[0] = 1.0;
  for (int i = 1; i < t->n; i++)
    ns[i] = exp(score[i] - mx[t->parent[i]]) / sum[t->parent[i]];
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

static int prune(void *state, const ls_tree *t, const double *score, unsigned char *keep)
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
  return kept;
}

const ls_prune_ops ls_prune_early_exit = {"early-exit", "early-exit predictor pruning with Lever's safeguards", create,
                                          free, exit_layer, prune};
