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
  ls_lmhead mode = r->ph == LS_PH_PREFILL ? LS_LMHEAD_EAGER_NPU : r->lmhead;
  ls_unit u = mode == LS_LMHEAD_DEMAND_CPU ? LS_UNIT_CPU : LS_UNIT_NPU;
  int64_t ns = ls_costmodel_lmhead_ns(r->cm, u, tokens);
  r->lm_rows = tokens;
  r->lm_sampling = 0;
  if (u == LS_UNIT_CPU) {
    r->lm_jobs = ls_cyc_submit_cpu(r, ns, lmhead_done, r);
  } else {
    r->lm_jobs = 1;
    if (ls_resource_submit(r->ds->npu, ns, lmhead_done, r, r->err))
      ls_cyc_fail(r, r->err->code);
  }
}

static void lmhead_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  if (--r->lm_jobs > 0)
    return; /* a CPU call ends when every thread's share is done */
  if (!r->lm_sampling) { /* sample the projected rows on one core (fastest cluster) */
    r->lm_sampling = 1;
    r->lm_jobs = 1;
    int64_t ns = (int64_t)llround(r->lm_rows * ls_costmodel_sample_row_s(r->cm) * 1e9);
    if (ls_resource_submit(r->ds->cpu[0], ns, lmhead_done, r, r->err))
      ls_cyc_fail(r, r->err->code);
    return;
  }
  if (--r->lm_left > 0)
    submit_lmhead(r, 1); /* on demand: the next accepted token's projection */
  else
    ls_cyc_cycle_end(r);
}

/* The layers are done (and, in decode, the acceptance walk): an eager projection covers every
 * surviving node in one call; on demand, one call per accepted token plus the bonus. */
void ls_cyc_lmhead_begin(ls_run_state *r)
{
  int eager = r->ph == LS_PH_PREFILL || r->lmhead == LS_LMHEAD_EAGER_NPU;
  r->lm_left = eager ? 1 : r->n_acc + 1;
  submit_lmhead(r, eager ? (r->ph == LS_PH_PREFILL ? 1 : r->n_live) : 1);
}
