/* policies/prune_none: "none", no pruning: every tree node is verified by every layer. */
#include <string.h>
#include "policies/policies_int.h"

static int create(void **state, ls_kv *kv, ls_error *err)
{
  (void)kv;
  (void)err;
  *state = NULL;
  return LS_OK;
}

static void destroy(void *state) { (void)state; }

static int exit_layer(const void *state, int n_layers)
{
  (void)state;
  (void)n_layers;
  return 0;
}

static int prune(void *state, const ls_tree *t, const double *score, unsigned char *keep, const ls_prune_ctx *pc)
{
  (void)state;
  (void)score;
  (void)pc;
  memset(keep, 1, (size_t)t->n);
  return t->n;
}

const ls_prune_ops ls_prune_none = {"none", "no pruning", create, destroy, exit_layer, prune};
