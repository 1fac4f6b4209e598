/* policies/draft_eagle2: "eagle2", the dynamic draft tree of EAGLE-2 (Li et al. 2024).
 *
 * Expansion: pass 1 evaluates the root and adds its top-k candidates (layer 1). Pass i
 * (i = 2..depth) evaluates the k nodes of layer i-1 with the largest cumulative score (the
 * product of draft probabilities along the path: the draft's confidence as a proxy of
 * acceptance) in one batched pass and adds all their top-k candidates (layer i, k^2 nodes).
 * Rerank: of all candidates generated, keep the total_tokens - 1 with the largest cumulative
 * score (ties: shallower/earlier first). Since a child's score never exceeds its parent's,
 * the kept set is connected (closed under ancestors). Every candidate evaluated costs draft
 * time whether kept or not. Settings (defaults of EAGLE-2's evaluation, src:eagle2): draft.topk 10, draft.depth 5, draft.total_tokens 60; draft.budget (default
 * total_tokens) caps the verified tokens, root included. */
#include <stdio.h>
#include <stdlib.h>
#include "policies/policies_int.h"

typedef struct {
  int topk, depth, keep;
  int total, budget; /* as read, for ls_draft_ops.effective */
} eagle2_state;

static int create(void **state, ls_kv *kv, ls_error *err)
{
  long k, d, tot;
  int b;
  int rc = ls_kv_int(kv, "draft.topk", 1, LS_VIEW_TOPK_MAX, 10, &k, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.depth", 1, 64, 5, &d, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.total_tokens", 1, LS_TREE_MAX, 60, &tot, err);
  if (rc == LS_OK)
    rc = ls_policy_budget(kv, tot, &b, err);
  if (rc != LS_OK)
    return rc;
  eagle2_state *s = malloc(sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "eagle2: out of memory");
  s->topk = (int)k;
  s->depth = (int)d;
  s->keep = (int)(tot < b ? tot : b) - 1;
  s->total = (int)tot;
  s->budget = b;
  *state = s;
  return LS_OK;
}

/* Candidates are added without their keys; the view is asked for those of the nodes a
 * pass evaluates and of those kept only (most of the k^2 a layer adds are neither). */
static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  (void)cost;
  const eagle2_state *s = state;
  const int k = s->topk;
  int sel[LS_VIEW_TOPK_MAX];
  double probs[LS_VIEW_TOPK_MAX * LS_VIEW_TOPK_MAX];
  unsigned char keep[LS_TREE_MAX], keyed[LS_TREE_MAX];
  ls_tree_init(t, v);
  keyed[0] = 1;
  int m = 1, lo = 0, hi = 1, full = 0;
  sel[0] = 0;
  for (int step = 0; step < s->depth && m > 0 && !full; step++) {
    for (int i = 0; i < m; i++)
      if (!keyed[sel[i]]) {
        ls_tree_set_key(t, v, sel[i]);
        keyed[sel[i]] = 1;
      }
    if (ls_tree_expand(t, v, sel, m, k, probs) != LS_OK)
      return ls_error_set(err, LS_ERANGE, "eagle2: draft step log full");
    lo = hi;
    for (int i = 0; i < m && !full; i++)
      for (int r = 0; r < k; r++)
        if (probs[i * k + r] > 0.0 && ls_tree_add_unkeyed(t, sel[i], r, probs[i * k + r]) < 0) {
          full = 1;
          break;
        }
    hi = t->n;
    for (int u = lo; u < hi; u++)
      keyed[u] = 0;
    /* top-k of the new layer by cumulative score (selection: k is small) */
    m = 0;
    for (int u = lo; u < hi; u++) {
      int pos = m < k ? m++ : k;
      if (pos == k && !(t->path_prob[u] > t->path_prob[sel[k - 1]]))
        continue;
      if (pos == k)
        pos = k - 1;
      while (pos > 0 && t->path_prob[u] > t->path_prob[sel[pos - 1]]) {
        sel[pos] = sel[pos - 1];
        pos--;
      }
      sel[pos] = u;
    }
  }
  ls_tree_top_by_path(t, s->keep, keep);
  ls_tree_key_kept(t, v, keep, keyed);
  ls_tree_compact(t, keep);
  return LS_OK;
}

static int effective(const void *state, const char *key, double *value, char *why, size_t size)
{
  const eagle2_state *s = state;
  char cap[48];
  snprintf(cap, sizeof cap, "draft.total_tokens=%d", s->total);
  return ls_policy_budget_capped(key, s->budget, s->total, cap, "eagle2", value, why, size);
}

const ls_draft_ops ls_draft_eagle2 = {"eagle2", "EAGLE-2: top-k frontier by cumulative score, rerank to total_tokens",
                                      create, free, build, NULL, effective};
