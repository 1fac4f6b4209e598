/* runner/decode: one run's decode simulation on the event engine. See decode.h.
 *
 * Timeline of one decode cycle (all times from the device models, all waits emerge from
 * the events):
 *   DRAFT   for each draft forward step the policy recorded: the map policy picks the unit
 *           and the number of calls; calls run back to back on that unit (CPU or NPU).
 *   VERIFY  target layers l = 1..L on the NPU. The first R layers are resident in DRAM
 *           (R = floor(resident budget / layer bytes)); the rest, then the LM head, stream
 *           from flash through two buffers: the read of streamed item j may start once item
 *           j-2 has been computed (prefetch of the next layer while the current computes).
 *           Layer l computes n_l tokens: the whole tree up to the exit layer, the survivors
 *           of pruning after it. Why a resident prefix: the flash starts streaming layer R+1
 *           the moment verification begins, overlapped with the resident layers' compute,
 *           so the pipeline never starts cold.
 *   LM HEAD eager (NPU, every surviving node, part of the pass) or on demand (after the
 *           acceptance walk, one single-token projection per accepted token + bonus, in
 *           sequence, on the CPU or the NPU).
 *   ACCEPT  from the root, follow the child whose rank is the target's choice (oracle ground
 *           truth), among surviving nodes; tau = accepted + 1 bonus token.
 * I/O share = time the NPU waits for flash / verification wall time. Wasted verification
 * compute = the share of the target's layer compute time spent beyond what verifying only
 * the useful tokens (root + accepted nodes) would have cost:
 *   1 - sum_l t_l(useful) / sum_l t_l(n_l),  t_l from the NPU batch curve.
 * It is measured in compute time, not token counts, because the NPU's cost per extra token
 * is far below one token's (batch curve): this is the quantity the paper's "about 20 %" can
 * refer to (with token counts a 64-node tree would "waste" over 90 %).
 * Per-token latency: each of the tau tokens of a cycle is charged cycle time / tau.
 * Simplifications (stated, not hidden): the draft's own prefill and KV-cache memory are not
 * modelled; flash does not prefetch across cycles (it idles while drafting); one sequence at
 * a time (no batching across prompts). */
#include "runner/decode.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "devices/devsim.h"
#include "policies/costmodel.h"
#include "policies/policy.h"
#include "runner/system.h"
#include "sim/engine.h"
#include "sim/resource.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

#define MAX_CACHED 24

/* ---- the cache of loaded inputs ---- */

typedef struct {
  char id[64];
  void *obj;
} cached;

struct ls_decode_cache {
  char root[512];
  cached dev[MAX_CACHED], mod[MAX_CACHED], ds[MAX_CACHED];
  int n_dev, n_mod, n_ds;
  const volatile sig_atomic_t *stop; /* ls_decode_cache_set_stop (borrowed; may be NULL) */
};

void ls_decode_cache_set_stop(ls_decode_cache *c, const volatile sig_atomic_t *stop)
{
  c->stop = stop;
}

int ls_decode_cache_create(ls_decode_cache **out, const char *data_root, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  if (!*out)
    return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  snprintf((*out)->root, sizeof (*out)->root, "%s", data_root);
  return LS_OK;
}

void ls_decode_cache_free(ls_decode_cache *c)
{
  if (!c)
    return;
  for (int i = 0; i < c->n_dev; i++)
    ls_device_free(c->dev[i].obj);
  for (int i = 0; i < c->n_mod; i++)
    ls_model_free(c->mod[i].obj);
  for (int i = 0; i < c->n_ds; i++)
    ls_dataset_free(c->ds[i].obj);
  free(c);
}

typedef int (*load_fn)(void **out, const char *root, const char *id, ls_error *err);
static int load_dev(void **o, const char *r, const char *id, ls_error *e) { return ls_device_load_id((ls_device **)o, r, id, e); }
static int load_mod(void **o, const char *r, const char *id, ls_error *e) { return ls_model_load_id((ls_model **)o, r, id, e); }
static int load_ds(void **o, const char *r, const char *id, ls_error *e) { return ls_dataset_load_id((ls_dataset **)o, r, id, e); }

static int cache_get(ls_decode_cache *c, cached *tab, int *n, const char *id, load_fn load,
                     void **out, ls_error *err)
{
  for (int i = 0; i < *n; i++)
    if (strcmp(tab[i].id, id) == 0) {
      *out = tab[i].obj;
      return LS_OK;
    }
  if (*n == MAX_CACHED)
    return ls_error_set(err, LS_ERANGE, "decode: more than %d distinct inputs of one kind", MAX_CACHED);
  int rc = load(out, c->root, id, err);
  if (rc)
    return rc;
  snprintf(tab[*n].id, sizeof tab[0].id, "%s", id);
  tab[(*n)++].obj = *out;
  return LS_OK;
}

/* ---- per-run state ---- */

typedef enum { PH_PREFILL, PH_DECODE } phase;

struct run;
typedef struct step_job { /* the context a draft pass's jobs report back with */
  struct run *r;
  int step;
} step_job;

typedef struct run {
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
  phase ph;
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
  step_job sj[LS_STEPS_MAX];
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
  ls_stats ttft;
  double decode_ns, io_wait_ns, verify_ns_total, token_layers_total, useful_token_layers, compute_total, useful_compute;
  double npu_busy0, cpu_busy0, flash_busy0, energy0, decode_energy, npu_busy, cpu_busy, flash_busy;
  long tokens, cycles;
  long prune_calls, accepted_pruned; /* audit counters: pruning passes; accepted nodes it had removed (must stay 0) */
  ls_decode_result *res;
  int keep_steps;
  int failed;
  ls_error *err;
} run;

static void cycle_start(ls_engine *e, void *ctx);
static void try_compute(run *r);
static void prompt_start(run *r);

static void fail(run *r, int rc)
{
  if (!r->failed)
    r->failed = rc ? rc : LS_ERUN;
}

static int64_t target_layer_ns(const run *r, int tokens)
{
  return ls_npu_layer_ns(ls_device_npu(r->dev), &r->tw, tokens, r->ctx_len);
}

/* ---- the text: the synthetic oracle, or a recorded trace (workload.trace=FILE) ----
 * A trace gives candidate sets and the target's choices; the early-exit predictor is then
 * modelled as for the oracle (score = sqrt(2) Phi^-1(AUC) [on the true path] + N(0,1),
 * keyed by the node), with the dataset's AUC. */

static int text_prompts(const run *r)
{
  return r->trace ? ls_trace_prompts(r->trace) : ls_oracle_prompts(r->oracle);
}

static void text_begin(run *r)
{
  if (r->trace)
    ls_trace_replay_begin(r->trace, r->prompt, r->pos, &r->tcyc, &r->view);
  else
    ls_oracle_begin(r->oracle, r->prompt, r->pos, &r->cyc, &r->view);
}

static int text_true_rank(const run *r, int node)
{
  if (r->trace)
    return ls_trace_replay_true_rank(&r->tcyc, r->tree.key[node], r->tree.depth[node]);
  return ls_oracle_true_rank(&r->cyc, r->tree.key[node], r->tree.depth[node]);
}

static double text_exit_score(const run *r, int node)
{
  if (!r->trace)
    return ls_oracle_exit_score(&r->cyc, r->tree.key[node], r->tree.depth[node], r->tree.prob[node]);
  int on = ls_trace_replay_true_rank(&r->tcyc, r->tree.key[node], r->tree.depth[node]) != LS_ORACLE_OFF_PATH;
  double sep = sqrt(2.0) * gsl_cdf_ugaussian_Pinv(ls_oracle_auc(r->oracle));
  return sep * on + ls_normal(ls_key2(r->tree.key[node], 0x7472616365ULL));
}

/* ---- draft stage ---- */

static void verify_begin(run *r);
static void draft_submit_ready(run *r);

/* A CPU call runs on r->threads cores: one job per thread, on the cluster the thread is
 * placed on (fastest first), so busy time and energy count every core. done fires once per
 * job with ctx; returns how many were submitted. */
static int submit_cpu(run *r, int64_t ns, ls_event_fn done, void *ctx)
{
  int per[LS_CPU_MAX_CLUSTERS] = {0}, n = 0;
  ls_cpu_assign(ls_device_cpu(r->dev), r->threads, per);
  for (int c = 0; c < r->ds->n_cpu; c++)
    for (int k = 0; k < per[c]; k++, n++)
      if (ls_resource_submit(r->ds->cpu[c], ns, done, ctx, r->err))
        fail(r, r->err->code);
  return n;
}

/* One job of a draft pass finished; the pass is done when all its jobs are. */
static void step_job_done(ls_engine *e, void *ctx)
{
  (void)e;
  step_job *j = ctx;
  run *r = j->r;
  if (--r->step_left[j->step] > 0)
    return;
  r->step_done[j->step] = 1;
  if (++r->steps_done == r->tree.n_steps)
    verify_begin(r);
  else
    draft_submit_ready(r);
}

/* Submits, in order, every pass whose dependency is done: each pass's calls go to the unit the
 * map policy picks (NPU calls queue on the NPU, a CPU call occupies r->threads cores), so a
 * CPU pass and an NPU pass that do not need each other's output run at the same time. */
static void draft_submit_ready(run *r)
{
  while (r->next_step < r->tree.n_steps && !r->failed) {
    int s = r->next_step, dep = r->tree.step_dep[s];
    if (dep >= 0 && !r->step_done[dep])
      return;
    ls_draft_exec x = r->mops->draft_step(r->mstate, r->tree.step_nodes[s], r->tree.step_depth[s]);
    int calls = x.calls > 0 ? x.calls : 1;
    int64_t ns = ls_costmodel_draft_call_ns(r->cm, x.unit, x.tokens_per_call, r->ctx_len);
    r->sj[s] = (step_job){r, s};
    r->draft_work += calls * ns;
    r->step_left[s] = 0;
    r->next_step++;
    for (int c = 0; c < calls; c++) {
      if (x.unit == LS_UNIT_CPU) {
        r->step_left[s] += submit_cpu(r, ns, step_job_done, &r->sj[s]);
      } else {
        r->step_left[s]++;
        if (ls_resource_submit(r->ds->npu, ns, step_job_done, &r->sj[s], r->err))
          fail(r, r->err->code);
      }
    }
  }
}

static void draft_begin(run *r)
{
  r->next_step = r->steps_done = 0;
  r->draft_work = 0;
  memset(r->step_done, 0, (size_t)r->tree.n_steps);
  if (r->tree.n_steps == 0)
    verify_begin(r);
  else
    draft_submit_ready(r);
}

/* ---- verification pipeline ---- */

static double stream_bytes(const run *r, int s)
{
  return r->resident + s < r->L ? r->tc.layer_bytes : r->tc.lmhead_bytes;
}

/* Streamed items of one pass: the non-resident layers, then the head unless it is kept in
 * DRAM; nothing when the whole target is in DRAM. */
static int stream_items(const run *r)
{
  return r->in_dram ? 0 : (r->L - r->resident) + !r->head_in_dram;
}

static void on_read_done(ls_engine *e, void *ctx)
{
  (void)e;
  run *r = ctx;
  r->reads_done++;
  if (r->verifying) /* a read prefetched for the next pass waits for it */
    try_compute(r);
}

static void issue_reads(run *r)
{
  while (r->next_read < r->n_stream && r->next_read - r->computed_stream < r->buffers) {
    if (ls_flash_dev_read(r->ds->flash, stream_bytes(r, r->next_read), on_read_done, r, r->err)) {
      fail(r, r->err->code);
      return;
    }
    r->next_read++;
  }
}

/* Item `layer` (L = the LM head) is in memory. */
static int ready(const run *r, int layer)
{
  if (layer < r->resident)
    return 1;
  if (layer == r->L && (r->in_dram || r->head_in_dram))
    return 1; /* LM head resident */
  return layer - r->resident < r->reads_done;
}

/* Resets the streaming state of a pass (reads of the pass not yet issued). */
static void stream_reset(run *r)
{
  r->n_stream = stream_items(r);
  r->next_read = r->reads_done = r->computed_stream = 0;
}

static void verify_begin(run *r)
{
  r->t_verify = ls_engine_now(r->eng);
  if (!r->carry)
    stream_reset(r);
  r->carry = 0;
  r->verifying = 1;
  r->next_layer = 0;
  r->io_wait = 0;
  r->npu_free_at = r->t_verify;
  r->token_layers = 0;
  r->compute_ns = 0;
  r->lm_left = 0;
  issue_reads(r);
  try_compute(r);
}

static int tokens_at_layer(const run *r)
{
  return r->ph == PH_PREFILL ? r->prefill_tokens : r->n_live;
}

static void prune_now(run *r)
{
  for (int i = 0; i < r->tree.n; i++)
    r->score[i] = i ? text_exit_score(r, i) : 0.0;
  memset(r->keep, 0, (size_t)r->tree.n);
  r->n_live = r->pops->prune(r->pstate, &r->tree, r->score, r->keep);
  r->keep[0] = 1;
  r->prune_calls++;
}

static void layer_done(ls_engine *e, void *ctx)
{
  (void)e;
  run *r = ctx;
  int l = r->next_layer;
  r->npu_running = 0;
  if (l >= r->resident) {
    r->computed_stream++;
    issue_reads(r);
  }
  r->token_layers += tokens_at_layer(r);
  r->next_layer++;
  r->npu_free_at = ls_engine_now(r->eng);
  if (r->ph == PH_DECODE && r->next_layer == r->exit_layer && r->exit_layer < r->L)
    prune_now(r);
  try_compute(r);
}

static void accept_walk(run *r)
{
  int node = 0;
  r->n_acc = 0;
  for (;;) {
    int want = text_true_rank(r, node);
    int next = -1;
    for (int c = node + 1; want >= 0 && c < r->tree.n; c++)
      if (r->tree.parent[c] == node && r->tree.rank[c] == want && r->keep[c]) {
        next = c;
        break;
      }
    if (next < 0)
      return;
    r->accepted_nodes[r->n_acc++] = next;
    node = next;
  }
}

static void cycle_end(run *r);

static void lmhead_done(ls_engine *e, void *ctx);

/* Submits one output-projection call over `tokens` tokens where the mode says. Eager calls
 * are one NPU job; on-demand calls are single-token jobs, one after another. Each call's
 * rows are then sampled on one CPU core (lmhead_done). */
static void submit_lmhead(run *r, int tokens)
{
  ls_lmhead mode = r->ph == PH_PREFILL ? LS_LMHEAD_EAGER_NPU : r->lmhead;
  ls_unit u = mode == LS_LMHEAD_DEMAND_CPU ? LS_UNIT_CPU : LS_UNIT_NPU;
  int64_t ns = ls_costmodel_lmhead_ns(r->cm, u, tokens);
  r->lm_rows = tokens;
  r->lm_sampling = 0;
  if (u == LS_UNIT_CPU) {
    r->lm_jobs = submit_cpu(r, ns, lmhead_done, r);
  } else {
    r->lm_jobs = 1;
    if (ls_resource_submit(r->ds->npu, ns, lmhead_done, r, r->err))
      fail(r, r->err->code);
  }
}

static void lmhead_done(ls_engine *e, void *ctx)
{
  (void)e;
  run *r = ctx;
  if (--r->lm_jobs > 0)
    return; /* a CPU call ends when every thread's share is done */
  if (!r->lm_sampling) { /* sample the projected rows on one core (fastest cluster) */
    r->lm_sampling = 1;
    r->lm_jobs = 1;
    int64_t ns = (int64_t)llround(r->lm_rows * ls_costmodel_sample_row_s(r->cm) * 1e9);
    if (ls_resource_submit(r->ds->cpu[0], ns, lmhead_done, r, r->err))
      fail(r, r->err->code);
    return;
  }
  if (--r->lm_left > 0)
    submit_lmhead(r, 1); /* on demand: the next accepted token's projection */
  else
    cycle_end(r);
}

static void start_lmhead(run *r)
{
  r->t_layers_end = ls_engine_now(r->eng);
  r->verifying = 0;
  if (r->ph == PH_DECODE) {
    accept_walk(r);
    for (int i = 0; i < r->n_acc; i++) /* lossless: the target never takes a removed node */
      r->accepted_pruned += !r->keep[r->accepted_nodes[i]];
  }
  int eager = r->ph == PH_PREFILL || r->lmhead == LS_LMHEAD_EAGER_NPU;
  r->lm_left = eager ? 1 : r->n_acc + 1;
  submit_lmhead(r, eager ? (r->ph == PH_PREFILL ? 1 : r->n_live) : 1);
}

static void try_compute(run *r)
{
  if (r->failed || r->npu_running)
    return;
  int l = r->next_layer;
  if (l > r->L || !ready(r, l))
    return;
  int64_t now = ls_engine_now(r->eng);
  if (now > r->npu_free_at)
    r->io_wait += now - r->npu_free_at; /* the NPU sat idle only for want of weights */
  r->npu_free_at = now;
  if (l == r->L) {
    r->next_layer++;
    start_lmhead(r);
    return;
  }
  r->npu_running = 1;
  int64_t ns = target_layer_ns(r, tokens_at_layer(r));
  r->compute_ns += ns;
  if (ls_resource_submit(r->ds->npu, ns, layer_done, r, r->err))
    fail(r, r->err->code);
}

/* ---- cycles and prompts ---- */

static void cycle_start(ls_engine *e, void *ctx)
{
  (void)e;
  run *r = ctx;
  r->t_cycle = ls_engine_now(r->eng);
  text_begin(r);
  ls_costmodel_set_ctx(r->cm, r->ctx_len);
  int rc = r->dops->build(r->dstate, &r->tree, &r->view, &r->cost, r->err);
  if (rc) {
    fail(r, rc);
    return;
  }
  memset(r->keep, 1, (size_t)r->tree.n);
  r->n_live = r->tree.n;
  draft_begin(r);
}

static void record_cycle(run *r, int64_t now, int tau, int emit)
{
  double d = (double)(r->t_verify - r->t_cycle), v = (double)(r->t_layers_end - r->t_verify);
  double lm = (double)(now - r->t_layers_end), total = (double)(now - r->t_cycle);
  ls_stats_add(&r->cycle_draft, d * 1e-9);
  ls_stats_add(&r->draft_work_s, (double)r->draft_work * 1e-9);
  ls_stats_add(&r->cycle_verify, v * 1e-9);
  ls_stats_add(&r->cycle_lmhead, lm * 1e-9);
  ls_stats_add(&r->tree_size, r->tree.n);
  ls_stats_add(&r->verify_tokens, (double)r->token_layers / r->L);
  ls_stats_add(&r->tau, tau);
  r->decode_ns += total;
  r->io_wait_ns += (double)r->io_wait;
  r->verify_ns_total += v + lm;
  r->token_layers_total += (double)r->token_layers;
  r->compute_total += (double)r->compute_ns;
  r->useful_compute += (double)target_layer_ns(r, r->n_acc + 1) * r->L;
  r->useful_token_layers += (double)(r->n_acc + 1) * r->L;
  r->cycles++;
  for (int k = 0; k < emit; k++) /* only tokens actually emitted (the last cycle may cut) */
    ls_sample_add(r->tok_lat, total * 1e-9 / tau);
  ls_decode_result *res = r->res;
  if (r->keep_steps) {
    if (res->n_steps == res->cap_steps) {
      int cap = res->cap_steps ? 2 * res->cap_steps : 256;
      ls_db_step *s = realloc(res->steps, (size_t)cap * sizeof *s);
      if (!s) {
        fail(r, LS_ENOMEM);
        return;
      }
      res->steps = s;
      res->cap_steps = cap;
    }
    res->steps[res->n_steps] = (ls_db_step){(int)r->cycles, r->tree.n, r->n_live, r->n_acc,
                                            d * 1e-9, v * 1e-9, lm * 1e-9};
    res->n_steps++;
  }
}

static void prompt_end(run *r);

static void cycle_end(run *r)
{
  int64_t now = ls_engine_now(r->eng);
  if (r->ph == PH_PREFILL) {
    ls_stats_add(&r->ttft, (double)(now - r->t_prompt_start) * 1e-9);
    r->ph = PH_DECODE;
    r->ctx_len = r->prefill_tokens;
    r->pos = r->prefill_tokens; /* the first token comes out of prefill */
    r->produced = 1;
    r->npu_busy0 = (double)ls_resource_busy_ns(r->ds->npu);
    r->cpu_busy0 = 0;
    for (int c = 0; c < r->ds->n_cpu; c++)
      r->cpu_busy0 += (double)ls_resource_busy_ns(r->ds->cpu[c]);
    r->flash_busy0 = (double)ls_flash_dev_link_busy_ns(r->ds->flash);
    ls_energy en;
    ls_devsim_energy(r->ds, r->dev, now, &en);
    r->energy0 = en.total_j;
    r->t_prompt_start = now;
  } else {
    int tau = r->n_acc + 1;
    int emit = tau < r->target_len - r->produced ? tau : r->target_len - r->produced;
    record_cycle(r, now, tau, emit);
    if (r->dops->feedback)
      r->dops->feedback(r->dstate, &r->tree, r->accepted_nodes, r->n_acc);
    /* what the runtime has observed so far prices on-demand output projections */
    ls_costmodel_set_tau(r->cm, r->tau.mean);
    r->tokens += emit;
    r->produced += emit;
    r->pos += tau;
    r->ctx_len += tau;
  }
  if (r->failed)
    return;
  if (r->overlap == LS_OVERLAP_CROSS && !r->in_dram) { /* the next pass's first reads start now */
    stream_reset(r);
    r->carry = 1;
    issue_reads(r);
  }
  if (r->produced < r->target_len) {
    if (ls_engine_schedule_in(r->eng, 0, cycle_start, r, NULL, r->err))
      fail(r, r->err->code);
    return;
  }
  prompt_end(r);
}

static void prompt_end(run *r)
{
  int64_t now = ls_engine_now(r->eng);
  double cpu = 0;
  for (int c = 0; c < r->ds->n_cpu; c++)
    cpu += (double)ls_resource_busy_ns(r->ds->cpu[c]);
  r->npu_busy += (double)ls_resource_busy_ns(r->ds->npu) - r->npu_busy0;
  r->cpu_busy += cpu - r->cpu_busy0;
  r->flash_busy += (double)ls_flash_dev_link_busy_ns(r->ds->flash) - r->flash_busy0;
  ls_energy en;
  ls_devsim_energy(r->ds, r->dev, now, &en);
  r->decode_energy += en.total_j - r->energy0;
  if (++r->prompt < text_prompts(r))
    prompt_start(r);
}

static void prompt_start(run *r)
{
  r->ph = PH_PREFILL;
  r->t_prompt_start = ls_engine_now(r->eng);
  r->prefill_tokens = r->trace ? ls_trace_prompt_len(r->trace, r->prompt)
                              : ls_oracle_prompt_len(r->oracle, r->prompt);
  int out = ls_oracle_output_len(r->oracle, r->prompt);
  if (r->trace) { /* the recorded answer length, and never past the recorded positions */
    int rec = ls_trace_positions(r->trace, r->prompt);
    out = ls_trace_output_len(r->trace, r->prompt);
    out = out < rec ? out : rec;
  }
  r->target_len = out < r->max_tokens ? out : r->max_tokens;
  r->ctx_len = r->prefill_tokens / 2; /* prefill attends to half the prompt on average */
  r->produced = 0;
  r->n_acc = 0;
  r->tree.n = 1;
  verify_begin(r);
}

/* ---- set-up, metrics, tear-down ---- */

/* The settings one system sees: unscoped keys, plus "SYSTEM:key" keys of this system
 * (scoped ones win), so an experiment can give one system a policy setting that the other
 * systems of the same matrix do not read. A scope naming no system is an error. */
static int scoped_settings(const ls_kv *in, const char *system, ls_kv **out, ls_error *err)
{
  int rc = ls_kv_create(out, err);
  for (int pass = 0; pass < 2 && rc == LS_OK; pass++)
    for (int i = 0; i < ls_kv_count(in) && rc == LS_OK; i++) {
      const char *key = ls_kv_key(in, i), *colon = strchr(key, ':');
      if (pass == 0 && !colon)
        rc = ls_kv_set(*out, key, ls_kv_value(in, i), ls_kv_origin(in, i), err);
      if (pass == 0 || !colon)
        continue;
      char scope[64];
      snprintf(scope, sizeof scope, "%.*s", (int)(colon - key), key);
      if (!ls_system_find(scope))
        rc = ls_error_set(err, LS_EUSAGE, "%s: unknown system '%s' in a scoped setting", key, scope);
      else if (strcmp(scope, system) == 0)
        rc = ls_kv_set(*out, colon + 1, ls_kv_value(in, i), ls_kv_origin(in, i), err);
    }
  return rc;
}

static int has_prefix(const ls_kv *kv, const char *prefix)
{
  for (int i = 0; i < ls_kv_count(kv); i++)
    if (strncmp(ls_kv_key(kv, i), prefix, strlen(prefix)) == 0)
      return 1;
  return 0;
}

static int pick_policies(run *r, const ls_system *sys, ls_kv *kv, ls_error *err)
{
  const char *d, *p, *m;
  ls_kv_string(kv, "policy.draft", sys->draft, &d);
  ls_kv_string(kv, "policy.prune", sys->prune, &p);
  ls_kv_string(kv, "policy.map", sys->map, &m);
  r->dops = ls_draft_find(d);
  r->pops = ls_prune_find(p);
  r->mops = ls_map_find(m);
  if (!r->dops)
    return ls_error_set(err, LS_ENOTFOUND, "policy.draft=%s: unknown draft policy", d);
  if (!r->pops)
    return ls_error_set(err, LS_ENOTFOUND, "policy.prune=%s: unknown prune policy", p);
  if (!r->mops)
    return ls_error_set(err, LS_ENOTFOUND, "policy.map=%s: unknown map policy", m);
  int rc = r->dops->create(&r->dstate, kv, err);
  if (!rc) rc = r->pops->create(&r->pstate, kv, err);
  if (!rc) rc = r->mops->create(&r->mstate, kv, err);
  return rc;
}

static int load_inputs(run *r, ls_decode_cache *c, ls_run_spec *s, ls_kv *kv, ls_error *err)
{
  void *obj;
  const char *quant, *draft_id, *dquant;
  int rc = cache_get(c, c->dev, &c->n_dev, s->device, load_dev, &obj, err);
  if (!rc) rc = ls_device_clone(&r->dev, obj, err);
  if (!rc && has_prefix(kv, "device."))
    rc = ls_device_apply(r->dev, kv, err);
  if (!rc) rc = cache_get(c, c->mod, &c->n_mod, s->model, load_mod, &obj, err);
  if (rc)
    return rc;
  r->target = obj;
  if (!ls_model_is_target(r->target))
    return ls_error_set(err, LS_EINVALID, "model '%s' is a draft model, not a target", s->model);
  ls_kv_string(kv, "model.draft", ls_model_default_draft(r->target), &draft_id);
  ls_kv_string(kv, "model.quant", NULL, &quant);
  ls_kv_string(kv, "model.draft_quant", NULL, &dquant);
  rc = cache_get(c, c->mod, &c->n_mod, draft_id, load_mod, &obj, err);
  if (rc)
    return rc;
  r->draft = obj;
  rc = ls_model_costs_get(r->target, quant, &r->tc, err);
  if (!rc) rc = ls_model_costs_get(r->draft, dquant, &r->dc, err);
  if (!rc) rc = cache_get(c, c->ds, &c->n_ds, s->dataset, load_ds, &obj, err);
  if (!rc) rc = ls_oracle_create(&r->oracle, obj, r->target, r->draft, s->seed, kv, err);
  const char *trace_path;
  ls_kv_string(kv, "workload.trace", NULL, &trace_path);
  if (!rc && trace_path)
    rc = ls_trace_read(&r->trace, trace_path, err);
  const char *rec = r->trace ? ls_trace_meta(r->trace, "target") : NULL;
  if (!rc && rec && strcmp(rec, s->model) != 0) /* a trace is one target's behaviour */
    rc = ls_error_set(err, LS_EINVALID, "workload.trace=%s was recorded with target %s, not %s",
                      trace_path, rec, s->model);
  r->tw = ls_costmodel_layer_work(&r->tc);
  r->L = r->tc.n_layers;
  return rc;
}

/* Execution settings (see the top comment):
 *   verify.overlap = serial | prefetch | cross-cycle (default serial: the paper's stack is
 *     llama.cpp-style Q4_0 with weights mapped from flash, where a layer's compute faults its
 *     weights in, so reads and compute alternate; src:lever-html, src:llamacpp-snapdragon;
 *     the other modes are studied in the sensitivity part and the regime map);
 *   verify.head_memory = auto | dram | flash: where the output projection's weights live
 *     (auto: in app DRAM when the CPU computes it, charged to the resident budget; streamed
 *     with the layers when the NPU graph computes it, which needs NPU-mapped memory). */
static int read_exec(run *r, ls_kv *kv, ls_error *err)
{
  static const char *const MEM[] = {"auto", "dram", "flash", NULL};
  int ov = LS_OVERLAP_SERIAL, mem = 0;
  int rc = ls_kv_enum(kv, "verify.overlap", ls_overlap_names, ov, &ov, err);
  if (!rc) rc = ls_kv_enum(kv, "verify.head_memory", MEM, mem, &mem, err);
  r->overlap = (ls_overlap)ov;
  r->buffers = r->overlap == LS_OVERLAP_SERIAL ? 1 : 2;
  r->lmhead = r->mops->lmhead(r->mstate);
  r->head_in_dram = mem == 0 ? r->lmhead == LS_LMHEAD_DEMAND_CPU : mem == 1;
  return rc;
}

/* Resident target layers: what the DRAM budget holds after the draft model, whole layers,
 * first layers first (see the top comment). */
static int residency(run *r, const ls_system *sys, ls_decode_result *out)
{
  const ls_dram_params *d = ls_device_dram(r->dev);
  if (sys->target_in_dram) {
    double need = r->tc.total_bytes;
    if (need > d->app_budget) {
      out->valid = 0;
      snprintf(out->message, sizeof out->message,
               "%s: target needs %.2f GB, more than the app's DRAM budget of %.2f GB on %s",
               sys->name, need * 1e-9, d->app_budget * 1e-9, ls_device_id(r->dev));
      return 0;
    }
    r->in_dram = 1;
    r->resident = r->L;
    return 1;
  }
  double room = ls_dram_resident_budget(d);
  double left = d->app_budget - r->dc.total_bytes;
  if (left < room)
    room = left;
  if (r->head_in_dram) /* a head kept in app memory takes its place in the budget first */
    room -= r->tc.lmhead_bytes;
  int n = room > 0 ? (int)floor(room / r->tc.layer_bytes) : 0;
  r->resident = n < r->L ? n : r->L;
  return 1;
}

static void add_metric(ls_decode_result *o, const char *name, double v, const char *unit)
{
  if (o->n_metrics < LS_DECODE_MAX_METRICS)
    o->metrics[o->n_metrics++] = (ls_db_metric){name, v, unit};
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

static void metrics(run *r, ls_decode_result *o)
{
  double dec_s = r->decode_ns * 1e-9;
  int cores = ls_cpu_total_cores(ls_device_cpu(r->dev));
  add_metric(o, "throughput_tps", ratio((double)r->tokens, dec_s), "tok/s");
  add_metric(o, "tau", r->tau.mean, "tok/cycle");
  add_metric(o, "ttft_s", r->ttft.mean, "s");
  add_metric(o, "token_latency_p50_s", ls_sample_quantile(r->tok_lat, 0.5), "s");
  add_metric(o, "token_latency_p99_s", ls_sample_quantile(r->tok_lat, 0.99), "s");
  add_metric(o, "io_share", ratio(r->io_wait_ns, r->verify_ns_total), "ratio");
  add_metric(o, "wasted_verify", 1.0 - ratio(r->useful_compute, r->compute_total), "ratio");
  /* DESIGN.md section 5's token measure, beside the compute-time one above */
  add_metric(o, "wasted_verify_tokens", 1.0 - ratio(r->useful_token_layers, r->token_layers_total), "ratio");
  add_metric(o, "util_npu", ratio(r->npu_busy, r->decode_ns), "ratio");
  add_metric(o, "util_cpu", ratio(r->cpu_busy, r->decode_ns * cores), "ratio");
  add_metric(o, "util_flash", ratio(r->flash_busy, r->decode_ns), "ratio");
  add_metric(o, "energy_per_token_j", ratio(r->decode_energy, (double)r->tokens), "J/tok");
  add_metric(o, "share_draft", ratio(r->cycle_draft.sum, dec_s), "ratio");
  add_metric(o, "share_verify", ratio(r->cycle_verify.sum, dec_s), "ratio");
  add_metric(o, "share_lmhead", ratio(r->cycle_lmhead.sum, dec_s), "ratio");
  add_metric(o, "verify_s_mean", r->cycle_verify.mean + r->cycle_lmhead.mean, "s");
  add_metric(o, "draft_s_mean", r->cycle_draft.mean, "s");
  /* the passes' durations added up: above draft_s_mean when CPU and NPU passes overlapped */
  add_metric(o, "draft_work_s_mean", r->draft_work_s.mean, "s");
  add_metric(o, "lmhead_s_mean", r->cycle_lmhead.mean, "s");
  add_metric(o, "tree_size_mean", r->tree_size.mean, "tok");
  add_metric(o, "verify_tokens_mean", r->verify_tokens.mean, "tok");
  add_metric(o, "cycles", (double)r->cycles, "count");
  add_metric(o, "tokens", (double)r->tokens, "tok");
  add_metric(o, "target_calls_per_token", ratio((double)r->cycles, (double)r->tokens), "ratio");
  add_metric(o, "decode_s", dec_s, "s");
  add_metric(o, "resident_layers", r->resident, "count");
  add_metric(o, "prune_calls", (double)r->prune_calls, "count");
  add_metric(o, "accepted_pruned", (double)r->accepted_pruned, "count");
}

static void free_run(run *r)
{
  if (r->dops && r->dstate) r->dops->destroy(r->dstate);
  if (r->pops && r->pstate) r->pops->destroy(r->pstate);
  if (r->mops && r->mstate) r->mops->destroy(r->mstate);
  ls_costmodel_free(r->cm);
  ls_oracle_free(r->oracle);
  ls_trace_free(r->trace);
  ls_devsim_free(r->ds);
  ls_engine_free(r->eng);
  ls_sample_free(r->tok_lat);
  ls_device_free(r->dev);
}

static int simulate(run *r, ls_decode_cache *c, ls_run_spec *s, ls_error *err)
{
  int rc = ls_engine_create(&r->eng, err);
  if (!rc) rc = ls_devsim_create(&r->ds, r->dev, r->eng, s->seed, 0, err);
  if (!rc) rc = ls_sample_create(&r->tok_lat, err);
  if (rc)
    return rc;
  r->err = err;
  r->prompt = 0;
  prompt_start(r);
  uint64_t budget = LS_RUN_EVENTS_PER_TOKEN * (uint64_t)r->max_tokens * (uint64_t)text_prompts(r);
  ls_engine_set_bounds(r->eng, c->stop, budget);
  ls_engine_run(r->eng);
  if (r->failed)
    return r->failed;
  if (ls_engine_halted(r->eng) == LS_EINTR)
    return ls_error_set(err, LS_EINTR, "interrupted");
  if (ls_engine_halted(r->eng))
    return ls_error_set(err, LS_EINVALID, "model '%s' is too large to simulate: more than %llu "
                        "simulated events per generated token (leversim's limit of one run); "
                        "check its arch", ls_model_id(r->target),
                        (unsigned long long)LS_RUN_EVENTS_PER_TOKEN);
  if (r->prompt < text_prompts(r))
    return ls_error_set(err, LS_ESTATE, "decode: the simulation stalled in prompt %d", r->prompt);
  return LS_OK;
}

int ls_decode_run(ls_decode_cache *c, ls_run_spec *s, int keep_steps, ls_decode_result *out,
                  ls_error *err)
{
  memset(out, 0, sizeof *out);
  out->valid = 1;
  const ls_system *sys = ls_system_find(s->system);
  if (!sys)
    return ls_error_set(err, LS_ENOTFOUND, "unknown system '%s'", s->system);
  run *r = calloc(1, sizeof *r);
  if (!r)
    return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  r->res = out;
  r->keep_steps = keep_steps;
  long max_tokens = 0, threads = 0;
  ls_kv *kv = NULL;
  int rc = scoped_settings(s->settings, s->system, &kv, err);
  if (!rc) rc = ls_kv_int(kv, "workload.max_tokens", 1, 1000000, 128, &max_tokens, err);
  if (!rc) rc = load_inputs(r, c, s, kv, err);
  if (!rc) rc = ls_kv_int(kv, "run.threads", 1, 64, ls_device_cpu(r->dev)->default_threads, &threads, err);
  if (!rc) rc = pick_policies(r, sys, kv, err);
  if (!rc) rc = read_exec(r, kv, err);
  if (!rc) rc = ls_kv_check_used(kv, "", err);
  r->max_tokens = (int)max_tokens;
  r->threads = (int)threads;
  if (!rc && residency(r, sys, out)) {
    r->exit_layer = r->pops->exit_layer(r->pstate, r->L);
    if (r->exit_layer <= 0)
      r->exit_layer = r->L; /* never prunes */
    rc = ls_costmodel_create(&r->cm, r->dev, &r->tc, &r->dc, r->mops, r->mstate, r->resident, r->threads, err);
    if (!rc) {
      ls_costmodel_set_exec(r->cm, r->overlap, r->head_in_dram);
      ls_costmodel_bind(r->cm, &r->cost);
      rc = simulate(r, c, s, err);
    }
    if (!rc)
      metrics(r, out);
  }
  snprintf(out->config_json, sizeof out->config_json,
           "{\"draft\":\"%s\",\"prune\":\"%s\",\"map\":\"%s\",\"draft_model\":\"%s\","
           "\"resident_layers\":%d,\"exit_layer\":%d,\"threads\":%d,\"overlap\":\"%s\",\"head_in_dram\":%d}",
           r->dops ? r->dops->name : "", r->pops ? r->pops->name : "", r->mops ? r->mops->name : "",
           r->draft ? ls_model_id(r->draft) : "", r->resident, r->exit_layer, r->threads,
           ls_overlap_names[r->overlap], r->head_in_dram);
  free_run(r);
  free(r);
  ls_kv_free(kv);
  return rc;
}

void ls_decode_result_free(ls_decode_result *r)
{
  if (!r)
    return;
  free(r->steps);
  r->steps = NULL;
  r->n_steps = r->cap_steps = 0;
}
