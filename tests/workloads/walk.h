/* tests/workloads/walk: hand-built chain and best-first (EAGLE-2-like) trees walked against
 * the oracle, to measure accepted length tau (incl. the bonus token) without policies/. */
#ifndef LS_TEST_WALK_H
#define LS_TEST_WALK_H
#include "workloads/oracle.h"

/* Mean tau over every cycle of every prompt, decoding each prompt to its output length. */
double walk_chain_tau(const ls_oracle *o, int gamma);
/* Best-first tree by path probability: total nodes incl. root, max depth, top-k per node. */
double walk_tree_tau(const ls_oracle *o, int total, int max_depth, int topk);
#endif
