/* workloads/trace: recorded draft/target behaviour (format: workloads/TRACE_FORMAT.md).
 *
 * A trace holds, per prompt and text position, the draft's top-K probabilities on the true
 * text and the rank the target chose, plus optional off-path candidate sets. It is read
 * (validated, errors at file:line:col), written (exact round trip), recorded from the
 * synthetic oracle, summarised, and replayed through the same ls_draft_view + true-rank
 * interface as ls_oracle, so a runner can use it in place of the synthetic oracle. */
#ifndef LS_WORKLOADS_TRACE_H
#define LS_WORKLOADS_TRACE_H
#include <stdint.h>
#include <stdio.h>
#include "sim/error.h"
#include "workloads/oracle.h"
#include "workloads/view.h"

#define LS_TRACE_VERSION 1
#define LS_TRACE_PATH_MAX 8 /* ranks in an off-path record's path */

typedef struct ls_trace ls_trace;

/* *out owned by caller (ls_trace_free). */
int ls_trace_read(ls_trace **out, const char *path, ls_error *err);
int ls_trace_write(const ls_trace *t, const char *path, ls_error *err);
int ls_trace_write_file(const ls_trace *t, FILE *f, ls_error *err);
/* Records from the oracle: every prompt, positions 0 .. output_len + extra - 1, top-k
 * candidates (1..16), and for each position the off-path children of ranks 0..off-1 (not
 * the true one) with their candidate sets. meta values are copied (NULL skips the key). */
int ls_trace_record(ls_trace **out, const ls_oracle *o, int topk, int off, int extra,
                    const char *dataset, const char *target, const char *draft, uint64_t seed,
                    ls_error *err);
void ls_trace_free(ls_trace *t);

int ls_trace_prompts(const ls_trace *t);
int ls_trace_prompt_len(const ls_trace *t, int prompt);
int ls_trace_output_len(const ls_trace *t, int prompt);
int ls_trace_positions(const ls_trace *t, int prompt);
/* The rank the target chose at text position pos (0 .. ls_trace_positions - 1). */
int ls_trace_rank(const ls_trace *t, int prompt, int pos);
const char *ls_trace_meta(const ls_trace *t, const char *key); /* borrowed, NULL if absent */
/* 1 when both hold the same records (numbers compared exactly). */
int ls_trace_equal(const ls_trace *a, const ls_trace *b);
/* Prints a summary: prompts, positions, top-1 acceptance, rank histogram, mean top-1
 * probability, off-path records. */
void ls_trace_info(const ls_trace *t, FILE *f);

/* Replay: the trace as an oracle. Cycle handle in caller storage; view->ctx == cyc. */
typedef struct ls_trace_cycle {
  const ls_trace *t;
  int prompt;
  int pos;
} ls_trace_cycle;
void ls_trace_replay_begin(const ls_trace *t, int prompt, int pos, ls_trace_cycle *cyc,
                           ls_draft_view *view);
/* As ls_oracle_true_rank: rank >= 0, -1 none, LS_ORACLE_OFF_PATH off the true path. */
int ls_trace_replay_true_rank(const ls_trace_cycle *cyc, uint64_t key, int depth);

#endif
