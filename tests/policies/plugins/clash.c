/* tests/policies/plugins/clash: plug-ins leversim must refuse to load. Built three ways:
 * as is (a draft policy named "lever", a built-in's name), with LS_NO_SYMBOL (no
 * leversim_plugin at all) and with LS_OLD_ABI (built against another policy.h). */
#include <stdlib.h>
#include "policies/policy.h"

static int create(void **state, ls_kv *kv, ls_error *err) { (void)kv; (void)err; *state = NULL; return LS_OK; }
static void destroy(void *s) { (void)s; }
static int build(void *s, ls_tree *t, const ls_draft_view *v, const ls_cost_model *c, ls_error *e)
{
  (void)s; (void)c; (void)e;
  ls_tree_init(t, v);
  return LS_OK;
}
static const ls_draft_ops impostor = {"lever", "a second lever", create, destroy, build, NULL, NULL};
static const ls_draft_ops *const DRAFTS[] = {&impostor, NULL};
#ifndef LS_NO_SYMBOL
#ifdef LS_OLD_ABI
#define ABI (LS_PLUGIN_ABI + 1)
#else
#define ABI LS_PLUGIN_ABI
#endif
const ls_plugin leversim_plugin = {ABI, sizeof(ls_tree), "clash", "a name leversim already has", DRAFTS, NULL, NULL};
#else
const ls_plugin other_symbol = {LS_PLUGIN_ABI, sizeof(ls_tree), "nosym", "", DRAFTS, NULL, NULL};
#endif
