/* workloads/workloads_int: data-folder listing and id resolution (see workloads_int.h).
 * Ids are sorted with strcmp so listings are identical on every machine. */
#include "workloads/workloads_int.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LS_WL_MAX_IDS 256

static int cmp_id(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static int is_yaml_id(const char *name, char *id)
{
  size_t n = strlen(name);
  if (n <= 5 || n - 5 >= 64 || strcmp(name + n - 5, ".yaml") != 0 || name[0] == '.')
    return 0;
  memcpy(id, name, n - 5);
  id[n - 5] = '\0';
  return 1;
}

int ls_wl_list(const char *data_root, const char *sub, char (*ids)[64], int max)
{
  char dir[LS_WL_PATH];
  snprintf(dir, sizeof dir, "%s/%s", data_root, sub);
  DIR *d = opendir(dir);
  if (!d)
    return LS_EIO;
  char all[LS_WL_MAX_IDS][64];
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL && n < LS_WL_MAX_IDS)
    if (is_yaml_id(e->d_name, all[n]))
      n++;
  closedir(d);
  qsort(all, (size_t)n, sizeof all[0], cmp_id);
  for (int i = 0; i < n && i < max; i++)
    memcpy(ids[i], all[i], 64);
  return n;
}

int ls_wl_resolve(const char *data_root, const char *sub, const char *what, const char *id,
                  char *path, unsigned size, ls_error *err)
{
  snprintf(path, size, "%s/%s/%s.yaml", data_root, sub, id);
  if (!strchr(id, '/') && access(path, F_OK) == 0) /* never open: a FIFO would block */
    return LS_OK;
  char ids[64][64];
  int n = ls_wl_list(data_root, sub, ids, 64);
  char list[1024] = "";
  for (int i = 0; i < n && i < 64; i++) {
    size_t used = strlen(list);
    snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", ids[i]);
  }
  return ls_error_set(err, LS_ENOTFOUND, "unknown %s '%s' (valid: %s)", what, id,
                      n > 0 ? list : "none found");
}

void ls_wl_file_id(const char *path, char *out, unsigned size)
{
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  snprintf(out, size, "%s", base);
  size_t n = strlen(out);
  if (n > 5 && strcmp(out + n - 5, ".yaml") == 0)
    out[n - 5] = '\0';
}

int ls_wl_load(const char *path, size_t size, size_t id_off, int (*read)(ls_ydoc *doc, void *obj, ls_error *err),
               void **out, ls_error *err)
{
  *out = NULL;
  ls_ydoc *doc = NULL;
  int rc = ls_ydoc_load_file(&doc, path, err);
  if (rc)
    return rc;
  void *obj = calloc(1, size);
  if (!obj) {
    ls_ydoc_free(doc);
    return ls_error_set(err, LS_ENOMEM, "out of memory loading %s", path);
  }
  rc = read(doc, obj, err);
  const char *id = (const char *)obj + id_off;
  char want[64];
  ls_wl_file_id(path, want, sizeof want);
  if (!rc && strcmp(want, id) != 0) {
    ls_ynode root = ls_ydoc_root(doc), idn;
    ls_ymap_find(&root, "id", &idn);
    rc = ls_ynode_error(&idn, err, LS_EINVALID, "id '%s' does not match the file name '%s'", id, want);
  }
  ls_ydoc_free(doc);
  if (rc) {
    free(obj);
    return rc;
  }
  *out = obj;
  return LS_OK;
}
