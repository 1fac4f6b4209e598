/* devices/flash: a UFS (or NVMe) flash device: parameters, pure cost query, event model.
 *
 * A read of B bytes (whole bytes: a fraction is rounded up, as is the chunk) is split into
 * requests of `chunk` bytes (the last one shorter); at most
 * `queue_depth` requests are outstanding on the device. Each request first waits its command
 * latency (drawn from the latency distribution; NAND read + controller, served in parallel
 * across queue slots), then moves its data over the link, a single server whose rate is the
 * effective bandwidth: link_bandwidth x path efficiency (UFS stripes one transfer over all
 * lanes). Throughput vs request size and queue depth, and the IOPS limit of small reads,
 * emerge from these events. Latencies are counter-based draws (request k of a device always
 * gets the same one). Simulated per request as engine events, or (default) by iterating the
 * queue's recurrence with one engine event per read: identical results. See flash.c for the
 * equations, why the two agree, and sources. */
#ifndef LS_DEVICES_FLASH_H
#define LS_DEVICES_FLASH_H
#include <stdint.h>
#include "devices/latency.h"
#include "sim/engine.h"
#include "sim/resource.h"

typedef enum { LS_PATH_DIRECT = 0, LS_PATH_PAGE_CACHE = 1 } ls_flash_path;
/* How the event model is simulated (flash.c): both give identical results for a seed. */
typedef enum { LS_FLASH_SIM_RECURRENCE = 0, LS_FLASH_SIM_EVENTS = 1 } ls_flash_sim;
/* Setting values in enum order ("recurrence", "events"), NULL-terminated. */
extern const char *const ls_flash_sim_names[];

typedef struct ls_flash_params {
  char interface[32];         /* "UFS 4.0" */
  int lanes;                  /* informative (link rate already aggregates lanes) */
  double link_bandwidth;      /* B/s, sequential read capability of the device */
  double efficiency[2];       /* fraction of link_bandwidth the read path sustains, by ls_flash_path */
  ls_flash_path path;         /* read path the app uses */
  double chunk_bytes;         /* request size of a layer read */
  int queue_depth;            /* outstanding requests */
  ls_latency_dist latency;    /* per-request command latency */
  double read_j_per_byte;     /* read energy */
  double idle_w;              /* idle power of the device */
  ls_flash_sim sim;           /* run setting device.flash.sim (not a profile key) */
} ls_flash_params;

/* Effective data rate of the configured path, B/s. */
double ls_flash_effective_bw(const ls_flash_params *f);
/* Sets link_bandwidth so that the configured path's effective rate becomes bw (B/s). */
void ls_flash_set_effective_bw(ls_flash_params *f, double bw);
/* Expected time (ns) of one read of `bytes` on an idle device (closed-network MVA, flash.c;
 * exact at QD 1, within 1 % for layer streaming) at the profile's chunk size and
 * queue depth. ls_flash_read_ns_at takes explicit chunk and queue depth. 0 for bytes <= 0. */
int64_t ls_flash_read_ns(const ls_flash_params *f, double bytes);
int64_t ls_flash_read_ns_at(const ls_flash_params *f, double bytes, double chunk, int qd);

/* ---- event model ---- */
typedef struct ls_flash_dev ls_flash_dev;
/* Done callback of a whole read: ctx as given to ls_flash_dev_read. */
typedef void (*ls_flash_done_fn)(ls_engine *e, void *ctx);

/* p is copied; e is borrowed and must outlive the device. Latencies come from the
 * counter-based stream ("flash", stream_id) of seed. *out owned by caller. */
int ls_flash_dev_create(ls_flash_dev **out, ls_engine *e, const ls_flash_params *p, uint64_t seed,
                        uint64_t stream_id, ls_error *err);
void ls_flash_dev_free(ls_flash_dev *d);
/* The plain latency tables (flash.c: 4,097 nodes of the band's inverse CDF, a pure function
 * of the latency's median and sigma) shared by the devices created with a set, as a
 * worker's runs share them (runner/decode's input cache owns one set): a device borrows its
 * table from the set, which builds one per (median, sigma) it meets, keyed bit for bit, and
 * must outlive every device created with it. */
typedef struct ls_flash_tables ls_flash_tables;
int ls_flash_tables_create(ls_flash_tables **out, ls_error *err);
void ls_flash_tables_free(ls_flash_tables *t);
int ls_flash_tables_count(const ls_flash_tables *t); /* distinct tables built so far */
/* The set also keeps the specials' gap sequences its devices draw (flash.c, plain_gap: a pure
 * function of the seed's stream and the profile's plain probability, remembered as first
 * drawn, so every run of a worker with one seed and profile after the first reads them): at
 * most 4, the least recently borrowed one that no device borrows making room. Held now, and
 * built so far (evicted ones included). */
int ls_flash_tables_gaps_held(const ls_flash_tables *t);
int ls_flash_tables_gaps_built(const ls_flash_tables *t);
/* With each gap sequence the set keeps its stream's whole fresh reads (flash.c, read_memo: the
 * outcome of a read that an idle device completes at once, keyed by its first request, bytes,
 * chunk and queue depth, kept by the read's index in its run, two an index), which the runs
 * of a worker read in the same order: found so far, over the sequences held. */
uint64_t ls_flash_tables_reads_found(const ls_flash_tables *t);
/* ls_flash_dev_create with its table from tabs (NULL: its own); the same device either way. */
int ls_flash_dev_create_shared(ls_flash_dev **out, ls_engine *e, const ls_flash_params *p, uint64_t seed,
                               uint64_t stream_id, ls_flash_tables *tabs, ls_error *err);
/* Starts a read of `bytes` now; reads are served in FIFO order (a later read's requests are
 * issued once every request of earlier reads has been issued). done fires when its last
 * byte has arrived. chunk <= 0 / qd <= 0 mean the profile's values. LS_ERANGE unless
 * 0 < bytes <= 1e15 and chunk <= 1e15. */
int ls_flash_dev_read(ls_flash_dev *d, double bytes, ls_flash_done_fn done, void *ctx, ls_error *err);
int ls_flash_dev_read_at(ls_flash_dev *d, double bytes, double chunk, int qd, ls_flash_done_fn done,
                         void *ctx, ls_error *err);
/* A read that nothing else can meet, computed at once (recurrence mode): the read ls_flash_dev_read_at
 * would start at time t >= now on a device with no read pending, the same draws and steps, but
 * finished in the call: *done_at is its completion and the device's state and counters are
 * those at that time, so the caller must let nothing read or submit to the device before
 * *done_at (runner/decode/cycle_verify.c, a serial pass run in a loop). LS_ESTATE unless
 * ls_flash_dev_can_read_alone and t >= now; sizes as ls_flash_dev_read_at. */
int ls_flash_dev_read_alone(ls_flash_dev *d, double bytes, double chunk, int qd, int64_t t, int64_t *done_at,
                            ls_error *err);
/* 1 when ls_flash_dev_read_alone may be called: recurrence mode and no read pending. */
int ls_flash_dev_can_read_alone(const ls_flash_dev *d);
/* Counters at the engine's now (not const: the recurrence brings its state to now first). */
double ls_flash_dev_bytes_read(ls_flash_dev *d);   /* bytes delivered so far */
uint64_t ls_flash_dev_requests(ls_flash_dev *d);   /* requests completed */
int64_t ls_flash_dev_link_busy_ns(ls_flash_dev *d); /* link transfer time so far (in progress counts) */
int ls_flash_dev_pending(const ls_flash_dev *d);         /* reads not yet done */
/* The draws themselves (flash.c's top, "Draws"): the smallest V_k over requests k .. k + n - 1
 * (n >= 1; n = 1: V_k), computed as a fresh read computes its first QD's, block by block.
 * For tests of the draws' distribution; pure. */
double ls_flash_dev_v_min(const ls_flash_dev *d, uint64_t k, uint64_t n);
/* The plain requests before special number j (flash.c's top: G_j = floor(ln U_j / ln P)), as
 * the device's reads take it (remembered: ls_flash_tables); for tests of the memo. The device
 * must have specials (P < 1). */
uint64_t ls_flash_dev_special_gap(const ls_flash_dev *d, uint64_t j);

#endif
