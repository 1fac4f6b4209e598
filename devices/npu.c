/* devices/npu: see npu.h.
 *
 * Equations, static-graph regime. One call of an operation with weights W bytes and f FLOPs
 * per token, run at a compiled shape s >= tokens (static graphs: a pass pads up to the next
 * shape):
 *   t_call(s) = dispatch + rel(s) * (W / weight_bw + f / flops) + s * ctx * a / attn_flops
 * where a is the attention FLOPs per token per context position. rel() is the batch curve:
 * relative latency of a pass over s tokens vs one token, from a table interpolated with
 * GSL's Steffen spline (monotone between points, exact at them; linear for 2 points).
 * Token counts above the largest shape are split into calls of the largest shape plus one
 * padded remainder call. The LM head is one such call with its own W and f.
 *
 * Equations, q4_0-dynamic regime. The weights are Q4_0 data the NPU reads per call (no
 * compiled-in packed weights), so a call over N tokens costs
 *   t_call(N) = op_call + max(W / weight_bw, f * m(N) / rate(N)) + N * ctx * a / attn_flops
 *   N <  mat_min: vector path, m(N) = N,                     rate = vec_flops
 *   N >= mat_min: tiled matrix path, m(N) = ceil(N/tile)*tile, rate = mat_flops
 *   matrix_path 0 (a build without one, llama.cpp's before 2026-03-28): every N on the vector
 *   path, as if mat_min were infinite
 *   pad_small: a runtime that verifies trees itself may pad a pass below mat_min up to the
 *   matrix path when that is faster (padded rows are masked); llama-bench's generic batches
 *   do not (the rates the parameters are fitted to), so fits use pad_small off.
 * The max() is a roofline: one token is bound by reading the weights, many tokens by the
 * arithmetic. The vector path is what makes small batches dear (src:llamacpp-23368 and
 * src:llamacpp-21554: a 25-token pass slower than a 128-token one on the same phone), and
 * op_call is what makes one-layer graphs (a draft head) pay more on the NPU than on the CPU
 * (src:mnn-4633: CPU faster than NPU at single-token decode of a 0.6B model).
 * Parameters per SoC are fitted in the profiles to src:llamacpp-snapdragon and
 * src:llamacpp-23816 (tg and pp128 rates), each fit written beside the number.
 *
 * Invariants (checked by ls_npu_prepare): curve tokens strictly rising, rel non-decreasing
 * and > 0, shapes strictly rising and inside the curve's range; a dynamic regime has all
 * rates > 0, tile >= 1 and mat_min >= 1; the selected regime is present.
 * Simplifications: one batch curve / one set of dynamic rates per device for every model;
 * the static curve multiplies the whole one-token cost, so bandwidth- and compute-bound parts
 * scale alike; KV-cache reads are folded into the attention term. */
#include "devices/npu.h"
#include <math.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_interp.h>

int ls_npu_prepare(ls_npu_params *n, ls_error *err)
{
  if (n->n_curve < 2 || n->n_curve > LS_NPU_CURVE_MAX)
    return ls_error_set(err, LS_EINVALID, "npu: batch curve needs 2..%d points", LS_NPU_CURVE_MAX);
  for (int i = 0; i < n->n_curve; i++) {
    if (!(n->curve_rel[i] > 0) || !(n->curve_tokens[i] >= 1))
      return ls_error_set(err, LS_EINVALID, "npu: batch curve point %d must have tokens >= 1 and rel > 0", i);
    if (i > 0 && n->curve_tokens[i] <= n->curve_tokens[i - 1])
      return ls_error_set(err, LS_EINVALID, "npu: batch curve tokens must rise strictly (point %d)", i);
    if (i > 0 && n->curve_rel[i] < n->curve_rel[i - 1])
      return ls_error_set(err, LS_EINVALID, "npu: batch curve must be non-decreasing (point %d: %g after %g)",
                          i, n->curve_rel[i], n->curve_rel[i - 1]);
  }
  if (n->n_shapes < 1 || n->n_shapes > LS_NPU_SHAPES_MAX)
    return ls_error_set(err, LS_EINVALID, "npu: needs 1..%d compiled shapes", LS_NPU_SHAPES_MAX);
  for (int i = 0; i < n->n_shapes; i++) {
    if (i > 0 && n->shapes[i] <= n->shapes[i - 1])
      return ls_error_set(err, LS_EINVALID, "npu: compiled shapes must rise strictly (%d after %d)",
                          n->shapes[i], n->shapes[i - 1]);
    if (n->shapes[i] < n->curve_tokens[0] || n->shapes[i] > n->curve_tokens[n->n_curve - 1])
      return ls_error_set(err, LS_EINVALID, "npu: compiled shape %d lies outside the batch curve [%g, %g]",
                          n->shapes[i], n->curve_tokens[0], n->curve_tokens[n->n_curve - 1]);
  }
  if (!(n->weight_bw > 0 && n->flops > 0 && n->attn_flops > 0 && n->dispatch_s >= 0))
    return ls_error_set(err, LS_EINVALID, "npu: weight bandwidth and FLOP rates must be > 0");
  const ls_npu_dynamic *d = &n->dyn;
  if (d->present && !(d->op_call_s >= 0 && d->weight_bw > 0 && d->vec_flops > 0 && d->mat_flops > 0 &&
                      d->tile >= 1 && d->mat_min >= 1))
    return ls_error_set(err, LS_EINVALID, "npu: q4_0-dynamic rates must be > 0, tile and mat_min >= 1");
  if (n->regime == LS_NPU_Q4_0_DYNAMIC && !d->present)
    return ls_error_set(err, LS_EINVALID, "npu: regime q4_0-dynamic selected but the profile gives no q4_0_dynamic section");
  for (int i = 0; i < n->n_shapes; i++)
    n->shape_rel[i] = ls_npu_relative(n, n->shapes[i]);
  return LS_OK;
}

double ls_npu_relative(const ls_npu_params *n, double tokens)
{
  int k = n->n_curve;
  if (tokens <= n->curve_tokens[0])
    return n->curve_rel[0];
  if (tokens >= n->curve_tokens[k - 1])
    return n->curve_rel[k - 1];
  const gsl_interp_type *type = k >= 3 ? gsl_interp_steffen : gsl_interp_linear;
  gsl_interp *it = gsl_interp_alloc(type, (size_t)k);
  if (!it)
    return NAN;
  gsl_interp_init(it, n->curve_tokens, n->curve_rel, (size_t)k);
  double y = gsl_interp_eval(it, n->curve_tokens, n->curve_rel, tokens, NULL);
  gsl_interp_free(it);
  return y;
}

/* Index of the smallest shape >= tokens (tokens <= largest shape). */
static int shape_index(const ls_npu_params *n, int tokens)
{
  for (int i = 0; i < n->n_shapes; i++)
    if (n->shapes[i] >= tokens)
      return i;
  return n->n_shapes - 1;
}

const char *const ls_npu_regime_names[] = {"static-graph", "q4_0-dynamic", NULL};

/* 1 when an N-token pass takes the tiled matrix path. */
static int on_matrix(const ls_npu_dynamic *d, int tokens)
{
  return d->matrix_path && tokens >= d->mat_min;
}

/* Tokens the dynamic regime computes for N: whole tiles on the matrix path. */
static int dyn_tokens(const ls_npu_dynamic *d, int tokens)
{
  if (!on_matrix(d, tokens))
    return tokens;
  return (tokens + d->tile - 1) / d->tile * d->tile;
}

int ls_npu_padded_tokens(const ls_npu_params *n, int tokens)
{
  if (tokens <= 0)
    return 0;
  if (n->regime == LS_NPU_Q4_0_DYNAMIC)
    return dyn_tokens(&n->dyn, tokens);
  int big = n->shapes[n->n_shapes - 1];
  int full = (tokens - 1) / big, rest = tokens - full * big;
  return full * big + n->shapes[shape_index(n, rest)];
}

int64_t ls_npu_dispatch_ns(const ls_npu_params *n)
{
  return n->regime == LS_NPU_Q4_0_DYNAMIC ? 0 : (int64_t)llround(n->dispatch_s * 1e9);
}

/* Seconds of one dynamic-regime call (see the top comment). Padding changes the result exactly
 * when padded < comp (the vector path's) and comp > read: then max(read, padded) < comp; when
 * padded >= comp the minimum is comp, and when comp <= read both maxima are read. The report
 * counts those calls whether or not pad_small is on, so a run with it off says whether its twin
 * with it on would have computed any time differently. */
static double dyn_seconds(const ls_npu_params *n, double bytes, double flops, double attn_per_ctx, int tokens,
                          int ctx_len)
{
  const ls_npu_dynamic *d = &n->dyn;
  double read = bytes / d->weight_bw;
  int mat = on_matrix(d, tokens);
  double comp = mat ? flops * dyn_tokens(d, tokens) / d->mat_flops : flops * tokens / d->vec_flops;
  if (!mat && d->matrix_path && (d->pad_small || n->report)) { /* the same pass padded up to the matrix path */
    double padded = flops * dyn_tokens(d, d->mat_min) / d->mat_flops;
    if (n->report && padded < comp && comp > read)
      n->report->pad_decides++;
    if (d->pad_small)
      comp = padded < comp ? padded : comp;
  }
  return d->op_call_s + (read > comp ? read : comp) + tokens * attn_per_ctx * (double)ctx_len / n->attn_flops;
}

void ls_npu_set_report(ls_npu_params *n, ls_npu_report *r) { n->report = r; }

/* Seconds of calls covering `tokens` tokens of an op (bytes, flops/token, attention). */
static double op_seconds(const ls_npu_params *n, double bytes, double flops, double attn_per_ctx,
                         int tokens, int ctx_len)
{
  if (tokens <= 0)
    return 0.0;
  if (n->regime == LS_NPU_Q4_0_DYNAMIC)
    return dyn_seconds(n, bytes, flops, attn_per_ctx, tokens, ctx_len);
  double one = bytes / n->weight_bw + flops / n->flops;
  int big = n->shapes[n->n_shapes - 1];
  int full = (tokens - 1) / big, rest = tokens - full * big;
  int si = shape_index(n, rest);
  double attn = attn_per_ctx * (double)ctx_len / n->attn_flops;
  double t = full * (n->dispatch_s + n->shape_rel[n->n_shapes - 1] * one + big * attn);
  t += n->dispatch_s + n->shape_rel[si] * one + n->shapes[si] * attn;
  return t;
}

int64_t ls_npu_layer_ns(const ls_npu_params *n, const ls_layer_work *w, int tokens, int ctx_len)
{
  double t = op_seconds(n, w->weight_bytes, w->flops_per_token, w->attn_flops_per_token_per_ctx, tokens,
                        ctx_len < 0 ? 0 : ctx_len);
  return (int64_t)llround(t * 1e9);
}

int64_t ls_npu_lmhead_ns(const ls_npu_params *n, double lmhead_bytes, double flops_per_token, int tokens)
{
  return (int64_t)llround(op_seconds(n, lmhead_bytes, flops_per_token, 0.0, tokens, 0) * 1e9);
}
