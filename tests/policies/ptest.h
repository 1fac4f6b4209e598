/* tests/policies: shared fixtures — a random draft view, synthetic cost models, tree checks. */
#ifndef LS_TESTS_PTEST_H
#define LS_TESTS_PTEST_H
#include <CUnit/CUnit.h>
#include "policies/policies_int.h"
#include "policies/posview.h"

/* Random view: at every node, k candidate probabilities drawn from the node key (sorted
 * descending, summing to 0.95 at most); deterministic per (seed, path). */
typedef struct {
  uint64_t seed;
  int k;
  double alpha; /* > 0: a single candidate of this probability instead */
} ptest_rview;
void ptest_rview_init(ptest_rview *rv, uint64_t seed, int k, double alpha, ls_draft_view *v);

/* Synthetic cost model: verify(n) = L * max(io, c0 + c1 * pad(n)) + io (pad: next multiple of
 * pad_to, or n when pad_to <= 1); draft_step(n) = d0 + d1 * n; verify_saved(n, k, e) =
 * (L - e) * (max(io, comp(n)) - max(io, comp(k))). */
typedef struct {
  int L, pad_to;
  double io, c0, c1, d0, d1;
} ptest_cost;
void ptest_cost_bind(ptest_cost *pc, ls_cost_model *c);

/* Checks the tree invariants (parents first, depths, path probabilities); returns 1 if ok. */
int ptest_tree_ok(const ls_tree *t);
/* kv from "k=v;k=v" (NULL/empty: none). Caller frees. */
ls_kv *ptest_kv(const char *settings);
/* Creates the named draft policy from settings, builds one tree, destroys the state. */
int ptest_build(const char *policy, const char *settings, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c);

extern CU_TestInfo ls_t_tree[], ls_t_registry[], ls_t_chain[], ls_t_specinfer[], ls_t_sequoia[], ls_t_eagle2[],
    ls_t_opttree[], ls_t_lever[], ls_t_lever_same[], ls_t_prune[], ls_t_map[], ls_t_costmodel[], ls_t_cli[], ls_t_bench[], ls_t_readme[],
    ls_t_plugin[], ls_t_effective[], ls_t_builders_same[];
#endif
