/* sim/clock: the host's monotonic wall clock, for progress reports, run wall times and
 * benchmarks. Simulated time never comes from here (sim/engine keeps its own integer clock),
 * so nothing a run computes depends on this value. */
#ifndef LS_SIM_CLOCK_H
#define LS_SIM_CLOCK_H

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double ls_now_s(void);

#endif
