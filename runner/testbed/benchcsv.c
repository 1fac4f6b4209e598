/* runner/testbed/benchcsv: see benchcsv.h. */
#include "runner/testbed/benchcsv.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "sim/fileio.h"

/* Run-to-run scatter of a warm pass on the testbed machine: the fastest times of the same pass
 * in three full runs agree within 2 % (src:testbed-run). A few consecutive repetitions scatter
 * far less (0.1 % for some lengths), so their deviation alone would let one row outweigh the
 * others in a weighted fit; the deviation written is the larger of the two. */
#define RUN_TO_RUN 0.02

static void stats(const ls_tbm_result *r, const char *kind, int n, int tokens, double *avg_ts, double *sd_ts,
                  double *avg_ns, double *sd_ns, int *reps)
{
  double s = 0, s2 = 0, t = 0, t2 = 0;
  int k = 0;
  for (int i = 0; i < r->n; i++) {
    const ls_tbm_pass *p = &r->p[i];
    if (strcmp(p->kind, kind) != 0 || p->n_tokens != n || !(p->c.time_s > 0))
      continue;
    double ts = tokens / p->c.time_s, ns = p->c.time_s * 1e9;
    s += ts;
    s2 += ts * ts;
    t += ns;
    t2 += ns * ns;
    k++;
  }
  *reps = k;
  if (k == 0)
    return;
  *avg_ts = s / k;
  *avg_ns = t / k;
  *sd_ts = fmax(k > 1 ? sqrt(fmax(0, (s2 - s * s / k) / (k - 1))) : 0, RUN_TO_RUN * *avg_ts);
  *sd_ns = fmax(k > 1 ? sqrt(fmax(0, (t2 - t * t / k) / (k - 1))) : 0, RUN_TO_RUN * *avg_ns);
}

int ls_benchcsv_write(const char *path, const ls_tbm_result *r, const char *model_filename, int threads,
                      ls_error *err)
{
  ls_file_out o; /* the output rule (sim/fileio.h) */
  int rc = ls_file_out_open(&o, path, "testbed measure --csv", "build_commit,build_number,", err);
  if (rc)
    return rc;
  FILE *f = o.f;
  int bad = fprintf(f, "build_commit,build_number,cpu_info,gpu_info,backends,model_filename,model_type,model_size,"
                       "model_n_params,n_batch,n_ubatch,n_threads,type_k,type_v,n_gpu_layers,use_mmap,embeddings,"
                       "n_prompt,n_gen,n_depth,test_time,avg_ns,stddev_ns,avg_ts,stddev_ts\n") < 0;
  for (int pass = 0; pass < 2 && !bad; pass++) {
    const char *kind = pass == 0 ? "warm" : "tg";
    int seen[64], n_seen = 0;
    for (int i = 0; i < r->n && !bad; i++) {
      const ls_tbm_pass *p = &r->p[i];
      int dup = 0;
      for (int k = 0; k < n_seen; k++)
        dup |= seen[k] == p->n_tokens;
      if (strcmp(p->kind, kind) != 0 || dup || n_seen == 64)
        continue;
      seen[n_seen++] = p->n_tokens;
      double ats = 0, sts = 0, ans = 0, sns = 0;
      int reps;
      stats(r, kind, p->n_tokens, p->n_tokens, &ats, &sts, &ans, &sns, &reps);
      if (reps == 0)
        continue;
      int np = pass == 0 ? p->n_tokens : 0, ng = pass == 0 ? 0 : p->n_tokens;
      bad = fprintf(f, "\"0ad4a86\",\"0\",\"testbed\",\"\",\"CPU\",\"%s\",\"llama 1B Q4_0\",\"%llu\",\"0\",\"256\","
                       "\"256\",\"%d\",\"f16\",\"f16\",\"0\",\"1\",\"0\",\"%d\",\"%d\",\"0\",\"\",\"%.0f\",\"%.0f\","
                       "\"%.6f\",\"%.6f\"\n",
                    model_filename, (unsigned long long)r->target_model_bytes, threads, np, ng, ans, sns, ats, sts) < 0;
    }
  }
  if (bad) {
    ls_file_out_abort(&o);
    return ls_error_set(err, LS_EIO, "%s: write failed: %s", path, strerror(errno));
  }
  return ls_file_out_commit(&o, err);
}
