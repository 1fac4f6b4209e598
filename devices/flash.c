/* devices/flash: see flash.h.
 *
 * Model (per request i of a read, chunk c_i bytes, effective rate B = link x efficiency):
 *   issue_i  = when fewer than QD requests are outstanding on the device (FIFO over reads)
 *   arrive_i = issue_i + L_i,            L_i ~ latency distribution (parallel across slots)
 *   done_i   = max(arrive_i, link free) + c_i / B   (the link is one FIFO server)
 * A request stops being outstanding at done_i. The read completes at the last done_i.
 * Emergent behaviour: large chunks at QD >= 2 keep the link busy, so sequential throughput
 * -> B; small requests are latency-bound, IOPS ~= QD / (E[L] + c/B) (the IOPS limit);
 * QD 1 pays E[L] per request.
 * Pure query (expected time on an idle device, n = ceil(bytes / chunk), t_x = chunk / B):
 * the read is a closed network of QD circulating requests: a delay station (mean E[L]) and
 * the link (deterministic t_x). Its throughput X comes from mean value analysis with the
 * deterministic-service residual correction (Reiser): for k = 1..QD customers
 *   R_k = t_x (1 + Q_{k-1} - U_{k-1}) + U_{k-1} t_x / 2,  X_k = k / (E[L] + R_k),
 *   Q_k = X_k R_k,  U_k = min(1, X_k t_x);   interval = max(t_x, 1 / X_QD)
 *   T = E[L] + bytes / B + (n - 1) (interval - t_x)
 * Exact in expectation at QD 1 (interval = E[L] + t_x) and in the link-bound limit
 * (interval = t_x, the profile's 512 KiB x QD 32 layer reads: within 1 %). Where the two
 * regimes meet (t_x ~ (E[L] + t_x) / QD) the events are slower than the formula: requests
 * issued together stay bunched and the last in-flight latencies are not hidden. Measured on
 * oneplus-12 over chunk 4 KiB..1 MiB x QD 1..32: within 4 % except 4 KiB at QD 16 (+7 %) and
 * QD 32 (+23 %), a small-random-read regime that weight streaming does not use.
 * Simplifications: NAND parallelism is assumed to cover the queue depth; the software path
 * (direct I/O vs page cache) is a rate efficiency on the transfer, not a per-request CPU cost;
 * reads never hit in a cache (target weights are streamed once per pass).
 * Sources: profile comments (src:ufs40-samsung: UFS 4.0 4.2 GB/s; src:phonearena-s24u:
 * ~2.5 GB/s in a phone app; src:f2fs-folios: ~2 GB/s small-folio page cache vs ~4 GB/s direct
 * I/O; src:ufs-queue: QD <= 32 on legacy UFSHCI). */
#include "devices/flash.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/rng.h"

double ls_flash_effective_bw(const ls_flash_params *f)
{
  return f->link_bandwidth * f->efficiency[f->path];
}

void ls_flash_set_effective_bw(ls_flash_params *f, double bw)
{
  f->link_bandwidth = bw / f->efficiency[f->path];
}

/* Steady time between request completions of a read kept at qd outstanding (see top). */
static double steady_interval(double L, double tx, int qd)
{
  double Q = 0, U = 0, X = 0;
  for (int k = 1; k <= qd; k++) {
    double R = tx * (1.0 + Q - U) + U * tx * 0.5;
    X = k / (L + R);
    Q = X * R;
    U = fmin(1.0, X * tx);
  }
  return fmax(tx, 1.0 / X);
}

int64_t ls_flash_read_ns_at(const ls_flash_params *f, double bytes, double chunk, int qd)
{
  if (bytes <= 0)
    return 0;
  double B = ls_flash_effective_bw(f);
  double n = ceil(bytes / chunk);
  double tx = chunk / B, L = ls_latency_mean(&f->latency);
  /* Only min(qd, n) requests can ever be outstanding. */
  int k = (double)qd < n ? qd : (int)n;
  double t = L + bytes / B + (n - 1.0) * (steady_interval(L, tx, k) - tx);
  return (int64_t)llround(t * 1e9);
}

int64_t ls_flash_read_ns(const ls_flash_params *f, double bytes)
{
  return ls_flash_read_ns_at(f, bytes, f->chunk_bytes, f->queue_depth);
}

/* ---- event model ---- */

typedef struct flash_read flash_read;
struct flash_read {
  flash_read *next;     /* issue FIFO / free list */
  flash_read *all_next; /* every read ever allocated, for freeing */
  double to_issue;      /* bytes not yet issued */
  double chunk;
  int qd;
  int in_flight;        /* requests issued and not done */
  ls_flash_done_fn done;
  void *ctx;
};

typedef struct flash_req flash_req;
struct flash_req {
  flash_req *next_free;
  flash_req *all_next;  /* every request ever allocated, for freeing */
  ls_flash_dev *dev;
  flash_read *read;
  double bytes;
};

struct ls_flash_dev {
  ls_engine *e;
  ls_flash_params p;
  double bw;                 /* effective B/s, fixed at creation */
  ls_rng *rng;
  ls_resource *link;
  flash_read *head, *tail;   /* reads with bytes still to issue, FIFO */
  flash_read *free_reads, *all_reads;
  flash_req *free_reqs, *all_reqs;
  int outstanding;           /* device-wide requests in flight */
  int pending;               /* reads not done */
  double bytes_read;
  uint64_t requests;
};

int ls_flash_dev_create(ls_flash_dev **out, ls_engine *e, const ls_flash_params *p, uint64_t seed,
                        uint64_t stream_id, ls_error *err)
{
  *out = NULL;
  if (!(ls_flash_effective_bw(p) > 0) || !(p->chunk_bytes > 0) || p->queue_depth < 1)
    return ls_error_set(err, LS_EINVALID, "flash: bandwidth, chunk and queue depth must be positive");
  ls_flash_dev *d = calloc(1, sizeof *d);
  if (!d)
    return ls_error_set(err, LS_ENOMEM, "flash: out of memory");
  d->e = e;
  d->p = *p;
  d->bw = ls_flash_effective_bw(p);
  int rc = ls_rng_create(&d->rng, seed, "flash", stream_id, err);
  if (!rc)
    rc = ls_resource_create(&d->link, e, "flash.link", 1, err);
  if (rc) {
    ls_flash_dev_free(d);
    return rc;
  }
  *out = d;
  return LS_OK;
}

void ls_flash_dev_free(ls_flash_dev *d)
{
  if (!d)
    return;
  ls_resource_free(d->link);
  ls_rng_free(d->rng);
  /* Reads/requests may still be referenced by pending events when the engine was not run
   * to the end; every one ever allocated is on an all_* list. */
  for (flash_read *r = d->all_reads, *n; r; r = n) {
    n = r->all_next;
    free(r);
  }
  for (flash_req *q = d->all_reqs, *n; q; q = n) {
    n = q->all_next;
    free(q);
  }
  free(d);
}

static void issue(ls_flash_dev *d);

static void read_finished(ls_flash_dev *d, flash_read *r)
{
  ls_flash_done_fn done = r->done;
  void *ctx = r->ctx;
  r->next = d->free_reads;
  d->free_reads = r;
  d->pending--;
  if (done)
    done(d->e, ctx);
}

static void on_transfer(ls_engine *e, void *vq)
{
  (void)e;
  flash_req *q = vq;
  ls_flash_dev *d = q->dev;
  flash_read *r = q->read;
  d->outstanding--;
  d->bytes_read += q->bytes;
  d->requests++;
  r->in_flight--;
  q->next_free = d->free_reqs;
  d->free_reqs = q;
  int finished = r->in_flight == 0 && r->to_issue <= 0;
  issue(d); /* refill the queue before user code runs, so a chained read queues behind */
  if (finished)
    read_finished(d, r);
}

static void on_arrival(ls_engine *e, void *vq)
{
  (void)e;
  flash_req *q = vq;
  ls_flash_dev *d = q->dev;
  int64_t t = (int64_t)llround(q->bytes / d->bw * 1e9);
  ls_resource_submit(d->link, t, on_transfer, q, NULL);
}

static flash_req *new_req(ls_flash_dev *d)
{
  flash_req *q = d->free_reqs;
  if (q) {
    d->free_reqs = q->next_free;
    return q;
  }
  if ((q = malloc(sizeof *q))) {
    q->all_next = d->all_reqs;
    d->all_reqs = q;
  }
  return q;
}

/* Issues requests from the oldest read with bytes left while the device has free slots. */
static void issue(ls_flash_dev *d)
{
  while (d->head && d->outstanding < d->head->qd) {
    flash_read *r = d->head;
    flash_req *q = new_req(d);
    if (!q)
      return; /* out of memory: the read stalls; nothing else can be done in a callback */
    q->dev = d;
    q->read = r;
    q->bytes = r->to_issue < r->chunk ? r->to_issue : r->chunk;
    r->to_issue -= q->bytes;
    r->in_flight++;
    d->outstanding++;
    if (r->to_issue <= 0) {
      d->head = r->next;
      if (!d->head)
        d->tail = NULL;
      r->next = NULL;
    }
    double lat = ls_latency_sample(&d->p.latency, ls_rng_gsl(d->rng));
    ls_engine_schedule_in(d->e, (int64_t)llround(lat * 1e9), on_arrival, q, NULL, NULL);
  }
}

int ls_flash_dev_read_at(ls_flash_dev *d, double bytes, double chunk, int qd, ls_flash_done_fn done,
                         void *ctx, ls_error *err)
{
  if (!(bytes > 0))
    return ls_error_set(err, LS_ERANGE, "flash read: bytes must be > 0 (got %g)", bytes);
  flash_read *r = d->free_reads;
  if (r)
    d->free_reads = r->next;
  else if ((r = malloc(sizeof *r))) {
    r->all_next = d->all_reads;
    d->all_reads = r;
  } else
    return ls_error_set(err, LS_ENOMEM, "flash read: out of memory");
  r->next = NULL;
  r->to_issue = bytes;
  r->chunk = chunk > 0 ? chunk : d->p.chunk_bytes;
  r->qd = qd > 0 ? qd : d->p.queue_depth;
  r->in_flight = 0;
  r->done = done;
  r->ctx = ctx;
  if (d->tail)
    d->tail->next = r;
  else
    d->head = r;
  d->tail = r;
  d->pending++;
  issue(d);
  return LS_OK;
}

int ls_flash_dev_read(ls_flash_dev *d, double bytes, ls_flash_done_fn done, void *ctx, ls_error *err)
{
  return ls_flash_dev_read_at(d, bytes, 0, 0, done, ctx, err);
}

double ls_flash_dev_bytes_read(const ls_flash_dev *d) { return d->bytes_read; }
uint64_t ls_flash_dev_requests(const ls_flash_dev *d) { return d->requests; }
int64_t ls_flash_dev_link_busy_ns(const ls_flash_dev *d) { return ls_resource_busy_ns(d->link); }
int ls_flash_dev_pending(const ls_flash_dev *d) { return d->pending; }
