/* runner/testbed/testbed: 'leversim testbed', the sim-to-real check (docs/VALIDATION.md):
 *   model     writes a random-weight Q4_0 GGUF of a workloads/models shape (runner/testbed/gguf)
 *             and, for a scaled shape, a model YAML the simulator costs it by;
 *   measure   times a real llama.cpp on it (runner/testbed/measure) into SQLite
 *             (runner/testbed/tbdb) and the warm rows as llama-bench CSV (runner/testbed/benchcsv);
 *   validate  predicts every held-out measurement with a calibrated profile
 *             (runner/testbed/predict), prints and stores measured vs predicted, draws the figure. */
#ifndef LS_RUNNER_TESTBED_TESTBED_H
#define LS_RUNNER_TESTBED_TESTBED_H

/* argv[0] is "testbed". Returns the process exit status. */
int ls_cmd_testbed(int argc, char **argv);

#endif
