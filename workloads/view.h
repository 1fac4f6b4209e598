/* workloads/view: what a drafting policy may see of the text — the information boundary.
 *
 * A policy receives an ls_draft_view and nothing else from the workload: the draft model's
 * top-k candidate probabilities at any node it chooses to expand, and opaque node keys.
 * Ground truth (which candidate the target picks, predictor scores) lives behind ls_oracle
 * (workloads/oracle.h), which only the runner holds; policies/ never includes oracle.h.
 *
 * Node keys: the root of a cycle's tree has view->root_key; the key of the child of rank r
 * (0 = the draft's most probable candidate) of a node is child_key(ctx, key, depth, r),
 * where depth is the parent's depth (root = 0). Keys are opaque: a pure function of
 * (seed, prompt, position, path), so the answers never depend on query order. */
#ifndef LS_WORKLOADS_VIEW_H
#define LS_WORKLOADS_VIEW_H
#include <stdint.h>

#define LS_VIEW_TOPK_MAX 16 /* most candidates a view returns per node */

typedef struct ls_draft_view {
  const void *ctx;   /* borrowed; the oracle's draft side for one prompt and cycle */
  uint64_t root_key; /* key of this cycle's root (the last accepted token) */
  /* Writes the draft's top-k candidate probabilities (descending, summing to <= 1) for the
   * children of the node with this key at this depth into probs[0..k-1]; returns how many
   * were written (<= k, <= LS_VIEW_TOPK_MAX). */
  int (*candidates)(const void *ctx, uint64_t key, int depth, double *probs, int k);
  /* Key of the child of rank r of the node (key, depth). */
  uint64_t (*child_key)(const void *ctx, uint64_t key, int depth, int rank);
} ls_draft_view;

#endif
