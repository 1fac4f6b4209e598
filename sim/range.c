/* sim/range: see range.h.
 *
 * The rows are data: each says which keys hold the quantity, in every place a value can be
 * written, and why its bounds are what they are. Two limits recur:
 *  - the clock: simulated time is int64 nanoseconds (sim/engine.h), about 292 years; at a rate
 *    below the least of a row one pass of an 8B target (4.5 GB) takes over an hour, so results
 *    mean nothing, and at 1 B/s a few passes overflow the clock (issue 35's profile did);
 *  - the machine: a value beyond any device that exists (a 1 PB/s flash link) is a typo.
 * The run bound LS_RANGE_RUN_TOKENS is of the second kind for time. Measured on this project's
 * 2-core build machine (2026-11-28): 20 MT-Bench prompts (at most 20480 tokens) on the OnePlus 12
 * with Qwen3-14B take 0.33 s of CPU for lever and 0.50 s for ar-flash and sequoia, about 4e4
 * tokens a CPU second; 2e7 tokens then take some ten minutes there, and a study that needs
 * more is several runs (sweep --jobs, shards). */
#include "sim/range.h"
#include <math.h>
#include <string.h>

#define Q(k) 1, k, 0        /* a quantity with a unit of kind k */
#define N 0, LS_U_RATIO, 0  /* a plain number */
#define W 0, LS_U_RATIO, 1  /* a whole number */
#define POS LS_Y_POS
#define CLOCK "below it one pass of an 8B target (4.5 GB) takes over an hour, results mean nothing, and lower rates run out the int64-nanosecond clock (292 years)"

static const ls_range ROWS[LS_R_COUNT] = {
    [LS_R_FLASH_LANES] = {"flash lanes", W, 1, 16, "profile flash.lanes",
                          "a link carries data on one lane at least; UFS has 1 or 2, 16 is any serial link's most"},
    [LS_R_FLASH_BW] = {"flash bandwidth", Q(LS_U_BANDWIDTH), 1e6, 1e12,
                       "profile flash.link_bandwidth (and the read rate link x efficiency); --set device.flash.bandwidth",
                       "1 MB/s: " CLOCK "; 1 TB/s: above any storage link (UFS 4.0 reads 4.6 GB/s)"},
    [LS_R_FLASH_EFF] = {"read path efficiency", N, 0.01, 1, "profile flash.efficiency.direct, .page_cache",
                        "a path's share of the link cannot exceed it; below 1 % the path is broken, not slow"},
    [LS_R_FLASH_CHUNK] = {"flash request size", Q(LS_U_BYTES), 512, 1073741824.0,
                          "profile flash.chunk; --set device.flash.chunk",
                          "one 512 B sector at least; 1 GiB is above any layer a read is split from"},
    [LS_R_FLASH_QD] = {"flash queue depth", W, 1, 1024, "profile flash.queue_depth; --set device.flash.queue_depth",
                       "one request in flight at least; 1024 is above any queue a phone's storage keeps (UFS: 32)"},
    [LS_R_READ_ENERGY] = {"flash read energy", Q(LS_U_ENERGY_PER_BYTE), 0, 1e-6, "profile flash.read_energy",
                          "0 leaves it out; 1 uJ/B is 1000 times a UFS read's"},
    [LS_R_LAT_TIME] = {"request latency", Q(LS_U_TIME), POS, 10,
                       "profile flash.latency.median, .tail_start, .cdf[].x",
                       "a request takes some time; 10 s per request is a dead device, not a latency"},
    [LS_R_LAT_SIGMA] = {"latency spread (lognormal sigma)", N, POS, 5, "profile flash.latency.sigma",
                        "a spread > 0; 5 (e^5 = 150 times per sigma) is beyond any measured flash"},
    [LS_R_LAT_TAIL_PROB] = {"latency tail share", N, 0, 0.5, "profile flash.latency.tail_prob",
                            "a tail is the rarer part of the requests: half at most"},
    [LS_R_LAT_TAIL_ALPHA] = {"latency tail shape (Pareto alpha)", N, 1.01, 100, "profile flash.latency.tail_alpha",
                             "at alpha <= 1 a Pareto tail has no mean; above 100 it is no tail"},
    [LS_R_DRAM_SIZE] = {"memory size", Q(LS_U_BYTES), 1e6, 1e13, "profile dram.capacity, dram.app_budget",
                        "1 MB holds no model layer; 10 TB is above any phone or GPU host"},
    [LS_R_DRAM_RESIDENT] = {"resident target budget", Q(LS_U_BYTES), 0, 1e13,
                            "profile dram.resident_target; --set device.dram.budget (both also <= dram.app_budget)",
                            "0: nothing of the target stays in DRAM; never above the memory size's most"},
    [LS_R_MEM_BW] = {"memory bandwidth", Q(LS_U_BANDWIDTH), 1e6, 1e13,
                     "profile dram.bandwidth, npu.weight_bandwidth, npu.q4_0_dynamic.weight_bandwidth, cpu.max_bandwidth",
                     "1 MB/s: " CLOCK "; 10 TB/s: above any HBM"},
    [LS_R_CORE_BW] = {"one core's streaming rate", Q(LS_U_BANDWIDTH), 1e6, 1e12,
                      "profile cpu.clusters[].gemv_bandwidth, cpu.head_bandwidth, .head_first_bandwidth, "
                      ".single_bandwidth, .remainder_bandwidth",
                      "1 MB/s: " CLOCK "; 1 TB/s: above a whole chip's memory system"},
    [LS_R_COMPUTE] = {"compute rate", Q(LS_U_COMPUTE), 1e6, 1e16,
                      "profile npu.flops, npu.attn_flops, npu.q4_0_dynamic.vec_flops, .mat_flops; "
                      "--set device.npu.vec_flops",
                      "1 MFLOP/s: " CLOCK "; 10 PFLOP/s: above any accelerator"},
    [LS_R_HOST_READ_AHEAD] = {"read-ahead window of a mapped file", Q(LS_U_BYTES), 4096, 1073741824.0,
                              "profile host.read_ahead", "one 4 KiB page at least; 1 GiB is above any block device's read_ahead_kb"},
    [LS_R_HOST_FAULT_RATE] = {"bytes faulted in per CPU second", Q(LS_U_BANDWIDTH), 1e6, 1e13, "profile host.fault_rate",
                              "1 MB/s: " CLOCK "; 10 TB/s: no fault cost at all"},
    [LS_R_HOST_STREAM_BYTES] = {"bytes of a mapped file streamed", Q(LS_U_BYTES), 4096, 1e13, "profile host.stream_bytes",
                                "one page at least; 10 TB is above any model file"},
    [LS_R_HOST_STREAM_TIME] = {"time to stream a mapped file", Q(LS_U_TIME), POS, 3600, "profile host.stream_time",
                               "> 0; an hour for one file is a hung disk"},
    [LS_R_HOST_START] = {"wait at a cold pass's first read", Q(LS_U_TIME), 0, 10, "profile host.start_wait",
                         "0 allowed (no wait); 10 s before the first byte is a hung disk"},
    [LS_R_HOST_HEAD_SERIAL] = {"share of the head's compute after its last byte", N, 0, 1, "profile host.head_serial",
                               "a share: 0 (all overlapped) to 1 (all after)"},
    [LS_R_HOST_CONTENTION] = {"bytes read beside a compute per second it loses", Q(LS_U_BANDWIDTH), 1e6, 1e13,
                             "profile host.contention_rate", "1 MB/s: " CLOCK "; 10 TB/s: no contention at all"},
    [LS_R_CALL_TIME] = {"fixed cost of a call", Q(LS_U_TIME), 0, 1,
                        "profile npu.dispatch, npu.q4_0_dynamic.op_call, cpu.call_overhead; --set device.npu.dispatch",
                        "0 allowed (no overhead); 1 s per call is a hung driver"},
    [LS_R_NPU_TILE] = {"NPU matrix tile (tokens)", W, 1, 4096,
                       "profile npu.q4_0_dynamic.tile, .mat_min; --set device.npu.mat_min",
                       "one token at least; 4096 is above any tree or compiled shape"},
    [LS_R_CURVE] = {"batch curve point (tokens, relative latency)", N, POS, 1e6, "profile npu.batch_curve[][]",
                    "both > 0; 1e6 tokens in one pass is above any tree"},
    [LS_R_SHAPE] = {"compiled NPU shape (tokens)", N, 1, 1e6, "profile npu.shapes[]",
                    "one token at least; as the batch curve's most"},
    [LS_R_CORES] = {"cores of a cluster", W, 1, 64, "profile cpu.clusters[].cores",
                    "one core at least; 64 in one cluster is above any phone SoC"},
    [LS_R_THREADS] = {"CPU threads", W, 1, 256,
                      "profile cpu.threads and --set device.cpu.threads (both also <= the profile's cores); --set run.threads",
                      "one thread at least; 256 is above any phone's or desktop's cores"},
    [LS_R_FREQ] = {"core clock", Q(LS_U_FREQ), 1e6, 1e10, "profile cpu.clusters[].freq",
                   "1 MHz: " CLOCK "; 10 GHz: above any core"},
    [LS_R_FLOPS_PER_CYCLE] = {"FLOP per cycle of a core", N, POS, 4096, "profile cpu.clusters[].flops_per_cycle",
                              "> 0; 4096 is above the widest vector unit (AMX: 2048 BF16)"},
    [LS_R_BATCH_TOKENS] = {"CPU batch threshold (tokens)", W, 1, 1000000,
                           "profile cpu.batched_from, .head_batched_from, .batch_group",
                           "one token at least; as the batch curve's most"},
    [LS_R_POWER] = {"power of a component at rest or per core", Q(LS_U_POWER), 0, 1000,
                    "profile flash.idle_power, dram.background_power, npu.idle_power, cpu.idle_power, "
                    "cpu.clusters[].core_power, power.base",
                    "0 leaves it out; 1 kW is above a desktop GPU board"},
    [LS_R_POWER_BUSY] = {"NPU power when busy", Q(LS_U_POWER), POS, 1000, "profile npu.busy_power",
                         "a busy unit draws power; 1 kW as above"},
    [LS_R_LAYERS] = {"model layers", W, 1, 1000, "model arch.n_layers",
                     "one layer at least; 1000 is ten times any model a phone runs"},
    [LS_R_HIDDEN] = {"hidden width", W, 1, 1 << 20, "model arch.hidden",
                     "one at least; 2^20 is 64 times the widest published model's"},
    [LS_R_FFN] = {"FFN width", W, 1, 1 << 22, "model arch.ffn", "one at least; 4 times the hidden width's most"},
    [LS_R_HEADS] = {"attention heads and head width", W, 1, 4096, "model arch.n_heads, .n_kv_heads, .head_dim",
                    "one at least; 4096 is 30 times any published model's"},
    [LS_R_VOCAB] = {"vocabulary", W, 1, 1 << 24, "model arch.vocab",
                    "one token at least; 2^24 is 64 times any published vocabulary"},
    [LS_R_EAGLE_INPUT] = {"EAGLE-3 attention inputs", W, 1, 8, "model arch.attn_input",
                          "one at least; EAGLE-3 uses 2, 8 leaves room"},
    [LS_R_EAGLE_FEATURES] = {"EAGLE-3 fused target features", W, 1, 16, "model arch.fused_features",
                             "one at least; EAGLE-3 fuses 3"},
    [LS_R_PARAMS_B] = {"parameters (billions)", N, POS, 1e4, "model params_b",
                       "> 0; 10^4 billion is above any published model"},
    [LS_R_PROMPTS] = {"prompts of a run", W, 1, 100000,
                      "dataset default_prompts; experiment sizing models.*; --prompts; --set workload.prompts",
                      "one at least; with the tokens per prompt, at most 2e7 tokens a run (below)"},
    [LS_R_TRACE_PROMPTS] = {"prompts of a recorded trace", W, 1, 1000, "trace record --prompts (and its --set workload.prompts)",
                            "a recorded prompt of the shipped datasets takes about 0.3 MB and 30 ms: 1000 make 330 MB in "
                            "half a minute (100000 would make about 33 GB in most of an hour, by the same measure)"},
    [LS_R_TOKENS] = {"tokens per prompt (cap)", W, 1, 1000000, "--tokens; --set workload.max_tokens",
                     "one at least; with the prompts, at most 2e7 tokens a run (below)"},
    [LS_R_PROMPT_TOKENS] = {"a runtime's prompt (tokens)", W, 0, 1000000, "--set workload.prompt_tokens (system llama-spec)",
                            "0: each prompt's own length in the text (the dataset's or the trace's); 10^6 as the "
                            "prompt lengths' bound"},
    [LS_R_LEN_MEDIAN] = {"median prompt or output length", N, 1, 1000000,
                         "dataset prompt_len.median, output_len.median", "as the lengths' bounds"},
    [LS_R_LEN] = {"shortest and longest prompt or output", W, 1, 1000000,
                  "dataset prompt_len.min, .max, output_len.min, .max",
                  "one token at least; 10^6 is above any context a phone holds"},
    [LS_R_LEN_SIGMA] = {"length spread (lognormal sigma)", N, 0, 5, "dataset prompt_len.sigma, output_len.sigma",
                        "0: every length the median; 5 as the latency spread"},
    [LS_R_PROB] = {"probability", N, 0, 1,
                   "dataset processes.*.*.agree, regimes.*, iid.alpha, positional.p[]; flash.latency.cdf[].p; "
                   "--set workload.alpha, workload.p",
                   "a probability"},
    [LS_R_LOGIT_MEAN] = {"mean top-1 logit", N, -20, 20, "dataset processes.*.*.top1_logit_mean",
                         "e^20: a top-1 token 5e8 times likelier than the next, beyond any model's"},
    [LS_R_LOGIT_SD] = {"top-1 logit spread", N, 0, 10, "dataset processes.*.*.top1_logit_sd",
                       "0: the same every step; 10 spans the whole logit range"},
    [LS_R_LOGIT_TAIL] = {"logit tail", N, POS, 1000, "dataset processes.*.*.tail", "> 0; 1000 is flat"},
    [LS_R_CALIBRATION] = {"draft calibration", N, 0.05, 20, "dataset processes.*.calibration",
                          "a temperature: 0.05 is nearly greedy, 20 nearly uniform"},
    [LS_R_OUTPUT_SCALE] = {"output length scale", N, POS, 100, "dataset processes.*.output_scale",
                           "> 0; 100 times the dataset's lengths is beyond any answer"},
    [LS_R_AUC] = {"early-exit predictor AUC", N, 0.5, 0.9999, "dataset early_exit.auc; --set workload.auc",
                  "0.5 is chance (worse is the same predictor inverted); 1 is a predictor that never errs"},
    [LS_R_CONF_WEIGHT] = {"draft confidence weight", N, 0, 10, "dataset early_exit.confidence_weight",
                          "0: no information; 10 lets confidence alone decide"},
    [LS_R_SEED] = {"master seed", W, 0, 2147483647.0, "experiment seed; --seed",
                   "a non-negative 32-bit integer: GSL takes 32 bits of a seed"},
};

const ls_range *ls_range_at(ls_range_id id) { return &ROWS[id]; }

/* The settings (--set keys) read against a row: the rows' "where" texts name them too. */
static const struct {
  const char *key;
  ls_range_id id;
} SETTINGS[] = {{"device.flash.bandwidth", LS_R_FLASH_BW}, {"device.flash.chunk", LS_R_FLASH_CHUNK},
                {"device.flash.queue_depth", LS_R_FLASH_QD}, {"device.dram.budget", LS_R_DRAM_RESIDENT},
                {"device.npu.dispatch", LS_R_CALL_TIME},     {"device.npu.vec_flops", LS_R_COMPUTE},
                {"device.npu.mat_min", LS_R_NPU_TILE},       {"device.cpu.threads", LS_R_THREADS},
                {"run.threads", LS_R_THREADS},               {"workload.prompts", LS_R_PROMPTS},
                {"workload.max_tokens", LS_R_TOKENS},        {"workload.auc", LS_R_AUC},
                {"workload.prompt_tokens", LS_R_PROMPT_TOKENS},
                {"workload.alpha", LS_R_PROB},               {"workload.p", LS_R_PROB}};

int ls_range_of_setting(const char *key)
{
  for (size_t i = 0; i < sizeof SETTINGS / sizeof SETTINGS[0]; i++)
    if (strcmp(SETTINGS[i].key, key) == 0) return (int)SETTINGS[i].id;
  return -1;
}

int ls_range_check(ls_range_id id, double v)
{
  const ls_range *r = &ROWS[id];
  if (!(v >= r->lo && v <= r->hi)) return -1; /* NaN fails too */
  return r->whole && v != floor(v) ? -1 : 0;
}

int ls_range_yas(const ls_ynode *n, ls_range_id id, double *out, ls_error *err)
{
  const ls_range *r = &ROWS[id];
  if (r->quantity) return ls_yas_unit(n, r->unit, r->lo, r->hi, out, err);
  if (!r->whole) return ls_yas_double(n, r->lo, r->hi, out, err);
  long v;
  int rc = ls_yas_int(n, (long)r->lo, (long)r->hi, &v, err);
  if (!rc) *out = (double)v;
  return rc;
}

int ls_range_yreq(const ls_ynode *m, const char *key, ls_range_id id, double *out, ls_error *err)
{
  ls_ynode v;
  int rc = ls_ymap_require(m, key, &v, err);
  return rc ? rc : ls_range_yas(&v, id, out, err);
}

int ls_range_yopt(const ls_ynode *m, const char *key, ls_range_id id, double dflt, double *out,
                  ls_error *err)
{
  ls_ynode v;
  if (!ls_ymap_find(m, key, &v)) {
    *out = dflt;
    return LS_OK;
  }
  return ls_range_yas(&v, id, out, err);
}

int ls_range_yas_list(const ls_ynode *n, ls_range_id id, double *out, int max, int *count,
                      ls_error *err)
{
  return ls_yas_doubles(n, ROWS[id].lo, ROWS[id].hi, out, max, count, err);
}

int ls_range_kv(ls_kv *kv, const char *key, ls_range_id id, double dflt, double *out, ls_error *err)
{
  const ls_range *r = &ROWS[id];
  if (r->quantity) return ls_kv_unit(kv, key, r->unit, r->lo, r->hi, dflt, out, err);
  if (!r->whole) return ls_kv_double(kv, key, r->lo, r->hi, dflt, out, err);
  long v;
  int rc = ls_kv_int(kv, key, (long)r->lo, (long)r->hi, (long)dflt, &v, err);
  if (!rc) *out = (double)v;
  return rc;
}

int ls_range_kv_list(ls_kv *kv, const char *key, ls_range_id id, double *out, int max, int *count,
                     ls_error *err)
{
  return ls_kv_doubles(kv, key, ROWS[id].lo, ROWS[id].hi, out, max, count, err);
}

int ls_range_run_tokens(ls_kv *kv, double prompts, double max_tokens, ls_error *err)
{
  double n = prompts * max_tokens;
  if (n <= LS_RANGE_RUN_TOKENS) return LS_OK;
  const char *op = ls_kv_origin_of(kv, "workload.prompts"), *ot = ls_kv_origin_of(kv, "workload.max_tokens");
  /* typed on the command line: a usage error (64); from a file: bad input data (65) */
  int typed = 0;
  for (int i = 0; i < 2; i++) {
    const char *o = i ? ot : op;
    if (o && (strncmp(o, "--", 2) == 0 || strncmp(o, "argument ", 9) == 0)) typed = 1;
  }
  return ls_error_set(err, typed ? LS_EUSAGE : LS_ERANGE,
                      "workload.prompts=%.0f (%s) x workload.max_tokens=%.0f (%s) = %.4g tokens: above the "
                      "%.0f tokens one run may generate, which keeps a run's time bounded (split it into "
                      "several runs, or give fewer tokens per prompt)",
                      prompts, op ? op : "the dataset's default", max_tokens, ot ? ot : "default",
                      n, LS_RANGE_RUN_TOKENS);
}

const char *ls_range_text(ls_range_id id, char *buf, size_t size)
{
  const ls_range *r = &ROWS[id];
  char lo[48], hi[48];
  if (r->quantity) {
    ls_units_format(r->lo, r->unit, lo, sizeof lo);
    ls_units_format(r->hi, r->unit, hi, sizeof hi);
  } else {
    snprintf(lo, sizeof lo, "%.10g", r->lo);
    snprintf(hi, sizeof hi, "%.10g", r->hi);
  }
  if (r->lo == LS_Y_POS) snprintf(buf, size, "(0, %s]", hi);
  else snprintf(buf, size, "[%s, %s]", lo, hi);
  return buf;
}

void ls_range_print(FILE *o)
{
  char b[120];
  fprintf(o, "# value ranges: one table for a profile, model, dataset, experiment and the command line\n");
  for (int i = 0; i < LS_R_COUNT; i++) {
    const ls_range *r = &ROWS[i];
    fprintf(o, "%-44s %s%s\n", r->name, ls_range_text((ls_range_id)i, b, sizeof b),
            r->whole ? ", whole" : "");
    fprintf(o, "    in: %s\n    why: %s\n", r->where, r->why);
  }
  fprintf(o, "%-44s at most %.0f (prompts x tokens per prompt)\n    why: a run's time stays bounded "
          "(about 4e4 tokens a CPU second on the paper's configurations here: some ten minutes)\n",
          "tokens of one run", LS_RANGE_RUN_TOKENS);
}
