/* runner/cycle_verify: the VERIFY and ACCEPT stages of a decode cycle (see decode.c for the
 * whole cycle).
 *
 * Comes after the last draft pass (cycle_draft.c); a prompt's prefill is one such pass too.
 * Target layers l = 1..L run on the NPU. The first R layers are resident in DRAM
 * (R = floor(resident budget / layer bytes), decode.c); the rest, then the LM head unless it
 * is kept in DRAM, stream from flash through the layer buffers: with two buffers the read of
 * streamed item j may start once item j-2 has been computed (prefetch of the next layer while
 * the current computes). Layer l computes n_l tokens: the whole tree up to the exit layer, the
 * survivors of pruning after it. Why a resident prefix: the flash starts streaming layer R+1
 * the moment verification begins, overlapped with the resident layers' compute, so the
 * pipeline never starts cold.
 * When the last layer is done, ACCEPT: from the root, follow the child whose rank is the
 * target's choice (oracle or trace ground truth), among surviving nodes; tau = accepted + 1
 * bonus token. Then the output projection (cycle_lmhead.c).
 * verify.overlap=mapped (a runtime that maps the model file, llama.cpp): the streamed items are
 * one file faulted in under the kernel's read-ahead (devices/mapread.h, the window
 * verify.read_ahead, the next window issued at the current one's first page). The pass is
 * planned at its start: every layer's tokens (the prune policy asked then, with the same
 * inputs it gets at the exit layer: the tree, the scores and the drafting time), the
 * read-ahead recurrence over the streamed layers and the head (ls_mapread_time_ends_s), and so
 * each streamed item's wait for its weights before its compute, (end_i - end_{i-1}) -
 * compute_i. The resident prefix computes first, then the first fault starts the reads. The
 * flash device still reads the streamed bytes (issued at the pass's start, their completions
 * not waited for), so its busy time and energy count them; the pass's timing is the plan's.
 * Inline passes: a serial pass (one layer buffer, not mapped, no cross-cycle prefetch) that
 * begins with no engine event pending has the NPU and the flash to itself until it ends:
 * nothing else can submit, observe or interleave before its last item, since only its own
 * completions could run in between. Such a pass runs as one loop over its items (run_serial),
 * without an engine event or a phase transition per layer or read. With one buffer the
 * pipeline is a recurrence: stream item s's read is issued at t_verify (s = 0) or when item
 * s - 1 has been computed; item l starts at max(the NPU's free time, its read's completion)
 * (resident items at the NPU's free time), ends at its start plus its time, and the NPU
 * waited for weights by the difference. The only overlap one buffer allows is the resident
 * prefix computing while the first read is in flight; a tie there starts the next layer at
 * that time in either order, with no wait, as the events do. Each read is computed at once
 * at its issue time (ls_flash_dev_read_alone: the steps and draws the engine's path takes,
 * so the same completion); the counting and pruning at a layer's end (layer_counted) and
 * the NPU's wait (npu_takes) are the events path's own functions. The edges between WAIT
 * and LAYER are recorded once (ls_cyc_layers_inline), the layer compute is booked on the
 * NPU resource (ls_resource_book) and the pass's end (verify_end: the walk and the output
 * projection) runs as one engine event at the last item's time, when every booked job and
 * read is in the past: every time and counter is the one the events give (tested against
 * device.flash.sim=events, which takes the events). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"

static void try_compute(ls_run_state *r);
static void layer_done(ls_engine *e, void *ctx);
static void mapped_begin(ls_run_state *r);

static double stream_bytes(const ls_run_state *r, int s)
{
  return r->cfg.resident + s < r->cfg.L ? r->cfg.tc.layer_bytes : r->cfg.tc.lmhead_bytes;
}

/* Streamed items of one pass: the non-resident layers, then the head unless it is kept in
 * DRAM; nothing when the whole target is in DRAM. */
static int stream_items(const ls_run_state *r)
{
  return r->cfg.in_dram ? 0 : (r->cfg.L - r->cfg.resident) + !r->cfg.head_in_dram;
}

static void on_read_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  r->verify.reads_done++;
  if (ls_phase_in_pass(r->phase)) /* a read prefetched for the next pass waits for it */
    try_compute(r);
}

static int mapped(const ls_run_state *r) { return r->cfg.overlap == LS_OVERLAP_MAPPED; }

static void issue_reads(ls_run_state *r)
{
  if (mapped(r)) /* mapped_begin issues them */
    return;
  while (r->verify.next_read < r->verify.n_stream && r->verify.next_read - r->verify.computed_stream < r->cfg.buffers) {
    if (ls_flash_dev_read(r->ds->flash, stream_bytes(r, r->verify.next_read), on_read_done, r, r->err)) {
      ls_cyc_fail(r, r->err->code);
      return;
    }
    r->verify.next_read++;
  }
}

/* Item `layer` (L = the LM head) is in memory. */
static int ready(const ls_run_state *r, int layer)
{
  if (mapped(r) || layer < r->cfg.resident) /* mapped: its wait is planned (mapped_begin) */
    return 1;
  if (layer == r->cfg.L && (r->cfg.in_dram || r->cfg.head_in_dram))
    return 1; /* LM head resident */
  return layer - r->cfg.resident < r->verify.reads_done;
}

/* Resets the streaming state of a pass (reads of the pass not yet issued). */
static void stream_reset(ls_run_state *r)
{
  r->verify.n_stream = stream_items(r);
  r->verify.next_read = r->verify.reads_done = r->verify.computed_stream = 0;
}

void ls_cyc_prefetch(ls_run_state *r)
{
  if (ls_cyc_enter(r, LS_PHASE_PREFETCH))
    return;
  stream_reset(r);
  issue_reads(r);
}

/* A pass that may run inline (see the top): serial, and nothing pending that could meet it. */
static int can_inline(const ls_run_state *r)
{
  return r->cfg.buffers == 1 && !mapped(r) && !r->cfg.prefetch && ls_engine_pending(r->eng) == 0 &&
         ls_resource_in_service(r->ds->npu) == 0 && (stream_items(r) == 0 || ls_flash_dev_can_read_alone(r->ds->flash));
}

static void run_serial(ls_run_state *r);

/* A pass begins: the prompt's (from IDLE or PREFETCH) or a cycle's (from DRAFT). */
void ls_cyc_verify_begin(ls_run_state *r)
{
  int prefill = r->phase != LS_PHASE_DRAFT;
  r->verify.t_verify = ls_engine_now(r->eng);
  if (!r->cfg.prefetch) /* else its first reads were issued in PREFETCH */
    stream_reset(r);
  r->verify.next_layer = 0;
  r->verify.io_wait = 0;
  r->verify.npu_free_at = r->verify.t_verify;
  r->verify.token_layers = 0;
  r->verify.compute_ns = 0;
  r->head.left = 0;
  r->verify.inline_pass = can_inline(r);
  if (r->verify.inline_pass && r->res)
    r->res->inline_passes++;
  r->verify.booked_ns = 0;
  r->verify.booked_jobs = 0;
  if (ls_cyc_enter(r, prefill ? LS_PHASE_PREFILL_WAIT : LS_PHASE_VERIFY_WAIT))
    return;
  if (r->verify.inline_pass) {
    run_serial(r);
    return;
  }
  if (mapped(r))
    mapped_begin(r);
  issue_reads(r);
  try_compute(r);
}

static int tokens_at_layer(const ls_run_state *r)
{
  return ls_phase_prefill(r->phase) ? r->seq.prefill_tokens : r->cand.n_live;
}

/* The prune policy gets the cost queries the draft policy planned with and the cycle's
 * drafting time (cycle start -> this pass's start), so that it can weigh what a prune saves
 * against the cycle it is part of. */
static void prune_now(ls_run_state *r)
{
  for (int i = 0; i < r->cand.tree.n; i++)
    r->cand.score[i] = i ? ls_cyc_text_exit_score(r, i) : 0.0;
  ls_prune_ctx pc = {&r->cfg.cost, r->cfg.L, r->cfg.exit_layer, (double)(r->verify.t_verify - r->acct.t_cycle) * 1e-9};
  memset(r->cand.keep, 0, (size_t)r->cand.tree.n);
  r->cand.n_live = r->cfg.pops->prune(r->cfg.pstate, &r->cand.tree, r->cand.score, r->cand.keep, &pc);
  r->cand.keep[0] = 1;
  r->acct.prune_calls++;
}

/* Tokens that layer l computes: planned (mapped) or as the pass stands. */
static int layer_tokens(const ls_run_state *r, int l)
{
  return mapped(r) ? r->verify.map_tokens[l] : tokens_at_layer(r);
}

static void read_landed(ls_engine *e, void *ctx)
{
  (void)e;
  (void)ctx; /* mapped: the plan times the pass; the read only occupies the flash */
}

/* verify.overlap=mapped: plans the pass (the top comment) and issues its reads. */
static void mapped_begin(ls_run_state *r)
{
  int L = r->cfg.L, R = r->cfg.in_dram ? L : r->cfg.resident, S = stream_items(r);
  for (int l = 0; l <= L; l++) {
    if (l < L && !ls_phase_prefill(r->phase) && l == r->cfg.exit_layer && r->cfg.exit_layer < L)
      prune_now(r);
    r->verify.map_tokens[l] = l < L ? tokens_at_layer(r) : 0;
    r->verify.map_wait[l] = 0;
    r->verify.map_waited[l] = 0;
  }
  if (S == 0)
    return;
  ls_mapread_seg *seg = malloc((size_t)S * sizeof *seg);
  double *end = malloc((size_t)S * sizeof *end);
  if (!seg || !end) {
    free(seg);
    free(end);
    ls_cyc_fail(r, ls_error_set(r->err, LS_ENOMEM, "decode: out of memory"));
    return;
  }
  for (int i = 0; i < S; i++) {
    int l = R + i;
    seg[i] = l < L ? (ls_mapread_seg){r->cfg.tc.layer_bytes, (double)ls_cyc_layer_ns(r, r->verify.map_tokens[l]) * 1e-9, 0}
                   : (ls_mapread_seg){r->cfg.tc.lmhead_bytes, 0, 0};
  }
  ls_mapread_params m = ls_costmodel_read_ahead(r->cfg.cm);
  ls_mapread_time_ends_s(ls_device_flash(r->cfg.dev), &m, seg, S, end);
  for (int i = 0; i < S; i++) {
    double wait = end[i] - (i ? end[i - 1] : 0) - seg[i].compute_s;
    r->verify.map_wait[R + i] = wait > 0 ? llround(wait * 1e9) : 0;
  }
  for (int i = 0; i < S && !r->failed; i++)
    if (ls_flash_dev_read(r->ds->flash, seg[i].bytes, read_landed, r, r->err))
      ls_cyc_fail(r, r->err->code);
  free(seg);
  free(end);
}

static void on_map_wait(ls_engine *e, void *ctx)
{
  (void)e;
  try_compute(ctx);
}

/* Layer l ended at now (both paths, after the next read is issued): its tokens counted, the
 * NPU free from now, and the prune after the exit layer. */
static void layer_counted(ls_run_state *r, int l, int64_t now)
{
  r->verify.token_layers += layer_tokens(r, l);
  r->verify.next_layer++;
  r->verify.npu_free_at = now;
  if (!mapped(r) && !ls_phase_prefill(r->phase) && r->verify.next_layer == r->cfg.exit_layer && r->cfg.exit_layer < r->cfg.L)
    prune_now(r);
}

/* The NPU takes its next item at now (both paths): it sat idle since it was free only for
 * want of weights. */
static void npu_takes(ls_run_state *r, int64_t now)
{
  if (now > r->verify.npu_free_at)
    r->verify.io_wait += now - r->verify.npu_free_at;
  r->verify.npu_free_at = now;
}

static void layer_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  int l = r->verify.next_layer;
  if (l >= r->cfg.resident) {
    r->verify.computed_stream++;
    issue_reads(r);
  }
  layer_counted(r, l, ls_engine_now(r->eng));
  if (ls_cyc_enter(r, ls_phase_prefill(r->phase) ? LS_PHASE_PREFILL_WAIT : LS_PHASE_VERIFY_WAIT))
    return;
  try_compute(r);
}

static void accept_walk(ls_run_state *r)
{
  int node = 0;
  r->cand.n_acc = 0;
  for (;;) {
    int first = node + 1; /* the node's first child: a leaf (AR's root) needs no true rank */
    while (first < r->cand.tree.n && r->cand.tree.parent[first] != node)
      first++;
    if (first == r->cand.tree.n)
      return;
    int want = ls_cyc_text_true_rank(r, node);
    int next = -1;
    for (int c = first; want >= 0 && c < r->cand.tree.n; c++)
      if (r->cand.tree.parent[c] == node && r->cand.tree.rank[c] == want && r->cand.keep[c]) {
        next = c;
        break;
      }
    if (next < 0)
      return;
    r->cand.accepted_nodes[r->cand.n_acc++] = next;
    node = next;
  }
}

/* The target's layers are done: the pass ends, and in decode the acceptance walk settles
 * the cycle's tokens before the output projection. */
static void verify_end(ls_run_state *r)
{
  r->verify.t_layers_end = ls_engine_now(r->eng);
  if (!ls_phase_prefill(r->phase)) {
    if (ls_cyc_enter(r, LS_PHASE_ACCEPT))
      return;
    accept_walk(r);
    for (int i = 0; i < r->cand.n_acc; i++) /* lossless: the target never takes a removed node */
      r->acct.accepted_pruned += !r->cand.keep[r->cand.accepted_nodes[i]];
  }
  ls_cyc_lmhead_begin(r);
}

/* An inline pass's last item is ready (now): its layers' compute goes on the NPU's books and
 * the pass ends as the events would end it. */
static void pass_end(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  r->verify.inline_pass = 0;
  if (ls_resource_book(r->ds->npu, r->verify.booked_ns, r->verify.booked_jobs, r->err)) {
    ls_cyc_fail(r, r->err->code);
    return;
  }
  verify_end(r);
}

static void try_compute(ls_run_state *r)
{
  if (r->failed || ls_phase_layer(r->phase)) /* the NPU runs this pass's layers one by one */
    return;
  int l = r->verify.next_layer;
  if (l > r->cfg.L || !ready(r, l))
    return;
  if (mapped(r) && !r->verify.map_waited[l]) { /* the read-ahead has not brought its weights in yet */
    r->verify.map_waited[l] = 1;
    if (r->verify.map_wait[l] > 0) {
      if (ls_engine_schedule_in(r->eng, r->verify.map_wait[l], on_map_wait, r, NULL, r->err))
        ls_cyc_fail(r, r->err->code);
      return;
    }
  }
  npu_takes(r, ls_engine_now(r->eng));
  if (l == r->cfg.L) {
    r->verify.next_layer++;
    verify_end(r);
    return;
  }
  if (ls_cyc_enter(r, ls_phase_prefill(r->phase) ? LS_PHASE_PREFILL_LAYER : LS_PHASE_VERIFY_LAYER))
    return;
  int64_t ns = ls_cyc_layer_ns(r, layer_tokens(r, l));
  r->verify.compute_ns += ns;
  if (ls_resource_submit(r->ds->npu, ns, layer_done, r, r->err))
    ls_cyc_fail(r, r->err->code);
}

/* Stream item s read alone from t (see the top): its completion, or -1 when the run failed. */
static int64_t read_alone(ls_run_state *r, int s, int64_t t)
{
  int64_t done;
  if (ls_flash_dev_read_alone(r->ds->flash, stream_bytes(r, s), 0, 0, t, &done, r->err)) {
    ls_cyc_fail(r, r->err->code);
    return -1;
  }
  r->verify.next_read = s + 1;
  return done;
}

/* An inline pass (see the top): items 0..L in order on the pass's own clock, then its end as
 * one engine event. A streamed item whose read is never issued (none left to issue) leaves
 * the pass waiting, as the events would: the run then reports the stall. */
static void run_serial(ls_run_state *r)
{
  ls_run_verify *v = &r->verify;
  int L = r->cfg.L, R = r->cfg.resident, head_read = !(r->cfg.in_dram || r->cfg.head_in_dram);
  int64_t now = v->t_verify, at = -1; /* at: the completion of the read in flight */
  if (v->n_stream > 0 && (at = read_alone(r, 0, now)) < 0)
    return;
  if (L > 0 && ls_cyc_layers_inline(r))
    return;
  for (int l = 0; l < L; l++) {
    if (l >= R) { /* a streamed layer: its read is the one in flight */
      if (l - R >= v->next_read)
        return;
      v->reads_done++;
      now = at > now ? at : now;
    }
    npu_takes(r, now);
    int64_t ns = ls_cyc_layer_ns(r, layer_tokens(r, l));
    if (ns > INT64_MAX - now) {
      ls_cyc_fail(r, ls_error_set(r->err, LS_ERANGE, "decode: a layer of %" PRId64 " ns would overflow simulated time", ns));
      return;
    }
    v->compute_ns += ns;
    v->booked_ns += ns;
    v->booked_jobs++;
    now += ns;
    if (l >= R && ++v->computed_stream == v->next_read && v->next_read < v->n_stream && (at = read_alone(r, v->next_read, now)) < 0)
      return;
    layer_counted(r, l, now);
  }
  if (L >= R && head_read) { /* the head streamed: its read is the last one */
    if (L - R >= v->next_read)
      return;
    v->reads_done++;
    now = at > now ? at : now;
  }
  npu_takes(r, now);
  v->next_layer++;
  if (ls_engine_schedule(r->eng, now, pass_end, r, NULL, r->err))
    ls_cyc_fail(r, r->err->code);
}
