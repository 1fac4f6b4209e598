/* tests/cli/test_opts: the option-table parser (runner/cli/opts.h) on a table of every kind:
 * range edges, both value forms, repeatable kinds, positionals, required options, help mode
 * (names checked, values not), the messages and their suggestions. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ls_test.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"

typedef struct t_opts {
  ls_opt_list pos, multi, files;
  const char *str, *choice;
  long n;
  int flag, pair[2];
} t_opts;

static const char *pair(const char *v, void *field)
{
  int *p = field;
  char tail;
  return sscanf(v, "%d/%d%c", &p[0], &p[1], &tail) == 2 ? NULL : "expected i/N";
}

static const ls_opt T_OPTS[] = {
    {"--str", LS_OPT_STR, OPT_AT(t_opts, str), "S", "a string", .flags = LS_OPT_REQUIRED},
    {"--num", LS_OPT_LONG, OPT_AT(t_opts, n), "N", "a number", .lo = -3, .hi = 7},
    {"--flag", LS_OPT_FLAG, OPT_AT(t_opts, flag), NULL, "a flag"},
    {"--format", LS_OPT_CHOICE, OPT_AT(t_opts, choice), "F", "a choice", .choices = "csv,json,table"},
    {"--set", LS_OPT_SET, 0, "key=value", "a setting"},
    {"--prompts", LS_OPT_SETTING, 0, "N", "a setting shorthand", .lo = 1, .hi = 10, .key = "workload.prompts"},
    {"--multi", LS_OPT_MULTI, OPT_AT(t_opts, multi), "V", "repeatable"},
    {"--files", LS_OPT_FILES, OPT_AT(t_opts, files), "FILE", "a file list"},
    {"--pair", LS_OPT_CALL, OPT_AT(t_opts, pair), "i/N", "converted by a function", .call = pair},
    {NULL}};

static const ls_cmd_spec T = {"test", "A [B]", 1, 2, OPT_AT(t_opts, pos), "a test command", "More text.\n", NULL,
                              T_OPTS};

static char g_err[8192];

/* Parses the words of line (split at spaces) with stderr captured into g_err; kv NULL: a
 * scratch one. */
static int parse_with(const char *line, t_opts *o, ls_kv *kv);
static int parse(const char *line, t_opts *o, ls_kv *kv)
{
  ls_kv *own = NULL;
  if (!kv && ls_kv_create(&own, NULL) != LS_OK)
    return LS_ENOMEM;
  int rc = parse_with(line, o, kv ? kv : own);
  ls_kv_free(own);
  return rc;
}

static int parse_with(const char *line, t_opts *o, ls_kv *kv)
{
  char buf[1024], *argv[64];
  int argc = 0;
  snprintf(buf, sizeof buf, "test %s", line);
  for (char *w = strtok(buf, " "); w && argc < 63; w = strtok(NULL, " "))
    argv[argc++] = w;
  argv[argc] = NULL;
  memset(o, 0, sizeof *o);
  char path[] = "/tmp/leversim-opts-XXXXXX";
  int fd = mkstemp(path), saved = dup(2);
  fflush(stderr);
  dup2(fd, 2);
  int out = dup(1), null = open("/dev/null", O_WRONLY);
  fflush(stdout);
  dup2(null, 1); /* --help's text */
  int rc = ls_opts_parse(&T, argc, argv, o, kv);
  fflush(stderr);
  fflush(stdout);
  dup2(saved, 2);
  dup2(out, 1);
  close(saved);
  close(out);
  close(null);
  ssize_t n = pread(fd, g_err, sizeof g_err - 1, 0);
  g_err[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
  return rc;
}

static void test_ranges(void)
{
  t_opts o;
  CU_ASSERT_EQUAL(parse("a --str s --num -3", &o, NULL), LS_OK);
  CU_ASSERT_EQUAL(o.n, -3);
  CU_ASSERT_EQUAL(parse("a --str s --num 7", &o, NULL), LS_OK);
  CU_ASSERT_EQUAL(o.n, 7);
  CU_ASSERT_EQUAL(parse("a --str s --num=5", &o, NULL), LS_OK);
  CU_ASSERT_EQUAL(o.n, 5);
  const char *bad[] = {"-4", "8", "x", "5x", "", "99999999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char line[128];
    snprintf(line, sizeof line, "a --str s --num=%s", bad[i]);
    CU_ASSERT_EQUAL(parse(line, &o, NULL), LS_EUSAGE);
    CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "leversim test: --num: bad value"));
    CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "(expected a whole number in [-3, 7])"));
  }
  CU_ASSERT_EQUAL(parse("a --str s --num", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--num needs a value"));
  CU_ASSERT_EQUAL(ls_opts_exit(LS_EUSAGE), 64);
  CU_ASSERT_EQUAL(parse_with("a --str s", &o, NULL), LS_ESTATE); /* --set without a kv */
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "internal error: --set needs the command's settings"));
  CU_ASSERT_EQUAL(ls_opts_exit(LS_OPTS_HELP), 0);
}

static void test_kinds(void)
{
  t_opts o;
  ls_kv *kv = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, NULL), LS_OK);
  CU_ASSERT_EQUAL(parse("a b --str=x=y --flag --format json --set draft.budget=8 --prompts 3 --multi 1 --multi 2 "
                        "--files f1 f2 --pair 2/3",
                        &o, kv),
                  LS_OK);
  CU_ASSERT_STRING_EQUAL(o.str, "x=y");
  CU_ASSERT_EQUAL(o.flag, 1);
  CU_ASSERT_STRING_EQUAL(o.choice, "json");
  CU_ASSERT_STRING_EQUAL(ls_kv_origin_of(kv, "draft.budget"), "argument 9 (--set)");
  CU_ASSERT_STRING_EQUAL(ls_kv_value(kv, 1), "3"); /* keys sorted: draft.budget, workload.prompts */
  CU_ASSERT_STRING_EQUAL(ls_kv_origin_of(kv, "workload.prompts"), "--prompts");
  CU_ASSERT_EQUAL(o.multi.n, 2);
  CU_ASSERT_EQUAL(o.files.n, 2);
  CU_ASSERT_STRING_EQUAL(o.files.v[1], "f2");
  CU_ASSERT_EQUAL(o.pair[0], 2);
  CU_ASSERT_EQUAL(o.pair[1], 3);
  CU_ASSERT_EQUAL(o.pos.n, 2);
  CU_ASSERT_STRING_EQUAL(o.pos.v[0], "a");
  ls_kv_free(kv);
  CU_ASSERT_EQUAL(parse("a --str s --flag=1", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--flag takes no value"));
  CU_ASSERT_EQUAL(parse("a --str s --files --flag", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--files needs at least one FILE"));
  CU_ASSERT_EQUAL(parse("a --str s --pair 2", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--pair: bad value '2' (expected i/N)"));
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, NULL), LS_OK);
  CU_ASSERT_EQUAL(parse("a --str s --prompts 11", &o, kv), LS_EUSAGE);
  CU_ASSERT_EQUAL(ls_kv_count(kv), 0);
  CU_ASSERT_EQUAL(parse("a --str s --set nokey", &o, kv), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "argument 6 (--set)"));
  ls_kv_free(kv);
}

static void test_names_suggested(void)
{
  t_opts o;
  CU_ASSERT_EQUAL(parse("a --str s --fromat csv", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "unknown option '--fromat' (did you mean --format?)"));
  CU_ASSERT_EQUAL(parse("a --str s --zzzzzz", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "unknown option '--zzzzzz'\n"));
  CU_ASSERT_EQUAL(parse("a --str s --format jsn", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--format: unknown value 'jsn', did you mean json? (expected one of: csv, json, table)"));
  const char *names[] = {"run", "sweep", "reproduce"};
  CU_ASSERT_STRING_EQUAL(ls_opts_nearest("swep", names, 3), "sweep");
  CU_ASSERT_PTR_NULL(ls_opts_nearest("zzz", names, 3));
  const char *subs[] = {"list", "show", "validate"};
  CU_ASSERT_STRING_EQUAL(ls_opts_nearest("shwo", subs, 3), "show"); /* a swap is one typo */
  CU_ASSERT_STRING_EQUAL(ls_opts_nearest("valdiate", subs, 3), "validate");
  CU_ASSERT_PTR_NULL(ls_opts_nearest("owhs", subs, 3));
}

static void test_required_and_positionals(void)
{
  t_opts o;
  CU_ASSERT_EQUAL(parse("a", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "--str is required"));
  CU_ASSERT_EQUAL(parse("--str s", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "missing argument: expected A [B]"));
  CU_ASSERT_EQUAL(parse("a b c --str s", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "unexpected argument 'c' (expected A [B])"));
  CU_ASSERT_EQUAL(parse("- --str s", &o, NULL), LS_OK); /* a lone '-' is a value (stdout) */
}

/* --help anywhere: names are checked, values and counts are not, so a usage line with
 * placeholders is valid; a name that does not exist is not. */
static void test_help_mode(void)
{
  t_opts o;
  CU_ASSERT_EQUAL(parse("--num N --pair x --files --help", &o, NULL), LS_OPTS_HELP);
  CU_ASSERT_EQUAL(parse("A B C --format F --help", &o, NULL), LS_OPTS_HELP);
  CU_ASSERT_EQUAL(parse("--tolerance X --help", &o, NULL), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(g_err, "unknown option '--tolerance'"));
  char *h = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&h, &n);
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  ls_opts_help(&T, f);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "usage: leversim test A [B] --str S [--num N] [--flag]"));
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "[--set key=value]..."));
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "  --num N                a number; a whole number in [-3, 7]\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "More text."));
  free(h);
  f = open_memstream(&h, &n);
  ls_opts_markdown(&T, f);
  fclose(f);
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "## leversim test\n"));
  CU_ASSERT_PTR_NOT_NULL(strstr(h, "| `--format F` | a choice; one of csv, json, table |"));
  free(h);
}

CU_TestInfo ls_cli_opts_tests[] = {
    {"whole numbers: both range edges, both forms", test_ranges},
    {"every kind of option", test_kinds},
    {"misspelt names and values are suggested", test_names_suggested},
    {"required options and positional counts", test_required_and_positionals},
    {"--help checks names only; help and Markdown text", test_help_mode},
    CU_TEST_INFO_NULL};
