/* sim/engine: see engine.h.
 *
 * Model: a pending-event set ordered by the key (time, seq). seq is a per-engine counter taken
 * at every successful schedule, so keys are unique and the order is total:
 *   SAME-TIME RULE: equal-time events fire in scheduling order (FIFO), and an event scheduled
 *   for the current time from inside a callback fires after every event of that time already
 *   pending (its seq is larger than theirs).
 *
 * Data structures (no allocation per event; both arrays double when full):
 *  - heap[]: a binary min-heap of (time, seq, slot) nodes, 24 bytes each.
 *  - slots[]: the callback and context of each pending event, plus a generation counter.
 *    An event id is (generation << 32) | (slot + 1), so 0 is never an id and a stale id (the
 *    slot was fired, cancelled or reused since) is recognised by its generation in O(1).
 *    Generations are 32 bits: an id becomes ambiguous only after its slot was reused 2^32
 *    times while the caller kept the id, which no simulation here comes near.
 *
 * Slot states: free (on the free list, fn == NULL), live (fn != NULL, one heap node points
 * to it), dead (cancelled: fn == NULL, generation already advanced, still referenced by its
 * heap node). A dead slot returns to the free list only when its heap node is popped: this is
 * the lazy cancel.
 *
 * Invariants (checked by ls_engine_check_heap):
 *  - heap order: no node's key is smaller than its parent's;
 *  - every slot is referenced exactly once, by one heap node or by the free list;
 *  - live == the number of heap nodes whose slot is live;
 *  - now only grows, and every pending key has time >= now (enforced at schedule time).
 *
 * Pop uses Floyd's bottom-up sift: the hole left at the root walks down along the smaller
 * child to a leaf, then the last node is sifted up from there. In the hold model the last
 * node is usually large, so this saves about half of the comparisons of the textbook sift. */
#include "sim/engine.h"
#include <inttypes.h>
#include <stdlib.h>

typedef struct {
  int64_t time;
  uint64_t seq;
  uint32_t slot;
} hnode;

typedef struct {
  ls_event_fn fn; /* NULL: free or dead */
  void *ctx;
  uint32_t gen;
  uint32_t next_free; /* free-list link, NO_SLOT at the end */
} slot_t;

#define NO_SLOT UINT32_MAX
#define MAX_SLOTS (UINT32_MAX - 1u) /* slot + 1 must fit the low 32 bits of an id */
#define INITIAL_CAP 64

struct ls_engine {
  hnode *heap;
  size_t n, cap;
  slot_t *slots;
  uint32_t nslots, cap_slots, free_head;
  int64_t now;
  uint64_t seq;
  size_t live;
  const volatile sig_atomic_t *stop; /* ls_engine_set_bounds: borrowed, NULL when unset */
  uint64_t budget, spent;            /* events allowed and fired since (budget 0: no limit) */
  int halted;
};

/* Bitwise, not short-circuit: the result feeds index arithmetic without a branch, since
 * which child is smaller is a coin flip the branch predictor cannot learn. */
static inline int key_less(const hnode *a, const hnode *b)
{
  return (a->time < b->time) | ((a->time == b->time) & (a->seq < b->seq));
}

int ls_engine_create(ls_engine **out, ls_error *err)
{
  *out = NULL;
  ls_engine *e = calloc(1, sizeof *e);
  if (!e)
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory");
  e->heap = malloc(INITIAL_CAP * sizeof *e->heap);
  e->slots = malloc(INITIAL_CAP * sizeof *e->slots);
  if (!e->heap || !e->slots) {
    ls_engine_free(e);
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory");
  }
  e->cap = INITIAL_CAP;
  e->cap_slots = INITIAL_CAP;
  e->free_head = NO_SLOT;
  *out = e;
  return LS_OK;
}

void ls_engine_free(ls_engine *e)
{
  if (!e)
    return;
  free(e->heap);
  free(e->slots);
  free(e);
}

int64_t ls_engine_now(const ls_engine *e) { return e->now; }
size_t ls_engine_pending(const ls_engine *e) { return e->live; }

/* Takes a slot from the free list, or a fresh one (growing the array). */
static int slot_take(ls_engine *e, uint32_t *out, ls_error *err)
{
  if (e->free_head != NO_SLOT) {
    *out = e->free_head;
    e->free_head = e->slots[*out].next_free;
    return LS_OK;
  }
  if (e->nslots == e->cap_slots) {
    if (e->cap_slots > MAX_SLOTS / 2)
      return ls_error_set(err, LS_ENOMEM, "engine: too many pending events");
    uint32_t cap = 2 * e->cap_slots;
    slot_t *s = realloc(e->slots, (size_t)cap * sizeof *s);
    if (!s)
      return ls_error_set(err, LS_ENOMEM, "engine: out of memory (%" PRIu32 " slots)", cap);
    e->slots = s;
    e->cap_slots = cap;
  }
  *out = e->nslots;
  e->slots[e->nslots].gen = 0;
  e->nslots++;
  return LS_OK;
}

static void slot_release(ls_engine *e, uint32_t i)
{
  e->slots[i].fn = NULL;
  e->slots[i].next_free = e->free_head;
  e->free_head = i;
}

static int heap_reserve(ls_engine *e, ls_error *err)
{
  if (e->n < e->cap)
    return LS_OK;
  size_t cap = 2 * e->cap;
  hnode *h = realloc(e->heap, cap * sizeof *h);
  if (!h)
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory (%zu heap nodes)", cap);
  e->heap = h;
  e->cap = cap;
  return LS_OK;
}

/* Moves node x up from hole i to its place. */
static inline void sift_up(hnode *h, size_t i, hnode x)
{
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!key_less(&x, &h[p]))
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = x;
}

/* Removes the root (n > 0). */
static inline void heap_pop(ls_engine *e)
{
  hnode *h = e->heap;
  size_t n = --e->n;
  if (n == 0)
    return;
  hnode last = h[n];
  size_t i = 0, c;
  while ((c = 2 * i + 1) < n) { /* walk the hole down along the smaller child */
    if (c + 1 < n)
      c += (size_t)key_less(&h[c + 1], &h[c]);
    h[i] = h[c];
    i = c;
  }
  sift_up(h, i, last);
}

int ls_engine_schedule(ls_engine *e, int64_t at, ls_event_fn fn, void *ctx, ls_event_id *id,
                       ls_error *err)
{
  if (id)
    *id = 0;
  if (!fn)
    return ls_error_set(err, LS_EINVALID, "engine: schedule with a NULL callback");
  if (at < e->now)
    return ls_error_set(err, LS_ESTATE,
                        "engine: cannot schedule at t=%" PRId64 " ns, before now=%" PRId64 " ns",
                        at, e->now);
  int rc = heap_reserve(e, err);
  uint32_t s = 0;
  if (rc || (rc = slot_take(e, &s, err)))
    return rc;
  slot_t *sl = &e->slots[s];
  sl->fn = fn;
  sl->ctx = ctx;
  hnode x = {at, e->seq++, s};
  e->n++;
  sift_up(e->heap, e->n - 1, x);
  e->live++;
  if (id)
    *id = ((uint64_t)sl->gen << 32) | ((uint64_t)s + 1u);
  return LS_OK;
}

int ls_engine_schedule_in(ls_engine *e, int64_t delay, ls_event_fn fn, void *ctx,
                          ls_event_id *id, ls_error *err)
{
  if (id)
    *id = 0;
  if (delay < 0)
    return ls_error_set(err, LS_ESTATE, "engine: negative delay %" PRId64 " ns", delay);
  if (delay > INT64_MAX - e->now)
    return ls_error_set(err, LS_ERANGE,
                        "engine: delay %" PRId64 " ns after now=%" PRId64 " ns overflows time",
                        delay, e->now);
  return ls_engine_schedule(e, e->now + delay, fn, ctx, id, err);
}

int ls_engine_cancel(ls_engine *e, ls_event_id id)
{
  uint64_t low = id & 0xffffffffu;
  if (low == 0 || low > e->nslots)
    return 0;
  slot_t *sl = &e->slots[low - 1];
  if (sl->gen != (uint32_t)(id >> 32) || !sl->fn)
    return 0;
  sl->fn = NULL; /* dead: skipped and released when its heap node is popped */
  sl->gen++;
  e->live--;
  return 1;
}

void ls_engine_set_bounds(ls_engine *e, const volatile sig_atomic_t *stop, uint64_t max_events)
{
  e->stop = stop;
  e->budget = max_events;
  e->spent = 0;
  e->halted = LS_OK;
}

int ls_engine_halted(const ls_engine *e) { return e->halted; }

/* Checked between events, so a stop never cuts a callback short. */
static int out_of_bounds(ls_engine *e)
{
  if (e->stop && *e->stop)
    e->halted = LS_EINTR;
  else if (e->budget && e->spent >= e->budget)
    e->halted = LS_ERANGE;
  return e->halted != LS_OK;
}

uint64_t ls_engine_run_until(ls_engine *e, int64_t until)
{
  uint64_t fired = 0;
  e->halted = LS_OK;
  while (e->n > 0 && e->heap[0].time <= until && !out_of_bounds(e)) {
    hnode top = e->heap[0];
    heap_pop(e);
    slot_t *sl = &e->slots[top.slot];
    ls_event_fn fn = sl->fn;
    void *ctx = sl->ctx;
    if (fn) { /* live: its id becomes stale before the callback runs */
      sl->gen++;
      e->live--;
    }
    slot_release(e, top.slot);
    if (!fn)
      continue;
    e->now = top.time;
    fn(e, ctx); /* may schedule or cancel: slots/heap may move, nothing is held across */
    fired++;
    e->spent++;
  }
  return fired;
}

uint64_t ls_engine_run(ls_engine *e) { return ls_engine_run_until(e, INT64_MAX); }

int ls_engine_check_heap(const ls_engine *e)
{
  if (e->n > e->cap || e->nslots > e->cap_slots)
    return 0;
  /* Each slot is referenced exactly once: by one heap node or by the free list. (A test
   * helper, so it may allocate; 0 when it cannot.) */
  unsigned char *seen = calloc((size_t)e->nslots + 1, 1);
  if (!seen)
    return 0;
  int ok = 1;
  size_t live = 0, nfree = 0;
  for (size_t i = 0; ok && i < e->n; i++) {
    const hnode *x = &e->heap[i];
    if ((i > 0 && key_less(x, &e->heap[(i - 1) / 2])) || x->slot >= e->nslots ||
        x->time < e->now || seen[x->slot]++)
      ok = 0;
    else if (e->slots[x->slot].fn)
      live++;
  }
  for (uint32_t f = e->free_head; ok && f != NO_SLOT; f = e->slots[f].next_free) {
    if (f >= e->nslots || e->slots[f].fn || seen[f]++)
      ok = 0;
    nfree++;
  }
  free(seen);
  return ok && live == e->live && nfree + e->n == e->nslots;
}
