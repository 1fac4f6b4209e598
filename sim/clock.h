/* sim/clock: the host's monotonic wall clock, for progress reports, run wall times and
 * benchmarks. Simulated time never comes from here (sim/engine keeps its own integer clock),
 * so nothing a run computes depends on this value. */
#ifndef LS_SIM_CLOCK_H
#define LS_SIM_CLOCK_H
#include "sim/error.h"

/* Seconds since an arbitrary fixed point (CLOCK_MONOTONIC). */
double ls_now_s(void);

/* A time limit from environment variable l->name, in seconds: l->def when unset or empty, else the
 * whole value read as a number in [0, hi] (0 only when zero_ok; "60", "0.5", "1e3").
 * LS_EUSAGE naming the variable and its value otherwise (*out is def then): a bad value in
 * the environment is refused like one on the command line, never replaced silently. */
typedef struct ls_env_limit {
  const char *name; /* the environment variable */
  double def, hi;   /* its default and largest value, s */
  int zero_ok;      /* 1: 0 is a value (no limit, or no wait) */
} ls_env_limit;
int ls_env_seconds(const ls_env_limit *l, double *out, ls_error *err);
/* The same limit where a refusal can no longer be said: the default on a bad value. Only for
 * code that runs after the command checked the variable at its start (runner/cli/main.c). */
double ls_env_seconds_or_default(const ls_env_limit *l);

#endif
