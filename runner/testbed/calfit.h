/* runner/testbed/calfit: the testbed's calibration fits and statistics. Each fit takes a run's
 * calibration passes (runner/testbed/measure.h) and searches for the one device parameter that
 * makes the device model meet them: the head's rates (devices/cpu.h), the wait at a cold pass's
 * start and the head's serial share (devices/mapread.h). Nothing here prices a pass: the pricing
 * is the cost model's (policies/costmodel.h, ls_costmodel_pass), the one the decode library's
 * CPU replay (runner/decode/cpu_replay.h) and the phone replay's CPU use, so the fits and the
 * validation check that code, not a copy. The statistics (the fastest, the median, the
 * expected fastest of r) are how every measured value is taken over its repetitions. */
#ifndef LS_RUNNER_TESTBED_CALFIT_H
#define LS_RUNNER_TESTBED_CALFIT_H
#include "devices/device.h"
#include "devices/mapread.h"
#include "policies/costmodel.h"
#include "runner/testbed/measure.h"
#include "workloads/model.h"

/* Where in a window the next read-ahead is issued: at its first page. Once a mapped file is read
 * in order, Linux marks the first page of each new window for asynchronous read-ahead
 * (async_size = the window), so touching it issues the next window (src:linux-readahead). */
#define LS_TBP_TRIGGER 0.0

/* The pricing of a pass is the cost model's (policies/costmodel.h): the fits below take it as
 * given and only search for the parameter that makes it meet a calibration measurement. */
typedef ls_costmodel_pass ls_tbp;

/* The output projection's own streaming rate, from the run's `rows` passes (runner/testbed/
 * measure.h): N tokens asking for all N output rows against the same N tokens asking for one,
 * the model in memory, interleaved. The layers and the context are the same in both, so the
 * difference is the head computed for N - 1 more rows:
 *   per_row = (t_all - t_one) / (N - 1),   head_bw = head_bytes / per_row
 * t_all and t_one each the fastest of their repetitions (median != 0: the median), as every
 * other point. This is what devices/cpu.c's head_bandwidth is on a one-thread profile: the
 * per-row cost of the head there is head_bytes / head_bandwidth while the row's compute
 * (flops / F) is smaller (a streaming kernel). When the run also has `rows-0` passes (the same
 * N tokens asking for no output row, so llama.cpp computes no output projection), the first
 * row's cost and rate (devices/cpu.c's head_first_bandwidth) come from them:
 *   first_row = t_one - t_none,   head_bw_first = head_bytes / first_row
 * A calibration input: it reads no held-out pass. */
typedef struct ls_tbp_head_rate {
  int n;                   /* tokens of the rows passes */
  int reps_all, reps_one;  /* repetitions found of each */
  double t_all_s, t_one_s; /* the statistic of each */
  double per_row_s;        /* (t_all - t_one) / (n - 1) */
  double head_bytes;
  double bw;               /* head_bytes / per_row_s, B/s */
  int has_first;           /* 1: the run has rows-0 passes at n, and the fields below are set */
  int reps_none;
  double t_none_s;         /* the statistic of the rows-0 passes */
  double first_row_s;      /* t_one - t_none */
  double bw_first;         /* head_bytes / first_row_s, B/s */
} ls_tbp_head_rate;
#define LS_TBP_REPS_MAX 512 /* repetitions of one pass that a statistic takes */

/* How much a computing thread slows the reads it overlaps (devices/mapread.h, io_cpu_share),
 * from the run's busy streams (runner/testbed/measure.h): at each level, C the statistic of the
 * `busy-warm` passes (the arithmetic's own cost, no reads) and T that of the `stream-busy`
 * passes (the same arithmetic while the file streams in from a cold cache). The share s is the
 * one for which the read-ahead model, on the stream's read path `flash` (ls_mapread_stream_flash)
 * with the file as one segment of `bytes` carrying compute C, gives T at every level, in least
 * squares of the relative errors (golden section on [0, 0.95] to 1e-6). A storage
 * measurement: no llama.cpp pass enters it. fastest_of > 0 (and median 0): C and T are the
 * expected fastest of that many repetitions (ls_tbp_fastest_of) instead of the fastest of all.
 * mem = 1: the same from the memory-bound busy streams (`busy-mem-warm`, `stream-busy-mem`). */
#define LS_TBP_BUSY_MAX 8
typedef struct ls_tbp_io_share {
  int levels;                        /* 0: the run has no busy streams (made before them) */
  int level[LS_TBP_BUSY_MAX];        /* % of a stream, as measured */
  double compute_s[LS_TBP_BUSY_MAX]; /* C */
  double measured_s[LS_TBP_BUSY_MAX];  /* T */
  double model_s[LS_TBP_BUSY_MAX];   /* the model's T at the fitted share */
  double model0_s[LS_TBP_BUSY_MAX];  /* the same with share 0 */
  double model_rule_s[LS_TBP_BUSY_MAX]; /* the same share under the other rule (m->share_waited flipped) */
  double share;                      /* the fitted share (0 when levels = 0) */
  double delay;                      /* the fitted delay with no share (io_delay_s), s */
} ls_tbp_io_share;

void ls_tbp_io_share_fit(const ls_tbm_result *r, const ls_flash_params *flash, const ls_mapread_params *m,
                         double bytes, int median, int fastest_of, int mem, ls_tbp_io_share *out);

/* The same share from a llama.cpp pass instead of a synthetic loop: the run's cold passes of N
 * tokens that ask for no output row (`rows-0-cold`, runner/testbed/measure.h; the layers alone,
 * right after an eviction). The share is the one for which the read-ahead model of that pass
 * (ls_costmodel_pass_cold_s, rows 0) gives its measured time (bisection on [0, 0.95] to 1e-6; clamped when
 * the measurement lies outside what the model can give). A calibration input like the warm rows
 * passes: one 16-token pass at an empty context, asking for no row; no held-out pass enters it.
 * fastest_of > 0 (and median 0): the passes' expected fastest of that many repetitions
 * (ls_tbp_fastest_of), as the storage measurements under validate --stat matched. Returns 0
 * (out zeroed) when the run has no such passes. */
typedef struct ls_tbp_io_pass {
  int n;                   /* tokens of the passes */
  int reps;                /* their repetitions */
  double measured_s;       /* their statistic */
  double warm_s;           /* the model's compute of the pass (warm) */
  double model0_s, model_max_s; /* the model's cold pass at share 0 and 0.95 */
  double share;            /* the fitted share */
} ls_tbp_io_pass;

int ls_tbp_io_share_pass_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median,
                             int fastest_of, ls_tbp_io_pass *out);

/* The read path's work beside a compute that occupies every core (devices/mapread.h,
 * contend_s_per_byte; docs/VALIDATION.md §0.8), from the CPU time of the same two passes the start
 * comes from, `rows-0-cold` and `rows-0` (N tokens, no output row): the cold pass's extra
 * process CPU time (mean over its repetitions, cold less warm) less the faults' own CPU time
 * (fault_s_per_byte x the layers' bytes, already in the model), spread over the host's cores,
 * per byte of the layers read. On this VM the hypervisor's virtio work, the faults and the page
 * cache's fills run on the guest's cores and are charged to its threads; a spinning barrier
 * doubles what one stalled thread costs in CPU, which the division by the cores undoes. Only
 * when the run's threads occupy every core of the profile's CPU (ls_cpu_total_cores): with a
 * core idle the work runs there (0, and `active` 0). Clamped at 0. A calibration input; set it
 * on p before ls_tbp_start_fit, which then fits the wait net of it. Returns 0 (out zeroed) when
 * the run lacks either kind. */
typedef struct ls_tbp_contention {
  int n;                   /* tokens of the passes */
  int active;              /* 1: the threads occupy every core */
  double cold_cpu_s, warm_cpu_s; /* mean process CPU time of the passes */
  double fault_cpu_s;      /* the model's fault CPU for the layers' bytes */
  double bytes;            /* the layers' bytes */
  double contend_s_per_byte;  /* max(0, cold - warm - fault) / cores / bytes when active, else 0 */
} ls_tbp_contention;

int ls_tbp_contention_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, ls_tbp_contention *out);

/* The wait at a cold pass's start (devices/mapread.h, start_s), from the run's passes of N tokens
 * that ask for no output row, cold (`rows-0-cold`, right after an eviction) and warm (`rows-0`):
 * the measured cold excess (cold - warm) less the excess the model gives the same pass with no
 * start (its cold less its warm time, with the share already set on p). Sixteen tokens compute
 * longer than their weights take to read, so the reads hide under the compute except at the
 * start, and a wait there adds to the pass one for one. Clamped at 0. A calibration input like the
 * warm rows passes (16 tokens at an empty context, no row); no held-out pass enters it.
 * fastest_of > 0 (and median 0): each kind's expected fastest of that many repetitions
 * (ls_tbp_fastest_of). Returns 0 (out zeroed) when the run lacks either kind. */
typedef struct ls_tbp_start {
  int n;                   /* tokens of the passes */
  double cold_s, warm_s;   /* their statistics */
  double model_excess_s;   /* the model's cold less warm time of the pass with no start */
  double start_s;          /* (cold - warm) - model_excess, at least 0 */
} ls_tbp_start;

int ls_tbp_start_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median, int fastest_of,
                     ls_tbp_start *out);

/* How much of the output projection's compute waits for its weights' last byte on a cold pass
 * (devices/mapread.h, a segment's `serial`), from the run's cold rows passes (runner/testbed/
 * measure.h): N tokens asking for all N rows and for none, each right after an eviction. With no
 * row llama.cpp computes no projection and reads none of the head, so the difference is the
 * head's whole phase: reading its bytes and computing N rows. The share is the one for which
 * the model's phase (a cold pass of N rows less the same pass without the head) equals the
 * measured one (bisection on [0, 1]; clamped to 0 or 1 when the measurement lies outside what
 * the model can give). A calibration input like the warm rows passes: a 16-token pass at an
 * empty context, not a held-out point. Returns 0 (out zeroed) when the run has no such passes. */
typedef struct ls_tbp_head_serial {
  int n;                   /* tokens (and rows) of the passes */
  double t_all_s, t_none_s; /* the statistic of each kind */
  double measured_s;       /* t_all - t_none: the head's cold phase */
  double model0_s, model1_s; /* the model's phase with share 0 and 1 */
  double serial;           /* the fitted share */
} ls_tbp_head_serial;

int ls_tbp_head_serial_fit(const ls_tbp *p, const ls_model_costs *m, const ls_tbm_result *r, int median,
                           ls_tbp_head_serial *out);

/* The fastest (median = 0) or the median of v[0..n-1] (sorted in place); NAN when n = 0. Every
 * measured value of the testbed is one of these two over a pass's repetitions (validate --stat). */
double ls_tbp_rep_stat(double *v, int n, int median);

/* The expected fastest of r repetitions, estimated from n >= r of them (v, any order, not
 * changed): the mean over every r-subset of its smallest, sum_i x_(i) C(n-1-i, r-1) / C(n, r)
 * for x_(0) <= ... <= x_(n-1) (an unbiased estimator). A point measured r times is the fastest
 * of r; a storage measurement repeated n > r times has a more extreme fastest, and this puts
 * both at the same statistic (validate --stat matched). r >= n: the fastest; r <= 1: the
 * mean; NAN when n = 0. */
double ls_tbp_fastest_of(const double *v, int n, int r);

/* ls_tbp_rep_stat of the times of r's passes of kind with n tokens at context ctx; *reps (may be
 * NULL) their count. */
double ls_tbp_pass_time(const ls_tbm_result *r, const char *kind, int n, int ctx, int median, int *reps);

/* Fails (LS_ENOTFOUND) when the run has no rows passes of both kinds at one N >= 2, and
 * (LS_ERANGE) when N rows were not slower than one, or (with rows-0 passes) one row not
 * slower than none: no per-row or first-row cost was measured. A run without rows-0 passes
 * (made before they were measured) gives the per-row rate alone, has_first = 0. */
int ls_tbp_head_rate_get(const ls_tbm_result *r, double head_bytes, int median, ls_tbp_head_rate *out,
                         ls_error *err);
/* The same from the draft's rows passes (draft-rows, draft-rows-1, draft-rows-0), with the
 * draft's head bytes: the same kernel on a model whose passes the head dominates (in a probe
 * the first row was 15.4 ms of a 27.7 ms one-row pass of the draft, against some % of the
 * target's 0.55 s: src:testbed-run). The same errors. */
int ls_tbp_head_rate_draft_get(const ls_tbm_result *r, double draft_head_bytes, int median, ls_tbp_head_rate *out,
                               ls_error *err);

#endif
