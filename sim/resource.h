/* sim/resource: a server with capacity c and a FIFO queue, on an ls_engine.
 *
 * A job asks for `service_ns` of one server. If a server is free it starts now, else it
 * waits in FIFO order; when it finishes, its done callback fires (at start + service).
 * Busy time is accounted exactly in server-nanoseconds (a job in progress counts up to now),
 * so utilisation over [0, now] = busy / (c * now). NPU: c = 1; CPU cluster: c = cores;
 * flash: c = queue depth. */
#ifndef LS_SIM_RESOURCE_H
#define LS_SIM_RESOURCE_H
#include <stdint.h>
#include "sim/engine.h"

typedef struct ls_resource ls_resource;

/* e is borrowed and must outlive the resource. name is copied. *out owned by caller. */
int ls_resource_create(ls_resource **out, ls_engine *e, const char *name, int capacity, ls_error *err);
void ls_resource_free(ls_resource *r);
/* Submits a job; done(e, ctx) fires when it completes (done may be NULL). */
int ls_resource_submit(ls_resource *r, int64_t service_ns, ls_event_fn done, void *ctx, ls_error *err);
/* n (>= 0) jobs of service_ns each, as n calls of ls_resource_submit in a row: the same starts,
 * completions and done calls (one per job), in the same order. When all n start at once (n
 * servers idle, nothing queued) they complete through one engine event (resource.c,
 * "Gangs"); otherwise they are submitted one by one, and the first failure stops there. */
int ls_resource_submit_n(ls_resource *r, int n, int64_t service_ns, ls_event_fn done, void *ctx, ls_error *err);
/* Records `jobs` jobs served without the queue, busy_ns server-ns in all, as their completions
 * would (busy time, completed count): for a caller that priced them itself on a server
 * nothing else used meanwhile, called at or after their end (runner/decode/cycle_verify.c, a
 * serial pass run in a loop). LS_ERANGE when busy_ns < 0 or the busy total would overflow. */
int ls_resource_book(ls_resource *r, int64_t busy_ns, uint64_t jobs, ls_error *err);
int ls_resource_capacity(const ls_resource *r);
int ls_resource_in_service(const ls_resource *r);
int ls_resource_queued(const ls_resource *r);
uint64_t ls_resource_completed(const ls_resource *r);
/* Exact server-ns of work done up to now. */
int64_t ls_resource_busy_ns(const ls_resource *r);
/* busy / (capacity * now); 0 at time 0. */
double ls_resource_utilisation(const ls_resource *r);
const char *ls_resource_name(const ls_resource *r);

#endif
