/* sim/gnuplot: running gnuplot as a tool, never as the user's session.
 *
 * Every figure, plot and calibration chart is drawn by one call here:
 *  - gnuplot starts with -d (--default-settings): neither the system gnuplotrc nor the user's
 *    ~/.gnuplot runs, so a start-up file cannot change or hijack a figure;
 *  - its input is /dev/null; its output and messages go to a log file that is opened here,
 *    never through a symbolic link and only over a regular file, or to /dev/null;
 *  - it is killed when it runs longer than LS_GNUPLOT_LIMIT_S seconds
 *    (LEVERSIM_GNUPLOT_LIMIT=SECONDS changes it) or when a stop is asked (Ctrl-C): a gnuplot
 *    that never returns cannot hang leversim.
 * Images are written by gnuplot to a temporary file of sim/fileio (ls_file_out_release) and
 * renamed over the target only after it succeeded, so the output rule holds for them too. */
#ifndef LS_SIM_GNUPLOT_H
#define LS_SIM_GNUPLOT_H
#include <stddef.h>
#include "sim/error.h"

#define LS_GNUPLOT_LIMIT_S 120.0
#define LS_GNUPLOT_NOT_FOUND (-2) /* no such program */
#define LS_GNUPLOT_TIMED_OUT (-3) /* killed at the time limit or at a stop request */

/* The first executable called prog on $PATH (or prog itself when it holds a '/'), into buf
 * (size bytes; a path of any length up to it); NULL when there is none. */
const char *ls_gnuplot_find(const char *prog, char *buf, size_t size);

/* Runs `prog -d [-e vars] script` (vars may be NULL) as above, its output appended to log
 * (NULL: discarded). prog is found on $PATH when it has no '/' ("gnuplot" when NULL or "").
 * Returns gnuplot's exit status, -1 when it could not be started (or log is not a regular
 * file), LS_GNUPLOT_NOT_FOUND or LS_GNUPLOT_TIMED_OUT. */
int ls_gnuplot_run(const char *prog, const char *vars, const char *script, const char *log);

/* The time limit in seconds (LEVERSIM_GNUPLOT_LIMIT or LS_GNUPLOT_LIMIT_S). */
double ls_gnuplot_limit_s(void);
/* LS_EUSAGE naming LEVERSIM_GNUPLOT_LIMIT and its value when it is not a time limit
 * (checked when a command starts, runner/cli/main.c). */
int ls_gnuplot_env_check(ls_error *err);
#endif
