/* runner/testbed/validate: the comparison behind 'leversim testbed validate': the simulator's
 * device models, with a profile calibrated from the warm rows and fio only, predict every
 * held-out measurement of a testbed run (runner/testbed/calfit); measured vs predicted is
 * printed, stored (runner/testbed/tbdb, table tb_prediction, view tb_error) and drawn
 * (gnuplot: predicted against measured, the y = x line, one colour per kind). */
#ifndef LS_RUNNER_TESTBED_VALIDATE_H
#define LS_RUNNER_TESTBED_VALIDATE_H
#include <stdio.h>
#include "sim/error.h"

typedef struct ls_tbv_options {
  const char *db;        /* the run's database (required) */
  const char *profile;   /* a profile id or file (required) */
  const char *run;       /* run id; NULL: the latest */
  const char *plot_dir;  /* NULL: no figure; else DIR/testbed-validation.png */
  const char *fio_mmap;  /* fio mmap jobs: kernel CPU per byte mapped in; NULL: none */
  int serial;            /* 1: the serial read assumption instead of read-ahead */
  double readahead;      /* read-ahead window, bytes; 0: as measured with the run */
  int median;            /* 1: a point's value is the median of its repetitions; 0: the fastest */
  int no_io_share;       /* 1: ignore the run's busy streams (io_cpu_share 0, the model before them) */
  int no_head_serial;    /* 1: ignore the run's cold rows passes (the head's compute overlaps its reads) */
  int match;             /* 1 (median 0): the stream and busy streams at the expected fastest of as many
                          * repetitions as a cold point has (ls_tbp_fastest_of), not the fastest of all */
  int io_arith;          /* 1: the share of the arithmetic busy streams even when the run has memory-bound
                          * ones (by default those, the closer kin of a matmul's work) */
  int io_pass;           /* 1: the share from the run's cold pass without output rows (ls_tbp_io_share_pass_fit) */
  int no_start;          /* 1: no wait at a cold pass's start (ls_tbp_start_fit not used) */
  int io_delay;          /* 1: the busy streams described by a delay per window, not a share */
  int io_every;          /* 1: the share slows every read that overlaps compute (the rule of §3.10), not
                          * only a read the thread waits for (devices/mapread.h, share_waited) */
  const char *points;    /* NULL: none; else the held-out points written there for the protocol
                          * (runner/testbed/protocol.h): kind, N, ctx, measured, predicted, the trivial
                          * model's prediction, whether a near-copy of a calibration pass */
  const char *host_profile; /* NULL: none; else the profile with a host section holding what this
                             * validation fitted (devices/device.h, ls_device_host) written there:
                             * mapped reads only, without the busy share */
  int no_contention;     /* 1: no read path's work beside a compute on every core (ls_tbp_contention_fit not used) */
} ls_tbv_options;

/* Prints the comparison to out, stores it, draws it; beside it the trivial model's errors per kind
 * (cold = max(warm fit, the file's stream) + one constant from the cold calibration passes; warm =
 * the warm fit). *met: the targets (median
 * absolute error of held-out points <= 10 %, every kind's mean <= 20 %, spec <= 10 %). */
int ls_tbv_run(const ls_tbv_options *o, FILE *out, int *met, ls_error *err);

/* The output projection's streaming rate from the run's rows passes (ls_tbp_head_rate_get; the
 * head's bytes from the run's target model), printed as one profile line for the cpu section,
 * `  head_bandwidth: <rate> GB/s  # src:testbed-run: <which passes and the arithmetic>`, and,
 * when the run has rows-0 passes, a second line for the first row's rate,
 * `  head_first_bandwidth: <rate> GB/s  # src:testbed-run: ...`, for
 * scripts/testbed/run.sh to put into the base profile before calibrating. run NULL: the
 * latest; median: the statistic of the repetitions (0: fastest). */
int ls_tbv_head_rate(const char *db, const char *run, int median, FILE *out, ls_error *err);

#endif
