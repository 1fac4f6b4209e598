/* policies/draft_ar: "ar", no speculation: the tree is the root alone, no draft pass; the
 * target verifies one token and the cycle yields exactly the bonus token (tau = 1). */
#include <stdio.h>
#include <string.h>
#include "policies/policies_int.h"

/* draft.budget is accepted (systems set it for every policy) and has no effect. */
static int create(void **state, ls_kv *kv, ls_error *err)
{
  int budget;
  *state = NULL;
  return ls_policy_budget(kv, 1, &budget, err);
}

static int effective(const void *state, const char *key, double *value, char *why, size_t size)
{
  (void)state;
  if (strcmp(key, "draft.budget") != 0)
    return 0;
  *value = 1;
  snprintf(why, size, "ar drafts nothing: its tree is the root alone, whatever the budget");
  return 1;
}

static void destroy(void *state) { (void)state; }

static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  (void)state;
  (void)cost;
  (void)err;
  ls_tree_init(t, v);
  return LS_OK;
}

const ls_draft_ops ls_draft_ar = {"ar", "autoregressive: no speculation", create, destroy, build, NULL, effective};
