/* policies/draft_chain: "chain", classic speculative decoding (Leviathan et al. 2023).
 *
 * gamma draft passes, each over the last drafted token, keep its top-1 candidate. With iid
 * acceptance alpha the expected tokens per cycle are (1 - alpha^(gamma+1)) / (1 - alpha)
 * (src:leviathan-sd; tested). Settings: draft.gamma (default 4: assumed, the common
 * setting of chain SD evaluations), capped by draft.budget - 1 (default 1 + gamma). */
#include <stdio.h>
#include <stdlib.h>
#include "policies/policies_int.h"

typedef struct {
  int gamma, budget;
  long gamma_set; /* draft.gamma as read */
} chain_state;

static int create(void **state, ls_kv *kv, ls_error *err)
{
  long g;
  int b;
  int rc = ls_kv_int(kv, "draft.gamma", 1, LS_TREE_MAX - 1, 4, &g, err);
  if (rc == LS_OK)
    rc = ls_policy_budget(kv, g + 1, &b, err);
  if (rc != LS_OK)
    return rc;
  chain_state *s = malloc(sizeof *s);
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "chain: out of memory");
  s->gamma = (int)(g < b - 1 ? g : b - 1);
  s->gamma_set = g;
  s->budget = b;
  *state = s;
  return LS_OK;
}

static int build(void *state, ls_tree *t, const ls_draft_view *v, const ls_cost_model *cost, ls_error *err)
{
  (void)cost;
  const chain_state *s = state;
  ls_tree_init(t, v);
  int last = 0;
  for (int d = 0; d < s->gamma; d++) {
    double p;
    if (ls_tree_expand(t, v, &last, 1, 1, &p) != LS_OK)
      return ls_error_set(err, LS_ERANGE, "chain: draft step log full");
    if (p <= 0.0)
      break; /* the draft offered nothing */
    last = ls_tree_add(t, v, last, 0, p);
    if (last < 0)
      break;
  }
  return LS_OK;
}

static int effective(const void *state, const char *key, double *value, char *why, size_t size)
{
  const chain_state *s = state;
  char cap[48];
  snprintf(cap, sizeof cap, "draft.gamma=%ld", s->gamma_set);
  return ls_policy_budget_capped(key, s->budget, (int)s->gamma_set + 1, cap, "chain", value, why, size);
}

const ls_draft_ops ls_draft_chain = {"chain", "chain SD: gamma top-1 tokens", create, free, build, NULL, effective};
