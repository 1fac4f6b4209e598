/* runner/testbed/measure: the testbed's measurements of a real llama.cpp (through
 * runner/testbed/llamadrv) on this machine, each pass timed alone:
 *   stream  the model file read through a mapping from a cold page cache, no compute
 *           (ls_llamadrv_stream): the storage path's own rate, the source of the read-ahead
 *           model's rate (devices/mapread.h), never a held-out point;
 *   rows-cold, rows-0-cold
 *           the target's all-rows and no-row passes right after an eviction, alternated with
 *           the warm rows passes: their difference is the output projection's whole phase on a
 *           cold pass (reading the head and computing it), the source of how much of the head's
 *           compute waits for its last byte (runner/testbed/calfit.h); never held out;
 *   stream-busy, busy-warm
 *           interleaved with it: the same stream with fixed arithmetic after each page (30, 60
 *           and 90 % of an untimed stream's time in all), from a cold cache and over the cached
 *           file (the arithmetic's own cost): how much a busy thread slows the reads it
 *           overlaps (devices/mapread.h, io_cpu_share); storage measurements, never held out;
 *   stream-busy-mem, busy-mem-warm
 *           the same two with the work after each page reading warm memory (a 64 MiB buffer,
 *           summed in order) instead of arithmetic, at the same levels: a thread that streams
 *           memory, as a matmul over cached weights does (docs/VALIDATION.md §3.13);
 *   warm    prompt passes of N tokens on an empty cache, the model in the page cache, at
 *           N = 1, 2, 4, ... max_n and 3, 5, 6, 12 (sizes that end no group of four tokens)
 *           (what llama-bench's pp N times; these, with fio, are all the calibration sees);
 *   tg      llama-bench's tg: G one-token steps from an empty cache (calibration too);
 *   rows    N tokens on an empty cache asking for every token's output row, interleaved with
 *   rows-1  the same N tokens asking for the last row only, and with
 *   rows-0  the same N tokens asking for no output row (llama.cpp then computes no output
 *           projection), the model in memory: rows - rows-1 is the output projection computed
 *           for N - 1 more rows, rows-1 - rows-0 its first row; the sources of the head's own
 *           rates (runner/testbed/calfit.h, ls_tbp_head_rate_get); calibration inputs like
 *           stream, never held-out points; measured on the target and, with a draft, on the
 *           draft too (kinds draft-rows, draft-rows-1, draft-rows-0: the same head kernel on
 *           a model whose passes it dominates, so the head's costs are a large share of them);
 *   cold    the same N-token passes with the model file evicted before each one: a real
 *           "stream the target from storage, then compute" pass;
 *   step    cold one-token steps at a context of `step_ctx` tokens (a decode step);
 *   tree    a verification tree (from `leversim tree --json`) after a prompt, submitted as
 *           one batch, every branch its own sequence id, cold and warm;
 *   repack  warm passes with Q4_0 repacking on (the library's default; then the weights
 *           live in anonymous memory and a pass no longer reads the file): its own case;
 *   vshape-ref, vshape-rows, vshape-ctx
 *           diagnostics of the speculative run's verification (k + 1 tokens, every output row,
 *           context the spec run's middle): cold passes of k + 1 tokens asking for the last row
 *           at context 0 (the reference), for every row at context 0, and for the last row at
 *           that context, alternated: each differs from the reference in one of the two ways a
 *           verification differs from a cold pass of its size (docs/VALIDATION.md §3.12);
 *           printed for information, never held out, never fitted;
 *   spec    a speculative run: a small draft model (resident) proposes k tokens one at a
 *           time, the target (evicted before every verification) checks them in one pass;
 *           how many are accepted comes from a token-oracle trace (`leversim trace record`:
 *           the target's rank of the draft's top candidate at each text position), since
 *           random weights accept nothing meaningful. Rejected positions are removed from
 *           both caches, as a real run does.
 * Every pass is measured reps times after one untimed warm-up (stream and the rows passes
 * 2 x reps + 1 times: their differences are small against their noise); every repetition is kept. Warm
 * and cold passes of one N alternate, and so do the tree's, so both meet the same load from
 * other processes; the
 * speculative run is repeated reps times (a pass's rep field: repetition x 1000 + cycle). */
#ifndef LS_RUNNER_TESTBED_MEASURE_H
#define LS_RUNNER_TESTBED_MEASURE_H
#include <stdio.h>
#include "runner/testbed/llamadrv.h"

#define LS_TBM_KIND 16
#define LS_TBM_ROWS_ALL "rows"   /* N tokens, N output rows */
#define LS_TBM_ROWS_ONE "rows-1" /* the same N tokens, one output row */
#define LS_TBM_ROWS_NONE "rows-0" /* the same N tokens, no output row: no output projection */
#define LS_TBM_DRAFT_ROWS_ALL "draft-rows"    /* the three rows passes on the draft model */
#define LS_TBM_DRAFT_ROWS_ONE "draft-rows-1"
#define LS_TBM_DRAFT_ROWS_NONE "draft-rows-0"
#define LS_TBM_ROWS_COLD "rows-cold"      /* rows, the model evicted right before the pass */
#define LS_TBM_ROWS_NONE_COLD "rows-0-cold" /* rows-0 likewise: their difference is the head's cold phase */
#define LS_TBM_STREAM_BUSY "stream-busy" /* the stream with fixed arithmetic after each page; N: its level, % */
#define LS_TBM_BUSY_WARM "busy-warm"     /* the same loop over the cached file: the arithmetic's own cost */
/* arithmetic in all, % of an untimed stream (the faster of two); 120 and 150 (since run AN): compute
 * that outlasts the reads, where the rule of devices/mapread.h's share_waited shows */
#define LS_TBM_BUSY_LEVELS 30, 60, 90, 120, 150
#define LS_TBM_STREAM_BUSY_MEM "stream-busy-mem" /* the same with memory reads instead of arithmetic */
#define LS_TBM_BUSY_MEM_WARM "busy-mem-warm"     /* that loop over the cached file: the reads' own cost */
#define LS_TBM_VSHAPE_REF "vshape-ref"   /* cold, k + 1 tokens, the last row, context 0 */
#define LS_TBM_VSHAPE_ROWS "vshape-rows" /* cold, k + 1 tokens, every row, context 0 */
#define LS_TBM_VSHAPE_CTX "vshape-ctx"   /* cold, k + 1 tokens, the last row, the spec run's middle context */

typedef struct ls_tbm_config {
  const char *lib_dir;     /* folder of libllama (scripts/testbed/fetch.sh prints it) */
  const char *target;      /* target GGUF */
  const char *draft;       /* draft GGUF (NULL: no speculative run) */
  int threads, reps;       /* 1, 3 */
  int max_n;               /* warm and cold passes at N = 1, 2, 4, ... max_n, and 3, 5, 6, 12 */
  int tg;                  /* one-token steps of the tg row (0: none) */
  int rows_n;              /* tokens of the rows passes (0: none, else 2..256) */
  int step_ctx;            /* context of the cold one-token steps */
  const char *tree_json;   /* `leversim tree --json` output (NULL: no tree passes) */
  int tree_prompt;         /* tokens before the tree */
  const char *trace;       /* `leversim trace record` output (NULL: no speculative run) */
  int spec_tokens, spec_k; /* tokens to generate, draft tokens per cycle */
  int repack;              /* 1: also measure the repacked case */
  int busy;                /* 1: also the stream with a busy thread (stream-busy, busy-warm) */
  int rows_cold;           /* 1: also the target's rows passes cold (rows-cold, rows-0-cold) */
} ls_tbm_config;

/* One timed pass. */
typedef struct ls_tbm_pass {
  char kind[LS_TBM_KIND];  /* warm, tg, rows, rows-1, rows-0, draft-rows*, cold, step, tree-cold, tree-warm, repack, spec-draft,
                            * spec-verify, stream, stream-busy, busy-warm, stream-busy-mem, busy-mem-warm, vshape-* */
  int n_tokens, ctx, rep;  /* ctx: tokens already in the cache */
  ls_llamadrv_cost c;
} ls_tbm_pass;

typedef struct ls_tbm_spec {
  int generated, cycles, k;
  double time_s, wall_s, cpu_s;   /* sums over every draft and verification pass */
  double draft_s, verify_s;       /* time_s split */
  int accepted[17];               /* cycles by accepted draft tokens (0..k) */
} ls_tbm_spec;

typedef struct ls_tbm_result {
  ls_tbm_pass *p;          /* owned */
  int n, cap;
  int tree_nodes, tree_depth, tree_leaves;
  int has_spec;
  ls_tbm_spec spec;
  uint64_t target_file_bytes, target_model_bytes, draft_model_bytes;
  int threads_seen;        /* llama_n_threads of the target's context */
  double read_ahead_bytes; /* the target's file system's read-ahead window (0: unknown) */
} ls_tbm_result;

/* Defaults: 1 thread, 3 repetitions, N up to 128, tg 16, rows passes of 16 tokens, step
 * context 64, tree after 32 tokens, 32 generated tokens with k = 4, repacked case on. */
ls_tbm_config ls_tbm_defaults(void);
/* Runs every measurement of c (progress lines to log, NULL: quiet). */
int ls_tbm_run(const ls_tbm_config *c, ls_tbm_result *out, FILE *log, ls_error *err);
void ls_tbm_result_free(ls_tbm_result *r);

/* The storage measurements (the stream and the busy streams) are repeated `reps` times, spread
 * over a run in LS_TBM_STORAGE_SLOTS slots: before the rounds (each a warm and a cold pass of
 * every size, a step and a speculative run), at one to four fifths of them, after the tg,
 * rows and shape passes, after the tree. The slot of repetition k: round(k (SLOTS - 1) /
 * (reps - 1)), so the first opens the run and the last closes it; 0 when reps is 1. */
#define LS_TBM_STORAGE_SLOTS 7
int ls_tbm_storage_slot(int k, int reps);

/* Median of the `time_s` of the rows of kind with n_tokens (and ctx when ctx >= 0); NAN when
 * none. */
double ls_tbm_median(const ls_tbm_result *r, const char *kind, int n_tokens, int ctx);

#endif
