/* runner/cli/cli_util: helpers shared by the subcommands (usage errors, the program's name,
 * the resume hint). */
#define _GNU_SOURCE /* program_invocation_name: argv[0], kept by glibc and musl */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/decode/system.h"

int ls_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "leversim %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'leversim %s --help')\n", cmd);
  va_end(ap);
  return ls_status_exit(LS_EUSAGE);
}

const char *ls_cli_program(void)
{
#if defined(__GLIBC__) || defined(__linux__)
  if (program_invocation_name && program_invocation_name[0])
    return program_invocation_name;
#endif
  return "leversim";
}

const char *ls_cli_system_at(int i)
{
  const ls_system *s = ls_system_all();
  for (int k = 0; k < i && s->name; k++)
    s++;
  return s->name;
}

/* A word a POSIX shell reads back unchanged: as is when it has only safe characters, else in
 * single quotes (a quote inside written as '\''). */
static size_t shell_word(char *buf, size_t size, size_t n, const char *w, const char *sep)
{
  int safe = w[0] != '\0';
  for (const char *c = w; *c; c++)
    safe &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr("_./:=,@%+-", *c) != NULL;
  if (safe)
    return n + (size_t)snprintf(buf + n, size > n ? size - n : 0, "%s%s", sep, w);
  n += (size_t)snprintf(buf + n, size > n ? size - n : 0, "%s'", sep);
  for (const char *c = w; *c; c++)
    n += (size_t)snprintf(buf + n, size > n ? size - n : 0, *c == '\'' ? "'\\''" : "%c", *c);
  return n + (size_t)snprintf(buf + n, size > n ? size - n : 0, "'");
}

const char *ls_resume_hint(char *buf, size_t size, const char *prog, int argc, char **argv)
{
  size_t n = shell_word(buf, size, 0, prog, "");
  int has_resume = 0;
  for (int i = 0; i < argc; i++) {
    n = shell_word(buf, size, n, argv[i], " ");
    has_resume |= strcmp(argv[i], "--resume") == 0;
  }
  if (!has_resume)
    n += (size_t)snprintf(buf + n, size > n ? size - n : 0, " --resume");
  if (n >= size) /* never print a cut command: it would run something else */
    snprintf(buf, size, "the same command with --resume");
  return buf;
}

int ls_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int ls_cli_plugins(const ls_opt_list *files, ls_policy_set **out, ls_error *err)
{
  int rc = ls_policy_set_create(out, err);
  for (int i = 0; rc == LS_OK && files && i < files->n; i++)
    rc = ls_policy_set_load(*out, files->v[i], err);
  return rc;
}
