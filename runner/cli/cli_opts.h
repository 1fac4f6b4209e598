/* runner/cli_opts: small option-parsing helpers shared by the subcommands. */
#ifndef LS_RUNNER_CLI_OPTS_H
#define LS_RUNNER_CLI_OPTS_H
#include <stddef.h>
#include "sim/kv.h"

/* If argv[*i] is `name`, stores the next argument in *val, advances *i and returns 1;
 * returns -1 when the value is missing (after printing a usage error), else 0. */
int ls_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val);
/* Parses a whole number in [lo, hi]; returns 0 or prints a usage error and returns -1. */
int ls_opt_long(const char *cmd, const char *name, const char *text, long lo, long hi, long *out);
/* Adds "--set key=value" to kv, its origin the position of the value among the command's
 * arguments (argpos, 1-based), so later messages can point at it; 0 or -1 after printing the
 * error. */
int ls_opt_set(const char *cmd, ls_kv *kv, const char *assignment, int argpos);
/* The command that resumes an interrupted one: "leversim" and the command's own arguments
 * (argv[0] is the subcommand), quoted for a shell where needed, plus --resume unless present.
 * Every original flag (--jobs, --db, --shard, --set, --quick) is kept. Written into buf. */
const char *ls_resume_hint(char *buf, size_t size, int argc, char **argv);
/* Monotonic wall clock in seconds: ls_now_s (sim/clock.h). */
#include "sim/clock.h"
/* qsort comparator of doubles, ascending. */
int ls_cmp_double(const void *a, const void *b);

#endif
