/* policies/posview: a positional draft view (Sequoia's acceptance model) for inspecting and
 * testing policies without the workload oracle (`leversim tree`, `leversim bench policies`,
 * tests/policies).
 *
 * The child of rank k of an accepted node is the target's token with probability p_k (the
 * ranks are exclusive events, sum p_k <= 1); the draft's candidate probabilities are the p_k
 * normalised to sum 1 (the same at every node). Node keys hash (parent key, rank). The
 * expected accepted length of a tree (bonus included) is 1 + sum over non-root nodes of the
 * product of p over the ranks along its path. */
#ifndef LS_POLICIES_POSVIEW_H
#define LS_POLICIES_POSVIEW_H
#include <stdint.h>
#include "policies/policy.h"
#include "sim/error.h"

typedef struct ls_posview {
  int n;                        /* ranks with p_k > 0 given */
  double p[LS_VIEW_TOPK_MAX];   /* acceptance by rank */
  double q[LS_VIEW_TOPK_MAX];   /* draft probabilities: p normalised */
} ls_posview;

/* Checks p (0 <= p_k <= 1, sum <= 1, 1..LS_VIEW_TOPK_MAX values, some > 0) and fills pv and
 * view (view->ctx = pv: pv must stay in place while the view is used). */
int ls_posview_init(ls_posview *pv, const double *p, int n, uint64_t seed, ls_draft_view *view, ls_error *err);
/* Expected accepted length of t (bonus included) under pv. */
double ls_posview_expected(const ls_posview *pv, const ls_tree *t);
/* One acceptance walk with uniform draws u[0..]: at each accepted node, the target's token is
 * rank k with probability p_k; the walk moves to that child if the tree has it. Returns the
 * accepted length (bonus included); writes accepted node indices (root excluded) to acc. */
int ls_posview_walk(const ls_posview *pv, const ls_tree *t, const double *u, int n_u, int *acc);

#endif
