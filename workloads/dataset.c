/* workloads/dataset: loading workloads/datasets/<id>.yaml (see dataset.h; the meaning of the
 * acceptance parameters is at the top of oracle.c).
 *
 * Schema (every key checked, unknown keys are errors):
 *   id, kind: synthetic | iid | positional, default_prompts,
 *   prompt_len / output_len: {median, sigma, min, max}   (lognormal, clamped)
 *   early_exit: {auc, confidence_weight}
 *   iid: {alpha}                  (kind iid only)
 *   positional: {p: [p1, p2, ...]} (kind positional only; sum <= 1)
 *   processes: {llama3: P, qwen3-think: P, qwen3-nothink: P, and the same three with the
 *              suffix -eagle3 for the targets' EAGLE-3 heads}   (kind synthetic only)
 *     P = {regime: {easy_to_hard, hard_to_easy}, easy: R, hard: R, calibration, output_scale}
 *     R = {top1_logit_mean, top1_logit_sd, tail, agree} */
#include "workloads/dataset_int.h"
#include <stdlib.h>
#include <string.h>
#include "sim/range.h"
#include "sim/yaml.h"
#include "workloads/workloads_int.h"

const char *const ls_wl_process_names[LS_PROC_COUNT + 1] = {"llama3", "qwen3-think", "qwen3-nothink", "llama3-eagle3",
                                                            "qwen3-think-eagle3", "qwen3-nothink-eagle3", NULL};
static const char *const KINDS[] = {"synthetic", "iid", "positional", NULL};

static int read_len(const ls_ynode *root, const char *key, ls_wl_lendist *d, ls_error *err)
{
  ls_ynode m;
  double lo = 0, hi = 0;
  int rc = ls_ymap_require(root, key, &m, err);
  if (!rc) rc = ls_ynode_expect(&m, LS_Y_MAP, err);
  if (!rc) rc = ls_range_yreq(&m, "median", LS_R_LEN_MEDIAN, &d->median, err);
  if (!rc) rc = ls_range_yreq(&m, "sigma", LS_R_LEN_SIGMA, &d->sigma, err);
  if (!rc) rc = ls_range_yreq(&m, "min", LS_R_LEN, &lo, err);
  if (!rc) rc = ls_range_yreq(&m, "max", LS_R_LEN, &hi, err);
  if (!rc && lo > hi)
    rc = ls_ynode_error(&m, err, LS_ERANGE, "min (%.0f) exceeds max (%.0f)", lo, hi);
  if (!rc) rc = ls_ymap_finish(&m, err);
  d->min = (int)lo;
  d->max = (int)hi;
  return rc;
}

static int read_regime(const ls_ynode *p, const char *key, ls_wl_regime *r, ls_error *err)
{
  ls_ynode m;
  int rc = ls_ymap_require(p, key, &m, err);
  if (!rc) rc = ls_ynode_expect(&m, LS_Y_MAP, err);
  if (!rc) rc = ls_range_yreq(&m, "top1_logit_mean", LS_R_LOGIT_MEAN, &r->logit_mean, err);
  if (!rc) rc = ls_range_yreq(&m, "top1_logit_sd", LS_R_LOGIT_SD, &r->logit_sd, err);
  if (!rc) rc = ls_range_yreq(&m, "tail", LS_R_LOGIT_TAIL, &r->tail, err);
  if (!rc) rc = ls_range_yreq(&m, "agree", LS_R_PROB, &r->agree, err);
  if (!rc) rc = ls_ymap_finish(&m, err);
  return rc;
}

static int read_process(const ls_ynode *m, ls_wl_process *p, ls_error *err)
{
  ls_ynode reg;
  int rc = ls_ynode_expect(m, LS_Y_MAP, err);
  if (!rc) rc = ls_ymap_require(m, "regime", &reg, err);
  if (!rc) rc = ls_ynode_expect(&reg, LS_Y_MAP, err);
  if (!rc) rc = ls_range_yreq(&reg, "easy_to_hard", LS_R_PROB, &p->easy_to_hard, err);
  if (!rc) rc = ls_range_yreq(&reg, "hard_to_easy", LS_R_PROB, &p->hard_to_easy, err);
  if (!rc && p->easy_to_hard + p->hard_to_easy <= 0.0)
    rc = ls_ynode_error(&reg, err, LS_ERANGE, "easy_to_hard + hard_to_easy must be > 0");
  if (!rc) rc = ls_ymap_finish(&reg, err);
  if (!rc) rc = read_regime(m, "easy", &p->regime[0], err);
  if (!rc) rc = read_regime(m, "hard", &p->regime[1], err);
  if (!rc) rc = ls_range_yreq(m, "calibration", LS_R_CALIBRATION, &p->calibration, err);
  if (!rc) rc = ls_range_yopt(m, "output_scale", LS_R_OUTPUT_SCALE, 1.0, &p->output_scale, err);
  if (!rc) rc = ls_ymap_finish(m, err);
  p->present = rc == LS_OK;
  return rc;
}

static int read_processes(const ls_ynode *root, ls_dataset *d, ls_error *err)
{
  ls_ynode ps, p;
  int rc = ls_ymap_require(root, "processes", &ps, err);
  if (!rc) rc = ls_ynode_expect(&ps, LS_Y_MAP, err);
  for (int i = 0; !rc && i < LS_PROC_COUNT; i++)
    if (ls_ymap_find(&ps, ls_wl_process_names[i], &p))
      rc = read_process(&p, &d->proc[i], err);
  if (!rc) rc = ls_ymap_finish(&ps, err);
  return rc;
}

static int read_kind_params(const ls_ynode *root, ls_dataset *d, ls_error *err)
{
  ls_ynode m;
  int rc = LS_OK;
  if (d->kind == LS_DATASET_SYNTH)
    return read_processes(root, d, err);
  if (d->kind == LS_DATASET_IID) {
    rc = ls_ymap_require(root, "iid", &m, err);
    if (!rc) rc = ls_ynode_expect(&m, LS_Y_MAP, err);
    if (!rc) rc = ls_range_yreq(&m, "alpha", LS_R_PROB, &d->alpha, err);
    return rc ? rc : ls_ymap_finish(&m, err);
  }
  ls_ynode pn;
  rc = ls_ymap_require(root, "positional", &m, err);
  if (!rc) rc = ls_ynode_expect(&m, LS_Y_MAP, err);
  if (!rc) rc = ls_ymap_require(&m, "p", &pn, err);
  if (!rc) rc = ls_range_yas_list(&pn, LS_R_PROB, d->p, LS_VIEW_TOPK_MAX, &d->np, err);
  double s = 0.0;
  for (int i = 0; !rc && i < d->np; i++)
    s += d->p[i];
  if (!rc && (d->np < 1 || s > 1.0 + 1e-12))
    rc = ls_ynode_error(&pn, err, LS_ERANGE, "needs 1..%d probabilities summing to <= 1 (sum %g)",
                        LS_VIEW_TOPK_MAX, s);
  /* The oracle needs p non-increasing; say so here, at the value, not later without a place. */
  for (int i = 1; !rc && i < d->np; i++)
    if (d->p[i] > d->p[i - 1]) {
      ls_ynode it = ls_yseq_at(&pn, i);
      rc = ls_ynode_error(&it, err, LS_ERANGE, "must be non-increasing (p%d = %g > p%d = %g)", i + 1,
                          d->p[i], i, d->p[i - 1]);
    }
  return rc ? rc : ls_ymap_finish(&m, err);
}

static int read_dataset(ls_ydoc *doc, ls_dataset *d, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), ee;
  const char *id = NULL;
  int kind = 0;
  double np = 0;
  int rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (!rc) rc = ls_yreq_string(&root, "id", &id, err);
  if (!rc) snprintf(d->id, sizeof d->id, "%s", id);
  if (!rc) rc = ls_yreq_enum(&root, "kind", KINDS, &kind, err);
  if (!rc) rc = ls_range_yreq(&root, "default_prompts", LS_R_PROMPTS, &np, err);
  if (!rc) rc = read_len(&root, "prompt_len", &d->prompt_len, err);
  if (!rc) rc = read_len(&root, "output_len", &d->output_len, err);
  if (!rc) rc = ls_ymap_require(&root, "early_exit", &ee, err);
  if (!rc) rc = ls_ynode_expect(&ee, LS_Y_MAP, err);
  if (!rc) rc = ls_range_yreq(&ee, "auc", LS_R_AUC, &d->auc, err);
  if (!rc) rc = ls_range_yreq(&ee, "confidence_weight", LS_R_CONF_WEIGHT, &d->conf_weight, err);
  if (!rc) rc = ls_ymap_finish(&ee, err);
  d->kind = (ls_dataset_kind)kind;
  d->default_prompts = (int)np;
  if (!rc) rc = read_kind_params(&root, d, err);
  if (!rc) rc = ls_ymap_finish(&root, err);
  return rc;
}

/* read_dataset for ls_wl_load, which knows the object only as memory. */
static int read_dataset_obj(ls_ydoc *doc, void *obj, ls_error *err) { return read_dataset(doc, obj, err); }

int ls_dataset_load(ls_dataset **out, const char *path, ls_error *err)
{
  void *obj = NULL;
  int rc = ls_wl_load(path, sizeof(ls_dataset), offsetof(ls_dataset, id), read_dataset_obj, &obj, err);
  *out = obj;
  return rc;
}

int ls_dataset_load_id(ls_dataset **out, const char *data_root, const char *id, ls_error *err)
{
  char path[LS_WL_PATH];
  *out = NULL;
  int rc = ls_wl_resolve(data_root, "workloads/datasets", "dataset", id, path, sizeof path, err);
  return rc ? rc : ls_dataset_load(out, path, err);
}

int ls_dataset_list(const char *data_root, char (*ids)[64], int max)
{
  return ls_wl_list(data_root, "workloads/datasets", ids, max);
}

void ls_dataset_free(ls_dataset *d) { free(d); }
const char *ls_dataset_id(const ls_dataset *d) { return d->id; }

int ls_dataset_default_prompts(const ls_dataset *d) { return d->default_prompts; }
