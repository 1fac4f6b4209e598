/* policies/policies_int: helpers shared by the policy files and tests/policies only.
 *
 * The ops tables of every policy (listed by registry.c), tree compaction (draft policies
 * that evaluate a candidate pool and keep a subset), and small settings helpers. */
#ifndef LS_POLICIES_INT_H
#define LS_POLICIES_INT_H
#include <assert.h>
#include "policies/policy.h"

extern const ls_draft_ops ls_draft_ar, ls_draft_chain, ls_draft_specinfer, ls_draft_sequoia,
    ls_draft_eagle2, ls_draft_opttree, ls_draft_lever;
extern const ls_prune_ops ls_prune_none, ls_prune_early_exit;
extern const ls_map_ops ls_map_npu, ls_map_cpu, ls_map_npu_batch, ls_map_lever;

/* ls_tree_add in two halves, for a builder that creates more candidates than it keeps or
 * expands: the node without its key (t->key[i] is left unset), and later its key, a pure
 * function of its parent's key, depth and its rank, so when it is asked does not matter (the
 * parent's key must be set). The tree equals one made by ls_tree_add once every node has its
 * key; a node dropped by ls_tree_compact never needs one. */
static inline int ls_tree_add_unkeyed(ls_tree *t, int parent, int rank, double prob) /* inline: Lever adds ~80 a cycle */
{
  assert(parent >= 0 && parent < t->n && rank >= 0);
  if (t->n >= LS_TREE_MAX)
    return -1;
  int i = t->n++;
  t->parent[i] = parent;
  t->depth[i] = t->depth[parent] + 1;
  t->rank[i] = rank;
  t->prob[i] = prob;
  t->path_prob[i] = t->path_prob[parent] * prob;
  t->node_step[i] = t->n_steps - 1; /* children come from the last pass recorded */
  return i;
}
void ls_tree_set_key(ls_tree *t, const ls_draft_view *v, int i);
/* Keeps the nodes with keep[i] != 0 (keep[0] must be set; the kept set must be closed under
 * ancestors), renumbering them in their original order (parents stay before children). The
 * step log is unchanged: evaluating discarded candidates still cost draft time. */
void ls_tree_compact(ls_tree *t, const unsigned char *keep);
/* Marks in keep[] the root and the m non-root nodes of largest path_prob (ties: lower
 * index first, so the set is closed under ancestors when every prob <= 1); returns how many
 * non-root nodes were kept. */
int ls_tree_top_by_path(const ls_tree *t, int m, unsigned char *keep);
/* The same selection kept across calls for a pool that only grows (OPT-Tree: a layer per
 * call): init with m, update after adding nodes (offers those added since the last update;
 * the nodes' path_prob must not change), mark writes keep[] as ls_tree_top_by_path would for
 * the whole pool and returns how many non-root nodes are kept. */
typedef struct ls_tree_top_ent {
  double p; /* the node's path_prob */
  int i;    /* the node */
} ls_tree_top_ent;
typedef struct ls_tree_top {
  int m, n, seen;                /* nodes wanted, held, and the first node not offered yet */
  int list;                      /* asc is kept (ls_tree_top_nodes) */
  ls_tree_top_ent h[LS_TREE_MAX]; /* the n held; a heap with the worst at h[0] once n = m */
  int asc[LS_TREE_MAX]; /* the n held in ascending index order */
} ls_tree_top;
void ls_tree_top_init(ls_tree_top *tp, int m, int list);
void ls_tree_top_update(ls_tree_top *tp, const ls_tree *t);
int ls_tree_top_mark(const ls_tree_top *tp, const ls_tree *t, unsigned char *keep);
/* The nodes held, in ascending index order (parents before children); *count of them; only
 * when init was asked for the list (its upkeep costs a bisection and a move per node
 * replaced). Borrowed: valid until the next update. */
const int *ls_tree_top_nodes(const ls_tree_top *tp, int *count);
/* For builders that add candidates with ls_tree_add_unkeyed: asks the view for the key of
 * every node with keep[i] and no keyed[i], in index order (so parents first), and marks it
 * keyed. The kept set must be closed under ancestors, keyed[] true for nodes with keys. */
void ls_tree_key_kept(ls_tree *t, const ls_draft_view *v, const unsigned char *keep, unsigned char *keyed);
/* 1 + sum of path_prob over non-root nodes: the expected accepted length (bonus included)
 * when path_prob is the acceptance probability of each node's path. */
double ls_tree_expected_len(const ls_tree *t);
/* Reads draft.budget (max verified tokens, root included): 1..LS_TREE_MAX, default dflt. */
int ls_policy_budget(ls_kv *kv, long dflt, int *out, ls_error *err);
/* For ls_draft_ops.effective: when key is draft.budget and budget > cap, writes cap to *value
 * and "CAPKEY=CAPVAL caps POLICY's tree at CAP tokens" to why and returns 1; else 0. */
int ls_policy_budget_capped(const char *key, int budget, int cap, const char *cap_setting,
                            const char *policy, double *value, char *why, size_t size);
/* Map policies: reads map.lmhead (eager-npu|demand-npu|demand-cpu), default dflt. */
int ls_map_read_lmhead(ls_kv *kv, ls_lmhead dflt, ls_lmhead *out, ls_error *err);

/* Map policy state shared by the four map files: the LM-head placement and the batch
 * threshold (lever only). */
typedef struct ls_map_state {
  ls_lmhead lmhead;
  int batch_min;
} ls_map_state;
int ls_map_state_create(void **state, ls_kv *kv, ls_lmhead dflt_lmhead, int read_batch_min,
                        ls_error *err);
void ls_map_state_destroy(void *state);
ls_lmhead ls_map_state_lmhead(const void *state);
ls_unit ls_map_state_target_npu(const void *state);

/* Test hooks. Sequoia: the DP's expected accepted length for size n (root included), depth
 * <= d, under its current vector (state from ls_draft_sequoia.create). */
double ls_sequoia_value(void *state, int n, int d);
/* How many times the DP table was computed (cached across builds). */
long ls_sequoia_solves(const void *state);
/* Expanded nodes at level l of the optimal shape of size n, depth <= d (0 past its depth),
 * as the last DP computed it (call ls_sequoia_value first). */
int ls_sequoia_width(const void *state, int n, int d, int l);
/* The hardware-aware choice a build under cost model c makes: size *n (root included) and
 * depth bound *d (solves the DP first when it has none). */
void ls_sequoia_choose(void *state, const ls_cost_model *c, int *n, int *d);
/* The DP's choice for depth bound d (1..D), m nodes left (0..B - 1 - j: what a tree of B nodes
 * can leave to rank j) and rank j (0..W-1): the size of the rank-j child's subtree (0: none);
 * -1 outside the table or before the first DP. */
int ls_sequoia_choice(const void *state, int d, int m, int j);

#endif
