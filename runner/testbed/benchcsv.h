/* runner/testbed/benchcsv: writes the testbed's warm passes as llama-bench CSV (`-o csv`:
 * a bare header line, every value in double quotes; field names and meanings as llama-bench
 * writes them, src:llamacpp-bench), so `leversim calibrate --llama-bench` reads them
 * unchanged. One row per warm prompt length (n_prompt N, n_gen 0) and one tg row (n_prompt
 * 0, n_gen G); avg_ts and stddev_ts are the mean and standard deviation of N / t over the
 * repetitions, avg_ns and stddev_ns those of t, as llama-bench computes them, each deviation
 * at least the machine's run-to-run scatter (benchcsv.c). t is the pass's
 * time on an uncontended machine (ls_llamadrv_cost.time_s). */
#ifndef LS_RUNNER_TESTBED_BENCHCSV_H
#define LS_RUNNER_TESTBED_BENCHCSV_H
#include "runner/testbed/measure.h"

/* model_filename is written as given (calibrate maps it to a workloads/models id by its
 * letters and digits). Every write checked: LS_EIO names the path. */
int ls_benchcsv_write(const char *path, const ls_tbm_result *r, const char *model_filename, int threads,
                      ls_error *err);

#endif
