/* runner/cmd_trace: 'leversim trace record|info|passes' — record a trace from the synthetic
 * oracle, summarise trace files (format: workloads/TRACE_FORMAT.md), and list the passes a
 * llama.cpp-style speculative run makes along a trace (runner/decode/cpu_replay.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/commands.h"
#include "devices/device.h"
#include "policies/costmodel.h"
#include "runner/decode/cpu_replay.h"
#include "runner/cli/opts.h"
#include "sim/range.h"
#include "sim/kv.h"
#include "workloads/dataset.h"
#include "workloads/model.h"
#include "workloads/oracle.h"
#include "workloads/trace.h"

typedef struct rec_args {
  const char *dataset, *model, *draft, *out;
  long seed, topk, off;
} rec_args;

static const ls_opt RECORD_OPTS[] = {
    {"--dataset", LS_OPT_STR, OPT_AT(rec_args, dataset), "S", "dataset whose prompts are replayed", .flags = LS_OPT_REQUIRED},
    {"--model", LS_OPT_STR, OPT_AT(rec_args, model), "M", "target model", .flags = LS_OPT_REQUIRED},
    {"--draft", LS_OPT_STR, OPT_AT(rec_args, draft), "D", "draft model (default: the target's default draft)"},
    {"--prompts", LS_OPT_SETTING, 0, "N", "prompts to record: --set workload.prompts=N", .range = LS_OPT_RANGE(LS_R_TRACE_PROMPTS), .key = "workload.prompts"},
    {"--seed", LS_OPT_LONG, OPT_AT(rec_args, seed), "N", "oracle seed (default 1)", .range = LS_OPT_RANGE(LS_R_SEED)},
    {"--topk", LS_OPT_LONG, OPT_AT(rec_args, topk), "K", "draft probabilities kept per position (default 8)", .lo = 1, .hi = LS_VIEW_TOPK_MAX},
    {"--off", LS_OPT_LONG, OPT_AT(rec_args, off), "N", "off-path children whose candidate sets are kept (default 2)", .lo = 0, .hi = LS_VIEW_TOPK_MAX},
    {"--set", LS_OPT_SET, 0, "workload.key=value", "a workload setting of the oracle"},
    {"--out", LS_OPT_STR, OPT_AT(rec_args, out), "FILE", "write the trace there (default stdout)"},
    {NULL}};

static const ls_cmd_spec RECORD = {
    "trace record", NULL, 0, 0, 0, "record a trace from the synthetic oracle",
    "Replays the synthetic oracle along each prompt's text and writes a trace\n"
    "(workloads/TRACE_FORMAT.md): the top-K draft probabilities per position, the rank the\n"
    "target chose, and the candidate sets of N off-path children.\n",
    NULL, RECORD_OPTS};

typedef struct info_args {
  ls_opt_list file;
} info_args;

static const ls_opt NO_OPTS[] = {{NULL}};

static const ls_cmd_spec INFO = {"trace info", "FILE", 1, 1, OPT_AT(info_args, file),
                                 "validate a trace file and print a summary", NULL, NULL, NO_OPTS};

typedef struct passes_args {
  ls_opt_list file;
  long k, tokens, prompt, prompt_tokens;
  const char *device, *model, *draft;
} passes_args;

static const ls_opt PASSES_OPTS[] = {
    {"--k", LS_OPT_LONG, OPT_AT(passes_args, k), "K", "draft tokens a cycle proposes", .lo = 1, .hi = 16,
     .flags = LS_OPT_REQUIRED},
    {"--tokens", LS_OPT_LONG, OPT_AT(passes_args, tokens), "N", "tokens the run generates (it stops at the first cycle "
     "that reaches N)", .lo = 1, .hi = 1000000, .flags = LS_OPT_REQUIRED},
    {"--prompt-tokens", LS_OPT_LONG, OPT_AT(passes_args, prompt_tokens), "P", "the runtime's prompt, tokens (the "
     "testbed's: 32, runner/testbed/measure.c)", .lo = 1, .hi = 1000000, .flags = LS_OPT_REQUIRED},
    {"--prompt", LS_OPT_LONG, OPT_AT(passes_args, prompt), "I", "the trace's prompt whose ranks give the acceptance "
     "(default 0)", .lo = 0, .hi = 1000000},
    {"--device", LS_OPT_STR, OPT_AT(passes_args, device), "ID|FILE", "price the passes on this profile's host section "
     "(`testbed validate --host-profile` writes one); with --model and --draft"},
    {"--model", LS_OPT_STR, OPT_AT(passes_args, model), "ID|FILE.yaml", "the target model (with --device)"},
    {"--draft", LS_OPT_STR, OPT_AT(passes_args, draft), "ID|FILE.yaml", "the draft model (with --device)"},
    {NULL}};

static const ls_cmd_spec PASSES = {
    "trace passes", "FILE", 1, 1, OPT_AT(passes_args, file),
    "list the passes a llama.cpp-style speculative run makes along a trace",
    "The cycles of runner/decode/cpu_replay.h (ls_cpureplay_spec_passes), the shape of the\n"
    "testbed's speculative run: the draft's catch-up pass and k - 1 one-token passes in memory,\n"
    "then the target's verification of k + 1 tokens from an evicted page cache; a cycle at text\n"
    "position T accepts the leading rank-0 positions from T, at most k. One line a pass (cycle,\n"
    "model, tokens, context, output rows, cache), then the cycles, the tokens generated and the\n"
    "histogram of tokens accepted a cycle (0 to k). With --device, --model and --draft, the time a\n"
    "generated token takes, the passes priced by the decode library's CPU replay on the profile's\n"
    "host section (ls_costmodel_pass_host): what `testbed validate` prints as its spec prediction\n"
    "for the run it wrote the profile from.\n",
    NULL, PASSES_OPTS};

static int fail(const ls_error *e)
{
  ls_error_print(e, stderr);
  return ls_status_exit(e->code);
}

/* A trace's prompts, however given (--prompts, --set, the dataset's default), within their
 * row of the range table: the trace is held in memory and written whole. */
static int trace_size(const ls_oracle *o, ls_kv *kv, ls_error *err)
{
  char r[64];
  int n = ls_oracle_prompts(o);
  if (!ls_range_check(LS_R_TRACE_PROMPTS, n)) return LS_OK;
  const char *at = ls_kv_origin_of(kv, "workload.prompts");
  int typed = at && (strncmp(at, "--", 2) == 0 || strncmp(at, "argument ", 9) == 0);
  return ls_error_set(err, typed ? LS_EUSAGE : LS_ERANGE, "%s%sworkload.prompts=%d: a trace records %s prompts "
                      "(sim/range.h: %s)", at ? at : "", at ? ": " : "", n,
                      ls_range_text(LS_R_TRACE_PROMPTS, r, sizeof r), ls_range_at(LS_R_TRACE_PROMPTS)->why);
}

static int record(const rec_args *a, ls_kv *kv)
{
  ls_error e;
  ls_error_clear(&e);
  ls_dataset *ds = NULL;
  ls_model *tg = NULL, *dr = NULL;
  ls_oracle *o = NULL;
  ls_trace *t = NULL;
  int rc = ls_dataset_load_id(&ds, ls_data_root(), a->dataset, &e);
  if (!rc) rc = ls_model_load_id(&tg, ls_data_root(), a->model, &e);
  if (!rc && !ls_model_is_target(tg))
    rc = ls_error_set(&e, LS_EINVALID, "--model %s is a draft model; give a target", a->model);
  if (!rc) rc = ls_model_load_id(&dr, ls_data_root(), a->draft ? a->draft : ls_model_default_draft(tg), &e);
  if (!rc) rc = ls_oracle_create(&o, ds, tg, dr, (uint64_t)a->seed, kv, &e);
  if (!rc) rc = trace_size(o, kv, &e);
  if (!rc) rc = ls_kv_check_used(kv, "", &e);
  if (!rc) rc = ls_trace_record(&t, o, (int)a->topk, (int)a->off, 8, a->dataset, a->model, ls_model_id(dr),
                                (uint64_t)a->seed, &e);
  if (!rc) rc = a->out ? ls_trace_write(t, a->out, &e) : ls_trace_write_file(t, stdout, &e);
  ls_trace_free(t);
  ls_oracle_free(o);
  ls_model_free(dr);
  ls_model_free(tg);
  ls_dataset_free(ds);
  return rc ? fail(&e) : 0;
}

static int info(int argc, char **argv)
{
  info_args a = {.file.n = 0};
  int rc = ls_opts_parse(&INFO, argc, argv, &a, NULL);
  if (rc)
    return ls_opts_exit(rc);
  ls_error e;
  ls_error_clear(&e);
  ls_trace *t = NULL;
  if (ls_trace_read(&t, a.file.v[0], &e))
    return fail(&e);
  ls_trace_info(t, stdout);
  ls_trace_free(t);
  return 0;
}

/* The passes q[0..n-1] priced on the host section of a->device (a->model the target, a->draft
 * the draft), printed per generated token. */
static int price_passes(const passes_args *a, const ls_cpureplay_pass *q, int n, int gen, ls_error *e)
{
  ls_device *dev = NULL;
  ls_model *tm = NULL, *dm = NULL;
  ls_model_costs tc, dc;
  ls_costmodel_pass p;
  ls_flash_params sf;
  int rc = ls_device_is_path(a->device) ? ls_device_load(&dev, a->device, e)
                                        : ls_device_load_id(&dev, ls_data_root(), a->device, e);
  if (!rc && !ls_costmodel_pass_host(dev, &sf, &p))
    rc = ls_error_set(e, LS_EINVALID, "--device %s: the profile has no host section (`leversim testbed validate "
                      "--host-profile` writes one)", a->device);
  if (!rc) rc = ls_model_load_any(&tm, ls_data_root(), a->model, e);
  if (!rc) rc = ls_model_load_any(&dm, ls_data_root(), a->draft, e);
  if (!rc) rc = ls_model_costs_get(tm, NULL, &tc, e);
  if (!rc) rc = ls_model_costs_get(dm, NULL, &dc, e);
  if (!rc) {
    double d = 0, t = 0;
    ls_cpureplay_run_s(&p, &tc, &dc, q, n, &d, &t);
    if (printf("predicted: %.4f s a generated token (draft %.4f s, verification %.4f s), profile %s\n", (d + t) / gen,
               d / gen, t / gen, ls_device_path(dev)) < 0)
      rc = ls_error_set(e, LS_EIO, "trace passes: cannot write the output");
  }
  ls_model_free(dm);
  ls_model_free(tm);
  ls_device_free(dev);
  return rc;
}

/* The passes of ls_cpureplay_spec_passes along prompt a->prompt of t, printed (and priced with
 * --device). */
static int print_passes(const ls_trace *t, const passes_args *a, ls_error *e)
{
  int pr = (int)a->prompt, k = (int)a->k;
  if (pr >= ls_trace_prompts(t))
    return ls_error_set(e, LS_EUSAGE, "--prompt %d: the trace has %d prompts", pr, ls_trace_prompts(t));
  int nr = ls_trace_positions(t, pr), n = 0, cycles = 0, gen = 0;
  int *rank = malloc((size_t)(nr > 0 ? nr : 1) * sizeof *rank);
  if (!rank)
    return ls_error_set(e, LS_ENOMEM, "trace passes: out of memory");
  for (int i = 0; i < nr; i++)
    rank[i] = ls_trace_rank(t, pr, i);
  ls_cpureplay_pass *q = NULL;
  int rc = ls_cpureplay_spec_passes(rank, nr, (int)a->prompt_tokens, k, (int)a->tokens, &q, &n, &cycles, &gen);
  free(rank);
  if (rc)
    return ls_error_set(e, rc, "%s: prompt %d has %d positions, too few for %ld tokens at k = %d: record a longer "
                        "trace", a->file.v[0], pr, nr, a->tokens, k);
  int hist[17] = {0}, cyc = 0;
  for (int i = 0; i < n; i++) {
    if (!q[i].draft) /* the verification ends a cycle; the next one's context gives its acceptance */
      hist[(i + 1 < n ? q[i + k + 1].ctx : (int)a->prompt_tokens - 1 + gen) - q[i].ctx - 1]++;
    printf("%d %s %d %d %d %s\n", cyc, q[i].draft ? "draft" : "target", q[i].n_tokens, q[i].ctx, q[i].rows,
           q[i].cold ? "cold" : "warm");
    cyc += !q[i].draft;
  }
  printf("cycles %d, generated %d, accepted", cycles, gen);
  for (int i = 0; i <= k; i++)
    printf("%s%d", i ? "," : " ", hist[i]);
  rc = printf("\n") < 0 ? ls_error_set(e, LS_EIO, "trace passes: cannot write the output") : LS_OK;
  if (!rc && a->device)
    rc = price_passes(a, q, n, gen, e);
  free(q);
  return rc;
}

static int passes(int argc, char **argv)
{
  passes_args a = {.k = 0, .tokens = 0, .prompt = 0, .prompt_tokens = 0};
  int rc = ls_opts_parse(&PASSES, argc, argv, &a, NULL);
  if (rc)
    return ls_opts_exit(rc);
  ls_error e;
  ls_error_clear(&e);
  if ((a.device || a.model || a.draft) && !(a.device && a.model && a.draft)) {
    ls_error_set(&e, LS_EUSAGE, "trace passes: --device, --model and --draft go together (missing: %s)",
                 !a.device ? "--device" : !a.model ? "--model" : "--draft");
    return fail(&e);
  }
  ls_trace *t = NULL;
  rc = ls_trace_read(&t, a.file.v[0], &e);
  if (!rc)
    rc = print_passes(t, &a, &e);
  ls_trace_free(t);
  return rc ? fail(&e) : 0;
}

static int record_cmd(int argc, char **argv)
{
  rec_args a = {NULL, NULL, NULL, NULL, 1, 8, 2};
  ls_kv *kv = NULL;
  ls_error e;
  if (ls_kv_create(&kv, &e))
    return fail(&e);
  int rc = ls_opts_parse(&RECORD, argc, argv, &a, kv);
  rc = rc ? ls_opts_exit(rc) : record(&a, kv);
  ls_kv_free(kv);
  return rc;
}

static const ls_subcmd TRACE[] = {
    {"record", record_cmd, "record a trace from the synthetic oracle"},
    {"info", info, "validate a trace file and print a summary"},
    {"passes", passes, "list the passes a llama.cpp-style speculative run makes along a trace"},
    {NULL, NULL, NULL}};

int ls_cmd_trace(int argc, char **argv)
{
  return ls_opts_group("trace", "Draft/target traces (workloads/TRACE_FORMAT.md).", TRACE, argc, argv);
}
