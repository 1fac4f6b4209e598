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
double ls_cyc_predicted_s(const ls_tree *t, const ls_cost_model *c, const ls_map_ops *m, const void *mstate)
{
  double d = 0.0;
  for (int s = 0; s < t->n_steps; s++) {
    double a = c->draft_step_s(c->ctx, t->step_nodes[s], t->step_depth[s]);
    if (s + 1 < t->n_steps && t->step_dep[s + 1] == t->step_dep[s] && c->draft_pair_s) {
      ls_draft_exec x = m->draft_step(mstate, t->step_nodes[s], t->step_depth[s]);
      ls_draft_exec y = m->draft_step(mstate, t->step_nodes[s + 1], t->step_depth[s + 1]);
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
  if (ls_cyc_enter(r, LS_PHASE_DRAFT))
    return;
  r->acct.t_cycle = ls_engine_now(r->eng);
  ls_cyc_text_begin(r);
  r->res->text_hash = ls_key2(r->res->text_hash, r->text.view.root_key); /* last cycle's bonus token */
  ls_costmodel_set_ctx(r->cfg.cm, r->seq.ctx_len);
  int rc = r->cfg.dops->build(r->cfg.dstate, &r->cand.tree, &r->text.view, &r->cfg.cost, r->err);
  if (rc) {
    ls_cyc_fail(r, rc);
    return;
  }
  memset(r->cand.keep, 1, (size_t)r->cand.tree.n);
  r->cand.n_live = r->cand.tree.n;
  r->acct.cost_pred_s = ls_cyc_predicted_s(&r->cand.tree, &r->cfg.cost, r->cfg.mops, r->cfg.mstate);
  ls_cyc_draft_begin(r);
}

static void record_cycle(ls_run_state *r, int64_t now, int tau, int emit)
{
  double d = (double)(r->verify.t_verify - r->acct.t_cycle), v = (double)(r->verify.t_layers_end - r->verify.t_verify);
  double lm = (double)(now - r->verify.t_layers_end), total = (double)(now - r->acct.t_cycle);
  ls_stats_add(&r->acct.cycle_draft, d * 1e-9);
  ls_stats_add(&r->acct.draft_work_s, (double)r->drafting.draft_work * 1e-9);
  ls_stats_add(&r->acct.cycle_verify, v * 1e-9);
  ls_stats_add(&r->acct.cycle_lmhead, lm * 1e-9);
  ls_stats_add(&r->acct.tree_size, r->cand.tree.n);
  ls_stats_add(&r->acct.verify_tokens, (double)r->verify.token_layers / r->cfg.L);
  ls_stats_add(&r->acct.tau, tau);
  r->acct.decode_ns += total;
  r->acct.io_wait_ns += (double)r->verify.io_wait;
  r->acct.verify_ns_total += v + lm;
  r->acct.token_layers_total += (double)r->verify.token_layers;
  r->acct.compute_total += (double)r->verify.compute_ns;
  r->acct.useful_compute += (double)ls_cyc_layer_ns(r, r->cand.n_acc + 1) * r->cfg.L;
  r->acct.useful_token_layers += (double)(r->cand.n_acc + 1) * r->cfg.L;
  r->acct.cycles++;
  for (int k = 0; k < emit; k++) /* only tokens actually emitted (the last cycle may cut) */
    ls_sample_add(r->acct.tok_lat, total * 1e-9 / tau);
  double rel = total > 0 ? (r->acct.cost_pred_s - total * 1e-9) / (total * 1e-9) : 0.0;
  if (ls_sample_add(r->acct.cost_err, fabs(rel)) || ls_sample_add(r->acct.cost_bias, rel)) {
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
    res->steps[res->n_steps] = (ls_db_step){(int)r->acct.cycles, r->cand.tree.n, r->cand.n_live, r->cand.n_acc,
                                            d * 1e-9, v * 1e-9, lm * 1e-9};
    res->n_steps++;
  }
}

static void prompt_end(ls_run_state *r);

void ls_cyc_cycle_end(ls_run_state *r)
{
  int64_t now = ls_engine_now(r->eng);
  int prefill = ls_phase_prefill(r->phase);
  if (ls_cyc_enter(r, LS_PHASE_COMMIT))
    return;
  if (prefill) {
    ls_stats_add(&r->acct.ttft, (double)(now - r->seq.t_prompt_start) * 1e-9);
    r->seq.ctx_len = r->seq.prefill_tokens;
    r->seq.pos = r->seq.prefill_tokens; /* the first token comes out of prefill */
    r->seq.produced = 1;
    r->acct.npu_busy0 = (double)ls_resource_busy_ns(r->ds->npu);
    r->acct.cpu_busy0 = 0;
    for (int c = 0; c < r->ds->n_cpu; c++)
      r->acct.cpu_busy0 += (double)ls_resource_busy_ns(r->ds->cpu[c]);
    r->acct.flash_busy0 = (double)ls_flash_dev_link_busy_ns(r->ds->flash);
    ls_energy en;
    ls_devsim_energy(r->ds, r->cfg.dev, now, &en);
    r->acct.energy0 = en.total_j;
    r->seq.t_prompt_start = now;
  } else {
    int tau = r->cand.n_acc + 1;
    int emit = tau < r->seq.target_len - r->seq.produced ? tau : r->seq.target_len - r->seq.produced;
    record_cycle(r, now, tau, emit);
    for (int i = 0; i < r->cand.n_acc && i < r->seq.target_len - r->seq.produced - 1; i++) /* see decode.h */
      r->res->text_hash = ls_key2(r->res->text_hash, r->cand.tree.key[r->cand.accepted_nodes[i]]);
    if (r->cfg.dops->feedback)
      r->cfg.dops->feedback(r->cfg.dstate, &r->cand.tree, r->cand.accepted_nodes, r->cand.n_acc);
    /* what the runtime has observed so far prices on-demand output projections */
    ls_costmodel_set_tau(r->cfg.cm, r->acct.tau.mean);
    r->acct.tokens += emit;
    r->seq.produced += emit;
    r->seq.pos += tau;
    r->seq.ctx_len += tau;
  }
  if (r->failed)
    return;
  if (r->cfg.prefetch) /* the next pass's first reads start now */
    ls_cyc_prefetch(r);
  if (r->seq.produced < r->seq.target_len) {
    if (ls_engine_schedule_in(r->eng, 0, cycle_start, r, NULL, r->err))
      ls_cyc_fail(r, r->err->code);
    return;
  }
  prompt_end(r);
}

/* The run's totals so far, in the units of ls_db_prompt. */
static ls_db_prompt run_totals(const ls_run_state *r)
{
  double cores = ls_cpu_total_cores(ls_device_cpu(r->cfg.dev));
  return (ls_db_prompt){r->seq.prompt, (double)r->acct.tokens, (double)r->acct.cycles, r->acct.tau.sum,
                        r->acct.decode_ns * 1e-9, r->acct.ttft.sum, r->acct.cycle_draft.sum,
                        r->acct.draft_work_s.sum, r->acct.cycle_verify.sum, r->acct.cycle_lmhead.sum,
                        r->acct.tree_size.sum, r->acct.verify_tokens.sum, r->acct.io_wait_ns * 1e-9,
                        r->acct.compute_total * 1e-9, (r->acct.compute_total - r->acct.useful_compute) * 1e-9,
                        r->acct.token_layers_total, r->acct.token_layers_total - r->acct.useful_token_layers,
                        r->acct.npu_busy * 1e-9, r->acct.cpu_busy * 1e-9 / cores, r->acct.flash_busy * 1e-9,
                        r->acct.decode_energy};
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
  ls_db_prompt t = run_totals(r), *b = &r->acct.totals_prev;
  res->prompts[res->n_prompts++] = (ls_db_prompt){
      r->seq.prompt, t.tokens - b->tokens, t.cycles - b->cycles, t.tau_sum - b->tau_sum,
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
  r->acct.npu_busy += (double)ls_resource_busy_ns(r->ds->npu) - r->acct.npu_busy0;
  r->acct.cpu_busy += cpu - r->acct.cpu_busy0;
  r->acct.flash_busy += (double)ls_flash_dev_link_busy_ns(r->ds->flash) - r->acct.flash_busy0;
  ls_energy en;
  ls_devsim_energy(r->ds, r->cfg.dev, now, &en);
  r->acct.decode_energy += en.total_j - r->acct.energy0;
  record_prompt(r);
  if (ls_cyc_enter(r, LS_PHASE_IDLE))
    return;
  if (++r->seq.prompt < ls_cyc_text_prompts(r))
    ls_cyc_prompt_start(r);
}

void ls_cyc_prompt_start(ls_run_state *r)
{
  r->seq.t_prompt_start = ls_engine_now(r->eng);
  r->seq.prefill_tokens = r->text.trace ? ls_trace_prompt_len(r->text.trace, r->seq.prompt)
                              : ls_oracle_prompt_len(r->text.oracle, r->seq.prompt);
  int out = ls_oracle_output_len(r->text.oracle, r->seq.prompt);
  if (r->text.trace) { /* the recorded answer length, and never past the recorded positions */
    int rec = ls_trace_positions(r->text.trace, r->seq.prompt);
    out = ls_trace_output_len(r->text.trace, r->seq.prompt);
    out = out < rec ? out : rec;
  }
  r->seq.target_len = out < r->cfg.max_tokens ? out : r->cfg.max_tokens;
  r->seq.ctx_len = r->seq.prefill_tokens / 2; /* prefill attends to half the prompt on average */
  r->seq.produced = 0;
  r->cand.n_acc = 0;
  r->cand.tree.n = 1;
  ls_cyc_verify_begin(r);
}

