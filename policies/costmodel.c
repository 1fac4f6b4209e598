/* policies/costmodel: device cost queries for policies (costmodel.h).
 *
 * Equations (all target layers are alike, so a pass costs O(1) to evaluate):
 *   io      = flash read of one target layer (ls_flash_read_ns: profile chunk and queue
 *             depth, idle device), io_head = flash read of the LM head;
 *   comp(n) = one target layer for n tokens on the target unit at the current context
 *             (NPU: padded to the next compiled shape inside ls_npu_layer_ns);
 *   S       = streamed layers = n_layers - resident_layers (clamped to [0, n_layers]);
 *   layers(n)   = serial:      S * (io + comp(n)) + (n_layers - S) * comp(n)
 *                 prefetch:    S * max(io, comp(n)) + (n_layers - S) * comp(n) + (S > 0 ? io : 0)
 *                 cross-cycle: as prefetch without the first read (it runs while drafting)
 *                 mapped:      S * max(io_map, comp(n)) + (n_layers - S) * comp(n) + (S > 0 ? io_win : 0)
 *   where io_map is a layer read in read-ahead windows back to back and io_win one window
 *   (devices/mapread.h, ls_mapread_time_s with no compute): the steady state of the read-ahead
 *   recurrence, which costs each window max(its read, its compute) once reads run ahead, exact
 *   for a window much smaller than a layer (the engine schedules the recurrence itself,
 *   runner/decode/cycle_verify.c); the head streamed costs io_map_head, and verify_saved_s
 *   prices mapped as prefetch with io_map;
 *   verify_s(n) = layers(n) + (head streamed ? io_head : 0)
 *               + output projection: eager NPU lmhead(n) + n x sample
 *                              | on demand tau x (lmhead(1) on NPU or CPU + sample).
 *   With prefetch, layer l's read overlaps layer l-1's compute, so a pass is the first read
 *   plus, per layer, the slower of the next read and this compute. The LM-head read is not
 *   overlapped (simplification: it is needed right after the last layer). sample = the CPU
 *   sampler over the target vocabulary: 0.06 ms per row at 128k entries (src:llamacpp-snapdragon,
 *   8 Elite; assumed linear in the vocabulary and alike on the other SoCs). tau, the
 *   accepted tokens per cycle assumed for on-demand projection, is 3 until the runner has
 *   observed it (assumed: typical tau of tree SD, src:spec-bench).
 *   draft call(unit, n, ctx) = NPU: dispatch + L_d x (layer(n) - dispatch) + (head(n) - dispatch)
 *                              (one graph call for all layers and the head);
 *                              CPU: L_d x layer(n) + head(n) with the configured threads.
 *   draft_step_s(n, depth) = calls x draft call(unit, tokens_per_call, ctx + depth), as
 *   the map policy's draft_step says.
 *   draft_pair_s(n1, n2, depth) = max of the two steps on different units (CPU and NPU run
 *   at once), their sum on one unit.
 *   verify_saved_s(n, k, e) = verify_s(n) less the same pass whose layers e..L-1 (and an eager
 *   projection) compute k tokens, term by term so that equal costs cancel exactly:
 *     layers: A = L - e layers after the exit, of which Ar = max(0, (L - S) - e) resident
 *             (resident layers come first) and As = A - Ar streamed;
 *             serial:   A * (comp(n) - comp(k))   (a streamed layer's read is paid either way)
 *             prefetch, cross-cycle: As * (max(io, comp(n)) - max(io, comp(k)))
 *                                   + Ar * (comp(n) - comp(k))
 *     head:   eager NPU lmhead(n) - lmhead(k) + (n - k) x sample; on demand 0 (the projected
 *             rows follow the accepted path, not the tree).
 *   So where a pass is flash-bound, or the NPU pads k and n to one shape, pruning saves
 *   nothing of the layers: the quantity the early-exit pruner's cost gate weighs.
 * Memo: draft_step_s(n, depth) is a pure function of (n, depth) while the context length stays
 * the same (a cycle); Lever's builder asks it for every split of every batch, so the values of
 * the current context are kept (n, depth < MEMO_MAX), with the unit the map policy put the step
 * on (draft_pair_s compares the two steps' units), and dropped when set_ctx moves it. Cached
 * values are the computed ones, so results are bit-identical with or without the memo.
 * ls_costmodel_draft_call_ns(unit, tokens, context) is a pure function of its arguments (the
 * device, the draft and the threads are fixed at create), asked again for the same context
 * across cycles (the context grows by the tokens accepted, the depths reach ahead) and by the
 * runner for the passes the builder costed: the last value per slot of a direct-mapped table
 * (CALL_MEMO slots keyed by all three) is kept, whole keys compared, so again bit-identical.
 * ls_costmodel_lmhead_ns(unit, tokens) is a pure function of its arguments for the same
 * reason; verify_s asks it for one token at every query (an on-demand projection, the same
 * value each time) and the runner at every projection: kept per unit for tokens < MEMO_MAX.
 * A target layer's time for n < MEMO_MAX tokens is a pure function of (n, context) too (the
 * map policy's target unit, the device and the threads are fixed at create): Lever's stopping
 * rule asks verify_s for every tree size at every cycle's context, and the prompts of a run
 * pass through the same contexts, so the times are kept per context (LAYER_ROWS rows, a row
 * per context modulo LAYER_ROWS, whole contexts compared).
 * The draft's own output projection, a term of every draft call time, does not depend on the
 * context either: kept the same way (a call time missing from its table then costs one layer
 * time, not a layer and a projection).
 * The runner times draft calls and projections with the same functions; verification there
 * is simulated with events (flash requests, prefetch), which verify_s approximates. The flash
 * read times are taken once at create: apply device overrides before creating the model. */
#include "policies/costmodel.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLE_S_PER_ENTRY (0.06e-3 / 128256.0) /* see the top comment */
#define MEMO_MAX 65 /* draft steps of up to 64 nodes at depths up to 64 are remembered */

#define CALL_MEMO 1024 /* slots of remembered draft call times, a power of two */
#define LAYER_ROWS 1024 /* contexts whose target layer times are remembered (by ctx mod this), a power of two */

/* A remembered draft call time; tokens 0: empty (calls of no tokens are never stored). */
typedef struct {
  int64_t ns;
  int tokens, ctx;
  ls_unit unit;
} call_entry;

/* One target layer's time for n < MEMO_MAX tokens at one context: key = the context + 1
 * (0: the row is empty), ns[n] < 0: not computed yet. */
typedef struct {
  int key;
  int64_t ns[MEMO_MAX];
} layer_row;

/* The memo of draft_step_s for the current context (see the top): an entry is valid when its
 * stamp equals the current one; and the draft call times (valid in any context). Held by
 * pointer, so the const queries may fill it. */
typedef struct {
  uint32_t now;
  uint32_t stamp[MEMO_MAX][MEMO_MAX];
  double step_s[MEMO_MAX][MEMO_MAX];
  unsigned char unit[MEMO_MAX][MEMO_MAX]; /* the unit the map policy put that step on */
  call_entry call[CALL_MEMO];
  layer_row layer[LAYER_ROWS];
  int64_t head_ns[2][2][MEMO_MAX]; /* output projections per model (target, draft), unit, tokens; -1: not yet */
} step_memo;

const char *const ls_overlap_names[] = {"serial", "prefetch", "cross-cycle", "mapped", NULL};

struct ls_costmodel {
  const ls_device *dev;
  ls_overlap overlap;
  int head_in_dram;
  ls_model_costs target, draft;
  const ls_map_ops *map;
  const void *map_state;
  ls_layer_work tw, dw;
  int streamed, threads, ctx_len;
  double io_s, io_head_s, tau;
  double read_ahead;                   /* MAPPED: the window, bytes */
  double io_map_s, io_map_head_s, io_map_first_s; /* MAPPED: a layer, the head, one window read in windows */
  int map_ok;                          /* the three above are the current window's (map_times) */
  step_memo *memo; /* owned */
};

ls_layer_work ls_costmodel_layer_work(const ls_model_costs *m)
{
  ls_layer_work w = {m->layer_bytes, m->layer_flops_per_token, m->attn_flops_per_token_per_ctx,
                     m->kv_bytes_per_token};
  return w;
}

int ls_costmodel_create(ls_costmodel **out, const ls_device *dev, const ls_model_costs *target,
                        const ls_model_costs *draft, const ls_map_ops *map, const void *map_state,
                        int resident_layers, int threads, ls_error *err)
{
  if (!dev || !target || !draft || !map)
    return ls_error_set(err, LS_EINVALID, "cost model: device, models and map policy are required");
  ls_costmodel *cm = calloc(1, sizeof *cm);
  step_memo *memo = calloc(1, sizeof *memo);
  if (!cm || !memo) {
    free(cm);
    free(memo);
    return ls_error_set(err, LS_ENOMEM, "cost model: out of memory");
  }
  memo->now = 1;
  for (int d = 0; d < 2; d++)
    for (int u = 0; u < 2; u++)
      for (int n = 0; n < MEMO_MAX; n++)
        memo->head_ns[d][u][n] = -1;
  cm->memo = memo;
  cm->dev = dev;
  cm->target = *target;
  cm->draft = *draft;
  cm->map = map;
  cm->map_state = map_state;
  cm->tw = ls_costmodel_layer_work(target);
  cm->dw = ls_costmodel_layer_work(draft);
  int r = resident_layers < 0 ? 0 : (resident_layers > target->n_layers ? target->n_layers : resident_layers);
  cm->streamed = target->n_layers - r;
  cm->threads = threads > 0 ? threads : ls_device_cpu(dev)->default_threads;
  cm->tau = 3.0;
  cm->overlap = LS_OVERLAP_SERIAL;
  cm->head_in_dram = map->lmhead(map_state) == LS_LMHEAD_DEMAND_CPU;
  const ls_flash_params *f = ls_device_flash(dev);
  cm->io_s = (double)ls_flash_read_ns(f, target->layer_bytes) * 1e-9;
  cm->io_head_s = (double)ls_flash_read_ns(f, target->lmhead_bytes) * 1e-9;
  ls_costmodel_set_read_ahead(cm, LS_READ_AHEAD_DEFAULT);
  *out = cm;
  return LS_OK;
}

void ls_costmodel_free(ls_costmodel *cm)
{
  if (cm)
    free(cm->memo);
  free(cm);
}

/* Forgets every remembered draft step (the context they were computed for is gone). */
static void memo_drop(step_memo *m)
{
  if (++m->now == 0) { /* the stamp wrapped: clear, so no stale entry can match */
    memset(m->stamp, 0, sizeof m->stamp);
    m->now = 1;
  }
}

double ls_costmodel_dram_room(const ls_device *dev, const ls_model_costs *target, const ls_model_costs *draft,
                              int head_in_dram, int buffers)
{
  const ls_dram_params *d = ls_device_dram(dev);
  double kv = (target->kv_bytes_per_token * target->n_layers + draft->kv_bytes_per_token * draft->n_layers) *
              LS_KV_CTX_TOKENS;
  double room = d->app_budget - draft->total_bytes - kv - buffers * target->layer_bytes;
  return head_in_dram ? room - target->lmhead_bytes : room;
}

int ls_costmodel_resident_layers(const ls_device *dev, const ls_model_costs *target, const ls_model_costs *draft,
                                 int head_in_dram, int buffers)
{
  double room = ls_costmodel_dram_room(dev, target, draft, head_in_dram, buffers);
  double want = ls_dram_resident_budget(ls_device_dram(dev));
  if (want < room)
    room = want;
  int n = room > 0 ? (int)floor(room / target->layer_bytes) : 0;
  return n < target->n_layers ? n : target->n_layers;
}

void ls_costmodel_set_ctx(ls_costmodel *cm, int ctx_len)
{
  int c = ctx_len < 0 ? 0 : ctx_len;
  if (c != cm->ctx_len)
    memo_drop(cm->memo);
  cm->ctx_len = c;
}

void ls_costmodel_set_tau(ls_costmodel *cm, double tau) { cm->tau = tau >= 1.0 ? tau : 1.0; }

double ls_costmodel_tau(const ls_costmodel *cm) { return cm->tau; }

ls_mapread_params ls_costmodel_read_ahead(const ls_costmodel *cm)
{
  ls_mapread_params m = {cm->read_ahead, 0, 0, 0, 0, 0, 0, 0};
  return m;
}

/* Reading `bytes` through the read-ahead with no compute: windows back to back. */
static double map_read_s(const ls_costmodel *cm, double bytes)
{
  ls_mapread_params m = ls_costmodel_read_ahead(cm);
  ls_mapread_seg seg = {bytes, 0, 0};
  return ls_mapread_time_s(ls_device_flash(cm->dev), &m, &seg, 1);
}

/* The MAPPED read times (a layer, the head, the first window) for the current window: only
 * MAPPED reads them, and they cost about 2.5 M instructions a window size (the read-ahead
 * recurrence over a whole layer), a few % of a short run, so they are computed when the
 * overlap is MAPPED and not before (map_ok: they are those of the current window). */
static void map_times(ls_costmodel *cm)
{
  if (cm->overlap != LS_OVERLAP_MAPPED || cm->map_ok)
    return;
  cm->io_map_s = map_read_s(cm, cm->target.layer_bytes);
  cm->io_map_head_s = map_read_s(cm, cm->target.lmhead_bytes);
  cm->io_map_first_s = map_read_s(cm, fmin(cm->read_ahead, cm->target.layer_bytes));
  cm->map_ok = 1;
}

void ls_costmodel_set_read_ahead(ls_costmodel *cm, double bytes)
{
  double w = bytes > 0 ? bytes : LS_READ_AHEAD_DEFAULT;
  if (w != cm->read_ahead)
    cm->map_ok = 0;
  cm->read_ahead = w;
  map_times(cm);
}

void ls_costmodel_set_exec(ls_costmodel *cm, ls_overlap overlap, int head_in_dram)
{
  cm->overlap = overlap;
  cm->head_in_dram = head_in_dram;
  map_times(cm);
}

double ls_costmodel_sample_row_s(const ls_costmodel *cm) { return SAMPLE_S_PER_ENTRY * cm->target.vocab; }

static int64_t target_layer_ns(const ls_costmodel *cm, int n)
{
  if (cm->map->target_unit(cm->map_state) == LS_UNIT_NPU)
    return ls_npu_layer_ns(ls_device_npu(cm->dev), &cm->tw, n, cm->ctx_len);
  return ls_cpu_layer_ns(ls_device_cpu(cm->dev), &cm->tw, n, cm->ctx_len, cm->threads);
}

/* One target layer over n tokens at the current context, remembered (top comment). */
static double target_layer_s(const ls_costmodel *cm, int n)
{
  if (n < 0 || n >= MEMO_MAX)
    return (double)target_layer_ns(cm, n) * 1e-9;
  layer_row *row = &cm->memo->layer[cm->ctx_len & (LAYER_ROWS - 1)];
  if (row->key != cm->ctx_len + 1) {
    row->key = cm->ctx_len + 1;
    memset(row->ns, 0xff, sizeof row->ns); /* every entry -1 */
  }
  if (row->ns[n] < 0)
    row->ns[n] = target_layer_ns(cm, n);
  return (double)row->ns[n] * 1e-9;
}

static int64_t lmhead_uncached(const ls_costmodel *cm, const ls_model_costs *m, ls_unit unit, int tokens)
{
  if (unit == LS_UNIT_NPU)
    return ls_npu_lmhead_ns(ls_device_npu(cm->dev), m->lmhead_bytes, m->lmhead_flops_per_token, tokens);
  return ls_cpu_lmhead_ns(ls_device_cpu(cm->dev), m->lmhead_bytes, m->lmhead_flops_per_token, tokens, cm->threads);
}

/* The output projection of the target (draft 0) or of the draft (1), remembered (top comment). */
static int64_t lmhead_ns(const ls_costmodel *cm, int draft, ls_unit unit, int tokens)
{
  const ls_model_costs *m = draft ? &cm->draft : &cm->target;
  if (tokens < 0 || tokens >= MEMO_MAX || (unit != LS_UNIT_CPU && unit != LS_UNIT_NPU))
    return lmhead_uncached(cm, m, unit, tokens);
  int64_t *e = &cm->memo->head_ns[draft][unit][tokens];
  if (*e < 0)
    *e = lmhead_uncached(cm, m, unit, tokens);
  return *e;
}

int64_t ls_costmodel_lmhead_ns(const ls_costmodel *cm, ls_unit unit, int tokens) { return lmhead_ns(cm, 0, unit, tokens); }

/* The layers of one pass as the overlap mode streams them (top comment). */
static double layers_s(const ls_costmodel *cm, double comp)
{
  double io = cm->overlap == LS_OVERLAP_MAPPED ? cm->io_map_s : cm->io_s;
  int L = cm->target.n_layers, S = cm->streamed;
  if (cm->overlap == LS_OVERLAP_SERIAL)
    return S * (io + comp) + (L - S) * comp;
  double t = S * (io > comp ? io : comp) + (L - S) * comp;
  if (cm->overlap == LS_OVERLAP_MAPPED) /* the first window is read before any compute */
    return S > 0 ? t + cm->io_map_first_s : t;
  return cm->overlap == LS_OVERLAP_PREFETCH && S > 0 ? t + io : t;
}

static double verify_s(const void *ctx, int n)
{
  const ls_costmodel *cm = ctx;
  double t = layers_s(cm, target_layer_s(cm, n)), sample = ls_costmodel_sample_row_s(cm);
  if (cm->streamed > 0 && !cm->head_in_dram)
    t += cm->overlap == LS_OVERLAP_MAPPED ? cm->io_map_head_s : cm->io_head_s;
  switch (cm->map->lmhead(cm->map_state)) {
  case LS_LMHEAD_EAGER_NPU:
    t += (double)ls_costmodel_lmhead_ns(cm, LS_UNIT_NPU, n) * 1e-9 + n * sample;
    break;
  case LS_LMHEAD_DEMAND_NPU:
    t += cm->tau * ((double)ls_costmodel_lmhead_ns(cm, LS_UNIT_NPU, 1) * 1e-9 + sample);
    break;
  case LS_LMHEAD_DEMAND_CPU:
    t += cm->tau * ((double)ls_costmodel_lmhead_ns(cm, LS_UNIT_CPU, 1) * 1e-9 + sample);
    break;
  }
  return t;
}

static double verify_saved_s(const void *ctx, int n, int k, int e)
{
  const ls_costmodel *cm = ctx;
  int L = cm->target.n_layers;
  e = e < 0 ? 0 : (e > L ? L : e);
  int after = L - e, res_after = (L - cm->streamed) - e;
  res_after = res_after < 0 ? 0 : res_after;
  double cn = target_layer_s(cm, n), ck = target_layer_s(cm, k), t;
  double io = cm->overlap == LS_OVERLAP_MAPPED ? cm->io_map_s : cm->io_s;
  if (cm->overlap == LS_OVERLAP_SERIAL)
    t = after * (cn - ck);
  else
    t = (after - res_after) * ((io > cn ? io : cn) - (io > ck ? io : ck)) + res_after * (cn - ck);
  if (cm->map->lmhead(cm->map_state) == LS_LMHEAD_EAGER_NPU)
    t += (double)(ls_costmodel_lmhead_ns(cm, LS_UNIT_NPU, n) - ls_costmodel_lmhead_ns(cm, LS_UNIT_NPU, k)) * 1e-9 +
         (n - k) * ls_costmodel_sample_row_s(cm);
  return t;
}

static int64_t draft_call_uncached(const ls_costmodel *cm, ls_unit unit, int tokens, int ctx_len)
{
  int L = cm->draft.n_layers;
  if (unit == LS_UNIT_NPU) {
    const ls_npu_params *npu = ls_device_npu(cm->dev);
    int64_t disp = ls_npu_dispatch_ns(npu);
    int64_t layer = ls_npu_layer_ns(npu, &cm->dw, tokens, ctx_len) - disp;
    int64_t head = lmhead_ns(cm, 1, LS_UNIT_NPU, tokens) - disp;
    return disp + L * layer + head;
  }
  return L * ls_cpu_layer_ns(ls_device_cpu(cm->dev), &cm->dw, tokens, ctx_len, cm->threads) +
         lmhead_ns(cm, 1, LS_UNIT_CPU, tokens);
}

int64_t ls_costmodel_draft_call_ns(const ls_costmodel *cm, ls_unit unit, int tokens, int ctx_len)
{
  if (tokens <= 0)
    return 0;
  unsigned slot = ((unsigned)ctx_len * 8u + (unsigned)tokens * 97u + (unsigned)unit * 31u) & (CALL_MEMO - 1);
  call_entry *e = &cm->memo->call[slot];
  if (e->tokens != tokens || e->ctx != ctx_len || e->unit != unit)
    *e = (call_entry){draft_call_uncached(cm, unit, tokens, ctx_len), tokens, ctx_len, unit};
  return e->ns;
}

static double draft_step_uncached(const ls_costmodel *cm, int n_nodes, int depth, ls_unit *unit)
{
  ls_draft_exec e = cm->map->draft_step(cm->map_state, n_nodes, depth);
  *unit = e.unit;
  return (double)e.calls * (double)ls_costmodel_draft_call_ns(cm, e.unit, e.tokens_per_call, cm->ctx_len + depth) *
         1e-9;
}

/* draft_step_s and the unit the step runs on (0 nodes: no time, unit unset). */
static double step_lookup(const ls_costmodel *cm, int n_nodes, int depth, ls_unit *unit)
{
  if (n_nodes <= 0)
    return 0.0;
  if (n_nodes >= MEMO_MAX || depth < 0 || depth >= MEMO_MAX)
    return draft_step_uncached(cm, n_nodes, depth, unit);
  step_memo *m = cm->memo;
  if (m->stamp[depth][n_nodes] != m->now) {
    m->step_s[depth][n_nodes] = draft_step_uncached(cm, n_nodes, depth, unit);
    m->unit[depth][n_nodes] = (unsigned char)*unit;
    m->stamp[depth][n_nodes] = m->now;
  }
  *unit = (ls_unit)m->unit[depth][n_nodes];
  return m->step_s[depth][n_nodes];
}

static double draft_step_s(const void *ctx, int n_nodes, int depth)
{
  ls_unit unit;
  return step_lookup(ctx, n_nodes, depth, &unit);
}

/* Lever's builder asks for every split of every batch: the units come from the memo with the
 * times (the map policy's answer depends on its arguments only, policy.h exec-valid). */
static double draft_pair_s(const void *ctx, int n1, int n2, int depth)
{
  ls_unit xu = LS_UNIT_CPU, yu = LS_UNIT_CPU;
  double a = step_lookup(ctx, n1, depth, &xu), b = step_lookup(ctx, n2, depth, &yu);
  if (n1 <= 0 || n2 <= 0)
    return a + b;
  return xu != yu ? (a > b ? a : b) : a + b;
}

void ls_costmodel_bind(ls_costmodel *cm, ls_cost_model *out)
{
  out->ctx = cm;
  out->verify_s = verify_s;
  out->draft_step_s = draft_step_s;
  out->draft_pair_s = draft_pair_s;
  out->verify_saved_s = verify_saved_s;
}

/* ---- a pass on the CPU (costmodel.h, ls_costmodel_pass) ---- */

static double pass_layer_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached)
{
  ls_layer_work w = ls_costmodel_layer_work(m);
  return (double)ls_cpu_layer_ns(ls_device_cpu(p->dev), &w, n, cached + n / 2, p->threads) * 1e-9;
}

static double pass_head_s(const ls_costmodel_pass *p, const ls_model_costs *m, int rows)
{
  return (double)ls_cpu_lmhead_ns(ls_device_cpu(p->dev), m->lmhead_bytes, m->lmhead_flops_per_token, rows,
                                  p->threads) * 1e-9;
}

int ls_costmodel_pass_host(const ls_device *dev, ls_flash_params *sf, ls_costmodel_pass *p)
{
  const ls_device_host *h = ls_device_host_params(dev);
  if (!h->present)
    return 0;
  ls_costmodel_pass q = {dev, ls_device_cpu(dev)->default_threads, 1,
                         {h->read_ahead, 0, h->fault_s_per_byte, 0, 0, 0, 1, 0}, NULL, h->head_serial};
  if (h->stream_s > 0) {
    ls_mapread_params m0 = q.map;
    m0.fault_s_per_byte = 0; /* the stream's own CPU is part of its time */
    *sf = ls_mapread_stream_flash(ls_device_flash(dev), &m0, h->stream_bytes, h->stream_s);
    q.flash = sf;
  }
  q.map.start_s = h->start_s;
  q.map.contend_s_per_byte = h->contend_s_per_byte;
  *p = q;
  return 1;
}

double ls_costmodel_pass_compute_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows)
{
  return m->n_layers * pass_layer_s(p, m, n, cached) + pass_head_s(p, m, rows);
}

double ls_costmodel_pass_warm_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows)
{
  return ls_costmodel_pass_compute_s(p, m, n, cached, rows);
}

double ls_costmodel_pass_cold_s(const ls_costmodel_pass *p, const ls_model_costs *m, int n, int cached, int rows)
{
  ls_mapread_file file = {m->n_layers, m->layer_bytes, pass_layer_s(p, m, n, cached), m->lmhead_bytes,
                          pass_head_s(p, m, rows), p->head_serial, rows > 0};
  const ls_flash_params *f = p->flash ? p->flash : ls_device_flash(p->dev);
  double t = ls_mapread_pass_s(f, &p->map, p->mapped, &file);
  return isnan(t) ? 0 : t;
}
