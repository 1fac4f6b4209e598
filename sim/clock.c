/* sim/clock: monotonic wall clock (see clock.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <time.h>
#include "sim/clock.h"

double ls_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int ls_env_seconds(const ls_env_limit *l, double *out, ls_error *err)
{
  const char *s = getenv(l->name);
  *out = l->def;
  if (!s || !*s) return LS_OK;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end); /* a blank or a sign of the locale's own is refused below */
  if (end == s || *end || isspace((unsigned char)*s) || errno == ERANGE || !(v <= l->hi) ||
      !(l->zero_ok ? v >= 0 : v > 0))
    return ls_error_set(err, LS_EUSAGE, "%s='%s': expected a number of seconds in %s0, %g] "
                        "(unset it for the default, %g s)", l->name, s, l->zero_ok ? "[" : "(", l->hi,
                        l->def);
  *out = v;
  return LS_OK;
}

double ls_env_seconds_or_default(const ls_env_limit *l)
{
  ls_error err;
  double v;
  ls_error_clear(&err);
  (void)ls_env_seconds(l, &v, &err); /* v is the default on a refusal */
  return v;
}
