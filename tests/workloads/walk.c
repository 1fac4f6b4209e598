/* tests/workloads/walk: see walk.h. */
#include "walk.h"

#define WMAX 256

typedef struct wnode {
  int parent, depth, rank;
  double path;
  uint64_t key;
} wnode;

/* Walks a tree (parents before children) against ground truth; returns tau. */
static int accept_walk(const ls_oracle_cycle *c, const wnode *t, int n)
{
  int cur = 0, tau = 1;
  for (;;) {
    int r = ls_oracle_true_rank(c, t[cur].key, t[cur].depth), next = -1;
    for (int i = cur + 1; i < n && r >= 0; i++)
      if (t[i].parent == cur && t[i].rank == r)
        next = i;
    if (next < 0)
      return tau;
    cur = next;
    tau++;
  }
}

static int build_tree(const ls_draft_view *v, wnode *t, int total, int max_depth, int topk)
{
  /* frontier candidates: (parent, rank, prob) not yet in the tree */
  wnode cand[WMAX * 4];
  int nc = 0, n = 1;
  double q[LS_VIEW_TOPK_MAX];
  t[0] = (wnode){-1, 0, -1, 1.0, v->root_key};
  for (int added = 0; n < total; added = n - 1) {
    const wnode *src = &t[added];
    if (src->depth < max_depth) {
      int k = v->candidates(v->ctx, src->key, src->depth, q, topk);
      for (int r = 0; r < k && nc < WMAX * 4; r++)
        cand[nc++] = (wnode){added, src->depth + 1, r, src->path * q[r], 0};
    }
    if (nc == 0)
      break;
    int best = 0;
    for (int i = 1; i < nc; i++)
      if (cand[i].path > cand[best].path)
        best = i;
    t[n] = cand[best];
    t[n].key = v->child_key(v->ctx, t[t[n].parent].key, t[t[n].parent].depth, t[n].rank);
    n++;
    cand[best] = cand[--nc];
  }
  return n;
}

double walk_tree_tau(const ls_oracle *o, int total, int max_depth, int topk)
{
  wnode t[WMAX];
  double sum = 0.0;
  long cycles = 0;
  if (total > WMAX)
    total = WMAX;
  for (int p = 0; p < ls_oracle_prompts(o); p++)
    for (int pos = 0; pos < ls_oracle_output_len(o, p);) {
      ls_oracle_cycle c;
      ls_draft_view v;
      ls_oracle_begin(o, p, pos, &c, &v);
      int n = build_tree(&v, t, total, max_depth, topk);
      int tau = accept_walk(&c, t, n);
      sum += tau;
      cycles++;
      pos += tau;
    }
  return sum / (double)cycles;
}

double walk_chain_tau(const ls_oracle *o, int gamma)
{
  wnode t[WMAX];
  double sum = 0.0;
  long cycles = 0;
  for (int p = 0; p < ls_oracle_prompts(o); p++)
    for (int pos = 0; pos < ls_oracle_output_len(o, p);) {
      ls_oracle_cycle c;
      ls_draft_view v;
      ls_oracle_begin(o, p, pos, &c, &v);
      t[0] = (wnode){-1, 0, -1, 1.0, v.root_key};
      for (int d = 1; d <= gamma; d++)
        t[d] = (wnode){d - 1, d, 0, 1.0, v.child_key(v.ctx, t[d - 1].key, d - 1, 0)};
      int tau = accept_walk(&c, t, gamma + 1);
      sum += tau;
      cycles++;
      pos += tau;
    }
  return sum / (double)cycles;
}
