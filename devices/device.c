/* devices/device: see device.h.
 *
 * Profile schema (every key required unless noted; units are checked by kind):
 *   id, name, soc, kind (phone|gpu)
 *   flash: interface, lanes, link_bandwidth, efficiency {direct, page_cache}, path, chunk,
 *          queue_depth, latency {model: lognormal_pareto|empirical, ...}, read_energy, idle_power
 *   dram:  type, capacity, app_budget, bandwidth, resident_target, background_power
 *   npu:   name, regime (static-graph|q4_0-dynamic; optional, static-graph when absent, the
 *          only regime older profiles knew; every shipped profile states it), weight_bandwidth, flops, attn_flops,
 *          dispatch, batch_curve [[tokens, rel]...], shapes [...], idle_power, busy_power,
 *          q4_0_dynamic {op_call, weight_bandwidth, vec_flops, mat_flops, tile, mat_min,
 *          pad_small (optional, default false), matrix_path (optional, default true)}
 *          (optional, required when the regime is q4_0-dynamic)
 *   cpu:   threads, max_bandwidth, call_overhead, idle_power, [batched_from, head_batched_from: 1],
 *          [batch_group: absent = one pass over the layers' weights for any n from batched_from
 *          on; 1..1000000, tokens per pass over them, devices/cpu.c],
 *          [head_bandwidth: absent = the clusters' gemv_bandwidth; a rate > 0, B/s one core of
 *          the first cluster streams the output projection at, devices/cpu.c],
 *          [head_first_bandwidth: absent = head_bandwidth for every row; a rate > 0, B/s of a
 *          pass's first output row; only with head_bandwidth, devices/cpu.c],
 *          [batch_remainder: false; true = with batch_group G, a batch of more than G tokens that
 *          is no multiple of G streams the weights twice, devices/cpu.c],
 *          [remainder_bandwidth: absent = the second pass at gemv_bandwidth; a rate > 0, B/s one
 *          core of the first cluster streams the weights at in that pass; only with
 *          batch_remainder, devices/cpu.c],
 *          [single_bandwidth: absent = a one-token layer pass as any other; a rate > 0, B/s one
 *          core of the first cluster computes a one-token layer matmul at, devices/cpu.c],
 *          clusters [{name, cores, freq, gemv_bandwidth, flops_per_cycle, core_power}...]
 *   power: base
 *   host:  optional, no phone has it (a llama.cpp-style runtime on a host, written by `testbed
 *          validate --host-profile`): read_ahead, [fault_rate: absent = no fault cost; bytes
 *          faulted in per CPU second], [stream_bytes, stream_time: both or neither; absent = the
 *          flash section's page-cache rate], [start_wait: 0], [head_serial: 0], [contention_rate:
 *          absent = none; bytes read beside a compute that occupies every core per second of
 *          compute they cost, devices/mapread.h]
 * Invariants after loading: every rate > 0; batch curve tokens rising, rel non-decreasing;
 * shapes rising and covered by the curve; resident_target <= app_budget <= capacity. */
#include "devices/device.h"
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "sim/range.h"
#include "sim/yaml.h"

/* Every number is read against its row of the one range table (sim/range.h), the same row
 * --set and an experiment's settings are read against (issue 35: a profile with 1 B/s of flash
 * passed `profiles validate`, which --set refused, and its run overflowed). */

struct ls_device {
  char id[64], name[64], soc[64], path[LS_ERR_FILE];
  int is_gpu;
  ls_flash_params flash;
  ls_dram_params dram;
  ls_npu_params npu;
  ls_cpu_params cpu;
  ls_power_params power;
  ls_device_host host;
};

static const char *const kinds[] = {"phone", "gpu", NULL};
static const char *const paths[] = {"direct", "page_cache", NULL};

static int copy_str(const ls_ynode *m, const char *key, char *dst, size_t size, ls_error *err)
{
  const char *s;
  int rc = ls_yreq_string(m, key, &s, err);
  if (rc)
    return rc;
  if (strlen(s) >= size || !s[0]) {
    ls_ynode v;
    ls_ymap_find(m, key, &v);
    return ls_ynode_error(&v, err, LS_ERANGE, "must be 1..%zu characters", size - 1);
  }
  memcpy(dst, s, strlen(s) + 1);
  return LS_OK;
}

static int section(const ls_ynode *root, const char *key, ls_ynode *out, ls_error *err)
{
  int rc = ls_ymap_require(root, key, out, err);
  return rc ? rc : ls_ynode_expect(out, LS_Y_MAP, err);
}

static int read_flash(const ls_ynode *root, ls_flash_params *f, ls_error *err)
{
  ls_ynode m, eff, lat;
  double lanes, qd;
  int path, rc = section(root, "flash", &m, err);
  if (rc || (rc = copy_str(&m, "interface", f->interface, sizeof f->interface, err)) ||
      (rc = ls_range_yreq(&m, "lanes", LS_R_FLASH_LANES, &lanes, err)) ||
      (rc = ls_range_yreq(&m, "link_bandwidth", LS_R_FLASH_BW, &f->link_bandwidth, err)) ||
      (rc = section(&m, "efficiency", &eff, err)) ||
      (rc = ls_range_yreq(&eff, "direct", LS_R_FLASH_EFF, &f->efficiency[LS_PATH_DIRECT], err)) ||
      (rc = ls_range_yreq(&eff, "page_cache", LS_R_FLASH_EFF, &f->efficiency[LS_PATH_PAGE_CACHE], err)) ||
      (rc = ls_ymap_finish(&eff, err)) || (rc = ls_yreq_enum(&m, "path", paths, &path, err)) ||
      (rc = ls_range_yreq(&m, "chunk", LS_R_FLASH_CHUNK, &f->chunk_bytes, err)) ||
      (rc = ls_range_yreq(&m, "queue_depth", LS_R_FLASH_QD, &qd, err)) ||
      (rc = ls_ymap_require(&m, "latency", &lat, err)) || (rc = ls_latency_read(&lat, &f->latency, err)) ||
      (rc = ls_range_yreq(&m, "read_energy", LS_R_READ_ENERGY, &f->read_j_per_byte, err)) ||
      (rc = ls_range_yreq(&m, "idle_power", LS_R_POWER, &f->idle_w, err)))
    return rc;
  f->lanes = (int)lanes;
  f->queue_depth = (int)qd;
  f->path = (ls_flash_path)path;
  if (ls_range_check(LS_R_FLASH_BW, ls_flash_effective_bw(f))) { /* the rate a run reads at: as --set's range */
    ls_ynode v;
    char rt[64];
    ls_ymap_find(&m, "link_bandwidth", &v);
    return ls_ynode_error(&v, err, LS_ERANGE, "the read rate of path %s (link_bandwidth x "
                          "efficiency) is %g B/s, outside %s", paths[path],
                          ls_flash_effective_bw(f), ls_range_text(LS_R_FLASH_BW, rt, sizeof rt));
  }
  return ls_ymap_finish(&m, err);
}

static int read_dram(const ls_ynode *root, ls_dram_params *d, ls_error *err)
{
  ls_ynode m, v;
  int rc = section(root, "dram", &m, err);
  if (rc || (rc = copy_str(&m, "type", d->type, sizeof d->type, err)) ||
      (rc = ls_range_yreq(&m, "capacity", LS_R_DRAM_SIZE, &d->capacity, err)) ||
      (rc = ls_range_yreq(&m, "app_budget", LS_R_DRAM_SIZE, &d->app_budget, err)) ||
      (rc = ls_range_yreq(&m, "bandwidth", LS_R_MEM_BW, &d->bandwidth, err)) ||
      (rc = ls_range_yreq(&m, "resident_target", LS_R_DRAM_RESIDENT, &d->resident_target, err)) ||
      (rc = ls_range_yreq(&m, "background_power", LS_R_POWER, &d->background_w, err)))
    return rc;
  if (d->app_budget > d->capacity) {
    ls_ymap_find(&m, "app_budget", &v);
    char a[32], c[32];
    return ls_ynode_error(&v, err, LS_ERANGE, "app_budget (%s) exceeds capacity (%s)",
                          ls_units_format(d->app_budget, LS_U_BYTES, a, sizeof a),
                          ls_units_format(d->capacity, LS_U_BYTES, c, sizeof c));
  }
  if (d->resident_target > d->app_budget) {
    ls_ymap_find(&m, "resident_target", &v);
    return ls_ynode_error(&v, err, LS_ERANGE, "resident_target exceeds app_budget");
  }
  return ls_ymap_finish(&m, err);
}

static int read_curve(const ls_ynode *m, ls_npu_params *n, ls_error *err)
{
  ls_ynode c;
  int rc = ls_ymap_require(m, "batch_curve", &c, err);
  if (rc || (rc = ls_ynode_expect(&c, LS_Y_SEQ, err)))
    return rc;
  int k = ls_yseq_len(&c);
  if (k < 2 || k > LS_NPU_CURVE_MAX)
    return ls_ynode_error(&c, err, LS_ERANGE, "needs 2..%d points, found %d", LS_NPU_CURVE_MAX, k);
  for (int i = 0; i < k; i++) {
    ls_ynode pt = ls_yseq_at(&c, i);
    double two[2];
    int cnt = 0;
    if ((rc = ls_range_yas_list(&pt, LS_R_CURVE, two, 2, &cnt, err)))
      return rc;
    if (cnt != 2)
      return ls_ynode_error(&pt, err, LS_ESCHEMA, "expected [tokens, relative latency]");
    if (i == 0 && two[1] != 1.0)
      return ls_ynode_error(&pt, err, LS_EINVALID, "the first point is the reference: relative latency 1");
    if (i > 0 && two[0] <= n->curve_tokens[i - 1])
      return ls_ynode_error(&pt, err, LS_EINVALID, "tokens must rise strictly (%g after %g)", two[0],
                            n->curve_tokens[i - 1]);
    if (i > 0 && two[1] < n->curve_rel[i - 1])
      return ls_ynode_error(&pt, err, LS_EINVALID,
                            "batch curve must be non-decreasing (%g after %g): more tokens cannot be faster",
                            two[1], n->curve_rel[i - 1]);
    n->curve_tokens[i] = two[0];
    n->curve_rel[i] = two[1];
  }
  n->n_curve = k;
  return LS_OK;
}

static int read_shapes(const ls_ynode *m, ls_npu_params *n, ls_error *err)
{
  ls_ynode s;
  double v[LS_NPU_SHAPES_MAX];
  int k = 0, rc = ls_ymap_require(m, "shapes", &s, err);
  if (rc || (rc = ls_range_yas_list(&s, LS_R_SHAPE, v, LS_NPU_SHAPES_MAX, &k, err)))
    return rc;
  if (k < 1)
    return ls_ynode_error(&s, err, LS_ERANGE, "needs at least one compiled shape");
  for (int i = 0; i < k; i++) {
    n->shapes[i] = (int)v[i];
    if ((double)n->shapes[i] != v[i] || (i > 0 && n->shapes[i] <= n->shapes[i - 1]))
      return ls_ynode_error(&s, err, LS_EINVALID, "shapes must be whole numbers rising strictly");
  }
  n->n_shapes = k;
  return LS_OK;
}

/* The q4_0-dynamic regime's section (optional: a profile without it runs static graphs only). */
static int read_dynamic(const ls_ynode *npu, ls_npu_dynamic *d, ls_error *err)
{
  ls_ynode m;
  double tile, mat_min;
  if (!ls_ymap_find(npu, "q4_0_dynamic", &m))
    return LS_OK;
  int rc = ls_ynode_expect(&m, LS_Y_MAP, err);
  if (rc || (rc = ls_range_yreq(&m, "op_call", LS_R_CALL_TIME, &d->op_call_s, err)) ||
      (rc = ls_range_yreq(&m, "weight_bandwidth", LS_R_MEM_BW, &d->weight_bw, err)) ||
      (rc = ls_range_yreq(&m, "vec_flops", LS_R_COMPUTE, &d->vec_flops, err)) ||
      (rc = ls_range_yreq(&m, "mat_flops", LS_R_COMPUTE, &d->mat_flops, err)) ||
      (rc = ls_range_yreq(&m, "tile", LS_R_NPU_TILE, &tile, err)) ||
      (rc = ls_range_yreq(&m, "mat_min", LS_R_NPU_TILE, &mat_min, err)) ||
      (rc = ls_yopt_bool(&m, "pad_small", 0, &d->pad_small, err)) ||
      (rc = ls_yopt_bool(&m, "matrix_path", 1, &d->matrix_path, err)))
    return rc;
  d->tile = (int)tile;
  d->mat_min = (int)mat_min;
  d->present = 1;
  return ls_ymap_finish(&m, err);
}

static int read_npu(const ls_ynode *root, ls_npu_params *n, ls_error *err)
{
  ls_ynode m;
  int regime = 0;
  int rc = section(root, "npu", &m, err);
  if (rc || (rc = copy_str(&m, "name", n->name, sizeof n->name, err)) ||
      (rc = ls_yopt_enum(&m, "regime", ls_npu_regime_names, LS_NPU_STATIC, &regime, err)) ||
      (rc = read_dynamic(&m, &n->dyn, err)) ||
      (rc = ls_range_yreq(&m, "weight_bandwidth", LS_R_MEM_BW, &n->weight_bw, err)) ||
      (rc = ls_range_yreq(&m, "flops", LS_R_COMPUTE, &n->flops, err)) ||
      (rc = ls_range_yreq(&m, "attn_flops", LS_R_COMPUTE, &n->attn_flops, err)) ||
      (rc = ls_range_yreq(&m, "dispatch", LS_R_CALL_TIME, &n->dispatch_s, err)) ||
      (rc = read_curve(&m, n, err)) || (rc = read_shapes(&m, n, err)) ||
      (rc = ls_range_yreq(&m, "idle_power", LS_R_POWER, &n->idle_w, err)) ||
      (rc = ls_range_yreq(&m, "busy_power", LS_R_POWER_BUSY, &n->busy_w, err)))
    return rc;
  n->regime = (ls_npu_regime)regime;
  ls_error chk;
  if ((rc = ls_npu_prepare(n, &chk))) {
    ls_ynode s;
    ls_ymap_find(&m, n->regime == LS_NPU_Q4_0_DYNAMIC && !n->dyn.present ? "regime" : "shapes", &s);
    return ls_ynode_error(&s, err, rc, "%s", chk.msg); /* located at the shapes */
  }
  return ls_ymap_finish(&m, err);
}

static int read_cluster(const ls_ynode *c, ls_cpu_cluster *k, ls_error *err)
{
  double cores;
  int rc = ls_ynode_expect(c, LS_Y_MAP, err);
  if (rc || (rc = copy_str(c, "name", k->name, sizeof k->name, err)) ||
      (rc = ls_range_yreq(c, "cores", LS_R_CORES, &cores, err)) ||
      (rc = ls_range_yreq(c, "freq", LS_R_FREQ, &k->freq_hz, err)) ||
      (rc = ls_range_yreq(c, "gemv_bandwidth", LS_R_CORE_BW, &k->gemv_bw_per_core, err)) ||
      (rc = ls_range_yreq(c, "flops_per_cycle", LS_R_FLOPS_PER_CYCLE, &k->flops_per_cycle, err)) ||
      (rc = ls_range_yreq(c, "core_power", LS_R_POWER, &k->core_w, err)))
    return rc;
  k->cores = (int)cores;
  return ls_ymap_finish(c, err);
}

static int read_cpu(const ls_ynode *root, ls_cpu_params *c, ls_error *err)
{
  ls_ynode m, cl;
  double threads, batched = 1, head_batched = 1, group = 0;
  int rc = section(root, "cpu", &m, err);
  if (rc || (rc = ls_range_yreq(&m, "threads", LS_R_THREADS, &threads, err)) ||
      (rc = ls_range_yreq(&m, "max_bandwidth", LS_R_MEM_BW, &c->max_bw, err)) ||
      (rc = ls_range_yreq(&m, "call_overhead", LS_R_CALL_TIME, &c->call_s, err)) ||
      (rc = ls_range_yreq(&m, "idle_power", LS_R_POWER, &c->idle_w, err)) ||
      (rc = ls_range_yopt(&m, "batched_from", LS_R_BATCH_TOKENS, 1, &batched, err)) ||
      (rc = ls_range_yopt(&m, "head_batched_from", LS_R_BATCH_TOKENS, 1, &head_batched, err)) ||
      /* 0 is the "absent" default and not a group a profile may state (the range starts at 1):
       * absent, the layers keep the roofline from batched_from on (devices/cpu.c). */
      (rc = ls_range_yopt(&m, "batch_group", LS_R_BATCH_TOKENS, 0, &group, err)) ||
      /* 0 is the "absent" default and not a rate a profile may state (LS_Y_POS refuses it):
       * a stated rate of zero would make every head infinitely slow. Same ceiling as the
       * clusters' gemv_bandwidth. */
      (rc = ls_range_yopt(&m, "head_bandwidth", LS_R_CORE_BW, 0, &c->head_bw, err)) ||
      (rc = ls_range_yopt(&m, "head_first_bandwidth", LS_R_CORE_BW, 0, &c->head_bw_first, err)) ||
      (rc = ls_range_yopt(&m, "single_bandwidth", LS_R_CORE_BW, 0, &c->single_bw, err)) ||
      (rc = ls_yopt_bool(&m, "batch_remainder", 0, &c->batch_remainder, err)) ||
      (rc = ls_range_yopt(&m, "remainder_bandwidth", LS_R_CORE_BW, 0, &c->remainder_bw, err)) ||
      (rc = ls_ymap_require(&m, "clusters", &cl, err)) || (rc = ls_ynode_expect(&cl, LS_Y_SEQ, err)))
    return rc;
  int k = ls_yseq_len(&cl);
  if (k < 1 || k > LS_CPU_MAX_CLUSTERS)
    return ls_ynode_error(&cl, err, LS_ERANGE, "needs 1..%d clusters, found %d", LS_CPU_MAX_CLUSTERS, k);
  for (int i = 0; i < k; i++) {
    ls_ynode it = ls_yseq_at(&cl, i);
    if ((rc = read_cluster(&it, &c->cluster[i], err)))
      return rc;
  }
  c->n_clusters = k;
  c->default_threads = (int)threads;
  c->batched_from = (int)batched;
  c->head_batched_from = (int)head_batched;
  c->batch_group = (int)group;
  if (c->batch_remainder && c->batch_group < 1) {
    /* the remainder's pass is of tiles of batch_group tokens; without them it means nothing */
    ls_ynode h;
    ls_ymap_find(&m, "batch_remainder", &h);
    return ls_ynode_error(&h, err, LS_EINVALID, "needs cpu.batch_group (the tile whose remainder it is)");
  }
  if (c->remainder_bw > 0 && !c->batch_remainder) {
    /* a rate for a pass the kernel form does not make */
    ls_ynode h;
    ls_ymap_find(&m, "remainder_bandwidth", &h);
    return ls_ynode_error(&h, err, LS_EINVALID, "needs cpu.batch_remainder: true (the pass it is the rate of)");
  }
  if (c->head_bw_first > 0 && !(c->head_bw > 0)) {
    /* The first row's rate refines the head's own rate; alone it would price the head's
     * further rows at the layers' rate and its first at its own, two kernels mixed. */
    ls_ynode h;
    ls_ymap_find(&m, "head_first_bandwidth", &h);
    return ls_ynode_error(&h, err, LS_EINVALID, "needs cpu.head_bandwidth (the rate of the further rows)");
  }
  if (threads > ls_cpu_total_cores(c)) {
    ls_ynode t;
    ls_ymap_find(&m, "threads", &t);
    return ls_ynode_error(&t, err, LS_ERANGE, "threads (%.0f) exceed the cores (%d)", threads,
                          ls_cpu_total_cores(c));
  }
  return ls_ymap_finish(&m, err);
}

static void fill_power(ls_device *d)
{
  ls_power_params *p = &d->power;
  p->npu_idle_w = d->npu.idle_w;
  p->npu_busy_w = d->npu.busy_w;
  p->cpu_idle_w = d->cpu.idle_w;
  p->n_clusters = d->cpu.n_clusters;
  for (int i = 0; i < d->cpu.n_clusters; i++)
    p->core_w[i] = d->cpu.cluster[i].core_w;
  p->flash_idle_w = d->flash.idle_w;
  p->flash_read_j_per_byte = d->flash.read_j_per_byte;
  p->dram_background_w = d->dram.background_w;
}

/* The optional host section (device.h, ls_device_host). */
static int read_host(const ls_ynode *root, ls_device_host *h, ls_error *err)
{
  ls_ynode m;
  double rate = 0, contention = 0;
  memset(h, 0, sizeof *h);
  if (!ls_ymap_find(root, "host", &m))
    return LS_OK;
  int rc = ls_ynode_expect(&m, LS_Y_MAP, err);
  if (rc || (rc = ls_range_yreq(&m, "read_ahead", LS_R_HOST_READ_AHEAD, &h->read_ahead, err)) ||
      (rc = ls_range_yopt(&m, "fault_rate", LS_R_HOST_FAULT_RATE, 0, &rate, err)) ||
      (rc = ls_range_yopt(&m, "stream_bytes", LS_R_HOST_STREAM_BYTES, 0, &h->stream_bytes, err)) ||
      (rc = ls_range_yopt(&m, "stream_time", LS_R_HOST_STREAM_TIME, 0, &h->stream_s, err)) ||
      (rc = ls_range_yopt(&m, "start_wait", LS_R_HOST_START, 0, &h->start_s, err)) ||
      (rc = ls_range_yopt(&m, "head_serial", LS_R_HOST_HEAD_SERIAL, 0, &h->head_serial, err)) ||
      (rc = ls_range_yopt(&m, "contention_rate", LS_R_HOST_CONTENTION, 0, &contention, err)))
    return rc;
  if ((h->stream_bytes > 0) != (h->stream_s > 0)) {
    /* a stream is its bytes in its time: one without the other is no rate */
    ls_ynode v;
    ls_ymap_find(&m, h->stream_bytes > 0 ? "stream_bytes" : "stream_time", &v);
    return ls_ynode_error(&v, err, LS_EINVALID, "needs host.%s too (a stream is its bytes in its time)",
                          h->stream_bytes > 0 ? "stream_time" : "stream_bytes");
  }
  h->fault_s_per_byte = rate > 0 ? 1 / rate : 0;
  h->contend_s_per_byte = contention > 0 ? 1 / contention : 0;
  h->present = 1;
  return ls_ymap_finish(&m, err);
}

static int read_device(ls_ydoc *doc, ls_device *d, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), pw;
  int kind, rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (rc || (rc = copy_str(&root, "id", d->id, sizeof d->id, err)) ||
      (rc = copy_str(&root, "name", d->name, sizeof d->name, err)) ||
      (rc = copy_str(&root, "soc", d->soc, sizeof d->soc, err)) ||
      (rc = ls_yreq_enum(&root, "kind", kinds, &kind, err)) || (rc = read_flash(&root, &d->flash, err)) ||
      (rc = read_dram(&root, &d->dram, err)) || (rc = read_npu(&root, &d->npu, err)) ||
      (rc = read_cpu(&root, &d->cpu, err)) || (rc = section(&root, "power", &pw, err)) ||
      (rc = ls_range_yreq(&pw, "base", LS_R_POWER, &d->power.base_w, err)) ||
      (rc = ls_ymap_finish(&pw, err)) || (rc = read_host(&root, &d->host, err)))
    return rc;
  d->is_gpu = kind == 1;
  fill_power(d);
  return ls_ymap_finish(&root, err);
}

int ls_device_load(ls_device **out, const char *path, ls_error *err)
{
  *out = NULL;
  ls_ydoc *doc;
  int rc = ls_ydoc_load_file(&doc, path, err);
  if (rc)
    return rc;
  ls_device *d = calloc(1, sizeof *d);
  if (!d) {
    ls_ydoc_free(doc);
    return ls_error_set(err, LS_ENOMEM, "device: out of memory");
  }
  snprintf(d->path, sizeof d->path, "%s", path);
  rc = read_device(doc, d, err);
  ls_ydoc_free(doc);
  if (rc) {
    free(d);
    return rc;
  }
  *out = d;
  return LS_OK;
}

static int cmp_ids(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

int ls_device_list(const char *data_root, char (*ids)[64], int max)
{
  char dir[LS_ERR_FILE];
  snprintf(dir, sizeof dir, "%s/devices/profiles", data_root);
  DIR *dp = opendir(dir);
  if (!dp)
    return LS_EIO;
  /* Collect all names first so the sorted prefix is the same whatever max is. */
  char(*all)[64] = NULL;
  int n = 0, cap = 0;
  for (struct dirent *e; (e = readdir(dp));) {
    size_t len = strlen(e->d_name);
    if (len <= 5 || len - 5 >= 64 || strcmp(e->d_name + len - 5, ".yaml") != 0)
      continue;
    if (n == cap) {
      int nc = cap ? 2 * cap : 16;
      char(*na)[64] = realloc(all, (size_t)nc * sizeof *all);
      if (!na) {
        free(all);
        closedir(dp);
        return LS_ENOMEM;
      }
      all = na;
      cap = nc;
    }
    memcpy(all[n], e->d_name, len - 5);
    all[n][len - 5] = 0;
    n++;
  }
  closedir(dp);
  if (n > 1)
    qsort(all, (size_t)n, sizeof *all, cmp_ids);
  for (int i = 0; i < n && i < max; i++)
    memcpy(ids[i], all[i], 64);
  free(all);
  return n;
}

int ls_device_is_path(const char *id)
{
  size_t n = strlen(id);
  return strchr(id, '/') != NULL || (n > 5 && strcmp(id + n - 5, ".yaml") == 0);
}

int ls_device_load_id(ls_device **out, const char *data_root, const char *id, ls_error *err)
{
  *out = NULL;
  if (ls_device_is_path(id))
    return ls_device_load(out, id, err);
  char ids[64][64];
  int n = ls_device_list(data_root, ids, 64);
  for (int i = 0; i < n && i < 64; i++)
    if (strcmp(ids[i], id) == 0) {
      char path[LS_ERR_FILE];
      snprintf(path, sizeof path, "%s/devices/profiles/%s.yaml", data_root, id);
      return ls_device_load(out, path, err);
    }
  char list[LS_ERR_MSG / 2] = "";
  size_t len = 0;
  for (int i = 0; i < n && i < 64 && len + 2 < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", ids[i]);
  return ls_error_set(err, LS_ENOTFOUND, "unknown device '%s' (valid: %s)", id, n > 0 ? list : "none found");
}

void ls_device_free(ls_device *d) { free(d); }

int ls_device_clone(ls_device **out, const ls_device *d, ls_error *err)
{
  *out = malloc(sizeof **out);
  if (!*out)
    return ls_error_set(err, LS_ENOMEM, "device: out of memory");
  **out = *d;
  return LS_OK;
}

/* A setting within its row but above a value of the profile it must not pass (a budget within
 * the app's, threads within the cores): the same relation the profile's reader checks. */
static int peer_max(ls_kv *kv, const char *key, double v, double max, int bytes, const char *what, ls_error *err)
{
  if (v <= max) return LS_OK;
  char m[48];
  if (bytes) ls_units_format(max, LS_U_BYTES, m, sizeof m);
  else snprintf(m, sizeof m, "%g", max);
  const char *o = ls_kv_origin_of(kv, key);
  int typed = o && (strncmp(o, "--", 2) == 0 || strncmp(o, "argument ", 9) == 0);
  return ls_error_set(err, typed ? LS_EUSAGE : LS_ERANGE, "%s%s%s=%s: out of range (must not exceed %s, %s)",
                      o ? o : "", o ? ": " : "", key, ls_kv_find(kv, key), what, m);
}

int ls_device_apply(ls_device *d, ls_kv *kv, ls_error *err)
{
  double v;
  int path = d->flash.path, regime = d->npu.regime, sim = d->flash.sim, rc;
  if ((rc = ls_kv_enum(kv, "device.flash.path", paths, path, &path, err)) ||
      (rc = ls_kv_enum(kv, "device.flash.sim", ls_flash_sim_names, sim, &sim, err)) ||
      (rc = ls_kv_enum(kv, "device.npu.regime", ls_npu_regime_names, regime, &regime, err)))
    return rc;
  if (regime == LS_NPU_Q4_0_DYNAMIC && !d->npu.dyn.present)
    return ls_error_set(err, LS_EINVALID, "device.npu.regime=q4_0-dynamic: profile %s gives no q4_0_dynamic section",
                        d->id);
  d->npu.regime = (ls_npu_regime)regime;
  d->flash.sim = (ls_flash_sim)sim;
  static const char *const BOOLS[] = {"false", "true", NULL};
  if ((rc = ls_kv_enum(kv, "device.npu.pad_small", BOOLS, d->npu.dyn.pad_small, &d->npu.dyn.pad_small, err)) ||
      (rc = ls_kv_enum(kv, "device.npu.matrix_path", BOOLS, d->npu.dyn.matrix_path, &d->npu.dyn.matrix_path, err)))
    return rc;
  if (d->npu.dyn.present) { /* where the tiled matrix path starts: which llama.cpp build (npu.h) */
    if ((rc = ls_range_kv(kv, "device.npu.mat_min", LS_R_NPU_TILE, d->npu.dyn.mat_min, &v, err)))
      return rc;
    d->npu.dyn.mat_min = (int)v;
    /* The vector path's rate: measured on the 8 Elite, carried to the other SoCs (an open
     * assumption with a range in runner/experiments/ranges.yaml). */
    if ((rc = ls_range_kv(kv, "device.npu.vec_flops", LS_R_COMPUTE, d->npu.dyn.vec_flops, &d->npu.dyn.vec_flops,
                          err)))
      return rc;
  }
  d->flash.path = (ls_flash_path)path;
  /* Changing the path alone keeps the hardware and changes the rate; an explicit bandwidth
   * sets the effective rate of the (possibly new) path. Read even when absent, so the
   * default (that path's rate) is declared like every other setting. */
  int bw_given = ls_kv_has(kv, "device.flash.bandwidth");
  if ((rc = ls_range_kv(kv, "device.flash.bandwidth", LS_R_FLASH_BW, ls_flash_effective_bw(&d->flash), &v, err)))
    return rc;
  if (bw_given)
    ls_flash_set_effective_bw(&d->flash, v);
  if ((rc = ls_range_kv(kv, "device.flash.chunk", LS_R_FLASH_CHUNK, d->flash.chunk_bytes, &d->flash.chunk_bytes,
                        err)) ||
      (rc = ls_range_kv(kv, "device.flash.queue_depth", LS_R_FLASH_QD, d->flash.queue_depth, &v, err)))
    return rc;
  d->flash.queue_depth = (int)v;
  if ((rc = ls_range_kv(kv, "device.dram.budget", LS_R_DRAM_RESIDENT, d->dram.resident_target, &v, err)) ||
      (rc = peer_max(kv, "device.dram.budget", v, d->dram.app_budget, 1, "the profile's dram.app_budget", err)))
    return rc;
  d->dram.resident_target = v;
  if ((rc = ls_range_kv(kv, "device.npu.dispatch", LS_R_CALL_TIME, d->npu.dispatch_s, &d->npu.dispatch_s, err)) ||
      (rc = ls_range_kv(kv, "device.cpu.threads", LS_R_THREADS, d->cpu.default_threads, &v, err)) ||
      (rc = peer_max(kv, "device.cpu.threads", v, ls_cpu_total_cores(&d->cpu), 0, "the profile's cores", err)))
    return rc;
  d->cpu.default_threads = (int)v;
  return ls_kv_check_used(kv, "device.", err);
}

const char *ls_device_id(const ls_device *d) { return d->id; }
const char *ls_device_name(const ls_device *d) { return d->name; }
const char *ls_device_soc(const ls_device *d) { return d->soc; }
const char *ls_device_path(const ls_device *d) { return d->path; }
int ls_device_is_gpu(const ls_device *d) { return d->is_gpu; }
const ls_device_host *ls_device_host_params(const ls_device *d) { return &d->host; }
const ls_flash_params *ls_device_flash(const ls_device *d) { return &d->flash; }
const ls_dram_params *ls_device_dram(const ls_device *d) { return &d->dram; }
const ls_npu_params *ls_device_npu(const ls_device *d) { return &d->npu; }
void ls_device_set_npu_report(ls_device *d, ls_npu_report *r) { ls_npu_set_report(&d->npu, r); }
const ls_cpu_params *ls_device_cpu(const ls_device *d) { return &d->cpu; }
const ls_power_params *ls_device_power(const ls_device *d) { return &d->power; }

static const char *fmt(double v, ls_unit_kind k, char *buf) { return ls_units_format(v, k, buf, 32); }

static void print_flash(const ls_flash_params *f, FILE *o)
{
  char a[32], b[32], c[32];
  const ls_latency_dist *l = &f->latency;
  fprintf(o, "flash:\n  interface: %s (%d lanes)\n  link bandwidth: %s\n", f->interface, f->lanes,
          fmt(f->link_bandwidth, LS_U_BANDWIDTH, a));
  fprintf(o, "  path: %s (efficiency direct %.3f, page_cache %.3f)\n  effective bandwidth: %s\n",
          paths[f->path], f->efficiency[0], f->efficiency[1], fmt(ls_flash_effective_bw(f), LS_U_BANDWIDTH, a));
  fprintf(o, "  chunk: %s, queue depth %d\n", fmt(f->chunk_bytes, LS_U_BYTES, a), f->queue_depth);
  fprintf(o, "  request latency: %s, mean %s, p50 %s, ", l->kind == LS_LAT_PARAMETRIC ? "lognormal+pareto" : "empirical",
          fmt(ls_latency_mean(l), LS_U_TIME, a), fmt(ls_latency_quantile(l, 0.5), LS_U_TIME, b));
  fprintf(o, "p99 %s\n", fmt(ls_latency_quantile(l, 0.99), LS_U_TIME, c));
  fprintf(o, "  read 1 GiB: %s; 4 KiB at QD1: %s\n", fmt(ls_flash_read_ns(f, 1073741824.0) * 1e-9, LS_U_TIME, a),
          fmt(ls_flash_read_ns_at(f, 4096, 4096, 1) * 1e-9, LS_U_TIME, b));
  fprintf(o, "  read energy: %s, idle %s\n", fmt(f->read_j_per_byte, LS_U_ENERGY_PER_BYTE, a),
          fmt(f->idle_w, LS_U_POWER, b));
}

void ls_device_print(const ls_device *d, FILE *o)
{
  char a[32], b[32], c[32];
  fprintf(o, "id: %s\nname: %s\nsoc: %s\nkind: %s\nfile: %s\n", d->id, d->name, d->soc, kinds[d->is_gpu], d->path);
  print_flash(&d->flash, o);
  const ls_dram_params *m = &d->dram;
  fprintf(o, "dram:\n  %s %s, app budget %s, bandwidth %s\n", m->type, fmt(m->capacity, LS_U_BYTES, a),
          fmt(m->app_budget, LS_U_BYTES, b), fmt(m->bandwidth, LS_U_BANDWIDTH, c));
  fprintf(o, "  resident target budget: %s, background %s\n", fmt(ls_dram_resident_budget(m), LS_U_BYTES, a),
          fmt(m->background_w, LS_U_POWER, b));
  const ls_npu_params *n = &d->npu;
  fprintf(o, "npu:\n  regime: %s\n", ls_npu_regime_names[n->regime]);
  if (n->dyn.present)
    fprintf(o, "  q4_0-dynamic: op call %s, weights %s, vector %s, ", fmt(n->dyn.op_call_s, LS_U_TIME, a),
            fmt(n->dyn.weight_bw, LS_U_BANDWIDTH, b), fmt(n->dyn.vec_flops, LS_U_COMPUTE, c));
  if (n->dyn.present)
    fprintf(o, "matrix %s (tile %d from %d tokens%s)\n", fmt(n->dyn.mat_flops, LS_U_COMPUTE, a), n->dyn.tile,
            n->dyn.mat_min, n->dyn.matrix_path ? (n->dyn.pad_small ? ", shorter passes padded" : "")
                                               : "; not used: matrix_path false");
  fprintf(o, "  static-graph %s: weights %s, %s, attention %s\n", n->name, fmt(n->weight_bw, LS_U_BANDWIDTH, a),
          fmt(n->flops, LS_U_COMPUTE, b), fmt(n->attn_flops, LS_U_COMPUTE, c));
  fprintf(o, "  dispatch %s, power idle %s busy ", fmt(n->dispatch_s, LS_U_TIME, a), fmt(n->idle_w, LS_U_POWER, b));
  fprintf(o, "%s\n  batch curve (shape: relative latency):", fmt(n->busy_w, LS_U_POWER, c));
  for (int i = 0; i < n->n_shapes; i++)
    fprintf(o, " %d:%.3f", n->shapes[i], n->shape_rel[i]);
  const ls_cpu_params *p = &d->cpu;
  fprintf(o, "\ncpu:\n  threads %d, max bandwidth %s, call overhead %s, idle %s\n", p->default_threads,
          fmt(p->max_bw, LS_U_BANDWIDTH, a), fmt(p->call_s, LS_U_TIME, b), fmt(p->idle_w, LS_U_POWER, c));
  for (int i = 0; i < p->n_clusters; i++) {
    const ls_cpu_cluster *k = &p->cluster[i];
    fprintf(o, "  %d x %s @ %s: gemv %s/core, %.0f FLOP/cycle, ", k->cores, k->name, fmt(k->freq_hz, LS_U_FREQ, a),
            fmt(k->gemv_bw_per_core, LS_U_BANDWIDTH, b), k->flops_per_cycle);
    fprintf(o, "%s/core\n", fmt(k->core_w, LS_U_POWER, c));
  }
  fprintf(o, "power:\n  base %s\n", fmt(d->power.base_w, LS_U_POWER, a));
}
