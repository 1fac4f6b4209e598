/* sim/gnuplot: running gnuplot without start-up files, with its log opened safely and a time
 * limit (see sim/gnuplot.h). */
#include "sim/gnuplot.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "sim/clock.h"
#include "sim/error.h"
#include "sim/stop.h"

extern char **environ;

const char *ls_gnuplot_find(const char *prog, char *buf, size_t size)
{
  if (strchr(prog, '/')) return access(prog, X_OK) == 0 ? prog : NULL;
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  while (*path) {
    size_t n = strcspn(path, ":");
    int len = snprintf(buf, size, "%.*s/%s", (int)n, n ? path : ".", prog);
    if (len > 0 && (size_t)len < size && access(buf, X_OK) == 0) return buf;
    path += n + (path[n] == ':');
  }
  return NULL;
}

static const ls_env_limit GNUPLOT_LIMIT = {"LEVERSIM_GNUPLOT_LIMIT", LS_GNUPLOT_LIMIT_S, 1e6, 0};

int ls_gnuplot_env_check(ls_error *err)
{
  double v;
  return ls_env_seconds(&GNUPLOT_LIMIT, &v, err);
}

double ls_gnuplot_limit_s(void) { return ls_env_seconds_or_default(&GNUPLOT_LIMIT); }

/* The log's descriptor: appended to, created 0644 when absent, never through a link and only
 * over a regular file; /dev/null when log is NULL. -1 when refused. */
static int open_log(const char *log)
{
  if (!log) return open("/dev/null", O_WRONLY | O_CLOEXEC);
  int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
  struct stat st;
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
    close(fd);
    fd = -1;
  }
  return fd;
}

/* Waits for pid, killing it at the limit or at a stop request. */
static int wait_limited(pid_t pid)
{
  double t0 = ls_now_s(), limit = ls_gnuplot_limit_s();
  for (long ms = 1;; ms = ms < 50 ? ms + 1 : 50) {
    int st;
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    if (r < 0 && errno != EINTR) return -1;
    if (ls_now_s() - t0 > limit || *ls_stop_flag()) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
      return LS_GNUPLOT_TIMED_OUT;
    }
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
  }
}

int ls_gnuplot_run(const char *prog, const char *vars, const char *script, const char *log)
{
  char buf[LS_PATH_MAX];
  const char *found = ls_gnuplot_find(prog && prog[0] ? prog : "gnuplot", buf, sizeof buf);
  if (!found) return LS_GNUPLOT_NOT_FOUND;
  int fd = open_log(log);
  if (fd < 0) return -1;
  posix_spawn_file_actions_t fa;
  if (posix_spawn_file_actions_init(&fa)) {
    close(fd);
    return -1;
  }
  posix_spawn_file_actions_adddup2(&fa, fd, 1);
  posix_spawn_file_actions_adddup2(&fa, fd, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  char *argv[6];
  int n = 0;
  argv[n++] = (char *)found;
  argv[n++] = "-d"; /* --default-settings: no gnuplotrc, no ~/.gnuplot */
  if (vars) {
    argv[n++] = "-e";
    argv[n++] = (char *)vars;
  }
  argv[n++] = (char *)script;
  argv[n] = NULL;
  pid_t pid;
  int rc = posix_spawn(&pid, found, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fd);
  return rc ? -1 : wait_limited(pid);
}
