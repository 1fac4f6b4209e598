/* sim/error: see error.h. */
#include "sim/error.h"
#include <stdarg.h>
#include <string.h>

void ls_error_clear(ls_error *e)
{
  if (e)
    memset(e, 0, sizeof *e);
}

static void vset(ls_error *e, int code, const char *file, int line, int col,
                 const char *fmt, va_list ap)
{
  e->code = code;
  snprintf(e->file, sizeof e->file, "%s", file ? file : "");
  e->line = line;
  e->col = col;
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
}

int ls_error_set(ls_error *e, int code, const char *fmt, ...)
{
  if (!e)
    return code;
  va_list ap;
  va_start(ap, fmt);
  vset(e, code, NULL, 0, 0, fmt, ap);
  va_end(ap);
  return code;
}

int ls_error_at(ls_error *e, int code, const char *file, int line, int col, const char *fmt, ...)
{
  if (!e)
    return code;
  va_list ap;
  va_start(ap, fmt);
  vset(e, code, file, line, col, fmt, ap);
  va_end(ap);
  return code;
}

int ls_error_wrap(ls_error *e, const char *fmt, ...)
{
  if (!e)
    return LS_ESTATE;
  char prefix[LS_ERR_MSG], old[LS_ERR_MSG];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, e->msg, sizeof old);
  snprintf(e->msg, sizeof e->msg, "%s: %s", prefix, old);
  return e->code;
}

const char *ls_error_format(const ls_error *e, char *buf, size_t size)
{
  if (!e)
    snprintf(buf, size, "unknown error");
  else if (e->file[0] && e->line > 0)
    snprintf(buf, size, "%s:%d:%d: %s", e->file, e->line, e->col, e->msg);
  else if (e->file[0])
    snprintf(buf, size, "%s: %s", e->file, e->msg);
  else
    snprintf(buf, size, "%s", e->msg[0] ? e->msg : ls_status_text(e->code));
  return buf;
}

void ls_error_print(const ls_error *e, FILE *f)
{
  char buf[LS_ERR_MSG + LS_ERR_FILE + 64];
  fprintf(f, "leversim: %s\n", ls_error_format(e, buf, sizeof buf));
}

const char *ls_status_text(int code)
{
  switch (code) {
#define LS_X(sym, c, text, exitc) case c: return text;
    LS_STATUS_TABLE(LS_X)
#undef LS_X
  }
  return "unknown status";
}

int ls_status_exit(int code)
{
  switch (code) {
#define LS_X(sym, c, text, exitc) case c: return exitc;
    LS_STATUS_TABLE(LS_X)
#undef LS_X
  }
  return 70;
}
