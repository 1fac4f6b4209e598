/* policies/plugin: the policy set — built-ins plus loaded plug-ins (plugin.h).
 *
 * A plug-in is code, so it is loaded only when a user names it (--plugin), with dlopen
 * RTLD_NOW | RTLD_LOCAL: an unresolved symbol fails at load time with the linker's message,
 * and two plug-ins never see each other's symbols. The file's SHA-256 (OpenSSL's EVP) is
 * taken from the same bytes before dlopen; a file swapped between the two reads would go
 * unnoticed, which we accept (the user controls the file). */
#include "policies/plugin.h"
#include "sim/fileio.h"
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/evp.h>

#define LS_PLUGIN_FILE_MAX (1L << 30) /* larger "plug-ins" are not what a user meant */

typedef struct loaded {
  void *handle;
  const ls_plugin *table;
  char *path;
  char sha256[65];
} loaded;

struct ls_policy_set {
  loaded *p;
  int n, cap;
};

int ls_policy_set_create(ls_policy_set **out, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  return *out ? LS_OK : ls_error_set(err, LS_ENOMEM, "policies: out of memory");
}

void ls_policy_set_free(ls_policy_set *s)
{
  if (!s)
    return;
  for (int i = 0; i < s->n; i++) {
    dlclose(s->p[i].handle);
    free(s->p[i].path);
  }
  free(s->p);
  free(s);
}

static int file_sha256(const char *path, char hex[65], ls_error *err)
{
  /* never a plain fopen: a FIFO named as a plug-in would block it (and dlopen) for ever */
  FILE *f;
  int orc = ls_file_open_read(&f, path, "plug-in", err);
  if (orc) { /* said as every other refusal of a plug-in: "--plugin PATH: ..." */
    char why[LS_ERR_MSG];
    snprintf(why, sizeof why, "%s", err->msg);
    return ls_error_set(err, orc, "--plugin %s: %s", path, why);
  }
  EVP_MD_CTX *ctx = EVP_MD_CTX_new();
  unsigned char buf[65536], md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  long total = 0;
  int ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
  size_t got;
  while (ok && (got = fread(buf, 1, sizeof buf, f)) > 0 && (total += (long)got) <= LS_PLUGIN_FILE_MAX)
    ok = EVP_DigestUpdate(ctx, buf, got);
  int rerr = ferror(f);
  fclose(f);
  ok = ok && !rerr && total <= LS_PLUGIN_FILE_MAX && EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  if (!ok)
    return ls_error_set(err, LS_EIO, "--plugin %s: cannot read it (or larger than %ld bytes)", path,
                        LS_PLUGIN_FILE_MAX);
  for (unsigned int i = 0; i < len && i < 32; i++)
    snprintf(hex + 2 * i, 3, "%02x", md[i]);
  return LS_OK;
}

/* ---- lookups ---- */

static const void *find_in(const ls_policy_set *s, ls_policy_family f, const char *name, int from_plugins)
{
  if (!name)
    return NULL;
  if (!from_plugins) {
    if (f == LS_FAMILY_DRAFT) return ls_draft_find(name);
    if (f == LS_FAMILY_PRUNE) return ls_prune_find(name);
    return ls_map_find(name);
  }
  for (int i = 0; s && i < s->n; i++) {
    const ls_plugin *t = s->p[i].table;
    if (f == LS_FAMILY_DRAFT)
      for (int k = 0; t->drafts && t->drafts[k]; k++)
        if (strcmp(t->drafts[k]->name, name) == 0) return t->drafts[k];
    if (f == LS_FAMILY_PRUNE)
      for (int k = 0; t->prunes && t->prunes[k]; k++)
        if (strcmp(t->prunes[k]->name, name) == 0) return t->prunes[k];
    if (f == LS_FAMILY_MAP)
      for (int k = 0; t->maps && t->maps[k]; k++)
        if (strcmp(t->maps[k]->name, name) == 0) return t->maps[k];
  }
  return NULL;
}

static const void *find(const ls_policy_set *s, ls_policy_family f, const char *name)
{
  const void *o = find_in(s, f, name, 0);
  return o ? o : find_in(s, f, name, 1);
}

const ls_draft_ops *ls_policy_set_draft(const ls_policy_set *s, const char *name) { return find(s, LS_FAMILY_DRAFT, name); }
const ls_prune_ops *ls_policy_set_prune(const ls_policy_set *s, const char *name) { return find(s, LS_FAMILY_PRUNE, name); }
const ls_map_ops *ls_policy_set_map(const ls_policy_set *s, const char *name) { return find(s, LS_FAMILY_MAP, name); }

const char *ls_policy_set_name(const ls_policy_set *s, ls_policy_family f, int i)
{
  const char *const *b = f == LS_FAMILY_DRAFT ? ls_draft_names() : f == LS_FAMILY_PRUNE ? ls_prune_names() : ls_map_names();
  for (; *b; b++, i--)
    if (i == 0)
      return *b;
  for (int k = 0; s && k < s->n; k++) {
    const ls_plugin *t = s->p[k].table;
    if (f == LS_FAMILY_DRAFT)
      for (int j = 0; t->drafts && t->drafts[j]; j++, i--)
        if (i == 0) return t->drafts[j]->name;
    if (f == LS_FAMILY_PRUNE)
      for (int j = 0; t->prunes && t->prunes[j]; j++, i--)
        if (i == 0) return t->prunes[j]->name;
    if (f == LS_FAMILY_MAP)
      for (int j = 0; t->maps && t->maps[j]; j++, i--)
        if (i == 0) return t->maps[j]->name;
  }
  return NULL;
}

int ls_policy_set_origin(const ls_policy_set *s, const void *ops)
{
  for (int i = 0; ops && s && i < s->n; i++) {
    const ls_plugin *t = s->p[i].table;
    for (int k = 0; t->drafts && t->drafts[k]; k++)
      if ((const void *)t->drafts[k] == ops) return i;
    for (int k = 0; t->prunes && t->prunes[k]; k++)
      if ((const void *)t->prunes[k] == ops) return i;
    for (int k = 0; t->maps && t->maps[k]; k++)
      if ((const void *)t->maps[k] == ops) return i;
  }
  return -1;
}

int ls_policy_set_plugins(const ls_policy_set *s) { return s ? s->n : 0; }

ls_plugin_info ls_policy_set_plugin(const ls_policy_set *s, int i)
{
  ls_plugin_info info = {s->p[i].table->name, s->p[i].path, s->p[i].sha256};
  return info;
}

int ls_policy_set_provenance(const ls_policy_set *s, const ls_draft_ops *d, const ls_prune_ops *p,
                             const ls_map_ops *m, char *buf, size_t size)
{
  const void *ops[3] = {d, p, m};
  const char *fam[3] = {"draft", "prune", "map"};
  const char *names[3] = {d ? d->name : "", p ? p->name : "", m ? m->name : ""};
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < 3; i++) {
    int k = ls_policy_set_origin(s, ops[i]);
    if (k < 0)
      continue; /* names are checked at load: no quote or control character to escape */
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0,
                            "%s{\"family\":\"%s\",\"policy\":\"%s\",\"plugin\":\"%s\",\"sha256\":\"%s\"}",
                            len ? "," : "[", fam[i], names[i], s->p[k].table->name, s->p[k].sha256);
  }
  if (len)
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "]");
  return len < size ? 0 : -1;
}

/* ---- loading ---- */

/* A name a setting, a file and JSON can carry unquoted: [A-Za-z0-9._-], 1..63 characters. */
static int good_name(const char *n)
{
  if (!n || !*n || strlen(n) > 63)
    return 0;
  for (; *n; n++)
    if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
          *n == '.' || *n == '_' || *n == '-'))
      return 0;
  return 1;
}

static int check_one(const ls_policy_set *s, const char *path, ls_policy_family f, const char *name,
                     int complete, ls_error *err)
{
  static const char *const FAM[] = {"draft", "prune", "map"};
  if (!good_name(name))
    return ls_error_set(err, LS_EINVALID, "--plugin %s: a %s policy's name is missing or not made of "
                        "letters, digits, '.', '_' and '-' (at most 63)", path, FAM[f]);
  if (!complete)
    return ls_error_set(err, LS_EINVALID, "--plugin %s: %s policy '%s' lacks a function its family "
                        "requires (policies/policy.h)", path, FAM[f], name);
  if (find_in(s, f, name, 0))
    return ls_error_set(err, LS_EINVALID, "--plugin %s: %s policy '%s' clashes with the built-in "
                        "policy of that name; rename it", path, FAM[f], name);
  if (find_in(s, f, name, 1))
    return ls_error_set(err, LS_EINVALID, "--plugin %s: %s policy '%s' is already provided by plug-in "
                        "'%s'; names must be unique", path, FAM[f], name,
                        s->p[ls_policy_set_origin(s, find_in(s, f, name, 1))].table->name);
  return LS_OK;
}

/* Every table of t against the rules, and against the policies already registered. */
static int check_table(const ls_policy_set *s, const char *path, const ls_plugin *t, ls_error *err)
{
  if (t->abi != LS_PLUGIN_ABI || t->layout != LS_PLUGIN_LAYOUT)
    return ls_error_set(err, LS_EINVALID, "--plugin %s: built against another policy.h (ABI %d, layout "
                        "%lu; this leversim: ABI %d, layout %lu); rebuild it", path, t->abi, t->layout,
                        LS_PLUGIN_ABI, (unsigned long)LS_PLUGIN_LAYOUT);
  if (!good_name(t->name))
    return ls_error_set(err, LS_EINVALID, "--plugin %s: the plug-in's name is missing or not made of "
                        "letters, digits, '.', '_' and '-'", path);
  int rc = LS_OK, count = 0;
  for (int k = 0; rc == LS_OK && t->drafts && t->drafts[k]; k++, count++) {
    const ls_draft_ops *o = t->drafts[k];
    rc = check_one(s, path, LS_FAMILY_DRAFT, o->name, o->create && o->destroy && o->build, err);
  }
  for (int k = 0; rc == LS_OK && t->prunes && t->prunes[k]; k++, count++) {
    const ls_prune_ops *o = t->prunes[k];
    rc = check_one(s, path, LS_FAMILY_PRUNE, o->name, o->create && o->destroy && o->exit_layer && o->prune, err);
  }
  for (int k = 0; rc == LS_OK && t->maps && t->maps[k]; k++, count++) {
    const ls_map_ops *o = t->maps[k];
    rc = check_one(s, path, LS_FAMILY_MAP, o->name,
                   o->create && o->destroy && o->draft_step && o->lmhead && o->target_unit, err);
  }
  if (rc == LS_OK && count == 0)
    rc = ls_error_set(err, LS_EINVALID, "--plugin %s: plug-in '%s' provides no policy", path, t->name);
  return rc;
}

int ls_policy_set_load(ls_policy_set *s, const char *path, ls_error *err)
{
  char sha[65];
  int rc = file_sha256(path, sha, err);
  if (rc)
    return rc;
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 4;
    loaded *p = realloc(s->p, (size_t)cap * sizeof *p);
    if (!p)
      return ls_error_set(err, LS_ENOMEM, "policies: out of memory");
    s->p = p;
    s->cap = cap;
  }
  /* dlopen searches the library path for a bare name; a file the user named is a path */
  char *full = malloc(strlen(path) + 3);
  if (!full)
    return ls_error_set(err, LS_ENOMEM, "policies: out of memory");
  sprintf(full, "%s%s", strchr(path, '/') ? "" : "./", path);
  void *h = dlopen(full, RTLD_NOW | RTLD_LOCAL);
  free(full);
  if (!h)
    return ls_error_set(err, LS_EINVALID, "--plugin %s: cannot load it: %s", path, dlerror());
  const ls_plugin *t = dlsym(h, LS_PLUGIN_SYMBOL);
  if (!t) {
    dlclose(h);
    return ls_error_set(err, LS_EINVALID, "--plugin %s: not a leversim plug-in (it defines no '%s'; "
                        "see policies/policy.h)", path, LS_PLUGIN_SYMBOL);
  }
  rc = check_table(s, path, t, err);
  char *copy = rc ? NULL : strdup(path);
  if (!rc && !copy)
    rc = ls_error_set(err, LS_ENOMEM, "policies: out of memory");
  if (rc) {
    dlclose(h);
    return rc;
  }
  loaded *l = &s->p[s->n++];
  l->handle = h;
  l->table = t;
  l->path = copy;
  memcpy(l->sha256, sha, sizeof sha);
  return LS_OK;
}
