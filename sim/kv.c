/* sim/kv: see kv.h. A sorted array; settings lists are short (tens of keys). */
#include "sim/kv.h"
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  char *key, *value, *origin;
  int used;
} kv_pair;

struct ls_kv {
  kv_pair *p;
  int n, cap;
  ls_kv_decl *d;       /* declarations, first-read order */
  int nd, capd;
  int decl_oom;        /* a declaration could not be stored: reported by ls_kv_check_used */
  const char *reader;  /* static text */
};

int ls_kv_create(ls_kv **out, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  return *out ? LS_OK : ls_error_set(err, LS_ENOMEM, "settings: out of memory");
}

void ls_kv_free(ls_kv *kv)
{
  if (!kv)
    return;
  for (int i = 0; i < kv->n; i++) {
    free(kv->p[i].key);
    free(kv->p[i].value);
    free(kv->p[i].origin);
  }
  free(kv->p);
  free(kv->d);
  free(kv);
}

static char *dup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

int ls_kv_set(ls_kv *kv, const char *key, const char *value, const char *origin, ls_error *err)
{
  if (!key[0])
    return ls_error_set(err, LS_EUSAGE, "%s: empty setting name", origin);
  int lo = 0, hi = kv->n;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (strcmp(kv->p[mid].key, key) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  char *v = dup(value), *o = dup(origin ? origin : "");
  if (!v || !o) {
    free(v);
    free(o);
    return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
  }
  if (lo < kv->n && strcmp(kv->p[lo].key, key) == 0) {
    free(kv->p[lo].value);
    free(kv->p[lo].origin);
    kv->p[lo].value = v;
    kv->p[lo].origin = o;
    return LS_OK;
  }
  char *k = dup(key);
  if (k && kv->n == kv->cap) { /* keep the old array and capacity when realloc fails */
    int cap = kv->cap ? 2 * kv->cap : 16;
    kv_pair *np = realloc(kv->p, (size_t)cap * sizeof *np);
    if (np) {
      kv->p = np;
      kv->cap = cap;
    }
  }
  if (!k || kv->n == kv->cap) {
    free(k);
    free(v);
    free(o);
    return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
  }
  memmove(&kv->p[lo + 1], &kv->p[lo], (size_t)(kv->n - lo) * sizeof *kv->p);
  kv->p[lo] = (kv_pair){k, v, o, 0};
  kv->n++;
  return LS_OK;
}

int ls_kv_assign(ls_kv *kv, const char *assignment, const char *origin, ls_error *err)
{
  const char *eq = strchr(assignment, '=');
  if (!eq || eq == assignment)
    return ls_error_set(err, LS_EUSAGE, "%s: expected key=value, got '%s'", origin, assignment);
  char key[256];
  size_t n = (size_t)(eq - assignment);
  if (n >= sizeof key)
    return ls_error_set(err, LS_EUSAGE, "%s: setting name too long", origin);
  memcpy(key, assignment, n);
  key[n] = '\0';
  return ls_kv_set(kv, key, eq + 1, origin, err);
}

int ls_kv_copy(ls_kv **out, const ls_kv *src, ls_error *err)
{
  int rc = ls_kv_create(out, err);
  for (int i = 0; rc == LS_OK && i < src->n; i++)
    rc = ls_kv_set(*out, src->p[i].key, src->p[i].value, src->p[i].origin, err);
  if (rc) {
    ls_kv_free(*out);
    *out = NULL;
  }
  return rc;
}

int ls_kv_count(const ls_kv *kv) { return kv->n; }
const char *ls_kv_key(const ls_kv *kv, int i) { return kv->p[i].key; }
const char *ls_kv_value(const ls_kv *kv, int i) { return kv->p[i].value; }
const char *ls_kv_origin(const ls_kv *kv, int i) { return kv->p[i].origin; }

const char *ls_kv_origin_of(const ls_kv *kv, const char *key)
{
  for (int i = 0; i < kv->n; i++)
    if (strcmp(kv->p[i].key, key) == 0)
      return kv->p[i].origin;
  return NULL;
}

int ls_kv_has(const ls_kv *kv, const char *key) { return ls_kv_origin_of(kv, key) != NULL; }

/* ---- declarations ---- */

void ls_kv_reader(ls_kv *kv, const char *s) { kv->reader = s; }
int ls_kv_decl_count(const ls_kv *kv) { return kv->nd; }
const ls_kv_decl *ls_kv_decl_at(const ls_kv *kv, int i) { return &kv->d[i]; }

int ls_kv_read_count(const ls_kv *kv) { return kv->nd; }
const char *ls_kv_read_key(const ls_kv *kv, int i) { return kv->d[i].key; }
const char *ls_kv_read_default(const ls_kv *kv, int i)
{
  return kv->d[i].type == LS_KV_QUANTITY ? kv->d[i].base_dflt : kv->d[i].dflt;
}
const char *ls_kv_read_accepts(const ls_kv *kv, int i) { return kv->d[i].accepts; }

/* Shortest of %.15g and %.17g that reads back as v (0.1 stays "0.1"). */
static void fmt_exact(char *out, size_t cap, double v)
{
  snprintf(out, cap, "%.15g", v);
  if (strtod(out, NULL) != v)
    snprintf(out, cap, "%.17g", v);
}

/* d's accepted range as plain numbers: "[lo, hi]", or "> 0, <= hi" when lo is DBL_MIN. */
static void plain_range(ls_kv_decl *d)
{
  char l[32], h[32];
  fmt_exact(l, sizeof l, d->lo);
  fmt_exact(h, sizeof h, d->hi);
  if (d->lo == DBL_MIN)
    snprintf(d->accepts, sizeof d->accepts, "> 0, <= %s", h);
  else
    snprintf(d->accepts, sizeof d->accepts, "[%s, %s]", l, h);
}

const char *ls_kv_type_name(ls_kv_type t)
{
  static const char *const NAMES[] = {"text", "integer", "number", "quantity", "choice", "numbers"};
  return t >= LS_KV_TEXT && t <= LS_KV_NUMBERS ? NAMES[t] : "?";
}

/* A new record for key, or NULL when the key is already declared (the first read is the one
 * the run used) or memory ran out (remembered, reported by ls_kv_check_used). */
static ls_kv_decl *declare(ls_kv *kv, const char *key, ls_kv_type t, double lo, double hi)
{
  for (int i = 0; i < kv->nd; i++)
    if (strcmp(kv->d[i].key, key) == 0)
      return NULL;
  if (kv->nd == kv->capd) {
    int cap = kv->capd ? 2 * kv->capd : 16;
    ls_kv_decl *nd = realloc(kv->d, (size_t)cap * sizeof *nd);
    if (!nd) {
      kv->decl_oom = 1;
      return NULL;
    }
    kv->d = nd;
    kv->capd = cap;
  }
  ls_kv_decl *d = &kv->d[kv->nd++];
  memset(d, 0, sizeof *d);
  snprintf(d->key, sizeof d->key, "%s", key);
  d->type = t;
  d->lo = lo;
  d->hi = hi;
  d->num = NAN;
  d->reader = kv->reader ? kv->reader : "";
  return d;
}

/* Fills the value fields of d (NULL allowed): p is the setting or NULL (default used). */
static void resolve(ls_kv_decl *d, const kv_pair *p, double num)
{
  if (!d)
    return;
  d->is_default = p == NULL;
  snprintf(d->value, sizeof d->value, "%s", p ? p->value : d->dflt);
  snprintf(d->origin, sizeof d->origin, "%s", p ? p->origin : "");
  d->num = num;
}

static void fmt_number(char *buf, size_t size, double v, const ls_kv_decl *d)
{
  if (d->type == LS_KV_QUANTITY)
    ls_units_format(v, d->unit, buf, (unsigned)size);
  else
    snprintf(buf, size, "%.10g", v);
}

const char *ls_kv_decl_range(const ls_kv_decl *d, char *buf, size_t size)
{
  char lo[48], hi[48];
  buf[0] = '\0';
  if (d->type != LS_KV_INT && d->type != LS_KV_NUMBER && d->type != LS_KV_QUANTITY &&
      d->type != LS_KV_NUMBERS)
    return buf;
  fmt_number(hi, sizeof hi, d->hi, d);
  if (d->lo == DBL_MIN) {
    snprintf(buf, size, "> 0, <= %s", hi);
    return buf;
  }
  fmt_number(lo, sizeof lo, d->lo, d);
  snprintf(buf, size, "[%s, %s]", lo, hi);
  return buf;
}

int ls_kv_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > 127 || lb > 127)
    return (int)(la > lb ? la : lb);
  int row[128];
  for (size_t j = 0; j <= lb; j++)
    row[j] = (int)j;
  for (size_t i = 1; i <= la; i++) {
    int diag = row[0];
    row[0] = (int)i;
    for (size_t j = 1; j <= lb; j++) {
      int up = row[j], best = diag + (a[i - 1] != b[j - 1]);
      if (up + 1 < best)
        best = up + 1;
      if (row[j - 1] + 1 < best)
        best = row[j - 1] + 1;
      diag = up;
      row[j] = best;
    }
  }
  return row[lb];
}

static kv_pair *lookup(ls_kv *kv, const char *key)
{
  for (int i = 0; i < kv->n; i++)
    if (strcmp(kv->p[i].key, key) == 0) {
      kv->p[i].used = 1;
      return &kv->p[i];
    }
  return NULL;
}

const char *ls_kv_find(ls_kv *kv, const char *key)
{
  kv_pair *p = lookup(kv, key);
  resolve(declare(kv, key, LS_KV_TEXT, 0, 0), p, NAN);
  return p ? p->value : NULL;
}

static int report(const kv_pair *p, ls_error *err, int code, const char *why)
{
  return ls_error_set(err, code, "%s%s%s=%s: %s", p->origin, p->origin[0] ? ": " : "", p->key,
                      p->value, why);
}

/* A bad value, by the exit-code rule (README, "Exit codes"): typed on the command line (origin
 * "--set", "--prompts", "argument N (--set)") it is a usage error, 64, whatever is wrong with
 * it; read from a file (origin file:line:col, "part settings", "sweep") it is bad input data,
 * 65. (An unknown key is a wrong name, 64 wherever it is written: ls_kv_check_used.) */
static int bad(const kv_pair *p, ls_error *err, int code, const char *why)
{
  int typed = strncmp(p->origin, "--", 2) == 0 || strncmp(p->origin, "argument ", 9) == 0;
  return report(p, err, typed ? LS_EUSAGE : code == LS_EUSAGE ? LS_ESCHEMA : code, why);
}

/* Decimal only (ls_units_decimal): strtod would also take "0x1p3", "inf" and "nan". */
static int parse_number(const char *s, double *out)
{
  const char *end, *why;
  double v;
  if (ls_units_decimal(s, &v, &end, &why) != LS_OK)
    return -1;
  while (*end == ' ')
    end++;
  if (*end)
    return -1;
  *out = v;
  return 0;
}

/* d (may be NULL) gives the unit the range is printed in. */
static int check_range(const kv_pair *p, double v, double lo, double hi, const ls_kv_decl *d,
                       ls_error *err)
{
  char why[200], range[120];
  if (v < lo || v > hi) {
    ls_kv_decl tmp = {.type = LS_KV_NUMBER, .lo = lo, .hi = hi};
    if (d) {
      tmp.type = d->type;
      tmp.unit = d->unit;
    }
    if (lo == DBL_MIN && !d)
      snprintf(why, sizeof why, "out of range (must be > 0)");
    else
      snprintf(why, sizeof why, "out of range (must be %s%s)", lo == DBL_MIN ? "" : "in ",
               ls_kv_decl_range(&tmp, range, sizeof range));
    return bad(p, err, LS_ERANGE, why);
  }
  return LS_OK;
}

int ls_kv_double(ls_kv *kv, const char *key, double lo, double hi, double dflt, double *out, ls_error *err)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_NUMBER, lo, hi);
  if (d) {
    fmt_exact(d->dflt, sizeof d->dflt, dflt);
    plain_range(d);
  }
  if (!p) {
    *out = dflt;
    resolve(d, NULL, dflt);
    return LS_OK;
  }
  double v;
  if (parse_number(p->value, &v))
    return bad(p, err, LS_EUSAGE, "expected a number");
  int rc = check_range(p, v, lo, hi, d, err);
  if (rc == LS_OK)
    *out = v;
  resolve(d, p, v);
  return rc;
}

int ls_kv_int(ls_kv *kv, const char *key, long lo, long hi, long dflt, long *out, ls_error *err)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_INT, (double)lo, (double)hi);
  if (d) {
    snprintf(d->dflt, sizeof d->dflt, "%ld", dflt);
    snprintf(d->accepts, sizeof d->accepts, "[%ld, %ld]", lo, hi);
  }
  if (!p) {
    *out = dflt;
    resolve(d, NULL, (double)dflt);
    return LS_OK;
  }
  char *end;
  errno = 0;
  long v = strtol(p->value, &end, 10);
  if (end == p->value || *end || errno == ERANGE)
    return bad(p, err, LS_EUSAGE, "expected an integer");
  if (v < lo || v > hi) {
    char why[128];
    snprintf(why, sizeof why, "out of range (must be in [%ld, %ld])", lo, hi);
    return bad(p, err, LS_ERANGE, why);
  }
  *out = v;
  resolve(d, p, (double)v);
  return LS_OK;
}

int ls_kv_unit(ls_kv *kv, const char *key, ls_unit_kind k, double lo, double hi, double dflt,
               double *out, ls_error *err)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_QUANTITY, lo, hi);
  if (d) {
    d->unit = k;
    ls_units_format(dflt, k, d->dflt, sizeof d->dflt);
    fmt_exact(d->base_dflt, sizeof d->base_dflt, dflt);
    plain_range(d);
  }
  if (!p) {
    *out = dflt;
    resolve(d, NULL, dflt);
    return LS_OK;
  }
  const char *why;
  double v;
  if (ls_units_parse(p->value, k, &v, &why) != LS_OK) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s (a %s, e.g. %s)", why, ls_units_kind_name(k), ls_units_examples(k));
    return bad(p, err, LS_EUNIT, msg);
  }
  ls_kv_decl unit_of = {.type = LS_KV_QUANTITY, .unit = k};
  int rc = check_range(p, v, lo, hi, &unit_of, err);
  if (rc == LS_OK)
    *out = v;
  resolve(d, p, v);
  return rc;
}

int ls_kv_enum(ls_kv *kv, const char *key, const char *const *choices, int dflt, int *out, ls_error *err)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_CHOICE, 0, 0);
  for (int i = 0; d && choices[i]; i++) {
    size_t len = strlen(d->choices), la = strlen(d->accepts);
    snprintf(d->choices + len, sizeof d->choices - len, "%s%s", i ? "|" : "", choices[i]);
    snprintf(d->accepts + la, sizeof d->accepts - la, "%s%s", i ? ", " : "", choices[i]);
    if (i == dflt)
      snprintf(d->dflt, sizeof d->dflt, "%s", choices[i]);
  }
  resolve(d, p, NAN);
  if (!p) {
    *out = dflt;
    return LS_OK;
  }
  char list[512] = "";
  size_t len = 0;
  for (int i = 0; choices[i]; i++) {
    if (strcmp(p->value, choices[i]) == 0) {
      *out = i;
      return LS_OK;
    }
    if (len + 2 < sizeof list)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
  }
  char why[600];
  snprintf(why, sizeof why, "unknown choice (expected one of: %s)", list);
  return bad(p, err, LS_EUSAGE, why);
}

int ls_kv_string(ls_kv *kv, const char *key, const char *dflt, const char **out)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_TEXT, 0, 0);
  if (d)
    snprintf(d->dflt, sizeof d->dflt, "%s", dflt ? dflt : "");
  resolve(d, p, NAN);
  *out = p ? p->value : dflt;
  return LS_OK;
}

int ls_kv_doubles(ls_kv *kv, const char *key, double lo, double hi, double *out, int max, int *count,
                  ls_error *err)
{
  kv_pair *p = lookup(kv, key);
  ls_kv_decl *d = declare(kv, key, LS_KV_NUMBERS, lo, hi);
  for (int i = 0; d && i < *count && i < max; i++) { /* *count may be a sentinel */
    char x[32];
    size_t len = strlen(d->dflt);
    fmt_exact(x, sizeof x, out[i]);
    snprintf(d->dflt + len, sizeof d->dflt - len, "%s%s", i ? "," : "", x);
  }
  if (d) {
    char l[32], h[32];
    fmt_exact(l, sizeof l, lo);
    fmt_exact(h, sizeof h, hi);
    snprintf(d->accepts, sizeof d->accepts, "up to %d of [%s, %s]", max, l, h);
  }
  resolve(d, p, NAN);
  if (!p)
    return LS_OK;
  int n = 0;
  const char *s = p->value;
  while (*s) {
    if (n == max)
      return bad(p, err, LS_ERANGE, "too many values");
    char item[64];
    size_t len = strcspn(s, ",");
    if (len == 0 || len >= sizeof item)
      return bad(p, err, LS_EUSAGE, "expected comma-separated numbers");
    memcpy(item, s, len);
    item[len] = '\0';
    double v;
    if (parse_number(item, &v))
      return bad(p, err, LS_EUSAGE, "expected comma-separated numbers");
    int rc = check_range(p, v, lo, hi, NULL, err);
    if (rc)
      return rc;
    out[n++] = v;
    s += len;
    if (*s == ',')
      s++;
  }
  *count = n;
  return LS_OK;
}

/* The declared key nearest to key (within a third of its length), or NULL. */
static const char *nearest(const ls_kv *kv, const char *key)
{
  const char *best = NULL;
  int bd = (int)strlen(key) / 3 + 1;
  for (int i = 0; i < kv->nd; i++) {
    int dist = ls_kv_distance(key, kv->d[i].key);
    if (dist < bd) {
      bd = dist;
      best = kv->d[i].key;
    }
  }
  return best;
}

const char *ls_kv_unused(const ls_kv *kv, const char *prefix)
{
  size_t plen = strlen(prefix);
  for (int i = 0; i < kv->n; i++)
    if (!kv->p[i].used && strncmp(kv->p[i].key, prefix, plen) == 0)
      return kv->p[i].key;
  return NULL;
}

int ls_kv_check_used(const ls_kv *kv, const char *prefix, ls_error *err)
{
  if (kv->decl_oom)
    return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
  size_t plen = strlen(prefix);
  for (int i = 0; i < kv->n; i++) {
    const kv_pair *p = &kv->p[i];
    if (p->used || strncmp(p->key, prefix, plen) != 0)
      continue;
    const char *near = nearest(kv, p->key);
    char why[300];
    if (near)
      snprintf(why, sizeof why, "unknown setting (did you mean %s?)", near);
    else
      snprintf(why, sizeof why, "unknown setting (see 'leversim settings' for the valid keys)");
    return report(p, err, LS_EUSAGE, why);
  }
  return LS_OK;
}
