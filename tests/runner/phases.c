/* tests/runner/phases: the decode cycle's state machine (runner/decode/phase.c).
 * The allowed transitions are written here a second time, from the cycle's description, so a
 * table that gains or loses an edge fails; every allowed transition passes the check, every
 * other is refused with LS_ESTATE and leaves the phase alone; runs of every system and
 * overlap mode take every allowed transition and no other. */
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "rtest.h"
#include "runner/decode/decode_int.h"
#include "runner/decode/phase.h"
#include "runner/decode/system.h"

#define SHIPPED LS_SOURCE_DIR

/* The cycle, edge by edge (docs/ARCHITECTURE.md, "One decode cycle"). */
static const struct {
  ls_phase from, to;
} EDGES[] = {
    {LS_PHASE_IDLE, LS_PHASE_PREFETCH},           {LS_PHASE_IDLE, LS_PHASE_PREFILL_WAIT},
    {LS_PHASE_PREFETCH, LS_PHASE_PREFILL_WAIT},   {LS_PHASE_PREFETCH, LS_PHASE_DRAFT},
    {LS_PHASE_PREFETCH, LS_PHASE_IDLE},           {LS_PHASE_PREFILL_WAIT, LS_PHASE_PREFILL_LAYER},
    {LS_PHASE_PREFILL_LAYER, LS_PHASE_PREFILL_WAIT}, {LS_PHASE_PREFILL_WAIT, LS_PHASE_PREFILL_HEAD},
    {LS_PHASE_PREFILL_HEAD, LS_PHASE_PREFILL_SAMPLE}, {LS_PHASE_PREFILL_SAMPLE, LS_PHASE_COMMIT},
    {LS_PHASE_DRAFT, LS_PHASE_VERIFY_WAIT},       {LS_PHASE_VERIFY_WAIT, LS_PHASE_VERIFY_LAYER},
    {LS_PHASE_VERIFY_LAYER, LS_PHASE_VERIFY_WAIT}, {LS_PHASE_VERIFY_WAIT, LS_PHASE_ACCEPT},
    {LS_PHASE_ACCEPT, LS_PHASE_HEAD},             {LS_PHASE_HEAD, LS_PHASE_SAMPLE},
    {LS_PHASE_SAMPLE, LS_PHASE_HEAD},             {LS_PHASE_SAMPLE, LS_PHASE_COMMIT},
    {LS_PHASE_COMMIT, LS_PHASE_PREFETCH},         {LS_PHASE_COMMIT, LS_PHASE_DRAFT},
    {LS_PHASE_COMMIT, LS_PHASE_IDLE},
};
#define N_EDGES (int)(sizeof EDGES / sizeof EDGES[0])

static int listed(int from, int to)
{
  for (int i = 0; i < N_EDGES; i++)
    if ((int)EDGES[i].from == from && (int)EDGES[i].to == to)
      return 1;
  return 0;
}

static void test_table(void)
{
  int n = 0;
  for (int f = 0; f < LS_PHASE_COUNT; f++)
    for (int t = 0; t < LS_PHASE_COUNT; t++) {
      CU_ASSERT_EQUAL(ls_phase_allowed(f, t), listed(f, t));
      n += ls_phase_allowed(f, t);
    }
  CU_ASSERT_EQUAL(n, N_EDGES);
  CU_ASSERT_EQUAL(ls_phase_allowed(-1, 0), 0);
  CU_ASSERT_EQUAL(ls_phase_allowed(0, LS_PHASE_COUNT), 0);
  for (int p = 0; p < LS_PHASE_COUNT; p++) {
    CU_ASSERT_EQUAL(ls_phase_allowed(p, p), 0); /* no stage is entered twice in a row */
    CU_ASSERT_STRING_NOT_EQUAL(ls_phase_name(p), "?");
    for (int q = 0; q < p; q++)
      CU_ASSERT_STRING_NOT_EQUAL(ls_phase_name(p), ls_phase_name(q));
  }
  CU_ASSERT_STRING_EQUAL(ls_phase_name(LS_PHASE_VERIFY_LAYER), "VERIFY_LAYER");
  CU_ASSERT_STRING_EQUAL(ls_phase_name(LS_PHASE_COUNT), "?");
}

/* A run state in phase `from` whose pass and sequence satisfy what entering `to` needs. */
static ls_run_state *state_for(ls_phase from, ls_phase to, ls_error *err, ls_decode_result *res)
{
  ls_run_state *r = calloc(1, sizeof *r);
  r->cfg.L = 4;
  r->err = err;
  r->res = res;
  r->phase = from; /* the fixture, not the code: the code writes it only through ls_cyc_enter */
  r->verify.next_layer = to == LS_PHASE_ACCEPT || to == LS_PHASE_PREFILL_HEAD ? 5 : 2;
  r->seq.produced = r->seq.target_len = 3;
  return r;
}

static void test_every_allowed_transition_passes(void)
{
  for (int i = 0; i < N_EDGES; i++) {
    ls_error err;
    ls_decode_result res;
    ls_error_clear(&err);
    memset(&res, 0, sizeof res);
    ls_run_state *r = state_for(EDGES[i].from, EDGES[i].to, &err, &res);
    CU_ASSERT_EQUAL(ls_cyc_enter(r, EDGES[i].to), LS_OK);
    CU_ASSERT_EQUAL(r->phase, EDGES[i].to);
    CU_ASSERT_EQUAL(r->failed, 0);
    CU_ASSERT_EQUAL(res.phase_edges[EDGES[i].from], 1u << EDGES[i].to);
    free(r);
  }
}

/* Planted: every transition the table does not allow. Each fails the run with LS_ESTATE,
 * names both phases, and leaves the phase as it was; the run's first failure stands. */
static void test_illegal_transition_caught(void)
{
  int planted = 0;
  for (int f = 0; f < LS_PHASE_COUNT; f++)
    for (int t = 0; t < LS_PHASE_COUNT; t++) {
      if (listed(f, t))
        continue;
      ls_error err;
      ls_decode_result res;
      ls_error_clear(&err);
      memset(&res, 0, sizeof res);
      ls_run_state *r = state_for((ls_phase)f, (ls_phase)t, &err, &res);
      CU_ASSERT_EQUAL(ls_cyc_enter(r, (ls_phase)t), LS_ESTATE);
      CU_ASSERT_EQUAL(r->failed, LS_ESTATE);
      CU_ASSERT_EQUAL(r->phase, (ls_phase)f);
      CU_ASSERT_EQUAL(err.code, LS_ESTATE);
      CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ls_phase_name(f)));
      CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ls_phase_name(t)));
      CU_ASSERT_EQUAL(res.phase_edges[f], 0u);
      /* once failed, even a legal transition is refused: the engine only drains */
      CU_ASSERT_EQUAL(ls_cyc_enter(r, LS_PHASE_PREFILL_WAIT), LS_ESTATE);
      free(r);
      planted++;
    }
  CU_ASSERT_EQUAL(planted, LS_PHASE_COUNT * LS_PHASE_COUNT - N_EDGES);
}

/* The destination's invariants are checked too, not only the table. */
static void test_invariants_caught(void)
{
  struct {
    ls_phase from, to;
    int next_layer, left, produced;
  } bad[] = {
      {LS_PHASE_VERIFY_WAIT, LS_PHASE_VERIFY_LAYER, 4, 0, 3}, /* layer L does not exist */
      {LS_PHASE_VERIFY_WAIT, LS_PHASE_ACCEPT, 3, 0, 3},       /* a layer not yet computed */
      {LS_PHASE_PREFILL_WAIT, LS_PHASE_PREFILL_HEAD, 4, 0, 3},
      {LS_PHASE_VERIFY_LAYER, LS_PHASE_VERIFY_WAIT, 6, 0, 3},
      {LS_PHASE_SAMPLE, LS_PHASE_COMMIT, 5, 1, 3},            /* projections left */
      {LS_PHASE_COMMIT, LS_PHASE_IDLE, 5, 0, 2},              /* output not complete */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ls_error err;
    ls_error_clear(&err);
    ls_run_state *r = state_for(bad[i].from, bad[i].to, &err, NULL);
    r->verify.next_layer = bad[i].next_layer;
    r->head.left = bad[i].left;
    r->seq.produced = bad[i].produced;
    CU_ASSERT_EQUAL(ls_phase_allowed(bad[i].from, bad[i].to), 1);
    CU_ASSERT_EQUAL(ls_cyc_phase_check(r, bad[i].to, &err), LS_ESTATE);
    CU_ASSERT_EQUAL(ls_cyc_enter(r, bad[i].to), LS_ESTATE);
    CU_ASSERT_EQUAL(r->phase, bad[i].from);
    free(r);
  }
}

/* Runs of every system in every overlap mode, a recorded trace and a resident target: each
 * succeeds (every transition it took passed the check), ends IDLE, and together they take
 * every allowed transition, so the table has no edge the cycle never uses. */
static void test_runs_cover_the_table(void)
{
  static const char *const OVERLAP[] = {"serial", "prefetch", "cross-cycle", "mapped"};
  uint32_t seen[LS_DECODE_PHASE_SLOTS] = {0};
  for (const ls_system *s = ls_system_all(); s->name; s++)
    for (int o = 0; o < 4 && !s->host; o++) { /* a host system has no phases (cycle_host.c) */
      char set[256];
      snprintf(set, sizeof set, "workload.prompts=2;workload.max_tokens=16;verify.overlap=%s", OVERLAP[o]);
      ls_decode_result res;
      CU_ASSERT_EQUAL_FATAL(ls_rt_run(SHIPPED, "oneplus-12", "llama-3.1-8b", "mbpp", s->name, set, 0, &res), LS_OK);
      for (int p = 0; p < LS_DECODE_PHASE_SLOTS; p++)
        seen[p] |= res.phase_edges[p];
      ls_decode_result_free(&res);
    }
  for (int i = 0; i < N_EDGES; i++) {
    CU_ASSERT(seen[EDGES[i].from] >> EDGES[i].to & 1u);
    if (!(seen[EDGES[i].from] >> EDGES[i].to & 1u))
      fprintf(stderr, "never taken: %s -> %s\n", ls_phase_name((int)EDGES[i].from), ls_phase_name((int)EDGES[i].to));
  }
  for (int f = 0; f < LS_PHASE_COUNT; f++)
    for (int t = 0; t < LS_PHASE_COUNT; t++)
      if (seen[f] >> t & 1u)
        CU_ASSERT(listed(f, t));
}

CU_TestInfo ls_rt_phases[] = {
    {"the transition table is the cycle's, edge by edge", test_table},
    {"every allowed transition passes the check", test_every_allowed_transition_passes},
    {"a planted illegal transition fails the run with LS_ESTATE", test_illegal_transition_caught},
    {"a transition into a broken state is caught", test_invariants_caught},
    {"runs of every system and overlap take every allowed transition", test_runs_cover_the_table},
    CU_TEST_INFO_NULL};
