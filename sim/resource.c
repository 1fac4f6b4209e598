/* sim/resource: see resource.h.
 *
 * Model: c identical servers and one FIFO queue (a G/G/c station). A job submitted while a
 * server is free starts at once; otherwise it joins the tail of the queue, and each
 * completion hands its server to the head of the queue at the completion instant. The done
 * callback runs after that hand-over, so it sees the next job already in service.
 *
 * Busy-time accounting, exact in integer nanoseconds:
 *   busy(now) = busy_done + sum over jobs in service of (now - start_j)
 *             = busy_done + in_service * now - sum_start
 * where busy_done sums the service times of completed jobs and sum_start the start times of
 * the jobs in service. Utilisation over [0, now] = busy(now) / (c * now). Jobs a caller
 * priced itself and books after their end (ls_resource_book) join busy_done as completions
 * would.
 *
 * Servers are a fixed array of c records (their addresses are the contexts of completion
 * events, so it never moves); the queue is a ring buffer whose capacity doubles. Nothing is
 * allocated per job once the ring is large enough.
 *
 * Gangs (ls_resource_submit_n): n equal jobs that all start at once (n servers idle, nothing
 * queued) would complete at one instant through n events scheduled one after another, with
 * nothing scheduled between them, so they fire back to back, each handing its server over
 * and then calling done, before any event scheduled by those callbacks at that instant. A
 * gang is those n jobs with one event whose callback does the same n steps in the same order
 * (the first member's server leads, the others follow through gang_next): the same times,
 * hand-overs, callbacks and order of later schedules, one event instead of n.
 *
 * Overflow guard: a job can start no later than now + (work in service) + (work queued), so
 * submit rejects a job when that bound plus its own service would pass INT64_MAX. */
#include "sim/resource.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

typedef struct ls_resource_server server;

struct ls_resource_server {
  ls_resource *r;
  ls_event_fn done;
  void *ctx;
  int64_t start, service;
  ls_event_id ev; /* completion event, for ls_resource_free (a gang's members share it) */
  int busy;
  int gang_next;  /* the next member of a gang completing with this one's event; -1 */
};

typedef struct {
  int64_t service;
  ls_event_fn done;
  void *ctx;
} job;

struct ls_resource {
  ls_engine *e;
  char *name;
  int cap;
  server *srv;
  int *idle;  /* stack of idle server indices */
  int n_idle; /* in_service = cap - n_idle */
  job *q;     /* ring buffer, qcap a power of two */
  size_t qhead, qlen, qcap;
  uint64_t completed;
  int64_t busy_done;
  uint64_t sum_start; /* unsigned: wraps harmlessly, busy_ns only needs the difference */
  int64_t work_in_service, work_queued; /* for the overflow guard */
};

int ls_resource_create(ls_resource **out, ls_engine *e, const char *name, int capacity, ls_error *err)
{
  *out = NULL;
  if (!name)
    name = "";
  if (capacity < 1)
    return ls_error_set(err, LS_EINVALID, "resource %s: capacity %d (must be >= 1)", name, capacity);
  ls_resource *r = calloc(1, sizeof *r);
  size_t nlen = strlen(name) + 1;
  if (r) {
    r->name = malloc(nlen);
    r->srv = calloc((size_t)capacity, sizeof *r->srv);
    r->idle = malloc((size_t)capacity * sizeof *r->idle);
    r->qcap = 16;
    r->q = malloc(r->qcap * sizeof *r->q);
  }
  if (!r || !r->name || !r->srv || !r->idle || !r->q) {
    ls_resource_free(r);
    return ls_error_set(err, LS_ENOMEM, "resource %s: out of memory", name);
  }
  memcpy(r->name, name, nlen);
  r->e = e;
  r->cap = capacity;
  for (int i = 0; i < capacity; i++) {
    r->srv[i].r = r;
    r->srv[i].gang_next = -1;
    r->idle[i] = capacity - 1 - i; /* server 0 is used first */
  }
  r->n_idle = capacity;
  *out = r;
  return LS_OK;
}

void ls_resource_free(ls_resource *r)
{
  if (!r)
    return;
  /* Completion events point into srv[]: withdraw them so the engine never calls into freed memory. */
  if (r->srv)
    for (int i = 0; i < r->cap; i++)
      if (r->srv[i].busy)
        ls_engine_cancel(r->e, r->srv[i].ev);
  free(r->name);
  free(r->srv);
  free(r->idle);
  free(r->q);
  free(r);
}

static void on_complete(ls_engine *e, void *ctx);

/* Starts a job on an idle server (n_idle > 0, overflow excluded by the submit guard). */
static int start(ls_resource *r, int64_t service, ls_event_fn done, void *ctx, ls_error *err)
{
  int i = r->idle[r->n_idle - 1];
  server *s = &r->srv[i];
  int64_t now = ls_engine_now(r->e);
  int rc = ls_engine_schedule(r->e, now + service, on_complete, s, &s->ev, err);
  if (rc)
    return rc;
  r->n_idle--;
  s->done = done;
  s->ctx = ctx;
  s->start = now;
  s->service = service;
  s->busy = 1;
  r->sum_start += (uint64_t)now;
  r->work_in_service += service;
  return LS_OK;
}

/* Server s's job is done: its accounting, the hand-over to the head of the queue, then done. */
static void complete(ls_engine *e, server *s)
{
  ls_resource *r = s->r;
  ls_event_fn done = s->done;
  void *dctx = s->ctx;
  s->gang_next = -1;
  r->busy_done += s->service;
  r->sum_start -= (uint64_t)s->start;
  r->work_in_service -= s->service;
  r->completed++;
  s->busy = 0;
  r->idle[r->n_idle++] = (int)(s - r->srv);
  /* The submit guard bounded the time, so only memory can fail the start: a lone completion
   * has just freed the engine's heap node and slot, but a gang's later members may need more
   * than the one its event freed. A job that cannot start then stays at the head of the queue
   * for the next completion (nothing else can be done in a callback). */
  if (r->qlen > 0 && start(r, r->q[r->qhead].service, r->q[r->qhead].done, r->q[r->qhead].ctx, NULL) == LS_OK) {
    r->work_queued -= r->q[r->qhead].service;
    r->qhead = (r->qhead + 1) & (r->qcap - 1);
    r->qlen--;
  }
  if (done)
    done(e, dctx);
}

/* A completion event: its server's job, then each follower of its gang in job order (see the
 * top, "Gangs"). */
static void on_complete(ls_engine *e, void *ctx)
{
  server *s = ctx;
  ls_resource *r = s->r;
  for (int next; s; s = next >= 0 ? &r->srv[next] : NULL) {
    next = s->gang_next;
    complete(e, s);
  }
}

/* Starts n jobs as one gang (n servers idle, nothing queued, overflow excluded by the caller). */
static int start_gang(ls_resource *r, int n, int64_t service, ls_event_fn done, void *ctx, ls_error *err)
{
  server *lead = &r->srv[r->idle[r->n_idle - 1]];
  int64_t now = ls_engine_now(r->e);
  ls_event_id ev;
  int rc = ls_engine_schedule(r->e, now + service, on_complete, lead, &ev, err);
  if (rc)
    return rc;
  for (int j = 0; j < n; j++) { /* job j takes the server the j-th of n submissions would */
    server *s = &r->srv[r->idle[--r->n_idle]];
    *s = (server){r, done, ctx, now, service, ev, 1, j + 1 < n ? r->idle[r->n_idle - 1] : -1};
  }
  r->sum_start += (uint64_t)n * (uint64_t)now;
  r->work_in_service += (int64_t)n * service;
  return LS_OK;
}

static int enqueue(ls_resource *r, int64_t service, ls_event_fn done, void *ctx, ls_error *err)
{
  if (r->qlen == r->qcap) {
    size_t cap = 2 * r->qcap;
    job *q = malloc(cap * sizeof *q);
    if (!q)
      return ls_error_set(err, LS_ENOMEM, "resource %s: out of memory (queue of %zu)", r->name, cap);
    for (size_t k = 0; k < r->qlen; k++) /* unroll the ring into the new array */
      q[k] = r->q[(r->qhead + k) & (r->qcap - 1)];
    free(r->q);
    r->q = q;
    r->qhead = 0;
    r->qcap = cap;
  }
  r->q[(r->qhead + r->qlen) & (r->qcap - 1)] = (job){service, done, ctx};
  r->qlen++;
  r->work_queued += service;
  return LS_OK;
}

int ls_resource_submit(ls_resource *r, int64_t service_ns, ls_event_fn done, void *ctx, ls_error *err)
{
  int64_t now = ls_engine_now(r->e);
  if (service_ns < 0)
    return ls_error_set(err, LS_ERANGE, "resource %s: negative service time %" PRId64 " ns",
                        r->name, service_ns);
  int64_t ahead = r->work_in_service + r->work_queued; /* both >= 0 and bounded below */
  if (ahead > INT64_MAX - now || service_ns > INT64_MAX - now - ahead)
    return ls_error_set(err, LS_ERANGE,
                        "resource %s: service time %" PRId64 " ns would overflow simulated time",
                        r->name, service_ns);
  if (r->n_idle > 0)
    return start(r, service_ns, done, ctx, err);
  return enqueue(r, service_ns, done, ctx, err);
}

int ls_resource_book(ls_resource *r, int64_t busy_ns, uint64_t jobs, ls_error *err)
{
  if (busy_ns < 0 || busy_ns > INT64_MAX - r->busy_done)
    return ls_error_set(err, LS_ERANGE, "resource %s: booked busy time %" PRId64 " ns out of range", r->name, busy_ns);
  r->busy_done += busy_ns;
  r->completed += jobs;
  return LS_OK;
}

int ls_resource_submit_n(ls_resource *r, int n, int64_t service_ns, ls_event_fn done, void *ctx, ls_error *err)
{
  if (n > 1 && n <= r->n_idle && r->qlen == 0 && service_ns >= 0 && service_ns <= (INT64_MAX - ls_engine_now(r->e) - r->work_in_service) / n)
    return start_gang(r, n, service_ns, done, ctx, err);
  int rc = LS_OK;
  for (int j = 0; j < n && !rc; j++)
    rc = ls_resource_submit(r, service_ns, done, ctx, err);
  return rc;
}

int ls_resource_capacity(const ls_resource *r) { return r->cap; }
int ls_resource_in_service(const ls_resource *r) { return r->cap - r->n_idle; }
int ls_resource_queued(const ls_resource *r) { return (int)r->qlen; }
uint64_t ls_resource_completed(const ls_resource *r) { return r->completed; }
const char *ls_resource_name(const ls_resource *r) { return r->name; }

int64_t ls_resource_busy_ns(const ls_resource *r)
{
  int64_t now = ls_engine_now(r->e);
  /* Modular arithmetic: the true in-progress sum fits in int64 even if its terms do not. */
  uint64_t running = (uint64_t)(r->cap - r->n_idle) * (uint64_t)now - r->sum_start;
  return r->busy_done + (int64_t)running;
}

double ls_resource_utilisation(const ls_resource *r)
{
  int64_t now = ls_engine_now(r->e);
  if (now <= 0)
    return 0.0;
  return (double)ls_resource_busy_ns(r) / ((double)r->cap * (double)now);
}
