/* runner/cycle_lmhead: the LM HEAD stage of a decode cycle (see decode.c for the whole cycle).
 *
 * Comes after the target's layers and the acceptance walk (cycle_verify.c). The output
 * projection is eager (NPU, every surviving node, part of the pass; always so for a prompt's
 * prefill) or on demand (after the acceptance walk, one single-token projection per accepted
 * token + bonus, in sequence, on the CPU or the NPU). Each call's rows are then sampled on one
 * CPU core. When the last call is sampled, the cycle ends (cycle_account.c). */
#include <math.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"

static void lmhead_done(ls_engine *e, void *ctx);

/* Submits one output-projection call over `tokens` tokens where the mode says. Eager calls
 * are one NPU job; on-demand calls are single-token jobs, one after another. Each call's
 * rows are then sampled on one CPU core (lmhead_done). */
static void submit_lmhead(ls_run_state *r, int tokens)
{
  ls_lmhead mode = ls_phase_prefill(r->phase) ? LS_LMHEAD_EAGER_NPU : r->cfg.lmhead;
  ls_unit u = mode == LS_LMHEAD_DEMAND_CPU ? LS_UNIT_CPU : LS_UNIT_NPU;
  int64_t ns = ls_costmodel_lmhead_ns(r->cfg.cm, u, tokens);
  r->head.rows = tokens;
  if (u == LS_UNIT_CPU) {
    r->head.jobs = ls_cyc_submit_cpu(r, ns, lmhead_done, r);
  } else {
    r->head.jobs = 1;
    if (ls_resource_submit(r->ds->npu, ns, lmhead_done, r, r->err))
      ls_cyc_fail(r, r->err->code);
  }
}

static void lmhead_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  if (--r->head.jobs > 0)
    return; /* a CPU call ends when every thread's share is done */
  int prefill = ls_phase_prefill(r->phase);
  if (!ls_phase_sampling(r->phase)) { /* sample the projected rows on one core (fastest cluster) */
    if (ls_cyc_enter(r, prefill ? LS_PHASE_PREFILL_SAMPLE : LS_PHASE_SAMPLE))
      return;
    r->head.jobs = 1;
    int64_t ns = (int64_t)llround(r->head.rows * ls_costmodel_sample_row_s(r->cfg.cm) * 1e9);
    if (ls_resource_submit(r->ds->cpu[0], ns, lmhead_done, r, r->err))
      ls_cyc_fail(r, r->err->code);
    return;
  }
  if (--r->head.left > 0) { /* on demand: the next accepted token's projection */
    if (ls_cyc_enter(r, LS_PHASE_HEAD))
      return;
    submit_lmhead(r, 1);
  } else
    ls_cyc_cycle_end(r);
}

/* The layers are done (and, in decode, the acceptance walk): an eager projection covers every
 * surviving node in one call; on demand, one call per accepted token plus the bonus. */
void ls_cyc_lmhead_begin(ls_run_state *r)
{
  int prefill = ls_phase_prefill(r->phase);
  int eager = prefill || r->cfg.lmhead == LS_LMHEAD_EAGER_NPU;
  r->head.left = eager ? 1 : r->cand.n_acc + 1;
  if (ls_cyc_enter(r, prefill ? LS_PHASE_PREFILL_HEAD : LS_PHASE_HEAD))
    return;
  submit_lmhead(r, eager ? (prefill ? 1 : r->cand.n_live) : 1);
}
