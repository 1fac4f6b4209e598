/* tests/runner: what the runner's test files share (test_runner.c holds main and these). */
#ifndef LS_TESTS_RUNNER_RTEST_H
#define LS_TESTS_RUNNER_RTEST_H
#include <CUnit/CUnit.h>
#include "runner/decode/decode.h"

/* Runs one configuration with seed 7 on the data under root, settings "k=v;k=v";
 * keep_steps: fill res->steps. Returns the status of ls_decode_run. */
int ls_rt_run(const char *root, const char *dev, const char *model, const char *ds, const char *sys,
              const char *settings, int keep_steps, ls_decode_result *res);
/* A metric of a run (a test failure when absent). */
double ls_rt_metric(const ls_decode_result *r, const char *name);

extern CU_TestInfo ls_rt_invariants[]; /* invariants.c */
extern CU_TestInfo ls_rt_phases[];     /* phases.c */
extern CU_SuiteInfo ls_rt_studies_suite; /* studies.c */
extern CU_SuiteInfo ls_rt_uncertainty_suite; /* uncertainty.c */
#endif
