/* runner/decode_int: the state one run's decode simulation shares between the stages of a
 * cycle, and the functions each stage file offers the others. Internal to runner/ (and
 * tests/runner): the public interface is runner/decode/decode.h.
 *
 * One cycle, in timeline order, and the file that simulates each part:
 *   cycle_account.c  cycle start (the draft policy builds the tree)
 *   cycle_draft.c    draft passes on the CPU and the NPU
 *   cycle_verify.c   target layers (flash streaming, compute, pruning), acceptance walk
 *   cycle_lmhead.c   output projection and sampling
 *   cycle_account.c  cycle end: the cycle's times and tokens are recorded
 * decode.c loads the inputs, sets a run up, runs the engine and turns the totals into
 * metrics. Every event callback receives the run state (or a job of it) as its context. */
#ifndef LS_RUNNER_DECODE_INT_H
#define LS_RUNNER_DECODE_INT_H
#include <stdint.h>
#include "devices/device.h"
#include "devices/devsim.h"
#include "policies/costmodel.h"
#include "policies/policy.h"
#include "runner/decode/decode.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

typedef enum { LS_PH_PREFILL, LS_PH_DECODE } ls_run_phase;

struct ls_run_state;
typedef struct ls_step_job { /* the context a draft pass's jobs report back with */
  struct ls_run_state *r;
  int step;
} ls_step_job;

typedef struct ls_run_state {
  /* configuration */
  ls_device *dev;               /* owned (a clone) */
  const ls_model *target, *draft;
  ls_model_costs tc, dc;
  ls_layer_work tw;
  const ls_draft_ops *dops;
  const ls_prune_ops *pops;
  const ls_map_ops *mops;
  void *dstate, *pstate, *mstate;
  ls_oracle *oracle;
  ls_cost_model cost;
  ls_costmodel *cm;             /* owned: the policies' device cost model */
  int L, resident, exit_layer, threads, max_tokens, in_dram;
  ls_lmhead lmhead;
  ls_overlap overlap;           /* verify.overlap */
  int head_in_dram;             /* the output projection's weights stay in DRAM */
  int buffers;                  /* flash layer buffers: 1 serial, 2 with prefetch */
  int verifying;                /* a pass is computing: arriving reads may start layers */
  int carry;                    /* the next pass's first reads were issued during the last cycle */
  /* engine */
  ls_engine *eng;
  ls_devsim *ds;
  /* the sequence being decoded */
  ls_run_phase ph;
  int prompt, pos, ctx_len, produced, target_len;
  int64_t t_prompt_start, t_cycle, t_verify, t_layers_end, npu_free_at;
  ls_oracle_cycle cyc;
  ls_trace *trace;         /* owned; set: the recorded text replaces the oracle's */
  ls_trace_cycle tcyc;
  ls_draft_view view;
  ls_tree tree;
  double score[LS_TREE_MAX];
  unsigned char keep[LS_TREE_MAX];
  int n_live, accepted_nodes[LS_TREE_MAX], n_acc;
  /* draft passes in flight: submitted in order once the pass they depend on is done */
  ls_step_job sj[LS_STEPS_MAX];
  int step_left[LS_STEPS_MAX]; /* jobs of each submitted pass still running */
  unsigned char step_done[LS_STEPS_MAX];
  int next_step, steps_done;
  int64_t draft_work;          /* this cycle: the passes' durations added up (wall time <= this) */
  /* verification pipeline: streamed items are layers resident..L-1, then the LM head */
  int n_stream, next_read, reads_done, next_layer, computed_stream, npu_running, prefill_tokens;
  int lm_jobs; /* jobs of the current output-projection call still running */
  int lm_rows, lm_sampling; /* rows of the current call; 1 while its rows are being sampled */
  int64_t io_wait, compute_ns;
  long token_layers;
  int lm_left;
  /* accumulators over decode */
  ls_stats cycle_draft, draft_work_s, cycle_verify, cycle_lmhead, tree_size, verify_tokens, tau;
  ls_sample *tok_lat;
  ls_sample *cost_err, *cost_bias; /* per cycle: (cost model's cycle time - simulated) / simulated, |.| and signed */
  double cost_pred_s;           /* this cycle's time as the cost model predicts it for the tree built */
  ls_stats ttft;
  double decode_ns, io_wait_ns, verify_ns_total, token_layers_total, useful_token_layers, compute_total, useful_compute;
  double npu_busy0, cpu_busy0, flash_busy0, energy0, decode_energy, npu_busy, cpu_busy, flash_busy;
  long tokens, cycles;
  long prune_calls, accepted_pruned; /* audit counters: pruning passes; accepted nodes it had removed (must stay 0) */
  ls_db_prompt totals_prev; /* the run's totals at the end of the previous prompt */
  ls_decode_result *res;
  int keep_steps;
  int dry;                      /* set-up only (ls_decode_check) */
  int failed;
  ls_error *err;
} ls_run_state;

/* decode.c: failure and the inputs */
void ls_cyc_fail(ls_run_state *r, int rc); /* keeps the first failure; the engine then drains */
int64_t ls_cyc_layer_ns(const ls_run_state *r, int tokens); /* one target layer on the NPU */
int ls_cyc_text_prompts(const ls_run_state *r);
void ls_cyc_text_begin(ls_run_state *r); /* the current cycle's candidates and choices */
int ls_cyc_text_true_rank(const ls_run_state *r, int node);
double ls_cyc_text_exit_score(const ls_run_state *r, int node);

/* cycle_draft.c */
/* Runs a CPU call on r->threads cores; returns the number of jobs (done fires per job). */
int ls_cyc_submit_cpu(ls_run_state *r, int64_t ns, ls_event_fn done, void *ctx);
void ls_cyc_draft_begin(ls_run_state *r);

/* cycle_verify.c */
void ls_cyc_verify_begin(ls_run_state *r);
void ls_cyc_stream_reset(ls_run_state *r);
void ls_cyc_issue_reads(ls_run_state *r);

/* cycle_lmhead.c: starts the output projection once the layers (and the walk) are done */
void ls_cyc_lmhead_begin(ls_run_state *r);

/* cycle_account.c */
void ls_cyc_cycle_end(ls_run_state *r);
void ls_cyc_prompt_start(ls_run_state *r);

#endif
