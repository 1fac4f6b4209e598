/* runner/study/unc_study: the uncertainty study's runs (uncertainty.h). Every point of the
 * design gives each job (a configuration and system) a settings text: the assumptions that
 * reach it (its device, its system, a key its system reads) at the point's values. Equal texts
 * are one run, made once; the distinct runs are shared among `jobs` worker processes, which
 * send each run's metrics back through a pipe. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "runner/decode/decode.h"
#include "runner/decode/paths.h"
#include "runner/study/experiment.h"
#include "runner/study/unc_int.h"
#include "sim/rng.h"

#define UNC_SEED 7 /* every run: the same prompts at every point (common random numbers) */

static const char *const PAPER_DEVICES[] = {"oneplus-12", "honor-500-pro", "honor-magic-v5"};
static const char *const PAPER_MODELS[] = {"llama-3.1-8b", "qwen3-4b", "qwen3-8b", "qwen3-14b"};
static const char *const PAPER_DATASETS[] = {"mt-bench", "humaneval", "mbpp", "gsm8k"};
static const char *const CLAIM_SYSTEMS[] = {"lever", "ar-flash", "sd-chain", "specinfer",
                                            "sequoia", "eagle2", "opt-tree", "lever-no-prune"};
static const char *const LMHEADS[] = {"map.lmhead=demand-cpu", "map.lmhead=eager-npu", "map.lmhead=demand-npu"};
static const char *const LM_MODELS[] = {"llama-3.1-8b", "qwen3-8b", "qwen3-14b"};
static const char *const LM_DATASETS[] = {"mbpp", "gsm8k"};
static const char *const QUICK_MODELS[] = {"qwen3-4b"};
static const char *const QUICK_DATASETS[] = {"gsm8k"};

static unc_matrix matrix_of(int quick)
{
  unc_matrix m = {PAPER_DEVICES, PAPER_MODELS, PAPER_DATASETS, CLAIM_SYSTEMS, LMHEADS, 3, 4, 4, 8, 3,
                  LM_MODELS, LM_DATASETS, 3, 2};
  if (quick) m.nd = 1, m.models = m.lm_models = QUICK_MODELS, m.nm = m.nlm_m = 1, m.datasets = m.lm_datasets = QUICK_DATASETS,
             m.ns = m.nlm_s = 1;
  return m;
}

/* One run: its settings text ("k=v;k=v"), metrics out. */
static int run_one(ls_decode_cache *cache, const unc_job *j, const char *settings, const ls_unc_opts *o,
                   double *met, ls_error *err)
{
  ls_kv *kv = NULL;
  ls_experiment *x = NULL;
  ls_decode_result res;
  memset(&res, 0, sizeof res);
  for (int i = 0; i < UNC_NMETRICS; i++) met[i] = NAN;
  char *buf = strdup(settings), *save = NULL, num[32];
  int rc = buf ? ls_kv_create(&kv, err) : ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  for (char *t = buf ? strtok_r(buf, ";", &save) : NULL; !rc && t; t = strtok_r(NULL, ";", &save))
    rc = ls_kv_assign(kv, t, "ranges", err);
  snprintf(num, sizeof num, "%d", o->prompts);
  if (!rc) rc = ls_kv_set(kv, "workload.prompts", num, "uncertainty", err);
  snprintf(num, sizeof num, "%d", o->tokens);
  if (!rc) rc = ls_kv_set(kv, "workload.max_tokens", num, "uncertainty", err);
  if (!rc) rc = ls_experiment_single(&x, j->device, j->model, j->dataset, j->system, kv, UNC_SEED, ls_data_root(), err);
  if (!rc) rc = ls_decode_run(cache, ls_experiment_run(x, 0), 0, &res, err);
  static const char *const names[UNC_NMETRICS] = {"throughput_tps", "wasted_verify", "wasted_verify_tokens",
                                                  "io_busy_share", "lmhead_s_mean"};
  for (int i = 0; !rc && res.valid && i < res.n_metrics; i++)
    for (int k = 0; k < UNC_NMETRICS; k++)
      if (!strcmp(res.metrics[i].name, names[k])) met[k] = res.metrics[i].value;
  ls_decode_result_free(&res);
  ls_experiment_free(x);
  ls_kv_free(kv);
  free(buf);
  return rc;
}

/* reads[a * nsys + s]: 1 when system s reads assumption a's key (a check with the key at its
 * default succeeds and leaves no key unread). */
static int find_readers(const ls_unc_ranges *rg, const unc_matrix *m, ls_decode_cache *cache, int *reads,
                        ls_error *err)
{
  for (int a = 0; a < ls_unc_ranges_count(rg); a++) {
    const ls_unc_assumption *as = ls_unc_ranges_at(rg, a);
    for (int s = 0; s < m->nsys; s++) {
      reads[a * m->nsys + s] = 0;
      if (!as->setting) continue;
      ls_kv *kv = NULL;
      ls_experiment *x = NULL;
      ls_decode_result res;
      ls_error e;
      memset(&res, 0, sizeof res);
      int rc = ls_kv_create(&kv, err);
      if (rc) return rc;
      char val[128];
      ls_unc_value(as, 0.5, val, sizeof val);
      int ok = ls_kv_set(kv, as->setting, val, "ranges", &e) == LS_OK &&
               ls_experiment_single(&x, as->n_devices ? as->devices[0] : m->devices[0], m->models[0],
                                    m->datasets[0], m->systems[s], kv, UNC_SEED, ls_data_root(), &e) == LS_OK &&
               ls_decode_check(cache, ls_experiment_run(x, 0), &res, &e) == LS_OK && !res.unknown_key[0];
      reads[a * m->nsys + s] = ok;
      ls_decode_result_free(&res);
      ls_experiment_free(x);
      ls_kv_free(kv);
    }
  }
  return LS_OK;
}

static int listed(const char *const *list, int n, const char *s)
{
  if (!n) return 1;
  for (int i = 0; i < n; i++)
    if (!strcmp(list[i], s)) return 1;
  return 0;
}

/* The settings text of job j at coordinates u (k of them) into buf. */
static void settings_of(const ls_unc_ranges *rg, const unc_matrix *m, const int *reads, const unc_job *j,
                        const double *u, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  int s = 0;
  while (s < m->nsys && strcmp(m->systems[s], j->system)) s++;
  for (int a = 0; a < ls_unc_ranges_count(rg) && n < size; a++) {
    const ls_unc_assumption *as = ls_unc_ranges_at(rg, a);
    if (!as->setting || !reads[a * m->nsys + s] || !listed(as->devices, as->n_devices, j->device) ||
        !listed(as->systems, as->n_systems, j->system))
      continue;
    char v[128];
    ls_unc_value(as, u[a], v, sizeof v);
    n += (size_t)snprintf(buf + n, size - n, "%s=%s;", as->setting, v);
  }
  if (j->extra && n < size) snprintf(buf + n, size - n, "%s", j->extra);
}

/* ---- distinct runs: an open-addressing table of their keys ---- */

typedef struct run_set {
  char **key;     /* owned: "device|model|dataset|system|settings" of each distinct run */
  int *job;       /* a job of each distinct run */
  char **settings; /* owned: its settings text */
  long n, cap;
  long *slot;     /* hash table of indices (-1 empty), size 2 cap */
} run_set;

static long set_add(run_set *s, const unc_job *j, int job, const char *settings)
{
  char key[2048];
  snprintf(key, sizeof key, "%s|%s|%s|%s|%s", j->device, j->model, j->dataset, j->system, settings);
  uint64_t h = ls_key_str(1, key);
  long size = 2 * s->cap, at = (long)(h % (uint64_t)size);
  while (s->slot[at] >= 0) {
    if (!strcmp(s->key[s->slot[at]], key)) return s->slot[at];
    at = (at + 1) % size;
  }
  if (s->n == s->cap) return -1;
  s->key[s->n] = strdup(key), s->settings[s->n] = strdup(settings), s->job[s->n] = job;
  if (!s->key[s->n] || !s->settings[s->n]) return -1;
  s->slot[at] = s->n;
  return s->n++;
}

static void set_free(run_set *s)
{
  for (long i = 0; i < s->n; i++) free(s->key[i]), free(s->settings[i]);
  free(s->key), free(s->settings), free(s->job), free(s->slot);
}

/* ---- the workers ---- */

typedef struct run_msg {
  long idx;
  double met[UNC_NMETRICS];
} run_msg;

static int write_all(int fd, const void *p, size_t n)
{
  const char *c = p;
  while (n) {
    ssize_t w = write(fd, c, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    c += w, n -= (size_t)w;
  }
  return 0;
}

static void worker(int w, int jobs, const run_set *s, const unc_matrix *m, const ls_unc_opts *o, int fd)
{
  ls_decode_cache *cache = NULL;
  ls_error err;
  int rc = ls_decode_cache_create(&cache, ls_data_root(), &err);
  for (long i = 0; !rc && i < s->n; i++) {
    /* a run's worker by a hash of its index: every i mod jobs would give each worker the same
     * systems (the jobs cycle through them), and Sequoia's runs cost several times Lever's */
    if ((int)(ls_key2(91, (uint64_t)i) % (uint64_t)jobs) != w) continue;
    run_msg msg = {i, {0}};
    unc_job j = ls_unc_job(m, s->job[i]);
    if (run_one(cache, &j, s->settings[i], o, msg.met, &err)) {
      fprintf(stderr, "leversim uncertainty: %s/%s/%s/%s [%s]: %s\n", j.device, j.model, j.dataset, j.system,
              s->settings[i], err.msg);
      rc = 1;
    }
    if (!rc && write_all(fd, &msg, sizeof msg)) rc = 1;
  }
  ls_decode_cache_free(cache);
  _exit(rc ? 1 : 0);
}

static void progress(long done, long total, int on)
{
  if (!on) return;
  int width = 40, bar = total ? (int)(width * done / total) : width;
  fprintf(stderr, "\r  [%.*s%*s] %ld/%ld runs", bar, "########################################", width - bar, "", done,
          total);
  if (done == total) fputc('\n', stderr);
}

/* Runs every distinct run in o->jobs processes; met gets n x UNC_NMETRICS values. */
static int run_all(const run_set *s, const unc_matrix *m, const ls_unc_opts *o, double *met, ls_error *err)
{
  int jobs = o->jobs < 1 ? 1 : o->jobs, fds[64];
  pid_t pids[64];
  for (int w = 0; w < jobs; w++) {
    int p[2];
    if (pipe(p)) return ls_error_set(err, LS_EIO, "uncertainty: pipe: %s", strerror(errno));
    fflush(NULL);
    pids[w] = fork();
    if (pids[w] < 0) return ls_error_set(err, LS_EIO, "uncertainty: fork: %s", strerror(errno));
    if (pids[w] == 0) {
      close(p[0]);
      worker(w, jobs, s, m, o, p[1]);
    }
    close(p[1]);
    fds[w] = p[0];
  }
  long done = 0, last = -1;
  int open_fds = jobs, rc = LS_OK;
  while (open_fds > 0) {
    struct pollfd pf[64];
    for (int w = 0; w < jobs; w++) pf[w] = (struct pollfd){fds[w], POLLIN, 0};
    if (poll(pf, (nfds_t)jobs, -1) < 0 && errno != EINTR) break;
    for (int w = 0; w < jobs; w++) {
      if (fds[w] < 0 || !(pf[w].revents & (POLLIN | POLLHUP))) continue;
      run_msg msg;
      ssize_t r = read(fds[w], &msg, sizeof msg); /* a message is below PIPE_BUF: whole */
      if (r == (ssize_t)sizeof msg && msg.idx >= 0 && msg.idx < s->n) {
        memcpy(met + msg.idx * UNC_NMETRICS, msg.met, sizeof msg.met);
        done++;
      } else if (r <= 0) {
        close(fds[w]), fds[w] = -1, open_fds--;
      }
    }
    if (done * 200 / (s->n ? s->n : 1) != last) progress(done, s->n, o->progress), last = done * 200 / (s->n ? s->n : 1);
  }
  for (int w = 0; w < jobs; w++) {
    int st = 0;
    waitpid(pids[w], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) rc = LS_EINVALID;
  }
  if (!rc && done != s->n) rc = LS_EIO;
  return rc ? ls_error_set(err, rc, "uncertainty: %ld of %ld runs failed or were lost (messages above)", s->n - done, s->n)
            : LS_OK;
}

/* Fills r->u with the design's points: A, B, then AB_i for each assumption i. */
static int fill_points(ls_unc_report *r, ls_error *err)
{
  int n = r->n, k = r->k;
  double *a = malloc((size_t)(n * k) * sizeof *a), *b = malloc((size_t)(n * k) * sizeof *b);
  int rc = a && b ? ls_unc_design(n, k, a, b, err) : ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  for (int j = 0; !rc && j < n; j++)
    for (int i = 0; i < k; i++) {
      r->u[(size_t)j * k + i] = a[j * k + i];
      r->u[(size_t)(n + j) * k + i] = b[j * k + i];
      for (int s = 0; s < k; s++) r->u[(size_t)((2 + s) * n + j) * k + i] = s == i ? b[j * k + i] : a[j * k + i];
    }
  free(a), free(b);
  return rc;
}

/* Each point's claims from the metrics of its runs. */
static void judge_points(ls_unc_report *r, const unc_matrix *m, const long *run_of, const double *met)
{
  int nj = ls_unc_jobs(m), wc = -1;
  for (int a = 0; a < r->k; a++)
    if (ls_unc_ranges_at(r->ranges, a)->claim && !strcmp(ls_unc_ranges_at(r->ranges, a)->claim, "wasted")) wc = a;
  double (*pm)[UNC_NMETRICS] = malloc((size_t)nj * sizeof *pm);
  for (int p = 0; pm && p < r->points; p++) {
    for (int j = 0; j < nj; j++) memcpy(pm[j], met + run_of[(size_t)p * nj + j] * UNC_NMETRICS, sizeof pm[j]);
    int tokens = 0;
    if (wc >= 0) {
      const ls_unc_assumption *a = ls_unc_ranges_at(r->ranges, wc);
      char v[64];
      ls_unc_value(a, r->u[(size_t)p * r->k + wc], v, sizeof v);
      tokens = !strcmp(v, "tokens");
    }
    double val[UNC_NCLAIMS];
    signed char h[UNC_NCLAIMS];
    ls_unc_claims_at(m, (const double(*)[UNC_NMETRICS])pm, tokens, val, h);
    for (int c = 0; c < UNC_NCLAIMS; c++) r->val[(size_t)c * r->points + p] = val[c], r->holds[(size_t)c * r->points + p] = h[c];
  }
  free(pm);
}

/* The distinct runs of every (point, job) into s; run_of[p * jobs + j] names each. */
static int plan_runs(ls_unc_report *r, const unc_matrix *m, const int *reads, run_set *s, long *run_of, ls_error *err)
{
  int nj = ls_unc_jobs(m);
  char settings[1800];
  for (int p = 0; p < r->points; p++)
    for (int j = 0; j < nj; j++) {
      unc_job job = ls_unc_job(m, j);
      settings_of(r->ranges, m, reads, &job, r->u + (size_t)p * r->k, settings, sizeof settings);
      long id = set_add(s, &job, j, settings);
      if (id < 0) return ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
      run_of[(size_t)p * nj + j] = id;
    }
  r->runs = (long)r->points * nj;
  r->runs_unique = s->n;
  return LS_OK;
}

static double cpu_seconds(void)
{
  struct rusage a, b;
  getrusage(RUSAGE_SELF, &a);
  getrusage(RUSAGE_CHILDREN, &b);
  return a.ru_utime.tv_sec + a.ru_stime.tv_sec + b.ru_utime.tv_sec + b.ru_stime.tv_sec +
         1e-6 * (double)(a.ru_utime.tv_usec + a.ru_stime.tv_usec + b.ru_utime.tv_usec + b.ru_stime.tv_usec);
}

static int study(ls_unc_report *r, ls_error *err)
{
  unc_matrix m = matrix_of(r->opts.quick);
  int nj = ls_unc_jobs(&m), reads[LS_UNC_MAX_ASSUMPTIONS * 16];
  ls_decode_cache *cache = NULL;
  int rc = ls_decode_cache_create(&cache, ls_data_root(), err);
  if (!rc) rc = find_readers(r->ranges, &m, cache, reads, err);
  ls_decode_cache_free(cache);
  long cap = (long)r->points * nj;
  run_set s = {calloc((size_t)cap, sizeof(char *)), calloc((size_t)cap, sizeof(int)), calloc((size_t)cap, sizeof(char *)),
               0, cap, malloc((size_t)(2 * cap) * sizeof(long))};
  long *run_of = malloc((size_t)cap * sizeof *run_of);
  if (!rc && (!s.key || !s.job || !s.settings || !s.slot || !run_of)) rc = ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  for (long i = 0; !rc && i < 2 * cap; i++) s.slot[i] = -1;
  if (!rc) rc = fill_points(r, err);
  if (!rc) rc = plan_runs(r, &m, reads, &s, run_of, err);
  double *met = rc ? NULL : malloc((size_t)s.n * UNC_NMETRICS * sizeof *met);
  if (!rc && !met) rc = ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  if (!rc) /* the size, before the wait */
    fprintf(stderr, "leversim uncertainty: %d assumptions, %d samples, %d points, %ld distinct runs of %ld\n", r->k, r->n,
            r->points, r->runs_unique, r->runs);
  if (!rc) rc = run_all(&s, &m, &r->opts, met, err);
  if (!rc) judge_points(r, &m, run_of, met);
  free(met), free(run_of);
  set_free(&s);
  return rc;
}

int ls_unc_run(const ls_unc_opts *o, ls_unc_report **out, ls_error *err)
{
  *out = NULL;
  ls_unc_report *r = calloc(1, sizeof *r);
  if (!r) return ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  r->opts = *o;
  double t0 = cpu_seconds();
  int rc = ls_unc_ranges_load(&r->ranges, o->ranges, err);
  if (!rc) {
    r->n = o->samples, r->k = ls_unc_ranges_count(r->ranges), r->points = r->n * (r->k + 2);
    r->u = malloc((size_t)r->points * r->k * sizeof *r->u);
    r->val = malloc((size_t)r->points * UNC_NCLAIMS * sizeof *r->val);
    r->holds = malloc((size_t)r->points * UNC_NCLAIMS);
    if (!r->u || !r->val || !r->holds) rc = ls_error_set(err, LS_ENOMEM, "uncertainty: out of memory");
  }
  if (!rc) rc = study(r, err);
  if (!rc) ls_unc_summarise(r);
  r->cpu_s = cpu_seconds() - t0;
  if (rc) {
    ls_unc_report_free(r);
    return rc;
  }
  *out = r;
  return LS_OK;
}

void ls_unc_report_free(ls_unc_report *r)
{
  if (!r) return;
  ls_unc_ranges_free(r->ranges);
  free(r->u), free(r->val), free(r->holds);
  free(r);
}
