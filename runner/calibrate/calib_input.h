/* runner/calib_input: readers for the measurements `leversim calibrate` fits a profile to.
 *
 * - llama.cpp `llama-bench` results, CSV (`-o csv`), JSON (`-o json`, an array of objects) or
 *   JSONL (`-o jsonl`, one object a line). Field names as written by llama-bench's printers
 *   (src:llamacpp-bench): model_filename, model_type, backends, n_threads, n_gpu_layers,
 *   n_prompt, n_gen, avg_ts, stddev_ts; optional avg_ns (unit cross-check) and n_depth.
 * - `fio --output-format=json` results: "fio version", jobs[].read.{bw_bytes, bw, bw_dev, iops,
 *   clat_ns.percentile}, options bs / iodepth / direct from "global options" or each job's
 *   "job options" (the job's own win).
 * CSV follows RFC 4180: comma-separated fields, records end in LF or CRLF, a field in double
 * quotes may hold commas, line breaks and doubled quotes ("").
 *
 * Rows name our model ids (workloads/models) by one rule, unless the caller forces one: the
 * file name's letters and digits, lower-cased, must contain an id's letters and digits
 * ("Llama-3.2-1B-Instruct-Q4_0.gguf" -> "llama321binstructq40gguf" contains "llama321b");
 * the longest such id wins. The quantisation is the first of q4_0, q8_0, f16 found in
 * model_type ("llama 1B Q4_0"). A row is an NPU row when its backends name HTP or Hexagon
 * and n_gpu_layers > 0, a CPU row when the backend is CPU only or n_gpu_layers is 0; other
 * backends (OpenCL, Vulkan: the Adreno GPU) are read and ignored by the fit (no GPU model).
 *
 * Every error is located: file:line for CSV and JSON syntax, "file: $[i].key" (a JSON path)
 * for values, and is a data error (exit 65): malformed files, missing columns, unknown
 * models, mixed units (avg_ts vs avg_ns, bw vs bw_bytes, bs vs bw_bytes/iops disagree),
 * zero, negative or NaN rates, and a file written by another tool. */
#ifndef LS_RUNNER_CALIB_INPUT_H
#define LS_RUNNER_CALIB_INPUT_H
#include "sim/error.h"

#define LS_CALIB_WHERE 320
#define LS_CALIB_PCT_MAX 32

typedef enum { LS_CALIB_CPU = 0, LS_CALIB_NPU = 1, LS_CALIB_OTHER = 2 } ls_calib_backend;

/* One llama-bench test (a row of its output). */
typedef struct ls_bench_row {
  char where[LS_CALIB_WHERE]; /* "file:line" or "file: $[i]" */
  char file[LS_PATH_MAX];             /* input file as given */
  char tag[16];               /* "r3" (row 3 of the file), used in `calibrated:` comments */
  char model[64];             /* our model id */
  char quant[16];             /* "q4_0" */
  ls_calib_backend backend;
  char backends[32];          /* llama-bench's backends field ("CPU", "HTP", "OpenCL") */
  int threads, n_prompt, n_gen, n_depth;
  double avg_ts, stddev_ts;   /* tokens/s: mean and standard deviation over repetitions */
} ls_bench_row;

/* One fio job's read side. */
typedef struct ls_fio_job {
  char where[LS_CALIB_WHERE]; /* "file: $.jobs[i]" */
  char file[LS_PATH_MAX];
  char tag[16];               /* "j1" */
  char name[64];              /* jobname */
  double bs;                  /* bytes per request */
  int iodepth, direct;        /* direct 1: O_DIRECT (the direct path), 0: through the page cache */
  int eff_qd;                 /* requests really in flight: iodepth, but 1 for buffered reads with
                                 an engine whose submission blocks (libaio, posixaio, sync engines) */
  double slat_s;              /* mean submission latency (s; 0 when absent): the software cost an
                                 app pays per request on top of the completion latency */
  double total_ios;           /* requests completed (0 when absent) */
  double bw, bw_dev, iops;    /* B/s, B/s (0 when absent), requests/s */
  int n_pct;                  /* completion-latency percentiles: pct in (0, 100), clat in s */
  double pct[LS_CALIB_PCT_MAX], clat_s[LS_CALIB_PCT_MAX];
} ls_fio_job;

/* All measurements read so far (grown by the readers; free with ls_calib_inputs_free). */
typedef struct ls_calib_inputs {
  ls_bench_row *rows;
  int n_rows, cap_rows;
  ls_fio_job *jobs;
  int n_jobs, cap_jobs;
} ls_calib_inputs;

/* Appends the rows of one llama-bench file (format from its content). model_id: NULL to map
 * by the rule above, else every row is that model (it must exist in data_root: LS_ENOTFOUND,
 * exit 66, when it names no model, as `leversim run --model` does). */
int ls_calib_read_bench(ls_calib_inputs *in, const char *path, const char *data_root, const char *model_id,
                        ls_error *err);
/* Appends the read jobs of one fio JSON file (jobs that read nothing are skipped). */
int ls_calib_read_fio(ls_calib_inputs *in, const char *path, ls_error *err);
void ls_calib_inputs_free(ls_calib_inputs *in);

/* A whole text file, NUL-terminated (NULL and err set on failure, or when it holds a NUL
 * byte). Owned by the caller (free). */
char *ls_calib_slurp(const char *path, ls_error *err);

/* Our model id for a llama-bench model_filename by the rule above; LS_EINVALID (a data error,
 * the valid ids in the message) when none matches. id receives up to 63 characters. */
int ls_calib_model_for(const char *data_root, const char *filename, char *id, ls_error *err);

#endif
