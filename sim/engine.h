/* sim/engine: the discrete-event engine.
 *
 * Time is int64_t nanoseconds from 0. Pending events sit in a 4-ary heap keyed by
 * (time, seq), seq a per-engine counter incremented at every schedule, so:
 *   SAME-TIME RULE: events with equal time fire in the order they were scheduled (FIFO),
 *   including events scheduled, during a callback, for the current time — they fire after
 *   every already-pending event of that time.
 * Cancel is lazy (the entry stays in the heap, marked dead, and is skipped when popped).
 * Scheduling before now() is an error (LS_ESTATE); nothing is scheduled then. */
#ifndef LS_SIM_ENGINE_H
#define LS_SIM_ENGINE_H
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include "sim/error.h"

typedef struct ls_engine ls_engine;
typedef uint64_t ls_event_id; /* 0 is never a valid id */

/* Callback of a firing event; ctx is the pointer given at schedule time (borrowed). */
typedef void (*ls_event_fn)(ls_engine *e, void *ctx);

int ls_engine_create(ls_engine **out, ls_error *err); /* *out owned by caller */
void ls_engine_free(ls_engine *e);
int64_t ls_engine_now(const ls_engine *e);
/* Schedules fn(ctx) at absolute time `at` (>= now). id may be NULL. */
int ls_engine_schedule(ls_engine *e, int64_t at, ls_event_fn fn, void *ctx, ls_event_id *id,
                       ls_error *err);
/* Same, `delay` (>= 0) ns after now. */
int ls_engine_schedule_in(ls_engine *e, int64_t delay, ls_event_fn fn, void *ctx,
                          ls_event_id *id, ls_error *err);
/* Cancels a pending event: 1 if it was pending, 0 if it already fired, was cancelled or is unknown. */
int ls_engine_cancel(ls_engine *e, ls_event_id id);
/* Fires events in order while the next one's time is <= until; then now = the last fired
 * event's time (now never moves past `until` and never backwards). Returns the number fired.
 * Not reentrant: called from a callback it fires nothing and returns 0. */
uint64_t ls_engine_run_until(ls_engine *e, int64_t until);
/* Fires all events until none is pending. Returns the number fired. */
uint64_t ls_engine_run(ls_engine *e);
/* Bounds later runs: ls_engine_run/run_until return early, between two events, once *stop is
 * non-zero (a flag a signal handler sets; NULL: none; borrowed) or max_events events have
 * fired since this call (0: no limit). Events left pending stay pending. */
void ls_engine_set_bounds(ls_engine *e, const volatile sig_atomic_t *stop, uint64_t max_events);
/* Why the last run returned early: LS_EINTR (the stop flag), LS_ERANGE (max_events), or
 * LS_OK (it did not). */
int ls_engine_halted(const ls_engine *e);
/* Live (not cancelled) pending events. */
size_t ls_engine_pending(const ls_engine *e);
/* For tests: moves the internal schedule counter forward to seq (at most 2^32 - 2), to reach
 * the renumbering that keeps the same-time rule past 2^32 schedules. */
void ls_engine_test_set_seq(ls_engine *e, uint32_t seq);
/* Checks the heap invariant (for tests); 1 when it holds. */
int ls_engine_check_heap(const ls_engine *e);

#endif
