/* sim/stop: the process's one stop request — the signal (SIGINT or SIGTERM) that asked a
 * long command to stop, 0 while none has.
 *
 * Long loops (a sweep's runs, a run's cycles, a wait for a database lock) poll the flag and
 * end cleanly with LS_EINTR (exit 130) instead of being killed half-way. The flag is the
 * process's one mutable global: a signal handler can only reach a global. */
#ifndef LS_SIM_STOP_H
#define LS_SIM_STOP_H
#include <signal.h>

/* The flag (borrowed, lives as long as the process): the signal number, 0 when none. */
const volatile sig_atomic_t *ls_stop_flag(void);
/* The handler to install for SIGINT and SIGTERM: records its signal in the flag. */
void ls_stop_handler(int sig);
/* Installs ls_stop_handler for SIGINT and SIGTERM (saving the previous handlers into old[2]
 * when old is not NULL) and clears the flag. */
void ls_stop_catch(struct sigaction old[2]);
/* Restores handlers saved by ls_stop_catch (the flag keeps its value). */
void ls_stop_restore(const struct sigaction old[2]);

#endif
