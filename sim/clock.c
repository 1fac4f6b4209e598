/* sim/clock: monotonic wall clock (see clock.h). */
#include <time.h>
#include "sim/clock.h"

double ls_now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
