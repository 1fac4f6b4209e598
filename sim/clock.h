/* sim/clock: the host's monotonic wall clock, for progress reports, run wall times and
 * benchmarks. Simulated time never comes from here (sim/engine keeps its own integer clock),
 * so nothing a run computes depends on this value. */
#ifndef LS_SIM_CLOCK_H
#define LS_SIM_CLOCK_H
#include "sim/error.h"

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double ls_now_s(void);

/* A time limit from environment variable name, in seconds: def when unset or empty, else the
 * whole value read as a number in [0, hi] (0 only when zero_ok; "60", "0.5", "1e3").
 * LS_EUSAGE naming the variable and its value otherwise (*out is def then): a bad value in
 * the environment is refused like one on the command line, never replaced silently. */
int ls_env_seconds(const char *name, double def, double hi, int zero_ok, double *out,
                   ls_error *err);

#endif
