/* devices/npu: an NPU (or a GPU in the desktop reference profile) running static graphs.
 *
 * A call runs one operation (a transformer layer, or the LM head) for `tokens` tokens at the
 * next compiled shape >= tokens (larger counts are split into calls of the largest shape):
 *   t = dispatch + rel(shape) * (bytes / weight_bw + flops_per_token / flops) + attention,
 * rel() the batch curve (relative latency vs tokens, rel(1) = 1), interpolated monotonically
 * with GSL's Steffen spline. See npu.c for the equations and sources. */
#ifndef LS_DEVICES_NPU_H
#define LS_DEVICES_NPU_H
#include <stdint.h>
#include "devices/work.h"
#include "sim/error.h"

#define LS_NPU_CURVE_MAX 32
#define LS_NPU_SHAPES_MAX 32

typedef struct ls_npu_params {
  char name[64];               /* "Hexagon (8 Gen 3)" */
  double weight_bw;            /* B/s, effective weight streaming rate from DRAM */
  double flops;                /* FLOP/s, effective matmul rate at one token */
  double attn_flops;           /* FLOP/s, effective attention rate */
  double dispatch_s;           /* overhead of one graph call */
  int n_curve;                 /* batch curve points: tokens strictly rising, rel non-decreasing */
  double curve_tokens[LS_NPU_CURVE_MAX], curve_rel[LS_NPU_CURVE_MAX];
  int n_shapes;                /* compiled token counts, strictly rising */
  int shapes[LS_NPU_SHAPES_MAX];
  double shape_rel[LS_NPU_SHAPES_MAX]; /* rel at each shape (filled by ls_npu_prepare) */
  double idle_w, busy_w;       /* power */
} ls_npu_params;

/* Checks the curve and shapes and fills shape_rel (needs curve covering every shape). */
int ls_npu_prepare(ls_npu_params *n, ls_error *err);
/* Batch-curve value at any token count in [first, last] point (Steffen; clamps outside). */
double ls_npu_relative(const ls_npu_params *n, double tokens);

int ls_npu_padded_tokens(const ls_npu_params *n, int tokens); /* next shape (multiples of the largest beyond it) */
int64_t ls_npu_dispatch_ns(const ls_npu_params *n);
/* One transformer layer for `tokens` tokens attending to ctx_len positions, weights in memory. */
int64_t ls_npu_layer_ns(const ls_npu_params *n, const ls_layer_work *w, int tokens, int ctx_len);
/* The output projection as its own call. */
int64_t ls_npu_lmhead_ns(const ls_npu_params *n, double lmhead_bytes, double flops_per_token, int tokens);

#endif
