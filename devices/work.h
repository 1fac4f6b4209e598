/* devices/work: what a device is asked to compute for one transformer layer.
 *
 * Callers fill it from a model's costs (workloads/model.h, ls_model_costs); the device
 * models (npu.h, cpu.h) turn it into time. All quantities are per layer. */
#ifndef LS_DEVICES_WORK_H
#define LS_DEVICES_WORK_H

typedef struct ls_layer_work {
  double weight_bytes;                 /* bytes of weights the layer reads */
  double flops_per_token;              /* dense FLOPs per token (2 per MAC), without attention over context */
  double attn_flops_per_token_per_ctx; /* attention FLOPs per token per context position */
  double kv_bytes_per_token;           /* KV-cache bytes per token */
} ls_layer_work;

#endif
