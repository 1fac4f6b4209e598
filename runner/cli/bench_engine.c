/* runner/bench_engine: 'leversim bench engine [--pending N] [--events N] [--seed N]'.
 *
 * The classic hold model (src:jones-hold) for pending-event sets: N events are scheduled first,
 * then each firing event schedules one successor at now + X, X exponential with a mean of
 * 1 us. The set therefore holds N live events throughout. The figure printed is fired events
 * per wall-clock second (and ns per event), measured with CLOCK_MONOTONIC over the run phase
 * only; it includes the exponential draw, as a real model would. Two draws of the same
 * distribution: --draw counter (default) inverts a counter-based uniform (X = -mean ln U, U
 * from sim/rng's ls_uniform_open), as the flash model's draws do; --draw gsl is the earlier
 * gsl_ran_exponential on the named stream ("bench.hold", 0), kept to compare engines alone.
 * Measurements, not tests: the numbers vary with the machine. */
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"
#include "sim/engine.h"
#include "sim/rng.h"

#define HOLD_MEAN_NS 1000.0

typedef struct {
  gsl_rng *g;     /* borrowed; NULL: counter-based draws */
  uint64_t key;   /* counter-based draws: key of the next draw */
  uint64_t left;  /* successors still to schedule */
  double t_end;   /* wall clock when the last successor was scheduled */
  int failed;
} hold_ctx;

static double seconds(void);

static int64_t draw(hold_ctx *h)
{
  if (h->g)
    return (int64_t)llround(gsl_ran_exponential(h->g, HOLD_MEAN_NS));
  double x = -HOLD_MEAN_NS * log(ls_uniform_open(h->key++));
  return (int64_t)(x + 0.5); /* x >= 0: the same as llround, without the libm call */
}

static void hold_fire(ls_engine *e, void *p)
{
  hold_ctx *h = p;
  if (h->left == 0)
    return; /* draining the last N events, outside the timed phase */
  if (ls_engine_schedule_in(e, draw(h), hold_fire, h, NULL, NULL) != LS_OK)
    h->failed = 1;
  if (--h->left == 0)
    h->t_end = seconds();
}

static double seconds(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

typedef struct engine_opts {
  long pending, events, seed;
  const char *draw;
} engine_opts;

static const ls_opt ENGINE_OPTS[] = {
    {"--pending", LS_OPT_LONG, OPT_AT(engine_opts, pending), "N", "events kept pending (default 1000)", .lo = 1, .hi = 100000000L},
    {"--events", LS_OPT_LONG, OPT_AT(engine_opts, events), "N", "events fired in the timed phase (default 20000000)", .lo = 1, .hi = 4000000000000L},
    {"--seed", LS_OPT_LONG, OPT_AT(engine_opts, seed), "N", "master seed of the delay stream (default 1)", .lo = 0, .hi = INT64_MAX},
    {"--draw", LS_OPT_CHOICE, OPT_AT(engine_opts, draw), "D", "counter: inverse transform of a counter-based uniform (default); gsl: gsl_ran_exponential on a Mersenne Twister stream", .choices = "counter,gsl"},
    {NULL}};

static const ls_cmd_spec ENGINE = {
    "bench engine", NULL, 0, 0, 0, "events per second of the event engine (hold model)",
    "Hold model: N pending events; each firing schedules one successor after an exponential\n"
    "delay (mean 1 us). Prints events per second and ns per event. A measurement, not a test.\n",
    NULL, ENGINE_OPTS};

static int hold(const engine_opts *o);

int ls_bench_engine(int argc, char **argv)
{
  engine_opts o = {1000, 20000000, 1, "counter"};
  int rc = ls_opts_parse(&ENGINE, argc, argv, &o, NULL);
  return rc ? ls_opts_exit(rc) : hold(&o);
}

/* The timed hold model of o; returns the exit status. */
static int hold(const engine_opts *o)
{
  long pending = o->pending, events = o->events, seed = o->seed;
  int use_gsl = strcmp(o->draw, "gsl") == 0;
  ls_error err;
  ls_error_clear(&err);
  ls_engine *e = NULL;
  ls_rng *rng = NULL;
  int rc = ls_engine_create(&e, &err);
  if (rc == LS_OK)
    rc = ls_rng_create(&rng, (uint64_t)seed, "bench.hold", 0, &err);
  hold_ctx h = {use_gsl && rng ? ls_rng_gsl(rng) : NULL, LS_KEY((uint64_t)seed, 0x686f6c64u), 0, 0.0, 0};
  for (long k = 0; rc == LS_OK && k < pending; k++)
    rc = ls_engine_schedule(e, draw(&h), hold_fire, &h, NULL, &err);
  if (rc != LS_OK) {
    ls_error_print(&err, stderr);
    ls_rng_free(rng);
    ls_engine_free(e);
    return ls_status_exit(rc);
  }
  /* Timed phase: the first `events` firings, each rescheduling, so N stay pending; the
   * clock stops at the last of them and the remaining N drain untimed. */
  h.left = (uint64_t)events;
  double t0 = seconds();
  uint64_t total = ls_engine_run(e);
  double wall = h.t_end - t0;
  uint64_t fired = (uint64_t)events;
  if (total != (uint64_t)events + (uint64_t)pending)
    h.failed = 1;
  ls_engine_free(e);
  ls_rng_free(rng);
  if (h.failed) {
    fprintf(stderr, "leversim bench engine: scheduling failed\n");
    return ls_status_exit(LS_ESTATE);
  }
  printf("hold model: %ld pending, %llu events in %.3f s (%s draws)\n", pending, (unsigned long long)fired, wall,
         use_gsl ? "gsl" : "counter");
  printf("%.2f million events/s, %.1f ns/event\n", (double)fired / wall / 1e6,
         wall * 1e9 / (double)fired);
  return 0;
}
