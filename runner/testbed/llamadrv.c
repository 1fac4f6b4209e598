/* runner/testbed/llamadrv: see llamadrv.h.
 *
 * The prototypes and structs below are this project's own declarations of the C interface of
 * the pinned build (llama.cpp commit 0ad4a86 as packaged by node-llama-cpp 3.22.1, whose
 * llama.h differs from upstream's: load_mode/lazy_mode replace the mmap flags, and
 * n_rs_seq/n_outputs_max/n_outputs_max_per_seq/samplers/ctx_other are new). Structs passed by
 * value must match byte for byte, so ls_llamadrv_open checks, before any other call:
 *   - the size: on x86-64 a struct this large is returned through a hidden pointer, so the
 *     default-params functions are called once on a buffer filled with a canary; the bytes
 *     they write end exactly at 80 (model) and 160 (context) bytes;
 *   - the fields: each default the pinned build returns, at its offset (n_gpu_layers -1,
 *     split_mode 1, use_extra_bufts true; n_ctx 512, n_batch 2048, n_ubatch 512, n_seq_max
 *     1, n_outputs_max_per_seq 1, n_threads 4, yarn_ext_factor -1, type_k/type_v F16,
 *     offload_kqv, no_perf, op_offload, swa_full true).
 * Any difference means another build: refused with LS_ESTATE rather than called with a
 * misread struct. */
#define _DEFAULT_SOURCE /* madvise, mincore: Linux calls beyond POSIX */
#include "runner/testbed/llamadrv.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define LIBNAME "libllama.v0.5.0.so" /* the package's name; a plain CMake build (Android) names it libllama.so */
#define LIBNAME_PLAIN "libllama.so"

/* ---- the pinned build's interface, declared here ---- */

struct lp_model_params {
  void *devices;
  const void *tensor_buft_overrides;
  int32_t n_gpu_layers;
  int32_t split_mode;
  int32_t load_mode;  /* enum llama_load_mode; default -1 (auto: mapped) */
  int32_t lazy_mode;
  int32_t main_gpu;
  const float *tensor_split;
  void *progress_callback;
  void *progress_callback_user_data;
  const void *kv_overrides;
  bool vocab_only, check_tensors, use_extra_bufts, no_host, no_alloc, load_mtp;
};

struct lp_context_params {
  uint32_t n_ctx, n_batch, n_ubatch, n_seq_max, n_rs_seq, n_outputs_max, n_outputs_max_per_seq;
  int32_t n_threads, n_threads_batch;
  int32_t ctx_type, rope_scaling_type, pooling_type, attention_type, flash_attn_type;
  float rope_freq_base, rope_freq_scale, yarn_ext_factor, yarn_attn_factor, yarn_beta_fast, yarn_beta_slow;
  uint32_t yarn_orig_ctx;
  float defrag_thold;
  void *cb_eval, *cb_eval_user_data;
  int32_t type_k, type_v;
  void *abort_callback, *abort_callback_data;
  bool embeddings, offload_kqv, no_perf, op_offload, swa_full, kv_unified;
  void *samplers;
  size_t n_samplers;
  void *ctx_other;
};

struct lp_batch {
  int32_t n_tokens;
  int32_t *token;
  float *embd;
  int32_t *pos;
  int32_t *n_seq_id;
  int32_t **seq_id;
  int8_t *logits;
};

_Static_assert(sizeof(struct lp_model_params) == 80 || sizeof(void *) != 8, "model params: 80 bytes");
_Static_assert(sizeof(struct lp_context_params) == 160 || sizeof(void *) != 8, "context params: 160 bytes");

typedef struct lp_model lp_model;
typedef struct lp_context lp_context;
typedef void *lp_memory;
typedef void (*lp_log_fn)(int level, const char *text, void *user);

typedef struct api {
  void (*backend_init)(void);
  void (*backend_free)(void);
  void (*load_all_from_path)(const char *dir);
  void (*log_set)(lp_log_fn fn, void *user);
  struct lp_model_params (*model_default_params)(void);
  struct lp_context_params (*context_default_params)(void);
  lp_model *(*model_load_from_file)(const char *path, struct lp_model_params p);
  void (*model_free)(lp_model *m);
  uint64_t (*model_size)(const lp_model *m);
  lp_context *(*init_from_model)(lp_model *m, struct lp_context_params p);
  void (*free)(lp_context *c);
  int32_t (*n_threads)(lp_context *c);
  struct lp_batch (*batch_init)(int32_t n_tokens, int32_t embd, int32_t n_seq_max);
  void (*batch_free)(struct lp_batch b);
  int32_t (*decode)(lp_context *c, struct lp_batch b);
  float *(*get_logits_ith)(lp_context *c, int32_t i);
  lp_memory (*get_memory)(const lp_context *c);
  void (*memory_clear)(lp_memory mem, bool data);
  bool (*memory_seq_rm)(lp_memory mem, int32_t seq, int32_t p0, int32_t p1);
  void (*synchronize)(lp_context *c);
} api;

struct ls_llamadrv {
  void *lib;
  api f;
};

struct ls_llamadrv_model {
  ls_llamadrv *d;
  lp_model *model;
  lp_context *ctx;
  struct lp_batch batch;
  int n_batch, n_seq, n_vocab;
  char path[4096];
  void (*observe)(const char *node, void *user); /* ls_llamadrv_opts; NULL: none */
  void *observe_user;
  const char *(*node_name)(const void *tensor);  /* ggml_get_name, when observing */
};

/* The scheduler's evaluation callback (ggml_backend_sched_eval_callback): asked whether a node
 * is wanted (ask: yes, every one), then told it has been computed; true goes on. */
static bool on_node(void *tensor, bool ask, void *user)
{
  ls_llamadrv_model *m = user;
  if (!ask)
    m->observe(m->node_name(tensor), m->observe_user);
  return true;
}

static void quiet(int level, const char *text, void *user)
{
  (void)user;
  if (level >= 4) /* GGML_LOG_LEVEL_ERROR: keep errors, drop the load chatter */
    fputs(text, stderr);
}

/* Load progress: silent (the library's default prints dots), never cancels. */
static bool no_progress(float progress, void *user)
{
  (void)progress;
  (void)user;
  return true;
}

/* ---- layout check ---- */

#if defined(__x86_64__)
/* Bytes a default-params function writes into its hidden return pointer. */
static int written_size(void *fn, size_t cap)
{
  unsigned char buf[512];
  memset(buf, 0xa5, sizeof buf);
  void *(*call)(void *) = (void *(*)(void *))fn; /* SysV x86-64: large structs return via %rdi */
  call(buf);
  int last = -1;
  for (size_t i = 0; i < cap && i < sizeof buf; i++)
    if (buf[i] != 0xa5)
      last = (int)i;
  return last + 1;
}
#endif

static int check_layout(ls_llamadrv *d, void *mfn, void *cfn, ls_error *err)
{
#if defined(__x86_64__)
  /* The last field of each struct is written (zero) by the defaults; padding after
   * load_mtp may or may not be. */
  int ms = written_size(mfn, 256), cs = written_size(cfn, 512);
  if (ms < 78 || ms > 80 || cs != 160)
    return ls_error_set(err, LS_ESTATE, "%s: parameter structs of %d and %d bytes, this driver is pinned to 80 and "
                        "160 (node-llama-cpp " LS_LLAMADRV_VERSION "): another build", LIBNAME, ms, cs);
#else
  (void)mfn;
  (void)cfn;
#endif
  struct lp_model_params m = d->f.model_default_params();
  struct lp_context_params c = d->f.context_default_params();
  struct { const char *what; int ok; } checks[] = {
      {"model.n_gpu_layers == -1", m.n_gpu_layers == -1},
      {"model.split_mode == 1", m.split_mode == 1},
      {"model.use_extra_bufts", m.use_extra_bufts && !m.vocab_only && !m.check_tensors && !m.no_alloc},
      {"context.n_ctx == 512", c.n_ctx == 512},
      {"context.n_batch == 2048", c.n_batch == 2048},
      {"context.n_ubatch == 512", c.n_ubatch == 512},
      {"context.n_seq_max == 1", c.n_seq_max == 1},
      {"context.n_outputs_max_per_seq == 1", c.n_outputs_max_per_seq == 1},
      {"context.n_threads == 4", c.n_threads == 4 && c.n_threads_batch == 4},
      {"context.yarn_ext_factor == -1", c.yarn_ext_factor == -1.0f},
      {"context.type_k/type_v == F16", c.type_k == 1 && c.type_v == 1},
      {"context.offload_kqv/no_perf/op_offload/swa_full", c.offload_kqv && c.no_perf && c.op_offload && c.swa_full &&
                                                              !c.kv_unified && !c.embeddings},
      {"context.samplers == NULL", c.samplers == NULL && c.n_samplers == 0 && c.ctx_other == NULL},
  };
  for (size_t k = 0; k < sizeof checks / sizeof checks[0]; k++)
    if (!checks[k].ok)
      return ls_error_set(err, LS_ESTATE, "%s: default parameters differ from the pinned build (%s fails): the "
                          "driver's struct layout does not match this library", LIBNAME, checks[k].what);
  return LS_OK;
}

int ls_llamadrv_open(ls_llamadrv **out, const char *libdir, ls_error *err)
{
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", libdir, LIBNAME);
  if (access(path, R_OK) != 0)
    snprintf(path, sizeof path, "%s/%s", libdir, LIBNAME_PLAIN);
  if (access(path, R_OK) != 0)
    return ls_error_set(err, LS_ENOTFOUND, "%s/%s: not found (scripts/testbed/fetch.sh installs it)", libdir, LIBNAME);
  ls_llamadrv *d = calloc(1, sizeof *d);
  if (!d)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  d->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!d->lib) {
    int rc = ls_error_set(err, LS_ENOTFOUND, "%s: dlopen: %s", path, dlerror());
    free(d);
    return rc;
  }
  struct { const char *name; void **slot; } syms[] = {
      {"llama_backend_init", (void **)&d->f.backend_init},
      {"llama_backend_free", (void **)&d->f.backend_free},
      {"ggml_backend_load_all_from_path", (void **)&d->f.load_all_from_path},
      {"llama_log_set", (void **)&d->f.log_set},
      {"llama_model_default_params", (void **)&d->f.model_default_params},
      {"llama_context_default_params", (void **)&d->f.context_default_params},
      {"llama_model_load_from_file", (void **)&d->f.model_load_from_file},
      {"llama_model_free", (void **)&d->f.model_free},
      {"llama_model_size", (void **)&d->f.model_size},
      {"llama_init_from_model", (void **)&d->f.init_from_model},
      {"llama_free", (void **)&d->f.free},
      {"llama_n_threads", (void **)&d->f.n_threads},
      {"llama_batch_init", (void **)&d->f.batch_init},
      {"llama_batch_free", (void **)&d->f.batch_free},
      {"llama_decode", (void **)&d->f.decode},
      {"llama_get_logits_ith", (void **)&d->f.get_logits_ith},
      {"llama_get_memory", (void **)&d->f.get_memory},
      {"llama_memory_clear", (void **)&d->f.memory_clear},
      {"llama_memory_seq_rm", (void **)&d->f.memory_seq_rm},
      {"llama_synchronize", (void **)&d->f.synchronize},
  };
  for (size_t k = 0; k < sizeof syms / sizeof syms[0]; k++) {
    void *p = dlsym(d->lib, syms[k].name);
    if (!p) {
      int rc = ls_error_set(err, LS_ESTATE, "%s: symbol %s missing: not the pinned build", path, syms[k].name);
      ls_llamadrv_close(d);
      return rc;
    }
    /* POSIX guarantees that a data pointer from dlsym converts to a function pointer. */
    memcpy(syms[k].slot, &p, sizeof p);
  }
  void *mfn = dlsym(d->lib, "llama_model_default_params"), *cfn = dlsym(d->lib, "llama_context_default_params");
  int rc = check_layout(d, mfn, cfn, err);
  if (rc) {
    ls_llamadrv_close(d);
    return rc;
  }
  d->f.log_set(quiet, NULL);
  d->f.backend_init();
  d->f.load_all_from_path(libdir);
  *out = d;
  return LS_OK;
}

void ls_llamadrv_close(ls_llamadrv *d)
{
  if (!d)
    return;
  if (d->f.backend_free)
    d->f.backend_free();
  /* The library is left loaded: ggml registers backends and atexit state that dlclose
   * would pull out from under. */
  free(d);
}

ls_llamadrv_opts ls_llamadrv_defaults(void)
{
  ls_llamadrv_opts o = {1, 0, 512, 256, 1, NULL, NULL};
  return o;
}

int ls_llamadrv_load(ls_llamadrv *d, const char *gguf, const ls_llamadrv_opts *o, ls_llamadrv_model **out,
                     ls_error *err)
{
  ls_llamadrv_opts def = ls_llamadrv_defaults();
  if (!o)
    o = &def;
  if (o->threads < 1 || o->threads > 256 || o->n_ctx < 16 || o->n_batch < 1 || o->n_seq < 1 ||
      o->n_seq > 256)
    return ls_error_set(err, LS_ERANGE, "llama: threads %d, n_ctx %d, n_batch %d, n_seq %d out of range",
                        o->threads, o->n_ctx, o->n_batch, o->n_seq);
  if (access(gguf, R_OK) != 0)
    return ls_error_set(err, LS_ENOTFOUND, "%s: %s", gguf, strerror(errno));
  ls_llamadrv_model *m = calloc(1, sizeof *m);
  if (!m)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  m->d = d;
  snprintf(m->path, sizeof m->path, "%s", gguf);
  struct lp_model_params mp = d->f.model_default_params();
  mp.n_gpu_layers = 0;
  mp.use_extra_bufts = o->repack != 0;
  bool (*progress)(float, void *) = no_progress;
  memcpy(&mp.progress_callback, &progress, sizeof progress);
  m->model = d->f.model_load_from_file(gguf, mp);
  if (!m->model) {
    free(m);
    return ls_error_set(err, LS_EPARSE, "%s: llama.cpp could not load the model", gguf);
  }
  struct lp_context_params cp = d->f.context_default_params();
  cp.n_ctx = (uint32_t)o->n_ctx;
  cp.n_batch = cp.n_ubatch = (uint32_t)o->n_batch;
  cp.n_seq_max = (uint32_t)o->n_seq;
  cp.n_outputs_max = (uint32_t)o->n_batch;
  cp.n_outputs_max_per_seq = (uint32_t)o->n_batch;
  cp.n_threads = cp.n_threads_batch = o->threads;
  cp.kv_unified = o->n_seq > 1; /* a cell shared by several branches needs one cache */
  cp.flash_attn_type = 0;       /* disabled: the plain attention path, the same for every pass */
  if (o->observe) {
    void *fn = dlsym(d->lib, "ggml_get_name");
    if (!fn) {
      d->f.model_free(m->model);
      free(m);
      return ls_error_set(err, LS_ESTATE, "%s: symbol ggml_get_name missing: not the pinned build", LIBNAME);
    }
    memcpy(&m->node_name, &fn, sizeof fn);
    m->observe = o->observe;
    m->observe_user = o->observe_user;
    bool (*cb)(void *, bool, void *) = on_node;
    memcpy(&cp.cb_eval, &cb, sizeof cb);
    cp.cb_eval_user_data = m;
  }
  m->ctx = d->f.init_from_model(m->model, cp);
  if (!m->ctx) {
    d->f.model_free(m->model);
    free(m);
    return ls_error_set(err, LS_ESTATE, "%s: llama.cpp could not create a context (n_ctx %d, n_seq %d)", gguf,
                        o->n_ctx, o->n_seq);
  }
  m->batch = d->f.batch_init(o->n_batch, 0, LS_LLAMADRV_MAX_SEQ);
  m->n_batch = o->n_batch;
  m->n_seq = o->n_seq;
  *out = m;
  return LS_OK;
}

void ls_llamadrv_unload(ls_llamadrv_model *m)
{
  if (!m)
    return;
  m->d->f.batch_free(m->batch);
  m->d->f.free(m->ctx);
  m->d->f.model_free(m->model);
  free(m);
}

int ls_llamadrv_threads(const ls_llamadrv_model *m)
{
  return m->d->f.n_threads(m->ctx);
}

uint64_t ls_llamadrv_model_bytes(const ls_llamadrv_model *m)
{
  return m->d->f.model_size(m->model);
}

/* ---- timing ---- */

static double clock_s(clockid_t id)
{
  struct timespec ts;
  clock_gettime(id, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t io_read_bytes(void)
{
  FILE *f = fopen("/proc/self/io", "r");
  if (!f)
    return 0;
  char line[128];
  unsigned long long v = 0;
  while (fgets(line, sizeof line, f))
    if (sscanf(line, "read_bytes: %llu", &v) == 1)
      break;
  fclose(f);
  return (uint64_t)v;
}

/* The calling thread's time waiting for a CPU while runnable (/proc/thread-self/schedstat,
 * second field, ns): other processes' share of the cores, which a dedicated device would not
 * see. 0 when the kernel does not report it. */
static double runqueue_s(void)
{
  FILE *f = fopen("/proc/thread-self/schedstat", "r");
  if (!f)
    return 0;
  unsigned long long run = 0, wait = 0;
  int n = fscanf(f, "%llu %llu", &run, &wait);
  fclose(f);
  return n == 2 ? (double)wait * 1e-9 : 0;
}

typedef struct snap {
  double wall, cpu, thr, rq;
  long majflt, minflt;
  uint64_t rb;
} snap;

static void take(snap *s)
{
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  s->majflt = ru.ru_majflt;
  s->minflt = ru.ru_minflt;
  s->rb = io_read_bytes();
  s->cpu = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  s->thr = clock_s(CLOCK_THREAD_CPUTIME_ID);
  s->rq = runqueue_s();
  s->wall = clock_s(CLOCK_MONOTONIC);
}

/* The cost of what ran between snapshots a and b (time_s: wall less the time spent waiting
 * for a core, which other processes on the machine decide). */
static void cost_between(const snap *a, const snap *b, ls_llamadrv_cost *cost)
{
  cost->wall_s = b->wall - a->wall;
  cost->cpu_s = b->cpu - a->cpu;
  cost->thread_cpu_s = b->thr - a->thr;
  cost->runqueue_s = b->rq - a->rq;
  cost->time_s = cost->wall_s - cost->runqueue_s;
  cost->majflt = b->majflt - a->majflt;
  cost->minflt = b->minflt - a->minflt;
  cost->read_bytes = b->rb - a->rb;
}

int ls_llamadrv_decode(ls_llamadrv_model *m, const ls_llamadrv_tok *t, int n, ls_llamadrv_cost *cost,
                       ls_error *err)
{
  if (n < 1 || n > m->n_batch)
    return ls_error_set(err, LS_ERANGE, "llama: a batch of %d tokens (1..%d)", n, m->n_batch);
  struct lp_batch *b = &m->batch;
  for (int i = 0; i < n; i++) {
    if (t[i].n_seq < 1 || t[i].n_seq > LS_LLAMADRV_MAX_SEQ)
      return ls_error_set(err, LS_ERANGE, "llama: token %d in %d sequences", i, t[i].n_seq);
    b->token[i] = t[i].id;
    b->pos[i] = t[i].pos;
    b->n_seq_id[i] = t[i].n_seq;
    for (int k = 0; k < t[i].n_seq; k++) {
      if (t[i].seq[k] < 0 || t[i].seq[k] >= m->n_seq)
        return ls_error_set(err, LS_ERANGE, "llama: token %d: sequence %d (0..%d)", i, t[i].seq[k], m->n_seq - 1);
      b->seq_id[i][k] = t[i].seq[k];
    }
    b->logits[i] = (int8_t)(t[i].logits != 0);
  }
  b->n_tokens = n;
  snap s0, s1;
  take(&s0);
  int32_t rc = m->d->f.decode(m->ctx, *b);
  m->d->f.synchronize(m->ctx);
  take(&s1);
  if (rc != 0)
    return ls_error_set(err, LS_ERUN, "%s: llama_decode of %d tokens returned %d", m->path, n, rc);
  for (int i = 0; i < n; i++) {
    if (!t[i].logits)
      continue;
    const float *row = m->d->f.get_logits_ith(m->ctx, i);
    if (!row || !isfinite(row[0]) || !isfinite(row[1]))
      return ls_error_set(err, LS_ENUMERIC, "%s: token %d: the output row is not finite", m->path, i);
  }
  if (cost) {
    cost_between(&s0, &s1, cost);
  }
  return LS_OK;
}

int ls_llamadrv_prompt(ls_llamadrv_model *m, int n, int start, ls_llamadrv_cost *cost, ls_error *err)
{
  ls_llamadrv_tok *t = calloc((size_t)(n > 0 ? n : 1), sizeof *t);
  if (!t)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    t[i].id = 3 + (start + i) % 256; /* byte tokens: valid in every vocabulary written here */
    t[i].pos = start + i;
    t[i].n_seq = 1;
    t[i].logits = i == n - 1;
  }
  int rc = ls_llamadrv_decode(m, t, n, cost, err);
  free(t);
  return rc;
}

void ls_llamadrv_clear(ls_llamadrv_model *m)
{
  m->d->f.memory_clear(m->d->f.get_memory(m->ctx), true);
}

int ls_llamadrv_seq_rm(ls_llamadrv_model *m, int seq, int p0, int p1, ls_error *err)
{
  if (!m->d->f.memory_seq_rm(m->d->f.get_memory(m->ctx), seq, p0, p1))
    return ls_error_set(err, LS_ESTATE, "llama: cannot remove positions %d..%d of sequence %d", p0, p1, seq);
  return LS_OK;
}

/* ---- the page cache ---- */

int ls_llamadrv_evict(ls_llamadrv_model *m, int *mappings, ls_error *err)
{
  return ls_llamadrv_evict_file(m->path, mappings, err);
}

int ls_llamadrv_evict_file(const char *path, int *mappings, ls_error *err)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return ls_error_set(err, LS_EIO, "%s: %s", path, strerror(errno));
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f)
    return ls_error_set(err, LS_EIO, "/proc/self/maps: %s", strerror(errno));
  char line[4608];
  int n = 0, rc = LS_OK;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi, ino;
    unsigned maj, mnr;
    char perms[8];
    unsigned long long off;
    if (sscanf(line, "%lx-%lx %7s %llx %x:%x %lu", &lo, &hi, perms, &off, &maj, &mnr, &ino) != 7)
      continue;
    /* The file by inode (a path in maps may be shown with " (deleted)" or relative). */
    if (ino != (unsigned long)st.st_ino || makedev(maj, mnr) != st.st_dev)
      continue;
    if (madvise((void *)lo, hi - lo, MADV_DONTNEED) != 0) {
      rc = ls_error_set(err, LS_EIO, "%s: madvise(MADV_DONTNEED) on %lx-%lx: %s", path, lo, hi, strerror(errno));
      break;
    }
    n++;
  }
  fclose(f);
  if (rc)
    return rc;
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return ls_error_set(err, LS_EIO, "%s: %s", path, strerror(errno));
  int a = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  if (a != 0)
    return ls_error_set(err, LS_EIO, "%s: posix_fadvise(DONTNEED): %s", path, strerror(a));
  if (mappings)
    *mappings = n;
  return LS_OK;
}

/* Maps the whole of path read-only: *p and *len on success; the descriptor stays open in *fd
 * (the caller closes it) when fd is not NULL, else it is closed at once. */
static int map_whole(const char *path, void **p, size_t *len, int *fd_out, ls_error *err)
{
  int fd = open(path, O_RDONLY);
  if (fd < 0)
    return ls_error_set(err, LS_EIO, "%s: %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size <= 0) {
    close(fd);
    return ls_error_set(err, LS_EIO, "%s: cannot size the file", path);
  }
  *len = (size_t)st.st_size;
  *p = mmap(NULL, *len, PROT_READ, MAP_SHARED, fd, 0);
  if (*p == MAP_FAILED) {
    close(fd);
    return ls_error_set(err, LS_EIO, "%s: mmap: %s", path, strerror(errno));
  }
  if (fd_out)
    *fd_out = fd;
  else
    close(fd);
  return LS_OK;
}

int ls_llamadrv_resident(const char *path, uint64_t *bytes, ls_error *err)
{
  void *p;
  size_t len;
  int rc0 = map_whole(path, &p, &len, NULL, err);
  if (rc0)
    return rc0;
  long pg = sysconf(_SC_PAGESIZE);
  size_t pages = (len + (size_t)pg - 1) / (size_t)pg;
  unsigned char *vec = malloc(pages);
  int rc = LS_OK;
  if (!vec) {
    rc = ls_error_set(err, LS_ENOMEM, "out of memory");
  } else if (mincore(p, len, vec) != 0) {
    rc = ls_error_set(err, LS_EIO, "%s: mincore: %s", path, strerror(errno));
  } else {
    uint64_t r = 0;
    for (size_t i = 0; i < pages; i++)
      r += vec[i] & 1;
    *bytes = r * (uint64_t)pg;
  }
  free(vec);
  munmap(p, len);
  return rc;
}

/* Fixed arithmetic: a dependent chain of multiply-adds the compiler cannot drop (volatile), so
 * `iters` costs the same CPU time whatever the pages hold. */
static void spin(uint64_t iters)
{
  volatile double x = 1.0;
  for (uint64_t i = 0; i < iters; i++)
    x = x * 1.0000001 + 1e-9;
}

uint64_t ls_llamadrv_spin_rate(void)
{
  snap a, b;
  uint64_t n = 20000000;
  take(&a);
  spin(n);
  take(&b);
  double s = b.thr - a.thr;
  return s > 0 ? (uint64_t)(n / s) : n * 10;
}

/* The memory-bound work: sums `bytes` bytes of a warm 64 MiB buffer as 64-bit words, reading on
 * from where the last call stopped (wrapping), as a matmul reads weights that are in memory. */
#define MEM_BUF (64u << 20)
typedef struct mem_work {
  const uint64_t *buf; /* MEM_BUF bytes, written once so that every page is resident */
  size_t at;           /* next word */
  uint64_t sum;
} mem_work;

static void mem_read(mem_work *w, uint64_t bytes)
{
  size_t words = MEM_BUF / sizeof(uint64_t);
  uint64_t s = w->sum;
  for (uint64_t k = bytes / sizeof(uint64_t); k > 0; k--) {
    s += w->buf[w->at];
    w->at = w->at + 1 < words ? w->at + 1 : 0;
  }
  w->sum = s;
}

static int mem_open(mem_work *w)
{
  void *b = mmap(NULL, MEM_BUF, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (b == MAP_FAILED)
    return -1;
  memset(b, 1, MEM_BUF);
  w->buf = b;
  w->at = 0;
  w->sum = 0;
  return 0;
}

static void mem_close(mem_work *w)
{
  if (w->buf)
    munmap((void *)w->buf, MEM_BUF);
  w->buf = NULL;
}

uint64_t ls_llamadrv_mem_rate(void)
{
  mem_work w = {0};
  if (mem_open(&w))
    return 0;
  snap a, b;
  uint64_t n = 4ull * MEM_BUF;
  take(&a);
  mem_read(&w, n);
  take(&b);
  volatile uint64_t sink = w.sum;
  (void)sink;
  mem_close(&w);
  double s = b.thr - a.thr;
  return s > 0 ? (uint64_t)((double)n / s) : n * 10;
}

/* Touches one byte of every page of the mapping in file order, after each touch spinning
 * `per_page` iterations (mem NULL) or reading `per_page` bytes of warm memory. */
static void touch(const void *p, size_t len, uint64_t per_page, mem_work *mem)
{
  long pg = sysconf(_SC_PAGESIZE);
  volatile unsigned char sink = 0;
  for (size_t off = 0; off < len; off += (size_t)pg) {
    sink ^= ((const volatile unsigned char *)p)[off];
    if (mem)
      mem_read(mem, per_page);
    else
      spin(per_page);
  }
  (void)sink;
}

static int stream_work(const char *path, int cold, uint64_t work, int mem, ls_llamadrv_cost *cost, ls_error *err)
{
  void *p;
  size_t len;
  int fd;
  int rc0 = map_whole(path, &p, &len, &fd, err);
  if (rc0)
    return rc0;
  int rc = LS_OK;
  mem_work w = {0};
  if (mem && mem_open(&w))
    rc = ls_error_set(err, LS_ENOMEM, "cannot map %u MiB of working memory", MEM_BUF >> 20);
  if (!rc && cold && (madvise(p, len, MADV_DONTNEED) != 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0))
    rc = ls_error_set(err, LS_EIO, "%s: cannot evict: %s", path, strerror(errno));
  if (!cold && !rc)
    touch(p, len, 0, NULL); /* pages in, so that the timed loop below reads none */
  size_t pg = (size_t)sysconf(_SC_PAGESIZE), pages = (len + pg - 1) / pg;
  uint64_t per_page = pages ? work / pages : 0;
  snap s0, s1;
  take(&s0);
  if (!rc)
    touch(p, len, per_page, mem ? &w : NULL);
  take(&s1);
  volatile uint64_t sink = w.sum;
  (void)sink;
  mem_close(&w);
  munmap(p, len);
  close(fd);
  if (!rc && cost)
    cost_between(&s0, &s1, cost);
  return rc;
}

int ls_llamadrv_stream_busy(const char *path, int cold, uint64_t iters, ls_llamadrv_cost *cost, ls_error *err)
{
  return stream_work(path, cold, iters, 0, cost, err);
}

int ls_llamadrv_stream_busy_mem(const char *path, int cold, uint64_t bytes, ls_llamadrv_cost *cost, ls_error *err)
{
  return stream_work(path, cold, bytes, 1, cost, err);
}

int ls_llamadrv_stream(const char *path, ls_llamadrv_cost *cost, ls_error *err)
{
  return ls_llamadrv_stream_busy(path, 1, 0, cost, err);
}
