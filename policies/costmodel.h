/* policies/costmodel: device cost queries for policies, built from a device profile, the
 * target and draft model costs and a map policy. (Interface fixed by the lead: the runner
 * uses the same functions to time its draft calls and output projections, so what policies
 * predict and what the simulation charges come from one place.)
 *
 * verify_s(n): one verification pass over n tree tokens: the layers as the overlap mode
 *   streams them (see costmodel.c), the LM head's read if it is not kept in DRAM, and the
 *   output projection as the map policy says (eager NPU over n rows, or on demand: expected
 *   accepted tokens x single-row calls), each projected row sampled on the CPU.
 * draft_step_s(n, depth): the draft forward calls the map policy makes for a step of n
 *   nodes (ls_draft_exec: unit, calls, tokens per call) x ls_costmodel_draft_call_ns. */
#ifndef LS_POLICIES_COSTMODEL_H
#define LS_POLICIES_COSTMODEL_H
#include <stdint.h>
#include "devices/device.h"
#include "devices/mapread.h"
#include "policies/policy.h"
#include "workloads/model.h"

typedef struct ls_costmodel ls_costmodel;

/* What one transformer layer of a model asks of a device (devices/work.h), from the model's
 * costs: the one conversion every caller (policies, runner, figures, tests) uses. */
ls_layer_work ls_costmodel_layer_work(const ls_model_costs *m);

/* DRAM budget (bytes). The paper streams the target from flash ("stored in flash and streamed
 * layer by layer", src:lever-html), so a phone profile keeps dram.resident_target = 0; what
 * physically fits is a cap on any resident target the profile asks for, and a feasibility
 * check: the app budget less the draft model, the KV caches of target and draft at
 * LS_KV_CTX_TOKENS, the flash layer buffers (1 serial, 2 with prefetch), and the output
 * projection when it lives in DRAM (head_in_dram). Negative: the run does not fit. */
#define LS_KV_CTX_TOKENS 4096 /* assumed: llama.cpp's default n_ctx, allocated at load (src:llamacpp-common) */
double ls_costmodel_dram_room(const ls_device *dev, const ls_model_costs *target, const ls_model_costs *draft,
                              int head_in_dram, int buffers);
/* Target layers kept resident (not streamed), first layers first, whole layers:
 * min(the profile's resident target, ls_costmodel_dram_room) / layer bytes. The one rule the
 * runner, `leversim tree` and the benchmarks share. */
int ls_costmodel_resident_layers(const ls_device *dev, const ls_model_costs *target, const ls_model_costs *draft,
                                 int head_in_dram, int buffers);

/* dev, map and map_state are borrowed and must outlive the cost model; target and draft are
 * copied. resident_layers: target layers kept in DRAM (not streamed). threads: CPU threads
 * for CPU work. *out owned by caller (ls_costmodel_free). */
int ls_costmodel_create(ls_costmodel **out, const ls_device *dev, const ls_model_costs *target,
                        const ls_model_costs *draft, const ls_map_ops *map, const void *map_state,
                        int resident_layers, int threads, ls_error *err);
void ls_costmodel_free(ls_costmodel *cm);
/* Current context length (prompt + generated), for attention costs. */
void ls_costmodel_set_ctx(ls_costmodel *cm, int ctx_len);
/* Accepted tokens per cycle assumed for on-demand output projection (default 3; >= 1). */
void ls_costmodel_set_tau(ls_costmodel *cm, double tau);
/* The accepted tokens per cycle the cost model currently prices projections with. */
double ls_costmodel_tau(const ls_costmodel *cm);
/* How flash reads meet NPU compute in a verification pass (runner setting verify.overlap):
 * SERIAL reads a layer, then computes it (a runtime whose compute faults the weights in);
 * PREFETCH reads the next layer while the current one computes (two buffers); CROSS also
 * starts the next pass's first reads while the cycle drafts; MAPPED faults a mapped model file
 * in under the kernel's read-ahead (devices/mapread.h): reads run at most one read-ahead window
 * ahead of compute (verify.read_ahead, ls_costmodel_set_read_ahead). */
typedef enum { LS_OVERLAP_SERIAL = 0, LS_OVERLAP_PREFETCH = 1, LS_OVERLAP_CROSS = 2, LS_OVERLAP_MAPPED = 3 } ls_overlap;
/* Names indexed by ls_overlap, NULL-terminated: "serial", "prefetch", "cross-cycle", "mapped". */
extern const char *const ls_overlap_names[];
/* Linux's default read-ahead window, 128 KiB (VM_READAHEAD_PAGES, include/linux/mm.h;
 * src:linux-readahead): what a block device's read_ahead_kb is unless the platform sets another
 * (docs/CALIBRATION.md, "Overlap"). */
#define LS_READ_AHEAD_DEFAULT (128.0 * 1024)
/* The read-ahead window (bytes, > 0) MAPPED reads in; LS_READ_AHEAD_DEFAULT until set. */
void ls_costmodel_set_read_ahead(ls_costmodel *cm, double bytes);
/* The read-ahead parameters MAPPED reads with (window, trigger 0: the next window issued at the
 * current one's first page, no fault CPU, no wait at the start): the decode library's. */
ls_mapread_params ls_costmodel_read_ahead(const ls_costmodel *cm);
/* Execution settings the cost model must agree with the runner on. head_in_dram: the
 * output projection's weights stay in DRAM (not streamed each pass). Defaults: SERIAL, the
 * head in DRAM exactly when the map computes it on the CPU. */
void ls_costmodel_set_exec(ls_costmodel *cm, ls_overlap overlap, int head_in_dram);
/* Sampling one projected row (softmax + pick over the target vocabulary) on the CPU, s. */
double ls_costmodel_sample_row_s(const ls_costmodel *cm);
/* Fills the policy-facing view (ctx = cm). */
void ls_costmodel_bind(ls_costmodel *cm, ls_cost_model *out);
/* One draft forward call over `tokens` tokens on unit (all draft layers + the draft's LM
 * head, one NPU dispatch per call; on the CPU with the configured threads). */
int64_t ls_costmodel_draft_call_ns(const ls_costmodel *cm, ls_unit unit, int tokens, int ctx_len);
/* One target output-projection call over `tokens` tokens on unit. */
int64_t ls_costmodel_lmhead_ns(const ls_costmodel *cm, ls_unit unit, int tokens);

/* A forward pass of a model on a device's CPU (a runtime such as llama.cpp that maps the model
 * file and computes every layer on the CPU): the pricing `leversim testbed validate` checks
 * against a real llama.cpp, and which runner/decode's CPU replay of recorded cycles
 * (runner/decode/cpu_replay.h) uses. A pass of n tokens after c cached ones, asking for `rows`
 * output rows (1 for a prompt pass as llama-bench times it, every token for a verification):
 *   compute = L x ls_cpu_layer_ns(n, c + n/2, threads) + ls_cpu_lmhead_ns(rows, threads)
 *   warm    = compute (the model in memory)
 *   cold    = the file consumed from a cold page cache (devices/mapread.h, ls_mapread_pass_s):
 *             mapped: reads overlap compute through the kernel's read-ahead (window map.window),
 *             a wait map.start_s at the first read, head_serial of the head's compute after its
 *             last byte; serial: each layer read whole, then computed (verify.overlap=serial).
 * rows = 0: no output projection is read or computed (llama.cpp with no logits asked). */
typedef struct ls_costmodel_pass {
  const ls_device *dev;          /* borrowed */
  int threads;
  int mapped;                    /* 1: mapped reads with read-ahead; 0: serial */
  ls_mapread_params map;         /* the read-ahead (mapped only) */
  const ls_flash_params *flash;  /* the read path's parameters; NULL: the profile's (borrowed) */
  double head_serial;            /* 0..1 of the head's compute after its last byte (mapped only) */
} ls_costmodel_pass;
double ls_costmodel_pass_compute_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows);
double ls_costmodel_pass_warm_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows);
double ls_costmodel_pass_cold_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows);
/* The pricing of a llama.cpp-style runtime on the host a profile's host section describes
 * (devices/device.h, ls_device_host): the profile's CPU at its thread count, mapped reads with
 * the host's read-ahead window (trigger 0, as the decode engine's), fault cost and start wait,
 * the read path at the host's stream rate (ls_mapread_stream_flash of its stream, without fault
 * cost: a stream's own CPU is in its time) when it has one, the head's serial share. *sf is
 * the storage p->flash then points to (it must outlive p). Returns 1, or 0 (p untouched) when
 * the profile has no host section. */
int ls_costmodel_pass_host(const ls_device *dev, ls_flash_params *sf, ls_costmodel_pass *p);

#endif
