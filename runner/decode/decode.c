/* runner/decode: one run's decode simulation on the event engine. See decode.h.
 *
 * The simulation is cut by stage of the decode cycle around one shared run state
 * (runner/decode/decode_int.h). To follow one cycle top to bottom, read in this order:
 *   cycle_account.c  cycle start: the draft policy builds the tree for this position
 *   cycle_draft.c    DRAFT: the draft forward passes, on the CPU or the NPU
 *   cycle_verify.c   VERIFY: target layers, resident or streamed from flash, pruning at the
 *                    exit layer; then ACCEPT, the walk of the kept tree
 *   cycle_lmhead.c   LM HEAD: the output projection, eager or on demand, and sampling
 *   cycle_account.c  cycle end: the cycle's times and tokens are recorded, the next cycle
 *                    (or prompt) begins; prompts start and end there too
 * All times come from the device models; all waits emerge from the events.
 * This file holds what surrounds the cycles: the cache of loaded inputs, the text (oracle or
 * trace), settings scoping, the policy pick, residency, set-up and tear-down of a run, and
 * the metrics made from the accumulated totals (their definitions: cycle_account.c).
 * Simplifications (stated, not hidden): an EAGLE-3 head drafts from the target's features, so
 * it has no prefill of its own (a standalone draft model's prefill is not modelled either);
 * KV-cache memory is not charged to DRAM; flash idles while drafting unless verify.overlap is
 * cross-cycle; one sequence at a time (no batching across prompts). */
#include "runner/decode/decode.h"
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "devices/devsim.h"
#include "policies/costmodel.h"
#include "policies/policy.h"
#include "runner/decode/decode_int.h"
#include "runner/decode/system.h"
#include "sim/engine.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "sim/range.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

#define MAX_CACHED 24

/* ---- the cache of loaded inputs ---- */

typedef struct {
  char *id; /* owned: a device may be named by a path of any length */
  void *obj;
} cached;

struct ls_decode_cache {
  char root[512];
  cached dev[MAX_CACHED], mod[MAX_CACHED], ds[MAX_CACHED];
  int n_dev, n_mod, n_ds;
  const volatile sig_atomic_t *stop; /* ls_decode_cache_set_stop (borrowed; may be NULL) */
  const ls_policy_set *policies;     /* ls_decode_cache_set_policies (borrowed; NULL: built-ins) */
  ls_oracle_tables *tabs;            /* the oracles' quantile tables, shared by the runs (owned) */
  ls_flash_tables *ftabs;            /* the flash devices' plain latency tables, likewise (owned) */
};

void ls_decode_cache_set_policies(ls_decode_cache *c, const ls_policy_set *policies)
{
  c->policies = policies;
}

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
  int rc = ls_oracle_tables_create(&(*out)->tabs, err);
  if (!rc && (rc = ls_flash_tables_create(&(*out)->ftabs, err)))
    ls_oracle_tables_free((*out)->tabs);
  if (rc) {
    free(*out);
    *out = NULL;
  }
  return rc;
}

void ls_decode_cache_free(ls_decode_cache *c)
{
  if (!c)
    return;
  for (int i = 0; i < c->n_dev; i++)
    ls_device_free(c->dev[i].obj), free(c->dev[i].id);
  for (int i = 0; i < c->n_mod; i++)
    ls_model_free(c->mod[i].obj), free(c->mod[i].id);
  for (int i = 0; i < c->n_ds; i++)
    ls_dataset_free(c->ds[i].obj), free(c->ds[i].id);
  ls_oracle_tables_free(c->tabs);
  ls_flash_tables_free(c->ftabs);
  free(c);
}

typedef int (*load_fn)(void **out, const char *root, const char *id, ls_error *err);
static int load_dev(void **o, const char *r, const char *id, ls_error *e) { return ls_device_load_id((ls_device **)o, r, id, e); }
/* a model is an id or a model file (run --model/--draft FILE.yaml) */
static int load_mod(void **o, const char *r, const char *id, ls_error *e) { return ls_model_load_any((ls_model **)o, r, id, e); }
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
  char *copy = strdup(id);
  if (!copy)
    return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  int rc = load(out, c->root, id, err);
  if (rc) {
    free(copy);
    return rc;
  }
  tab[*n].id = copy;
  tab[(*n)++].obj = *out;
  return LS_OK;
}

/* ---- failure, and one target layer's cost (shared by the stages) ---- */

void ls_cyc_fail(ls_run_state *r, int rc)
{
  if (!r->failed)
    r->failed = rc ? rc : LS_ERUN;
}

/* One target layer's NPU time, remembered in the run's own state (a run starts zeroed, so
 * nothing is carried from another run, and no state outside the run is written): every layer of a pass asks for the same tokens and context, and ls_npu_layer_ns is a
 * pure function of them for the run's device and target, which do not change while it runs. */
int64_t ls_cyc_layer_ns(ls_run_state *r, int tokens)
{
  ls_layer_memo *m = &r->verify.layer_memo;
  if (!m->valid || m->tokens != tokens || m->ctx != r->seq.ctx_len) {
    m->ns = ls_npu_layer_ns(ls_device_npu(r->cfg.dev), &r->cfg.tw, tokens, r->seq.ctx_len);
    m->valid = 1;
    m->tokens = tokens;
    m->ctx = r->seq.ctx_len;
  }
  return m->ns;
}

/* ---- the text: the synthetic oracle, or a recorded trace (workload.trace=FILE) ----
 * A trace gives candidate sets and the target's choices; the early-exit predictor is then
 * modelled as for the oracle (score = sqrt(2) Phi^-1(AUC) [on the true path] + N(0,1),
 * keyed by the node), with the dataset's AUC. */

int ls_cyc_text_prompts(const ls_run_state *r)
{
  return r->text.trace ? ls_trace_prompts(r->text.trace) : ls_oracle_prompts(r->text.oracle);
}

void ls_cyc_text_begin(ls_run_state *r)
{
  if (r->text.trace) /* a trace counts positions from the prompt's last token (T = 0), and the
                     * first cycle is rooted at the token prefill produced (T = 1)
                     * (workloads/TRACE_FORMAT.md); the engine's pos counts the prompt too */
    ls_trace_replay_begin(r->text.trace, r->seq.prompt, r->seq.pos - r->seq.prefill_tokens + 1, &r->text.tcyc,
                          &r->text.view);
  else
    ls_oracle_begin(r->text.oracle, r->seq.prompt, r->seq.pos, &r->text.cyc, &r->text.view);
}

int ls_cyc_text_true_rank(const ls_run_state *r, int node)
{
  if (r->text.trace)
    return ls_trace_replay_true_rank(&r->text.tcyc, r->cand.tree.key[node], r->cand.tree.depth[node]);
  return ls_oracle_true_rank(&r->text.cyc, r->cand.tree.key[node], r->cand.tree.depth[node]);
}

double ls_cyc_text_exit_score(const ls_run_state *r, int node)
{
  if (!r->text.trace)
    return ls_oracle_exit_score(&r->text.cyc, r->cand.tree.key[node], r->cand.tree.depth[node], r->cand.tree.prob[node]);
  int on = ls_trace_replay_true_rank(&r->text.tcyc, r->cand.tree.key[node], r->cand.tree.depth[node]) != LS_ORACLE_OFF_PATH;
  double sep = sqrt(2.0) * gsl_cdf_ugaussian_Pinv(ls_oracle_auc(r->text.oracle));
  return sep * on + ls_normal(ls_key2(r->cand.tree.key[node], 0x7472616365ULL));
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
      const char *key = ls_kv_key(in, i), *colon = strchr(key, ':'), *origin = ls_kv_origin(in, i);
      if (pass == 0 && !colon)
        rc = ls_kv_set(*out, key, ls_kv_value(in, i), origin, err);
      if (pass == 0 || !colon)
        continue;
      char scope[64];
      snprintf(scope, sizeof scope, "%.*s", (int)(colon - key), key);
      if (!ls_system_find(scope))
        rc = ls_error_set(err, LS_EUSAGE, "%s%s%s: unknown system '%s' in a scoped setting%s%s%s", origin,
                          origin[0] ? ": " : "", key, scope, ls_system_nearest(scope) ? " (did you mean " : "",
                          ls_system_nearest(scope) ? ls_system_nearest(scope) : "",
                          ls_system_nearest(scope) ? "?)" : "");
      else if (strcmp(scope, system) == 0)
        rc = ls_kv_set(*out, colon + 1, ls_kv_value(in, i), origin, err);
    }
  return rc;
}

/* Prefixes err (a reader's message without a location) with where key's value was written
 * and, when the message does not name it, the setting itself. */
/* A trace replays one dataset's prompts as one draft saw them: another dataset or draft, or
 * fewer prompts than the run asks for, would replay something else without a word. */
static int trace_fits(ls_run_state *r, const ls_run_spec *s, const char *path, ls_error *err)
{
  const char *ds = ls_trace_meta(r->text.trace, "dataset");
  const char *dr = ls_trace_meta(r->text.trace, "draft");
  const char *want = r->cfg.draft ? ls_model_id(r->cfg.draft) : NULL;
  if (ds && strcmp(ds, s->dataset) != 0)
    return ls_error_set(err, LS_EINVALID, "workload.trace=%s was recorded on dataset %s, not %s",
                        path, ds, s->dataset);
  if (dr && want && strcmp(dr, want) != 0)
    return ls_error_set(err, LS_EINVALID, "workload.trace=%s was recorded with draft %s, not %s",
                        path, dr, want);
  int have = ls_trace_prompts(r->text.trace);
  int asked = r->text.oracle ? ls_oracle_prompts(r->text.oracle) : 0;
  if (asked > have)
    return ls_error_set(err, LS_EINVALID, "workload.trace=%s holds %d prompt%s, the run asks for "
                        "%d (workload.prompts)", path, have, have == 1 ? "" : "s", asked);
  return LS_OK;
}

static int at_setting(ls_kv *kv, const char *key, int rc, ls_error *err)
{
  const char *origin = ls_kv_origin_of(kv, key);
  if (!rc || !origin || !origin[0] || !err || err->file[0]) /* keep a file's own location */
    return rc;
  if (strstr(err->msg, key))
    ls_error_wrap(err, "%s", origin);
  else
    ls_error_wrap(err, "%s: %s=%s", origin, key, ls_kv_find(kv, key));
  /* The exit-code rule (README, sim/kv.c): a bad value typed on the command line is a usage
   * error (64), the same value read from a file is bad input data (65). */
  int typed = strncmp(origin, "--", 2) == 0 || strncmp(origin, "argument ", 9) == 0;
  if (typed && ls_status_exit(rc) == 65)
    rc = err->code = LS_EUSAGE;
  return rc;
}

int ls_cyc_at_setting(ls_kv *kv, const char *key, int rc, ls_error *err) { return at_setting(kv, key, rc, err); }

static int pick_policies(ls_run_state *r, const ls_policy_set *ps, const ls_system *sys, ls_kv *kv, ls_error *err)
{
  const char *d, *p, *m;
  ls_kv_reader(kv, "system");
  ls_kv_string(kv, "policy.draft", sys->draft, &d);
  ls_kv_string(kv, "policy.prune", sys->prune, &p);
  ls_kv_string(kv, "policy.map", sys->map, &m);
  r->cfg.dops = ls_policy_set_draft(ps, d);
  r->cfg.pops = ls_policy_set_prune(ps, p);
  r->cfg.mops = ls_policy_set_map(ps, m);
  /* a wrong name is a usage error wherever it is written (README, "Exit codes") */
  if (!r->cfg.dops)
    return at_setting(kv, "policy.draft", ls_error_set(err, LS_EUSAGE, "policy.draft=%s: unknown draft policy", d), err);
  if (!r->cfg.pops)
    return at_setting(kv, "policy.prune", ls_error_set(err, LS_EUSAGE, "policy.prune=%s: unknown prune policy", p), err);
  if (!r->cfg.mops)
    return at_setting(kv, "policy.map", ls_error_set(err, LS_EUSAGE, "policy.map=%s: unknown map policy", m), err);
  ls_kv_reader(kv, "draft policy");
  int rc = r->cfg.dops->create(&r->cfg.dstate, kv, err);
  ls_kv_reader(kv, "prune policy");
  if (!rc) rc = r->cfg.pops->create(&r->cfg.pstate, kv, err);
  ls_kv_reader(kv, "map policy");
  if (!rc) rc = r->cfg.mops->create(&r->cfg.mstate, kv, err);
  if (!rc && ls_policy_set_provenance(ps, r->cfg.dops, r->cfg.pops, r->cfg.mops, r->res->plugins,
                                      sizeof r->res->plugins))
    rc = ls_error_set(err, LS_ERANGE, "decode: plug-in names too long to record");
  return rc;
}

/* The draft model: the target's default_draft unless model.draft names another; a target
 * never drafts for itself (its "speculation" would be the target's own work twice). */
static int load_draft(ls_run_state *r, ls_decode_cache *c, ls_run_spec *s, ls_kv *kv, ls_error *err)
{
  const char *draft_id, *dquant;
  void *obj;
  ls_kv_string(kv, "model.draft", ls_model_default_draft(r->cfg.target), &draft_id);
  if (strcmp(draft_id, s->model) == 0)
    return at_setting(kv, "model.draft", ls_error_set(err, LS_EINVALID, "model.draft=%s: a target cannot "
                                                      "draft for itself", draft_id), err);
  int rc = at_setting(kv, "model.draft", cache_get(c, c->mod, &c->n_mod, draft_id, load_mod, &obj, err), err);
  if (rc)
    return rc;
  r->cfg.draft = obj;
  if (strcmp(ls_model_family(r->cfg.draft), ls_model_family(r->cfg.target)) != 0)
    return at_setting(kv, "model.draft", ls_error_set(err, LS_EINVALID, "model.draft=%s: draft %s "
                                                      "(%s) does not match target %s (%s): families "
                                                      "differ", draft_id, draft_id,
                                                      ls_model_family(r->cfg.draft), s->model,
                                                      ls_model_family(r->cfg.target)), err);
  ls_kv_string(kv, "model.draft_quant", ls_model_default_quant(r->cfg.draft), &dquant);
  return at_setting(kv, "model.draft_quant", ls_model_costs_get(r->cfg.draft, dquant, &r->cfg.dc, err), err);
}

/* The documented maxima of prompts and tokens bound a run's time together (sim/range.h,
 * LS_RANGE_RUN_TOKENS): prompts x tokens per prompt, before anything is built. */
static int run_bound(ls_kv *kv, const ls_dataset *ds, double max_tokens, ls_error *err)
{
  double prompts = 0;
  int rc = ls_range_kv(kv, "workload.prompts", LS_R_PROMPTS, ls_dataset_default_prompts(ds), &prompts, err);
  return rc ? rc : ls_range_run_tokens(kv, prompts, max_tokens, err);
}

static int load_inputs(ls_run_state *r, ls_decode_cache *c, ls_run_spec *s, ls_kv *kv, double max_tokens,
                       ls_error *err)
{
  void *obj;
  const char *quant;
  int rc = cache_get(c, c->dev, &c->n_dev, s->device, load_dev, &obj, err);
  if (!rc) rc = ls_device_clone(&r->cfg.dev, obj, err);
  ls_kv_reader(kv, "device");
  if (!rc) rc = ls_device_apply(r->cfg.dev, kv, err); /* always: its reads declare the device keys */
  if (!rc) { /* the run's own copy (a fresh clone) counts its NPU calls padding decides */
    ls_device_set_npu_report(r->cfg.dev, &r->res->npu_report);
    r->res->npu_reported = 1;
  }
  if (!rc) rc = cache_get(c, c->mod, &c->n_mod, s->model, load_mod, &obj, err);
  if (rc)
    return rc;
  r->cfg.target = obj;
  if (!ls_model_is_target(r->cfg.target))
    return ls_error_set(err, LS_EINVALID, "model '%s' is a draft model, not a target", s->model);
  ls_kv_reader(kv, "model");
  ls_kv_string(kv, "model.quant", ls_model_default_quant(r->cfg.target), &quant);
  rc = at_setting(kv, "model.quant", ls_model_costs_get(r->cfg.target, quant, &r->cfg.tc, err), err);
  if (!rc) rc = load_draft(r, c, s, kv, err);
  ls_kv_reader(kv, "workload");
  if (!rc) rc = cache_get(c, c->ds, &c->n_ds, s->dataset, load_ds, &obj, err);
  if (!rc) rc = run_bound(kv, obj, max_tokens, err);
  if (!rc && r->dry) /* the text is built only to be simulated */
    rc = ls_oracle_check(obj, r->cfg.target, r->cfg.draft, kv, err);
  else if (!rc)
    rc = ls_oracle_create_shared(&r->text.oracle, c->tabs, obj, r->cfg.target, r->cfg.draft, s->seed, kv, err);
  const char *trace_path;
  ls_kv_string(kv, "workload.trace", NULL, &trace_path);
  if (!rc && trace_path)
    rc = ls_trace_read(&r->text.trace, trace_path, err); /* its messages name the file */
  const char *rec = r->text.trace ? ls_trace_meta(r->text.trace, "target") : NULL;
  if (!rc && rec && strcmp(rec, s->model) != 0) /* a trace is one target's behaviour */
    rc = at_setting(kv, "workload.trace", ls_error_set(err, LS_EINVALID, "workload.trace=%s was recorded "
                                                       "with target %s, not %s", trace_path, rec, s->model), err);
  if (!rc && r->text.trace)
    rc = at_setting(kv, "workload.trace", trace_fits(r, s, trace_path, err), err);
  r->cfg.tw = ls_costmodel_layer_work(&r->cfg.tc);
  r->cfg.L = r->cfg.tc.n_layers;
  return rc;
}

/* Execution settings (the pipeline they shape: cycle_verify.c):
 *   verify.overlap = serial | prefetch | cross-cycle | mapped (default serial: a layer is read, then
 *     computed. The evidence, docs/CALIBRATION.md §3: the paper's Fig. 5 (measured on the
 *     OnePlus 12 with the target streamed from flash) shows verification growing with the tree
 *     until throughput peaks inside 4-64 tokens, which cannot happen when reads hide the Q4_0
 *     compute (prefetch; view `overlap`); Table 1 splits a verification into flash I/O and the
 *     rest; llama.cpp maps Q4_0 weights from flash, so a layer's compute faults its weights in
 *     (src:lever-html, src:llamacpp-common). The other modes are in the regime map; mapped
 *     is that runtime's read-ahead: docs/CALIBRATION.md, "Overlap");
 *   verify.read_ahead = bytes (mapped only; default 128 KiB, Linux's default read_ahead_kb,
 *     src:linux-readahead): the read-ahead window of the device the model file is mapped from;
 *   verify.head_memory = auto | dram | flash: where the output projection's weights live
 *     (auto: in app DRAM when the CPU computes it, charged to the resident budget; streamed
 *     with the layers when the NPU graph computes it, which needs NPU-mapped memory). */
static int read_exec(ls_run_state *r, ls_kv *kv, ls_error *err)
{
  static const char *const MEM[] = {"auto", "dram", "flash", NULL};
  int ov = LS_OVERLAP_SERIAL, mem = 0;
  int rc = ls_kv_enum(kv, "verify.overlap", ls_overlap_names, ov, &ov, err);
  if (!rc) rc = ls_kv_enum(kv, "verify.head_memory", MEM, mem, &mem, err);
  r->cfg.overlap = (ls_overlap)ov;
  /* read only in mapped mode, so the other modes' runs keep their settings (and their ids) */
  r->cfg.read_ahead = LS_READ_AHEAD_DEFAULT;
  if (!rc && r->cfg.overlap == LS_OVERLAP_MAPPED)
    rc = ls_kv_unit(kv, "verify.read_ahead", LS_U_BYTES, 4096, 1073741824.0, LS_READ_AHEAD_DEFAULT,
                    &r->cfg.read_ahead, err);
  /* mapped: the page cache holds the read-ahead, no layer buffer of the runtime's own */
  r->cfg.buffers = r->cfg.overlap == LS_OVERLAP_SERIAL || r->cfg.overlap == LS_OVERLAP_MAPPED ? 1 : 2;
  r->cfg.lmhead = r->cfg.mops->lmhead(r->cfg.mstate);
  r->cfg.head_in_dram = mem == 0 ? r->cfg.lmhead == LS_LMHEAD_DEMAND_CPU : mem == 1;
  /* the setting's whole effect: head_in_dram (nothing else reads mem) */
  snprintf(r->res->head_memory, sizeof r->res->head_memory, "%s", r->cfg.head_in_dram ? "dram" : "flash");
  return rc;
}

/* Resident target layers: the profile's resident target capped by what the DRAM budget holds
 * beside the draft, the KV caches, the buffers and a DRAM head (ls_costmodel_dram_room), whole
 * layers, first layers first (why a resident prefix: cycle_verify.c). */
static int residency(ls_run_state *r, const ls_system *sys, ls_decode_result *out)
{
  const ls_dram_params *d = ls_device_dram(r->cfg.dev);
  if (sys->target_in_dram) {
    double need = r->cfg.tc.total_bytes;
    if (need > d->app_budget) {
      out->valid = 0;
      snprintf(out->message, sizeof out->message,
               "%s: target needs %.2f GB, more than the app's DRAM budget of %.2f GB on %s",
               sys->name, need * 1e-9, d->app_budget * 1e-9, ls_device_id(r->cfg.dev));
      return 0;
    }
    r->cfg.in_dram = 1;
    r->cfg.resident = r->cfg.L;
    return 1;
  }
  ls_run_config *g = &r->cfg;
  double room = ls_costmodel_dram_room(g->dev, &g->tc, &g->dc, g->head_in_dram, g->buffers);
  if (room < 0) { /* the draft, the KV caches, the buffers and a DRAM head do not fit */
    out->valid = 0;
    snprintf(out->message, sizeof out->message,
             "%s: draft, KV caches, layer buffers and output projection need %.2f GB more than the"
             " app's DRAM budget of %.2f GB on %s",
             sys->name, -room * 1e-9, d->app_budget * 1e-9, ls_device_id(g->dev));
    return 0;
  }
  g->resident = ls_costmodel_resident_layers(g->dev, &g->tc, &g->dc, g->head_in_dram, g->buffers);
  return 1;
}

static void add_metric(ls_decode_result *o, const char *name, double v, const char *unit)
{
  if (o->n_metrics < LS_DECODE_MAX_METRICS)
    o->metrics[o->n_metrics++] = (ls_db_metric){name, v, unit};
}

static double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

static void metrics(ls_run_state *r, ls_decode_result *o)
{
  double dec_s = r->acct.decode_ns * 1e-9;
  int cores = ls_cpu_total_cores(ls_device_cpu(r->cfg.dev));
  add_metric(o, "throughput_tps", ratio((double)r->acct.tokens, dec_s), "tok/s");
  add_metric(o, "tau", r->acct.tau.mean, "tok/cycle");
  add_metric(o, "ttft_s", r->acct.ttft.mean, "s");
  add_metric(o, "token_latency_p50_s", ls_sample_quantile(r->acct.tok_lat, 0.5), "s");
  add_metric(o, "token_latency_p99_s", ls_sample_quantile(r->acct.tok_lat, 0.99), "s");
  add_metric(o, "io_share", ratio(r->acct.io_wait_ns, r->acct.verify_ns_total), "ratio");
  add_metric(o, "wasted_verify", 1.0 - ratio(r->acct.useful_compute, r->acct.compute_total), "ratio");
  /* the token-count measure (docs/ARCHITECTURE.md, "Metrics"), beside the compute-time one above */
  add_metric(o, "wasted_verify_tokens", 1.0 - ratio(r->acct.useful_token_layers, r->acct.token_layers_total), "ratio");
  add_metric(o, "util_npu", ratio(r->acct.npu_busy, r->acct.decode_ns), "ratio");
  add_metric(o, "util_cpu", ratio(r->acct.cpu_busy, r->acct.decode_ns * cores), "ratio");
  add_metric(o, "util_flash", ratio(r->acct.flash_busy, r->acct.decode_ns), "ratio");
  add_metric(o, "energy_per_token_j", ratio(r->acct.decode_energy, (double)r->acct.tokens), "J/tok");
  add_metric(o, "share_draft", ratio(r->acct.cycle_draft.sum, dec_s), "ratio");
  add_metric(o, "share_verify", ratio(r->acct.cycle_verify.sum, dec_s), "ratio");
  add_metric(o, "share_lmhead", ratio(r->acct.cycle_lmhead.sum, dec_s), "ratio");
  add_metric(o, "verify_s_mean", r->acct.cycle_verify.mean + r->acct.cycle_lmhead.mean, "s");
  add_metric(o, "draft_s_mean", r->acct.cycle_draft.mean, "s");
  /* the passes' durations added up: above draft_s_mean when CPU and NPU passes overlapped */
  add_metric(o, "draft_work_s_mean", r->acct.draft_work_s.mean, "s");
  add_metric(o, "lmhead_s_mean", r->acct.cycle_lmhead.mean, "s");
  add_metric(o, "tree_size_mean", r->acct.tree_size.mean, "tok");
  add_metric(o, "verify_tokens_mean", r->acct.verify_tokens.mean, "tok");
  add_metric(o, "cycles", (double)r->acct.cycles, "count");
  add_metric(o, "tokens", (double)r->acct.tokens, "tok");
  add_metric(o, "target_calls_per_token", ratio((double)r->acct.cycles, (double)r->acct.tokens), "ratio");
  add_metric(o, "decode_s", dec_s, "s");
  add_metric(o, "resident_layers", r->cfg.resident, "count");
  add_metric(o, "prune_calls", (double)r->acct.prune_calls, "count");
  add_metric(o, "accepted_pruned", (double)r->acct.accepted_pruned, "count");
  /* Table 1's other reading: the flash's busy time over the verification time (the share of a
   * verification during which flash is reading), beside io_share (the NPU's wait for weights) */
  add_metric(o, "io_busy_share", ratio(r->acct.flash_busy, r->acct.verify_ns_total), "ratio");
  add_metric(o, "cost_err_median", ls_sample_quantile(r->acct.cost_err, 0.5), "ratio");
  add_metric(o, "cost_bias_median", ls_sample_quantile(r->acct.cost_bias, 0.5), "ratio");
  /* the tau the planner prices on-demand projections with at the end: the observed one */
  add_metric(o, "planner_tau", ls_costmodel_tau(r->cfg.cm), "tok/cycle");
}

static void free_run(ls_run_state *r)
{
  if (r->cfg.dops && r->cfg.dstate) r->cfg.dops->destroy(r->cfg.dstate);
  if (r->cfg.pops && r->cfg.pstate) r->cfg.pops->destroy(r->cfg.pstate);
  if (r->cfg.mops && r->cfg.mstate) r->cfg.mops->destroy(r->cfg.mstate);
  ls_costmodel_free(r->cfg.cm);
  ls_oracle_free(r->text.oracle);
  ls_trace_free(r->text.trace);
  ls_devsim_free(r->ds);
  ls_engine_free(r->eng);
  ls_sample_free(r->acct.tok_lat);
  ls_sample_free(r->acct.cost_err);
  ls_sample_free(r->acct.cost_bias);
  ls_device_free(r->cfg.dev);
  free(r->verify.map_tokens);
  free(r->verify.map_wait);
  free(r->verify.map_waited);
}

/* The flash requests of one target pass against LS_RUN_MAX_FLASH_REQUESTS (decode.h). */
static int check_work(const ls_run_state *r, ls_error *err)
{
  double chunk = ls_device_flash(r->cfg.dev)->chunk_bytes;
  double req = (r->cfg.L - r->cfg.resident) * ceil(r->cfg.tc.layer_bytes / chunk) + ceil(r->cfg.tc.lmhead_bytes / chunk);
  if (req <= LS_RUN_MAX_FLASH_REQUESTS)
    return LS_OK;
  return ls_error_set(err, LS_EINVALID, "model '%s' is too large to simulate: one pass would read "
                      "%.3g GB from flash in %.3g requests (leversim's limit is %.0e); check its arch",
                      ls_model_id(r->cfg.target), ((r->cfg.L - r->cfg.resident) * r->cfg.tc.layer_bytes +
                      r->cfg.tc.lmhead_bytes) / 1e9, req, LS_RUN_MAX_FLASH_REQUESTS);
}

static int simulate(ls_run_state *r, ls_decode_cache *c, ls_run_spec *s, ls_error *err)
{
  int rc = check_work(r, err);
  if (!rc) rc = ls_engine_create(&r->eng, err);
  if (!rc) rc = ls_devsim_create_shared(&r->ds, r->cfg.dev, r->eng, s->seed, 0, c->ftabs, err);
  if (!rc) rc = ls_sample_create(&r->acct.tok_lat, err);
  if (!rc) rc = ls_sample_create(&r->acct.cost_err, err);
  if (!rc) rc = ls_sample_create(&r->acct.cost_bias, err);
  if (rc)
    return rc;
  r->err = err;
  r->seq.prompt = 0;
  ls_cpu_assign(ls_device_cpu(r->cfg.dev), r->cfg.threads, r->cfg.cpu_per);
  r->cfg.prefetch = r->cfg.overlap == LS_OVERLAP_CROSS && !r->cfg.in_dram;
  if (r->cfg.overlap == LS_OVERLAP_MAPPED) { /* the plan of a mapped pass (cycle_verify.c) */
    size_t n = (size_t)r->cfg.L + 1;
    r->verify.map_tokens = calloc(n, sizeof *r->verify.map_tokens);
    r->verify.map_wait = calloc(n, sizeof *r->verify.map_wait);
    r->verify.map_waited = calloc(n, 1);
    if (!r->verify.map_tokens || !r->verify.map_wait || !r->verify.map_waited)
      return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  }
  if (r->cfg.prefetch) /* the first pass's reads start as the later ones do, ahead of it */
    ls_cyc_prefetch(r);
  ls_cyc_prompt_start(r);
  uint64_t budget = LS_RUN_EVENTS_PER_TOKEN * (uint64_t)r->cfg.max_tokens * (uint64_t)ls_cyc_text_prompts(r);
  ls_engine_set_bounds(r->eng, c->stop, budget);
  ls_engine_run(r->eng);
  if (r->failed)
    return r->failed;
  if (ls_engine_halted(r->eng) == LS_EINTR)
    return ls_error_set(err, LS_EINTR, "interrupted");
  if (ls_engine_halted(r->eng))
    return ls_error_set(err, LS_EINVALID, "model '%s' is too large to simulate: more than %llu "
                        "simulated events per generated token (leversim's limit of one run); "
                        "check its arch", ls_model_id(r->cfg.target),
                        (unsigned long long)LS_RUN_EVENTS_PER_TOKEN);
  if (r->seq.prompt < ls_cyc_text_prompts(r) || r->phase != LS_PHASE_IDLE)
    return ls_error_set(err, LS_ESTATE, "decode: the simulation stalled in prompt %d, phase %s", r->seq.prompt,
                        ls_phase_name((int)r->phase));
  return LS_OK;
}

/* The set-up shared by the dry check and the real run: the system's scoped settings, the
 * inputs, the policies and the execution settings; every setting must have been read. */
static int setup(ls_run_state *r, ls_decode_cache *c, ls_run_spec *s, const ls_system *sys, ls_kv *kv, ls_error *err)
{
  double max_tokens = 0, threads = 0;
  ls_kv_reader(kv, "workload");
  int rc = ls_range_kv(kv, "workload.max_tokens", LS_R_TOKENS, 128, &max_tokens, err);
  if (!rc) rc = load_inputs(r, c, s, kv, max_tokens, err);
  ls_kv_reader(kv, "runner");
  if (!rc) rc = ls_range_kv(kv, "run.threads", LS_R_THREADS, ls_device_cpu(r->cfg.dev)->default_threads, &threads, err);
  if (!rc) rc = pick_policies(r, c->policies, sys, kv, err);
  ls_kv_reader(kv, "verify");
  if (!rc) rc = read_exec(r, kv, err);
  const char *unknown = rc ? NULL : ls_kv_unused(kv, "");
  if (unknown) /* the caller may tell which other systems read it */
    snprintf(r->res->unknown_key, sizeof r->res->unknown_key, "%s", unknown);
  if (!rc) rc = ls_kv_check_used(kv, "", err);
  r->cfg.max_tokens = (int)max_tokens;
  r->cfg.threads = (int)threads;
  return rc;
}

/* Copies the declarations of kv (every setting read, given or default) into out. */
static int keep_settings(const ls_kv *kv, ls_decode_result *out, ls_error *err)
{
  int n = ls_kv_decl_count(kv);
  out->settings = n ? malloc((size_t)n * sizeof *out->settings) : NULL;
  if (n && !out->settings)
    return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  for (int i = 0; i < n; i++)
    out->settings[i] = *ls_kv_decl_at(kv, i);
  out->n_settings = n;
  return LS_OK;
}

/* The settings the draft policy applies at another value than the one read (a budget its
 * other settings cap), so a sweep can say which of its points change nothing. */
static void effective_values(const ls_run_state *r, ls_decode_result *out)
{
  const ls_draft_ops *d = r->cfg.dops;
  for (int i = 0; d && d->effective && i < out->n_settings && out->n_effective < LS_DECODE_MAX_EFFECTIVE; i++) {
    ls_decode_effective *e = &out->effective[out->n_effective];
    if (strncmp(out->settings[i].key, "draft.", 6) != 0 ||
        !d->effective(r->cfg.dstate, out->settings[i].key, &e->value, e->why, sizeof e->why))
      continue;
    snprintf(e->key, sizeof e->key, "%s", out->settings[i].key);
    out->n_effective++;
  }
}

/* dry: everything up to the simulation (ls_decode_check). */
static int decode(ls_decode_cache *c, ls_run_spec *s, int keep_steps, int dry, ls_decode_result *out,
                  ls_error *err)
{
  memset(out, 0, sizeof *out);
  out->valid = 1;
  const ls_system *sys = ls_system_find(s->system);
  if (!sys)
    return ls_error_set(err, LS_ENOTFOUND, "unknown system '%s'", s->system);
  ls_kv *kv = NULL;
  int rc = scoped_settings(s->settings, s->system, &kv, err);
  if (sys->host) { /* llama-spec: the CPU replay, no event engine (cycle_host.c) */
    if (!rc) rc = ls_cyc_host_run(c->root, s, kv, keep_steps, dry, out, err);
    if (!rc) rc = keep_settings(kv, out, err);
    ls_kv_free(kv);
    return rc;
  }
  ls_run_state *r = calloc(1, sizeof *r);
  if (!r) {
    ls_kv_free(kv);
    return ls_error_set(err, LS_ENOMEM, "decode: out of memory");
  }
  r->res = out;
  r->keep_steps = keep_steps;
  r->dry = dry;
  if (!rc) rc = setup(r, c, s, sys, kv, err);
  if (!rc) rc = keep_settings(kv, out, err);
  if (!rc) effective_values(r, out);
  if (!rc) rc = check_work(r, err); /* before the DRAM fit: a huge model is an input error, not a result */
  if (!rc && residency(r, sys, out)) {
    r->cfg.exit_layer = r->cfg.pops->exit_layer(r->cfg.pstate, r->cfg.L);
    if (r->cfg.exit_layer <= 0)
      r->cfg.exit_layer = r->cfg.L; /* never prunes */
    /* a check needs no cost model: creating one reads nothing and fails only without memory */
    if (!dry)
      rc = ls_costmodel_create(&r->cfg.cm, r->cfg.dev, &r->cfg.tc, &r->cfg.dc, r->cfg.mops, r->cfg.mstate, r->cfg.resident, r->cfg.threads, err);
    if (!rc && !dry) {
      ls_costmodel_set_exec(r->cfg.cm, r->cfg.overlap, r->cfg.head_in_dram);
      ls_costmodel_set_read_ahead(r->cfg.cm, r->cfg.read_ahead);
      ls_costmodel_bind(r->cfg.cm, &r->cfg.cost);
      rc = simulate(r, c, s, err);
    }
    if (!rc && !dry)
      metrics(r, out);
  }
  snprintf(out->config_json, sizeof out->config_json,
           "{\"draft\":\"%s\",\"prune\":\"%s\",\"map\":\"%s\",\"draft_model\":\"%s\","
           "\"resident_layers\":%d,\"exit_layer\":%d,\"threads\":%d,\"overlap\":\"%s\",\"head_in_dram\":%d}",
           r->cfg.dops ? r->cfg.dops->name : "", r->cfg.pops ? r->cfg.pops->name : "", r->cfg.mops ? r->cfg.mops->name : "",
           r->cfg.draft ? ls_model_id(r->cfg.draft) : "", r->cfg.resident, r->cfg.exit_layer, r->cfg.threads,
           ls_overlap_names[r->cfg.overlap], r->cfg.head_in_dram);
  free_run(r);
  free(r);
  ls_kv_free(kv);
  return rc;
}

int ls_decode_run(ls_decode_cache *c, ls_run_spec *s, int keep_steps, ls_decode_result *out,
                  ls_error *err)
{
  return decode(c, s, keep_steps, 0, out, err);
}

int ls_decode_check(ls_decode_cache *c, ls_run_spec *s, ls_decode_result *out, ls_error *err)
{
  return decode(c, s, 0, 1, out, err);
}

void ls_decode_result_free(ls_decode_result *r)
{
  if (!r)
    return;
  free(r->steps);
  r->steps = NULL;
  r->n_steps = r->cap_steps = 0;
  free(r->prompts);
  r->prompts = NULL;
  r->n_prompts = r->cap_prompts = 0;
  free(r->settings);
  r->settings = NULL;
  r->n_settings = 0;
}
