/* runner/decode/cycle_host: the system `llama-spec`, a llama.cpp-style speculative run on the
 * CPU of the host a profile's `host:` section describes (docs/VALIDATION.md §0.5): what
 * `leversim testbed validate` predicts for the testbed's speculative run, made by `leversim run`.
 *
 * Model, per prompt p (no event engine: the runtime makes one pass at a time on the CPU, so
 * its timeline is the passes' sum, in order):
 *   passes(p)   = ls_cpureplay_spec_passes(rank_p, P_p, k, N_p): the draft's catch-up pass and
 *                 k - 1 one-token passes in memory, the target's verification of k + 1 tokens
 *                 from an evicted page cache (runner/decode/cpu_replay.h);
 *   draft_s(p), verify_s(p) = ls_cpureplay_run_s over passes(p), each pass priced by
 *                 ls_costmodel_pass_host(device): the profile's CPU at its threads, mapped reads
 *                 with the host's read-ahead, fault cost, stream rate, start wait, head share;
 *   decode_s(p) = draft_s(p) + verify_s(p); tokens(p) = the tokens generated (the last cycle
 *                 may pass N_p, as the runtime's does); cycles(p) = its cycles.
 * where k = draft.gamma (tokens a cycle drafts, default 4), P_p = workload.prompt_tokens
 * (the runtime's prompt; 0, the default: the prompt's length in the text), N_p =
 * min(workload.max_tokens, the prompt's output length in the text), and rank_p the target's
 * rank at each text position: the trace's (workload.trace=FILE, read as the testbed's runtime
 * reads it: only its ranks, so a trace recorded with another target is a schedule of
 * acceptance, as the testbed imposes llama-3.1-8b's on its own models) or, without one, a
 * trace of the synthetic oracle recorded in memory (ls_trace_record: top-1 only, 16 positions
 * past the output for k <= 16). The run's time per generated token is
 *   time_per_token_s = sum_p decode_s(p) / sum_p tokens(p),
 * throughput its inverse; on one prompt it is `testbed validate`'s spec prediction bit for bit
 * (ctest testbed.host_spec). Not modelled: prefill (no time to first token), energy, the
 * NPU. A profile without a host section cannot run it (valid = 0, the message says why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "devices/device.h"
#include "policies/costmodel.h"
#include "runner/decode/cpu_replay.h"
#include "runner/decode/decode_int.h"
#include "sim/range.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

#define HOST_K_MAX 16 /* ls_cpureplay_spec_passes's bound on k */

typedef struct host_run {
  ls_device *dev;                  /* owned */
  ls_model *target, *draft;        /* owned */
  ls_dataset *ds;                  /* owned */
  ls_trace *trace;                 /* owned: the file's, or the oracle's recorded in memory */
  ls_model_costs tc, dc;
  ls_costmodel_pass pass;
  ls_flash_params flash;           /* what pass.flash points to */
  int has_host, k, prompts, prompt_tokens, max_tokens;
  const char *trace_path;          /* borrowed from the settings; NULL: the oracle */
} host_run;

static void host_free(host_run *h)
{
  ls_trace_free(h->trace);
  ls_dataset_free(h->ds);
  ls_model_free(h->draft);
  ls_model_free(h->target);
  ls_device_free(h->dev);
}

/* The device with the run's device settings, and its host section's pricing (if any). */
static int host_device(host_run *h, const char *root, const ls_run_spec *s, ls_kv *kv, ls_error *err)
{
  int rc = ls_device_load_id(&h->dev, root, s->device, err);
  ls_kv_reader(kv, "device");
  if (!rc) rc = ls_device_apply(h->dev, kv, err);
  if (!rc) h->has_host = ls_costmodel_pass_host(h->dev, &h->flash, &h->pass);
  return rc;
}

/* Target and draft: ids or model files (ls_model_load_any). Any model may be the runtime's
 * target (the testbed's is a draft model's shape); the draft is model.draft, by default the
 * target's default_draft, and must be of the target's family (one vocabulary). */
static int host_models(host_run *h, const char *root, const ls_run_spec *s, ls_kv *kv, ls_error *err)
{
  const char *quant, *draft, *dquant;
  ls_kv_reader(kv, "model");
  int rc = ls_model_load_any(&h->target, root, s->model, err);
  if (rc)
    return rc;
  ls_kv_string(kv, "model.quant", ls_model_default_quant(h->target), &quant);
  rc = ls_cyc_at_setting(kv, "model.quant", ls_model_costs_get(h->target, quant, &h->tc, err), err);
  ls_kv_string(kv, "model.draft", ls_model_is_target(h->target) ? ls_model_default_draft(h->target) : NULL, &draft);
  if (!rc && !draft)
    return ls_error_set(err, LS_EUSAGE, "llama-spec: model %s has no default draft; give one (--draft M or --set "
                        "model.draft=M: an id or a model file)", s->model);
  if (!rc && strcmp(draft, s->model) == 0)
    return ls_cyc_at_setting(kv, "model.draft", ls_error_set(err, LS_EINVALID, "model.draft=%s: a target cannot "
                                                             "draft for itself", draft), err);
  if (!rc) rc = ls_cyc_at_setting(kv, "model.draft", ls_model_load_any(&h->draft, root, draft, err), err);
  if (!rc && strcmp(ls_model_family(h->draft), ls_model_family(h->target)) != 0)
    return ls_cyc_at_setting(kv, "model.draft", ls_error_set(err, LS_EINVALID, "model.draft=%s: draft family %s "
                             "does not match target %s (%s)", draft, ls_model_family(h->draft), s->model,
                             ls_model_family(h->target)), err);
  if (rc)
    return rc;
  ls_kv_string(kv, "model.draft_quant", ls_model_default_quant(h->draft), &dquant);
  return ls_cyc_at_setting(kv, "model.draft_quant", ls_model_costs_get(h->draft, dquant, &h->dc, err), err);
}

/* The text's ranks: the trace file's (its dataset must be the run's, its prompts enough), or
 * the oracle's recorded in memory (dry: the oracle's settings checked only). */
static int host_text(host_run *h, const char *root, const ls_run_spec *s, ls_kv *kv, int dry, ls_error *err)
{
  double prompts = 0, tokens = 0;
  ls_kv_reader(kv, "workload");
  int rc = ls_range_kv(kv, "workload.max_tokens", LS_R_TOKENS, 128, &tokens, err);
  if (!rc) rc = ls_dataset_load_id(&h->ds, root, s->dataset, err);
  if (!rc) rc = ls_range_kv(kv, "workload.prompts", LS_R_PROMPTS, ls_dataset_default_prompts(h->ds), &prompts, err);
  if (!rc) rc = ls_range_run_tokens(kv, prompts, tokens, err);
  double pt = 0;
  if (!rc) rc = ls_range_kv(kv, "workload.prompt_tokens", LS_R_PROMPT_TOKENS, 0, &pt, err);
  ls_kv_string(kv, "workload.trace", NULL, &h->trace_path);
  h->prompts = (int)prompts;
  h->max_tokens = (int)tokens;
  h->prompt_tokens = (int)pt;
  if (rc || !h->trace_path) { /* the oracle */
    ls_oracle *o = NULL;
    if (!rc && !ls_model_is_target(h->target))
      return ls_error_set(err, LS_EINVALID, "llama-spec: model %s is a draft model, so the synthetic oracle has no "
                          "text for it: give a recorded trace (--set workload.trace=FILE, leversim trace record)",
                          s->model);
    if (!rc && dry)
      rc = ls_oracle_check(h->ds, h->target, h->draft, kv, err);
    else if (!rc)
      rc = ls_oracle_create(&o, h->ds, h->target, h->draft, s->seed, kv, err);
    if (!rc && o)
      rc = ls_trace_record(&h->trace, o, 1, 0, HOST_K_MAX, s->dataset, s->model, ls_model_id(h->draft), s->seed, err);
    ls_oracle_free(o);
    return rc;
  }
  rc = ls_cyc_at_setting(kv, "workload.trace", ls_trace_read(&h->trace, h->trace_path, err), err);
  const char *ds = rc ? NULL : ls_trace_meta(h->trace, "dataset");
  if (ds && strcmp(ds, s->dataset) != 0)
    return ls_cyc_at_setting(kv, "workload.trace", ls_error_set(err, LS_EINVALID, "workload.trace=%s was recorded "
                             "on dataset %s, not %s", h->trace_path, ds, s->dataset), err);
  if (!rc && ls_trace_prompts(h->trace) < h->prompts)
    return ls_cyc_at_setting(kv, "workload.trace", ls_error_set(err, LS_EINVALID, "workload.trace=%s holds %d "
                             "prompt%s, the run asks for %d (workload.prompts)", h->trace_path,
                             ls_trace_prompts(h->trace), ls_trace_prompts(h->trace) == 1 ? "" : "s", h->prompts),
                             err);
  return rc;
}

/* Every setting the system reads, in one place: the inputs, then k; unknown keys are errors. */
static int host_setup(host_run *h, const char *root, const ls_run_spec *s, ls_kv *kv, int dry,
                      ls_decode_result *out, ls_error *err)
{
  long k = 4;
  int rc = host_device(h, root, s, kv, err);
  if (!rc) rc = host_models(h, root, s, kv, err);
  if (!rc) rc = host_text(h, root, s, kv, dry || !h->has_host, err); /* no text to build for a run that cannot run */
  ls_kv_reader(kv, "llama-spec");
  if (!rc) rc = ls_kv_int(kv, "draft.gamma", 1, HOST_K_MAX, 4, &k, err);
  h->k = (int)k;
  const char *unknown = rc ? NULL : ls_kv_unused(kv, "");
  if (unknown) /* the caller may tell which other systems read it */
    snprintf(out->unknown_key, sizeof out->unknown_key, "%s", unknown);
  if (!rc) rc = ls_kv_check_used(kv, "", err);
  return rc;
}

/* Grows out->steps by one cycle's row. */
static int add_step(ls_decode_result *out, ls_db_step st, ls_error *err)
{
  if (out->n_steps == out->cap_steps) {
    int cap = out->cap_steps ? 2 * out->cap_steps : 256;
    ls_db_step *p = realloc(out->steps, (size_t)cap * sizeof *p);
    if (!p)
      return ls_error_set(err, LS_ENOMEM, "llama-spec: out of memory");
    out->steps = p;
    out->cap_steps = cap;
  }
  out->steps[out->n_steps++] = st;
  return LS_OK;
}

/* The per-cycle series of one prompt's passes q[0..n-1] (a verification ends a cycle; the next
 * cycle's context tells what it accepted). cyc0: the cycles of the prompts before. */
static int host_steps(const host_run *h, const ls_cpureplay_pass *q, int n, int ctx_end, long cyc0,
                      ls_decode_result *out, ls_error *err)
{
  double d = 0;
  int rc = LS_OK;
  for (int i = 0; !rc && i < n; i++) {
    double t = ls_cpureplay_pass_s(&h->pass, &h->tc, &h->dc, &q[i]);
    if (q[i].draft) {
      d += t;
      continue;
    }
    int next = i + 1 < n ? q[i + h->k + 1].ctx : ctx_end;
    rc = add_step(out, (ls_db_step){(int)cyc0++, h->k, h->k + 1, next - q[i].ctx - 1, d, t, 0}, err);
    d = 0;
  }
  return rc;
}

/* One prompt: its passes along the ranks, priced; the per-prompt sums into *pr. */
static int host_prompt(const host_run *h, int p, int keep_steps, long cyc0, ls_db_prompt *pr,
                       ls_decode_result *out, ls_error *err)
{
  int nr = ls_trace_positions(h->trace, p), out_len = ls_trace_output_len(h->trace, p);
  int P = h->prompt_tokens ? h->prompt_tokens : ls_trace_prompt_len(h->trace, p);
  int N = out_len < h->max_tokens ? out_len : h->max_tokens, n = 0, cycles = 0, gen = 0;
  if (N < 1)
    return ls_error_set(err, LS_EINVALID, "llama-spec: prompt %d of the text has no output to generate", p);
  int *rank = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *rank);
  if (!rank)
    return ls_error_set(err, LS_ENOMEM, "llama-spec: out of memory");
  for (int i = 0; i < nr; i++)
    rank[i] = ls_trace_rank(h->trace, p, i);
  ls_cpureplay_pass *q = NULL;
  int rc = ls_cpureplay_spec_passes(rank, nr, P, h->k, N, &q, &n, &cycles, &gen);
  free(rank);
  if (rc == LS_ERANGE)
    return ls_error_set(err, LS_EINVALID, "workload.trace=%s: prompt %d has %d positions, too few for %d tokens "
                        "at draft.gamma=%d: record a longer trace", h->trace_path ? h->trace_path : "(oracle)", p,
                        nr, N, h->k);
  if (rc)
    return ls_error_set(err, rc, "llama-spec: out of memory");
  double d = 0, v = 0;
  ls_cpureplay_run_s(&h->pass, &h->tc, &h->dc, q, n, &d, &v);
  memset(pr, 0, sizeof *pr);
  pr->prompt = p;
  pr->tokens = gen;
  pr->cycles = cycles;
  pr->tau_sum = gen; /* each cycle gives its accepted tokens + 1 */
  pr->decode_s = d + v;
  pr->draft_s = pr->draft_work_s = d;
  pr->verify_s = v;
  pr->tree_nodes = (double)cycles * h->k;
  pr->verify_tok = (double)cycles * (h->k + 1);
  if (keep_steps)
    rc = host_steps(h, q, n, P - 1 + gen, cyc0, out, err);
  free(q);
  return rc;
}

static void add_metric(ls_decode_result *o, const char *name, double v, const char *unit)
{
  if (o->n_metrics < LS_DECODE_MAX_METRICS)
    o->metrics[o->n_metrics++] = (ls_db_metric){name, v, unit};
}

/* The run's metrics from its prompts' sums, added in the prompts' order. */
static void host_metrics(const host_run *h, ls_decode_result *o)
{
  double tok = 0, cyc = 0, dec = 0, dr = 0, ve = 0;
  for (int i = 0; i < o->n_prompts; i++) {
    tok += o->prompts[i].tokens;
    cyc += o->prompts[i].cycles;
    dec += o->prompts[i].decode_s;
    dr += o->prompts[i].draft_s;
    ve += o->prompts[i].verify_s;
  }
  add_metric(o, "throughput_tps", tok / dec, "tok/s");
  add_metric(o, "time_per_token_s", dec / tok, "s");
  add_metric(o, "tau", tok / cyc, "tok/cycle");
  add_metric(o, "share_draft", dr / dec, "ratio");
  add_metric(o, "share_verify", ve / dec, "ratio");
  add_metric(o, "verify_s_mean", ve / cyc, "s");
  add_metric(o, "draft_s_mean", dr / cyc, "s");
  add_metric(o, "draft_work_s_mean", dr / cyc, "s");
  add_metric(o, "tree_size_mean", h->k, "tok");
  add_metric(o, "verify_tokens_mean", h->k + 1, "tok");
  add_metric(o, "cycles", cyc, "count");
  add_metric(o, "tokens", tok, "tok");
  add_metric(o, "target_calls_per_token", cyc / tok, "ratio");
  add_metric(o, "decode_s", dec, "s");
}

static int host_simulate(const host_run *h, int keep_steps, ls_decode_result *out, ls_error *err)
{
  out->prompts = calloc((size_t)h->prompts, sizeof *out->prompts);
  if (!out->prompts)
    return ls_error_set(err, LS_ENOMEM, "llama-spec: out of memory");
  out->cap_prompts = h->prompts;
  long cycles = 0;
  for (int p = 0; p < h->prompts; p++) {
    int rc = host_prompt(h, p, keep_steps, cycles, &out->prompts[p], out, err);
    if (rc)
      return rc;
    out->n_prompts++;
    cycles += (long)out->prompts[p].cycles;
  }
  host_metrics(h, out);
  return LS_OK;
}

int ls_cyc_host_run(const char *root, const ls_run_spec *s, ls_kv *kv, int keep_steps, int dry,
                    ls_decode_result *out, ls_error *err)
{
  host_run h;
  memset(&h, 0, sizeof h);
  int rc = host_setup(&h, root, s, kv, dry, out, err);
  if (!rc && !h.has_host) {
    out->valid = 0;
    snprintf(out->message, sizeof out->message, "llama-spec: device %s has no host section: the system prices "
             "llama.cpp on the host that a profile written by leversim testbed validate --host-profile describes "
             "(no phone profile has one)", ls_device_id(h.dev));
  }
  if (!rc && out->valid && !dry)
    rc = host_simulate(&h, keep_steps, out, err);
  snprintf(out->config_json, sizeof out->config_json,
           "{\"draft\":\"llama-spec\",\"draft_model\":\"%s\",\"k\":%d,\"threads\":%d,\"overlap\":\"mapped\","
           "\"prompt_tokens\":%d}", h.draft ? ls_model_id(h.draft) : "", h.k,
           h.dev ? ls_device_cpu(h.dev)->default_threads : 0, h.prompt_tokens);
  host_free(&h);
  return rc;
}
