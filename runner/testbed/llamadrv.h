/* runner/testbed/llamadrv: drives a real llama.cpp (the prebuilt libllama of the pinned npm
 * package @node-llama-cpp/linux-x64 3.22.1, scripts/testbed/fetch.sh) from C: dlopen, the
 * prototypes declared here by hand, the parameter structs pinned to that build and checked at
 * run time against the library's own defaults (llamadrv.c). One model, one context, one
 * thread by default (two threads on two shared cores time erratically).
 *
 * It also moves the model file out of memory (evict: madvise(MADV_DONTNEED) on every mapping
 * of the file in this process, then posix_fadvise(POSIX_FADV_DONTNEED); the second alone does
 * nothing while the pages are mapped) and counts what a pass costs: wall time, the time the
 * thread waited for a core (other engineers build on the same two cores), CPU time of the
 * process and of the calling thread, page faults, and bytes the kernel read from storage for
 * this process (/proc/self/io read_bytes). */
#ifndef LS_RUNNER_TESTBED_LLAMADRV_H
#define LS_RUNNER_TESTBED_LLAMADRV_H
#include <stdint.h>
#include "sim/error.h"

#define LS_LLAMADRV_MAX_SEQ 64   /* sequences one token may belong to (tree branches) */
#define LS_LLAMADRV_VERSION "3.22.1"

typedef struct ls_llamadrv ls_llamadrv;             /* the loaded library */
typedef struct ls_llamadrv_model ls_llamadrv_model; /* a model with its context */

typedef struct ls_llamadrv_opts {
  int threads;     /* compute threads (n_threads and n_threads_batch); default 1 */
  int repack;      /* 1: let the CPU backend repack Q4_0 weights into its own buffers at load
                      (use_extra_bufts, the library's default); 0: compute from the mapped file */
  int n_ctx;       /* KV cells; default 512 */
  int n_batch;     /* most tokens one decode takes; default 256 */
  int n_seq;       /* sequences (tree branches); > 1 makes the KV cache unified; default 1 */
  /* For probes (`testbed probe --kind nodes`): called right after the library has computed each
   * node of a pass, with the node's name as the library gives it (e.g. "ffn_up-3"); borrowed,
   * valid during the call. NULL (the default): none, and a pass is computed as one graph; with
   * an observer the library computes node by node, which costs time of its own. */
  void (*observe)(const char *node, void *user);
  void *observe_user;
} ls_llamadrv_opts;

/* What one decode call cost. */
typedef struct ls_llamadrv_cost {
  double wall_s, cpu_s, thread_cpu_s; /* CLOCK_MONOTONIC; process; calling thread */
  double runqueue_s;                  /* calling thread runnable but waiting for a core */
  double time_s;                      /* wall_s - runqueue_s: the pass's time on a machine no
                                         other process competes for (what is compared) */
  long majflt, minflt;                /* page faults of the process */
  uint64_t read_bytes;                /* bytes read from storage (/proc/self/io), 0 if unknown */
} ls_llamadrv_cost;

/* One token of a batch. */
typedef struct ls_llamadrv_tok {
  int id, pos;
  int n_seq;
  int seq[LS_LLAMADRV_MAX_SEQ];
  int logits;      /* 1: the library computes this row's output projection */
} ls_llamadrv_tok;

/* dlopens libdir/libllama.v0.5.0.so, resolves every symbol, checks the parameter layouts,
 * initialises the backend and loads the CPU backends found in libdir. LS_ENOTFOUND when the
 * library is missing, LS_ESTATE when its layout is not the pinned one. *out owned by caller. */
int ls_llamadrv_open(ls_llamadrv **out, const char *libdir, ls_error *err);
void ls_llamadrv_close(ls_llamadrv *d);

/* Defaults of ls_llamadrv_opts (1 thread, no repacking, 512 cells, batch 256, 1 sequence). */
ls_llamadrv_opts ls_llamadrv_defaults(void);
/* Loads a GGUF model (memory-mapped, as the library does by default) and makes a context.
 * d must outlive the model. *out owned by caller (ls_llamadrv_unload). */
int ls_llamadrv_load(ls_llamadrv *d, const char *gguf, const ls_llamadrv_opts *o, ls_llamadrv_model **out,
                     ls_error *err);
void ls_llamadrv_unload(ls_llamadrv_model *m);
/* Threads the library's context says it computes with (llama_n_threads). */
int ls_llamadrv_threads(const ls_llamadrv_model *m);
/* Bytes of weights the library reports for the model (llama_model_size). */
uint64_t ls_llamadrv_model_bytes(const ls_llamadrv_model *m);

/* One llama_decode of n tokens, timed (cost may be NULL). Checks that every requested output
 * row is finite. */
int ls_llamadrv_decode(ls_llamadrv_model *m, const ls_llamadrv_tok *t, int n, ls_llamadrv_cost *cost,
                       ls_error *err);
/* A pass as llama-bench times a prompt: n tokens at positions start.., sequence 0, the last
 * one's logits. */
int ls_llamadrv_prompt(ls_llamadrv_model *m, int n, int start, ls_llamadrv_cost *cost, ls_error *err);
/* Clears the whole KV cache. */
void ls_llamadrv_clear(ls_llamadrv_model *m);
/* Removes positions [p0, p1) of sequence seq from the KV cache (seq -1: every sequence, p1
 * -1: to the end). */
int ls_llamadrv_seq_rm(ls_llamadrv_model *m, int seq, int p0, int p1, ls_error *err);

/* Drops the model file's pages from memory (see above). *mappings receives how many mappings
 * of the file were advised. */
int ls_llamadrv_evict(ls_llamadrv_model *m, int *mappings, ls_error *err);
/* The same for the file at path, whether a model of it is loaded or not. */
int ls_llamadrv_evict_file(const char *path, int *mappings, ls_error *err);
/* Bytes of a file resident in the page cache (mincore over a mapping of it). */
int ls_llamadrv_resident(const char *path, uint64_t *bytes, ls_error *err);

/* Reads a file from a cold page cache the way a mapped model is read, without compute: evicts
 * it, maps it, touches one byte of every page in file order, timed. Its rate is what the
 * kernel's read-ahead of a mapping delivers (devices/mapread.h). */
int ls_llamadrv_stream(const char *path, ls_llamadrv_cost *cost, ls_error *err);
/* The same touch loop with `iters` iterations of fixed arithmetic (no memory traffic) spread
 * evenly over the pages, after each page's touch: from a cold page cache (cold = 1: how much a busy thread slows the reads, the
 * `stream-busy` passes) or over the file already cached (cold = 0: the loop's own cost, the
 * `busy-warm` passes). */
int ls_llamadrv_stream_busy(const char *path, int cold, uint64_t iters, ls_llamadrv_cost *cost, ls_error *err);
/* Iterations of that arithmetic per second of this thread's CPU time (timed once, 20 M). */
uint64_t ls_llamadrv_spin_rate(void);
/* The same loop whose work after each page reads memory instead: `bytes` bytes in all of a warm
 * 64 MiB buffer, summed as 64-bit words in order (wrapping), as a matmul reads weights already
 * in memory (the `stream-busy-mem` and `busy-mem-warm` passes, runner/testbed/measure.h). */
int ls_llamadrv_stream_busy_mem(const char *path, int cold, uint64_t bytes, ls_llamadrv_cost *cost, ls_error *err);
/* Bytes per second of that reading, per second of this thread's CPU time (timed once, 256 MiB). */
uint64_t ls_llamadrv_mem_rate(void);

#endif
