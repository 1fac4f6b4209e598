/* runner/cli/opts: one option table per command, which parses its command line, prints its
 * `--help` and writes its section of docs/CLI.md (`leversim help --markdown`), so the three
 * cannot disagree (docs/ARCHITECTURE.md, "Commands from tables").
 *
 * A command declares a const ls_cmd_spec: its name, positional arguments, a one-line summary,
 * a longer text, and a table of ls_opt, one line per option, each naming the field of the
 * command's own options struct it fills (offsetof). Adding an option is one line:
 *
 *   {"--seed", LS_OPT_LONG, OPT_AT(run_opts, seed), "N", "master seed", .lo = 0, .hi = INT32_MAX},
 *
 * Parsing rules (the same for every command):
 *  - `--name VALUE` and `--name=VALUE`; a flag takes no value; the last value given wins,
 *    except for the repeatable kinds (--set, MULTI, FILES), which collect every one;
 *  - an unknown option or a misspelt one is a usage error with the nearest name ("did you
 *    mean --device?"); so is an unknown value of a CHOICE option, a number outside its range
 *    and a missing required option or positional argument;
 *  - `--help` (or -h) anywhere prints the help and returns LS_OPTS_HELP, after checking only
 *    that every option name exists (values and positional counts are not checked, so a
 *    usage line with placeholders, `run --device D --help`, is valid: tests/cli "docs" runs
 *    every command line quoted in the docs this way). `--help=markdown` prints the Markdown
 *    section instead.
 * Usage errors print "leversim CMD: message" and "(see 'leversim CMD --help')" on stderr and
 * return LS_EUSAGE; callers turn statuses into exit codes with ls_opts_exit. */
#ifndef LS_RUNNER_CLI_OPTS_TABLE_H
#define LS_RUNNER_CLI_OPTS_TABLE_H
#include <stddef.h>
#include <stdio.h>
#include "sim/kv.h"

/* A table line names its first fields in order and the rest by designator (.lo, .key, ...);
 * the fields it leaves out are zero, as C defines. Tell GCC this is intended. */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef enum ls_opt_kind {
  LS_OPT_FLAG,    /* --name: the int field is set to 1 */
  LS_OPT_STR,     /* --name VALUE: the const char * field */
  LS_OPT_LONG,    /* --name N: the long field, a whole number in [lo, hi] */
  LS_OPT_CHOICE,  /* --name VALUE: the const char * field, one of .choices ("a,b,c") or of
                     .choice_at (a list that lives elsewhere, e.g. the systems) */
  LS_OPT_SET,     /* --set key=value, repeatable: into the command's ls_kv, its origin
                     "argument N (--set)" so later messages can point at it */
  LS_OPT_SETTING, /* --name N: a whole number in [lo, hi], stored as setting .key in the ls_kv
                     (origin "--name"); e.g. --prompts N is workload.prompts=N */
  LS_OPT_MULTI,   /* --name VALUE, repeatable: appended to the ls_opt_list field */
  LS_OPT_FILES,   /* --name FILE...: the following arguments up to the next option, appended
                     to the ls_opt_list field */
  LS_OPT_CALL     /* --name VALUE: .call(value, field) converts and checks it; returns NULL,
                     or the reason it is bad (static text) */
} ls_opt_kind;

#define LS_OPT_REQUIRED 1 /* ls_opt.flags: the option must be given */

/* The offset of field in the command's options struct: the ls_opt.off of a table line. */
#define OPT_AT(type, field) offsetof(type, field)

typedef struct ls_opt {
  const char *name;           /* "--device"; NULL ends the table */
  ls_opt_kind kind;
  size_t off;                 /* OPT_AT(options struct, field); unused by SET and SETTING */
  const char *meta;           /* the value's placeholder in help ("D", "N", "FILE"); NULL for flags */
  const char *help;           /* one line, shown in --help and docs/CLI.md */
  long lo, hi;                /* LONG and SETTING: the accepted range */
  const char *key;            /* SETTING: the setting the value goes to */
  const char *choices;        /* CHOICE: "csv,json,table" */
  const char *(*choice_at)(int i); /* CHOICE: the i-th valid name, NULL past the last */
  const char *(*call)(const char *value, void *field); /* CALL */
  int flags;                  /* LS_OPT_REQUIRED */
  int range;                  /* LONG and SETTING: LS_OPT_RANGE(row) takes lo and hi from that row of
                                 sim/range.h, the table every file and --set is read against */
} ls_opt;
/* ls_opt.range of a row (0 stays "use .lo and .hi"). */
#define LS_OPT_RANGE(id) ((int)(id) + 1)

/* Values of a repeatable option or the positional arguments, borrowed from argv. */
#define LS_OPT_LIST_MAX 1024
typedef struct ls_opt_list {
  const char *v[LS_OPT_LIST_MAX];
  int n;
} ls_opt_list;

typedef struct ls_cmd_spec {
  const char *name;     /* as typed after leversim: "run", "bench cycle" */
  const char *args;     /* positional arguments in the usage line ("EXPERIMENT.yaml"), or NULL */
  int min_args, max_args; /* how many positionals (max -1: any number) */
  size_t args_off;      /* OPT_AT of the ls_opt_list that receives them (when max_args != 0) */
  const char *summary;  /* one line: what the command does */
  const char *about;    /* more text after the options (may be NULL) */
  void (*more)(FILE *f); /* prints a list that lives elsewhere (figure names, views); may be NULL */
  const ls_opt *opts;   /* the table, ended by a line whose name is NULL */
} ls_cmd_spec;

/* The status of a parse that printed the help: not an error, the command stops with exit 0. */
#define LS_OPTS_HELP 1

/* Parses argv[1..argc-1] (argv[0] is the command's own name) by spec into dst (the command's
 * options struct, whose other fields keep the defaults the caller set) and kv (for SET and
 * SETTING options; NULL when the table has none). Returns LS_OK, LS_OPTS_HELP after printing
 * the help, or LS_EUSAGE after printing a usage error (LS_ESTATE for a table this parser
 * cannot serve: more than 64 options, or SET/SETTING lines without a kv). */
int ls_opts_parse(const ls_cmd_spec *spec, int argc, char **argv, void *dst, ls_kv *kv);
/* The exit status for a status of ls_opts_parse (or any LS_* status): 0 for LS_OPTS_HELP. */
int ls_opts_exit(int status);

/* The help of spec: usage lines, summary, options, more text. */
void ls_opts_help(const ls_cmd_spec *spec, FILE *f);
/* The Markdown section of spec for docs/CLI.md. */
void ls_opts_markdown(const ls_cmd_spec *spec, FILE *f);
/* spec's arm of the bash completion script (`leversim help --completion bash`): --help=bash. */
void ls_opts_bash(const ls_cmd_spec *spec, FILE *f);
/* spec's section of the man page (`leversim help --man`), troff: --help=man. */
void ls_opts_man(const ls_cmd_spec *spec, FILE *f);

/* The name among names[0..n-1] nearest to word by edit distance, if close enough to be a
 * likely typo (at most a third of its length, plus one), else NULL. Borrowed. */
const char *ls_opts_nearest(const char *word, const char *const *names, int n);

/* A command with subcommands (profiles, devices, trace, bench) or the top level: one line
 * each in a table ended by a NULL name. */
typedef struct ls_subcmd {
  const char *name;
  int (*fn)(int argc, char **argv); /* argv[0] is the subcommand's name; returns the exit status */
  const char *summary;
} ls_subcmd;

/* Dispatches argv[1] of command cmd to its subcommand; prints the list for --help (exit 0)
 * or when none is given (usage error), the Markdown of every subcommand for --help=markdown,
 * and "did you mean" for a misspelt one. Returns the exit status. */
int ls_opts_group(const char *cmd, const char *summary, const ls_subcmd *subs, int argc, char **argv);

#endif
