/* policies/draft_specinfer: "specinfer", a fixed expansion tree (SpecInfer, Miao et al. 2024).
 *
 * draft.expansion = c_0,c_1,...: every node at depth d gets its top-c_d candidates as
 * children; one batched draft pass per depth. Default "1,1,3,1,1,1,1,1" (20 nodes + root),
 * the expansion SpecInfer's own evaluation used (Miao et al., ASPLOS'24; recalled, not
 * checked against the text here). The Lever paper does not publish its conventional-SD tree;
 * this shape also gives the ~20 % wasted verification compute the Lever paper reports
 * (calibrated: docs/CALIBRATION.md). Capped at draft.budget (default 64) nodes in
 * breadth-first order; Fig. 5's budget sweep sets a wider expansion with the budget. */
#include <stdio.h>
#include <stdlib.h>
#include "policies/policies_int.h"

#define MAX_LEVELS 32

typedef struct {
  int levels, budget;
  int width[MAX_LEVELS];
} specinfer_state;

/* The most nodes the expansion can produce, root included (1 + c_0 + c_0 c_1 + ...), at most
 * LS_TREE_MAX: the size no budget above it can change. */
static int full_size(const specinfer_state *s)
{
  long size = 1, level = 1;
  for (int d = 0; d < s->levels && size < LS_TREE_MAX; d++) {
    level *= s->width[d];
    size += level;
    if (level > LS_TREE_MAX) level = LS_TREE_MAX;
  }
  return size < LS_TREE_MAX ? (int)size : LS_TREE_MAX;
}

static int effective(const void *state, const char *key, double *value, char *why, size_t size)
{
  const specinfer_state *s = state;
  char cap[160];
  int n = snprintf(cap, sizeof cap, "draft.expansion=");
  for (int d = 0; d < s->levels && n < (int)sizeof cap; d++)
    n += snprintf(cap + n, sizeof cap - (size_t)n, "%s%d", d ? "," : "", s->width[d]);
  return ls_policy_budget_capped(key, s->budget, full_size(s), cap, "specinfer", value, why, size);
}

static int create(void **state, ls_kv *kv, ls_error *err)
{
  double w[MAX_LEVELS] = {1, 1, 3, 1, 1, 1, 1, 1};
  int n = 8;
  int b;
  int rc = ls_kv_doubles(kv, "draft.expansion", 1, LS_VIEW_TOPK_MAX, w, MAX_LEVELS, &n, err);
  if (rc == LS_OK)
    rc = ls_policy_budget(kv, 64, &b, err);
  if (rc != LS_OK)
    return rc;
  specinfer_state *s = malloc(sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "specinfer: out of memory");
  s->levels = n;
  s->budget = b;
  for (int i = 0; i < n; i++) {
    s->width[i] = (int)w[i];
    if ((double)s->width[i] != w[i]) {
      free(s);
      return ls_error_set(err, LS_EINVALID, "draft.expansion: %g is not a whole number of children", w[i]);
    }
  }
  *state = s;
  return LS_OK;
}

static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  (void)cost;
  const specinfer_state *s = state;
  double probs[LS_TREE_MAX];
  int nodes[LS_TREE_MAX];
  ls_tree_init(t, v);
  int lo = 0, hi = 1; /* nodes of the current level: [lo, hi) */
  for (int d = 0; d < s->levels && t->n < s->budget && hi > lo; d++) {
    int k = s->width[d], m = 0;
    for (int u = lo; u < hi && (m + 1) * k <= LS_TREE_MAX; u++)
      nodes[m++] = u;
    if (ls_tree_expand(t, v, nodes, m, k, probs) != LS_OK)
      return ls_error_set(err, LS_ERANGE, "specinfer: draft step log full");
    lo = hi;
    for (int i = 0; i < m; i++)
      for (int r = 0; r < k && t->n < s->budget; r++)
        if (probs[i * k + r] > 0.0)
          ls_tree_add(t, v, nodes[i], r, probs[i * k + r]);
    hi = t->n;
  }
  return LS_OK;
}

const ls_draft_ops ls_draft_specinfer = {"specinfer", "fixed expansion tree (children per depth)", create, free,
                                         build, NULL, effective};
