/* tests/fuzz/fuzz_trace: libFuzzer harness for the trace reader (ls_trace_read).
 * A trace that reads is summarised, replayed at a few positions and written back; the
 * written text must read again into an equal trace (the format promises an exact round
 * trip), otherwise the harness aborts, which libFuzzer reports as a finding. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzz_util.h"
#include "workloads/trace.h"

static void replay(const ls_trace *t)
{
  for (int p = 0; p < ls_trace_prompts(t) && p < 4; p++) {
    int n = ls_trace_positions(t, p);
    for (int pos = 0; pos <= n + 1 && pos < 32; pos += 3) {
      ls_trace_cycle cyc;
      ls_draft_view v;
      double q[LS_VIEW_TOPK_MAX];
      ls_trace_replay_begin(t, p, pos, &cyc, &v);
      int k = v.candidates(v.ctx, v.root_key, 0, q, LS_VIEW_TOPK_MAX);
      (void)ls_trace_replay_true_rank(&cyc, v.root_key, 0);
      for (int r = 0; r < k; r++) {
        uint64_t ck = v.child_key(v.ctx, v.root_key, 0, r);
        (void)v.candidates(v.ctx, ck, 1, q, LS_VIEW_TOPK_MAX);
        (void)ls_trace_replay_true_rank(&cyc, ck, 1);
        uint64_t gk = v.child_key(v.ctx, ck, 1, 0);
        (void)v.candidates(v.ctx, gk, 2, q, LS_VIEW_TOPK_MAX);
      }
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = fz_write("input.trace", data, size);
  ls_trace *t = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_trace_read(&t, path, &err) != LS_OK) {
    fz_report("read", &err);
    return 0;
  }
  ls_trace_info(t, fz_devnull());
  replay(t);
  char back[512];
  snprintf(back, sizeof back, "%s.out", path);
  ls_trace *u = NULL;
  if (ls_trace_write(t, back, &err) != LS_OK || ls_trace_read(&u, back, &err) != LS_OK) {
    fprintf(stderr, "fuzz_trace: written trace does not read back: %s:%d:%d: %s\n", err.file, err.line,
            err.col, err.msg);
    abort();
  }
  if (!ls_trace_equal(t, u)) {
    fprintf(stderr, "fuzz_trace: round trip changed the trace\n");
    abort();
  }
  ls_trace_free(u);
  ls_trace_free(t);
  return 0;
}
