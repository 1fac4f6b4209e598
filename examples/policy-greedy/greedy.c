/* greedy: an example draft policy as a leversim plug-in (docs/POLICIES.md walks through it).
 *
 * Best-first by path probability: keep a pool of candidate children of the nodes already in
 * the tree; move the most probable one (highest product of draft probabilities from the root)
 * into the tree; expand it with one draft forward pass so that its own children join the pool;
 * stop at draft.budget nodes. It ignores the cost model: every budget is filled, however slow
 * the device, which is what Lever's gain/cost rule avoids.
 *
 * Settings: draft.budget (verified tokens, root included; default 32), draft.topk (children
 * looked at per expanded node; default 4).
 *
 * Build: make (against the in-tree header), or make LEVERSIM_INCLUDE=$PREFIX/include/leversim.
 * Use:   leversim run --plugin ./libgreedy.so --system lever --set policy.draft=greedy ... */
#include <stdlib.h>
#include "policies/policy.h"

typedef struct greedy {
  int budget, topk;
} greedy;

static int greedy_create(void **state, ls_kv *kv, ls_error *err)
{
  long budget, topk;
  int rc = ls_kv_int(kv, "draft.budget", 1, LS_TREE_MAX, 32, &budget, err);
  if (rc == LS_OK)
    rc = ls_kv_int(kv, "draft.topk", 1, LS_VIEW_TOPK_MAX, 4, &topk, err);
  if (rc != LS_OK)
    return rc;
  greedy *g = malloc(sizeof *g);
  if (!g)
    return ls_error_set(err, LS_ENOMEM, "greedy: out of memory");
  g->budget = (int)budget;
  g->topk = (int)topk;
  *state = g;
  return LS_OK;
}

static void greedy_destroy(void *state) { free(state); }

/* A candidate child: not yet in the tree. */
typedef struct cand {
  int parent, rank;
  double prob, path_prob;
} cand;

/* Expands node u with one draft pass and adds its candidates to the pool. */
static int expand(const greedy *g, ls_tree *t, const ls_draft_view *v, int u, cand *pool, int *n_pool, ls_error *err)
{
  double probs[LS_VIEW_TOPK_MAX];
  if (ls_tree_expand(t, v, &u, 1, g->topk, probs) != LS_OK)
    return ls_error_set(err, LS_ERANGE, "greedy: draft pass log full");
  for (int r = 0; r < g->topk; r++)
    if (probs[r] > 0) /* zero: the view had fewer candidates */
      pool[(*n_pool)++] = (cand){u, r, probs[r], t->path_prob[u] * probs[r]};
  return LS_OK;
}

static int greedy_build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost,
                        ls_error *err)
{
  const greedy *g = state;
  (void)cost; /* greedy by probability alone */
  ls_tree_init(t, v);
  if (g->budget < 2)
    return LS_OK; /* the root alone: nothing to draft */
  /* every node in the tree adds at most topk candidates */
  cand *pool = malloc((size_t)g->budget * (size_t)g->topk * sizeof *pool);
  if (!pool)
    return ls_error_set(err, LS_ENOMEM, "greedy: out of memory");
  int n_pool = 0, rc = expand(g, t, v, 0, pool, &n_pool, err);
  while (rc == LS_OK && t->n < g->budget && n_pool > 0) {
    int best = 0; /* the most probable candidate; ties: the earliest, for determinism */
    for (int i = 1; i < n_pool; i++)
      if (pool[i].path_prob > pool[best].path_prob)
        best = i;
    cand c = pool[best];
    pool[best] = pool[--n_pool];
    int u = ls_tree_add(t, v, c.parent, c.rank, c.prob);
    if (u < 0)
      break;
    if (t->n < g->budget) /* the last node's children could never join */
      rc = expand(g, t, v, u, pool, &n_pool, err);
  }
  free(pool);
  return rc;
}

static const ls_draft_ops GREEDY = {
    .name = "greedy",
    .summary = "best-first by path probability up to draft.budget (example plug-in)",
    .create = greedy_create,
    .destroy = greedy_destroy,
    .build = greedy_build,
    .feedback = NULL, /* no online statistics */
};

static const ls_draft_ops *const DRAFTS[] = {&GREEDY, NULL};

/* The one symbol leversim looks for. */
const ls_plugin leversim_plugin = {
    .abi = LS_PLUGIN_ABI,
    .layout = LS_PLUGIN_LAYOUT,
    .name = "greedy-example",
    .summary = "an example draft policy: best-first by path probability",
    .drafts = DRAFTS,
};
