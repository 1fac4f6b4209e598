/* sim/stop: see stop.h. */
#include "sim/stop.h"
#include <string.h>

static volatile sig_atomic_t g_stop;

const volatile sig_atomic_t *ls_stop_flag(void) { return &g_stop; }

void ls_stop_handler(int sig) { g_stop = sig; }

void ls_stop_catch(struct sigaction old[2])
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = ls_stop_handler;
  sigemptyset(&sa.sa_mask);
  g_stop = 0;
  sigaction(SIGINT, &sa, old ? &old[0] : NULL);
  sigaction(SIGTERM, &sa, old ? &old[1] : NULL);
}

void ls_stop_restore(const struct sigaction old[2])
{
  sigaction(SIGINT, &old[0], NULL);
  sigaction(SIGTERM, &old[1], NULL);
}
