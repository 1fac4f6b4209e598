/* devices/cpu: a big.LITTLE CPU as clusters of identical cores.
 *
 * `threads` threads take the fastest cores first (clusters in profile order, fastest first).
 * A matmul over weights W bytes for n tokens is a roofline of two throughputs:
 *   GEMV (bandwidth-bound): W / min(sum of per-core gemv bandwidth, max_bw)
 *   GEMM (compute-bound):   n * flops_per_token / sum(freq * flops_per_cycle)
 *   t = max(both) + per-call overhead.
 * Below `batched_from` tokens a matmul has no kernel that reuses the weights across tokens:
 * each token streams them itself, t = n x max(GEMV, one token's GEMM) + overhead
 * (`head_batched_from` for the output projection, whose format may lack such a kernel).
 * With `batch_group` G set, from batched_from on the layers' kernel streams the weights once
 * per group of G tokens and adds every token's arithmetic: t = ceil(n / G) x GEMV + GEMM +
 * overhead (cpu.c's header; absent, the roofline).
 * The output projection has its own rate when `head_bw` is set (its kernel and format differ
 * from the layers'): the cores' rates scaled by head_bw / the first cluster's rate, a row
 * costing head bytes / that rate below head_batched_from (cpu.c's header). With `head_bw_first`
 * also set, a pass's first row costs head bytes / its own rate and each further row head bytes
 * / head_bw (a first row brings the weights in from memory; cpu.c's header).
 * With `single_bw` set, a layer matmul of one token has its own kernel and rate: weight bytes /
 * the cores' rates scaled by single_bw / the first cluster's rate (cpu.c's header).
 * See cpu.c for sources. */
#ifndef LS_DEVICES_CPU_H
#define LS_DEVICES_CPU_H
#include <stdint.h>
#include "devices/work.h"
#include "sim/error.h"

#define LS_CPU_MAX_CLUSTERS 4

typedef struct ls_cpu_cluster {
  char name[32];          /* "Cortex-X4" */
  int cores;
  double freq_hz;
  double gemv_bw_per_core; /* B/s of quantised weights one core streams in GEMV */
  double flops_per_cycle;  /* effective GEMM FLOPs per cycle per core */
  double core_w;           /* power of one active core */
} ls_cpu_cluster;

typedef struct ls_cpu_params {
  int n_clusters;
  ls_cpu_cluster cluster[LS_CPU_MAX_CLUSTERS];
  double max_bw;           /* B/s, DRAM bandwidth the CPU side can draw */
  double call_s;           /* per-call overhead (thread wake-up, sync) */
  int default_threads;
  double idle_w;           /* whole CPU complex idle */
  int batched_from;        /* tokens from which layer matmuls reuse the weights (<= 1: always) */
  int head_batched_from;   /* the same for the output projection */
  int batch_group;         /* tokens the layers' blocked kernel computes per pass over the weights,
                            * from batched_from on (0: absent, one pass for any n: the roofline);
                            * cpu.c's header */
  double head_bw;          /* B/s one core of the first cluster streams the output projection at
                            * (0: absent, the head streams at gemv_bw_per_core like the layers) */
  double head_bw_first;    /* B/s of the head's first row in a pass, the weights brought in from
                            * memory (0: absent, every row at head_bw); only with head_bw */
  int batch_remainder;     /* 1 (with batch_group G): a batch of n > G tokens that is no multiple of G
                            * streams the weights twice, once for its whole tiles and once for the
                            * rest; a multiple of G, or n <= G, once (0: ceil(n / G) times); cpu.c */
  double single_bw;        /* B/s one core of the first cluster computes a one-token layer matmul
                            * at, streaming and arithmetic together (0: absent, a one-token pass
                            * as any other); cpu.c's header */
  double remainder_bw;     /* B/s one core of the first cluster streams the weights at in the
                            * remainder's pass (batch_remainder), the arithmetic of its tokens
                            * priced as any token's (0: absent, at gemv_bw_per_core like the
                            * first pass); cpu.c's header */
} ls_cpu_params;

int ls_cpu_total_cores(const ls_cpu_params *c);
/* Active cores per cluster for `threads` threads (fastest first); returns threads used. */
int ls_cpu_assign(const ls_cpu_params *c, int threads, int *per_cluster);
int64_t ls_cpu_layer_ns(const ls_cpu_params *c, const ls_layer_work *w, int tokens, int ctx_len, int threads);
int64_t ls_cpu_lmhead_ns(const ls_cpu_params *c, double lmhead_bytes, double flops_per_token, int tokens,
                         int threads);

#endif
