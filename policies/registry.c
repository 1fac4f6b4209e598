/* policies/registry: every policy, by family, in one plain array each (docs/ARCHITECTURE.md,
 * "Module boundaries"). Adding a policy = one file with one const ops table + one line here. */
#include <string.h>
#include "policies/policies_int.h"

static const ls_draft_ops *const DRAFTS[] = {&ls_draft_ar,     &ls_draft_chain,   &ls_draft_specinfer,
                                             &ls_draft_sequoia, &ls_draft_eagle2, &ls_draft_opttree,
                                             &ls_draft_lever,   NULL};
static const ls_prune_ops *const PRUNES[] = {&ls_prune_none, &ls_prune_early_exit, NULL};
static const ls_map_ops *const MAPS[] = {&ls_map_npu, &ls_map_cpu, &ls_map_npu_batch, &ls_map_lever, NULL};

static const char *const DRAFT_NAMES[] = {"ar", "chain", "specinfer", "sequoia", "eagle2", "opt-tree", "lever", NULL};
static const char *const PRUNE_NAMES[] = {"none", "early-exit", NULL};
static const char *const MAP_NAMES[] = {"npu", "cpu", "npu-batch", "lever", NULL};

const ls_draft_ops *ls_draft_find(const char *name)
{
  for (int i = 0; name && DRAFTS[i]; i++)
    if (strcmp(DRAFTS[i]->name, name) == 0)
      return DRAFTS[i];
  return NULL;
}

const ls_prune_ops *ls_prune_find(const char *name)
{
  for (int i = 0; name && PRUNES[i]; i++)
    if (strcmp(PRUNES[i]->name, name) == 0)
      return PRUNES[i];
  return NULL;
}

const ls_map_ops *ls_map_find(const char *name)
{
  for (int i = 0; name && MAPS[i]; i++)
    if (strcmp(MAPS[i]->name, name) == 0)
      return MAPS[i];
  return NULL;
}

/* The name arrays mirror the tables (a test checks they agree). */
const char *const *ls_draft_names(void) { return DRAFT_NAMES; }
const char *const *ls_prune_names(void) { return PRUNE_NAMES; }
const char *const *ls_map_names(void) { return MAP_NAMES; }
