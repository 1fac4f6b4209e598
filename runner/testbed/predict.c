/* runner/testbed/predict: see predict.h. */
#include "runner/testbed/predict.h"
#include <math.h>
#include <stdlib.h>
#include "policies/costmodel.h"

static double layer_s(const ls_tbp *p, const ls_model_costs *m, int n, int cached)
{
  ls_layer_work w = ls_costmodel_layer_work(m);
  return (double)ls_cpu_layer_ns(ls_device_cpu(p->dev), &w, n, cached + n / 2, p->threads) * 1e-9;
}

static double head_s(const ls_tbp *p, const ls_model_costs *m, int rows)
{
  return (double)ls_cpu_lmhead_ns(ls_device_cpu(p->dev), m->lmhead_bytes, m->lmhead_flops_per_token, rows,
                                  p->threads) * 1e-9;
}

double ls_tbp_compute_s(const ls_tbp *p, const ls_model_costs *m, int n, int cached, int rows)
{
  return m->n_layers * layer_s(p, m, n, cached) + head_s(p, m, rows);
}

double ls_tbp_warm_s(const ls_tbp *p, const ls_model_costs *m, int n, int cached, int rows)
{
  return ls_tbp_compute_s(p, m, n, cached, rows);
}

double ls_tbp_cold_s(const ls_tbp *p, const ls_model_costs *m, int n, int cached, int rows)
{
  /* The file in the order a pass reads it: the layers, then the head (tied embeddings: the
   * head is the embedding matrix, read whole to project). */
  int L = m->n_layers;
  ls_mapread_seg *s = malloc((size_t)(L + 1) * sizeof *s);
  if (!s)
    return 0;
  double layer = layer_s(p, m, n, cached);
  for (int i = 0; i < L; i++) {
    s[i].bytes = m->layer_bytes;
    s[i].compute_s = layer;
  }
  s[L].bytes = m->lmhead_bytes;
  s[L].compute_s = head_s(p, m, rows);
  const ls_flash_params *f = p->flash ? p->flash : ls_device_flash(p->dev);
  double t = p->mode == LS_TBP_MAPPED ? ls_mapread_time_s(f, &p->map, s, L + 1) : ls_mapread_serial_s(f, s, L + 1);
  free(s);
  return t;
}

ls_flash_params ls_tbp_stream_flash(const ls_flash_params *base, const ls_mapread_params *m, double bytes,
                                    double seconds)
{
  ls_flash_params f = *base;
  f.path = LS_PATH_PAGE_CACHE;
  ls_mapread_seg s = {bytes, 0};
  double lo = 1e6, hi = 1e12; /* B/s */
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-6; i++) {
    double mid = sqrt(lo * hi);
    ls_flash_set_effective_bw(&f, mid);
    if (ls_mapread_time_s(&f, m, &s, 1) > seconds)
      lo = mid;
    else
      hi = mid;
  }
  ls_flash_set_effective_bw(&f, sqrt(lo * hi));
  return f;
}
