/* devices/cpu: see cpu.h.
 *
 * Equations. Threads take cores fastest cluster first: k_c active cores in cluster c.
 *   BW(threads)    = min(sum_c k_c * gemv_bw_per_core_c, max_bw)           (bytes/s)
 *   F(threads)     = sum_c k_c * freq_c * flops_per_cycle_c                (FLOP/s)
 *   t_matmul(n)    = max(W / BW, n * f / F)                 roofline: GEMV vs GEMM
 *   t_layer(n,ctx) = call_s + t_matmul(n) + n * ctx * a / F
 *   below batched_from tokens (a runtime without a batched kernel for the weights' format):
 *   t_matmul(n)    = n * max(W / BW, f / F)             each token streams the weights
 *   (measured on the testbed: llama.cpp's x86 CPU backend takes 2.0x one token's time for two
 *   tokens of Q4_0 layers and 1 + 12 x 0.4 for 13 rows of a Q6_K head; src:testbed-run,
 *   docs/VALIDATION.md §3.4-3.6. Profiles without the keys keep the roofline for every n.)
 *   With batch_group G (from batched_from on; the layers only): the blocked kernel computes
 *   G tokens per pass over the weights, and a pass's streaming and its arithmetic add up:
 *   t_matmul(n)    = ceil(n / G) * W / BW + n * f / F
 *   Why: llama.cpp's x86 CPU backend (the testbed's pinned library, Q4_0 layers, repacking
 *   off, 1 thread) costs a warm pass in steps of four tokens. In the probe
 *   results/testbed/probe-tiles.txt (`testbed probe --kind tiles`: warm passes of N = 1..12
 *   and 16 tokens, 7 interleaved repetitions, fastest) a pass gains 94 ms from 4 to 5 tokens
 *   and again from 8 to 9, about one more pass over the 547 MB of layers, while the next three
 *   tokens of a group add 31 to 62 ms in all (src:testbed-run, docs/VALIDATION.md §3.7).
 *   Fitted to those 13 passes (scripts/testbed/probe/groups-fit.py), this sum misses by 5.3 %
 *   rms (8.3 % at most); the roofline per group, ceil(n / G) * max(W / BW, G * f / F), by
 *   8.5 % (26.5 %: a one-token pass then costs a whole group's arithmetic); the roofline
 *   without groups by 11.3 % (19.6 %). The testbed's calibration rows include N = 3, 5, 6 and
 *   12 so that the fit sees the groups. Without the key (every phone profile) the roofline
 *   above holds from batched_from on, bit for bit.
 *   The output projection (t_head(n), n its output rows) has its own weight rate when the
 *   profile gives head_bandwidth (H: B/s at which one core of the first cluster computes the
 *   head for one row, streaming and arithmetic together; a core of cluster c at
 *   H x gemv_bw_c / gemv_bw_0, the same kernel on a slower core):
 *   BW_head(threads) = min(H / gemv_bw_0 x sum_c k_c * gemv_bw_per_core_c, max_bw)
 *   t_head(n)        = call_s + n * W_head / BW_head                below head_batched_from
 *   t_head(n)        = call_s + max(W_head / BW_head, n * f_head / F)    from it on
 *   With head_first_bandwidth (H1) also given, a pass's first row has its own rate, BW_head1
 *   as BW_head with H1 for H:
 *   t_head(n)        = call_s + W_head / BW_head1 + (n - 1) * W_head / BW_head   below it
 *   t_head(n)        = call_s + max(W_head / BW_head1, n * f_head / F)       from it on (one
 *                      pass over the weights, which is what a first row is)
 *   Why: a first row brings the head's weights in from memory; the pass's further rows find
 *   them in cache as the kernel walks the matrix (ggml's mul_mat computes a block of weight rows
 *   against every output row in turn) and pay mostly arithmetic. Measured on the testbed by
 *   the `rows-0`, `rows-1` and `rows` passes (16 tokens asking for 0, 1 and 16 output rows):
 *   first row = t(rows-1) - t(rows-0), a further row = (t(rows) - t(rows-1)) / 15. On the
 *   testbed's 2-layer draft (width 1024, a 107.7 MB Q6_K head) the first row took 16.8 ms and a
 *   further row 6.7 ms in run E (src:testbed-run, docs/VALIDATION.md §3.6). H alone had priced
 *   the draft's one-token pass at about 10.6 ms where it measured 17-20 ms (run C). Without
 *   the key, every row costs W_head / BW_head as before.
 *   Below head_batched_from a row's cost is W_head / BW_head alone, without the roofline's
 *   f / F: H is measured as the whole cost of a row of that kernel (the testbed's `rows`
 *   passes: N output rows against 1 at the same N, runner/testbed/calfit.h), and F is fitted
 *   to the layers' blocked Q4_0 kernel, another kernel (in small testbed run
 *   tb-20261126T095630Z the layer-fitted F priced a 1024-wide Q6_K row at 7.4 ms where it
 *   measured 6.9 ms; src:testbed-run).
 *   Why a rate of its own: the head is another kernel on another format (Q6_K against the
 *   layers' Q4_0 on the testbed); the one rate fitted to the layers priced the head's rows at
 *   11-12 GB/s while they stream at ~19 GB/s in runs A and B, 4.9 against 15.9 GB/s in run C
 *   (src:testbed-run, docs/VALIDATION.md §3.5). Without the key,
 *   t_head is t_matmul with the layers' BW and head_batched_from: every phone profile prices
 *   as before, bit for bit.
 *   With batch_remainder as well (the layers only): the kernel covers the batch with tiles of G
 *   tokens, reusing each block of weight rows for every whole tile, and then covers the rest,
 *   n mod G tokens, with narrower tiles in a pass of its own:
 *   passes(n) = 1 for n <= G or n a multiple of G, else 2;
 *   t_matmul(n) = passes(n) * W / BW + n * f / F.
 *   Why: llamafile's tinyBLAS inside llama.cpp's x86 CPU backend works this way (mnpack: tiles of
 *   at most 4 columns over every row block, then a recursion on the columns left over). On the
 *   AMD EPYC host of 2026-11-27 a warm pass of 5 or 6 tokens cost more than one of 8 (0.197 and
 *   0.217 s against 0.186 s in run K, src:testbed-run; docs/VALIDATION.md §3.14), which neither
 *   groups nor one pass can give.
 *   With remainder_bandwidth (R, B/s of one core of the first cluster; other cores and threads
 *   as for the head) the remainder's pass streams the weights at its own rate:
 *   t_matmul(n) = W / BW + W / BW_R + n * f / F      for n > G and n no multiple of G,
 *   BW_R(threads) = min(R / gemv_bw_0 x sum_c k_c gemv_bw_c, max_bw).
 *   Why: the second pass walks a matrix the first pass has just walked (tinyBLAS recurses on
 *   the columns left over over every row: src:llamacpp-sgemm), and on the testbed
 *   every layer matrix (0.6 to 9.4 MB of Q4_0) fits in the host's last-level cache (32 MiB on
 *   the AMD EPYC host), so it costs less than the first. Measured node by node
 *   (`testbed probe --kind nodes`, results/testbed/probe-nodes.txt.xz, fastest warm node
 *   times): the layers' matmuls take 0.1086 s at N = 4 and 0.1668 s at N = 5, so the
 *   remainder's pass of one token costs 0.058 s, where the first pass alone (N = 2 and 4
 *   extrapolated to no token) costs 0.067 s and a token's arithmetic about 0.0105 to 0.015 s
 *   (src:testbed-run, docs/VALIDATION.md §3.17). Which is the cause, the cache or the narrower
 *   tile, is not measured (the VM has no hardware counters); the rate covers both. At the first pass's rate the warm 5- and
 *   6-token rows came out 7 to 17 % slow in runs AC to AI. The calibration fits R with the
 *   other CPU rates when the base profile has the key. Without it the remainder streams at BW,
 *   as before, bit for bit.
 *   A one-token layer matmul has its own rate when the profile gives single_bandwidth (S, B/s
 *   of one core of the first cluster, streaming and arithmetic together; other cores and
 *   threads as for the head): BW_1(threads) = min(S / gemv_bw_0 x sum_c k_c gemv_bw_c, max_bw),
 *   t_matmul(1) = W / BW_1, whatever batched_from and batch_group say; from two tokens on, the
 *   equations above. Why: llama.cpp's x86 CPU backend hands a one-token matmul to a GEMV
 *   (ggml's own dot product over each weight row) and two or more tokens to its blocked kernel,
 *   and on some hosts the two differ by far. On the testbed's AMD EPYC host (runs A and B, and
 *   the runs of 2026-11-27) a warm pass of the 1B target took 0.042 s at N = 1 and 0.103 s at
 *   N = 2, 0.134 s at N = 4; on run E's Intel host 0.134 s at N = 1 and 0.169 s at N = 2
 *   (src:testbed-run, results/testbed/probe-tiles.txt; docs/VALIDATION.md §3.12). With one rate
 *   for both kernels the calibration refused the AMD host's warm rows (reduced chi2 6.0: the
 *   model underestimated N = 2 to 4 by 26 to 39 %). The calibration fits S from the one-token
 *   rows (pp1, tg) when the base profile has the key. Without it (every phone profile) a
 *   one-token pass prices as before, bit for bit.
 * Simplifications: a thread is a whole core at its nominal clock (no DVFS, no thermal limit);
 * threads split work evenly by throughput; the LM head is one matmul.
 * Sources: profile comments (src:mnn-gemv-bench: GEMV 42 GB/s on two 8 Elite big
 * cores; src:rn-executorch-bench: 4-bit decode rates on OnePlus 12). */
#include "devices/cpu.h"
#include <math.h>

int ls_cpu_total_cores(const ls_cpu_params *c)
{
  int n = 0;
  for (int i = 0; i < c->n_clusters; i++)
    n += c->cluster[i].cores;
  return n;
}

int ls_cpu_assign(const ls_cpu_params *c, int threads, int *per_cluster)
{
  int used = 0;
  for (int i = 0; i < c->n_clusters; i++) {
    int k = threads - used;
    if (k > c->cluster[i].cores)
      k = c->cluster[i].cores;
    if (k < 0)
      k = 0;
    per_cluster[i] = k;
    used += k;
  }
  return used;
}

/* bw_scale multiplies the cores' streaming rates before the DRAM cap: 1 for the layers,
 * head_bandwidth / gemv_bw_0 for the output projection (cpu.c's header). */
static void rates(const ls_cpu_params *c, int threads, double bw_scale, double *bw, double *flops)
{
  int k[LS_CPU_MAX_CLUSTERS];
  if (threads < 1)
    threads = 1;
  ls_cpu_assign(c, threads, k);
  double b = 0, f = 0;
  for (int i = 0; i < c->n_clusters; i++) {
    b += k[i] * c->cluster[i].gemv_bw_per_core;
    f += k[i] * c->cluster[i].freq_hz * c->cluster[i].flops_per_cycle;
  }
  b *= bw_scale;
  *bw = b < c->max_bw ? b : c->max_bw;
  *flops = f;
}

/* group: tokens per pass over the weights from batched_from on (0: one pass for any n). */
/* Passes over the weights of a blocked matmul of n tokens with tiles of `group` (header). */
static int weight_passes(int n, int group, int remainder)
{
  if (!remainder)
    return (n + group - 1) / group;
  return n > group && n % group ? 2 : 1;
}

static double matmul_s(const ls_cpu_params *c, double bytes, double flops_tok, double attn_ctx, int tokens,
                       int threads, int batched_from, int group, double bw_scale)
{
  if (tokens <= 0)
    return 0.0;
  double bw, f;
  rates(c, threads, bw_scale, &bw, &f);
  double mm;
  if (tokens < batched_from)
    mm = tokens * fmax(bytes / bw, flops_tok / f);
  else if (group > 0) {
    int rem = c->batch_remainder && group == c->batch_group, passes = weight_passes(tokens, group, rem);
    if (rem && passes == 2 && c->remainder_bw > 0 && c->n_clusters > 0) { /* the remainder's own rate */
      double bw_rem, f_rem;
      rates(c, threads, c->remainder_bw / c->cluster[0].gemv_bw_per_core, &bw_rem, &f_rem);
      mm = bytes / bw + bytes / bw_rem + tokens * (flops_tok / f);
    } else
      mm = passes * (bytes / bw) + tokens * (flops_tok / f);
  } else
    mm = fmax(bytes / bw, tokens * flops_tok / f);
  return c->call_s + mm + tokens * attn_ctx / f;
}

int64_t ls_cpu_layer_ns(const ls_cpu_params *c, const ls_layer_work *w, int tokens, int ctx_len, int threads)
{
  double attn = w->attn_flops_per_token_per_ctx * (ctx_len < 0 ? 0 : ctx_len);
  if (tokens == 1 && c->single_bw > 0 && c->n_clusters > 0) { /* the one-token kernel (header) */
    double bw1, f;
    rates(c, threads, c->single_bw / c->cluster[0].gemv_bw_per_core, &bw1, &f);
    return (int64_t)llround((c->call_s + w->weight_bytes / bw1 + attn / f) * 1e9);
  }
  return (int64_t)llround(matmul_s(c, w->weight_bytes, w->flops_per_token, attn, tokens, threads, c->batched_from,
                                     c->batch_group, 1.0) * 1e9);
}

int64_t ls_cpu_lmhead_ns(const ls_cpu_params *c, double lmhead_bytes, double flops_per_token, int tokens,
                         int threads)
{
  if (!(c->head_bw > 0) || c->n_clusters < 1) /* the key is absent: the layers' rate */
    return (int64_t)llround(
        matmul_s(c, lmhead_bytes, flops_per_token, 0.0, tokens, threads, c->head_batched_from, 0, 1.0) * 1e9);
  double scale = c->head_bw / c->cluster[0].gemv_bw_per_core;
  /* The first row's rate: head_bw_first when given, else head_bw (the same row for row). */
  double scale1 = c->head_bw_first > 0 ? c->head_bw_first / c->cluster[0].gemv_bw_per_core : scale;
  if (tokens <= 0 || tokens >= c->head_batched_from)
    return (int64_t)llround(
        matmul_s(c, lmhead_bytes, flops_per_token, 0.0, tokens, threads, c->head_batched_from, 0, scale1) * 1e9);
  double bw, bw1, f;
  rates(c, threads, scale, &bw, &f);
  if (!(c->head_bw_first > 0)) /* the key is absent: every row at head_bw, as before */
    return (int64_t)llround((c->call_s + tokens * (lmhead_bytes / bw)) * 1e9);
  rates(c, threads, scale1, &bw1, &f);
  return (int64_t)llround((c->call_s + lmhead_bytes / bw1 + (tokens - 1) * (lmhead_bytes / bw)) * 1e9);
}
