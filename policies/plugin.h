/* policies/plugin: a set of policies to choose from by name — the built-ins of registry.c
 * and the ops tables of loaded plug-ins (`--plugin FILE.so`, docs/POLICIES.md).
 *
 * A command that runs policies creates one set, loads the plug-ins it was given and hands the
 * set (borrowed) to whatever looks policies up; NULL everywhere means the built-ins alone.
 * Loading checks the plug-in's ABI, its tree size, that every table has a name and the
 * functions its family requires, and that no name repeats a built-in or an earlier plug-in's.
 * Each loaded file is identified by its SHA-256, stored with every run that uses one of its
 * policies (ls_policy_set_provenance). A loaded plug-in stays mapped until the set is freed. */
#ifndef LS_POLICIES_PLUGIN_H
#define LS_POLICIES_PLUGIN_H
#include <stddef.h>
#include "policies/policy.h"

typedef struct ls_policy_set ls_policy_set;

typedef enum { LS_FAMILY_DRAFT = 0, LS_FAMILY_PRUNE = 1, LS_FAMILY_MAP = 2 } ls_policy_family;

/* What a loaded plug-in is; strings borrowed from the set. */
typedef struct ls_plugin_info {
  const char *name;    /* ls_plugin.name */
  const char *path;    /* as given to ls_policy_set_load */
  const char *sha256;  /* 64 lowercase hex digits of the file's bytes */
} ls_plugin_info;

int ls_policy_set_create(ls_policy_set **out, ls_error *err); /* *out owned by caller */
void ls_policy_set_free(ls_policy_set *s);                    /* unloads its plug-ins */
/* Loads path (a shared object defining LS_PLUGIN_SYMBOL) and registers its policies.
 * Missing file: LS_ENOTFOUND; not a plug-in, a bad table or a name clash: LS_EINVALID. */
int ls_policy_set_load(ls_policy_set *s, const char *path, ls_error *err);
int ls_policy_set_plugins(const ls_policy_set *s);
ls_plugin_info ls_policy_set_plugin(const ls_policy_set *s, int i);

/* Lookups by name; s may be NULL (built-ins only). */
const ls_draft_ops *ls_policy_set_draft(const ls_policy_set *s, const char *name);
const ls_prune_ops *ls_policy_set_prune(const ls_policy_set *s, const char *name);
const ls_map_ops *ls_policy_set_map(const ls_policy_set *s, const char *name);
/* The i-th policy name of a family (built-ins first, then plug-ins in load order), NULL past
 * the last. */
const char *ls_policy_set_name(const ls_policy_set *s, ls_policy_family f, int i);
/* The plug-in that provides ops (any family's table), or -1 for a built-in. */
int ls_policy_set_origin(const ls_policy_set *s, const void *ops);
/* JSON array naming the plug-in of each of the three ops that comes from one, e.g.
 * [{"family":"draft","policy":"greedy","plugin":"greedy-example","sha256":"..."}], or ""
 * when all three are built in. Returns 0, -1 when it does not fit in buf. */
int ls_policy_set_provenance(const ls_policy_set *s, const ls_draft_ops *d, const ls_prune_ops *p,
                             const ls_map_ops *m, char *buf, size_t size);

#endif
