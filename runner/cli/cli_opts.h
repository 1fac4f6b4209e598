/* runner/cli/cli_opts: helpers shared by the subcommands besides option parsing (which is the
 * option tables' job, runner/cli/opts.h): the resume hint, the program's name, the list of
 * systems for a CHOICE option, a qsort comparator. */
#ifndef LS_RUNNER_CLI_OPTS_H
#define LS_RUNNER_CLI_OPTS_H
#include <stddef.h>
#include "runner/cli/opts.h"
#include "sim/kv.h"

/* The name the user ran the binary by (argv[0] of the process, e.g. "build/leversim";
 * "leversim" where the C library does not keep it). Borrowed. */
const char *ls_cli_program(void);
/* The command that resumes an interrupted one: prog and the command's own arguments (argv[0]
 * is the subcommand), quoted for a shell where needed, plus --resume unless present. Every
 * original flag (--jobs, --db, --shard, --set, --quick) is kept. Written into buf. */
const char *ls_resume_hint(char *buf, size_t size, const char *prog, int argc, char **argv);
/* The i-th system name (runner/decode/system.h), NULL past the last: ls_opt.choice_at of
 * --system. */
const char *ls_cli_system_at(int i);
/* Monotonic wall clock in seconds: ls_now_s (sim/clock.h). */
#include "sim/clock.h"
/* A policy set with the built-ins and the plug-ins files names (--plugin FILE, repeatable),
 * loaded in order; *out owned by the caller (ls_policy_set_free). */
#include "policies/plugin.h"
int ls_cli_plugins(const ls_opt_list *files, ls_policy_set **out, ls_error *err);
/* The help line of every --plugin option. */
#define LS_CLI_PLUGIN_HELP "load policies from this plug-in (repeatable; docs/POLICIES.md)"
/* qsort comparator of doubles, ascending. */
int ls_cmp_double(const void *a, const void *b);

#endif
