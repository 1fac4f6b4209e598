/* runner/cli/cli_util: helpers shared by the subcommands (usage errors, option values, the resume hint). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "runner/cli/commands.h"

int ls_usage_error(const char *cmd, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "leversim %s: ", cmd);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'leversim %s --help')\n", cmd);
  va_end(ap);
  return 64;
}

#include <errno.h>
#include <string.h>
#include "runner/cli/cli_opts.h"

int ls_opt_value(const char *cmd, int argc, char **argv, int *i, const char *name, const char **val)
{
  if (strcmp(argv[*i], name) != 0)
    return 0;
  if (*i + 1 >= argc) {
    ls_usage_error(cmd, "%s needs a value", name);
    return -1;
  }
  *val = argv[++*i];
  return 1;
}

int ls_opt_long(const char *cmd, const char *name, const char *text, long lo, long hi, long *out)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (end == text || *end || errno == ERANGE || v < lo || v > hi) {
    ls_usage_error(cmd, "%s: bad value '%s' (expected a whole number in [%ld, %ld])", name, text, lo, hi);
    return -1;
  }
  *out = v;
  return 0;
}

int ls_opt_set(const char *cmd, ls_kv *kv, const char *assignment, int argpos)
{
  ls_error err;
  char origin[48];
  ls_error_clear(&err);
  snprintf(origin, sizeof origin, "argument %d (--set)", argpos);
  if (ls_kv_assign(kv, assignment, origin, &err) == LS_OK)
    return 0;
  ls_usage_error(cmd, "%s", err.msg);
  return -1;
}

/* A word a POSIX shell reads back unchanged: as is when it has only safe characters, else in
 * single quotes (a quote inside written as '\''). */
static size_t shell_word(char *buf, size_t size, size_t n, const char *w)
{
  int safe = w[0] != '\0';
  for (const char *c = w; *c; c++)
    safe &= (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr("_./:=,@%+-", *c) != NULL;
  if (safe)
    return n + (size_t)snprintf(buf + n, size > n ? size - n : 0, " %s", w);
  n += (size_t)snprintf(buf + n, size > n ? size - n : 0, " '");
  for (const char *c = w; *c; c++)
    n += (size_t)snprintf(buf + n, size > n ? size - n : 0, *c == '\'' ? "'\\''" : "%c", *c);
  return n + (size_t)snprintf(buf + n, size > n ? size - n : 0, "'");
}

const char *ls_resume_hint(char *buf, size_t size, int argc, char **argv)
{
  size_t n = (size_t)snprintf(buf, size, "leversim");
  int has_resume = 0;
  for (int i = 0; i < argc; i++) {
    n = shell_word(buf, size, n, argv[i]);
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
