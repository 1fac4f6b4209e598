/* devices/npu: an NPU (or a GPU in the desktop reference profile) under one of two runtime
 * regimes, chosen by the profile (`npu.regime`, settable as device.npu.regime):
 *
 * static-graph: precompiled graphs with the weights compiled in (QNN / AI Hub style). A call
 *   runs one operation (a transformer layer, or the LM head) at the next compiled shape >=
 *   tokens (larger counts are split into calls of the largest shape):
 *     t = dispatch + rel(shape) * (bytes / weight_bw + flops_per_token / flops) + attention,
 *   rel() the batch curve (relative latency vs tokens, rel(1) = 1), interpolated monotonically
 *   with GSL's Steffen spline.
 * q4_0-dynamic: Q4_0 weights handed to the NPU as data (llama.cpp Hexagon-backend style). A
 *   layer call over N tokens costs a per-call overhead plus the slower of reading its weights
 *   and computing N tokens, on a vector path for small N and a tiled matrix path from mat_min
 *   tokens on (N padded to whole tiles):
 *     t = op_call + max(bytes / weight_bw, flops_per_token * m(N) / rate(N)) + attention.
 * See npu.c for the equations, invariants and sources. */
#ifndef LS_DEVICES_NPU_H
#define LS_DEVICES_NPU_H
#include <stdint.h>
#include "devices/work.h"
#include "sim/error.h"

#define LS_NPU_CURVE_MAX 32
#define LS_NPU_SHAPES_MAX 32

typedef enum { LS_NPU_STATIC = 0, LS_NPU_Q4_0_DYNAMIC = 1 } ls_npu_regime;

/* Parameters of the q4_0-dynamic regime (per SoC, fitted to llama.cpp Hexagon rates). */
typedef struct ls_npu_dynamic {
  int present;                 /* 1 when the profile gives the regime */
  double op_call_s;            /* overhead of one layer's (or the head's) call: its ops' dispatches */
  double weight_bw;            /* B/s, rate at which a call reads its Q4_0 weights */
  double vec_flops;            /* FLOP/s on the vector path (N < mat_min) */
  double mat_flops;            /* FLOP/s on the tiled matrix path (N >= mat_min) */
  int tile;                    /* matrix-path tokens are padded to a multiple of this */
  int mat_min;                 /* smallest N that takes the matrix path; llama.cpp's Hexagon backend:
                                  none before 2026-03-28 (matrix_path 0), 32 until
                                  2026-06-26, 5 since (src:ggml-hexagon-history) */
  int pad_small;               /* 1: a pass below mat_min runs padded on the matrix path when that is faster */
  int matrix_path;             /* 0: the modelled build has no matrix path (llama.cpp before 2026-03-28):
                                  every pass runs on the vector path, unpadded, and tile, mat_min,
                                  mat_flops and pad_small are not used */
} ls_npu_dynamic;

/* What a run's NPU queries say about padding (q4_0-dynamic regime): pad_decides counts the calls
 * whose time device.npu.pad_small would change, whatever pad_small is in the run: calls below
 * mat_min with the matrix path present, where the padded pass computes faster than the vector
 * path and that compute exceeds the weight read (the roofline's max). When it is 0 after a run
 * with pad_small off, every NPU time of the run is the same with pad_small on, bit for bit, so
 * the run with pad_small on is the same run (runner/study/noeffect.h). Owned by the caller. */
typedef struct ls_npu_report {
  long pad_decides;
} ls_npu_report;

typedef struct ls_npu_params {
  char name[64];               /* "Hexagon (8 Gen 3)" */
  ls_npu_regime regime;        /* which regime the cost queries use */
  ls_npu_dynamic dyn;          /* q4_0-dynamic parameters */
  /* static-graph parameters (also the attention rate, shared by both regimes) */
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
  ls_npu_report *report;       /* borrowed; NULL: no report. Written through by the cost queries
                                  (which take the parameters const): set on a run's own copy of the
                                  device only (ls_npu_set_report), never on a shared one */
} ls_npu_params;

/* Checks the curve and shapes and fills shape_rel (needs curve covering every shape). */
int ls_npu_prepare(ls_npu_params *n, ls_error *err);
/* Batch-curve value at any token count in [first, last] point (Steffen; clamps outside). */
double ls_npu_relative(const ls_npu_params *n, double tokens);

/* Points n's report at r (NULL: none); r's count is not reset. */
void ls_npu_set_report(ls_npu_params *n, ls_npu_report *r);

/* Names of the regimes, indexed by ls_npu_regime, NULL-terminated: "static-graph", "q4_0-dynamic". */
extern const char *const ls_npu_regime_names[];
/* Tokens the hardware computes for a call over `tokens` tokens: the next compiled shape
 * (static; multiples of the largest beyond it), or whole tiles on the matrix path (dynamic). */
int ls_npu_padded_tokens(const ls_npu_params *n, int tokens);
/* Overhead that a fused multi-layer call pays once instead of once per layer: the static
 * regime's graph dispatch; 0 in the dynamic regime, where every layer's ops are their own
 * calls (op_call is inside each layer's cost). */
int64_t ls_npu_dispatch_ns(const ls_npu_params *n);
/* One transformer layer for `tokens` tokens attending to ctx_len positions, weights in memory. */
int64_t ls_npu_layer_ns(const ls_npu_params *n, const ls_layer_work *w, int tokens, int ctx_len);
/* The output projection as its own call. */
int64_t ls_npu_lmhead_ns(const ls_npu_params *n, double lmhead_bytes, double flops_per_token, int tokens);

#endif
