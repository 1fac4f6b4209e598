/* tests/policies/plugins/bad: a plug-in whose every policy breaks one rule of policies/policy.h
 * on purpose, named after it, so `leversim policy check` must name each rule (tests/policies
 * "plugin" and tests/cli). Never an example to follow: the static counter below is exactly
 * what a policy may not have. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include "policies/policy.h"

typedef struct st { int budget; } st;

static int mk(void **state, ls_kv *kv, ls_error *err, int read_budget)
{
  long b = 8;
  if (read_budget && ls_kv_int(kv, "draft.budget", 1, LS_TREE_MAX, 8, &b, err))
    return LS_EINVALID;
  st *s = malloc(sizeof *s);
  if (!s) return ls_error_set(err, LS_ENOMEM, "out of memory");
  s->budget = (int)b;
  *state = s;
  return LS_OK;
}
static int create(void **state, ls_kv *kv, ls_error *err) { return mk(state, kv, err, 1); }
static int create_deaf(void **state, ls_kv *kv, ls_error *err) { return mk(state, kv, err, 0); }
static void destroy(void *s) { free(s); }

/* A chain of n - 1 top-1 children below the root. */
static int chain(ls_tree *t, const ls_draft_view *v, int n)
{
  double p[LS_VIEW_TOPK_MAX];
  ls_tree_init(t, v);
  for (int u = 0; t->n < n; u = t->n - 1) {
    if (ls_tree_expand(t, v, &u, 1, 1, p) || ls_tree_add(t, v, u, 0, p[0]) < 0)
      return LS_ERANGE;
  }
  return LS_OK;
}

/* within-budget: one node too many */
static int build_over(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)c; (void)e;
  return chain(t, v, ((st *)s)->budget + 1);
}

/* deterministic: a counter shared by every instance changes the tree */
static int calls;
static int build_leaky(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)c; (void)e;
  int b = ((st *)s)->budget;
  return chain(t, v, b > 1 && (calls++ % 2) ? b - 1 : b);
}

/* no-foreign-writes: scribbles just past the tree it was handed */
static int build_scribble(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)c; (void)e;
  int rc = chain(t, v, ((st *)s)->budget);
  ((volatile uint64_t *)(t + 1))[0] = 0;
  return rc;
}

/* tree-valid: a node whose probability is not the view's */
static int build_forge(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)c; (void)e;
  int rc = chain(t, v, ((st *)s)->budget);
  if (t->n > 1) {
    t->prob[1] *= 0.5;
    for (int i = 1; i < t->n; i++) t->path_prob[i] = t->path_prob[t->parent[i]] * t->prob[i];
  }
  return rc;
}

/* reads-budget: never asks for draft.budget, builds 4 nodes whatever it is */
static int build_deaf(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)s; (void)c; (void)e;
  return chain(t, v, 1);
}

/* no-crash */
static int build_crash(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)s; (void)t; (void)v; (void)c; (void)e;
  raise(SIGSEGV);
  return LS_OK;
}

#define DRAFT(id, cr, fn, what) static const ls_draft_ops id = {#id, what, cr, destroy, fn, NULL, NULL}
DRAFT(overbudget, create, build_over, "one node past draft.budget");
DRAFT(leaky, create, build_leaky, "state outside the instance");
DRAFT(scribbler, create, build_scribble, "writes past the tree");
DRAFT(forger, create, build_forge, "a probability the view never gave");
DRAFT(deaf, create_deaf, build_deaf, "ignores draft.budget");
DRAFT(crasher, create, build_crash, "dies");

/* keep-valid: keeps the last node without its parent */
static int pcreate(void **state, ls_kv *kv, ls_error *err) { (void)kv; return mk(state, kv, err, 0); }
static int exit_half(const void *s, int n) { (void)s; return n / 2; }
static int prune_orphan(void *s, const ls_tree *t, const double *score, unsigned char *keep, const ls_prune_ctx *pc)
{
  (void)s; (void)score; (void)pc;
  keep[0] = 1;
  if (t->n > 2 && t->parent[t->n - 1] != 0) {
    keep[t->n - 1] = 1;
    return 2;
  }
  return 1;
}
static const ls_prune_ops orphan = {"orphan", "keeps a node without its parent", pcreate, destroy, exit_half, prune_orphan};

/* exec-valid: one call of one token whatever the step's size */
static ls_draft_exec step_short(const void *s, int n, int d) { (void)s; (void)n; (void)d; return (ls_draft_exec){LS_UNIT_NPU, 1, 1}; }
static ls_lmhead head(const void *s) { (void)s; return LS_LMHEAD_EAGER_NPU; }
static ls_unit target(const void *s) { (void)s; return LS_UNIT_NPU; }
static const ls_map_ops shortmap = {"short", "too few tokens for a pass", pcreate, destroy, step_short, head, target};

static const ls_draft_ops *const DRAFTS[] = {&overbudget, &leaky, &scribbler, &forger, &deaf, &crasher, NULL};
static const ls_prune_ops *const PRUNES[] = {&orphan, NULL};
static const ls_map_ops *const MAPS[] = {&shortmap, NULL};
const ls_plugin leversim_plugin = {LS_PLUGIN_ABI, LS_PLUGIN_LAYOUT, "rule-breakers", "one broken rule per policy",
                                   DRAFTS, PRUNES, MAPS};
