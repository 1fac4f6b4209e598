/* tests/policies/plugins/clash: plug-ins leversim must refuse to load. Built four ways:
 * as is (a draft policy named "lever", a built-in's name), with LS_NO_SYMBOL (no
 * leversim_plugin at all), with LS_OLD_ABI (another ABI number) and with LS_OLD_LAYOUT (ops
 * tables of another size, as a plug-in built before a field was added). */
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
#ifdef LS_OLD_LAYOUT
#define LAYOUT (LS_PLUGIN_LAYOUT - sizeof(void *)) /* a draft table one pointer shorter */
#else
#define LAYOUT LS_PLUGIN_LAYOUT
#endif
const ls_plugin leversim_plugin = {ABI, LAYOUT, "clash", "a name leversim already has", DRAFTS, NULL, NULL};
#else
const ls_plugin other_symbol = {LS_PLUGIN_ABI, LS_PLUGIN_LAYOUT, "nosym", "", DRAFTS, NULL, NULL};
#endif
