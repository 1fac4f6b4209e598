/* runner/study/uncertainty: the ranges file, the Sobol design and the index estimators (see
 * uncertainty.h; the study itself is in unc_study.c, its outputs in unc_report.c). */
#include "runner/study/uncertainty.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_qrng.h>
#include "sim/range.h"
#include "sim/yaml.h"

struct ls_unc_ranges {
  ls_ydoc *doc; /* owned: every string of the assumptions is borrowed from it */
  ls_unc_assumption a[LS_UNC_MAX_ASSUMPTIONS];
  int n;
  ls_ynode not_sampled; /* kind LS_Y_NONE when absent */
};

/* A sequence of at most max strings. */
static int read_list(const ls_ynode *m, const char *key, const char **out, int max, int *n, ls_error *err)
{
  ls_ynode s;
  *n = 0;
  if (!ls_ymap_find(m, key, &s)) return LS_OK;
  int rc = ls_ynode_expect(&s, LS_Y_SEQ, err);
  if (rc) return rc;
  if (ls_yseq_len(&s) > max) return ls_ynode_error(&s, err, LS_EINVALID, "at most %d entries", max);
  for (int i = 0; i < ls_yseq_len(&s) && !rc; i++) {
    ls_ynode e = ls_yseq_at(&s, i);
    rc = ls_yas_string(&e, &out[(*n)++], err);
  }
  return rc;
}

/* range: [low, high] with scale, or values: [...] (exactly one of them). */
/* A sampled range of a setting stays within the setting's row of the one range table
 * (sim/range.h): else a sampled run would be refused half-way through the study. */
static int within_table(const ls_ynode *r, const ls_unc_assumption *a, ls_error *err)
{
  int id = a->setting ? ls_range_of_setting(a->setting) : -1;
  if (id < 0) return LS_OK;
  const ls_range *row = ls_range_at((ls_range_id)id);
  double f = 1;
  const char *why;
  char one[64], text[96];
  snprintf(one, sizeof one, "1 %s", a->unit);
  if (row->quantity && ls_units_parse(one, row->unit, &f, &why) != LS_OK)
    return ls_ynode_error(r, err, LS_EUNIT, "unit '%s' of %s: %s", a->unit, a->setting, why);
  if (ls_range_check((ls_range_id)id, a->lo * f) || ls_range_check((ls_range_id)id, a->hi * f))
    return ls_ynode_error(r, err, LS_ERANGE, "[%g, %g] %s leaves %s, the range %s is read in (sim/range.h)", a->lo,
                          a->hi, a->unit, ls_range_text((ls_range_id)id, text, sizeof text), a->setting);
  return LS_OK;
}

static int read_domain(const ls_ynode *m, ls_unc_assumption *a, ls_error *err)
{
  ls_ynode r;
  int rc;
  if (ls_ymap_find(m, "range", &r)) {
    double v[2];
    int n = 0;
    static const char *const scales[] = {"linear", "log", NULL};
    if ((rc = ls_yas_doubles(&r, -1e300, 1e300, v, 2, &n, err))) return rc;
    if (n != 2 || !(v[0] < v[1])) return ls_ynode_error(&r, err, LS_EINVALID, "range must be [low, high] with low < high");
    a->is_range = 1, a->lo = v[0], a->hi = v[1];
    if ((rc = ls_yreq_enum(m, "scale", scales, &a->log_scale, err)) ||
        (rc = ls_yopt_string(m, "unit", "", &a->unit, err)))
      return rc;
    if (a->log_scale && !(a->lo > 0)) return ls_ynode_error(&r, err, LS_EINVALID, "a log range needs low > 0");
    return within_table(&r, a, err);
  }
  if ((rc = read_list(m, "values", a->values, LS_UNC_MAX_VALUES, &a->n_values, err))) return rc;
  if (a->n_values < 2) return ls_ynode_error(m, err, LS_ESCHEMA, "%s: give a range or two or more values", a->name);
  return LS_OK;
}

static int read_assumption(const ls_ynode *m, ls_unc_assumption *a, ls_error *err)
{
  int rc = ls_ynode_expect(m, LS_Y_MAP, err);
  memset(a, 0, sizeof *a);
  if (!rc) rc = ls_yreq_string(m, "name", &a->name, err);
  if (!rc) rc = ls_yopt_string(m, "setting", NULL, &a->setting, err);
  if (!rc) rc = ls_yopt_string(m, "claim", NULL, &a->claim, err);
  if (!rc && !a->setting == !a->claim)
    rc = ls_ynode_error(m, err, LS_ESCHEMA, "%s: give exactly one of setting and claim", a->name);
  if (!rc) rc = read_list(m, "devices", a->devices, LS_UNC_MAX_SCOPE, &a->n_devices, err);
  if (!rc) rc = read_list(m, "systems", a->systems, LS_UNC_MAX_SCOPE, &a->n_systems, err);
  if (!rc) rc = ls_yreq_string(m, "default", &a->dflt, err);
  if (!rc) rc = ls_yreq_string(m, "sources", &a->sources, err);
  if (!rc) rc = ls_yreq_string(m, "why", &a->why, err);
  if (!rc) rc = read_domain(m, a, err);
  if (!rc) rc = ls_ymap_finish(m, err);
  return rc;
}

int ls_unc_ranges_load(ls_unc_ranges **out, const char *path, ls_error *err)
{
  *out = NULL;
  ls_unc_ranges *r = calloc(1, sizeof *r);
  if (!r) return ls_error_set(err, LS_ENOMEM, "ranges: out of memory");
  int rc = ls_ydoc_load_file(&r->doc, path, err);
  ls_ynode root, list;
  if (!rc) root = ls_ydoc_root(r->doc);
  if (!rc) rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  if (!rc) rc = ls_ymap_require(&root, "assumptions", &list, err);
  if (!rc) rc = ls_ynode_expect(&list, LS_Y_SEQ, err);
  if (!rc && (ls_yseq_len(&list) < 1 || ls_yseq_len(&list) > LS_UNC_MAX_ASSUMPTIONS))
    rc = ls_ynode_error(&list, err, LS_EINVALID, "1 to %d assumptions", LS_UNC_MAX_ASSUMPTIONS);
  for (int i = 0; !rc && i < ls_yseq_len(&list); i++) {
    ls_ynode m = ls_yseq_at(&list, i);
    rc = read_assumption(&m, &r->a[r->n++], err);
    for (int j = 0; !rc && j < r->n - 1; j++)
      if (!strcmp(r->a[j].name, r->a[r->n - 1].name))
        rc = ls_ynode_error(&m, err, LS_EINVALID, "assumption %s given twice", r->a[j].name);
  }
  if (!rc && ls_ymap_find(&root, "not_sampled", &r->not_sampled)) rc = ls_ynode_expect(&r->not_sampled, LS_Y_SEQ, err);
  if (!rc) rc = ls_ymap_finish(&root, err);
  if (rc) {
    ls_unc_ranges_free(r);
    return rc;
  }
  *out = r;
  return LS_OK;
}

void ls_unc_ranges_free(ls_unc_ranges *r)
{
  if (!r) return;
  ls_ydoc_free(r->doc);
  free(r);
}

int ls_unc_ranges_count(const ls_unc_ranges *r) { return r->n; }
const ls_unc_assumption *ls_unc_ranges_at(const ls_unc_ranges *r, int i) { return &r->a[i]; }

void ls_unc_value(const ls_unc_assumption *a, double u, char *buf, size_t size)
{
  u = u < 0 ? 0 : (u >= 1 ? nextafter(1.0, 0.0) : u);
  if (!a->is_range) {
    snprintf(buf, size, "%s", a->values[(int)(u * a->n_values)]);
    return;
  }
  double v = a->log_scale ? a->lo * pow(a->hi / a->lo, u) : a->lo + u * (a->hi - a->lo);
  snprintf(buf, size, "%.17g%s%s", v, a->unit[0] ? " " : "", a->unit);
}

static void scope_text(const ls_unc_assumption *a, char *buf, size_t size)
{
  size_t n = 0;
  buf[0] = '\0';
  for (int i = 0; i < a->n_devices && n < size; i++) n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? "," : "", a->devices[i]);
  for (int i = 0; i < a->n_systems && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "", a->systems[i]);
  if (!buf[0]) snprintf(buf, size, "%s", a->claim ? "claim" : "all");
}

void ls_unc_ranges_print(const ls_unc_ranges *r, FILE *out)
{
  fprintf(out, "# %d open assumptions with plausible values (runner/experiments/ranges.yaml; docs/SOURCES.md §11)\n", r->n);
  fprintf(out, "%-22s %-24s %-18s %-16s %s\n", "assumption", "setting", "scope", "default", "plausible values");
  for (int i = 0; i < r->n; i++) {
    const ls_unc_assumption *a = &r->a[i];
    char scope[160], dom[300];
    size_t n = 0;
    scope_text(a, scope, sizeof scope);
    if (a->is_range)
      snprintf(dom, sizeof dom, "%g .. %g %s (%s)", a->lo, a->hi, a->unit, a->log_scale ? "log-uniform" : "uniform");
    else
      for (int j = 0; j < a->n_values && n < sizeof dom; j++) n += (size_t)snprintf(dom + n, sizeof dom - n, "%s%s", j ? " | " : "", a->values[j]);
    fprintf(out, "%-22s %-24s %-18s %-16s %s\n", a->name, a->setting ? a->setting : a->claim, scope, a->dflt, dom);
    fprintf(out, "%22s %s (%s)\n", "", a->why, a->sources);
  }
  int n = r->not_sampled.doc ? ls_yseq_len(&r->not_sampled) : 0;
  if (n) fprintf(out, "# assumed values not sampled, each with its range and why it cannot move a claim\n");
  for (int i = 0; i < n; i++) {
    ls_ynode m = ls_yseq_at(&r->not_sampled, i), f;
    const char *keys[] = {"name", "where", "default", "why"}, *v[4] = {"", "", "", ""};
    for (int k = 0; k < 4; k++)
      if (ls_ymap_find(&m, keys[k], &f) && ls_ynode_text(&f)) v[k] = ls_ynode_text(&f);
    char range[200] = "";
    size_t len = 0;
    if (ls_ymap_find(&m, "range", &f) && ls_ynode_kind(&f) == LS_Y_SEQ)
      for (int j = 0; j < ls_yseq_len(&f) && len < sizeof range; j++) {
        ls_ynode e = ls_yseq_at(&f, j);
        len += (size_t)snprintf(range + len, sizeof range - len, "%s%s", j ? " .. " : "", ls_ynode_text(&e) ? ls_ynode_text(&e) : "");
      }
    fprintf(out, "%-22s %-40s default %s, range %s\n%22s %s\n", v[0], v[1], v[2], range, "", v[3]);
  }
}

int ls_unc_design(int n, int k, double *a, double *b, ls_error *err)
{
  if (k < 1 || k > LS_UNC_MAX_ASSUMPTIONS || n < 2)
    return ls_error_set(err, LS_EINVALID, "uncertainty: %d assumptions and %d samples (need 1..%d and >= 2)", k,
                        n, LS_UNC_MAX_ASSUMPTIONS);
  gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)(2 * k));
  if (!q) return ls_error_set(err, LS_ENOMEM, "uncertainty: cannot allocate the Sobol sequence");
  double x[2 * LS_UNC_MAX_ASSUMPTIONS];
  gsl_qrng_get(q, x); /* the first point is all zeros: skipped */
  for (int j = 0; j < n; j++) {
    gsl_qrng_get(q, x);
    for (int i = 0; i < k; i++) a[j * k + i] = x[i], b[j * k + i] = x[k + i];
  }
  gsl_qrng_free(q);
  return LS_OK;
}

void ls_unc_indices(const double *fa, const double *fb, const double *fab, int n, int k, double *s1, double *st)
{
  double mean = 0, var = 0;
  for (int j = 0; j < n; j++) mean += fa[j] + fb[j];
  mean /= 2.0 * n;
  for (int j = 0; j < n; j++) var += (fa[j] - mean) * (fa[j] - mean) + (fb[j] - mean) * (fb[j] - mean);
  var /= 2.0 * n - 1;
  for (int i = 0; i < k; i++) {
    const double *f = fab + (size_t)i * n;
    double first = 0, total = 0;
    for (int j = 0; j < n; j++) {
      first += (fb[j] - mean) * (f[j] - fa[j]); /* centred: the same mean, far less noise */
      total += (fa[j] - f[j]) * (fa[j] - f[j]);
    }
    s1[i] = var > 0 ? first / n / var : 0;
    st[i] = var > 0 ? total / (2.0 * n) / var : 0;
  }
}
