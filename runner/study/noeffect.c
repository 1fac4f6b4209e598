/* runner/study/noeffect: the swept values that change nothing (noeffect.h).
 *
 * A point is an entry (setting, system, configuration without that setting's value, value
 * asked, value in effect, reason). Entries are sorted so the points of one axis in one
 * configuration sit together; values that took effect otherwise are listed, and said to be
 * identical when two or more points of the configuration end at the same value. Warnings with
 * the same text but other configurations are counted, not repeated. */
#include "runner/study/noeffect.h"
#include <stdlib.h>
#include <string.h>
#include "runner/decode/paths.h"
#include "runner/study/driver.h"

typedef struct point {
  char key[128], system[LS_NAME_MAX], group[768], asked[64], why[200];
  double eff, asked_num;
  int capped;
} point;

typedef struct warn {
  char text[1024];
  int configs;
} warn;

static int by_group(const void *a, const void *b)
{
  const point *p = a, *q = b;
  int c = strcmp(p->key, q->key);
  if (!c) c = strcmp(p->group, q->group);
  return c ? c : (p->asked_num > q->asked_num) - (p->asked_num < q->asked_num);
}

/* The value spec gives key, as text ("" when it does not). */
static const char *given(const ls_run_spec *s, const char *key)
{
  for (int i = 0; i < ls_kv_count(s->settings); i++)
    if (strcmp(ls_kv_key(s->settings, i), key) == 0)
      return ls_kv_value(s->settings, i);
  return "";
}

/* The points of spec for each of its swept settings that has an effective-value hook answer
 * or could be compared with one: every swept draft.* setting. */
static int collect(const ls_run_spec *s, const ls_decode_result *res, point **pts, int *n, int *cap)
{
  for (int i = 0; i < res->n_settings; i++) {
    const ls_kv_decl *d = &res->settings[i];
    char pat[160];
    snprintf(pat, sizeof pat, "\"%s\":", d->key);
    const char *at = strstr(s->axes_json, pat);
    if (!at || strncmp(d->key, "draft.", 6) != 0)
      continue; /* not swept here */
    if (*n == *cap) {
      int nc = *cap ? 2 * *cap : 256;
      point *np = realloc(*pts, (size_t)nc * sizeof *np);
      if (!np) return LS_ENOMEM;
      *pts = np;
      *cap = nc;
    }
    point *p = &(*pts)[(*n)++];
    memset(p, 0, sizeof *p);
    snprintf(p->key, sizeof p->key, "%s", d->key);
    snprintf(p->system, sizeof p->system, "%s", s->system);
    snprintf(p->asked, sizeof p->asked, "%s", given(s, d->key));
    p->asked_num = p->eff = d->num;
    /* the configuration: everything but this setting's value */
    const char *end = strchr(at + strlen(pat) + 1, '"');
    size_t cut = end ? (size_t)(end + 1 - s->axes_json) : strlen(s->axes_json);
    snprintf(p->group, sizeof p->group, "%s|%s|%s|%s|%s|%llu|%.*s%s", s->part, s->device, s->model, s->dataset,
             s->system, (unsigned long long)s->seed, (int)(at - s->axes_json), s->axes_json, s->axes_json + cut);
    for (int k = 0; k < res->n_effective; k++)
      if (strcmp(res->effective[k].key, d->key) == 0) {
        p->capped = 1;
        p->eff = res->effective[k].value;
        snprintf(p->why, sizeof p->why, "%s", res->effective[k].why);
      }
  }
  return LS_OK;
}

static int add_warn(warn **w, int *n, const char *text)
{
  for (int i = 0; i < *n; i++)
    if (strcmp((*w)[i].text, text) == 0) {
      (*w)[i].configs++;
      return LS_OK;
    }
  warn *nw = realloc(*w, (size_t)(*n + 1) * sizeof *nw);
  if (!nw) return LS_ENOMEM;
  *w = nw;
  snprintf(nw[*n].text, sizeof nw[*n].text, "%s", text);
  nw[(*n)++].configs = 1;
  return LS_OK;
}

/* One configuration's points of one setting, pts[0..m-1]: its warning, if any. */
static int judge(const point *pts, int m, warn **w, int *nw)
{
  char vals[512] = "", text[1024];
  int n_capped = 0, same = 0, len = 0;
  const point *c = NULL;
  for (int i = 0; i < m; i++) {
    if (!pts[i].capped)
      continue;
    c = &pts[i];
    n_capped++;
    len += snprintf(vals + len, sizeof vals > (size_t)len ? sizeof vals - (size_t)len : 0, "%s%s", len ? "," : "", pts[i].asked);
    for (int j = 0; j < m; j++)
      same += j != i && pts[j].eff == pts[i].eff;
  }
  if (!c)
    return LS_OK;
  if (same)
    snprintf(text, sizeof text, "%s=%s on %s: no effect, %s %.17g (%s); those points give the same results",
             c->key, vals, c->system, n_capped > 1 ? "each takes effect as" : "takes effect as", c->eff, c->why);
  else
    snprintf(text, sizeof text, "%s=%s on %s: takes effect as %.17g (%s)", c->key, vals, c->system, c->eff, c->why);
  return add_warn(w, nw, text);
}

int ls_noeffect_warn(ls_experiment *x, const ls_policy_set *policies, FILE *f, const char *prefix,
                     int *count, ls_error *err)
{
  ls_decode_cache *cache = NULL;
  point *pts = NULL;
  warn *w = NULL;
  int n = 0, cap = 0, nw = 0, rc = ls_decode_cache_create(&cache, ls_data_root(), err);
  *count = 0;
  if (!rc) ls_decode_cache_set_policies(cache, policies);
  for (int i = 0; !rc && i < ls_experiment_count(x); i++) {
    ls_run_spec *s = ls_experiment_run(x, i);
    if (!strstr(s->axes_json, "\"draft."))
      continue;
    ls_decode_result res;
    if (ls_decode_check(cache, s, &res, err) == LS_OK && collect(s, &res, &pts, &n, &cap))
      rc = ls_error_set(err, LS_ENOMEM, "noeffect: out of memory");
    ls_decode_result_free(&res);
    ls_error_clear(err); /* a run that cannot be set up is validation's to report */
  }
  if (!rc && n)
    qsort(pts, (size_t)n, sizeof *pts, by_group);
  for (int i = 0, j; !rc && i < n; i = j) {
    for (j = i + 1; j < n && !strcmp(pts[j].key, pts[i].key) && !strcmp(pts[j].group, pts[i].group); j++) {}
    if (judge(pts + i, j - i, &w, &nw))
      rc = ls_error_set(err, LS_ENOMEM, "noeffect: out of memory");
  }
  for (int i = 0; !rc && i < nw; i++)
    fprintf(f, "%s%s (%d configuration%s)\n", prefix, w[i].text, w[i].configs, w[i].configs == 1 ? "" : "s");
  *count = nw;
  free(pts);
  free(w);
  ls_decode_cache_free(cache);
  return rc;
}

/* ---- padding twins (noeffect.h) ---- */

#define PAD_KEY "device.npu.pad_small"

/* The reuse id spec would have with device.npu.pad_small false (id: 33 bytes); 0 when it cannot
 * be set up that way. */
static int flipped_reuse_id(ls_decode_cache *cache, const ls_run_spec *spec, char *id)
{
  ls_run_spec flip = *spec; /* borrows device; settings replaced by a copy */
  ls_error err;
  ls_error_clear(&err);
  int ok = ls_kv_copy(&flip.settings, spec->settings, &err) == LS_OK &&
           ls_kv_set(flip.settings, PAD_KEY, "false", "padding twin", &err) == LS_OK;
  flip.run_id[0] = flip.reuse_id[0] = '\0';
  ok = ok && ls_driver_resolve_id(cache, &flip, &err) == LS_OK && flip.reuse_id[0];
  if (ok)
    memcpy(id, flip.reuse_id, sizeof flip.reuse_id);
  if (flip.settings != spec->settings)
    ls_kv_free(flip.settings);
  return ok;
}

int ls_noeffect_pad_twins(ls_experiment *x, const char *data_root, const ls_policy_set *policies, int *lead)
{
  int n = ls_experiment_count(x), marked = 0;
  ls_decode_cache *cache = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_decode_cache_create(&cache, data_root, &err) != LS_OK)
    return 0; /* nothing marked: every twin is simulated */
  ls_decode_cache_set_policies(cache, policies);
  for (int j = 0; j < n; j++) {
    ls_run_spec *s = ls_experiment_run(x, j);
    if (lead[j] != j || !s->reuse_id[0] || strcmp(given(s, PAD_KEY), "true") != 0)
      continue;
    int copied = 0; /* a twin another run reuses stays a lead: its copies need its own results */
    for (int k = j + 1; k < n && !copied; k++)
      copied = lead[k] == j;
    char id[sizeof s->reuse_id];
    if (copied || !flipped_reuse_id(cache, s, id))
      continue;
    for (int i = 0; i < j; i++)
      if (lead[i] == i && !lead[n + i] && strcmp(ls_experiment_run(x, i)->reuse_id, id) == 0) {
        lead[j] = i;
        lead[n + j] = 1;
        marked++;
        break;
      }
  }
  ls_decode_cache_free(cache);
  return marked;
}

int ls_noeffect_twin_result(ls_decode_cache *cache, ls_run_spec *twin, const ls_decode_result *lead_res,
                            ls_decode_result *chk, ls_decode_result *out)
{
  memset(chk, 0, sizeof *chk);
  if (!lead_res->valid || !lead_res->npu_reported || lead_res->npu_report.pad_decides != 0)
    return 0;
  ls_error err;
  ls_error_clear(&err);
  if (ls_decode_check(cache, twin, chk, &err) != LS_OK || !chk->valid) {
    ls_decode_result_free(chk);
    memset(chk, 0, sizeof *chk);
    return 0;
  }
  *out = *lead_res; /* the simulation's metrics, prompts and steps */
  out->settings = chk->settings; /* what the twin read: its own pad_small, its own origins */
  out->n_settings = chk->n_settings;
  memcpy(out->effective, chk->effective, sizeof out->effective);
  out->n_effective = chk->n_effective;
  memcpy(out->head_memory, chk->head_memory, sizeof out->head_memory);
  memcpy(out->unknown_key, chk->unknown_key, sizeof out->unknown_key);
  memcpy(out->plugins, chk->plugins, sizeof out->plugins);
  return 1;
}
