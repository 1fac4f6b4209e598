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
 * bonus token. Then the output projection (cycle_lmhead.c). */
#include <string.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"

static void try_compute(ls_run_state *r);

static double stream_bytes(const ls_run_state *r, int s)
{
  return r->resident + s < r->L ? r->tc.layer_bytes : r->tc.lmhead_bytes;
}

/* Streamed items of one pass: the non-resident layers, then the head unless it is kept in
 * DRAM; nothing when the whole target is in DRAM. */
static int stream_items(const ls_run_state *r)
{
  return r->in_dram ? 0 : (r->L - r->resident) + !r->head_in_dram;
}

static void on_read_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  r->reads_done++;
  if (r->verifying) /* a read prefetched for the next pass waits for it */
    try_compute(r);
}

void ls_cyc_issue_reads(ls_run_state *r)
{
  while (r->next_read < r->n_stream && r->next_read - r->computed_stream < r->buffers) {
    if (ls_flash_dev_read(r->ds->flash, stream_bytes(r, r->next_read), on_read_done, r, r->err)) {
      ls_cyc_fail(r, r->err->code);
      return;
    }
    r->next_read++;
  }
}

/* Item `layer` (L = the LM head) is in memory. */
static int ready(const ls_run_state *r, int layer)
{
  if (layer < r->resident)
    return 1;
  if (layer == r->L && (r->in_dram || r->head_in_dram))
    return 1; /* LM head resident */
  return layer - r->resident < r->reads_done;
}

/* Resets the streaming state of a pass (reads of the pass not yet issued). */
void ls_cyc_stream_reset(ls_run_state *r)
{
  r->n_stream = stream_items(r);
  r->next_read = r->reads_done = r->computed_stream = 0;
}

void ls_cyc_verify_begin(ls_run_state *r)
{
  r->t_verify = ls_engine_now(r->eng);
  if (!r->carry)
    ls_cyc_stream_reset(r);
  r->carry = 0;
  r->verifying = 1;
  r->next_layer = 0;
  r->io_wait = 0;
  r->npu_free_at = r->t_verify;
  r->token_layers = 0;
  r->compute_ns = 0;
  r->lm_left = 0;
  ls_cyc_issue_reads(r);
  try_compute(r);
}

static int tokens_at_layer(const ls_run_state *r)
{
  return r->ph == LS_PH_PREFILL ? r->prefill_tokens : r->n_live;
}

static void prune_now(ls_run_state *r)
{
  for (int i = 0; i < r->tree.n; i++)
    r->score[i] = i ? ls_cyc_text_exit_score(r, i) : 0.0;
  memset(r->keep, 0, (size_t)r->tree.n);
  r->n_live = r->pops->prune(r->pstate, &r->tree, r->score, r->keep);
  r->keep[0] = 1;
  r->prune_calls++;
}

static void layer_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_run_state *r = ctx;
  int l = r->next_layer;
  r->npu_running = 0;
  if (l >= r->resident) {
    r->computed_stream++;
    ls_cyc_issue_reads(r);
  }
  r->token_layers += tokens_at_layer(r);
  r->next_layer++;
  r->npu_free_at = ls_engine_now(r->eng);
  if (r->ph == LS_PH_DECODE && r->next_layer == r->exit_layer && r->exit_layer < r->L)
    prune_now(r);
  try_compute(r);
}

static void accept_walk(ls_run_state *r)
{
  int node = 0;
  r->n_acc = 0;
  for (;;) {
    int want = ls_cyc_text_true_rank(r, node);
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

/* The target's layers are done: the pass ends, and in decode the acceptance walk settles
 * the cycle's tokens before the output projection. */
static void verify_end(ls_run_state *r)
{
  r->t_layers_end = ls_engine_now(r->eng);
  r->verifying = 0;
  if (r->ph == LS_PH_DECODE) {
    accept_walk(r);
    for (int i = 0; i < r->n_acc; i++) /* lossless: the target never takes a removed node */
      r->accepted_pruned += !r->keep[r->accepted_nodes[i]];
  }
  ls_cyc_lmhead_begin(r);
}

static void try_compute(ls_run_state *r)
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
    verify_end(r);
    return;
  }
  r->npu_running = 1;
  int64_t ns = ls_cyc_layer_ns(r, tokens_at_layer(r));
  r->compute_ns += ns;
  if (ls_resource_submit(r->ds->npu, ns, layer_done, r, r->err))
    ls_cyc_fail(r, r->err->code);
}
