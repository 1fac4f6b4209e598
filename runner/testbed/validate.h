/* runner/testbed/validate: 'leversim testbed validate': the simulator's device models, with a
 * profile calibrated from the warm rows and fio only, predict every held-out measurement of a
 * testbed run (runner/testbed/predict); measured vs predicted is printed, stored
 * (runner/testbed/tbdb) and drawn (gnuplot: predicted against measured, the y = x line, one
 * colour per kind). */
#ifndef LS_RUNNER_TESTBED_VALIDATE_H
#define LS_RUNNER_TESTBED_VALIDATE_H

/* argv[0] is "validate". Returns the process exit status. */
int ls_tbv_command(int argc, char **argv);

#endif
