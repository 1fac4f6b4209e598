/* policies/tree: the token tree of one cycle and its draft-step log (policy.h).
 *
 * Invariants (asserted): nodes are stored parents-before-children (parent[i] < i), depth[i] =
 * depth[parent[i]] + 1, path_prob[i] = path_prob[parent[i]] * prob[i], keys come from the
 * view (child_key of the parent's key), and every draft forward pass is one entry of the step
 * log, so the runner can charge draft time per pass; step_dep[s] < s, the latest pass that
 * produced a node step s evaluates. */
#include <assert.h>
#include <stdio.h>
#include <string.h>
#include "policies/policies_int.h"

void ls_tree_init(ls_tree *t, const ls_draft_view *v)
{
  t->n = 1;
  t->parent[0] = -1;
  t->depth[0] = 0;
  t->rank[0] = -1;
  t->prob[0] = 1.0;
  t->path_prob[0] = 1.0;
  t->key[0] = v ? v->root_key : 0;
  t->node_step[0] = -1;
  t->n_steps = 0;
}

void ls_tree_set_key(ls_tree *t, const ls_draft_view *v, int i)
{
  int p = t->parent[i];
  assert(i > 0 && i < t->n);
  t->key[i] = v->child_key(v->ctx, t->key[p], t->depth[p], t->rank[i]);
}

int ls_tree_add(ls_tree *t, const ls_draft_view *v, int parent, int rank, double prob)
{
  int i = ls_tree_add_unkeyed(t, parent, rank, prob);
  if (i >= 0)
    ls_tree_set_key(t, v, i);
  return i;
}

int ls_tree_expand(ls_tree *t, const ls_draft_view *v, const int *nodes, int n, int k, double *probs)
{
  assert(k >= 1 && k <= LS_VIEW_TOPK_MAX);
  if (t->n_steps >= LS_STEPS_MAX)
    return LS_ERANGE;
  int maxd = 0, dep = -1;
  for (int i = 0; i < n; i++) {
    int u = nodes[i];
    assert(u >= 0 && u < t->n);
    if (t->node_step[u] > dep)
      dep = t->node_step[u];
    double *p = probs + (size_t)i * (size_t)k;
    int got = v->candidates(v->ctx, t->key[u], t->depth[u], p, k);
    for (int j = got < 0 ? 0 : got; j < k; j++)
      p[j] = 0.0;
    if (t->depth[u] > maxd)
      maxd = t->depth[u];
  }
  t->step_nodes[t->n_steps] = n;
  t->step_depth[t->n_steps] = maxd;
  t->step_dep[t->n_steps] = dep;
  t->n_steps++;
  return LS_OK;
}

void ls_tree_compact(ls_tree *t, const unsigned char *keep)
{
  int map[LS_TREE_MAX];
  int m = 0;
  assert(keep[0]);
  for (int i = 0; i < t->n; i++) {
    map[i] = -1;
    if (!keep[i])
      continue;
    int p = t->parent[i];
    assert(p < 0 || map[p] >= 0); /* ancestor-closed */
    map[i] = m;
    t->parent[m] = p < 0 ? -1 : map[p];
    t->depth[m] = t->depth[i];
    t->rank[m] = t->rank[i];
    t->prob[m] = t->prob[i];
    t->path_prob[m] = t->path_prob[i];
    t->key[m] = t->key[i];
    t->node_step[m] = t->node_step[i];
    m++;
  }
  t->n = m;
}

double ls_tree_expected_len(const ls_tree *t)
{
  double e = 1.0;
  for (int i = 1; i < t->n; i++)
    e += t->path_prob[i];
  return e;
}

int ls_policy_budget(ls_kv *kv, long dflt, int *out, ls_error *err)
{
  long b;
  int rc = ls_kv_int(kv, "draft.budget", 1, LS_TREE_MAX, dflt, &b, err);
  *out = (int)b;
  return rc;
}

int ls_policy_budget_capped(const char *key, int budget, int cap, const char *cap_setting,
                            const char *policy, double *value, char *why, size_t size)
{
  if (strcmp(key, "draft.budget") != 0 || budget <= cap)
    return 0;
  *value = cap;
  snprintf(why, size, "%s caps %s's tree at %d token%s", cap_setting, policy, cap, cap == 1 ? "" : "s");
  return 1;
}

/* (path_prob descending, index ascending): ties keep parents first, so any prefix of this
 * order is closed under ancestors whenever prob <= 1 (path_prob never rises along a path).
 * On heap entries, which carry their node's path_prob (a copy: the same number). */
static int before(const ls_tree_top_ent *a, const ls_tree_top_ent *b)
{
  if (a->p != b->p)
    return a->p > b->p;
  return a->i < b->i;
}

/* Restores the heap below slot i of h[0..n) whose root is the entry ranked last ("worst")
 * by before(): the entry moves down while the worse of its children is worse than it (the
 * arrangement a swap at every level gives, with one write a level). */
static void sift_worst(ls_tree_top_ent *h, int n, int i)
{
  ls_tree_top_ent x = h[i];
  for (int l = 2 * i + 1; l < n; l = 2 * i + 1) {
    int w = l + 1 < n && before(&h[l], &h[l + 1]) ? l + 1 : l;
    if (!before(&x, &h[w]))
      break;
    h[i] = h[w];
    i = w;
  }
  h[i] = x;
}

/* Removes node x from tp->asc (held, ascending): found by bisection, the rest moved down. */
static void top_drop(ls_tree_top *tp, int x)
{
  int lo = 0, hi = tp->n - 1;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (tp->asc[mid] < x)
      lo = mid + 1;
    else
      hi = mid;
  }
  assert(tp->asc[lo] == x);
  memmove(&tp->asc[lo], &tp->asc[lo + 1], sizeof(int) * (size_t)(tp->n - 1 - lo));
}

void ls_tree_top_init(ls_tree_top *tp, int m, int list)
{
  tp->list = list;
  tp->m = m > 0 ? m : 0;
  tp->n = 0;
  tp->seen = 1;
}

/* The m first nodes in before()'s order (a strict total order, so the set is unique): a heap
 * of the m best seen so far with the worst at the root, O(n log m); a full sort per call was a
 * few per cent of a replay. Offering only the nodes added since the last call gives the same
 * set as offering the whole pool: a node out of the m first of a pool stays out when the pool
 * grows (m nodes already come before it), so the m first of the grown pool are among those
 * of the old one and the new nodes. OPT-Tree asks once per layer, the pool growing by it. */
void ls_tree_top_update(ls_tree_top *tp, const ls_tree *t)
{
  int v = tp->seen, m = tp->m;
  for (; v < t->n && tp->n < m; v++) {
    tp->h[tp->n] = (ls_tree_top_ent){t->path_prob[v], v};
    tp->asc[tp->n] = v;
    if (++tp->n == m) /* full: heap order from here on */
      for (int i = m / 2 - 1; i >= 0; i--)
        sift_worst(tp->h, m, i);
  }
  for (; m > 0 && v < t->n; v++) { /* m = 0 keeps nothing: no root to compare with */
    ls_tree_top_ent e = {t->path_prob[v], v};
    if (before(&e, &tp->h[0])) {
      if (tp->list) {
        top_drop(tp, tp->h[0].i);
        tp->asc[m - 1] = v; /* v is past every node held */
      }
      tp->h[0] = e;
      sift_worst(tp->h, m, 0);
    }
  }
  tp->seen = t->n;
}

const int *ls_tree_top_nodes(const ls_tree_top *tp, int *count)
{
  assert(tp->list);
  *count = tp->n;
  return tp->asc;
}

int ls_tree_top_mark(const ls_tree_top *tp, const ls_tree *t, unsigned char *keep)
{
  memset(keep, 0, (size_t)t->n);
  keep[0] = 1;
  for (int i = 0; i < tp->n; i++)
    keep[tp->h[i].i] = 1;
  return tp->n;
}

int ls_tree_top_by_path(const ls_tree *t, int m, unsigned char *keep)
{
  ls_tree_top tp;
  ls_tree_top_init(&tp, m, 0); /* one call: no list in index order */
  ls_tree_top_update(&tp, t);
  return ls_tree_top_mark(&tp, t, keep);
}

void ls_tree_key_kept(ls_tree *t, const ls_draft_view *v, const unsigned char *keep, unsigned char *keyed)
{
  for (int i = 1; i < t->n; i++)
    if (keep[i] && !keyed[i]) {
      ls_tree_set_key(t, v, i);
      keyed[i] = 1;
    }
}
