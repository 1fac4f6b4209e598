/* runner/testbed/measure: see measure.h.
 *
 * Why each pass is set up as it is:
 * - The cache is cleared before every prompt pass, so a pass of N tokens always attends over
 *   the same context (llama-bench does the same between repetitions).
 * - Cold passes evict after the cache is cleared and any prefix is decoded, right before the
 *   timed call, so only the timed pass streams the file.
 * - Token ids are byte tokens (3..258), valid in every vocabulary the testbed writes; with
 *   random weights which ids are used does not change the work. */
#include "runner/testbed/measure.h"
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include "runner/testbed/llamadrv.h"
#include "workloads/trace.h"

#define MAX_TREE 256
#define MAX_TRACE 8192
#define LS_TBM_SIZES_MAX 16 /* 1 ... 256 in powers of two, and the four extra sizes */

ls_tbm_config ls_tbm_defaults(void)
{
  ls_tbm_config c = {0};
  c.threads = 1;
  c.reps = 3;
  c.max_n = 128;
  c.tg = 16;
  /* 16 tokens: past batched_from, so the layers run the blocked kernel in both passes and
   * differ in nothing; 15 extra rows put the head's per-row cost (5.5 to 17 ms a row on the testbed)
   * well above a warm pass's run-to-run scatter (2 %). Not the tree's size: the rate is a
   * property of the head's kernel, measured apart from the held-out tree. */
  c.rows_n = 16;
  c.step_ctx = 64;
  c.tree_prompt = 32;
  c.spec_tokens = 32;
  c.spec_k = 4;
  c.repack = 1;
  c.busy = 1;
  c.rows_cold = 1;
  return c;
}

static int add(ls_tbm_result *r, const char *kind, int n, int ctx, int rep, const ls_llamadrv_cost *c, ls_error *err)
{
  if (r->n == r->cap) {
    int nc = r->cap ? 2 * r->cap : 64;
    ls_tbm_pass *p = realloc(r->p, (size_t)nc * sizeof *p);
    if (!p)
      return ls_error_set(err, LS_ENOMEM, "out of memory");
    r->p = p;
    r->cap = nc;
  }
  ls_tbm_pass *p = &r->p[r->n++];
  memset(p, 0, sizeof *p);
  snprintf(p->kind, sizeof p->kind, "%s", kind);
  p->n_tokens = n;
  p->ctx = ctx;
  p->rep = rep;
  p->c = *c;
  return LS_OK;
}

static void say(FILE *log, const ls_tbm_pass *p)
{
  if (log)
    fprintf(log, "  %-11s N=%-3d ctx=%-3d rep %d: %.4f s (wall %.4f, cpu %.4f, read %.1f MB)\n", p->kind,
            p->n_tokens, p->ctx, p->rep, p->c.time_s, p->c.wall_s, p->c.cpu_s, p->c.read_bytes / 1e6);
}

/* The cache filled with positions 0..ctx-1 in batches the context takes (256 tokens), untimed. */
static int fill(ls_llamadrv_model *m, int ctx, ls_error *err)
{
  int rc = LS_OK;
  for (int at = 0; at < ctx && !rc; at += 256)
    rc = ls_llamadrv_prompt(m, ctx - at < 256 ? ctx - at : 256, at, NULL, err);
  return rc;
}

/* A prompt pass of n tokens after a prefix of ctx tokens; evict first when cold. rep < 0:
 * untimed warm-up. */
static int prompt_pass(ls_llamadrv_model *m, ls_tbm_result *r, const char *kind, int n, int ctx, int cold, int rep,
                       FILE *log, ls_error *err)
{
  ls_llamadrv_clear(m);
  ls_llamadrv_cost c;
  int rc = fill(m, ctx, err);
  if (!rc && cold)
    rc = ls_llamadrv_evict(m, NULL, err);
  if (!rc)
    rc = ls_llamadrv_prompt(m, n, ctx, &c, err);
  if (rc || rep < 0)
    return rc;
  if ((rc = add(r, kind, n, ctx, rep, &c, err)))
    return rc;
  say(log, &r->p[r->n - 1]);
  return LS_OK;
}

/* N = 1, 2, 4, ... max_n, and 3, 5, 6 and 12 (those up to max_n) in rising order. The extra
 * sizes end no group of four tokens: the x86 CPU kernel streams the weights once per group of
 * four (results/testbed/probe-tiles.txt: a pass gains ~94 ms from 4 to 5 tokens and from 8 to
 * 9), which rows at powers of two alone cannot show a calibration (cpu.batch_group,
 * devices/cpu.c; docs/VALIDATION.md §3.7). */
static int sizes(const ls_tbm_config *c, int *ns)
{
  static const int extra[] = {3, 5, 6, 12};
  int k = 0, e = 0;
  for (int n = 1; n <= c->max_n && k < LS_TBM_SIZES_MAX; n *= 2) {
    while (e < 4 && extra[e] < n && extra[e] <= c->max_n && k < LS_TBM_SIZES_MAX)
      ns[k++] = extra[e++];
    ns[k++] = n;
  }
  while (e < 4 && extra[e] <= c->max_n && k < LS_TBM_SIZES_MAX)
    ns[k++] = extra[e++];
  return k;
}

static int tg_row(ls_llamadrv_model *m, ls_tbm_result *r, int g, int rep, FILE *log, ls_error *err)
{
  ls_llamadrv_clear(m);
  ls_llamadrv_cost sum = {0}, c;
  for (int i = 0; i < g; i++) {
    int rc = ls_llamadrv_prompt(m, 1, i, &c, err);
    if (rc)
      return rc;
    sum.wall_s += c.wall_s;
    sum.cpu_s += c.cpu_s;
    sum.thread_cpu_s += c.thread_cpu_s;
    sum.runqueue_s += c.runqueue_s;
    sum.time_s += c.time_s;
    sum.majflt += c.majflt;
    sum.minflt += c.minflt;
    sum.read_bytes += c.read_bytes;
  }
  int rc = add(r, "tg", g, 0, rep, &sum, err);
  if (!rc)
    say(log, &r->p[r->n - 1]);
  return rc;
}

/* N tokens on an empty cache at positions 0.., asking for `rows` output rows: all N
 * (LS_TBM_ROWS_ALL), the last one (LS_TBM_ROWS_ONE) or none (LS_TBM_ROWS_NONE: llama.cpp then
 * skips the output projection); draft: stored as the draft's kinds. rep < 0: untimed warm-up
 * (the first N-row pass grows the output buffer). */
static int rows_pass(ls_llamadrv_model *m, ls_tbm_result *r, int n, int rows, int draft, int cold, int rep,
                     FILE *log, ls_error *err)
{
  ls_llamadrv_tok *t = calloc((size_t)n, sizeof *t);
  if (!t)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    t[i].id = 3 + i % 256;
    t[i].pos = i;
    t[i].n_seq = 1;
    t[i].logits = i >= n - rows;
  }
  ls_llamadrv_clear(m);
  ls_llamadrv_cost c;
  int rc = cold ? ls_llamadrv_evict(m, NULL, err) : LS_OK;
  if (!rc)
    rc = ls_llamadrv_decode(m, t, n, &c, err);
  free(t);
  if (rc || rep < 0)
    return rc;
  const char *kind = cold ? (rows == n ? LS_TBM_ROWS_COLD : LS_TBM_ROWS_NONE_COLD)
                    : rows == n ? (draft ? LS_TBM_DRAFT_ROWS_ALL : LS_TBM_ROWS_ALL)
                    : rows == 1 ? (draft ? LS_TBM_DRAFT_ROWS_ONE : LS_TBM_ROWS_ONE)
                                : (draft ? LS_TBM_DRAFT_ROWS_NONE : LS_TBM_ROWS_NONE);
  if (!(rc = add(r, kind, n, 0, rep, &c, err)))
    say(log, &r->p[r->n - 1]);
  return rc;
}

/* The head's rows passes: no row, one row and all rows alternate, so all three meet the same
 * load. The first row is a difference of some % of a target's pass (33.6 ms of 0.55 s in a
 * probe under load, src:testbed-run): more repetitions, as the stream has. */
static int rows_passes(ls_llamadrv_model *m, ls_tbm_result *r, const ls_tbm_config *c, int draft, FILE *log,
                       ls_error *err)
{
  int n = c->rows_n, rc = n > 0 ? rows_pass(m, r, n, n, draft, 0, -1, NULL, err) : LS_OK;
  for (int k = 0; k < 2 * c->reps + 1 && !rc && n > 0; k++) {
    if (!(rc = rows_pass(m, r, n, 0, draft, 0, k, log, err)) && !(rc = rows_pass(m, r, n, 1, draft, 0, k, log, err)))
      rc = rows_pass(m, r, n, n, draft, 0, k, log, err);
    /* On the target, the same no-row and all-row passes cold: the head's phase on a cold pass. */
    if (!rc && !draft && c->rows_cold && !(rc = rows_pass(m, r, n, 0, 0, 1, k, log, err)))
      rc = rows_pass(m, r, n, n, 0, 1, k, log, err);
  }
  return rc;
}

/* ---- the verification's shape ---- */

/* One cold pass of n tokens at positions ctx.. after a prompt of ctx tokens (untimed, the
 * model then evicted), asking for the last `rows` output rows. */
static int shape_pass(ls_llamadrv_model *m, ls_tbm_result *r, const char *kind, int n, int ctx, int rows, int rep,
                      FILE *log, ls_error *err)
{
  ls_llamadrv_tok t[17];
  for (int i = 0; i < n; i++) {
    memset(&t[i], 0, sizeof t[i]);
    t[i].id = 3 + (ctx + i) % 256;
    t[i].pos = ctx + i;
    t[i].n_seq = 1;
    t[i].logits = i >= n - rows;
  }
  ls_llamadrv_clear(m);
  ls_llamadrv_cost c;
  int rc = fill(m, ctx, err);
  if (!rc)
    rc = ls_llamadrv_evict(m, NULL, err);
  if (!rc)
    rc = ls_llamadrv_decode(m, t, n, &c, err);
  if (!rc && !(rc = add(r, kind, n, ctx, rep, &c, err)))
    say(log, &r->p[r->n - 1]);
  return rc;
}

/* The speculative run's verification taken apart (measure.h, vshape-*): k + 1 tokens cold, the
 * reference, every row, and the spec run's middle context, alternated 2 x reps + 1 times (their
 * differences are tens of ms against passes of half a second). */
static int shape_passes(ls_llamadrv_model *m, ls_tbm_result *r, const ls_tbm_config *c, FILE *log, ls_error *err)
{
  int n = c->spec_k + 1, ctx = c->tree_prompt + c->spec_tokens / 2, rc = LS_OK;
  if (n > 17)
    return ls_error_set(err, LS_ERANGE, "testbed: k = %d draft tokens: at most 16", c->spec_k);
  for (int k = 0; k < 2 * c->reps + 1 && !rc; k++)
    if (!(rc = shape_pass(m, r, LS_TBM_VSHAPE_REF, n, 0, 1, k, log, err)) &&
        !(rc = shape_pass(m, r, LS_TBM_VSHAPE_ROWS, n, 0, n, k, log, err)))
      rc = shape_pass(m, r, LS_TBM_VSHAPE_CTX, n, ctx, 1, k, log, err);
  return rc;
}

/* ---- tree ---- */

typedef struct tree {
  int n, depth_max, leaves;
  int parent[MAX_TREE], depth[MAX_TREE], leaf_of[MAX_TREE];
} tree;

static int read_tree(const char *path, tree *t, ls_error *err)
{
  json_error_t je;
  json_t *doc = json_load_file(path, 0, &je);
  if (!doc)
    return ls_error_at(err, LS_EPARSE, path, je.line, je.column, "malformed JSON: %s", je.text);
  json_t *par = json_object_get(doc, "parent");
  int rc = LS_OK;
  size_t n = json_array_size(par);
  if (!json_is_array(par) || n < 1 || n > MAX_TREE) {
    rc = ls_error_set(err, LS_ESCHEMA, "%s: $.parent: an array of 1..%d node parents expected (leversim tree "
                      "--json)", path, MAX_TREE);
  }
  memset(t, 0, sizeof *t);
  for (size_t i = 0; i < n && !rc; i++) {
    json_t *v = json_array_get(par, i);
    long long p = json_is_integer(v) ? json_integer_value(v) : -2;
    if ((i == 0 && p != -1) || (i > 0 && (p < 0 || p >= (long long)i)))
      rc = ls_error_set(err, LS_ESCHEMA, "%s: $.parent[%zu] = %lld: the root first, every parent before its child",
                        path, i, p);
    else {
      t->parent[i] = (int)p;
      t->depth[i] = i ? t->depth[p] + 1 : 0;
      if (t->depth[i] > t->depth_max)
        t->depth_max = t->depth[i];
    }
  }
  json_decref(doc);
  if (rc)
    return rc;
  t->n = (int)n;
  for (int i = 0; i < t->n; i++) {
    int has_child = 0;
    for (int k = i + 1; k < t->n; k++)
      has_child |= t->parent[k] == i;
    t->leaf_of[i] = has_child ? -1 : t->leaves++;
  }
  if (t->leaves > LS_LLAMADRV_MAX_SEQ)
    return ls_error_set(err, LS_ERANGE, "%s: %d branches, the driver takes at most %d", path, t->leaves,
                        LS_LLAMADRV_MAX_SEQ);
  return LS_OK;
}

/* The tree as one batch after a prompt of p tokens: node i at position p - 1 + 1 + depth
 * (the root is the last accepted token, at position p), in every branch below it; the prompt
 * belongs to every branch. */
static int tree_pass(ls_llamadrv_model *m, const tree *t, int p, int cold, int rep, ls_tbm_result *r, FILE *log,
                     ls_error *err)
{
  ls_llamadrv_tok *tok = calloc((size_t)(p > t->n ? p : t->n), sizeof *tok);
  if (!tok)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  for (int i = 0; i < p; i++) {
    tok[i].id = 3 + i % 256;
    tok[i].pos = i;
    tok[i].n_seq = t->leaves;
    for (int s = 0; s < t->leaves; s++)
      tok[i].seq[s] = s;
  }
  ls_llamadrv_clear(m);
  int rc = ls_llamadrv_decode(m, tok, p, NULL, err);
  if (!rc && cold)
    rc = ls_llamadrv_evict(m, NULL, err);
  for (int i = 0; i < t->n && !rc; i++) {
    tok[i].id = 3 + (7 * i) % 256;
    tok[i].pos = p + t->depth[i];
    tok[i].n_seq = 0;
    tok[i].logits = 1; /* verification reads every node's row */
    for (int l = 0; l < t->n; l++) { /* branches whose leaf has i as an ancestor (or is i) */
      if (t->leaf_of[l] < 0)
        continue;
      int a = l;
      while (a > i)
        a = t->parent[a];
      if (a == i)
        tok[i].seq[tok[i].n_seq++] = t->leaf_of[l];
    }
  }
  ls_llamadrv_cost c;
  if (!rc)
    rc = ls_llamadrv_decode(m, tok, t->n, &c, err);
  free(tok);
  if (rc || rep < 0)
    return rc;
  if (!(rc = add(r, cold ? "tree-cold" : "tree-warm", t->n, p, rep, &c, err)))
    say(log, &r->p[r->n - 1]);
  return rc;
}

/* ---- speculative run ---- */

/* The target's rank of the draft's candidates at each text position of prompt 0 (the `pos`
 * records, workloads/TRACE_FORMAT.md); the file is validated by the trace reader first. */
static int trace_ranks(const char *path, int *rank, int max, int *n, ls_error *err)
{
  ls_trace *tr;
  if (ls_trace_read(&tr, path, err))
    return err ? err->code : LS_EPARSE;
  ls_trace_free(tr);
  FILE *f = fopen(path, "r");
  if (!f)
    return ls_error_set(err, LS_EIO, "%s: cannot open", path);
  char line[4096];
  int prompt = -1, t, k;
  *n = 0;
  while (fgets(line, sizeof line, f)) {
    if (sscanf(line, "prompt %d", &k) == 1)
      prompt = k;
    else if (prompt == 0 && sscanf(line, "pos %d %d", &t, &k) == 2 && t == *n && *n < max)
      rank[(*n)++] = k;
  }
  fclose(f);
  return LS_OK;
}

static void acc(ls_llamadrv_cost *s, const ls_llamadrv_cost *c)
{
  s->wall_s += c->wall_s;
  s->cpu_s += c->cpu_s;
  s->time_s += c->time_s;
  s->runqueue_s += c->runqueue_s;
  s->read_bytes += c->read_bytes;
}

static int tokens_at(ls_llamadrv_tok *t, int n, int pos0, int logits_all)
{
  for (int i = 0; i < n; i++) {
    memset(&t[i], 0, sizeof t[i]);
    t[i].id = 3 + (pos0 + i) % 256;
    t[i].pos = pos0 + i;
    t[i].n_seq = 1;
    t[i].logits = logits_all || i == n - 1;
  }
  return n;
}

static int spec_run(ls_llamadrv_model *tgt, ls_llamadrv_model *dft, const ls_tbm_config *c, int rep,
                    ls_tbm_result *r, FILE *log, ls_error *err)
{
  static int rank[MAX_TRACE];
  int n_rank = 0, rc = trace_ranks(c->trace, rank, MAX_TRACE, &n_rank, err);
  if (rc)
    return rc;
  int k = c->spec_k, p = c->tree_prompt;
  if (k < 1 || k > 16 || n_rank < c->spec_tokens + k + 1)
    return ls_error_set(err, LS_ERANGE, "%s: %d positions for %d tokens at k = %d (1..16): record a longer trace",
                        c->trace, n_rank, c->spec_tokens, k);
  ls_llamadrv_tok tok[64];
  ls_llamadrv_cost cst;
  ls_tbm_spec *s = &r->spec;
  memset(s, 0, sizeof *s);
  s->k = k;
  /* Both models hold the prompt (prefill is not part of the per-token figure). */
  ls_llamadrv_clear(tgt);
  ls_llamadrv_clear(dft);
  if ((rc = ls_llamadrv_prompt(tgt, p - 1, 0, NULL, err)) || (rc = ls_llamadrv_prompt(dft, p - 1, 0, NULL, err)))
    return rc;
  /* Neither holds the last accepted token yet (position p - 1 + generated): each cycle's
   * draft catch-up and verification start with it. Text position T of the trace is the
   * position of the T-th generated token's predecessor. */
  int gen = 0, dft_next = p - 1;
  while (gen < c->spec_tokens) {
    int pos = p + gen - 1; /* the last accepted token's position */
    ls_llamadrv_cost d = {0}, v = {0};
    /* Draft: catch up on the accepted tokens it has not seen (one call), then k - 1 more
     * single-token steps, each proposing the next. */
    int catchup = pos + 1 - dft_next;
    rc = ls_llamadrv_decode(dft, tok, tokens_at(tok, catchup, dft_next, 0), &cst, err);
    if (!rc) {
      acc(&d, &cst);
      rc = add(r, "spec-draft", catchup, dft_next, rep * 1000 + s->cycles, &cst, err);
    }
    for (int i = 1; i < k && !rc; i++) {
      rc = ls_llamadrv_decode(dft, tok, tokens_at(tok, 1, pos + i, 0), &cst, err);
      if (!rc) {
        acc(&d, &cst);
        rc = add(r, "spec-draft", 1, pos + i, rep * 1000 + s->cycles, &cst, err);
      }
    }
    /* Target: stream it (evicted), verify the last accepted token and the k proposals. */
    if (!rc)
      rc = ls_llamadrv_evict(tgt, NULL, err);
    if (!rc)
      rc = ls_llamadrv_decode(tgt, tok, tokens_at(tok, k + 1, pos, 1), &cst, err);
    if (rc)
      return rc;
    acc(&v, &cst);
    if ((rc = add(r, "spec-verify", k + 1, pos, rep * 1000 + s->cycles, &cst, err)))
      return rc;
    /* Accept: the draft's top candidate matches while the target's rank there is 0. */
    int a = 0;
    while (a < k && rank[gen + a] == 0)
      a++;
    s->accepted[a]++;
    gen += a + 1;
    s->cycles++;
    /* Drop what was rejected: target positions after the accepted ones, draft likewise. */
    int keep_to = pos + 1 + a; /* first position not kept */
    if ((rc = ls_llamadrv_seq_rm(tgt, 0, keep_to, -1, err)) || (rc = ls_llamadrv_seq_rm(dft, 0, keep_to, -1, err)))
      return rc;
    dft_next = keep_to < pos + k ? keep_to : pos + k;
    s->time_s += d.time_s + v.time_s;
    s->wall_s += d.wall_s + v.wall_s;
    s->cpu_s += d.cpu_s + v.cpu_s;
    s->draft_s += d.time_s;
    s->verify_s += v.time_s;
    if (log)
      fprintf(log, "  spec cycle %d: draft %.4f s, verify %.4f s, accepted %d\n", s->cycles, d.time_s, v.time_s, a);
  }
  s->generated = gen;
  r->has_spec = 1;
  return LS_OK;
}

/* ---- the whole plan ---- */

/* The read-ahead window of the file system holding path: its backing device's
 * read_ahead_kb (/sys/class/bdi/MAJ:MIN), bytes; 0 when not found. */
static double read_ahead(const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0)
    return 0;
  char sys[128];
  snprintf(sys, sizeof sys, "/sys/class/bdi/%u:%u/read_ahead_kb", major(st.st_dev), minor(st.st_dev));
  FILE *f = fopen(sys, "r");
  if (!f)
    return 0;
  double kb = 0;
  if (fscanf(f, "%lf", &kb) != 1)
    kb = 0;
  fclose(f);
  return kb * 1024;
}

/* The stream with a busy thread: after touching each page the thread does fixed arithmetic (no
 * memory traffic) worth `level` % of an untimed stream's time (`anchor`) in all, from a cold cache
 * (`stream-busy`) and over the cached file (`busy-warm`, that arithmetic's own cost), for each
 * level in LS_TBM_BUSY_LEVELS; n_tokens holds the level. What they show is how much a computing
 * thread slows the reads it overlaps (devices/mapread.h, io_cpu_share): on this VM the host
 * serves the virtual disk on the cores the guest runs on (docs/VALIDATION.md §3.10). A storage
 * measurement, like the stream: no llama.cpp pass enters it. */
static int busy_streams(const ls_tbm_config *c, ls_tbm_result *r, int k, uint64_t spin_rate, uint64_t mem_rate,
                        double anchor, FILE *log, ls_error *err)
{
  static const int levels[] = {LS_TBM_BUSY_LEVELS};
  int rc = LS_OK;
  for (size_t i = 0; i < sizeof levels / sizeof levels[0] && !rc; i++) {
    /* the arithmetic (mem 0), then the memory reads (mem 1, when the rate was measured) */
    for (int mem = 0; mem < 1 + (mem_rate > 0) && !rc; mem++) {
      uint64_t work = (uint64_t)(levels[i] / 100.0 * anchor * (double)(mem ? mem_rate : spin_rate));
      ls_llamadrv_cost bc;
      for (int cold = 0; cold < 2 && !rc; cold++) {
        if (cold)
          rc = ls_llamadrv_evict_file(c->target, NULL, err);
        const char *kind = mem ? (cold ? LS_TBM_STREAM_BUSY_MEM : LS_TBM_BUSY_MEM_WARM)
                               : (cold ? LS_TBM_STREAM_BUSY : LS_TBM_BUSY_WARM);
        if (!rc && !(rc = mem ? ls_llamadrv_stream_busy_mem(c->target, cold, work, &bc, err)
                              : ls_llamadrv_stream_busy(c->target, cold, work, &bc, err)) &&
            !(rc = add(r, kind, levels[i], 0, k, &bc, err)))
          say(log, &r->p[r->n - 1]);
      }
    }
  }
  return rc;
}

/* The target file streamed cold: every mapping of it evicted first (a loaded model's too), by
 * path, since no model may be loaded at the slot. */
static int cold_stream(const ls_tbm_config *c, ls_llamadrv_cost *sc, ls_error *err)
{
  int rc = ls_llamadrv_evict_file(c->target, NULL, err);
  return rc ? rc : ls_llamadrv_stream(c->target, sc, err);
}

/* The storage measurements' repetitions, spread over the run. */
typedef struct storage {
  int reps;                     /* 2 x the passes' repetitions + 1 */
  uint64_t spin_rate, mem_rate; /* the busy streams' work rates (0: no busy streams) */
  double anchor;                /* the busy levels' 100 % */
} storage;

int ls_tbm_storage_slot(int k, int reps)
{
  const int last = LS_TBM_STORAGE_SLOTS - 1;
  return reps <= 1 ? 0 : (2 * k * last + reps - 1) / (2 * (reps - 1));
}

/* Runs the storage repetitions that fall in `slot` (ls_tbm_storage_slot, measure.h): a stream,
 * then the busy streams, for each. Why spread: the host's
 * disk drifts over a run's minutes (a run whose seven streams all came first took 0.205 to
 * 0.285 s for them while its cold passes, a minute later, met a faster disk; run P,
 * docs/VALIDATION.md §3.15), so the storage measurements that set every cold prediction's read
 * rate and busy share must meet the same disk as the passes they predict, as the warm and cold
 * passes already alternate. The models are unloaded in between, so the eviction goes by path. */
static int storage_slot(const ls_tbm_config *c, ls_tbm_result *r, const storage *st, int slot, FILE *log,
                        ls_error *err)
{
  int rc = LS_OK, first = 1;
  for (int k = 0; k < st->reps && !rc; k++) {
    if (ls_tbm_storage_slot(k, st->reps) != slot)
      continue;
    ls_llamadrv_cost sc;
    /* One untimed stream first. On a VM whose guest reports free memory to its host (virtio
     * free page reporting) a cold read that lands in memory the host has taken back pays a
     * host fault per page, charged as the reading thread's CPU time: 0.44 to 0.64 s more for
     * this file, against 0.011 s, when the memory freed by the eviction sat free for 2.5 s
     * (the probe freed.c (removed in issue 32; git show eafd053:scripts/testbed/probe/freed.c), results/testbed/probe-freed.txt). A cold pass reads
     * into the memory its own eviction freed a moment before, and so does this stream once
     * an untimed one has brought the file's worth of memory back (run Q's streams, taken
     * right after the prompt passes without it, spent 0.11 to 0.37 s of CPU: §3.15). */
    if (first && (rc = cold_stream(c, &sc, err)))
      break;
    first = 0;
    if (!(rc = cold_stream(c, &sc, err)) && !(rc = add(r, "stream", 0, 0, k, &sc, err)))
      say(log, &r->p[r->n - 1]);
    if (!rc && c->busy)
      rc = busy_streams(c, r, k, st->spin_rate, st->mem_rate, st->anchor, log, err);
  }
  return rc;
}

/* Rounds: every size's warm and cold pass once a round, then a step and (dm not NULL) a
 * speculative run, so that a point's repetitions lie a round apart, not back to back. This VM's
 * disk has slow spells of seconds to minutes; repetitions in one block met the same spell (run
 * Y: its three steps, taken one after the other, 0.32 to 0.35 s against 0.23 s for a cold
 * one-token pass; run X: a speculative run whose 54 verifications all came in the run's last,
 * slower minute; docs/VALIDATION.md §3.15). Storage slots 1 to 4 fall at fifths of the rounds.
 * r->spec is the fastest speculative run: disturbances only add time. */
static int rounds(ls_llamadrv_model *m, ls_llamadrv_model *dm, const ls_tbm_config *c, const int *ns, int nn,
                  const storage *st, ls_tbm_result *r, FILE *log, ls_error *err)
{
  ls_tbm_spec best = {0};
  int rc = LS_OK, total = c->reps * nn, at = 0;
  for (int k = 0; k < c->reps && !rc; k++) {
    for (int i = 0; i < nn && !rc; i++, at++) {
      if (k == 0) /* untimed: this size's buffers made */
        rc = prompt_pass(m, r, "warm", ns[i], 0, 0, -1, NULL, err);
      if (!rc && !(rc = prompt_pass(m, r, "warm", ns[i], 0, 0, k, log, err)))
        rc = prompt_pass(m, r, "cold", ns[i], 0, 1, k, log, err);
      for (int j = 1; j <= 4 && !rc; j++)
        if (at + 1 == (j * total + 4) / 5)
          rc = storage_slot(c, r, st, j, log, err);
    }
    if (!rc && c->step_ctx > 0)
      rc = prompt_pass(m, r, "step", 1, c->step_ctx, 1, k, log, err);
    if (!rc && dm && !(rc = spec_run(m, dm, c, k, r, log, err)) && (k == 0 || r->spec.time_s < best.time_s))
      best = r->spec;
  }
  if (dm)
    r->spec = best;
  return rc;
}

/* KV cells of the target's context: 512, or room for the step's context and its token. */
static int cells(const ls_tbm_config *c)
{
  int need = (c->step_ctx + 1 + 255) / 256 * 256;
  return need > 512 ? need : 512;
}

static int load(ls_llamadrv *d, const char *path, const ls_tbm_config *c, int repack, int n_seq, int n_ctx,
                ls_llamadrv_model **m, ls_error *err)
{
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.threads = c->threads;
  o.repack = repack;
  o.n_seq = n_seq;
  o.n_ctx = n_ctx;
  o.n_batch = 256;
  return ls_llamadrv_load(d, path, &o, m, err);
}

/* The verification tree after its prompt, cold and warm alternated, on a context with a sequence
 * a leaf. */
static int tree_passes(ls_llamadrv *d, const ls_tbm_config *c, const tree *t, ls_tbm_result *r, FILE *log,
                       ls_error *err)
{
  ls_llamadrv_model *m = NULL;
  int rc = load(d, c->target, c, 0, t->leaves, 512, &m, err);
  if (rc)
    return rc;
  r->tree_nodes = t->n;
  r->tree_depth = t->depth_max;
  r->tree_leaves = t->leaves;
  rc = tree_pass(m, t, c->tree_prompt, 0, -1, r, NULL, err);
  /* Cold and warm alternate, as the prompt passes do, so both meet the same load (run
   * tb-20261126T114617Z timed them one kind after the other: all three warm trees were
   * slower than every cold one, 1.54 to 1.66 s against 1.07 to 1.20 s, their CPU time as
   * long as their time: the thread ran, slower, under another job's load). */
  for (int k = 0; k < c->reps && !rc; k++)
    if (!(rc = tree_pass(m, t, c->tree_prompt, 1, k, r, log, err)))
      rc = tree_pass(m, t, c->tree_prompt, 0, k, r, log, err);
  ls_llamadrv_unload(m);
  return rc;
}

/* Warm passes with Q4_0 repacking on, every other size. */
static int repack_passes(ls_llamadrv *d, const ls_tbm_config *c, const int *ns, int nn, ls_tbm_result *r, FILE *log,
                         ls_error *err)
{
  ls_llamadrv_model *m = NULL;
  int rc = load(d, c->target, c, 1, 1, 512, &m, err);
  if (rc)
    return rc;
  rc = prompt_pass(m, r, "repack", 1, 0, 0, -1, NULL, err);
  for (int i = 0; i < nn && !rc; i += 2)
    for (int k = 0; k < c->reps && !rc; k++)
      rc = prompt_pass(m, r, "repack", ns[i], 0, 0, k, log, err);
  ls_llamadrv_unload(m);
  return rc;
}

/* Inputs are read before anything is measured: a bad file fails in a second, not after
 * minutes of passes. */
static int read_inputs(const ls_tbm_config *c, tree *t, ls_error *err)
{
  int rc = c->tree_json ? read_tree(c->tree_json, t, err) : LS_OK;
  if (!rc && c->trace) {
    static int rank[MAX_TRACE];
    int n_rank = 0;
    rc = trace_ranks(c->trace, rank, MAX_TRACE, &n_rank, err);
  }
  return rc;
}

/* The storage measurements' settings; with busy streams, their 100 %: the faster of two untimed
 * streams (a file's first cold read can take twice as long: 0.206 s against 0.108 s,
 * src:testbed-run). */
static int storage_setup(ls_llamadrv_model *m, const ls_tbm_config *c, storage *st, ls_error *err)
{
  memset(st, 0, sizeof *st);
  st->reps = 2 * c->reps + 1; /* cheap and the noisiest: more repetitions */
  st->spin_rate = c->busy ? ls_llamadrv_spin_rate() : 0;
  st->mem_rate = c->busy ? ls_llamadrv_mem_rate() : 0;
  int rc = LS_OK;
  for (int k = 0; k < 2 && !rc && c->busy; k++) {
    ls_llamadrv_cost sc;
    if (!(rc = ls_llamadrv_evict(m, NULL, err)) && !(rc = ls_llamadrv_stream(c->target, &sc, err)))
      st->anchor = k == 0 || sc.time_s < st->anchor ? sc.time_s : st->anchor;
  }
  return rc;
}

int ls_tbm_run(const ls_tbm_config *c, ls_tbm_result *r, FILE *log, ls_error *err)
{
  memset(r, 0, sizeof *r);
  if (c->reps < 1 || c->reps > 50 || c->max_n < 1 || c->max_n > 256 || c->threads < 1 || c->rows_n < 0 ||
      c->rows_n == 1 || c->rows_n > 256 || c->step_ctx < 0 || c->step_ctx > 8192)
    return ls_error_set(err, LS_ERANGE, "testbed: reps %d (1..50), max N %d (1..256), threads %d (>= 1), rows N %d "
                        "(0 or 2..256), step context %d (0..8192)", c->reps, c->max_n, c->threads, c->rows_n,
                        c->step_ctx);
  tree t;
  int rc = read_inputs(c, &t, err);
  if (rc)
    return rc;
  ls_llamadrv *d;
  if ((rc = ls_llamadrv_open(&d, c->lib_dir, err)))
    return rc;
  ls_llamadrv_model *m = NULL, *dm = NULL;
  int ns[LS_TBM_SIZES_MAX], nn = sizes(c, ns);
  if ((rc = load(d, c->target, c, 0, 1, cells(c), &m, err)))
    goto out;
  r->threads_seen = ls_llamadrv_threads(m);
  r->target_model_bytes = ls_llamadrv_model_bytes(m);
  if (log)
    fprintf(log, "testbed: %s, %d thread(s), weights %.1f MB\n", c->target, r->threads_seen,
            r->target_model_bytes / 1e6);
  r->read_ahead_bytes = read_ahead(c->target);
  /* The storage path alone: the file streamed through a mapping without compute; and, with it,
   * the same stream with a busy thread (busy_streams). Their repetitions are spread over the run
   * (storage_slot), not taken in one block before it. */
  storage st;
  rc = storage_setup(m, c, &st, err);
  if (!rc)
    rc = storage_slot(c, r, &st, 0, log, err);
  int spec = c->draft && c->trace;
  if (!rc && spec && !(rc = load(d, c->draft, c, 0, 1, 512, &dm, err))) {
    r->draft_model_bytes = ls_llamadrv_model_bytes(dm);
    rc = prompt_pass(dm, r, "warm", 1, 0, 0, -1, NULL, err);
    /* The same head kernel's costs on the draft, whose passes its head dominates. */
    if (!rc)
      rc = rows_passes(dm, r, c, 1, log, err);
  }
  if (!rc)
    rc = prompt_pass(m, r, "warm", 1, 0, 0, -1, NULL, err); /* warm-up: pages in, buffers made */
  if (!rc)
    rc = rounds(m, spec ? dm : NULL, c, ns, nn, &st, r, log, err);
  ls_llamadrv_unload(dm);
  dm = NULL;
  for (int k = 0; k < c->reps && !rc && c->tg > 0; k++)
    rc = tg_row(m, r, c->tg, k, log, err);
  /* The head's first-row and per-row costs on the target. */
  if (!rc)
    rc = rows_passes(m, r, c, 0, log, err);
  if (!rc && spec)
    rc = shape_passes(m, r, c, log, err);
  ls_llamadrv_unload(m);
  m = NULL;
  if (!rc)
    rc = storage_slot(c, r, &st, 5, log, err);
  if (!rc && c->tree_json)
    rc = tree_passes(d, c, &t, r, log, err);
  if (!rc)
    rc = storage_slot(c, r, &st, 6, log, err);
  if (!rc && c->repack)
    rc = repack_passes(d, c, ns, nn, r, log, err);
out:
  ls_llamadrv_unload(m);
  ls_llamadrv_close(d);
  if (rc)
    ls_tbm_result_free(r);
  return rc;
}

void ls_tbm_result_free(ls_tbm_result *r)
{
  free(r->p);
  r->p = NULL;
  r->n = r->cap = 0;
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double ls_tbm_median(const ls_tbm_result *r, const char *kind, int n_tokens, int ctx)
{
  double v[64];
  int n = 0;
  for (int i = 0; i < r->n && n < 64; i++)
    if (strcmp(r->p[i].kind, kind) == 0 && r->p[i].n_tokens == n_tokens && (ctx < 0 || r->p[i].ctx == ctx))
      v[n++] = r->p[i].c.time_s;
  if (n == 0)
    return NAN;
  qsort(v, (size_t)n, sizeof v[0], cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
