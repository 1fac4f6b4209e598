/* workloads/trace: reader, writer, recorder, summary and replay of traces
 * (format: workloads/TRACE_FORMAT.md).
 *
 * Storage: per prompt an array of position records (true path) and an array of off-path
 * records appended in position order; each position keeps the range of its off-path records.
 * Replay keys are structural rather than hashed, so a key can be decoded back into
 * (position, path) for lookup:
 *   true-path node at position T:  T << 40                       (bit 63 clear)
 *   off-path node:                 1 << 63 | T << 40 | d << 36 | r_1 | r_2 << 4 | ... (d ranks)
 *   unrecordable (too deep):       UINT64_MAX (no candidates, never accepted)
 * where T is the position where the path left the true text and r_1.. the ranks from there.
 * Positions are limited to 2^23 per prompt and ranks to 16 (4 bits), checked when reading. */
#include "workloads/trace.h"
#include "sim/fileio.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include "sim/units.h"

#define KMAX LS_VIEW_TOPK_MAX
#define LINE_MAX_LEN 4096
#define TOK_MAX 64
#define META_MAX 16
#define OFF_PER_POS_MAX 4096 /* off records at one position (a tree of 16 ranks, 3 deep) */
#define OFF_PER_POS_MAX_TEXT "4096"
#define T_LIMIT (1 << 23)
#define OFF_BIT (1ULL << 63)
#define UNKNOWN_KEY UINT64_MAX

typedef struct tr_node {
  int T;
  int rank;                       /* pos: true rank; off: unused */
  int k;
  int depth;                      /* off: path length */
  int path[LS_TRACE_PATH_MAX];    /* off: ranks from the true node at T */
  int off_begin, off_count;       /* pos: its off-path records */
  double q[KMAX];
} tr_node;

typedef struct tr_prompt {
  int prompt_len, output_len;
  tr_node *pos;
  int n_pos, cap_pos;
  tr_node *off;
  int n_off, cap_off;
} tr_prompt;

struct ls_trace {
  char meta_key[META_MAX][32];
  char meta_val[META_MAX][128];
  int n_meta;
  tr_prompt *p;
  int n, cap;
};

/* ---- building ---- */

static int grow(void **arr, int *cap, int need, size_t elem)
{
  if (need <= *cap)
    return LS_OK;
  int nc = *cap ? *cap * 2 : 16;
  while (nc < need)
    nc *= 2;
  void *a = realloc(*arr, (size_t)nc * elem);
  if (!a)
    return LS_ENOMEM;
  *arr = a;
  *cap = nc;
  return LS_OK;
}

static tr_prompt *add_prompt(ls_trace *t, int plen, int olen)
{
  if (grow((void **)&t->p, &t->cap, t->n + 1, sizeof *t->p))
    return NULL;
  tr_prompt *p = &t->p[t->n++];
  memset(p, 0, sizeof *p);
  p->prompt_len = plen;
  p->output_len = olen;
  return p;
}

static tr_node *add_pos(tr_prompt *p)
{
  if (grow((void **)&p->pos, &p->cap_pos, p->n_pos + 1, sizeof *p->pos))
    return NULL;
  tr_node *n = &p->pos[p->n_pos++];
  memset(n, 0, sizeof *n);
  n->T = p->n_pos - 1;
  n->off_begin = p->n_off;
  return n;
}

static tr_node *add_off(tr_prompt *p)
{
  if (grow((void **)&p->off, &p->cap_off, p->n_off + 1, sizeof *p->off))
    return NULL;
  tr_node *n = &p->off[p->n_off++];
  memset(n, 0, sizeof *n);
  p->pos[p->n_pos - 1].off_count++;
  return n;
}

static void set_meta(ls_trace *t, const char *k, const char *v)
{
  if (!v || t->n_meta >= META_MAX)
    return;
  snprintf(t->meta_key[t->n_meta], sizeof t->meta_key[0], "%s", k);
  snprintf(t->meta_val[t->n_meta], sizeof t->meta_val[0], "%s", v);
  t->n_meta++;
}

void ls_trace_free(ls_trace *t)
{
  if (!t)
    return;
  for (int i = 0; i < t->n; i++) {
    free(t->p[i].pos);
    free(t->p[i].off);
  }
  free(t->p);
  free(t);
}

/* ---- reading ---- */

typedef struct tok {
  const char *s;
  int col;
} tok;

typedef struct rd {
  const char *file;
  int line;
  ls_error *err;
} rd;

static int rd_err(const rd *r, int col, const char *msg, const char *val)
{
  return ls_error_at(r->err, LS_EPARSE, r->file, r->line, col, "%s%s%s%s", msg, val ? " '" : "",
                     val ? val : "", val ? "'" : "");
}

static int split(char *line, tok *toks, int max)
{
  int n = 0;
  char *s = line;
  while (*s) {
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s)
      break;
    if (n == max)
      return -1;
    toks[n].s = s;
    toks[n].col = (int)(s - line) + 1;
    n++;
    while (*s && *s != ' ' && *s != '\t')
      s++;
    if (*s)
      *s++ = '\0';
  }
  return n;
}

static int get_int(const rd *r, const tok *t, long lo, long hi, int *out)
{
  char *end;
  errno = 0;
  long v = strtol(t->s, &end, 10);
  if (*t->s == '\0' || *end != '\0' || errno)
    return rd_err(r, t->col, "expected an integer, found", t->s);
  if (v < lo || v > hi) {
    char msg[96];
    snprintf(msg, sizeof msg, "integer out of range [%ld, %ld]:", lo, hi);
    return rd_err(r, t->col, msg, t->s);
  }
  *out = (int)v;
  return LS_OK;
}

static int get_probs(const rd *r, const tok *toks, int ntok, int first, tr_node *n)
{
  int rc = get_int(r, &toks[first], 1, KMAX, &n->k);
  if (rc)
    return rc;
  if (ntok != first + 1 + n->k)
    return rd_err(r, toks[ntok - 1].col, ntok < first + 1 + n->k ? "too few probabilities after" : "too many fields after",
                  toks[ntok - 1].s);
  double sum = 0.0;
  for (int i = 0; i < n->k; i++) {
    const tok *t = &toks[first + 1 + i];
    const char *end = t->s, *why;
    double v = -1.0;
    if (ls_units_decimal(t->s, &v, &end, &why) != LS_OK || *end != '\0' || !(v >= 0.0 && v <= 1.0))
      return rd_err(r, t->col, "expected a probability in [0,1], found", t->s);
    if (i > 0 && v > n->q[i - 1])
      return rd_err(r, t->col, "probabilities must be non-increasing, found", t->s);
    n->q[i] = v;
    sum += v;
  }
  if (sum > 1.0 + 1e-9)
    return rd_err(r, toks[first + 1].col, "probabilities sum to more than 1", NULL);
  return LS_OK;
}

static int parse_path(const rd *r, const tok *t, tr_node *n)
{
  const char *s = t->s;
  n->depth = 0;
  for (;;) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v >= KMAX || n->depth == LS_TRACE_PATH_MAX)
      return rd_err(r, t->col, "expected a path of up to 8 ranks 0..15 like 1.0.2, found", t->s);
    n->path[n->depth++] = (int)v;
    if (*end == '\0')
      return LS_OK;
    if (*end != '.')
      return rd_err(r, t->col, "expected a path of up to 8 ranks 0..15 like 1.0.2, found", t->s);
    s = end + 1;
  }
}

static int rd_pos(const rd *r, ls_trace *tr, tok *toks, int n)
{
  if (tr->n == 0)
    return rd_err(r, toks[0].col, "'pos' before any 'prompt'", NULL);
  if (n < 5)
    return rd_err(r, toks[n - 1].col, "too few fields: pos T RANK K q1..qK", NULL);
  tr_prompt *p = &tr->p[tr->n - 1];
  int T, rank;
  int rc = get_int(r, &toks[1], 0, T_LIMIT - 1, &T);
  if (!rc && T != p->n_pos) {
    char want[32];
    snprintf(want, sizeof want, "%d", p->n_pos);
    rc = ls_error_at(r->err, LS_EPARSE, r->file, r->line, toks[1].col, "expected position %s, found '%s'", want, toks[1].s);
  }
  if (!rc) rc = get_int(r, &toks[2], -1, KMAX - 1, &rank);
  tr_node *node = rc ? NULL : add_pos(p);
  if (!rc && !node)
    return ls_error_set(r->err, LS_ENOMEM, "out of memory reading %s", r->file);
  if (!rc) rc = get_probs(r, toks, n, 3, node);
  if (!rc && rank >= node->k)
    rc = rd_err(r, toks[2].col, "rank must be < K, found", toks[2].s);
  if (!rc)
    node->rank = rank;
  return rc;
}

static int rd_off(const rd *r, ls_trace *tr, tok *toks, int n)
{
  if (tr->n == 0 || tr->p[tr->n - 1].n_pos == 0)
    return rd_err(r, toks[0].col, "'off' before any 'pos'", NULL);
  if (n < 5)
    return rd_err(r, toks[n - 1].col, "too few fields: off T PATH K q1..qK", NULL);
  tr_prompt *p = &tr->p[tr->n - 1];
  const tr_node *last = &p->pos[p->n_pos - 1];
  int T;
  tr_node tmp;
  memset(&tmp, 0, sizeof tmp);
  int rc = get_int(r, &toks[1], 0, T_LIMIT - 1, &T);
  if (!rc && T != last->T)
    rc = rd_err(r, toks[1].col, "an off record must follow its own pos line; position", toks[1].s);
  if (!rc) rc = parse_path(r, &toks[2], &tmp);
  if (!rc && tmp.path[0] == last->rank)
    rc = rd_err(r, toks[2].col, "the first rank of an off path must differ from the true rank:", toks[2].s);
  if (!rc) rc = get_probs(r, toks, n, 3, &tmp);
  if (!rc && last->off_count >= OFF_PER_POS_MAX)
    rc = rd_err(r, toks[0].col, "more than " OFF_PER_POS_MAX_TEXT " off records at position", toks[1].s);
  /* the same path twice would give one node two sets of probabilities (the replay would
   * silently take one): refused, like a duplicate meta record */
  for (int j = last->off_begin; !rc && j < last->off_begin + last->off_count; j++)
    if (p->off[j].depth == tmp.depth &&
        memcmp(p->off[j].path, tmp.path, (size_t)tmp.depth * sizeof *tmp.path) == 0)
      rc = rd_err(r, toks[2].col, "duplicate off record (the same path at this position):",
                  toks[2].s);
  if (rc)
    return rc;
  tr_node *node = add_off(p);
  if (!node)
    return ls_error_set(r->err, LS_ENOMEM, "out of memory reading %s", r->file);
  *node = tmp;
  node->T = T;
  return LS_OK;
}

static int rd_line(const rd *r, ls_trace *tr, tok *toks, int n, int *ended)
{
  const char *kw = toks[0].s;
  int a, b, c;
  if (*ended)
    return rd_err(r, toks[0].col, "text after 'end':", kw);
  if (strcmp(kw, "pos") == 0)
    return rd_pos(r, tr, toks, n);
  if (strcmp(kw, "off") == 0)
    return rd_off(r, tr, toks, n);
  if (strcmp(kw, "prompt") == 0) {
    if (n != 4)
      return rd_err(r, toks[0].col, "expected: prompt P PROMPT_LEN OUTPUT_LEN", NULL);
    int rc = get_int(r, &toks[1], tr->n, tr->n, &a);
    if (!rc) rc = get_int(r, &toks[2], 0, 10000000, &b);
    if (!rc) rc = get_int(r, &toks[3], 1, T_LIMIT - 1, &c);
    if (!rc && tr->n > 0 && tr->p[tr->n - 1].n_pos < tr->p[tr->n - 1].output_len)
      rc = rd_err(r, toks[0].col, "previous prompt has fewer positions than its output length", NULL);
    if (!rc && !add_prompt(tr, b, c))
      rc = ls_error_set(r->err, LS_ENOMEM, "out of memory reading %s", r->file);
    return rc;
  }
  if (strcmp(kw, "meta") == 0) {
    if (n != 3)
      return rd_err(r, toks[0].col, "expected: meta KEY VALUE", NULL);
    if (tr->n > 0)
      return rd_err(r, toks[0].col, "meta lines must precede the first prompt", NULL);
    if (tr->n_meta >= META_MAX || strlen(toks[1].s) >= 32 || strlen(toks[2].s) >= 128)
      return rd_err(r, toks[1].col, "too many or too long meta entries at", toks[1].s);
    if (ls_trace_meta(tr, toks[1].s)) /* a second value would be ignored: refuse it */
      return rd_err(r, toks[1].col, "duplicate meta record:", toks[1].s);
    set_meta(tr, toks[1].s, toks[2].s);
    return LS_OK;
  }
  if (strcmp(kw, "end") == 0) {
    if (n != 1)
      return rd_err(r, toks[1].col, "unexpected field after 'end':", toks[1].s);
    if (tr->n == 0)
      return rd_err(r, toks[0].col, "trace has no prompts", NULL);
    if (tr->p[tr->n - 1].n_pos < tr->p[tr->n - 1].output_len)
      return rd_err(r, toks[0].col, "last prompt has fewer positions than its output length", NULL);
    *ended = 1;
    return LS_OK;
  }
  return rd_err(r, toks[0].col, "unknown keyword (expected meta, prompt, pos, off, end):", kw);
}

static int rd_header(const rd *r, char *line)
{
  tok toks[TOK_MAX];
  int n = split(line, toks, TOK_MAX);
  if (n < 1 || strcmp(toks[0].s, "leversim-trace") != 0)
    return rd_err(r, 1, "not a leversim trace (first line must be 'leversim-trace 1')", NULL);
  if (n != 2 || strcmp(toks[1].s, "1") != 0)
    return rd_err(r, n > 1 ? toks[1].col : 1, "unsupported trace version (this build reads 1):", n > 1 ? toks[1].s : "");
  return LS_OK;
}

/* Reads one line (without its '\n') into buf, at most cap - 1 bytes, counting every byte, so
 * a NUL byte cannot hide the rest of a line. The bound is checked before anything grows: a
 * file without line ends (/dev/zero) stops at cap instead of filling memory.
 * Returns 1 (a line), 0 (end of file), -1 (longer than cap - 1 bytes), -2 (read error). */
static int read_line(FILE *f, char *buf, size_t cap, size_t *len)
{
  size_t n = 0;
  int c;
  while ((c = getc(f)) != EOF && c != '\n') {
    if (n == cap - 1)
      return -1;
    buf[n++] = (char)c;
  }
  buf[n] = '\0';
  *len = n;
  if (c == EOF && ferror(f))
    return -2;
  return (c == EOF && n == 0) ? 0 : 1;
}

static int read_stream(FILE *f, rd *r, ls_trace *tr)
{
  char line[LINE_MAX_LEN];
  size_t len;
  tok toks[TOK_MAX];
  int ended = 0, rc = LS_OK, header = 0, got;
  while (!rc && (got = read_line(f, line, sizeof line, &len)) != 0) {
    r->line++;
    if (got == -1) {
      rc = ls_error_at(r->err, LS_EPARSE, r->file, r->line, 1,
                       "line too long (the limit is %d bytes)", LINE_MAX_LEN - 1);
      break;
    }
    if (got == -2) {
      rc = ls_error_at(r->err, LS_EIO, r->file, r->line, 1, "read error: %s", strerror(errno));
      break;
    }
    if (memchr(line, '\0', len)) {
      rc = rd_err(r, (int)strlen(line) + 1, "NUL byte in a text line", NULL);
      break;
    }
    if (len > 0 && line[len - 1] == '\r')
      line[--len] = '\0';
    if (strchr(line, '\r')) { /* a CRLF line end is fine, a CR inside a line is not */
      rc = rd_err(r, (int)(strchr(line, '\r') - line) + 1, "carriage return inside a line", NULL);
      break;
    }
    if (!header) {
      rc = rd_header(r, line);
      header = 1;
      continue;
    }
    int n = split(line, toks, TOK_MAX);
    if (n < 0) {
      rc = rd_err(r, 1, "too many fields", NULL);
      break;
    }
    if (n == 0 || toks[0].s[0] == '#')
      continue;
    rc = rd_line(r, tr, toks, n, &ended);
  }
  if (!rc && !header)
    rc = rd_err(r, 1, "empty file", NULL);
  if (!rc && !ended)
    rc = ls_error_at(r->err, LS_EPARSE, r->file, r->line + 1, 1, "missing 'end' (truncated trace?)");
  return rc;
}

int ls_trace_read(ls_trace **out, const char *path, ls_error *err)
{
  *out = NULL;
  FILE *f = NULL; /* a missing trace is 66, a FIFO or folder 74, never a hang */
  int orc = ls_file_open_read(&f, path, "trace", err);
  if (orc)
    return orc;
  ls_trace *tr = calloc(1, sizeof *tr);
  if (!tr) {
    fclose(f);
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  }
  rd r = {path, 0, err};
  int rc = read_stream(f, &r, tr);
  fclose(f);
  if (rc) {
    ls_trace_free(tr);
    return rc;
  }
  *out = tr;
  return LS_OK;
}

/* ---- writing ---- */

static void write_probs(FILE *f, const tr_node *n)
{
  fprintf(f, " %d", n->k);
  for (int i = 0; i < n->k; i++)
    fprintf(f, " %.17g", n->q[i]);
  fputc('\n', f);
}

int ls_trace_write_file(const ls_trace *t, FILE *f, ls_error *err)
{
  fprintf(f, "leversim-trace %d\n# format: workloads/TRACE_FORMAT.md\n", LS_TRACE_VERSION);
  for (int i = 0; i < t->n_meta; i++)
    fprintf(f, "meta %s %s\n", t->meta_key[i], t->meta_val[i]);
  for (int p = 0; p < t->n; p++) {
    const tr_prompt *pr = &t->p[p];
    fprintf(f, "prompt %d %d %d\n", p, pr->prompt_len, pr->output_len);
    for (int i = 0; i < pr->n_pos; i++) {
      const tr_node *n = &pr->pos[i];
      fprintf(f, "pos %d %d", n->T, n->rank);
      write_probs(f, n);
      for (int j = n->off_begin; j < n->off_begin + n->off_count; j++) {
        const tr_node *o = &pr->off[j];
        fprintf(f, "off %d ", o->T);
        for (int d = 0; d < o->depth; d++)
          fprintf(f, "%s%d", d ? "." : "", o->path[d]);
        write_probs(f, o);
      }
    }
  }
  fprintf(f, "end\n");
  if (ferror(f))
    return ls_error_set(err, LS_EIO, "error writing trace");
  return LS_OK;
}

int ls_trace_write(const ls_trace *t, const char *path, ls_error *err)
{
  ls_file_out o; /* atomic, and only over a trace (or an empty file) */
  int rc = ls_file_out_open(&o, path, "trace --out", "leversim-trace", err);
  if (!rc) rc = ls_trace_write_file(t, o.f, err);
  if (!rc) return ls_file_out_commit(&o, err);
  ls_file_out_abort(&o);
  return rc;
}

/* ---- recording from the oracle ---- */

static int record_position(tr_prompt *pr, const ls_oracle *o, int p, int t, int topk, int off)
{
  ls_oracle_cycle c;
  ls_draft_view v;
  ls_oracle_begin(o, p, t, &c, &v);
  tr_node *n = add_pos(pr);
  if (!n)
    return LS_ENOMEM;
  n->k = v.candidates(v.ctx, v.root_key, 0, n->q, topk);
  int rank = ls_oracle_true_rank(&c, v.root_key, 0);
  n->rank = rank < n->k ? rank : -1;
  if (n->k == 0) { /* the format needs K >= 1: a draft with no candidate offers p = 0 */
    n->k = 1;
    n->q[0] = 0.0;
    n->rank = -1;
  }
  for (int r = 0; r < off && r < n->k; r++) {
    if (r == n->rank)
      continue;
    tr_node *x = add_off(pr);
    if (!x)
      return LS_ENOMEM;
    uint64_t ck = v.child_key(v.ctx, v.root_key, 0, r);
    x->T = t;
    x->depth = 1;
    x->path[0] = r;
    x->k = v.candidates(v.ctx, ck, 1, x->q, topk);
    if (x->k == 0) {
      x->k = 1;
      x->q[0] = 0.0;
    }
  }
  return LS_OK;
}

int ls_trace_record(ls_trace **out, const ls_oracle *o, int topk, int off, int extra,
                    const char *dataset, const char *target, const char *draft, uint64_t seed,
                    ls_error *err)
{
  *out = NULL;
  if (topk < 1 || topk > KMAX || off < 0 || off > KMAX || extra < 0)
    return ls_error_set(err, LS_EINVALID, "trace record: topk must be 1..%d, off 0..%d, extra >= 0", KMAX, KMAX);
  ls_trace *t = calloc(1, sizeof *t);
  if (!t)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  char sbuf[32];
  snprintf(sbuf, sizeof sbuf, "%llu", (unsigned long long)seed);
  set_meta(t, "source", "synthetic-oracle");
  set_meta(t, "dataset", dataset);
  set_meta(t, "target", target);
  set_meta(t, "draft", draft);
  set_meta(t, "seed", sbuf);
  int rc = LS_OK;
  for (int p = 0; !rc && p < ls_oracle_prompts(o); p++) {
    tr_prompt *pr = add_prompt(t, ls_oracle_prompt_len(o, p), ls_oracle_output_len(o, p));
    rc = pr ? LS_OK : LS_ENOMEM;
    for (int i = 0; !rc && i < pr->output_len + extra; i++)
      rc = record_position(pr, o, p, i, topk, off);
  }
  if (rc) {
    ls_trace_free(t);
    return ls_error_set(err, rc, "trace record: out of memory");
  }
  *out = t;
  return LS_OK;
}

/* ---- accessors, comparison, summary ---- */

int ls_trace_prompts(const ls_trace *t) { return t->n; }
int ls_trace_prompt_len(const ls_trace *t, int prompt) { return t->p[prompt].prompt_len; }
int ls_trace_output_len(const ls_trace *t, int prompt) { return t->p[prompt].output_len; }
int ls_trace_positions(const ls_trace *t, int prompt) { return t->p[prompt].n_pos; }

int ls_trace_rank(const ls_trace *t, int prompt, int pos) { return t->p[prompt].pos[pos].rank; }

const char *ls_trace_meta(const ls_trace *t, const char *key)
{
  for (int i = 0; i < t->n_meta; i++)
    if (strcmp(t->meta_key[i], key) == 0)
      return t->meta_val[i];
  return NULL;
}

static int node_equal(const tr_node *a, const tr_node *b)
{
  if (a->T != b->T || a->rank != b->rank || a->k != b->k || a->depth != b->depth ||
      a->off_begin != b->off_begin || a->off_count != b->off_count)
    return 0;
  for (int i = 0; i < a->depth; i++)
    if (a->path[i] != b->path[i])
      return 0;
  for (int i = 0; i < a->k; i++)
    if (a->q[i] != b->q[i])
      return 0;
  return 1;
}

int ls_trace_equal(const ls_trace *a, const ls_trace *b)
{
  if (a->n != b->n || a->n_meta != b->n_meta)
    return 0;
  for (int i = 0; i < a->n_meta; i++)
    if (strcmp(a->meta_key[i], b->meta_key[i]) || strcmp(a->meta_val[i], b->meta_val[i]))
      return 0;
  for (int p = 0; p < a->n; p++) {
    const tr_prompt *x = &a->p[p], *y = &b->p[p];
    if (x->prompt_len != y->prompt_len || x->output_len != y->output_len || x->n_pos != y->n_pos ||
        x->n_off != y->n_off)
      return 0;
    for (int i = 0; i < x->n_pos; i++)
      if (!node_equal(&x->pos[i], &y->pos[i]))
        return 0;
    for (int i = 0; i < x->n_off; i++)
      if (!node_equal(&x->off[i], &y->off[i]))
        return 0;
  }
  return 1;
}

void ls_trace_info(const ls_trace *t, FILE *f)
{
  long npos = 0, noff = 0, hist[KMAX + 1] = {0};
  double q1 = 0.0;
  for (int p = 0; p < t->n; p++) {
    npos += t->p[p].n_pos;
    noff += t->p[p].n_off;
    for (int i = 0; i < t->p[p].n_pos; i++) {
      hist[t->p[p].pos[i].rank + 1]++;
      q1 += t->p[p].pos[i].q[0];
    }
  }
  fprintf(f, "trace version %d\n", LS_TRACE_VERSION);
  for (int i = 0; i < t->n_meta; i++)
    fprintf(f, "meta %s: %s\n", t->meta_key[i], t->meta_val[i]);
  fprintf(f, "prompts: %d\npositions: %ld\noff-path records: %ld\n", t->n, npos, noff);
  if (npos == 0)
    return;
  fprintf(f, "mean draft top-1 probability: %.4f\n", q1 / (double)npos);
  fprintf(f, "top-1 acceptance: %.4f\n", (double)hist[1] / (double)npos);
  fprintf(f, "true rank histogram:");
  for (int r = -1; r < KMAX; r++)
    if (hist[r + 1])
      fprintf(f, " %d:%.4f", r, (double)hist[r + 1] / (double)npos);
  fputc('\n', f);
}

/* ---- replay ---- */

static uint64_t key_true(int T) { return (uint64_t)T << 40; }

static const tr_node *find_node(const ls_trace_cycle *c, uint64_t key)
{
  const tr_prompt *pr = &c->t->p[c->prompt];
  if (key == UNKNOWN_KEY)
    return NULL;
  int T = (int)((key >> 40) & (T_LIMIT - 1));
  if (T >= pr->n_pos)
    return NULL;
  if (!(key & OFF_BIT))
    return &pr->pos[T];
  int d = (int)((key >> 36) & 15);
  const tr_node *tn = &pr->pos[T];
  for (int j = tn->off_begin; j < tn->off_begin + tn->off_count; j++) {
    const tr_node *o = &pr->off[j];
    int same = o->depth == d;
    for (int i = 0; same && i < d; i++)
      same = o->path[i] == (int)((key >> (4 * i)) & 15);
    if (same)
      return o;
  }
  return NULL;
}

static int replay_candidates(const void *ctx, uint64_t key, int depth, double *probs, int k)
{
  (void)depth;
  const tr_node *n = find_node(ctx, key);
  if (!n)
    return 0;
  if (k > n->k)
    k = n->k;
  if (k < 0)
    k = 0;
  memcpy(probs, n->q, (size_t)k * sizeof *probs);
  return k;
}

static uint64_t replay_child_key(const void *ctx, uint64_t key, int depth, int rank)
{
  const ls_trace_cycle *c = ctx;
  const tr_prompt *pr = &c->t->p[c->prompt];
  (void)depth;
  if (key == UNKNOWN_KEY || rank < 0 || rank >= KMAX)
    return UNKNOWN_KEY;
  int T = (int)((key >> 40) & (T_LIMIT - 1));
  if (!(key & OFF_BIT)) {
    int tr = T < pr->n_pos ? pr->pos[T].rank : -1;
    if (rank == tr)
      return T + 1 < T_LIMIT ? key_true(T + 1) : UNKNOWN_KEY;
    return OFF_BIT | key | (1ULL << 36) | (uint64_t)rank;
  }
  int d = (int)((key >> 36) & 15);
  if (d >= LS_TRACE_PATH_MAX)
    return UNKNOWN_KEY;
  uint64_t base = key & ~(15ULL << 36);
  return base | ((uint64_t)(d + 1) << 36) | ((uint64_t)rank << (4 * d));
}

void ls_trace_replay_begin(const ls_trace *t, int prompt, int pos, ls_trace_cycle *cyc, ls_draft_view *view)
{
  cyc->t = t;
  cyc->prompt = prompt;
  cyc->pos = pos;
  view->ctx = cyc;
  view->root_key = pos < T_LIMIT ? key_true(pos) : UNKNOWN_KEY;
  view->candidates = replay_candidates;
  view->child_key = replay_child_key;
}

int ls_trace_replay_true_rank(const ls_trace_cycle *cyc, uint64_t key, int depth)
{
  int t = cyc->pos + depth;
  if (key == UNKNOWN_KEY || (key & OFF_BIT) || t >= T_LIMIT || key != key_true(t))
    return LS_ORACLE_OFF_PATH;
  const tr_prompt *pr = &cyc->t->p[cyc->prompt];
  return t < pr->n_pos ? pr->pos[t].rank : -1;
}
