/* runner/driver: see driver.h.
 * A run's identity is its resolved configuration (ls_driver_resolved_json): part, canonical
 * names, seed and every setting it read with its effective value, as canonical JSON; run_id =
 * ls_db_hash_run of that text. Setting a default explicitly, or naming the shipped profile by
 * its path, therefore gives the same run, and --resume / `run` can skip it before simulating.
 * The settings come from ls_decode_check, which validation runs on every spec anyway. */
#include "runner/study/driver.h"
#include "sim/clock.h"
#include "sim/fileio.h"
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "ls_version.h"
#include "devices/device.h"
#include "runner/decode/paths.h"
#include "runner/decode/system.h"
#include "runner/study/noeffect.h"
#include "sim/rng.h"
#include "sim/stop.h"
#include "sim/units.h"

/* The signal (SIGINT or SIGTERM) that asked the sweep to stop, 0 while none has: the
 * process's one stop flag (sim/stop.h), also seen by a wait for the database lock. */
#define g_stop (*ls_stop_flag())

#define LS_DRIVER_JSON 32768 /* the longest run record (a resolved configuration) */

/* Appends the k bytes of p at buf + len as snprintf(buf + len, size - len, ...) would: cut to
 * what fits, NUL-terminated when anything fits; returns the length the whole would have.
 * (A resolved configuration escapes thousands of characters per run check; one snprintf
 * per character was half of the parent's check of a study.) */
static size_t put(char *buf, size_t size, size_t len, const char *p, size_t k)
{
  if (len < size) {
    size_t room = size - len - 1, c = k < room ? k : room;
    memcpy(buf + len, p, c);
    buf[len + c] = '\0';
  }
  return len + k;
}

static size_t json_str(char *buf, size_t size, size_t len, const char *s)
{
  len = put(buf, size, len, "\"", 1);
  while (*s) {
    size_t plain = 0; /* the run of characters that need no escape, copied at once */
    while (s[plain] && s[plain] != '"' && s[plain] != '\\' && (unsigned char)s[plain] >= 0x20)
      plain++;
    len = put(buf, size, len, s, plain);
    s += plain;
    if (!*s)
      break;
    char esc[8];
    if (*s == '"' || *s == '\\')
      esc[0] = '\\', esc[1] = *s, esc[2] = '\0';
    else
      snprintf(esc, sizeof esc, "\\u%04x", *s);
    len = put(buf, size, len, esc, strlen(esc));
    s++;
  }
  return put(buf, size, len, "\"", 1);
}

/* Canonical JSON of a spec (settings sorted by ls_kv). Returns 0, or -1 when it did not fit
 * (a cut record would give two different specs one run id). */
static int spec_json(const ls_run_spec *s, char *buf, size_t size)
{
  size_t len = (size_t)snprintf(buf, size, "{\"part\":");
  len = json_str(buf, size, len, s->part);
  const char *names[4][2] = {{"device", s->device}, {"model", s->model}, {"dataset", s->dataset},
                             {"system", s->system}};
  for (int i = 0; i < 4; i++) {
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ",\"%s\":", names[i][0]);
    len = json_str(buf, size, len, names[i][1]);
  }
  len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ",\"seed\":%llu,\"settings\":{",
                          (unsigned long long)s->seed);
  for (int i = 0; i < ls_kv_count(s->settings); i++) {
    if (i)
      len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ",");
    len = json_str(buf, size, len, ls_kv_key(s->settings, i));
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ":");
    len = json_str(buf, size, len, ls_kv_value(s->settings, i));
  }
  len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "}}");
  return len < size ? 0 : -1;
}


/* Writes spec's row: its resolved record json, res (from its own simulation, or from another
 * run with the same reuse_id), status from rc (the simulation's) and res->valid, msg. */
static int record_run(ls_db *db, const ls_run_spec *spec, const char *json, ls_decode_result *res, int rc,
                      const char *msg, double wall_s, ls_error *err)
{
  snprintf(res->run_id, sizeof res->run_id, "%s", spec->run_id);
  const char *status = rc ? "failed" : res->valid ? "ok" : "invalid";
  int n_set = res->n_settings + res->n_effective;
  ls_db_setting *set = n_set ? calloc((size_t)n_set, sizeof *set) : NULL;
  if (n_set && !set)
    return ls_error_set(err, LS_ENOMEM, "driver: out of memory");
  for (int i = 0; i < res->n_settings; i++) {
    const ls_kv_decl *d = &res->settings[i];
    set[i] = (ls_db_setting){d->key, d->value, d->num,
                             d->type == LS_KV_QUANTITY && ls_units_base(d->unit)[0] ? ls_units_base(d->unit) : NULL,
                             ls_kv_type_name(d->type), d->is_default};
  }
  /* Beside a setting that took effect at another value: "effective.KEY", the value that did
   * (value_num) and why (value_text), type "effective"; not part of the run's identity. */
  char eff_key[LS_DECODE_MAX_EFFECTIVE][140], eff_text[LS_DECODE_MAX_EFFECTIVE][240];
  for (int i = 0; i < res->n_effective; i++) {
    const ls_decode_effective *e = &res->effective[i];
    snprintf(eff_key[i], sizeof eff_key[i], "effective.%s", e->key);
    snprintf(eff_text[i], sizeof eff_text[i], "%.17g: %s", e->value, e->why);
    set[res->n_settings + i] = (ls_db_setting){eff_key[i], eff_text[i], e->value, NULL, "effective", 0};
  }
  ls_db_run row = {spec->run_id, spec->part, spec->device, spec->model, spec->dataset, spec->system,
                   spec->axes_json, json, LS_GIT_SHA, LS_VERSION, status, msg, spec->seed,
                   wall_s, set, n_set, res->prompts, rc ? 0 : res->n_prompts};
  int wrc = ls_db_write_run(db, &row, rc ? NULL : res->metrics, rc ? 0 : res->n_metrics,
                            res->steps, rc ? 0 : res->n_steps, err);
  free(set);
  return wrc;
}

int ls_driver_run_one(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, int keep_steps,
                      ls_decode_result *res, int *status_out, ls_error *err)
{
  char json[LS_DRIVER_JSON];
  *status_out = 3;
  if (!spec->run_id[0]) { /* not validated first (a test, a library caller) */
    int irc = ls_driver_resolve_id(cache, spec, err);
    if (irc)
      return irc;
  }
  double t0 = ls_now_s();
  ls_error run_err;
  ls_error_clear(&run_err);
  int rc = ls_decode_run(cache, spec, keep_steps, res, &run_err);
  if (rc == LS_EINTR) /* stopped half-way: nothing to record, the run is redone on --resume */
    return ls_error_set(err, LS_EINTR, "interrupted");
  int jrc = rc ? spec_json(spec, json, sizeof json)
               : ls_driver_resolved_json(spec, res, ls_data_root(), json, sizeof json);
  if (jrc)
    return ls_error_set(err, LS_EINVALID, "%s/%s/%s/%s: settings too long for one run record",
                        spec->device, spec->model, spec->dataset, spec->system);
  if (!rc) { /* the run read what the check read: else --resume would skip the wrong runs */
    ls_run_spec again = *spec;
    ls_driver_hash_ids(&again, json);
    if (strcmp(again.run_id, spec->run_id) != 0)
      return ls_error_set(err, LS_ESTATE, "%s/%s/%s/%s: the run resolved other settings than its "
                          "check (id %s, checked as %s)", spec->device, spec->model, spec->dataset,
                          spec->system, again.run_id, spec->run_id);
  }
  snprintf(res->run_id, sizeof res->run_id, "%s", spec->run_id);
  char msg[LS_ERR_MSG + LS_ERR_FILE + 64];
  if (rc)
    ls_error_format(&run_err, msg, sizeof msg);
  else
    snprintf(msg, sizeof msg, "%s", res->message);
  *status_out = rc ? 2 : res->valid ? 0 : 1;
  if (rc && !db)
    return ls_error_set(err, rc, "%s", msg);
  if (!db)
    return LS_OK;
  int wrc = record_run(db, spec, json, res, rc, msg, ls_now_s() - t0, err);
  if (wrc) {
    *status_out = 3; /* nothing recorded: the caller must stop, not count a failed run */
    return wrc;
  }
  if (rc)
    return ls_error_set(err, rc, "%s/%s/%s/%s: %s", spec->device, spec->model, spec->dataset,
                        spec->system, msg);
  return LS_OK;
}

/* Records res, the simulation of another run with spec's reuse_id, as spec's own run (its
 * run id, part and sweep point). *status_out as ls_driver_run_one's. */
static int record_copy(ls_db *db, const ls_run_spec *spec, ls_decode_result *res, int *status_out, ls_error *err)
{
  char json[LS_DRIVER_JSON];
  double t0 = ls_now_s();
  *status_out = 3;
  if (ls_driver_resolved_json(spec, res, ls_data_root(), json, sizeof json))
    return ls_error_set(err, LS_EINVALID, "%s/%s/%s/%s: settings too long for one run record",
                        spec->device, spec->model, spec->dataset, spec->system);
  ls_run_spec again = *spec; /* the same resolved configuration, or it is no copy */
  ls_driver_hash_ids(&again, json);
  if (strcmp(again.run_id, spec->run_id) != 0 || strcmp(again.reuse_id, spec->reuse_id) != 0)
    return ls_error_set(err, LS_ESTATE, "%s/%s/%s/%s: a reused result resolved other settings than the "
                        "run's check", spec->device, spec->model, spec->dataset, spec->system);
  int wrc = record_run(db, spec, json, res, 0, res->message, ls_now_s() - t0, err);
  if (wrc)
    return wrc;
  *status_out = res->valid ? 0 : 1;
  return LS_OK;
}

static int already_done(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, int *done, ls_error *err)
{
  char id[LS_DB_RUN_ID_LEN + 1];
  int rc = spec->run_id[0] ? LS_OK : ls_driver_resolve_id(cache, spec, err);
  if (!rc) rc = ls_driver_spec_id(spec, id, err);
  return rc ? rc : ls_db_run_done(db, id, done, err);
}

/* Runs are handed out one at a time from a counter the workers share (a MAP_SHARED page of a
 * temporary file, POSIX): whoever is free takes the next position. A fixed split (k, k+jobs,
 * ...) gave one worker every run of the systems at odd positions of a part, and the headline
 * systems, which the sizing gives the most prompts, all sit there. Which worker runs a run
 * changes nothing in its result (each run is a pure function of its spec). */
typedef struct {
  atomic_int *next; /* the next position to take, shared by the workers; NULL before open */
} run_queue;

static int queue_open(run_queue *q, ls_error *err)
{
  q->next = NULL;
  FILE *f = tmpfile();
  int fd = f ? fileno(f) : -1;
  void *m = MAP_FAILED;
  if (fd >= 0 && ftruncate(fd, (off_t)sizeof(atomic_int)) == 0)
    m = mmap(NULL, sizeof(atomic_int), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  int e = errno;
  if (f) fclose(f); /* the mapping keeps the (unlinked) file alive */
  if (m == MAP_FAILED)
    return ls_error_set(err, LS_EIO, "cannot share the run counter between workers: %s", strerror(e));
  q->next = m;
  atomic_init(q->next, 0);
  return LS_OK;
}

static void queue_close(run_queue *q)
{
  if (q->next) munmap((void *)q->next, sizeof(atomic_int));
  q->next = NULL;
}

static int queue_take(run_queue *q) { return atomic_fetch_add(q->next, 1); }

/* Runs spec i (or skips it when --resume finds it done), and records it; its result stays in
 * *res for the runs that reuse it (*have 1 when res holds a successful simulation). *mark:
 * the byte to report. Returns a status that stops the worker (LS_OK otherwise). */
static int run_or_skip(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, const ls_driver_opts *o,
                       ls_decode_result *res, int *have, char *mark, ls_error *err)
{
  int done = 0, rc = LS_OK;
  *mark = 's';
  *have = 0;
  if (o->resume && (rc = already_done(cache, db, spec, &done, err)))
    return rc;
  if (done)
    return LS_OK;
  int st;
  rc = ls_driver_run_one(cache, db, spec, o->keep_steps, res, &st, err);
  if (st == 0 && rc == LS_OK) /* its paired intervals with the runs already written */
    rc = ls_db_stats_pair_run(db, res->run_id, err);
  if (st == 3 || (st == 0 && rc)) /* nothing recorded (interrupted, or the database failed) */
    return rc ? rc : LS_EDB;
  *have = st <= 1;
  *mark = st == 0 ? 'o' : st == 1 ? 'i' : 'f';
  if (rc && st == 2) { /* a failed run is recorded; report it and go on */
    ls_error_print(err, stderr);
    ls_error_clear(err);
  }
  return LS_OK;
}

/* Run j reusing res (a simulation of a run with j's reuse_id), or simulated itself when res
 * holds none; skipped when --resume finds it done. */
static int reuse_or_run(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, const ls_driver_opts *o,
                        ls_decode_result *res, int have, char *mark, ls_error *err)
{
  if (!have) {
    ls_decode_result own;
    memset(&own, 0, sizeof own);
    int h, rc = run_or_skip(cache, db, spec, o, &own, &h, mark, err);
    ls_decode_result_free(&own);
    return rc;
  }
  int done = 0, rc = LS_OK, st;
  *mark = 's';
  if (o->resume && (rc = already_done(cache, db, spec, &done, err)))
    return rc;
  if (done)
    return LS_OK;
  rc = record_copy(db, spec, res, &st, err);
  if (rc == LS_OK && st == 0)
    rc = ls_db_stats_pair_run(db, spec->run_id, err);
  if (rc)
    return rc;
  *mark = st == 0 ? 'o' : 'i';
  return LS_OK;
}

/* Run j, the padding twin of the simulation in res (runner/study/noeffect.h): recorded as that
 * simulation when its NPU report says padding decides none of its calls, else simulated. */
static int twin_or_run(ls_decode_cache *cache, ls_db *db, ls_run_spec *spec, const ls_driver_opts *o,
                       ls_decode_result *res, int have, char *mark, ls_error *err)
{
  ls_decode_result chk, twin;
  int same = have && ls_noeffect_twin_result(cache, spec, res, &chk, &twin);
  int rc = reuse_or_run(cache, db, spec, o, same ? &twin : res, same, mark, err);
  if (same)
    ls_decode_result_free(&chk); /* twin borrows res's results and chk's settings */
  return rc;
}

/* A worker: takes positions from the queue until none is left; reports each finished run as
 * one byte on fd ('o' ok, 'i' invalid, 'f' failed, 's' skipped). A position whose run reuses
 * an earlier one's simulation (lead[i] != i) is left to the worker of that earlier run, which
 * records the whole group after its one simulation. Returns the process exit status. */
static int worker(ls_experiment *x, const ls_driver_opts *o, const int *lead, run_queue *q, int k, int fd)
{
  ls_error err;
  ls_error_clear(&err);
  ls_db *db = NULL;
  ls_decode_cache *cache = NULL;
  int n = ls_experiment_count(x);
  int rc = ls_db_open(&db, o->db_path, &err);
  if (!rc)
    rc = ls_decode_cache_create(&cache, o->data_root, &err);
  if (!rc) /* Ctrl-C reaches the run in progress, not only the gap between two runs */
    ls_decode_cache_set_stop(cache, ls_stop_flag());
  if (!rc)
    ls_decode_cache_set_policies(cache, o->policies);
  for (int i = queue_take(q); rc == LS_OK && i < n && !g_stop; i = queue_take(q)) {
    if (lead && lead[i] != i)
      continue;
    ls_decode_result res;
    memset(&res, 0, sizeof res);
    int have = 0;
    char mark;
    rc = run_or_skip(cache, db, ls_experiment_run(x, i), o, &res, &have, &mark, &err);
    if (rc == LS_OK && write(fd, &mark, 1) != 1)
      rc = ls_error_set(&err, LS_EIO, "worker %d: cannot report to the parent: %s", k + 1, strerror(errno));
    for (int j = i + 1; lead && rc == LS_OK && j < n && !g_stop; j++) {
      if (lead[j] != i)
        continue;
      rc = (lead[n + j] ? twin_or_run : reuse_or_run)(cache, db, ls_experiment_run(x, j), o, &res, have, &mark, &err);
      if (rc == LS_OK && write(fd, &mark, 1) != 1)
        rc = ls_error_set(&err, LS_EIO, "worker %d: cannot report to the parent: %s", k + 1, strerror(errno));
    }
    ls_decode_result_free(&res);
  }
  if (rc && rc != LS_EINTR)
    ls_error_print(&err, stderr);
  ls_decode_cache_free(cache);
  ls_db_close(db);
  return rc ? ls_status_exit(rc) : 0; /* e.g. 74 for a full disk: the parent passes it on */
}

/* lead[i]: the first spec of x with spec i's reuse_id (i itself when none comes before it, or
 * when its id is not resolved), or the run whose padding twin i is (runner/study/noeffect.h);
 * lead[n + i]: 1 for such a twin, else 0. NULL when out of memory (then nothing is reused). Owned. */
static int *reuse_leads(ls_experiment *x, int *saved)
{
  int n = ls_experiment_count(x);
  int *lead = calloc((size_t)(n > 0 ? 2 * n : 1), sizeof *lead);
  *saved = 0;
  if (!lead)
    return NULL;
  for (int i = 0; i < n; i++) {
    const char *id = ls_experiment_run(x, i)->reuse_id;
    lead[i] = i;
    for (int j = 0; id[0] && j < i; j++)
      if (lead[j] == j && strcmp(ls_experiment_run(x, j)->reuse_id, id) == 0) {
        lead[i] = j;
        ++*saved;
        break;
      }
  }
  return lead;
}

/* On a terminal: a bar redrawn after every run. Elsewhere (a log, CI): one line about every
 * LS_PROGRESS_S seconds, so a long sweep shows it is alive without flooding the log. */
#define LS_PROGRESS_S 5.0 /* default of ls_driver_opts.progress_s */

static void progress(const ls_driver_summary *s, int done, double t0, int tty)
{
  double el = ls_now_s() - t0, rate = el > 0 ? done / el : 0;
  double left = rate > 0 ? (s->total - done) / rate : 0;
  if (!tty) {
    if (done > 0)
      fprintf(stderr, "leversim: %d/%d runs done, %d failed, %.0f s elapsed, about %.0f s left\n",
              done, s->total, s->failed, el, left);
    else
      fprintf(stderr, "leversim: 0/%d runs done, %.0f s elapsed\n", s->total, el);
    return;
  }
  int width = 30, fill = s->total ? width * done / s->total : width;
  fprintf(stderr, "\r[%.*s%*s] %d/%d  %.1f runs/s  %.0fs left ", fill,
          "##############################", width - fill, "", done, s->total, rate, left);
  fflush(stderr);
}

static int spawn(ls_experiment *x, const ls_driver_opts *o, const int *lead, run_queue *q, pid_t *pids,
                 int fd[2], ls_error *err)
{
  for (int k = 0; k < o->jobs; k++) {
    pids[k] = fork();
    if (pids[k] < 0) { /* stop the workers already started before reporting */
      int e = errno;
      for (int j = 0; j < k; j++)
        kill(pids[j], SIGINT);
      for (int j = 0; j < k; j++)
        waitpid(pids[j], NULL, 0);
      close(fd[0]);
      close(fd[1]);
      return ls_error_set(err, LS_ERUN, "fork failed: %s", strerror(e));
    }
    if (pids[k] == 0) {
      close(fd[0]);
      _exit(worker(x, o, lead, q, k, fd[1]));
    }
  }
  close(fd[1]);
  return LS_OK;
}

static void tally(ls_driver_summary *s, char mark)
{
  if (mark == 'o') s->ok++;
  else if (mark == 'i') s->invalid++;
  else if (mark == 'f') s->failed++;
  else s->skipped++;
}

/* The name of a signal that ends a worker ("SIGKILL"); strsignal's text is not its name. */
static const char *signal_name(int sig)
{
  static const struct { int sig; const char *name; } NAMES[] = {
      {SIGKILL, "SIGKILL"}, {SIGTERM, "SIGTERM"}, {SIGINT, "SIGINT"}, {SIGSEGV, "SIGSEGV"},
      {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"}, {SIGFPE, "SIGFPE"}, {SIGILL, "SIGILL"},
      {SIGXFSZ, "SIGXFSZ"}, {SIGXCPU, "SIGXCPU"}, {SIGPIPE, "SIGPIPE"}, {SIGHUP, "SIGHUP"},
      {SIGQUIT, "SIGQUIT"}, {SIGUSR1, "SIGUSR1"}, {SIGUSR2, "SIGUSR2"}};
  for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
    if (NAMES[i].sig == sig)
      return NAMES[i].name;
  return "a signal";
}

/* The status code whose exit status a worker returned (74 -> LS_EIO); LS_ERUN if none. */
static int status_of_exit(int exit_status)
{
  static const int CODES[] = {LS_EIO, LS_EINVALID, LS_ENOTFOUND, LS_EUSAGE, LS_ESTATE, LS_EINTR};
  for (size_t i = 0; i < sizeof CODES / sizeof CODES[0]; i++)
    if (ls_status_exit(CODES[i]) == exit_status)
      return CODES[i];
  return LS_ERUN;
}

/* The workers' processes and how each ended (status as from waitpid; valid when reaped). */
typedef struct {
  pid_t pid[64];
  int status[64], reaped[64], jobs;
} workers;

static int ended_badly(int st)
{
  return WIFSIGNALED(st) ||
         (WIFEXITED(st) && WEXITSTATUS(st) != 0 && WEXITSTATUS(st) != ls_status_exit(LS_EINTR));
}

/* Reaps workers that have ended (wait: block until all have). Returns 1 when one ended badly. */
static int check_workers(workers *w, int wait)
{
  int bad = 0;
  for (int k = 0; k < w->jobs; k++) {
    if (w->reaped[k])
      continue;
    pid_t r;
    while ((r = waitpid(w->pid[k], &w->status[k], wait ? 0 : WNOHANG)) < 0 && errno == EINTR) {
    }
    w->reaped[k] = r == w->pid[k];
    bad |= w->reaped[k] && ended_badly(w->status[k]);
  }
  return bad;
}

/* The first worker that did not end cleanly, in err: by exit status (its own message was
 * printed) or by the signal that killed it. Returns that code, LS_OK when none. */
static int worker_error(const workers *w, ls_error *err)
{
  for (int k = 0; k < w->jobs; k++) {
    int st = w->status[k];
    if (!w->reaped[k] || !ended_badly(st))
      continue;
    if (WIFSIGNALED(st))
      return ls_error_set(err, LS_ESTATE, "worker %d killed by %s; its run in flight is lost",
                          k + 1, signal_name(WTERMSIG(st)));
    return ls_error_set(err, status_of_exit(WEXITSTATUS(st)),
                        "worker %d stopped with exit status %d (its message is above)", k + 1,
                        WEXITSTATUS(st));
  }
  return LS_OK;
}

/* Asks the workers still running to stop after their current run, once: on a signal sent to
 * the parent alone (kill PID, a job scheduler), not only a terminal's Ctrl-C to the whole
 * group; and when one worker has failed (a full disk fails the others too). */
static void stop_workers(const workers *w, int *stopped)
{
  if (*stopped)
    return;
  for (int k = 0; k < w->jobs; k++)
    if (!w->reaped[k])
      kill(w->pid[k], SIGINT);
  *stopped = 1;
}

/* Reads the workers' one-byte reports until every worker has closed the pipe. */
static void collect(int fd, workers *w, const ls_driver_opts *o, ls_driver_summary *sum,
                    double t0, int *done)
{
  int tty = isatty(2), stopped = 0;
  double last = ls_now_s(), every = o->progress_s > 0 ? o->progress_s : LS_PROGRESS_S;
  int wait_ms = every < 1 ? (int)(every * 1000) + 1 : 1000;
  for (;;) {
    if (g_stop || check_workers(w, 0))
      stop_workers(w, &stopped);
    struct pollfd pfd = {fd, POLLIN, 0};
    int ready = poll(&pfd, 1, wait_ms);
    if (ready < 0 && errno != EINTR)
      break;
    if (!tty && ls_now_s() - last >= every) {
      progress(sum, *done, t0, 0);
      last = ls_now_s();
    }
    if (ready <= 0)
      continue;
    char mark;
    ssize_t got = read(fd, &mark, 1);
    if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
      break;
    if (got < 0)
      continue;
    tally(sum, mark);
    ++*done;
    if (tty)
      progress(sum, *done, t0, 1);
  }
  if (tty)
    fprintf(stderr, "\n");
}

/* The parent's handle: opened once before the workers start, it creates the schema, takes the
 * command's claim (exclusive and empties the database when o->fresh: the replay's database is
 * its own until it ends; the workers write under the parent's claim) and records o->meta
 * before any run, so an interrupted database already says what wrote it. */
static int open_parent(const ls_driver_opts *o, ls_db **db, ls_error *err)
{
  const char *cmd = o->command ? o->command : "sweep";
  int rc = ls_db_open_claim(db, o->db_path, o->fresh, cmd, err);
  if (rc == LS_EDB && o->fresh && err && strstr(err->msg, "schema_version")) {
    /* a database of another version: a fresh replay replaces it when it is leversim's */
    rc = ls_db_remove_old(o->db_path, err);
    if (!rc) rc = ls_db_open_claim(db, o->db_path, o->fresh, cmd, err);
  }
  if (!rc && o->fresh) rc = ls_db_clear(*db, err); /* and keeps it to itself till the end */
  for (int i = 0; !rc && o->meta && o->meta[i] && o->meta[i + 1]; i += 2)
    rc = ls_db_set_meta(*db, o->meta[i], o->meta[i + 1], err);
  return rc;
}

int ls_driver_run(ls_experiment *x, const ls_driver_opts *o, ls_driver_summary *sum, ls_error *err)
{
  memset(sum, 0, sizeof *sum);
  sum->total = ls_experiment_count(x);
  double t0 = ls_now_s();
  /* The handlers are in place before the database exists, so anyone who sees the file can
   * interrupt cleanly; workers inherit them. A file-size limit (ulimit -f) must show up as a
   * write error (exit 74), not kill a worker with SIGXFSZ. */
  struct sigaction old[2], ign, old_xfsz;
  memset(&ign, 0, sizeof ign);
  ign.sa_handler = SIG_IGN;
  ls_stop_catch(old);
  sigaction(SIGXFSZ, &ign, &old_xfsz);
  /* The parent opens (and claims) the database and records the study's roles before the
   * workers race to it. */
  ls_db *db = NULL;
  int rc = open_parent(o, &db, err);
  if (rc == LS_OK) rc = ls_driver_write_roles(db, ls_experiment_roles(x), err);
  int fd[2];
  if (rc == LS_OK && pipe(fd) != 0)
    rc = ls_error_set(err, LS_EIO, "pipe failed: %s", strerror(errno));
  workers w;
  memset(&w, 0, sizeof w);
  w.jobs = o->jobs;
  fflush(NULL); /* children must not re-flush the parent's buffered output */
  run_queue q = {NULL};
  int *lead = rc == LS_OK ? reuse_leads(x, &sum->reused) : NULL;
  if (lead) /* reused only where the lead's simulation shows padding decided nothing */
    ls_noeffect_pad_twins(x, o->data_root, o->policies, lead);
  if (rc == LS_OK)
    rc = queue_open(&q, err);
  if (rc == LS_OK)
    rc = spawn(x, o, lead, &q, w.pid, fd, err);
  int done = 0;
  if (rc == LS_OK) {
    collect(fd[0], &w, o, sum, t0, &done);
    close(fd[0]);
    check_workers(&w, 1);
    rc = worker_error(&w, err);
  }
  queue_close(&q);
  free(lead);
  /* Each pair's intervals were computed by the worker that wrote its second run; any a
   * stopped worker left are made now, then the summary over every configuration (also when
   * a stop came after the last run, so the database is complete and checkable). */
  if (rc == LS_OK && done == sum->total) rc = ls_db_stats_pair_run(db, NULL, err);
  if (rc == LS_OK && done == sum->total) rc = ls_db_stats_summary(db, err);
  ls_db_close(db);
  sum->interrupted = g_stop != 0 || rc == LS_EINTR;
  ls_stop_restore(old);
  sigaction(SIGXFSZ, &old_xfsz, NULL);
  sum->wall_s = ls_now_s() - t0;
  const char *hint = o->resume_hint ? o->resume_hint : "the same command and --resume";
  if (sum->interrupted && (rc == LS_OK || rc == LS_EINTR)) {
    fprintf(stderr, "leversim: interrupted after %d of %d runs; finished runs are saved.\n"
                    "resume with: %s\n", done, sum->total, hint);
    return ls_error_set(err, LS_EINTR, "interrupted");
  }
  if (rc != LS_OK && done > 0 && err) {
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n, "; %d of %d runs done, finished runs are saved; "
             "resume with: %s", done, sum->total, hint);
  }
  return rc;
}

/* The intervals a study declares (results/db.h, ls_db_intervals_role_check) default to all:
 * a study that declares none records that, so that runs written into a database whose first
 * study declared fewer get the note below instead of fewer intervals in silence. */
static const char *const interval_roles[] = {"intervals.metrics", "intervals.ratios"};

static int write_role(ls_db *db, const char *role, const char *value, const char *origin, ls_error *err)
{
  int kept = 0;
  int rc = ls_db_set_role(db, role, value, &kept, err);
  if (!rc && kept) /* a database shared by two studies keeps the first one's names */
    fprintf(stderr, "leversim: note: the database already names role %s otherwise; its views "
                    "keep that name, not '%s' (%s)\n", role, value, origin);
  return rc;
}

int ls_driver_write_roles(ls_db *db, const ls_kv *roles, ls_error *err)
{
  int rc = LS_OK;
  for (int i = 0; rc == LS_OK && roles && i < ls_kv_count(roles); i++)
    rc = write_role(db, ls_kv_key(roles, i), ls_kv_value(roles, i), ls_kv_origin(roles, i), err);
  for (int i = 0; rc == LS_OK && i < 2; i++) {
    int set = 0;
    for (int k = 0; roles && k < ls_kv_count(roles); k++) set |= !strcmp(ls_kv_key(roles, k), interval_roles[i]);
    if (!set) rc = write_role(db, interval_roles[i], "all", "the default: the study declares no intervals", err);
  }
  return rc;
}

int ls_driver_spec_id(const ls_run_spec *spec, char id[LS_DB_RUN_ID_LEN + 1], ls_error *err)
{
  if (!spec->run_id[0])
    return ls_error_set(err, LS_ESTATE, "%s/%s/%s/%s: run id asked before its settings were resolved",
                        spec->device, spec->model, spec->dataset, spec->system);
  snprintf(id, LS_DB_RUN_ID_LEN + 1, "%s", spec->run_id);
  return LS_OK;
}

int ls_driver_given_hash(const ls_run_spec *spec, char id[LS_DB_RUN_ID_LEN + 1], ls_error *err)
{
  char json[LS_DRIVER_JSON];
  if (spec_json(spec, json, sizeof json))
    return ls_error_set(err, LS_EINVALID, "%s/%s/%s/%s: settings too long for one run record",
                        spec->device, spec->model, spec->dataset, spec->system);
  ls_db_hash_run(spec->part, json, spec->seed, id);
  return LS_OK;
}

/* ---- run identity: the resolved configuration ---- */

/* The whole of the file at path (owned, NUL-terminated), *n its length; NULL if unreadable
 * (sim/fileio's reader: regular files, no wait on a pipe). */
static char *slurp(const char *path, size_t *n)
{
  char *text = NULL;
  *n = 0;
  return ls_file_read_all(path, "device profile", 1L << 26, &text, n, NULL) == LS_OK ? text : NULL;
}

/* The identity of an input file given by path (a device profile, a model file): the id of the
 * shipped file of the same name in data_root/folder when the two are byte for byte the same,
 * else "file:<hash of its content>" (two copies of one file are one input; an edited copy is
 * another), or the path as given when unreadable (the run fails on it anyway). */
static void file_identity(const char *path, const char *data_root, const char *folder, uint64_t seed, char *out,
                          size_t size)
{
  snprintf(out, size, "%s", path);
  size_t n = 0, m = 0;
  char *given = slurp(path, &n);
  if (!given)
    return;
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  size_t stem = strlen(base) > 5 && strcmp(base + strlen(base) - 5, ".yaml") == 0 ? strlen(base) - 5 : strlen(base);
  size_t len = strlen(data_root) + strlen(folder) + stem + 32;
  char *shipped_path = malloc(len), *shipped = NULL;
  if (shipped_path) {
    snprintf(shipped_path, len, "%s/%s/%.*s.yaml", data_root, folder, (int)stem, base);
    shipped = slurp(shipped_path, &m);
    free(shipped_path);
  }
  if (shipped && m == n && memcmp(given, shipped, n) == 0)
    snprintf(out, size, "%.*s", (int)stem, base);
  else
    snprintf(out, size, "file:%016llx", (unsigned long long)ls_key_str(seed, given));
  free(given);
  free(shipped);
}

/* The device's identity: its id, or for a profile named by path its file's (file_identity). */
static void device_identity(const char *device, const char *data_root, char *out, size_t size)
{
  if (ls_device_is_path(device))
    file_identity(device, data_root, "devices/profiles", 0x646576696365ULL, out, size);
  else
    snprintf(out, size, "%s", device);
}

/* A model's identity (the target, or model.draft's value): its id, or for a model file (a name
 * ending in .yaml, ls_model_load_any) its file's, so that a run's id follows the file's content,
 * not the path it was given by. */
static void model_identity(const char *model, const char *data_root, char *out, size_t size)
{
  size_t n = strlen(model);
  if (n > 5 && strcmp(model + n - 5, ".yaml") == 0)
    file_identity(model, data_root, "workloads/models", 0x6d6f64656cULL, out, size);
  else
    snprintf(out, size, "%s", model);
}

static int by_decl_key(const void *a, const void *b)
{
  return strcmp((*(const ls_kv_decl *const *)a)->key, (*(const ls_kv_decl *const *)b)->key);
}

int ls_driver_resolved_json(const ls_run_spec *spec, const ls_decode_result *res, const char *data_root,
                            char *buf, size_t size)
{
  const ls_system *sys = ls_system_find(spec->system);
  char device[PATH_MAX + 8], model[PATH_MAX + 8], draft[PATH_MAX + 8]; /* ids, "file:<hash>", or paths as given */
  device_identity(spec->device, data_root, device, sizeof device);
  model_identity(spec->model, data_root, model, sizeof model);
  /* literal pieces by put, not snprintf: a record is built for every spec's check and again
   * for its run (about a hundred pieces each), and only the numbers need formatting */
  size_t len = put(buf, size, 0, "{", 1);
  const char *names[4][2] = {{"\"device\":", device}, {",\"model\":", model}, {",\"dataset\":", spec->dataset},
                             {",\"system\":", sys ? sys->name : spec->system}};
  for (int i = 0; i < 4; i++) {
    len = put(buf, size, len, names[i][0], strlen(names[i][0]));
    len = json_str(buf, size, len, names[i][1]);
  }
  len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ",\"seed\":%llu,\"settings\":{",
                          (unsigned long long)spec->seed);
  const ls_kv_decl **d = res->n_settings ? malloc((size_t)res->n_settings * sizeof *d) : NULL;
  if (res->n_settings && !d)
    return -1;
  int n = 0;
  for (int i = 0; i < res->n_settings; i++) /* every one: a default is as much the run as a given value */
    d[n++] = &res->settings[i];
  if (n) /* first-read order may follow the given keys; the identity must not */
    qsort(d, (size_t)n, sizeof *d, by_decl_key);
  for (int i = 0; i < n; i++) {
    char num[40];
    if (i)
      len = put(buf, size, len, ",", 1);
    len = json_str(buf, size, len, d[i]->key);
    len = put(buf, size, len, ":", 1);
    if (!isnan(d[i]->num)) /* "32", "32.0" and "4.2 GB/s" vs "4200 MB/s" are one value */
      snprintf(num, sizeof num, "%.17g", d[i]->num);
    const char *value = isnan(d[i]->num) ? d[i]->value : num;
    if (res->head_memory[0] && !strcmp(d[i]->key, "verify.head_memory"))
      value = res->head_memory; /* auto is dram or flash: the run reads only which (decode.h) */
    if (!strcmp(d[i]->key, "model.draft")) { /* a draft model file is its content, as the target's */
      model_identity(value, data_root, draft, sizeof draft);
      value = draft;
    }
    len = json_str(buf, size, len, value);
  }
  free(d);
  len = put(buf, size, len, "}", 1);
  if (res->plugins[0]) /* a plug-in's policy is its bytes: another build is another run */
    len += (size_t)snprintf(buf + len, size > len ? size - len : 0, ",\"plugins\":%s", res->plugins);
  len = put(buf, size, len, "}", 1);
  return len < size ? 0 : -1;
}

void ls_driver_hash_ids(ls_run_spec *spec, const char *json)
{
  /* the part labels the row, and in a part with cases the point too: two cases that resolve
   * alike (a case setting a system does not read) stay two rows, one per column of the
   * one-factor design; elsewhere a point is its settings, so an explicit default is the run
   * without it */
  int point = spec->cased && spec->axes_json[0] && strcmp(spec->axes_json, "{}") != 0;
  char label[LS_NAME_MAX + sizeof spec->axes_json + 2];
  snprintf(label, sizeof label, "%s%s%s", spec->part, point ? "\x1f" : "", point ? spec->axes_json : "");
  ls_db_hash_run(label, json, spec->seed, spec->run_id);
  ls_db_hash_run("", json, spec->seed, spec->reuse_id);
}

int ls_driver_set_id(ls_run_spec *spec, const ls_decode_result *res, const char *data_root, ls_error *err)
{
  char json[LS_DRIVER_JSON];
  if (ls_driver_resolved_json(spec, res, data_root, json, sizeof json))
    return ls_error_set(err, LS_EINVALID, "%s/%s/%s/%s: settings too long for one run record",
                        spec->device, spec->model, spec->dataset, spec->system);
  ls_driver_hash_ids(spec, json);
  return LS_OK;
}

int ls_driver_resolve_id(ls_decode_cache *cache, ls_run_spec *spec, ls_error *err)
{
  ls_decode_result res;
  ls_error check_err;
  ls_error_clear(&check_err);
  int checked = ls_decode_check(cache, spec, &res, &check_err) == LS_OK;
  int rc = checked ? ls_driver_set_id(spec, &res, ls_data_root(), err) : LS_OK;
  ls_decode_result_free(&res);
  if (checked)
    return rc;
  /* cannot be set up: the run fails and is recorded under its settings as given */
  spec->reuse_id[0] = '\0';
  return ls_driver_given_hash(spec, spec->run_id, err);
}
