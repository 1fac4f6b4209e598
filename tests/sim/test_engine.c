/* tests/sim/test_engine: the event engine (ordering, same-time rule, cancel, past schedule,
 * run_until, a 10^6-event stress with heap checks) and the 'bench engine' command. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "sim/engine.h"
#include "sim/rng.h"
#include "sim_suites.h"

/* A log of fired events: each event's context is a rec; firing appends its tag and time. */
#define LOG_MAX 64
typedef struct {
  int tag[LOG_MAX];
  int64_t at[LOG_MAX];
  int n;
} fire_log;

typedef struct rec {
  fire_log *log;
  int tag;
  /* optional follow-up scheduled from the callback */
  struct rec *then;
  int64_t then_delay;
} rec;

static void on_fire(ls_engine *e, void *ctx)
{
  rec *r = ctx;
  if (r->log->n < LOG_MAX) {
    r->log->tag[r->log->n] = r->tag;
    r->log->at[r->log->n] = ls_engine_now(e);
    r->log->n++;
  }
  if (r->then)
    CU_ASSERT_EQUAL(ls_engine_schedule_in(e, r->then_delay, on_fire, r->then, NULL, NULL), LS_OK);
}

static ls_engine *new_engine(void)
{
  ls_engine *e = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_engine_create(&e, &err), LS_OK);
  return e;
}

static void test_ordering(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  static const int64_t T[] = {50, 10, 40, 20, 30, 0, 60};
  rec r[7];
  for (int i = 0; i < 7; i++) {
    r[i] = (rec){&log, i, NULL, 0};
    CU_ASSERT_EQUAL(ls_engine_schedule(e, T[i], on_fire, &r[i], NULL, NULL), LS_OK);
  }
  CU_ASSERT_EQUAL(ls_engine_pending(e), 7);
  CU_ASSERT_EQUAL(ls_engine_run(e), 7);
  CU_ASSERT_EQUAL(log.n, 7);
  static const int want[] = {5, 1, 3, 4, 2, 0, 6};
  for (int i = 0; i < 7; i++) {
    CU_ASSERT_EQUAL(log.tag[i], want[i]);
    CU_ASSERT_EQUAL(log.at[i], T[want[i]]);
  }
  CU_ASSERT_EQUAL(ls_engine_now(e), 60);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 0);
  ls_engine_free(e);
}

/* SAME-TIME RULE (engine.h): equal times fire in scheduling order, and an event scheduled
 * for now from a callback fires after all already-pending events of that time. */
static void test_same_time_fifo(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  rec d = {&log, 4, NULL, 0}, f = {&log, 6, NULL, 0};
  rec a = {&log, 1, &d, 0};           /* A at 10 schedules D at now (10) */
  rec b = {&log, 2, NULL, 0}, c = {&log, 3, NULL, 0};
  rec early = {&log, 0, &f, 5};       /* at 5, schedules F for 10 (after A, B, C) */
  rec g = {&log, 5, NULL, 0};         /* at 10, scheduled before run but after early */
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 10, on_fire, &a, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 10, on_fire, &b, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 5, on_fire, &early, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 10, on_fire, &c, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule_in(e, 10, on_fire, &g, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run(e), 7);
  /* early(5); then at 10: A, B, C, G (scheduled up front, in order), F (scheduled at t=5),
   * D (scheduled at t=10 from A's callback). */
  static const int want[] = {0, 1, 2, 3, 5, 6, 4};
  CU_ASSERT_EQUAL(log.n, 7);
  for (int i = 0; i < 7 && i < log.n; i++)
    CU_ASSERT_EQUAL(log.tag[i], want[i]);
  CU_ASSERT_EQUAL(log.at[0], 5);
  for (int i = 1; i < log.n; i++)
    CU_ASSERT_EQUAL(log.at[i], 10);
  ls_engine_free(e);
}

typedef struct {
  ls_event_id victim;
  int result;
} canceller;

static void on_cancel(ls_engine *e, void *ctx)
{
  canceller *c = ctx;
  c->result = ls_engine_cancel(e, c->victim);
}

static void test_cancel(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  rec r[4] = {{&log, 0, NULL, 0}, {&log, 1, NULL, 0}, {&log, 2, NULL, 0}, {&log, 3, NULL, 0}};
  ls_event_id id[4];
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(ls_engine_schedule(e, 10 * (i + 1), on_fire, &r[i], &id[i], NULL), LS_OK);
  for (int i = 0; i < 4; i++)
    CU_ASSERT_NOT_EQUAL(id[i], 0);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, id[1]), 1); /* pending */
  CU_ASSERT_EQUAL(ls_engine_pending(e), 3);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, id[1]), 0); /* double cancel */
  CU_ASSERT_EQUAL(ls_engine_pending(e), 3);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, 0), 0);     /* never an id */
  CU_ASSERT_EQUAL(ls_engine_cancel(e, ((uint64_t)7 << 32) | 99999u), 0); /* unknown */
  CU_ASSERT(ls_engine_check_heap(e));
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 10), 1);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, id[0]), 0); /* already fired */
  CU_ASSERT_EQUAL(ls_engine_pending(e), 2);
  /* A callback cancels a later event of the same time. */
  canceller c = {0, -1};
  rec late = {&log, 9, NULL, 0};
  ls_event_id late_id;
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 30, on_cancel, &c, NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 30, on_fire, &late, &late_id, NULL), LS_OK);
  c.victim = late_id;
  CU_ASSERT_EQUAL(ls_engine_run(e), 3); /* r[2], canceller, r[3] */
  CU_ASSERT_EQUAL(c.result, 1);
  CU_ASSERT_EQUAL(log.n, 3);
  static const int want[] = {0, 2, 3};
  for (int i = 0; i < 3 && i < log.n; i++)
    CU_ASSERT_EQUAL(log.tag[i], want[i]);
  /* A stale id must not cancel the event that now reuses its slot. */
  rec fresh = {&log, 7, NULL, 0};
  ls_event_id fresh_id;
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 50, on_fire, &fresh, &fresh_id, NULL), LS_OK);
  for (int i = 0; i < 4; i++)
    CU_ASSERT_EQUAL(ls_engine_cancel(e, id[i]), 0);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, late_id), 0);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 1);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  CU_ASSERT_EQUAL(log.tag[log.n - 1], 7);
  ls_engine_free(e);
}

static void test_cancel_self(void)
{
  /* An event cancelling its own id from its callback: it has already fired, so 0. */
  ls_engine *e = new_engine();
  canceller c = {0, -1};
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 3, on_cancel, &c, &c.victim, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  CU_ASSERT_EQUAL(c.result, 0);
  ls_engine_free(e);
}

static void test_past_schedule(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  rec r = {&log, 0, NULL, 0};
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 100, on_fire, &r, NULL, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  CU_ASSERT_EQUAL(ls_engine_now(e), 100);
  ls_event_id id = 42;
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 99, on_fire, &r, &id, &err), LS_ESTATE);
  CU_ASSERT_EQUAL(err.code, LS_ESTATE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "t=99 ns"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "now=100 ns"));
  CU_ASSERT_EQUAL(id, 0);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 0); /* nothing was scheduled */
  CU_ASSERT_EQUAL(ls_engine_schedule_in(e, -1, on_fire, &r, NULL, &err), LS_ESTATE);
  CU_ASSERT_EQUAL(ls_engine_schedule_in(e, INT64_MAX, on_fire, &r, NULL, &err), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 100, NULL, &r, NULL, &err), LS_EINVALID);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 100, on_fire, &r, NULL, NULL), LS_OK); /* at now: fine */
  CU_ASSERT_EQUAL(ls_engine_pending(e), 1);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  ls_engine_free(e);
}

static void test_run_until(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  rec follow = {&log, 9, NULL, 0};
  rec r[3] = {{&log, 0, NULL, 0}, {&log, 1, &follow, 3}, {&log, 2, NULL, 0}};
  for (int i = 0; i < 3; i++)
    CU_ASSERT_EQUAL(ls_engine_schedule(e, 10 * (i + 1), on_fire, &r[i], NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 9), 0);
  CU_ASSERT_EQUAL(ls_engine_now(e), 0);      /* nothing fired: now stays */
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 20), 2); /* an event exactly at `until` fires */
  CU_ASSERT_EQUAL(ls_engine_now(e), 20);
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 25), 1); /* the follow-up scheduled at 23 from t=20 */
  CU_ASSERT_EQUAL(ls_engine_now(e), 23);     /* the last fired time, not `until` */
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 5), 0); /* an earlier horizon never moves now back */
  CU_ASSERT_EQUAL(ls_engine_now(e), 23);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 1);
  CU_ASSERT_EQUAL(ls_engine_run(e), 1);
  CU_ASSERT_EQUAL(ls_engine_now(e), 30);
  CU_ASSERT_EQUAL(ls_engine_run(e), 0);
  CU_ASSERT_EQUAL(log.n, 4);
  /* A cancelled head does not stop run_until from reaching live events behind it. */
  ls_event_id dead;
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 40, on_fire, &r[0], &dead, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_schedule(e, 41, on_fire, &r[2], NULL, NULL), LS_OK);
  CU_ASSERT_EQUAL(ls_engine_cancel(e, dead), 1);
  CU_ASSERT_EQUAL(ls_engine_run_until(e, 41), 1);
  CU_ASSERT_EQUAL(ls_engine_now(e), 41);
  ls_engine_free(e);
}

/* ---- stress: 10^6 firings with random schedules (many ties) and cancels ---- */

#define STRESS_EVENTS 1000000
#define STRESS_IDS 4096

typedef struct {
  gsl_rng *g;
  struct {
    ls_event_id id;
    void *ev; /* freed by the test when its cancel succeeds (a cancelled event never fires) */
  } ids[STRESS_IDS]; /* a pool of ids, some stale, to cancel at random */
  uint64_t fired, cancelled, order_errors, heap_errors, sched_errors;
  int64_t last_time;
  uint64_t last_stamp; /* tie order: stamps grow in scheduling order */
  uint64_t next_stamp;
} stress;

typedef struct {
  stress *s;
  uint64_t stamp;
} stress_ev;

static void stress_fire(ls_engine *e, void *ctx);

static void stress_schedule(ls_engine *e, stress *s)
{
  /* coarse delays (multiples of 8 ns, often 0) make equal times frequent */
  int64_t delay = 8 * (int64_t)gsl_rng_uniform_int(s->g, 64) * (gsl_rng_uniform(s->g) < 0.8);
  stress_ev *ev = malloc(sizeof *ev);
  if (!ev) {
    s->sched_errors++;
    return;
  }
  ev->s = s;
  ev->stamp = s->next_stamp++;
  ls_event_id id;
  if (ls_engine_schedule_in(e, delay, stress_fire, ev, &id, NULL) != LS_OK) {
    s->sched_errors++;
    free(ev);
    return;
  }
  unsigned long k = gsl_rng_uniform_int(s->g, STRESS_IDS);
  s->ids[k].id = id;
  s->ids[k].ev = ev;
}

static void stress_fire(ls_engine *e, void *ctx)
{
  stress_ev *ev = ctx;
  stress *s = ev->s;
  int64_t now = ls_engine_now(e);
  if (now < s->last_time || (now == s->last_time && ev->stamp < s->last_stamp))
    s->order_errors++;
  s->last_time = now;
  s->last_stamp = ev->stamp;
  free(ev);
  s->fired++;
  if (s->fired % 10000 == 0 && !ls_engine_check_heap(e))
    s->heap_errors++;
  if (s->fired + ls_engine_pending(e) >= STRESS_EVENTS)
    return; /* let the rest drain */
  /* Keep about 5000 pending: schedule 0..2 successors, cancel now and then. */
  int k = ls_engine_pending(e) < 5000 ? 2 : (int)gsl_rng_uniform_int(s->g, 2);
  for (int i = 0; i < k; i++)
    stress_schedule(e, s);
  if (gsl_rng_uniform(s->g) < 0.2) {
    unsigned long k = gsl_rng_uniform_int(s->g, STRESS_IDS);
    if (ls_engine_cancel(e, s->ids[k].id)) {
      free(s->ids[k].ev);
      s->cancelled++;
    }
  }
}

static void test_stress(void)
{
  ls_engine *e = new_engine();
  ls_rng *rng = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_rng_create(&rng, 7, "test.engine.stress", 0, NULL), LS_OK);
  stress *s = calloc(1, sizeof *s);
  CU_ASSERT_PTR_NOT_NULL_FATAL(s);
  s->g = ls_rng_gsl(rng);
  for (int i = 0; i < 1000; i++)
    stress_schedule(e, s);
  CU_ASSERT(ls_engine_check_heap(e));
  uint64_t fired = ls_engine_run(e);
  CU_ASSERT_EQUAL(fired, s->fired);
  CU_ASSERT(s->fired + s->cancelled >= STRESS_EVENTS);
  CU_ASSERT(s->cancelled > 1000); /* the cancel path was exercised */
  CU_ASSERT_EQUAL(s->order_errors, 0);
  CU_ASSERT_EQUAL(s->heap_errors, 0);
  CU_ASSERT_EQUAL(s->sched_errors, 0);
  CU_ASSERT_EQUAL(ls_engine_pending(e), 0);
  CU_ASSERT(ls_engine_check_heap(e));
  free(s);
  ls_rng_free(rng);
  ls_engine_free(e);
}

/* A clock that ticks every 10 ns forever; sets *stop_at_tick's flag at tick 25. */
typedef struct {
  volatile sig_atomic_t flag;
  int ticks;
} ticker;

static void tick(ls_engine *e, void *ctx)
{
  ticker *t = ctx;
  if (++t->ticks == 25)
    t->flag = SIGINT;
  ls_engine_schedule_in(e, 10, tick, t, NULL, NULL);
}

/* Regression (a model with huge layers made one run last minutes and Ctrl-C could not reach
 * it): a run stops between events at an event budget or when the caller's flag is set. */
static void test_bounds(void)
{
  ls_engine *e = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_engine_create(&e, NULL), LS_OK);
  ticker t = {0, 0};
  const volatile sig_atomic_t never = 0;
  ls_engine_schedule(e, 0, tick, &t, NULL, NULL);
  ls_engine_set_bounds(e, &never, 10);
  CU_ASSERT_EQUAL(ls_engine_run(e), 10);
  CU_ASSERT_EQUAL(ls_engine_halted(e), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_engine_now(e), 90); /* ticks at 0, 10, ..., 90 */
  CU_ASSERT_EQUAL(ls_engine_pending(e), 1);
  ls_engine_set_bounds(e, &t.flag, 1000); /* the flag stops it at tick 25, long before 1000 */
  CU_ASSERT_EQUAL(ls_engine_run(e), 15);
  CU_ASSERT_EQUAL(ls_engine_halted(e), LS_EINTR);
  CU_ASSERT_EQUAL(t.ticks, 25);
  ls_engine_set_bounds(e, NULL, 5); /* a run that ends by itself is not halted */
  CU_ASSERT_EQUAL(ls_engine_run_until(e, ls_engine_now(e) + 20), 2);
  CU_ASSERT_EQUAL(ls_engine_halted(e), LS_OK);
  CU_ASSERT(ls_engine_check_heap(e));
  ls_engine_free(e);
}

/* The 32-bit schedule counter is renumbered before it runs out: equal-time events scheduled
 * on both sides of the renumbering still fire in scheduling order. */
static void test_seq_renumber(void)
{
  ls_engine *e = new_engine();
  fire_log log = {0};
  rec r[12];
  for (int i = 0; i < 12; i++)
    r[i] = (rec){&log, i, NULL, 0};
  for (int i = 0; i < 4; i++) /* 0..3 at t=20 and t=10 alternately */
    CU_ASSERT_EQUAL(ls_engine_schedule(e, i % 2 ? 10 : 20, on_fire, &r[i], NULL, NULL), LS_OK);
  ls_engine_test_set_seq(e, UINT32_MAX - 4u); /* 2 more schedules, then a renumbering */
  for (int i = 4; i < 12; i++)
    CU_ASSERT_EQUAL(ls_engine_schedule(e, i % 2 ? 10 : 20, on_fire, &r[i], NULL, NULL), LS_OK);
  CU_ASSERT(ls_engine_check_heap(e));
  CU_ASSERT_EQUAL(ls_engine_run(e), 12);
  static const int want[] = {1, 3, 5, 7, 9, 11, 0, 2, 4, 6, 8, 10};
  CU_ASSERT_EQUAL(log.n, 12);
  for (int i = 0; i < 12 && i < log.n; i++)
    CU_ASSERT_EQUAL(log.tag[i], want[i]);
  ls_engine_free(e);
}

/* While a callback runs, its node is the root hole: the heap still checks, a nested run fires
 * nothing, and a callback that schedules nothing leaves a consistent heap. */
typedef struct {
  int check_ok, nested;
  int schedule;
} hole_probe;

static void on_probe(ls_engine *e, void *ctx)
{
  hole_probe *p = ctx;
  p->check_ok += ls_engine_check_heap(e);
  p->nested += (int)ls_engine_run_until(e, INT64_MAX);
  if (p->schedule) {
    p->schedule--;
    CU_ASSERT_EQUAL(ls_engine_schedule_in(e, 3, on_probe, p, NULL, NULL), LS_OK);
    CU_ASSERT_EQUAL(ls_engine_schedule_in(e, 1, on_probe, p, NULL, NULL), LS_OK);
    p->check_ok += ls_engine_check_heap(e);
  }
}

static void test_hole(void)
{
  ls_engine *e = new_engine();
  hole_probe p = {0, 0, 3};
  for (int i = 0; i < 9; i++)
    CU_ASSERT_EQUAL(ls_engine_schedule(e, 100 + i, on_probe, &p, NULL, NULL), LS_OK);
  /* 9 events, 3 of them schedule 2 more each: 15 fire; 15 checks + 3 after scheduling. */
  CU_ASSERT_EQUAL(ls_engine_run(e), 15);
  CU_ASSERT_EQUAL(p.check_ok, 18);
  CU_ASSERT_EQUAL(p.nested, 0);
  CU_ASSERT(ls_engine_check_heap(e));
  CU_ASSERT_EQUAL(ls_engine_pending(e), 0);
  ls_engine_free(e);
}

CU_TestInfo ls_t_engine[] = {
    {"schedule counter renumbering keeps the same-time rule", test_seq_renumber},
    {"firing event's root hole: checks, no nesting", test_hole},
    {"ordering by time", test_ordering},
    {"same-time rule: FIFO ties, incl. scheduling at now", test_same_time_fifo},
    {"cancel: pending, fired, double, stale, from a callback", test_cancel},
    {"cancel of the firing event itself", test_cancel_self},
    {"scheduling in the past is LS_ESTATE", test_past_schedule},
    {"run_until semantics", test_run_until},
    {"10^6-event stress with heap checks", test_stress},
    {"event budget and stop flag end a run between events", test_bounds},
    CU_TEST_INFO_NULL,
};

/* ---- 'leversim bench engine' ---- */

static void test_bench_cli(void)
{
  char out[2048];
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --pending 100 --events 200000", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "hold model: 100 pending, 200000 events"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "million events/s"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "ns/event"));
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --pending 0", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --bogus", out, sizeof out), 64);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--bogus"));
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --events", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --help", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "--pending"));
}

static void test_bench_cycle_cli(void)
{
  char out[4096];
  CU_ASSERT_EQUAL(ls_test_cli("bench cycle --systems ar-flash,lever --prompts 1 --tokens 8 --repeats 3", out,
                              sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "oneplus-12 / llama-3.1-8b / gsm8k, 3 repeats"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "median_us"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nar-flash "));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "\nlever "));
  /* as 'leversim run': an unknown system is a wrong name, exit 64 */
  CU_ASSERT_EQUAL(ls_test_cli("bench cycle --systems nosuch --prompts 1 --tokens 2 --repeats 1", out, sizeof out),
                  64);
  CU_ASSERT_EQUAL(ls_test_cli("bench cycle --repeats 0", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("bench cycle --set device.flash.sim=bogus --repeats 1", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("bench engine --draw nope", out, sizeof out), 64);
}

CU_TestInfo ls_t_bench[] = {
    {"bench engine prints events/s; bad options exit 64", test_bench_cli},
    {"bench cycle prints per-cycle times; bad systems/settings fail", test_bench_cycle_cli},
    CU_TEST_INFO_NULL,
};
