/* sim/engine: see engine.h.
 *
 * Model: a pending-event set ordered by the key (time, seq). seq is a per-engine counter taken
 * at every successful schedule, so keys are unique and the order is total:
 *   SAME-TIME RULE: equal-time events fire in scheduling order (FIFO), and an event scheduled
 *   for the current time from inside a callback fires after every event of that time already
 *   pending (its seq is larger than theirs).
 *
 * Data structures (no allocation per event; both arrays double when full):
 *  - heap[]: a 4-ary min-heap of (time, seq, slot) nodes, 16 bytes each, keys stored inline
 *    so a comparison never leaves the heap array; every entry from n on holds a sentinel key
 *    (see SENTINEL). Children of node i are 4i+1..4i+4 and its
 *    parent is (i-1)/4: half the depth of a binary heap, and the four children sit in one or
 *    two adjacent cache lines, so a pop touches about half as many lines.
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
 * Replace-top: before a callback runs, its event's node leaves the root and the hole walks
 * down along the smallest child to a leaf (Floyd's bottom-up pop, below), where it stays
 * while the callback runs: the first event the callback schedules climbs from that leaf
 * (one upward walk), and only when it schedules nothing does the last node fill the hole.
 * Most events schedule a successor (a request its next stage, the hold model its next
 * event), so a pop plus a push costs one walk down and one short walk up. The walk down does
 * not depend on what the callback schedules, so it is done first and the processor can
 * overlap it with the callback's own work (the hold model's draw). While the hole exists
 * heap[hole_at] holds no event, n counts it, and the fired event's slot is already free.
 *
 * Pop uses Floyd's bottom-up sift: the hole left at the root walks down along the smallest
 * child to a leaf, then the last node is sifted up from there. In the hold model the last
 * node is usually large, so it rarely climbs: about 3 comparisons per level on the way down
 * and one or two on the way up, against the textbook sift's 4 per level.
 * Sources: src:knuth-taocp3 for the d-ary layout, src:wegener-heapsort for the bottom-up pop. */
#include "sim/engine.h"
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* seq is 32 bits so a node is 16 bytes (four children fill a cache line); the fields run from
 * the least significant to the most (key_less). Before the counter
 * would pass UINT32_MAX - 1 the pending nodes are renumbered 0..n-1 in key order
 * (renumber_seq): the order of every pair is unchanged, so the same-time rule holds for any
 * number of schedules. */
typedef struct {
  uint32_t slot;
  uint32_t seq;
  int64_t time;
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
#define ARITY 4
/* heap[n .. n+ARITY-1] always hold this key, larger than any event's (an event at INT64_MAX
 * has a smaller seq), so every node below n has ARITY children to compare without a count. */
#define SENTINEL ((hnode){.slot = NO_SLOT, .seq = UINT32_MAX, .time = INT64_MAX})
#define SEQ_LIMIT (UINT32_MAX - 1u) /* seqs stay below the sentinel's */
_Static_assert(sizeof(hnode) == 16, "a heap node is 16 bytes");

struct ls_engine {
  hnode *heap;     /* heap_mem + HEAP_SHIFT */
  void *heap_mem;  /* the allocation, 64-byte aligned */
  size_t n, cap;
  slot_t *slots;
  uint32_t nslots, cap_slots, free_head;
  int64_t now;
  uint32_t seq;
  size_t live;
  const volatile sig_atomic_t *stop; /* ls_engine_set_bounds: borrowed, NULL when unset */
  uint64_t budget, spent;            /* events allowed and fired since (budget 0: no limit) */
  int halted;
  int hole;       /* a callback runs and heap[hole_at], a leaf, is empty (see the top) */
  size_t hole_at;
};

/* (time, seq) order. With 128-bit integers the node, read as one little-endian number, is
 * time * 2^64 + seq * 2^32 + slot (times are never negative, seqs unique), so the order is
 * one unsigned comparison, two instructions and no branch. Otherwise times almost never tie,
 * so the tie test is a branch the predictor learns. */
static inline int key_less(const hnode *a, const hnode *b)
{
#if defined(__SIZEOF_INT128__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  __extension__ typedef unsigned __int128 u128;
  u128 x, y;
  memcpy(&x, a, sizeof x);
  memcpy(&y, b, sizeof y);
  return x < y;
#else
  if (__builtin_expect(a->time != b->time, 1))
    return a->time < b->time;
  return a->seq < b->seq;
#endif
}

/* Nodes 4i+1..4i+4 (the children of i) share one 64-byte cache line when node 1 starts a
 * line: the array starts 3 nodes (48 bytes) into an aligned block. Room for cap nodes and
 * the ARITY sentinels. */
#define HEAP_SHIFT 3
static hnode *heap_alloc(void **mem, size_t cap)
{
  size_t bytes = (cap + ARITY + HEAP_SHIFT) * sizeof(hnode);
  *mem = aligned_alloc(64, (bytes + 63) / 64 * 64);
  return *mem ? (hnode *)*mem + HEAP_SHIFT : NULL;
}

int ls_engine_create(ls_engine **out, ls_error *err)
{
  *out = NULL;
  ls_engine *e = calloc(1, sizeof *e);
  if (!e)
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory");
  e->heap = heap_alloc(&e->heap_mem, INITIAL_CAP);
  e->slots = malloc(INITIAL_CAP * sizeof *e->slots);
  if (!e->heap || !e->slots) {
    ls_engine_free(e);
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory");
  }
  e->cap = INITIAL_CAP;
  e->cap_slots = INITIAL_CAP;
  for (size_t i = 0; i < INITIAL_CAP + ARITY; i++)
    e->heap[i] = SENTINEL;
  e->free_head = NO_SLOT;
  *out = e;
  return LS_OK;
}

void ls_engine_free(ls_engine *e)
{
  if (!e)
    return;
  free(e->heap_mem);
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
  void *mem;
  hnode *h = heap_alloc(&mem, cap);
  if (!h)
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory (%zu heap nodes)", cap);
  memcpy(h, e->heap, (e->cap + ARITY) * sizeof *h);
  free(e->heap_mem);
  e->heap_mem = mem;
  for (size_t i = e->cap + ARITY; i < cap + ARITY; i++)
    h[i] = SENTINEL;
  e->heap = h;
  e->cap = cap;
  return LS_OK;
}

/* Moves node x up from hole i to its place. */
static inline void sift_up(hnode *h, size_t i, hnode x)
{
  while (i > 0) {
    size_t p = (i - 1) / ARITY;
    if (!key_less(&x, &h[p]))
      break;
    h[i] = h[p];
    i = p;
  }
  h[i] = x;
}

/* Index of the smallest of the children c..c+3 (sentinels stand in for missing ones): a
 * tournament of pairs whose outcomes become indexes, not branches. */
static inline size_t min_child(const hnode *h, size_t c)
{
  size_t a = c + (size_t)key_less(&h[c + 1], &h[c]);
  size_t b = c + 2 + (size_t)key_less(&h[c + 3], &h[c + 2]);
  return key_less(&h[b], &h[a]) ? b : a;
}

/* Walks a hole at the root of h[0..n-1] down along the smallest child to a leaf; returns
 * where it ends (bottom-up, see the top). */
static inline size_t hole_down(hnode *h, size_t n)
{
  size_t i = 0, c;
  while ((c = ARITY * i + 1) < n) {
    c = min_child(h, c);
    h[i] = h[c];
    i = c;
  }
  return i;
}

/* Fills the root hole of h[0..n-1] with x. */
static inline void replace_root(hnode *h, size_t n, hnode x)
{
  sift_up(h, hole_down(h, n), x);
}

/* Removes the root (n > 0). */
static inline void heap_pop(ls_engine *e)
{
  hnode *h = e->heap;
  size_t n = --e->n;
  hnode last = h[n];
  h[n] = SENTINEL;
  if (n > 0)
    replace_root(h, n, last);
}

/* Closes the leaf hole at hole_at with the last node (one node fewer). */
static inline void fill_hole(ls_engine *e)
{
  hnode *h = e->heap;
  size_t n = --e->n;
  hnode last = h[n];
  h[n] = SENTINEL;
  if (e->hole_at < n)
    sift_up(h, e->hole_at, last);
}

static int cmp_node(const void *a, const void *b)
{
  const hnode *x = *(const hnode *const *)a, *y = *(const hnode *const *)b;
  return key_less(x, y) ? -1 : key_less(y, x);
}

/* Gives the pending nodes seqs 0..n-1 in key order (every 4 billion schedules). */
static int renumber_seq(ls_engine *e, ls_error *err)
{
  hnode **order = malloc((e->n + 1) * sizeof *order);
  if (!order)
    return ls_error_set(err, LS_ENOMEM, "engine: out of memory renumbering %zu events", e->n);
  size_t m = 0;
  for (size_t i = 0; i < e->n; i++)
    if (!e->hole || i != e->hole_at) /* the hole holds no event */
      order[m++] = &e->heap[i];
  qsort(order, m, sizeof *order, cmp_node);
  for (size_t i = 0; i < m; i++)
    order[i]->seq = (uint32_t)i;
  free(order);
  e->seq = (uint32_t)m;
  return LS_OK;
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
  if (!rc && e->seq >= SEQ_LIMIT)
    rc = renumber_seq(e, err);
  uint32_t s = 0;
  if (rc || (rc = slot_take(e, &s, err)))
    return rc;
  slot_t *sl = &e->slots[s];
  sl->fn = fn;
  sl->ctx = ctx;
  hnode x = {.slot = s, .seq = e->seq++, .time = at};
  if (e->hole) { /* the fired event's place: x climbs from the leaf hole */
    e->hole = 0;
    sift_up(e->heap, e->hole_at, x);
  } else {
    e->n++;
    sift_up(e->heap, e->n - 1, x);
  }
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
  if (e->hole)
    return 0; /* called from a callback: not reentrant */
  e->halted = LS_OK;
  while (e->n > 0 && e->heap[0].time <= until && !out_of_bounds(e)) {
    hnode top = e->heap[0];
    slot_t *sl = &e->slots[top.slot];
    ls_event_fn fn = sl->fn;
    void *ctx = sl->ctx;
    if (!fn) { /* cancelled */
      heap_pop(e);
      slot_release(e, top.slot);
      continue;
    }
    sl->gen++; /* its id becomes stale before the callback runs */
    e->live--;
    slot_release(e, top.slot);
    e->now = top.time;
    /* The root's hole walks down to a leaf before fn runs (that walk does not depend on what
     * fn schedules); the first event fn schedules climbs from there. */
    e->hole_at = hole_down(e->heap, e->n);
    e->hole = 1;
    fn(e, ctx); /* may schedule or cancel: slots/heap may move, nothing is held across */
    if (e->hole) { /* fn scheduled nothing: the last node fills the hole (Floyd's pop) */
      e->hole = 0;
      fill_hole(e);
    }
    fired++;
    e->spent++;
  }
  return fired;
}

uint64_t ls_engine_run(ls_engine *e) { return ls_engine_run_until(e, INT64_MAX); }

void ls_engine_test_set_seq(ls_engine *e, uint32_t seq)
{
  if (seq >= e->seq && seq <= SEQ_LIMIT)
    e->seq = seq;
}

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
    if (e->hole && i == e->hole_at)
      continue; /* the hole references no slot */
    const hnode *x = &e->heap[i];
    if ((i > 0 && key_less(x, &e->heap[(i - 1) / ARITY])) || x->slot >= e->nslots ||
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
  return ok && live == e->live && nfree + e->n - (size_t)e->hole == e->nslots;
}
