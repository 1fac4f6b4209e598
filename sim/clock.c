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

int ls_env_seconds(const char *name, double def, double hi, int zero_ok, double *out,
                   ls_error *err)
{
  const char *s = getenv(name);
  *out = def;
  if (!s || !*s) return LS_OK;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end); /* a blank or a sign of the locale's own is refused below */
  if (end == s || *end || isspace((unsigned char)*s) || errno == ERANGE || !(v <= hi) ||
      !(zero_ok ? v >= 0 : v > 0))
    return ls_error_set(err, LS_EUSAGE, "%s='%s': expected a number of seconds in %s0, %g] "
                        "(unset it for the default, %g s)", name, s, zero_ok ? "[" : "(", hi, def);
  *out = v;
  return LS_OK;
}
