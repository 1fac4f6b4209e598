/* policies/posview: see posview.h. Keys: SplitMix64 finaliser of (parent key, rank), so a
 * node's key depends only on its path (query order never matters). */
#include "policies/posview.h"

static uint64_t mix(uint64_t z)
{
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static int candidates(const void *ctx, uint64_t key, int depth, double *probs, int k)
{
  (void)key;
  (void)depth;
  const ls_posview *pv = ctx;
  int m = k < pv->n ? k : pv->n;
  for (int i = 0; i < m; i++)
    probs[i] = pv->q[i];
  return m;
}

static uint64_t child_key(const void *ctx, uint64_t key, int depth, int rank)
{
  (void)ctx;
  (void)depth;
  return mix(key ^ mix((uint64_t)rank + 1));
}

int ls_posview_init(ls_posview *pv, const double *p, int n, uint64_t seed, ls_draft_view *view, ls_error *err)
{
  if (n < 1 || n > LS_VIEW_TOPK_MAX)
    return ls_error_set(err, LS_EINVALID, "acceptance vector: %d values (expected 1..%d)", n, LS_VIEW_TOPK_MAX);
  double sum = 0.0;
  for (int i = 0; i < n; i++) {
    if (!(p[i] >= 0.0 && p[i] <= 1.0))
      return ls_error_set(err, LS_ERANGE, "acceptance vector: p_%d = %g is not a probability", i + 1, p[i]);
    sum += p[i];
  }
  if (sum > 1.0 + 1e-9 || sum <= 0.0)
    return ls_error_set(err, LS_ERANGE, "acceptance vector: the p_k sum to %g (expected in (0, 1])", sum);
  pv->n = n;
  for (int i = 0; i < n; i++) {
    pv->p[i] = p[i];
    pv->q[i] = p[i] / sum;
  }
  view->ctx = pv;
  view->root_key = mix(seed);
  view->candidates = candidates;
  view->child_key = child_key;
  return LS_OK;
}

double ls_posview_expected(const ls_posview *pv, const ls_tree *t)
{
  double acc[LS_TREE_MAX], e = 1.0;
  acc[0] = 1.0;
  for (int i = 1; i < t->n; i++) {
    int r = t->rank[i];
    acc[i] = acc[t->parent[i]] * (r < pv->n ? pv->p[r] : 0.0);
    e += acc[i];
  }
  return e;
}

int ls_posview_walk(const ls_posview *pv, const ls_tree *t, const double *u, int n_u, int *acc)
{
  int node = 0, len = 1;
  for (int step = 0; step < n_u; step++) {
    int r = -1;
    double c = 0.0;
    for (int k = 0; k < pv->n; k++) {
      c += pv->p[k];
      if (u[step] < c) {
        r = k;
        break;
      }
    }
    int next = -1;
    for (int i = node + 1; r >= 0 && i < t->n; i++)
      if (t->parent[i] == node && t->rank[i] == r) {
        next = i;
        break;
      }
    if (next < 0)
      break;
    acc[len - 1] = next;
    len++;
    node = next;
  }
  return len;
}
