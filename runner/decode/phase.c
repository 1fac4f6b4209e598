/* runner/decode/phase: the phases of one run and the transitions between them (phase.h).
 *
 * A run is always in exactly one phase (ls_run_state.phase). The phase is written only by
 * ls_cyc_enter below, which first checks the transition against this table and the
 * destination's invariants (ls_cyc_phase_check); an illegal one fails the run with LS_ESTATE
 * (in every build, release included: the check is a bit test per transition).
 *
 * The phases:
 *   IDLE           no prompt in flight: before the first prompt and after the last one.
 *   PREFETCH       verify.overlap=cross-cycle with streamed weights only: the next pass's
 *                  first flash reads were just issued (at run start or at a commit), before
 *                  the drafting (or the next prompt's prefill) they overlap.
 *   PREFILL_WAIT   the prompt's own pass over the target: waiting for the next item's
 *                  weights (or just begun).  PREFILL_LAYER: one of its layers computes.
 *   PREFILL_HEAD   the prompt's output projection (eager, on the NPU, one row).
 *   PREFILL_SAMPLE its row is sampled on a CPU core; then the first token is committed.
 *   DRAFT          a decode cycle began: the draft policy builds the tree and the draft
 *                  passes run on the CPU and the NPU.
 *   VERIFY_WAIT    the target's pass over the tree: waiting for the next item's weights
 *                  (streamed from flash) or just begun.  VERIFY_LAYER: one of its layers
 *                  computes on the NPU; pruning runs when the exit layer is done.
 *   ACCEPT         the acceptance walk over the kept tree (instantaneous).
 *   HEAD           an output-projection call: eager (every live node, once) or on demand
 *                  (one accepted token per call).  SAMPLE: that call's rows are sampled.
 *   COMMIT         the cycle's tokens are recorded and fed back; the next cycle (or prompt)
 *                  is scheduled.
 *
 * Allowed transitions (from -> to: where in the code, why):
 *
 *   IDLE           -> PREFETCH        run start, cross-cycle: the first pass's reads start
 *   IDLE           -> PREFILL_WAIT    a prompt starts (run start, or after the previous one)
 *   PREFETCH       -> PREFILL_WAIT    the reads issued at a prompt's last commit serve the
 *                                     next prompt's prefill (or the first prompt's)
 *   PREFETCH       -> DRAFT           the next cycle starts while its pass's reads stream
 *   PREFETCH       -> IDLE            the prompt is done (its last commit prefetched)
 *   PREFILL_WAIT   -> PREFILL_LAYER   the next layer's weights are in memory
 *   PREFILL_LAYER  -> PREFILL_WAIT    the layer is done
 *   PREFILL_WAIT   -> PREFILL_HEAD    every layer is done (and the head's weights are in)
 *   PREFILL_HEAD   -> PREFILL_SAMPLE  the projection is done
 *   PREFILL_SAMPLE -> COMMIT          the first token: time to first token is recorded
 *   DRAFT          -> VERIFY_WAIT     the last draft pass is done (at once if the tree has none)
 *   VERIFY_WAIT    -> VERIFY_LAYER    the next layer's weights are in memory
 *   VERIFY_LAYER   -> VERIFY_WAIT     the layer is done (pruned after the exit layer)
 *   VERIFY_WAIT    -> ACCEPT          every layer is done (and the head's weights are in)
 *   ACCEPT         -> HEAD            the walk settled tau; the output projection begins
 *   HEAD           -> SAMPLE          the projection call is done
 *   SAMPLE         -> HEAD            on demand: the next accepted token's projection
 *   SAMPLE         -> COMMIT          the last call is sampled: the cycle ends
 *   COMMIT         -> PREFETCH        cross-cycle: the next pass's first reads start now
 *   COMMIT         -> DRAFT           the next cycle starts
 *   COMMIT         -> IDLE            the prompt is done
 *
 * Every other pair is illegal, a phase included to itself (a stage entered twice). What the
 * old flags meant, now read from the phase (phase.h): "prefill or decode" = ls_phase_prefill;
 * "a pass is computing, arriving reads may start layers" = ls_phase_in_pass; "the NPU runs a
 * layer" = ls_phase_layer; "rows are being sampled" = ls_phase_sampling; "the next pass's
 * reads were issued last cycle" = cfg.prefetch: in cross-cycle mode PREFETCH precedes every
 * pass, the run's first included, so no pass resets its stream when it begins. */
#include "runner/decode/phase.h"
#include "runner/decode/decode_int.h"

#define B(p) (1u << LS_PHASE_##p)
static const unsigned allowed[LS_PHASE_COUNT] = {
    [LS_PHASE_IDLE] = B(PREFETCH) | B(PREFILL_WAIT),
    [LS_PHASE_PREFETCH] = B(PREFILL_WAIT) | B(DRAFT) | B(IDLE),
    [LS_PHASE_PREFILL_WAIT] = B(PREFILL_LAYER) | B(PREFILL_HEAD),
    [LS_PHASE_PREFILL_LAYER] = B(PREFILL_WAIT),
    [LS_PHASE_PREFILL_HEAD] = B(PREFILL_SAMPLE),
    [LS_PHASE_PREFILL_SAMPLE] = B(COMMIT),
    [LS_PHASE_DRAFT] = B(VERIFY_WAIT),
    [LS_PHASE_VERIFY_WAIT] = B(VERIFY_LAYER) | B(ACCEPT),
    [LS_PHASE_VERIFY_LAYER] = B(VERIFY_WAIT),
    [LS_PHASE_ACCEPT] = B(HEAD),
    [LS_PHASE_HEAD] = B(SAMPLE),
    [LS_PHASE_SAMPLE] = B(HEAD) | B(COMMIT),
    [LS_PHASE_COMMIT] = B(PREFETCH) | B(DRAFT) | B(IDLE),
};
#undef B
_Static_assert(LS_PHASE_COUNT <= 32, "a phase's successors are one 32-bit mask");
_Static_assert(LS_PHASE_COUNT <= LS_DECODE_PHASE_SLOTS, "ls_decode_result.phase_edges has a slot per phase");

const char *ls_phase_name(int p)
{
#define LS_PHASE_NAME_(n) #n,
  static const char *const names[] = {LS_PHASE_LIST(LS_PHASE_NAME_)};
#undef LS_PHASE_NAME_
  return p >= 0 && p < LS_PHASE_COUNT ? names[p] : "?";
}

int ls_phase_allowed(int from, int to)
{
  if (from < 0 || from >= LS_PHASE_COUNT || to < 0 || to >= LS_PHASE_COUNT)
    return 0;
  return (allowed[from] >> to) & 1u;
}

/* What must hold on entering `to`, beyond the table: where the pass stands. */
static const char *invariant(const ls_run_state *r, ls_phase to)
{
  int next = r->verify.next_layer, L = r->cfg.L;
  switch (to) {
  case LS_PHASE_PREFILL_WAIT:
  case LS_PHASE_VERIFY_WAIT:
    return next <= L ? NULL : "a pass waits beyond its last item";
  case LS_PHASE_PREFILL_LAYER:
  case LS_PHASE_VERIFY_LAYER:
    return next < L ? NULL : "a layer computes beyond the last layer";
  case LS_PHASE_PREFILL_HEAD:
  case LS_PHASE_ACCEPT:
    return next == L + 1 ? NULL : "the pass ended before its last layer";
  case LS_PHASE_COMMIT:
    return r->head.left == 0 ? NULL : "the cycle ends with projections left";
  case LS_PHASE_IDLE:
    return r->seq.produced >= r->seq.target_len ? NULL : "the prompt ends before its output length";
  default:
    return NULL;
  }
}

int ls_cyc_phase_check(const ls_run_state *r, ls_phase to, ls_error *err)
{
  ls_phase from = r->phase;
  if (!ls_phase_allowed((int)from, (int)to))
    return ls_error_set(err, LS_ESTATE, "decode: illegal phase transition %s -> %s (prompt %d, position %d)",
                        ls_phase_name((int)from), ls_phase_name((int)to), r->seq.prompt, r->seq.pos);
  const char *why = invariant(r, to);
  if (why)
    return ls_error_set(err, LS_ESTATE, "decode: %s -> %s: %s (prompt %d, position %d, layer %d of %d)",
                        ls_phase_name((int)from), ls_phase_name((int)to), why, r->seq.prompt, r->seq.pos,
                        r->verify.next_layer, r->cfg.L);
  return LS_OK;
}

int ls_cyc_enter(ls_run_state *r, ls_phase to)
{
  if (r->failed) /* the first failure stands; the engine is draining */
    return r->failed;
  if (!ls_phase_allowed((int)r->phase, (int)to) || invariant(r, to)) { /* the message */
    ls_error local;
    int rc = ls_cyc_phase_check(r, to, r->err ? r->err : &local);
    ls_cyc_fail(r, rc);
    return rc;
  }
  if (r->res)
    r->res->phase_edges[r->phase] |= 1u << to;
  r->phase = to;
  return LS_OK;
}

/* The two transitions one layer takes, made once for a pass whose layers run in a loop
 * (cycle_verify.c, "Inline passes"): the loop keeps to the same order (a layer starts from
 * WAIT with next_layer < L and returns to WAIT), so what each layer would record is this. */
int ls_cyc_layers_inline(ls_run_state *r)
{
  ls_phase wait = r->phase;
  int rc = ls_cyc_enter(r, wait == LS_PHASE_PREFILL_WAIT ? LS_PHASE_PREFILL_LAYER : LS_PHASE_VERIFY_LAYER);
  return rc ? rc : ls_cyc_enter(r, wait);
}
