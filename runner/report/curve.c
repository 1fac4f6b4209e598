/* runner/curve: see curve.h.
 *
 * t(n) = L * npu_layer(n, ctx) + npu_lmhead(n), both at the compiled shape >= n (the device
 * model pads). relative(n) = t(n) / t(1); speedup(n) = n * t(1) / t(n): how much faster n
 * tokens are verified in one pass than produced by n single-token passes. On a phone NPU
 * the pass time grows with n (the batch curve), so the speedup stays far below n; on the
 * desktop GPU reference it is nearly flat, so the speedup is close to n (src:lever-paper, Fig. 4). */
#include "runner/report/curve.h"
#include <stdio.h>
#include "devices/device.h"
#include "sim/kv.h"
#include "policies/costmodel.h"
#include "workloads/model.h"

static double pass_ms(const ls_npu_params *npu, const ls_model_costs *c, int tokens, int ctx)
{
  ls_layer_work w = ls_costmodel_layer_work(c);
  int64_t ns = (int64_t)c->n_layers * ls_npu_layer_ns(npu, &w, tokens, ctx) +
               ls_npu_lmhead_ns(npu, c->lmhead_bytes, c->lmhead_flops_per_token, tokens);
  return (double)ns * 1e-6;
}

static void fill_info(ls_curve_info *info, const ls_device *d, const ls_model *m,
                      const char *quant)
{
  if (!info) return;
  snprintf(info->regime, sizeof info->regime, "%s", ls_npu_regime_names[ls_device_npu(d)->regime]);
  snprintf(info->device, sizeof info->device, "%s", ls_device_id(d));
  snprintf(info->device_name, sizeof info->device_name, "%s", ls_device_name(d));
  snprintf(info->processor, sizeof info->processor, "%s", ls_device_npu(d)->name);
  info->is_gpu = ls_device_is_gpu(d);
  snprintf(info->model, sizeof info->model, "%s", ls_model_id(m));
  snprintf(info->quant, sizeof info->quant, "%s", quant ? quant : ls_model_default_quant(m));
}

int ls_curve_compute(const char *data_root, const char *device, const char *model,
                     const char *quant, const int *tokens, int n, int ctx, ls_curve_point *out,
                     ls_curve_info *info, ls_error *err)
{
  return ls_curve_compute_regime(data_root, device, model, quant, NULL, tokens, n, ctx, out, info, err);
}

/* Switches the device's NPU to a named regime (device.npu.regime, with its checks). */
static int use_regime(ls_device *d, const char *regime, ls_error *err)
{
  ls_kv *kv = NULL;
  int rc = ls_kv_create(&kv, err);
  if (!rc) rc = ls_kv_set(kv, "device.npu.regime", regime, "--regime", err);
  if (!rc) rc = ls_device_apply(d, kv, err);
  ls_kv_free(kv);
  return rc;
}

int ls_curve_compute_regime(const char *data_root, const char *device, const char *model, const char *quant,
                            const char *regime, const int *tokens, int n, int ctx, ls_curve_point *out,
                            ls_curve_info *info, ls_error *err)
{
  if (n < 1 || n > LS_CURVE_MAX || ctx < 0)
    return ls_error_set(err, LS_EUSAGE, "curve: %d points (1..%d), ctx %d", n, LS_CURVE_MAX, ctx);
  for (int i = 0; i < n; i++)
    if (tokens[i] < 1) return ls_error_set(err, LS_EUSAGE, "curve: token count %d < 1", tokens[i]);
  ls_device *d = NULL;
  ls_model *m = NULL;
  ls_model_costs c;
  int rc = ls_device_load_id(&d, data_root, device, err);
  if (rc == LS_OK && regime) rc = use_regime(d, regime, err);
  if (rc == LS_OK) rc = ls_model_load_id(&m, data_root, model, err);
  if (rc == LS_OK) rc = ls_model_costs_get(m, quant, &c, err);
  if (rc == LS_OK) {
    const ls_npu_params *npu = ls_device_npu(d);
    double t1 = pass_ms(npu, &c, 1, ctx);
    for (int i = 0; i < n; i++) {
      double t = pass_ms(npu, &c, tokens[i], ctx);
      out[i] = (ls_curve_point){tokens[i], ls_npu_padded_tokens(npu, tokens[i]), t, t / t1,
                                tokens[i] * t1 / t};
    }
    fill_info(info, d, m, quant);
  }
  ls_device_free(d);
  ls_model_free(m);
  return rc;
}
