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
 * metrics. Every event callback receives the run state (or a job of it) as its context.
 * The run is a state machine: its phase (phase.h; the allowed transitions at the top of
 * phase.c) is written only by ls_cyc_enter, which checks every transition. The state is cut
 * into the parts each stage owns: cfg (decode.c, read-only while the engine runs), text,
 * seq and acct (cycle_account.c), cand (built in cycle_account.c, pruned and walked in
 * cycle_verify.c), drafting (cycle_draft.c), verify (cycle_verify.c), head (cycle_lmhead.c). */
#ifndef LS_RUNNER_DECODE_INT_H
#define LS_RUNNER_DECODE_INT_H
#include <stdint.h>
#include "devices/device.h"
#include "devices/devsim.h"
#include "policies/costmodel.h"
#include "policies/policy.h"
#include "runner/decode/decode.h"
#include "runner/decode/phase.h"
#include "sim/engine.h"
#include "sim/stats.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

struct ls_run_state;
typedef struct ls_step_job { /* the context a draft pass's jobs report back with */
  struct ls_run_state *r;
  int step;
} ls_step_job;

/* What the run is: set by decode.c before the engine starts; the stages only read it (the
 * policies' states and the cost model keep their own per-cycle statistics). */
typedef struct ls_run_config {
  ls_device *dev;               /* owned (a clone) */
  const ls_model *target, *draft;
  ls_model_costs tc, dc;
  ls_layer_work tw;
  const ls_draft_ops *dops;
  const ls_prune_ops *pops;
  const ls_map_ops *mops;
  void *dstate, *pstate, *mstate;
  ls_cost_model cost;
  ls_costmodel *cm;             /* owned: the policies' device cost model */
  int L, resident, exit_layer, threads, max_tokens, in_dram;
  ls_lmhead lmhead;
  ls_overlap overlap;           /* verify.overlap */
  int head_in_dram;             /* the output projection's weights stay in DRAM */
  int buffers;                  /* flash layer buffers: 1 serial, 2 with prefetch */
  int prefetch;                 /* cross-cycle with streamed weights: each pass's first reads
                                   are issued in PREFETCH, before the pass begins */
  double read_ahead;            /* verify.read_ahead, bytes (mapped only) */
  int cpu_per[LS_CPU_MAX_CLUSTERS]; /* a CPU call's cores per cluster (ls_cpu_assign of the
                                   device and threads, neither of which changes in a run) */
} ls_run_config;

/* The text being decoded: the synthetic oracle, or a recorded trace (decode.c). */
typedef struct ls_run_text {
  ls_oracle *oracle;            /* owned */
  ls_oracle_cycle cyc;
  ls_trace *trace;              /* owned; set: the recorded text replaces the oracle's */
  ls_trace_cycle tcyc;
  ls_draft_view view;
} ls_run_text;

/* The sequence: where the current prompt stands (cycle_account.c owns it). */
typedef struct ls_run_seq {
  int prompt, pos, ctx_len, produced, target_len, prefill_tokens;
  int64_t t_prompt_start;
} ls_run_seq;

/* This cycle's candidates: the tree the draft policy built (cycle_account.c), the nodes
 * pruning keeps and the walk's accepted path (cycle_verify.c). */
typedef struct ls_run_cand {
  ls_tree tree;
  double score[LS_TREE_MAX];
  unsigned char keep[LS_TREE_MAX];
  int n_live, accepted_nodes[LS_TREE_MAX], n_acc;
} ls_run_cand;

/* DRAFT (cycle_draft.c): passes in flight, submitted in order once the pass they depend on is done. */
typedef struct ls_run_drafting {
  ls_step_job sj[LS_STEPS_MAX];
  int step_left[LS_STEPS_MAX];  /* jobs of each submitted pass still running */
  unsigned char step_done[LS_STEPS_MAX];
  int next_step, steps_done;
  int64_t draft_work;           /* this cycle: the passes' durations added up (wall time <= this) */
} ls_run_drafting;

/* One target layer's NPU time for (tokens, ctx): every layer of a pass asks the same. */
typedef struct ls_layer_memo {
  int valid, tokens, ctx;
  int64_t ns;
} ls_layer_memo;

/* VERIFY (cycle_verify.c): the pass's pipeline; streamed items are layers resident..L-1,
 * then the LM head unless it is kept in DRAM. */
typedef struct ls_run_verify {
  int n_stream, next_read, reads_done, next_layer, computed_stream;
  int64_t t_verify, t_layers_end, npu_free_at;
  int64_t io_wait, compute_ns;  /* this pass: the NPU's wait for weights, its layer compute */
  long token_layers;            /* this pass: tokens computed, summed over layers */
  ls_layer_memo layer_memo;     /* the last target layer time asked for (ls_cyc_layer_ns) */
  /* A serial pass run in a loop (cycle_verify.c, "Inline passes"): the layer compute booked
   * on the NPU when the pass ends (ns, jobs). */
  int inline_pass;
  int64_t booked_ns;
  uint64_t booked_jobs;
  /* verify.overlap=mapped: the pass planned at its start (cycle_verify.c), per item l = 0..L
   * (the layers, then the head): the tokens each layer computes, the wait for its read-ahead
   * before its compute, ns (0 for a resident item), and whether that wait is over. Owned,
   * L + 1 each, NULL in the other modes. */
  int *map_tokens;
  int64_t *map_wait;
  unsigned char *map_waited;
} ls_run_verify;

/* HEAD and SAMPLE (cycle_lmhead.c): the current output-projection call. */
typedef struct ls_run_head {
  int jobs;                     /* jobs of the current call (or its sampling) still running */
  int rows;                     /* rows of the current call */
  int left;                     /* calls of this cycle not yet sampled */
} ls_run_head;

/* What the cycles add up (cycle_account.c; decode.c turns them into metrics). */
typedef struct ls_run_acct {
  int64_t t_cycle;              /* the current cycle's start */
  ls_stats cycle_draft, draft_work_s, cycle_verify, cycle_lmhead, tree_size, verify_tokens, tau;
  ls_sample *tok_lat;           /* owned */
  ls_sample *cost_err, *cost_bias; /* owned; per cycle: (cost model's cycle time - simulated) / simulated, |.| and signed */
  double cost_pred_s;           /* the current cycle's time as the cost model predicts it for the tree built */
  ls_stats ttft;
  double decode_ns, io_wait_ns, verify_ns_total, token_layers_total, useful_token_layers, compute_total, useful_compute;
  double npu_busy0, cpu_busy0, flash_busy0, energy0, decode_energy, npu_busy, cpu_busy, flash_busy;
  long tokens, cycles;
  long prune_calls, accepted_pruned; /* audit counters: pruning passes; accepted nodes it had removed (must stay 0) */
  ls_db_prompt totals_prev;     /* the run's totals at the end of the previous prompt */
} ls_run_acct;

/* One run: its phase (phase.c; written only by ls_cyc_enter), its engine, and the parts each
 * stage owns. */
typedef struct ls_run_state {
  ls_phase phase;
  ls_run_config cfg;
  ls_engine *eng;               /* owned */
  ls_devsim *ds;                /* owned */
  ls_run_text text;
  ls_run_seq seq;
  ls_run_cand cand;
  ls_run_drafting drafting;
  ls_run_verify verify;
  ls_run_head head;
  ls_run_acct acct;
  ls_decode_result *res;        /* borrowed: the caller's result */
  int keep_steps;
  int dry;                      /* set-up only (ls_decode_check) */
  int failed;
  ls_error *err;                /* borrowed */
} ls_run_state;

/* phase.c: the only writer of r->phase. Checks from -> to against the table and the
 * destination's invariants; an illegal transition fails the run with LS_ESTATE (message in
 * r->err) and leaves the phase as it was. Returns LS_OK or the run's failure. */
int ls_cyc_enter(ls_run_state *r, ls_phase to);
/* An inline pass's layers (cycle_verify.c): records the WAIT -> LAYER -> WAIT edges the
 * transitions of each layer would record, checked against the table once; the phase stays
 * the pass's WAIT. LS_OK, or the run fails as ls_cyc_enter fails it. */
int ls_cyc_layers_inline(ls_run_state *r);
/* The check alone: LS_OK, or LS_ESTATE with the reason in err (tests call it directly). */
int ls_cyc_phase_check(const ls_run_state *r, ls_phase to, ls_error *err);

/* decode.c: failure and the inputs */
void ls_cyc_fail(ls_run_state *r, int rc); /* keeps the first failure; the engine then drains */
int64_t ls_cyc_layer_ns(ls_run_state *r, int tokens); /* one target layer on the NPU (remembered) */
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
/* Cross-cycle: enters PREFETCH and issues the next pass's first flash reads. */
void ls_cyc_prefetch(ls_run_state *r);

/* cycle_lmhead.c: starts the output projection once the layers (and the walk) are done */
void ls_cyc_lmhead_begin(ls_run_state *r);

/* cycle_account.c */
void ls_cyc_cycle_end(ls_run_state *r);

/* decode.c: rc as a reader's error at the place key's value was written (its origin). */
int ls_cyc_at_setting(ls_kv *kv, const char *key, int rc, ls_error *err);

/* cycle_host.c: a run of a host system (ls_system.host: llama-spec), priced without the event
 * engine by the decode library's CPU replay; reads every setting it uses from kv (unknown ones
 * are errors), fills out's prompts, metrics (and steps when keep_steps) unless dry, and sets
 * valid = 0 with a message on a profile without a host section. */
int ls_cyc_host_run(const char *root, const ls_run_spec *s, ls_kv *kv, int keep_steps, int dry,
                    ls_decode_result *out, ls_error *err);
/* The cycle time the policies' cost model c gives for tree t, as a planner adds it up
 * (policies/draft_lever.c): the draft passes one after another, except two consecutive passes
 * that need the same earlier pass and run on different units of map m (a split batch), which
 * take the slower of the two; then verify_s over the tree's nodes (cycle_account.c). */
double ls_cyc_predicted_s(const ls_tree *t, const ls_cost_model *c, const ls_map_ops *m, const void *mstate);
void ls_cyc_prompt_start(ls_run_state *r);

#endif
