/* runner/cycle_account: where a decode cycle starts and ends, where a prompt starts and
 * ends, and the accounting of each cycle (see decode.c for the whole cycle).
 *
 * Prompt start: prefill is one verification pass over the prompt (cycle_verify.c, then an
 * eager output projection in cycle_lmhead.c); its end gives the time to first token, and the
 * busy and energy counters are read so that decode is measured on its own.
 * Cycle start: the text (oracle or trace) gives this position's candidates, the draft policy
 * builds the tree, and the draft stage begins (cycle_draft.c).
 * Cycle end, after the output projection (cycle_lmhead.c): the cycle is recorded, the draft
 * policy gets its feedback, the context grows by tau, and the next cycle (or the prompt's end)
 * follows. In cross-cycle overlap the next pass's first flash reads are issued here.
 * What a cycle adds to the run's measures (decode.c turns them into metrics):
 *   draft / verify / LM head time: cycle start -> verification start -> last layer done ->
 *     cycle end.
 *   I/O share = time the NPU waits for flash / verification wall time.
 *   Wasted verification compute = the share of the target's layer compute time spent beyond
 *     what verifying only the useful tokens (root + accepted nodes) would have cost:
 *       1 - sum_l t_l(useful) / sum_l t_l(n_l),  t_l from the NPU batch curve.
 *     It is measured in compute time, not token counts, because the NPU's cost per extra
 *     token is far below one token's (batch curve): this is the quantity the paper's "about
 *     20 %" can refer to (with token counts a 64-node tree would "waste" over 90 %).
 *   Per-token latency: each of the tau tokens of a cycle is charged cycle time / tau.
 * Prompt end: the run's totals minus those at the previous prompt's end are that prompt's
 * sums (ls_db_prompt), the samples of every confidence interval (results/stats.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"
#include "sim/rng.h"

/* The cycle time the policies' cost model gives for the tree just built, as a planner adds it
 * up (policies/draft_lever.c): the draft passes one after another, except two passes that need
 * the same earlier pass and run on different units (a split batch), which take the slower of
 * the two; then verify_s over the tree's tokens. Compared with the simulated cycle at its end
 * (metrics cost_err_median, cost_bias_median): does the planner plan with the cost it is charged? */
static double predicted_cycle_s(const ls_run_state *r)
{
  const ls_tree *t = &r->tree;
  const ls_cost_model *c = &r->cost;
  double d = 0.0;
  for (int s = 0; s < t->n_steps; s++) {
    double a = c->draft_step_s(c->ctx, t->step_nodes[s], t->step_depth[s]);
    if (s + 1 < t->n_steps && t->step_dep[s + 1] == t->step_dep[s] && c->draft_pair_s) {
      ls_draft_exec x = r->mops->draft_step(r->mstate, t->step_nodes[s], t->step_depth[s]);
      ls_draft_exec y = r->mops->draft_step(r->mstate, t->step_nodes[s + 1], t->step_depth[s + 1]);
      if (x.unit != y.unit) {
        double b = c->draft_step_s(c->ctx, t->step_nodes[s + 1], t->step_depth[s + 1]);
        d += a > b ? a : b;
        s++;
        continue;
      }
    }
    d += a;
  }
  return d + c->verify_s(c->ctx, t->n);
}

static void cycle_start(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  r->t_cycle = ls_engine_now(r->eng);
  ls_cyc_text_begin(r);
  r->res->text_hash = ls_key2(r->res->text_hash, r->view.root_key); /* last cycle's bonus token */
  ls_costmodel_set_ctx(r->cm, r->ctx_len);
  int rc = r->dops->build(r->dstate, &r->tree, &r->view, &r->cost, r->err);
  if (rc) {
    ls_cyc_fail(r, rc);
    return;
  }
  memset(r->keep, 1, (size_t)r->tree.n);
  r->n_live = r->tree.n;
  r->cost_pred_s = predicted_cycle_s(r);
  ls_cyc_draft_begin(r);
}

static void record_cycle(ls_run_state *r, int64_t now, int tau, int emit)
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
  r->useful_compute += (double)ls_cyc_layer_ns(r, r->n_acc + 1) * r->L;
  r->useful_token_layers += (double)(r->n_acc + 1) * r->L;
  r->cycles++;
  for (int k = 0; k < emit; k++) /* only tokens actually emitted (the last cycle may cut) */
    ls_sample_add(r->tok_lat, total * 1e-9 / tau);
  double rel = total > 0 ? (r->cost_pred_s - total * 1e-9) / (total * 1e-9) : 0.0;
  if (ls_sample_add(r->cost_err, fabs(rel)) || ls_sample_add(r->cost_bias, rel)) {
    ls_cyc_fail(r, LS_ENOMEM);
    return;
  }
  ls_decode_result *res = r->res;
  if (r->keep_steps) {
    if (res->n_steps == res->cap_steps) {
      int cap = res->cap_steps ? 2 * res->cap_steps : 256;
      ls_db_step *s = realloc(res->steps, (size_t)cap * sizeof *s);
      if (!s) {
        ls_cyc_fail(r, LS_ENOMEM);
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

static void prompt_end(ls_run_state *r);

void ls_cyc_cycle_end(ls_run_state *r)
{
  int64_t now = ls_engine_now(r->eng);
  if (r->ph == LS_PH_PREFILL) {
    ls_stats_add(&r->ttft, (double)(now - r->t_prompt_start) * 1e-9);
    r->ph = LS_PH_DECODE;
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
    for (int i = 0; i < r->n_acc && i < r->target_len - r->produced - 1; i++) /* see decode.h */
      r->res->text_hash = ls_key2(r->res->text_hash, r->tree.key[r->accepted_nodes[i]]);
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
    ls_cyc_stream_reset(r);
    r->carry = 1;
    ls_cyc_issue_reads(r);
  }
  if (r->produced < r->target_len) {
    if (ls_engine_schedule_in(r->eng, 0, cycle_start, r, NULL, r->err))
      ls_cyc_fail(r, r->err->code);
    return;
  }
  prompt_end(r);
}

/* The run's totals so far, in the units of ls_db_prompt. */
static ls_db_prompt run_totals(const ls_run_state *r)
{
  double cores = ls_cpu_total_cores(ls_device_cpu(r->dev));
  return (ls_db_prompt){r->prompt, (double)r->tokens, (double)r->cycles, r->tau.sum,
                        r->decode_ns * 1e-9, r->ttft.sum, r->cycle_draft.sum,
                        r->draft_work_s.sum, r->cycle_verify.sum, r->cycle_lmhead.sum,
                        r->tree_size.sum, r->verify_tokens.sum, r->io_wait_ns * 1e-9,
                        r->compute_total * 1e-9, (r->compute_total - r->useful_compute) * 1e-9,
                        r->token_layers_total, r->token_layers_total - r->useful_token_layers,
                        r->npu_busy * 1e-9, r->cpu_busy * 1e-9 / cores, r->flash_busy * 1e-9,
                        r->decode_energy};
}

/* This prompt's sums = the totals now - the totals at the previous prompt's end. */
static void record_prompt(ls_run_state *r)
{
  ls_decode_result *res = r->res;
  if (res->n_prompts == res->cap_prompts) {
    int cap = res->cap_prompts ? 2 * res->cap_prompts : 16;
    ls_db_prompt *p = realloc(res->prompts, (size_t)cap * sizeof *p);
    if (!p) {
      ls_cyc_fail(r, LS_ENOMEM);
      return;
    }
    res->prompts = p;
    res->cap_prompts = cap;
  }
  ls_db_prompt t = run_totals(r), *b = &r->totals_prev;
  res->prompts[res->n_prompts++] = (ls_db_prompt){
      r->prompt, t.tokens - b->tokens, t.cycles - b->cycles, t.tau_sum - b->tau_sum,
      t.decode_s - b->decode_s, t.ttft_s - b->ttft_s, t.draft_s - b->draft_s,
      t.draft_work_s - b->draft_work_s, t.verify_s - b->verify_s, t.lmhead_s - b->lmhead_s,
      t.tree_nodes - b->tree_nodes, t.verify_tok - b->verify_tok, t.io_wait_s - b->io_wait_s,
      t.compute_s - b->compute_s, t.waste_s - b->waste_s, t.token_layers - b->token_layers,
      t.waste_layers - b->waste_layers, t.npu_busy_s - b->npu_busy_s,
      t.cpu_busy_s - b->cpu_busy_s, t.flash_busy_s - b->flash_busy_s, t.energy_j - b->energy_j};
  *b = t;
}

static void prompt_end(ls_run_state *r)
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
  record_prompt(r);
  if (++r->prompt < ls_cyc_text_prompts(r))
    ls_cyc_prompt_start(r);
}

void ls_cyc_prompt_start(ls_run_state *r)
{
  r->ph = LS_PH_PREFILL;
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
  ls_cyc_verify_begin(r);
}

