/* runner/cli/commands: the leversim subcommands. Each takes the arguments after its own name
 * (argv[0] is the subcommand name), parses them with its option table (runner/cli/opts.h) and
 * returns the process exit status, always from the one table in sim/error.h through
 * ls_status_exit or ls_opts_exit (docs/ARCHITECTURE.md, "Exit codes"). main.c checks stdout
 * after every command. */
#ifndef LS_RUNNER_COMMANDS_H
#define LS_RUNNER_COMMANDS_H

int ls_cmd_run(int argc, char **argv);        /* runner/cli/cmd_run.c */
int ls_cmd_sweep(int argc, char **argv);      /* runner/cli/cmd_sweep.c */
int ls_cmd_reproduce(int argc, char **argv);  /* runner/cli/cmd_reproduce.c */
int ls_cmd_figures(int argc, char **argv);    /* runner/cli/cmd_figures.c */
int ls_cmd_plot(int argc, char **argv);       /* runner/cli/cmd_plot.c */
int ls_cmd_tree(int argc, char **argv);       /* runner/cli/cmd_tree.c */
int ls_cmd_check(int argc, char **argv);      /* runner/cli/cmd_results.c */
int ls_cmd_export(int argc, char **argv);     /* runner/cli/cmd_results.c */
int ls_cmd_merge(int argc, char **argv);      /* runner/cli/cmd_results.c */
int ls_cmd_profiles(int argc, char **argv);   /* runner/cli/cmd_profiles.c */
int ls_cmd_workloads(int argc, char **argv);  /* runner/cli/cmd_workloads.c */
int ls_cmd_devices(int argc, char **argv);    /* runner/cli/cmd_devices.c */
int ls_cmd_trace(int argc, char **argv);      /* runner/cli/cmd_trace.c */
int ls_cmd_bench(int argc, char **argv);      /* runner/cli/cmd_bench.c */
int ls_cmd_settings(int argc, char **argv);   /* runner/cli/cmd_settings.c */
int ls_cmd_uncertainty(int argc, char **argv); /* runner/cli/cmd_uncertainty.c */
int ls_cmd_calibrate(int argc, char **argv);  /* runner/cli/cmd_calibrate.c */
int ls_cmd_testbed(int argc, char **argv);    /* runner/cli/cmd_testbed.c */
int ls_cmd_policy(int argc, char **argv);     /* runner/cli/cmd_policy.c */
int ls_cmd_best(int argc, char **argv);       /* runner/cli/cmd_best.c */

/* Bench parts, called by ls_cmd_bench. */
int ls_bench_engine(int argc, char **argv);   /* runner/cli/bench_engine.c */
int ls_bench_policies(int argc, char **argv); /* runner/cli/bench_policies.c */
int ls_bench_cycle(int argc, char **argv);    /* runner/cli/bench_cycle.c */

/* Data folders resolve against ls_data_root() (runner/decode/paths.h). */
#include "runner/decode/paths.h"

/* Prints "leversim <cmd>: <msg>" for a usage error and returns its exit status,
 * ls_status_exit(LS_EUSAGE). */
int ls_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
