/* runner/testbed/protocol: see protocol.h. The statistic is fixed here and in protocol.yaml's
 * comments before any run (issue 32): nothing in it is chosen after seeing a result. */
#include "runner/testbed/protocol.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/fileio.h"
#include "sim/yaml.h"

static int load_config(const ls_ynode *m, ls_tbpr_config *c, ls_error *err)
{
  const char *name;
  long v[6];
  static const char *const keys[] = {"layers", "width", "threads", "draft_layers", "step_ctx", "spec_k"};
  static const long lo[] = {1, 256, 1, 1, 0, 1}, hi[] = {256, 16384, 64, 64, 8192, 16};
  int rc = ls_ynode_expect(m, LS_Y_MAP, err);
  if (!rc)
    rc = ls_yreq_string(m, "name", &name, err);
  for (int k = 0; k < 6 && !rc; k++)
    rc = ls_yreq_int(m, keys[k], lo[k], hi[k], &v[k], err);
  if (!rc)
    rc = ls_ymap_finish(m, err);
  if (rc)
    return rc;
  if (strlen(name) >= LS_TBPR_NAME || strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789-_") != strlen(name))
    return ls_ynode_error(m, err, LS_ESCHEMA, "name '%s': at most %d characters of a-z, 0-9, '-', '_'", name,
                          LS_TBPR_NAME - 1);
  *c = (ls_tbpr_config){.layers = (int)v[0], .width = (int)v[1], .threads = (int)v[2], .draft_layers = (int)v[3],
                        .step_ctx = (int)v[4], .spec_k = (int)v[5]};
  snprintf(c->name, sizeof c->name, "%s", name);
  return LS_OK;
}

static int load_parts(const ls_ynode *root, ls_tbpr *p, ls_error *err)
{
  ls_ynode t, m, cs;
  const char *id;
  long v[5];
  static const char *const mk[] = {"reps", "max_n", "tg", "rows", "spec_tokens"};
  static const long lo[] = {1, 1, 0, 0, 1}, hi[] = {50, 256, 256, 256, 4096};
  long cmin;
  int rc = ls_yreq_string(root, "id", &id, err);
  if (!rc && !(rc = ls_ymap_require(root, "targets", &t, err)) && !(rc = ls_yreq_int(&t, "configurations_min", 1,
                                                                                      LS_TBPR_MAX, &cmin, err)) &&
      !(rc = ls_yreq_double(&t, "median_max", LS_Y_POS, 1, &p->median_max, err)) &&
      !(rc = ls_yreq_double(&t, "baseline_ratio_max", LS_Y_POS, 10, &p->baseline_ratio_max, err)) &&
      !(rc = ls_yreq_double(&t, "spec_max", LS_Y_POS, 1, &p->spec_max, err)))
    rc = ls_ymap_finish(&t, err);
  if (!rc)
    rc = ls_ymap_require(root, "measure", &m, err);
  for (int k = 0; k < 5 && !rc; k++)
    rc = ls_yreq_int(&m, mk[k], lo[k], hi[k], &v[k], err);
  if (!rc)
    rc = ls_ymap_finish(&m, err);
  if (!rc && !(rc = ls_ymap_require(root, "configurations", &cs, err)))
    rc = ls_ynode_expect(&cs, LS_Y_SEQ, err);
  if (rc)
    return rc;
  if (ls_yseq_len(&cs) < 1 || ls_yseq_len(&cs) > LS_TBPR_MAX)
    return ls_ynode_error(&cs, err, LS_ESCHEMA, "%d configurations (1 to %d)", ls_yseq_len(&cs), LS_TBPR_MAX);
  snprintf(p->id, sizeof p->id, "%s", id);
  p->configurations_min = (int)cmin;
  p->reps = (int)v[0], p->max_n = (int)v[1], p->tg = (int)v[2], p->rows = (int)v[3], p->spec_tokens = (int)v[4];
  p->n = ls_yseq_len(&cs);
  for (int i = 0; i < p->n && !rc; i++) {
    ls_ynode c = ls_yseq_at(&cs, i);
    rc = load_config(&c, &p->c[i], err);
    for (int j = 0; j < i && !rc; j++)
      if (!strcmp(p->c[j].name, p->c[i].name))
        rc = ls_ynode_error(&c, err, LS_ESCHEMA, "name '%s': given twice", p->c[i].name);
  }
  return rc ? rc : ls_ymap_finish(root, err);
}

int ls_tbpr_load(const char *path, ls_tbpr *out, ls_error *err)
{
  ls_ydoc *d = NULL;
  memset(out, 0, sizeof *out);
  int rc = ls_ydoc_load_file(&d, path, err);
  if (!rc) {
    ls_ynode root = ls_ydoc_root(d);
    rc = ls_ynode_expect(&root, LS_Y_MAP, err);
    if (!rc)
      rc = load_parts(&root, out, err);
  }
  ls_ydoc_free(d);
  return rc;
}

int ls_tbpr_list(const ls_tbpr *p, FILE *out, ls_error *err)
{
  int bad = 0;
  for (int i = 0; i < p->n; i++) {
    const ls_tbpr_config *c = &p->c[i];
    bad |= fprintf(out, "%s %d %d %d %d %d %d %d %d %d %d %d\n", c->name, c->layers, c->width, c->threads,
                   c->draft_layers, c->step_ctx, c->spec_k, p->reps, p->max_n, p->tg, p->rows, p->spec_tokens) < 0;
  }
  return bad ? ls_error_set(err, LS_EIO, "testbed protocol: writing the list failed") : LS_OK;
}

/* What the verdict gathers over every file. */
typedef struct tally {
  double *em, *eb;         /* |errors| of the model and the baseline, one a point */
  int n, cap, near;
  double spec_pred, spec_meas;
  int spec_files;
  int empty;               /* files without a held-out point (a configuration that predicted nothing) */
  /* Each configuration's own speculative error, information only: Z's sum can hide errors
   * of both signs (protocol-2: -13.2 % and +12.6 % inside a sum of -3.3 %) */
  double spec_max;         /* the protocol's |Z| target, the bound each one is set against */
  int spec_out;            /* configurations whose own |error| exceeds it */
  double spec_worst;       /* the signed error of largest magnitude */
  const char *spec_worst_file; /* borrowed: its points file */
} tally;

static int push(tally *t, double em, double eb, ls_error *err)
{
  if (t->n == t->cap) {
    int nc = t->cap ? 2 * t->cap : 256;
    double *a = realloc(t->em, (size_t)nc * sizeof *a);
    if (a)
      t->em = a;
    double *b = a ? realloc(t->eb, (size_t)nc * sizeof *b) : NULL;
    if (!b)
      return ls_error_set(err, LS_ENOMEM, "out of memory");
    t->eb = b;
    t->cap = nc;
  }
  t->em[t->n] = em;
  t->eb[t->n++] = eb;
  return LS_OK;
}

/* One point file into t, its own line to out. */
static int read_points(const char *path, tally *t, FILE *out, ls_error *err)
{
  FILE *f; /* never a plain fopen: a FIFO without a writer would block it for ever */
  int orc = ls_file_open_read(&f, path, "points", err);
  if (orc)
    return orc;
  char line[512], kind[64];
  int ln = 0, rc = LS_OK, pts = 0, near = 0, spec = 0, blank = 0;
  double sm = 0, sb = 0, spec_e = 0;
  while (!rc && fgets(line, sizeof line, f)) {
    ln++;
    blank += line[0] == '\n';
    if (line[0] == '#' || line[0] == '\n')
      continue;
    int n, ctx, nr;
    double meas, pred, base;
    if (sscanf(line, "%63s %d %d %lf %lf %lf %d", kind, &n, &ctx, &meas, &pred, &base, &nr) != 7 || !(meas > 0) ||
        !(pred >= 0) || !(base >= 0) || (nr != 0 && nr != 1)) {
      rc = ls_error_at(err, LS_EPARSE, path, ln, 1, "expected kind, N, ctx, measured_s > 0, predicted_s, "
                       "baseline_s, near (0 or 1), tab-separated (testbed validate --points)");
      break;
    }
    if (nr) {
      near++;
      continue;
    }
    double em = fabs(pred / meas - 1), eb = fabs(base / meas - 1);
    if (!strcmp(kind, "spec")) {
      t->spec_pred += pred;
      t->spec_meas += meas;
      spec_e = pred / meas - 1;
      spec++;
    }
    sm += em;
    sb += eb;
    pts++;
    rc = push(t, em, eb, err);
  }
  if (!rc && ferror(f))
    rc = ls_error_set(err, LS_EIO, "%s: read failed", path);
  /* validate --points writes a header line even when it held out nothing: a file without a
   * line is not a points file (judged, it gave a NaN median and "not met") */
  if (!rc && ln == blank)
    rc = ls_error_set(err, LS_EPARSE, "%s: empty, not a points file (testbed validate --points writes one)", path);
  fclose(f);
  if (rc)
    return rc;
  t->near += near;
  t->spec_files += spec > 0;
  t->empty += pts == 0;
  if (spec) {
    t->spec_out += fabs(spec_e) > t->spec_max;
    if (!t->spec_worst_file || fabs(spec_e) > fabs(t->spec_worst)) {
      t->spec_worst = spec_e;
      t->spec_worst_file = path;
    }
  }
  if (fprintf(out, "%s: %d held-out points (%d near-copies left out); mean |error| %.1f %% (baseline %.1f %%); spec "
                   "%s%+.1f %%\n", path, pts, near, pts ? 100 * sm / pts : 0.0, pts ? 100 * sb / pts : 0.0,
              spec ? "" : "none ", 100 * spec_e) < 0)
    return ls_error_set(err, LS_EIO, "testbed verdict: writing failed");
  return LS_OK;
}

static int cmp_d(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  if (n == 0)
    return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int ls_tbpr_verdict(const ls_tbpr *p, const char *const *files, int n, FILE *out, int *met, ls_error *err)
{
  tally t = {0};
  t.spec_max = p->spec_max;
  int rc = LS_OK;
  *met = 0;
  for (int i = 0; i < n && !rc; i++)
    rc = read_points(files[i], &t, out, err);
  if (!rc && t.spec_files > 0 &&
      fprintf(out, "spec per configuration (information; the target is on the sum): |error| <= %.0f %% in %d of %d; "
                   "the largest %+.1f %% (%s)\n", 100 * p->spec_max, t.spec_files - t.spec_out, t.spec_files,
              100 * t.spec_worst, t.spec_worst_file) < 0)
    rc = ls_error_set(err, LS_EIO, "testbed verdict: writing failed");
  if (!rc) {
    double x = median(t.em, t.n), y = median(t.eb, t.n);
    double z = t.spec_meas > 0 ? t.spec_pred / t.spec_meas - 1 : NAN;
    char miss[512] = "";
    size_t k = 0;
    if (t.empty)
      k += (size_t)snprintf(miss + k, sizeof miss - k, "%d configurations without a prediction", t.empty);
    if (n < p->configurations_min)
      k += (size_t)snprintf(miss + k, sizeof miss - k, "%s%d configurations < %d", k ? ", " : "", n,
                            p->configurations_min);
    if (!(x <= p->median_max))
      k += (size_t)snprintf(miss + k, sizeof miss - k, "%smedian %.1f %% > %.0f %%", k ? ", " : "", 100 * x,
                            100 * p->median_max);
    if (!(x <= p->baseline_ratio_max * y))
      k += (size_t)snprintf(miss + k, sizeof miss - k, "%smedian %.1f %% > %g x baseline %.1f %%", k ? ", " : "",
                            100 * x, p->baseline_ratio_max, 100 * y);
    if (!(fabs(z) <= p->spec_max))
      k += (size_t)snprintf(miss + k, sizeof miss - k, "%sspec %s%+.1f %% beyond %.0f %%", k ? ", " : "",
                            t.spec_files < n ? "(a configuration without a speculative run) " : "", 100 * z,
                            100 * p->spec_max);
    *met = k == 0 && t.spec_files == n;
    if (k == 0 && !*met)
      snprintf(miss, sizeof miss, "a configuration without a speculative run");
    if (fprintf(out, "held-out: %d points over %d configurations; median absolute error %.1f %% (trivial baseline "
                     "%.1f %%); spec per-token error %+.1f %%; targets %s%s\n", t.n, n, 100 * x, 100 * y, 100 * z,
                *met ? "met" : "NOT met: ", miss) < 0)
      rc = ls_error_set(err, LS_EIO, "testbed verdict: writing failed");
  }
  free(t.em);
  free(t.eb);
  return rc;
}
