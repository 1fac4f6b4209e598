/* runner/cycle_lmhead: the LM HEAD stage of a decode cycle (see decode.c for the whole cycle).
 *
 * Comes after the target's layers and the acceptance walk (cycle_verify.c). The output
 * projection is eager (NPU, every surviving node, part of the pass; always so for a prompt's
 * prefill) or on demand (after the acceptance walk, one single-token projection per accepted
 * token + bonus, in sequence, on the CPU or the NPU). Each call's rows are then sampled on one
 * CPU core. When the last call is sampled, the cycle ends (cycle_account.c).
 *
 * Inline (head_inline): when nothing is pending in the engine (so every resource is idle:
 * a busy server always has its completion pending) and the flash device is on the recurrence
 * and idle (device.flash.sim=events keeps this stage on the events, as it keeps the passes,
 * for the test that compares the two), the stage is a chain with nothing to meet it: call i
 * starts when call i - 1's sampling ends, its jobs all start at once on idle servers (a CPU
 * call's cores per cluster at most the cluster's, else it queues and the chain is left to the
 * events) and end after the call's time, then its rows are sampled on one core. The chain is
 * computed on its own clock: the phase edges entered in the events' order, the jobs booked on
 * their resources (ls_resource_book: the same busy time and job counts, read only after the
 * stage ends), and the cycle's end one engine event at the last sampling's end, the instant
 * the events end it. About a dozen events a Lever cycle (each accepted token's projection and
 * sampling) become one. */
#include <inttypes.h>
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

/* Whether the stage may run inline (see the top). */
static int head_can_inline(const ls_run_state *r)
{
  if (ls_engine_pending(r->eng) != 0 || !ls_flash_dev_can_read_alone(r->ds->flash) ||
      ls_resource_in_service(r->ds->npu) != 0)
    return 0;
  for (int c = 0; c < r->ds->n_cpu; c++)
    if (ls_resource_in_service(r->ds->cpu[c]) != 0 || r->cfg.cpu_per[c] > ls_resource_capacity(r->ds->cpu[c]))
      return 0;
  return 1;
}

static void head_end(ls_engine *e, void *ctx)
{
  (void)e;
  ls_cyc_cycle_end(ctx);
}

/* t + ns, or -1 (the run failed) when ns is negative or the sum would overflow. */
static int64_t head_after(ls_run_state *r, int64_t t, int64_t ns)
{
  if (ns >= 0 && ns <= INT64_MAX - t)
    return t + ns;
  ls_cyc_fail(r, ls_error_set(r->err, LS_ERANGE, "decode: an output-projection job of %" PRId64 " ns at t=%" PRId64 " ns is out of range", ns, t));
  return -1;
}

/* The stage from its first call (HEAD entered, `tokens` rows) as one recurrence (see the
 * top): the same calls, times, phase edges and books as submit_lmhead and lmhead_done. */
static void head_inline(ls_run_state *r, int tokens)
{
  int64_t t = ls_engine_now(r->eng), cpu_ns[LS_CPU_MAX_CLUSTERS] = {0}, npu_ns = 0;
  uint64_t cpu_jobs[LS_CPU_MAX_CLUSTERS] = {0}, npu_jobs = 0;
  int prefill = ls_phase_prefill(r->phase);
  for (;;) {
    ls_lmhead mode = prefill ? LS_LMHEAD_EAGER_NPU : r->cfg.lmhead;
    ls_unit u = mode == LS_LMHEAD_DEMAND_CPU ? LS_UNIT_CPU : LS_UNIT_NPU;
    int64_t ns = ls_costmodel_lmhead_ns(r->cfg.cm, u, tokens);
    r->head.rows = tokens;
    for (int c = 0; u == LS_UNIT_CPU && c < r->ds->n_cpu; c++) {
      cpu_ns[c] += r->cfg.cpu_per[c] * ns;
      cpu_jobs[c] += (uint64_t)r->cfg.cpu_per[c];
    }
    npu_ns += u == LS_UNIT_NPU ? ns : 0;
    npu_jobs += u == LS_UNIT_NPU;
    if ((t = head_after(r, t, ns)) < 0 || ls_cyc_enter(r, prefill ? LS_PHASE_PREFILL_SAMPLE : LS_PHASE_SAMPLE))
      return;
    int64_t ns_s = (int64_t)llround(r->head.rows * ls_costmodel_sample_row_s(r->cfg.cm) * 1e9);
    cpu_ns[0] += ns_s;
    cpu_jobs[0]++;
    if ((t = head_after(r, t, ns_s)) < 0)
      return;
    if (--r->head.left == 0)
      break;
    if (ls_cyc_enter(r, LS_PHASE_HEAD))
      return;
    tokens = 1;
  }
  r->head.jobs = 0;
  int rc = ls_resource_book(r->ds->npu, npu_ns, npu_jobs, r->err);
  for (int c = 0; c < r->ds->n_cpu && !rc; c++)
    rc = ls_resource_book(r->ds->cpu[c], cpu_ns[c], cpu_jobs[c], r->err);
  if (rc || ls_engine_schedule(r->eng, t, head_end, r, NULL, r->err))
    ls_cyc_fail(r, r->err->code);
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
  int tokens = eager ? (prefill ? 1 : r->cand.n_live) : 1;
  if (head_can_inline(r))
    head_inline(r, tokens);
  else
    submit_lmhead(r, tokens);
}
