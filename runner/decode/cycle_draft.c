/* runner/cycle_draft: the DRAFT stage of a decode cycle (see decode.c for the whole cycle).
 *
 * Comes after cycle start (cycle_account.c), where the draft policy built the tree and
 * recorded its forward steps. For each of those steps the map policy picks the unit (CPU or
 * NPU) and the number of calls; the calls of one step run back to back on that unit. A step
 * waits only for the step it depends on, so a CPU pass and an NPU pass can run at the same
 * time. When the last pass is done, verification begins (cycle_verify.c).
 *
 * Inline (draft_inline): when nothing is pending in the engine (so the CPU clusters and the
 * NPU are idle: a busy server always has its completion pending), the flash device is on the
 * recurrence (device.flash.sim=events keeps the stage on the events, the judge in the tests)
 * and no resource has more than INLINE_SERVERS servers, nothing but the stage's own jobs can
 * meet them until its last pass ends, so the stage is computed on its own clock. The events
 * submit the passes in step order, pass s at
 *   sub_s = max(sub_{s-1}, done_{dep(s)})      (sub_{-1} = done_{-1} = the stage's start)
 * (a pass waits for its dependency and for the passes before it to be submitted), each job in
 * the order ls_cyc_submit_cpu and the NPU submissions give, so every resource sees its jobs
 * in submission order at non-decreasing times. A FIFO station of c servers starts job k at
 *   start_k = max(sub_k, the earliest time one of its servers is free after jobs 1..k-1)
 * (the G/G/c recursion; which server takes it cannot change a time, and ties at one instant
 * start at that instant in either order of the events), and ends it at start_k + ns_k; a
 * pass is done at its last job's end, and verification begins at the last pass's. The jobs'
 * busy time and counts are booked on their resources (ls_resource_book, read only after the
 * stage), the map policy and the cost model are asked in the events' order, and the stage's
 * end is one engine event, at the instant the events would begin verification: the same
 * times, books and phase edges (the stage has none inside: DRAFT until verification), one
 * event instead of one per job (or gang). */
#include <inttypes.h>
#include <string.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"

/* A station with more servers than this is left to the events (none in the shipped devices:
 * a cluster has at most a few cores, the NPU one server). */
#define INLINE_SERVERS 16

static void draft_submit_ready(ls_run_state *r);

/* A CPU call runs on r->cfg.threads cores: one job per thread, on the cluster the thread is
 * placed on (fastest first; r->cfg.cpu_per, assigned once per run), so busy time and energy
 * count every core. done fires once per job with ctx; returns how many were submitted. A
 * cluster's jobs go in as one submission (ls_resource_submit_n: one engine event when its
 * cores are free, the same completions). */
int ls_cyc_submit_cpu(ls_run_state *r, int64_t ns, ls_event_fn done, void *ctx)
{
  int n = 0;
  for (int c = 0; c < r->ds->n_cpu; c++) {
    int per = r->cfg.cpu_per[c];
    if (per > 0 && ls_resource_submit_n(r->ds->cpu[c], per, ns, done, ctx, r->err))
      ls_cyc_fail(r, r->err->code);
    n += per;
  }
  return n;
}

/* One job of a draft pass finished; the pass is done when all its jobs are. */
static void step_job_done(ls_engine *e, void *ctx)
{
  (void)e;
  ls_step_job *j = ctx;
  ls_run_state *r = j->r;
  if (--r->drafting.step_left[j->step] > 0)
    return;
  r->drafting.step_done[j->step] = 1;
  if (++r->drafting.steps_done == r->cand.tree.n_steps)
    ls_cyc_verify_begin(r);
  else
    draft_submit_ready(r);
}

/* Submits, in order, every pass whose dependency is done: each pass's calls go to the unit the
 * map policy picks (NPU calls queue on the NPU, a CPU call occupies r->cfg.threads cores), so a
 * CPU pass and an NPU pass that do not need each other's output run at the same time. */
static void draft_submit_ready(ls_run_state *r)
{
  while (r->drafting.next_step < r->cand.tree.n_steps && !r->failed) {
    int s = r->drafting.next_step, dep = r->cand.tree.step_dep[s];
    if (dep >= 0 && !r->drafting.step_done[dep])
      return;
    ls_draft_exec x = r->cfg.mops->draft_step(r->cfg.mstate, r->cand.tree.step_nodes[s], r->cand.tree.step_depth[s]);
    int calls = x.calls > 0 ? x.calls : 1;
    int64_t ns = ls_costmodel_draft_call_ns(r->cfg.cm, x.unit, x.tokens_per_call, r->seq.ctx_len);
    r->drafting.sj[s] = (ls_step_job){r, s};
    r->drafting.draft_work += calls * ns;
    r->drafting.step_left[s] = 0;
    r->drafting.next_step++;
    for (int c = 0; c < calls; c++) {
      if (x.unit == LS_UNIT_CPU) {
        r->drafting.step_left[s] += ls_cyc_submit_cpu(r, ns, step_job_done, &r->drafting.sj[s]);
      } else {
        r->drafting.step_left[s]++;
        if (ls_resource_submit(r->ds->npu, ns, step_job_done, &r->drafting.sj[s], r->err))
          ls_cyc_fail(r, r->err->code);
      }
    }
  }
}

/* The stations of an inline stage: index c < n_cpu a CPU cluster, n_cpu the NPU. Each
 * station's servers (asked once a stage) and their free times, and the busy time and jobs to
 * book at the stage's end. */
typedef struct draft_books {
  int cap[LS_CPU_MAX_CLUSTERS + 1];
  int64_t free_at[LS_CPU_MAX_CLUSTERS + 1][INLINE_SERVERS];
  int64_t busy[LS_CPU_MAX_CLUSTERS + 1];
  uint64_t jobs[LS_CPU_MAX_CLUSTERS + 1];
} draft_books;

static ls_resource *station(const ls_run_state *r, int k)
{
  return k < r->ds->n_cpu ? r->ds->cpu[k] : r->ds->npu;
}

/* Whether the stage may run inline (see the top). */
static int draft_can_inline(const ls_run_state *r)
{
  if (ls_engine_pending(r->eng) != 0 || !ls_flash_dev_can_read_alone(r->ds->flash))
    return 0;
  for (int k = 0; k <= r->ds->n_cpu; k++)
    if (ls_resource_in_service(station(r, k)) != 0 || ls_resource_capacity(station(r, k)) > INLINE_SERVERS)
      return 0;
  for (int s = 0; s < r->cand.tree.n_steps; s++)
    if (r->cand.tree.step_dep[s] >= s) /* a pass that waits for a later one is the events' to judge */
      return 0;
  return 1;
}

/* `n` jobs of ns each submitted at t to station k, one after another (the recursion at the
 * top): returns the last one's end (every later job of the station ends no earlier), or -1
 * when the run failed (a time past INT64_MAX). */
static int64_t station_jobs(ls_run_state *r, draft_books *b, int k, int n, int64_t t, int64_t ns)
{
  int64_t *f = b->free_at[k], end = t;
  int cap = b->cap[k];
  for (int j = 0; j < n; j++) {
    int m = 0;
    for (int i = 1; i < cap; i++)
      m = f[i] < f[m] ? i : m;
    int64_t start = f[m] > t ? f[m] : t;
    if (ns < 0 || ns > INT64_MAX - start || ns > INT64_MAX - b->busy[k]) {
      ls_cyc_fail(r, ls_error_set(r->err, LS_ERANGE, "decode: a draft job of %" PRId64 " ns at t=%" PRId64 " ns is out of range", ns, start));
      return -1;
    }
    end = f[m] = start + ns;
    b->busy[k] += ns;
    b->jobs[k]++;
  }
  return end;
}

static void draft_end(ls_engine *e, void *ctx)
{
  (void)e;
  ls_cyc_verify_begin(ctx);
}

/* The whole stage on its own clock (see the top): the same passes, calls, times and books as
 * draft_submit_ready and step_job_done, then one engine event where verification begins. */
static void draft_inline(ls_run_state *r)
{
  int64_t t0 = ls_engine_now(r->eng), sub = t0, end = t0, done[LS_STEPS_MAX];
  draft_books b;
  int n_cpu = r->ds->n_cpu;
  for (int k = 0; k <= n_cpu; k++) {
    b.cap[k] = ls_resource_capacity(station(r, k));
    for (int i = 0; i < b.cap[k]; i++)
      b.free_at[k][i] = t0;
    b.busy[k] = 0;
    b.jobs[k] = 0;
  }
  for (int s = 0; s < r->cand.tree.n_steps; s++) {
    int dep = r->cand.tree.step_dep[s];
    sub = dep >= 0 && done[dep] > sub ? done[dep] : sub;
    ls_draft_exec x = r->cfg.mops->draft_step(r->cfg.mstate, r->cand.tree.step_nodes[s], r->cand.tree.step_depth[s]);
    int calls = x.calls > 0 ? x.calls : 1;
    int64_t ns = ls_costmodel_draft_call_ns(r->cfg.cm, x.unit, x.tokens_per_call, r->seq.ctx_len);
    r->drafting.draft_work += calls * ns;
    done[s] = sub;
    int k0 = x.unit == LS_UNIT_CPU ? 0 : n_cpu, k1 = x.unit == LS_UNIT_CPU ? n_cpu : n_cpu + 1;
    for (int c = 0; c < calls; c++) /* a CPU call: its cores cluster by cluster; an NPU call: one job */
      for (int k = k0; k < k1; k++) {
        int n = k < n_cpu ? r->cfg.cpu_per[k] : 1;
        int64_t e = n > 0 ? station_jobs(r, &b, k, n, sub, ns) : sub;
        if (e < 0)
          return;
        done[s] = e > done[s] ? e : done[s];
      }
    end = done[s] > end ? done[s] : end;
  }
  r->drafting.next_step = r->drafting.steps_done = r->cand.tree.n_steps;
  int rc = LS_OK;
  for (int k = 0; k <= n_cpu && !rc; k++)
    rc = ls_resource_book(station(r, k), b.busy[k], b.jobs[k], r->err);
  if (rc || ls_engine_schedule(r->eng, end, draft_end, r, NULL, r->err))
    ls_cyc_fail(r, r->err->code);
  else if (r->res)
    r->res->inline_drafts++;
}

void ls_cyc_draft_begin(ls_run_state *r)
{
  r->drafting.next_step = r->drafting.steps_done = 0;
  r->drafting.draft_work = 0;
  memset(r->drafting.step_done, 0, (size_t)r->cand.tree.n_steps);
  if (r->cand.tree.n_steps == 0)
    ls_cyc_verify_begin(r);
  else if (draft_can_inline(r))
    draft_inline(r);
  else
    draft_submit_ready(r);
}
