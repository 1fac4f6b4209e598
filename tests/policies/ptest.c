/* tests/policies/ptest: fixtures shared by the policy tests (see ptest.h). */
#include "ptest.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/rng.h"

static int rv_candidates(const void *ctx, uint64_t key, int depth, double *probs, int k)
{
  (void)depth;
  const ptest_rview *rv = ctx;
  if (rv->alpha > 0.0) {
    probs[0] = rv->alpha;
    return 1;
  }
  int m = k < rv->k ? k : rv->k;
  double x[LS_VIEW_TOPK_MAX], sum = 0.0;
  for (int i = 0; i < rv->k; i++) {
    double u = ls_uniform(ls_key2(key, (uint64_t)i + 17));
    x[i] = u * u * u; /* skewed: one or two candidates usually dominate */
    sum += x[i];
  }
  for (int i = 1; i < rv->k; i++) /* sort descending */
    for (int j = i; j > 0 && x[j] > x[j - 1]; j--) {
      double tmp = x[j];
      x[j] = x[j - 1];
      x[j - 1] = tmp;
    }
  for (int i = 0; i < m; i++)
    probs[i] = 0.95 * x[i] / sum;
  return m;
}

static uint64_t rv_child_key(const void *ctx, uint64_t key, int depth, int rank)
{
  (void)ctx;
  (void)depth;
  return ls_key2(key, (uint64_t)rank + 1);
}

void ptest_rview_init(ptest_rview *rv, uint64_t seed, int k, double alpha, ls_draft_view *v)
{
  rv->seed = seed;
  rv->k = k;
  rv->alpha = alpha;
  v->ctx = rv;
  v->root_key = ls_mix64(seed + 1);
  v->candidates = rv_candidates;
  v->child_key = rv_child_key;
}

static double pc_verify(const void *ctx, int n)
{
  const ptest_cost *pc = ctx;
  int pad = pc->pad_to > 1 ? ((n + pc->pad_to - 1) / pc->pad_to) * pc->pad_to : n;
  double comp = pc->c0 + pc->c1 * pad;
  return pc->L * (pc->io > comp ? pc->io : comp) + pc->io;
}

/* verify_saved_s for the model above: L - e layers, all streamed, at n then k tokens. */
static double pc_saved(const void *ctx, int n, int k, int e)
{
  const ptest_cost *pc = ctx;
  int pn = pc->pad_to > 1 ? ((n + pc->pad_to - 1) / pc->pad_to) * pc->pad_to : n;
  int pk = pc->pad_to > 1 ? ((k + pc->pad_to - 1) / pc->pad_to) * pc->pad_to : k;
  double cn = pc->c0 + pc->c1 * pn, ck = pc->c0 + pc->c1 * pk;
  return (pc->L - e) * ((pc->io > cn ? pc->io : cn) - (pc->io > ck ? pc->io : ck));
}

static double pc_draft(const void *ctx, int n, int depth)
{
  (void)depth;
  const ptest_cost *pc = ctx;
  return pc->d0 + pc->d1 * n;
}

void ptest_cost_bind(ptest_cost *pc, ls_cost_model *c)
{
  c->ctx = pc;
  c->verify_s = pc_verify;
  c->draft_step_s = pc_draft;
  c->draft_pair_s = NULL; /* one unit: passes one after another */
  c->verify_saved_s = pc_saved;
}

int ptest_tree_ok(const ls_tree *t)
{
  if (t->n < 1 || t->parent[0] != -1 || t->depth[0] != 0)
    return 0;
  for (int i = 1; i < t->n; i++) {
    int p = t->parent[i];
    if (p < 0 || p >= i || t->depth[i] != t->depth[p] + 1 || t->rank[i] < 0)
      return 0;
    if (fabs(t->path_prob[i] - t->path_prob[p] * t->prob[i]) > 1e-15)
      return 0;
    for (int j = p + 1; j < i; j++) /* siblings have distinct ranks */
      if (t->parent[j] == p && t->rank[j] == t->rank[i])
        return 0;
  }
  return 1;
}

ls_kv *ptest_kv(const char *settings)
{
  ls_kv *kv = NULL;
  ls_error err;
  if (ls_kv_create(&kv, &err) != LS_OK)
    return NULL;
  if (settings && *settings) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", settings);
    for (char *save = NULL, *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
      if (ls_kv_assign(kv, tok, "test", &err) != LS_OK) {
        ls_kv_free(kv);
        return NULL;
      }
  }
  return kv;
}

int ptest_build(const char *policy, const char *settings, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c)
{
  const ls_draft_ops *ops = ls_draft_find(policy);
  ls_kv *kv = ptest_kv(settings);
  ls_error err;
  void *st = NULL;
  if (!ops || !kv) {
    ls_kv_free(kv);
    return LS_EINVALID;
  }
  int rc = ops->create(&st, kv, &err);
  if (rc == LS_OK)
    rc = ls_kv_check_used(kv, "", &err);
  if (rc == LS_OK)
    rc = ops->build(st, t, v, c, &err);
  if (st)
    ops->destroy(st);
  ls_kv_free(kv);
  return rc;
}
