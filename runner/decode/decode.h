/* runner/decode: one run's decode simulation (docs/ARCHITECTURE.md, "One decode cycle") and its metrics.
 *
 * For each prompt: prefill (time to first token), then decode cycles until the output length:
 * DRAFT (the draft policy builds a tree; each draft forward step is a job on the CPU or NPU as
 * the map policy says), VERIFY (target layers streamed from flash unless resident, the next
 * layer prefetched while the current one computes, NPU compute at the surviving token count,
 * pruning at the exit layer, output projection as mapped), ACCEPT (the oracle's ground truth
 * walks the kept tree: accepted tokens + 1 bonus), FEEDBACK (policies' online statistics, the
 * KV cache grows). Everything runs on one sim/engine with resources for NPU, CPU and flash. */
#ifndef LS_RUNNER_DECODE_H
#define LS_RUNNER_DECODE_H
#include <signal.h>
#include <stdint.h>
#include "devices/npu.h"
#include "policies/plugin.h"
#include "results/db.h"
#include "runner/decode/runspec.h"

#define LS_DECODE_MAX_METRICS 48
#define LS_DECODE_PHASE_SLOTS 16 /* at least the number of phases (phase.h) */

/* A setting that took effect at another value than the one read (ls_draft_ops.effective). */
#define LS_DECODE_MAX_EFFECTIVE 8
typedef struct ls_decode_effective {
  char key[128];  /* the setting as read, e.g. "draft.budget" */
  double value;   /* the value that took effect, e.g. 21 */
  char why[200];  /* what caps it, e.g. "draft.expansion=1,1,3,1,1,1,1,1 caps specinfer's tree at 21 tokens" */
} ls_decode_effective;

typedef struct ls_decode_result {
  int valid;                  /* 0: the configuration cannot run (message says why) */
  char message[256];
  ls_db_metric metrics[LS_DECODE_MAX_METRICS];
  int n_metrics;
  ls_db_step *steps;          /* owned; per-cycle series (NULL unless requested) */
  int n_steps, cap_steps;
  ls_db_prompt *prompts;      /* owned; per-prompt sums (the intervals' samples) */
  int n_prompts, cap_prompts;
  char run_id[LS_DB_RUN_ID_LEN + 1]; /* set by ls_driver_run_one */
  char config_json[4096];     /* resolved configuration */
  char plugins[640];          /* the plug-ins of its policies (ls_policy_set_provenance), "" if none */
  ls_kv_decl *settings;       /* owned; every setting the run read, given or default */
  int n_settings;
  char unknown_key[128];      /* a setting no reader of this system asked for ("" if none) */
  ls_decode_effective effective[LS_DECODE_MAX_EFFECTIVE]; /* settings that took effect otherwise */
  int n_effective;
  /* Where the output projection's weights live as the run resolved verify.head_memory ("dram"
   * or "flash"; "" before the settings are read): `auto` is one of the two for a given head
   * placement (read_exec in decode.c), and nothing else reads the setting, so a run's identity
   * records this (runner/study/driver.c) and auto and its resolution are one run. */
  char head_memory[8];
  /* Observation hook for tests (not stored): a hash chain, h = ls_key2(h, key), over the
   * canonical keys of the text positions the run emitted, in order: per prompt, the token
   * out of prefill and every decode token but the last (a run's last cycle may accept past
   * the output length, so the final token is left out to keep the count system-independent).
   * Lossless speculation means every system gets the same value for the same seed and
   * prompts (tests/runner, invariants suite). */
  uint64_t text_hash;
  /* Observation hook for tests (not stored): the phase transitions the run took, as
   * phase_edges[from] bit `to` (runner/decode/phase.c lists the phases and the allowed ones). */
  uint32_t phase_edges[LS_DECODE_PHASE_SLOTS];
  /* Observation hook for tests (not stored): target passes (prefills and verifications) run
   * in a loop instead of an engine event per layer (runner/decode/cycle_verify.c, "Inline
   * passes"); the results are the same either way. */
  long inline_passes;
  /* Observation hook for tests (not stored): cycles whose draft stage ran on its own clock
   * instead of an engine event per job (runner/decode/cycle_draft.c, "Inline"). */
  long inline_drafts;
  /* The NPU's padding report of the run (devices/npu.h): npu_reported is 1 when the run's own
   * copy of the device counted it (every run of the event engine), 0 otherwise, when nothing
   * may be concluded from npu_report. Read by a study to reuse a run for its twin that differs
   * only in device.npu.pad_small (runner/study/noeffect.h); not stored. */
  ls_npu_report npu_report;
  int npu_reported;
} ls_decode_result;

/* The most events one run may simulate, per generated token (times workload.max_tokens and
 * the prompts). The paper's most expensive configuration (ar-flash, qwen3-14b) needed about
 * 25000 events per token before its serial passes ran inline (a pass is one event since issue
 * 33, session 15: runner/decode/cycle_verify.c), so only inputs whose work is out of all
 * proportion (a model with huge layers streamed in millions of flash chunks per token) reach
 * it, and they fail within seconds (about 3e7 events/s) instead of running for hours. */
#define LS_RUN_EVENTS_PER_TOKEN 1000000ULL
/* The most flash requests one target pass may read (its streamed layers and head, each in
 * requests of device.flash.chunk bytes). A flash read is simulated request by request inside
 * one event (about 1.5e7 requests/s), so the event budget does not bound it; a run whose pass
 * needs more is refused before it starts. 2e7 is 80 GB in 4 KiB requests, 10 TB in 512 KiB
 * ones; the paper's largest target (qwen3-14b, 512 KiB) needs about 16000. */
#define LS_RUN_MAX_FLASH_REQUESTS 2e7

/* Loaded devices/models/datasets, and the oracles' quantile tables (workloads/oracle.h), shared
 * by the runs of one process. */
typedef struct ls_decode_cache ls_decode_cache;
int ls_decode_cache_create(ls_decode_cache **out, const char *data_root, ls_error *err);
void ls_decode_cache_free(ls_decode_cache *c);
/* Runs of this cache stop between two events once *stop is non-zero (a signal handler's flag;
 * borrowed, NULL: never) and fail with LS_EINTR. Every run also stops, with LS_ERANGE, after
 * LS_RUN_EVENTS_PER_TOKEN simulated events per generated token. */
void ls_decode_cache_set_stop(ls_decode_cache *c, const volatile sig_atomic_t *stop);
/* Runs of this cache choose their policies from this set (borrowed; NULL: the built-ins). */
void ls_decode_cache_set_policies(ls_decode_cache *c, const ls_policy_set *policies);

/* Simulates spec (its settings are consumed; unknown settings are an error). keep_steps: fill
 * the per-cycle series. A configuration that cannot run (ar-mem whose target does not fit)
 * returns LS_OK with valid = 0. */
int ls_decode_run(ls_decode_cache *c, ls_run_spec *spec, int keep_steps, ls_decode_result *out,
                  ls_error *err);
/* The same set-up as ls_decode_run (inputs, scoped settings, policies, cost model, every
 * setting read and in range) without simulating: the check every run of an experiment passes
 * before anything is written. out gets valid/message and the resolved settings, no metrics. */
int ls_decode_check(ls_decode_cache *c, ls_run_spec *spec, ls_decode_result *out, ls_error *err);
void ls_decode_result_free(ls_decode_result *r);

#endif
