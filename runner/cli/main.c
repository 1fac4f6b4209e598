/* leversim: command-line entry point. Dispatches git-style subcommands (runner/cli/commands.h). */
#include <gsl/gsl_errno.h>
#include <stdio.h>
#include <string.h>
#include "ls_version.h"
#include "runner/cli/commands.h"

typedef struct {
  const char *name;
  int (*fn)(int, char **);
  const char *summary;
} command;

static const command COMMANDS[] = {
    {"run", ls_cmd_run, "simulate one device/model/dataset/system configuration"},
    {"sweep", ls_cmd_sweep, "run an experiment file (matrix x sweep axes) into SQLite"},
    {"reproduce", ls_cmd_reproduce, "replay the paper (runner/experiments/paper.yaml), figures, summary"},
    {"figures", ls_cmd_figures, "redraw the paper's figures from a results database"},
    {"plot", ls_cmd_plot, "draw any metric against any setting of a database, 95 % intervals"},
    {"tree", ls_cmd_tree, "build and print one draft tree with a policy"},
    {"check", ls_cmd_check, "compare speedup ratios against a committed baseline (exit 2 on regression)"},
    {"export", ls_cmd_export, "export a results view to CSV or JSON"},
    {"merge", ls_cmd_merge, "merge sharded result databases"},
    {"profiles", ls_cmd_profiles, "list, show or validate device profiles"},
    {"devices", ls_cmd_devices, "device-model queries (verification latency curve)"},
    {"trace", ls_cmd_trace, "record or inspect draft/target traces"},
    {"settings", ls_cmd_settings, "list every setting key: default, unit, range, which systems read it"},
    {"bench", ls_cmd_bench, "micro-benchmarks: engine, cycle, policies"},
    {"calibrate", ls_cmd_calibrate, "fit a device profile to llama-bench and fio measurements"},
};

/* The exit statuses: this one table is printed by --help and quoted word for word in the
 * README's "Exit codes" bullet (tests/cli checks that the two agree). sim/error.h maps every
 * status code onto it (ls_status_exit). */
static const char EXIT_TABLE[] =
    "0 ok, 1 a run failed, 2 regression found, 64 usage error, 65 bad input data,\n"
    "66 input not found, 70 internal error, 74 I/O or database error, 130 interrupted.\n"
    "A bad value typed on the command line (an option, --set) is a usage error (64); the same\n"
    "value read from a file (experiment, profile, model, dataset, trace) is bad input data (65).\n"
    "A wrong name (command, option, setting key, system) is 64 wherever it is written; a\n"
    "device, model or dataset whose file is missing, or a missing input file, is 66. A full disk\n"
    "is 74; a worker killed by a signal is 70; SIGINT or SIGTERM stops a sweep with 130.\n";

static void usage(FILE *f)
{
  fprintf(f, "usage: leversim <command> [options]\n       leversim --help | --version\n\ncommands:\n");
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    fprintf(f, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
  fprintf(f, "\n'leversim <command> --help' describes a command.\n\nexit status: %s", EXIT_TABLE);
}

int main(int argc, char **argv)
{
  /* GSL must report errors through return codes, never abort the process. */
  gsl_set_error_handler_off();
  if (argc < 2) {
    usage(stderr);
    return 64;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("leversim %s (git %s)\n", LS_VERSION, LS_GIT_SHA);
    return 0;
  }
  for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
    if (strcmp(argv[1], COMMANDS[i].name) == 0)
      return COMMANDS[i].fn(argc - 1, argv + 1);
  fprintf(stderr, "leversim: unknown command '%s'\n\n", argv[1]);
  usage(stderr);
  return 64;
}
