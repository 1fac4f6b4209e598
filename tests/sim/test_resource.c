/* tests/sim/test_resource: servers with capacity c and a FIFO queue (hand-made job patterns
 * with exact busy times), and an M/M/1 queue built from engine + resource + named streams. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "sim/engine.h"
#include "sim/resource.h"
#include "sim/rng.h"
#include "sim/stats.h"
#include "sim_suites.h"

typedef struct {
  int tag[32];
  int64_t at[32];
  int n;
} done_log;

typedef struct {
  done_log *log;
  int tag;
} job_ref;

static void on_done(ls_engine *e, void *ctx)
{
  job_ref *j = ctx;
  if (j->log->n < 32) {
    j->log->tag[j->log->n] = j->tag;
    j->log->at[j->log->n] = ls_engine_now(e);
    j->log->n++;
  }
}

/* A probe event that records the resource's state at its time. */
typedef struct {
  ls_resource *r;
  int64_t busy;
  int in_service, queued;
  double util;
} probe;

static void on_probe(ls_engine *e, void *ctx)
{
  (void)e;
  probe *p = ctx;
  p->busy = ls_resource_busy_ns(p->r);
  p->in_service = ls_resource_in_service(p->r);
  p->queued = ls_resource_queued(p->r);
  p->util = ls_resource_utilisation(p->r);
}

/* Submits a job from an event (so it arrives at a chosen time). */
typedef struct {
  ls_resource *r;
  int64_t service;
  job_ref *ref;
} arrival;

static void on_arrive(ls_engine *e, void *ctx)
{
  (void)e;
  arrival *a = ctx;
  CU_ASSERT_EQUAL(ls_resource_submit(a->r, a->service, on_done, a->ref, NULL), LS_OK);
}

static void setup(ls_engine **e, ls_resource **r, int c)
{
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_engine_create(e, &err), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_resource_create(r, *e, "npu", c, &err), LS_OK);
}

static void test_busy_exact(void)
{
  /* c = 1. t=0: jobs of 10 and 20 ns; t=100: a job of 5 ns. Busy [0,30] and [100,105]. */
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 1);
  CU_ASSERT_STRING_EQUAL(ls_resource_name(r), "npu");
  CU_ASSERT_EQUAL(ls_resource_capacity(r), 1);
  CU_ASSERT_EQUAL(ls_resource_utilisation(r), 0.0); /* at time 0 */
  done_log log = {0};
  job_ref j[3] = {{&log, 0}, {&log, 1}, {&log, 2}};
  CU_ASSERT_EQUAL(ls_resource_submit(r, 10, on_done, &j[0], NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_submit(r, 20, on_done, &j[1], NULL), LS_OK);
  arrival late = {r, 5, &j[2]};
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 100, on_arrive, &late, NULL, NULL), LS_OK);
  probe p15 = {r, 0, 0, 0, 0}, p50 = {r, 0, 0, 0, 0}, p102 = {r, 0, 0, 0, 0};
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 15, on_probe, &p15, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 50, on_probe, &p50, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 102, on_probe, &p102, NULL, NULL), LS_OK);
  ls_engine_run(e);
  CU_ASSERT_EQUAL(p15.busy, 15);
  CU_ASSERT_EQUAL(p15.in_service, 1);
  CU_ASSERT_EQUAL(p15.queued, 0); /* the second job started at 10 */
  CU_ASSERT_EQUAL(p50.busy, 30);
  CU_ASSERT_EQUAL(p50.in_service, 0);
  CU_ASSERT_DOUBLE_EQUAL(p50.util, 30.0 / 50.0, 1e-15);
  CU_ASSERT_EQUAL(p102.busy, 32);
  CU_ASSERT_EQUAL(ls_engine_now(e), 105);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 35);
  CU_ASSERT_DOUBLE_EQUAL(ls_resource_utilisation(r), 35.0 / 105.0, 1e-15);
  CU_ASSERT_EQUAL(ls_resource_completed(r), 3);
  CU_ASSERT_EQUAL(log.n, 3);
  CU_ASSERT_EQUAL(log.at[0], 10);
  CU_ASSERT_EQUAL(log.at[1], 30);
  CU_ASSERT_EQUAL(log.at[2], 105);
  ls_resource_free(r);
  ls_engine_free(e);
}

static void test_fifo(void)
{
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 1);
  done_log log = {0};
  static const int64_t S[] = {7, 1, 5, 3, 0, 9};
  job_ref j[6];
  for (int i = 0; i < 6; i++) {
    j[i] = (job_ref){&log, i};
    CU_ASSERT_EQUAL(ls_resource_submit(r, S[i], on_done, &j[i], NULL), LS_OK);
  }
  CU_ASSERT_EQUAL(ls_resource_in_service(r), 1);
  CU_ASSERT_EQUAL(ls_resource_queued(r), 5);
  ls_engine_run(e);
  int64_t t = 0;
  CU_ASSERT_EQUAL(log.n, 6);
  for (int i = 0; i < 6 && i < log.n; i++) {
    t += S[i];
    CU_ASSERT_EQUAL(log.tag[i], i); /* served in arrival order, whatever the service times */
    CU_ASSERT_EQUAL(log.at[i], t);
  }
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 25);
  CU_ASSERT_DOUBLE_EQUAL(ls_resource_utilisation(r), 1.0, 1e-15);
  ls_resource_free(r);
  ls_engine_free(e);
}

static void test_capacity(void)
{
  /* c = 3, seven jobs of 10 ns at t=0: completions 3 at 10, 3 at 20, 1 at 30. */
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 3);
  done_log log = {0};
  job_ref j[7];
  for (int i = 0; i < 7; i++) {
    j[i] = (job_ref){&log, i};
    CU_ASSERT_EQUAL(ls_resource_submit(r, 10, on_done, &j[i], NULL), LS_OK);
  }
  CU_ASSERT_EQUAL(ls_resource_in_service(r), 3);
  CU_ASSERT_EQUAL(ls_resource_queued(r), 4);
  probe p5 = {r, 0, 0, 0, 0}, p25 = {r, 0, 0, 0, 0};
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 5, on_probe, &p5, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 25, on_probe, &p25, NULL, NULL), LS_OK);
  ls_engine_run(e);
  CU_ASSERT_EQUAL(p5.busy, 15);
  CU_ASSERT_EQUAL(p25.busy, 65); /* 60 done + 5 of the seventh job */
  CU_ASSERT_EQUAL(p25.in_service, 1);
  static const int64_t at[] = {10, 10, 10, 20, 20, 20, 30};
  CU_ASSERT_EQUAL(log.n, 7);
  for (int i = 0; i < 7 && i < log.n; i++) {
    CU_ASSERT_EQUAL(log.tag[i], i);
    CU_ASSERT_EQUAL(log.at[i], at[i]);
  }
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 70);
  CU_ASSERT_DOUBLE_EQUAL(ls_resource_utilisation(r), 70.0 / 90.0, 1e-15);
  ls_resource_free(r);
  ls_engine_free(e);
}

static void test_capacity_uneven(void)
{
  /* c = 2, jobs 10, 3, 4, 5 at t=0: job0 [0,10] on one server; job1 [0,3], job2 [3,7],
   * job3 [7,12] on the other. Completion order 1, 2, 0, 3. */
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 2);
  done_log log = {0};
  static const int64_t S[] = {10, 3, 4, 5};
  job_ref j[4];
  for (int i = 0; i < 4; i++) {
    j[i] = (job_ref){&log, i};
    CU_ASSERT_EQUAL(ls_resource_submit(r, S[i], on_done, &j[i], NULL), LS_OK);
  }
  ls_engine_run(e);
  static const int tag[] = {1, 2, 0, 3};
  static const int64_t at[] = {3, 7, 10, 12};
  CU_ASSERT_EQUAL(log.n, 4);
  for (int i = 0; i < 4 && i < log.n; i++) {
    CU_ASSERT_EQUAL(log.tag[i], tag[i]);
    CU_ASSERT_EQUAL(log.at[i], at[i]);
  }
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 22);
  CU_ASSERT_DOUBLE_EQUAL(ls_resource_utilisation(r), 22.0 / 24.0, 1e-15);
  ls_resource_free(r);
  ls_engine_free(e);
}

static void test_errors_and_free(void)
{
  ls_engine *e = NULL;
  ls_resource *r = NULL;
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL_FATAL(ls_engine_create(&e, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_create(&r, e, "cpu", 0, &err), LS_EINVALID);
  CU_ASSERT_PTR_NULL(r);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cpu"));
  CU_ASSERT_EQUAL_FATAL(ls_resource_create(&r, e, "flash", 2, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_submit(r, -1, NULL, NULL, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "flash"));
  CU_ASSERT_EQUAL(ls_resource_submit(r, 1, NULL, NULL, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_submit(r, INT64_MAX, NULL, NULL, &err), LS_ERANGE); /* would overflow */
  CU_ASSERT_EQUAL(ls_resource_submit(r, 0, NULL, NULL, &err), LS_OK);    /* zero service */
  CU_ASSERT_EQUAL(ls_resource_submit(r, 1000, NULL, NULL, &err), LS_OK); /* queued */
  CU_ASSERT_EQUAL(ls_resource_queued(r), 1);
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 1), 2); /* the zero job at 0, the 1 ns job at 1 */
  CU_ASSERT_EQUAL(ls_resource_in_service(r), 1);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 2);    /* 1 + 0 + 1 ns of the 1000 ns job */
  CU_ASSERT_EQUAL(ls_resource_completed(r), 2);
  /* Freeing with a job in service withdraws its completion: the engine fires nothing. */
  ls_resource_free(r);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 0);
  CU_ASSERT_EQUAL(ls_engine_run(e), 0);
  ls_engine_free(e);
}

/* A done callback that submits the next job keeps the server busy back to back. */
typedef struct {
  ls_resource *r;
  int left;
} chain;

static void on_chain(ls_engine *e, void *ctx)
{
  (void)e;
  chain *c = ctx;
  if (c->left-- > 0)
    CU_ASSERT_EQUAL(ls_resource_submit(c->r, 4, on_chain, c, NULL), LS_OK);
}

static void test_resubmit_from_done(void)
{
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 1);
  chain c = {r, 9};
  CU_ASSERT_EQUAL(ls_resource_submit(r, 4, on_chain, &c, NULL), LS_OK);
  ls_engine_run(e);
  CU_ASSERT_EQUAL(ls_resource_completed(r), 10);
  CU_ASSERT_EQUAL(ls_engine_now(e), 40);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 40);
  ls_resource_free(r);
  ls_engine_free(e);
}

/* Jobs booked after their end count as the same jobs submitted would: c = 1, jobs of 7, 0 and
 * 12 ns run back to back from 0 in one resource, booked at 19 (after an event at 19) in
 * another; the busy times, completions and utilisations are equal, and a job submitted after
 * the booking is accounted on top. Out-of-range bookings are refused and change nothing. */
static void test_book_equals_submit(void)
{
  ls_engine *e;
  ls_resource *a, *b;
  ls_error err;
  setup(&e, &a, 1);
  CU_ASSERT_EQUAL_FATAL(ls_resource_create(&b, e, "npu2", 1, &err), LS_OK);
  const int64_t jobs[] = {7, 0, 12};
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(ls_resource_submit(a, jobs[i], NULL, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run(e), 3);
  CU_ASSERT_EQUAL(ls_engine_now(e), 19);
  CU_ASSERT_EQUAL(ls_resource_book(b, 7 + 0 + 12, 3, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(b), ls_resource_busy_ns(a));
  CU_ASSERT_EQUAL(ls_resource_busy_ns(b), 19);
  CU_ASSERT_EQUAL(ls_resource_completed(b), ls_resource_completed(a));
  CU_ASSERT_DOUBLE_EQUAL(ls_resource_utilisation(b), ls_resource_utilisation(a), 0);
  CU_ASSERT_EQUAL(ls_resource_in_service(b), 0);
  CU_ASSERT_EQUAL(ls_resource_book(b, -1, 1, &err), LS_ERANGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "npu2"));
  CU_ASSERT_EQUAL(ls_resource_book(b, INT64_MAX, 1, &err), LS_ERANGE); /* the total would overflow */
  CU_ASSERT_EQUAL(ls_resource_busy_ns(b), 19);
  CU_ASSERT_EQUAL(ls_resource_completed(b), 3);
  CU_ASSERT_EQUAL(ls_resource_submit(b, 5, NULL, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(b), 24);
  CU_ASSERT_EQUAL(ls_resource_completed(b), 4);
  ls_resource_free(a);
  ls_resource_free(b);
  ls_engine_free(e);
}

/* A gang against the same jobs submitted one by one, c = 3: three jobs of 10 ns, then one of
 * 7 ns that waits; the first completion hands its server to the 7 ns job and its callback
 * submits a 5 ns job, which waits until the second completion hands it that server. Both give
 * completions at 10, 10, 10, 15, 17 in that order, the same busy time and count; the gang
 * fires three engine events where the submissions fire five. */
typedef struct {
  ls_resource *r;
  int64_t at[8];
  int n;
} gang_log;

static void gang_done(ls_engine *e, void *ctx)
{
  gang_log *g = ctx;
  if (g->n < 8)
    g->at[g->n] = ls_engine_now(e);
  if (g->n++ == 0)
    CU_ASSERT_EQUAL(ls_resource_submit(g->r, 5, gang_done, g, NULL), LS_OK);
}

static uint64_t gang_run(int gang, gang_log *g, int64_t *busy, uint64_t *completed)
{
  ls_engine *e;
  setup(&e, &g->r, 3);
  g->n = 0;
  if (gang)
    CU_ASSERT_EQUAL(ls_resource_submit_n(g->r, 3, 10, gang_done, g, NULL), LS_OK);
  for (int i = 0; !gang && i < 3; i++)
    CU_ASSERT_EQUAL(ls_resource_submit(g->r, 10, gang_done, g, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_in_service(g->r), 3);
  CU_ASSERT_EQUAL(ls_resource_submit(g->r, 7, gang_done, g, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_queued(g->r), 1);
  uint64_t fired = ls_engine_run(e);
  *busy = ls_resource_busy_ns(g->r);
  *completed = ls_resource_completed(g->r);
  ls_resource_free(g->r);
  ls_engine_free(e);
  return fired;
}

static void test_gang_equals_submissions(void)
{
  gang_log a = {0}, b = {0};
  int64_t busy_a, busy_b;
  uint64_t done_a, done_b;
  CU_ASSERT_EQUAL(gang_run(1, &a, &busy_a, &done_a), 3);
  CU_ASSERT_EQUAL(gang_run(0, &b, &busy_b, &done_b), 5);
  const int64_t want[] = {10, 10, 10, 15, 17};
  CU_ASSERT_EQUAL_FATAL(a.n, 5);
  CU_ASSERT_EQUAL_FATAL(b.n, 5);
  for (int i = 0; i < 5; i++) {
    CU_ASSERT_EQUAL(a.at[i], want[i]);
    CU_ASSERT_EQUAL(b.at[i], want[i]);
  }
  CU_ASSERT_EQUAL(busy_a, 10 * 3 + 7 + 5);
  CU_ASSERT_EQUAL(busy_b, busy_a);
  CU_ASSERT_EQUAL(done_a, 5);
  CU_ASSERT_EQUAL(done_b, 5);
  /* not all idle: one by one (one starts, one waits); n = 0 submits nothing */
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 2);
  CU_ASSERT_EQUAL(ls_resource_submit(r, 4, NULL, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_submit_n(r, 0, 4, NULL, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_submit_n(r, 2, 6, NULL, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_resource_in_service(r), 2);
  CU_ASSERT_EQUAL(ls_resource_queued(r), 1);
  CU_ASSERT_EQUAL(ls_engine_run(e), 3);
  CU_ASSERT_EQUAL(ls_engine_now(e), 10);
  CU_ASSERT_EQUAL(ls_resource_busy_ns(r), 16);
  ls_resource_free(r);
  ls_engine_free(e);
}

CU_TestInfo ls_t_resource[] = {
    {"a gang of equal jobs completes as the jobs one by one", test_gang_equals_submissions},
    {"jobs booked after their end count as submitted ones", test_book_equals_submit},
    {"busy time and utilisation exact on a job pattern", test_busy_exact},
    {"FIFO order, c = 1", test_fifo},
    {"capacity c = 3", test_capacity},
    {"capacity c = 2, uneven jobs", test_capacity_uneven},
    {"errors; free withdraws jobs in service", test_errors_and_free},
    {"resubmission from a done callback", test_resubmit_from_done},
    CU_TEST_INFO_NULL,
};

/* ---- M/M/1 ----
 * Poisson arrivals (rate lambda = 0.8), exponential service (rate mu = 1), one FIFO server.
 * Closed forms: mean time in system W = 1 / (mu - lambda) = 5, utilisation rho = 0.8.
 * Time unit: 1 model unit = 10^6 ns, so rounding each draw to whole ns changes it by at most
 * 5e-7 of a unit (and round-to-nearest has no systematic bias). Draws come from two named
 * streams (arrivals, service), seed 1. W's batch-means standard error is printed beside it
 * (asymptotic relative s.e. for 10^6 customers at rho = 0.8 is about 0.9 %). */

#define MM1_N 1000000
#define MM1_UNIT 1e6

typedef struct mm1 mm1;
typedef struct {
  mm1 *m;
  int64_t arrived;
} customer;

struct mm1 {
  ls_resource *server;
  gsl_rng *arr, *svc;
  customer *c;
  long n_arrived;
  ls_stats sojourn;   /* in model units */
  ls_stats batch;     /* means of batches of 10^4 customers */
  double batch_sum;
  long batch_n;
  int errors;
};

static int64_t draw_ns(gsl_rng *g, double rate)
{
  return (int64_t)llround(gsl_ran_exponential(g, 1.0 / rate) * MM1_UNIT);
}

static void mm1_depart(ls_engine *e, void *ctx)
{
  customer *c = ctx;
  mm1 *m = c->m;
  double w = (double)(ls_engine_now(e) - c->arrived) / MM1_UNIT;
  ls_stats_add(&m->sojourn, w);
  m->batch_sum += w;
  if (++m->batch_n == 10000) {
    ls_stats_add(&m->batch, m->batch_sum / 10000.0);
    m->batch_sum = 0;
    m->batch_n = 0;
  }
}

static void mm1_arrive(ls_engine *e, void *ctx)
{
  mm1 *m = ctx;
  customer *c = &m->c[m->n_arrived++];
  c->m = m;
  c->arrived = ls_engine_now(e);
  if (ls_resource_submit(m->server, draw_ns(m->svc, 1.0), mm1_depart, c, NULL) != LS_OK)
    m->errors++;
  if (m->n_arrived < MM1_N &&
      ls_engine_schedule_in(e, draw_ns(m->arr, 0.8), mm1_arrive, m, NULL, NULL) != LS_OK)
    m->errors++;
}

static void test_mm1(void)
{
  ls_engine *e;
  ls_resource *r;
  setup(&e, &r, 1);
  ls_rng *ra = NULL, *rs = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_rng_create(&ra, 1, "mm1.arrivals", 0, NULL), LS_OK);
  CU_ASSERT_EQUAL_FATAL(ls_rng_create(&rs, 1, "mm1.service", 0, NULL), LS_OK);
  mm1 *m = calloc(1, sizeof *m);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m);
  m->c = malloc(MM1_N * sizeof *m->c);
  CU_ASSERT_PTR_NOT_NULL_FATAL(m->c);
  m->server = r;
  m->arr = ls_rng_gsl(ra);
  m->svc = ls_rng_gsl(rs);
  CU_ASSERT_EQUAL(ls_engine_schedule_in(e, draw_ns(m->arr, 0.8), mm1_arrive, m, NULL, NULL), LS_OK);
  ls_engine_run(e);
  double W = m->sojourn.mean, rho = ls_resource_utilisation(r);
  double se = ls_stats_sd(&m->batch) / sqrt((double)m->batch.n);
  printf("\n    M/M/1: %ld customers, W = %.4f (closed form 5, batch-means s.e. %.4f), "
         "utilisation = %.5f (0.8)\n", m->sojourn.n, W, se, rho);
  CU_ASSERT_EQUAL(m->errors, 0);
  CU_ASSERT_EQUAL(m->sojourn.n, MM1_N);
  CU_ASSERT_EQUAL(ls_resource_completed(r), MM1_N);
  CU_ASSERT(fabs(W - 5.0) <= 0.02 * 5.0);
  CU_ASSERT(fabs(rho - 0.8) <= 0.01 * 0.8);
  free(m->c);
  free(m);
  ls_rng_free(ra);
  ls_rng_free(rs);
  ls_resource_free(r);
  ls_engine_free(e);
}

CU_TestInfo ls_t_mm1[] = {
    {"M/M/1 (0.8, 1): W within 2 % of 5, utilisation within 1 % of 0.8", test_mm1},
    CU_TEST_INFO_NULL,
};
