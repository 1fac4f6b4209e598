/* runner/curve: the verification-latency curve of a target on one device (paper Fig. 4).
 *
 * For each token count n: the time of one verification pass of the whole target with its
 * weights already in memory (all transformer layers + the LM head as one call each, at the
 * next compiled shape >= n), the latency relative to one token, and the speedup over
 * generating the n tokens one by one (n * t(1) / t(n)). Pure device cost queries
 * (ls_npu_layer_ns, ls_npu_lmhead_ns): nothing is simulated or random. Used by
 * `leversim devices curve` and `leversim figures fig04`. */
#ifndef LS_RUNNER_CURVE_H
#define LS_RUNNER_CURVE_H
#include "sim/error.h"

#define LS_CURVE_MAX 64 /* points per curve */

typedef struct ls_curve_point {
  int tokens, padded;  /* requested and compiled token count */
  double latency_ms;   /* one verification pass */
  double relative;     /* latency / latency at one token */
  double speedup;      /* tokens * latency(1) / latency */
} ls_curve_point;

typedef struct ls_curve_info {
  char device[64], device_name[64], processor[64]; /* "oneplus-12", "OnePlus 12", NPU name */
  int is_gpu;                                       /* 1 when the profile describes a GPU */
  char model[64], quant[16];                        /* "qwen3-8b", "q4_0" */
  char regime[32];                                  /* NPU runtime regime the curve used */
} ls_curve_info;

/* Loads device and model from data_root (borrowed), then fills out[0..n) (owned by caller)
 * for tokens[0..n) (each >= 1, n <= LS_CURVE_MAX) at context length ctx; quant NULL = the
 * model's default. info (may be NULL) receives the names. Unknown ids are LS_ENOTFOUND. */
int ls_curve_compute(const char *data_root, const char *device, const char *model,
                     const char *quant, const int *tokens, int n, int ctx, ls_curve_point *out,
                     ls_curve_info *info, ls_error *err);

/* As ls_curve_compute, under an NPU runtime regime ("static-graph", "q4_0-dynamic"; NULL =
 * the profile's own). A regime the profile does not give is LS_EINVALID. */
int ls_curve_compute_regime(const char *data_root, const char *device, const char *model, const char *quant,
                            const char *regime, const int *tokens, int n, int ctx, ls_curve_point *out,
                            ls_curve_info *info, ls_error *err);

#endif
