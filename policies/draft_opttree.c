/* policies/draft_opttree: "opt-tree", the adaptive tree of OPT-Tree (Wang et al. 2024).
 *
 * Layer by layer: one batched draft pass evaluates the newest layer of the current tree
 * (top-k candidates each, added to a candidate pool); the proposed tree T' is the
 * max_nodes - 1 pool nodes of largest path probability (the draft's estimate of each node's
 * acceptance), which maximises E(T) = 1 + sum of path probabilities over trees of that size.
 * If E(T') - E(T) < threshold the growth stops and T is kept; otherwise T = T' and its
 * newest layer (its nodes at the depth just drafted) is evaluated next. At most max_depth
 * passes. Settings (defaults of OPT-Tree's evaluation, src:opt-tree):
 * draft.max_nodes 60, draft.threshold 0.5, draft.max_depth 10; draft.topk (default 8:
 * assumed, enough candidates per node for a 60-node tree); draft.budget caps the verified
 * tokens (default max_nodes). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policies/policies_int.h"

typedef struct {
  int topk, max_depth, keep;
  double threshold;
  int max_nodes, budget; /* as read, for ls_draft_ops.effective */
} opt_state;

static int create(void **state, ls_kv *kv, ls_error *err)
{
  long k, d, nodes;
  int b;
  double thr;
  int rc = ls_kv_int(kv, "draft.topk", 1, LS_VIEW_TOPK_MAX, 8, &k, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.max_depth", 1, 64, 10, &d, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.max_nodes", 1, LS_TREE_MAX, 60, &nodes, err);
  if (rc == LS_OK)
    rc = ls_kv_double(kv, "draft.threshold", 0.0, 1e9, 0.5, &thr, err);
  if (rc == LS_OK)
    rc = ls_policy_budget(kv, nodes, &b, err);
  if (rc != LS_OK)
    return rc;
  opt_state *s = malloc(sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "opt-tree: out of memory");
  s->topk = (int)k;
  s->max_depth = (int)d;
  s->keep = (int)(nodes < b ? nodes : b) - 1;
  s->max_nodes = (int)nodes;
  s->budget = b;
  s->threshold = thr;
  *state = s;
  return LS_OK;
}

/* 1 + the path probabilities of the n nodes nodes[] (ascending: the order of a sum over
 * the tree's indices). */
static double value(const ls_tree *t, const int *nodes, int n)
{
  double e = 1.0;
  for (int i = 0; i < n; i++)
    e += t->path_prob[nodes[i]];
  return e;
}

/* The pool only grows, so the proposed tree is kept up to date layer by layer
 * (ls_tree_top_update), with its nodes in index order (no pass over the pool). Candidates
 * are added without their keys, which the view is asked for only for the nodes a pass
 * evaluates and those kept (most candidates are neither). */
static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  (void)cost;
  const opt_state *s = state;
  const int k = s->topk;
  unsigned char cur[LS_TREE_MAX], keyed[LS_TREE_MAX];
  int layer[LS_TREE_MAX], kept[LS_TREE_MAX], n_kept = 0; /* T's non-root nodes, ascending */
  double probs[LS_TREE_MAX];
  ls_tree_top top;
  ls_tree_init(t, v);
  ls_tree_top_init(&top, s->keep, 1);
  keyed[0] = 1;
  double e = 1.0;
  int m = 1;
  layer[0] = 0;
  for (int d = 1; d <= s->max_depth && m > 0 && s->keep > 0; d++) {
    if (m * k > LS_TREE_MAX)
      m = LS_TREE_MAX / k;
    for (int i = 0; i < m; i++)
      if (!keyed[layer[i]]) {
        ls_tree_set_key(t, v, layer[i]);
        keyed[layer[i]] = 1;
      }
    if (ls_tree_expand(t, v, layer, m, k, probs) != LS_OK)
      return ls_error_set(err, LS_ERANGE, "opt-tree: draft step log full");
    int n0 = t->n, full = 0;
    for (int i = 0; i < m && !full; i++)
      for (int r = 0; r < k && !full; r++)
        if (probs[i * k + r] > 0.0)
          full = ls_tree_add_unkeyed(t, layer[i], r, probs[i * k + r]) < 0;
    memset(keyed + n0, 0, (size_t)(t->n - n0));
    ls_tree_top_update(&top, t);
    int n_next;
    const int *next = ls_tree_top_nodes(&top, &n_next);
    double e2 = value(t, next, n_next);
    if (e2 - e < s->threshold)
      break; /* T is kept: the layer just drafted was not worth its verification */
    e = e2;
    n_kept = n_next;
    memcpy(kept, next, sizeof(int) * (size_t)n_next);
    m = 0;
    for (int i = 0; i < n_kept; i++)
      if (t->depth[kept[i]] == d)
        layer[m++] = kept[i];
  }
  memset(cur, 0, (size_t)t->n);
  cur[0] = 1;
  for (int i = 0; i < n_kept; i++)
    cur[kept[i]] = 1;
  ls_tree_key_kept(t, v, cur, keyed);
  ls_tree_compact(t, cur);
  return LS_OK;
}

static int effective(const void *state, const char *key, double *value, char *why, size_t size)
{
  const opt_state *s = state;
  char cap[48];
  snprintf(cap, sizeof cap, "draft.max_nodes=%d", s->max_nodes);
  return ls_policy_budget_capped(key, s->budget, s->max_nodes, cap, "opt-tree", value, why, size);
}

const ls_draft_ops ls_draft_opttree = {"opt-tree", "OPT-Tree: grow layer by layer while the expected gain exceeds a threshold",
                                       create, free, build, NULL, effective};
