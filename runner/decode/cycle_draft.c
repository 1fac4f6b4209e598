/* runner/cycle_draft: the DRAFT stage of a decode cycle (see decode.c for the whole cycle).
 *
 * Comes after cycle start (cycle_account.c), where the draft policy built the tree and
 * recorded its forward steps. For each of those steps the map policy picks the unit (CPU or
 * NPU) and the number of calls; the calls of one step run back to back on that unit. A step
 * waits only for the step it depends on, so a CPU pass and an NPU pass can run at the same
 * time. When the last pass is done, verification begins (cycle_verify.c). */
#include <string.h>
#include "runner/decode/decode_int.h"
#include "sim/resource.h"

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

void ls_cyc_draft_begin(ls_run_state *r)
{
  r->drafting.next_step = r->drafting.steps_done = 0;
  r->drafting.draft_work = 0;
  memset(r->drafting.step_done, 0, (size_t)r->cand.tree.n_steps);
  if (r->cand.tree.n_steps == 0)
    ls_cyc_verify_begin(r);
  else
    draft_submit_ready(r);
}
