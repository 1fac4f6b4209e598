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

typedef struct {
  char *key, *dflt, *accepts;
} kv_read;

struct ls_kv {
  kv_pair *p;
  int n, cap;
  kv_read *r; /* the read log (see kv.h) */
  int nr, rcap;
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
  for (int i = 0; i < kv->nr; i++) {
    free(kv->r[i].key);
    free(kv->r[i].dflt);
    free(kv->r[i].accepts);
  }
  free(kv->r);
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

int ls_kv_read_count(const ls_kv *kv) { return kv->nr; }
const char *ls_kv_read_key(const ls_kv *kv, int i) { return kv->r[i].key; }
const char *ls_kv_read_default(const ls_kv *kv, int i) { return kv->r[i].dflt; }
const char *ls_kv_read_accepts(const ls_kv *kv, int i) { return kv->r[i].accepts; }

/* Adds key to the read log unless it is there already (the first reader's default stays). */
static int note(ls_kv *kv, const char *key, const char *dflt, const char *accepts, ls_error *err)
{
  for (int i = 0; i < kv->nr; i++)
    if (strcmp(kv->r[i].key, key) == 0)
      return LS_OK;
  if (kv->nr == kv->rcap) {
    int cap = kv->rcap ? 2 * kv->rcap : 16;
    kv_read *nr = realloc(kv->r, (size_t)cap * sizeof *nr);
    if (!nr)
      return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
    kv->r = nr;
    kv->rcap = cap;
  }
  kv_read e = {dup(key), dup(dflt), dup(accepts)};
  if (!e.key || !e.dflt || !e.accepts) {
    free(e.key);
    free(e.dflt);
    free(e.accepts);
    return ls_error_set(err, LS_ENOMEM, "settings: out of memory");
  }
  kv->r[kv->nr++] = e;
  return LS_OK;
}

/* Shortest of %.15g and %.17g that reads back as v (0.1 stays "0.1"). */
static int fmt_double(char *out, size_t cap, double v)
{
  int n = snprintf(out, cap, "%.15g", v);
  if (strtod(out, NULL) != v)
    n = snprintf(out, cap, "%.17g", v);
  return n;
}

static int note_range(ls_kv *kv, const char *key, double dflt, double lo, double hi, ls_error *err)
{
  char d[32], l[32], h[32], a[80];
  fmt_double(d, sizeof d, dflt);
  fmt_double(l, sizeof l, lo);
  fmt_double(h, sizeof h, hi);
  if (lo == DBL_MIN)
    snprintf(a, sizeof a, "> 0, <= %s", h);
  else
    snprintf(a, sizeof a, "[%s, %s]", l, h);
  return note(kv, key, d, a, err);
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
  (void)note(kv, key, "", "", NULL); /* out of memory only costs the log its entry */
  kv_pair *p = lookup(kv, key);
  return p ? p->value : NULL;
}

/* The exit-code rule (README, "Exit codes"): a bad setting typed on the command line (origin
 * "--set", "--prompts", ...) is a usage error, 64, whatever is wrong with it; the same setting
 * read from a file (origin file:line:col, "part settings", "sweep") is bad input data, 65. */
static int bad(const kv_pair *p, ls_error *err, int code, const char *why)
{
  int typed = strncmp(p->origin, "--", 2) == 0 || strncmp(p->origin, "argument ", 9) == 0;
  code = typed ? LS_EUSAGE : code == LS_EUSAGE ? LS_ESCHEMA : code;
  return ls_error_set(err, code, "%s%s%s=%s: %s", p->origin, p->origin[0] ? ": " : "", p->key,
                      p->value, why);
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

static int check_range(const kv_pair *p, double v, double lo, double hi, ls_error *err)
{
  char why[160];
  if (v < lo || v > hi) {
    if (lo == DBL_MIN)
      snprintf(why, sizeof why, "out of range (must be > 0)");
    else
      snprintf(why, sizeof why, "out of range (must be in [%g, %g])", lo, hi);
    return bad(p, err, LS_ERANGE, why);
  }
  return LS_OK;
}

int ls_kv_double(ls_kv *kv, const char *key, double lo, double hi, double dflt, double *out, ls_error *err)
{
  if (note_range(kv, key, dflt, lo, hi, err) != LS_OK)
    return LS_ENOMEM;
  kv_pair *p = lookup(kv, key);
  if (!p) {
    *out = dflt;
    return LS_OK;
  }
  double v;
  if (parse_number(p->value, &v))
    return bad(p, err, LS_EUSAGE, "expected a number");
  int rc = check_range(p, v, lo, hi, err);
  if (rc == LS_OK)
    *out = v;
  return rc;
}

int ls_kv_int(ls_kv *kv, const char *key, long lo, long hi, long dflt, long *out, ls_error *err)
{
  char d[32], a[64];
  snprintf(d, sizeof d, "%ld", dflt);
  snprintf(a, sizeof a, "[%ld, %ld]", lo, hi);
  if (note(kv, key, d, a, err) != LS_OK)
    return LS_ENOMEM;
  kv_pair *p = lookup(kv, key);
  if (!p) {
    *out = dflt;
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
  return LS_OK;
}

int ls_kv_unit(ls_kv *kv, const char *key, ls_unit_kind k, double lo, double hi, double dflt,
               double *out, ls_error *err)
{
  if (note_range(kv, key, dflt, lo, hi, err) != LS_OK)
    return LS_ENOMEM;
  kv_pair *p = lookup(kv, key);
  if (!p) {
    *out = dflt;
    return LS_OK;
  }
  const char *why;
  double v;
  if (ls_units_parse(p->value, k, &v, &why) != LS_OK) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s (a %s, e.g. %s)", why, ls_units_kind_name(k), ls_units_examples(k));
    return bad(p, err, LS_EUNIT, msg);
  }
  int rc = check_range(p, v, lo, hi, err);
  if (rc == LS_OK)
    *out = v;
  return rc;
}

int ls_kv_enum(ls_kv *kv, const char *key, const char *const *choices, int dflt, int *out, ls_error *err)
{
  char list[512] = "";
  size_t len = 0;
  for (int i = 0; choices[i]; i++)
    if (len + 2 < sizeof list)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
  if (note(kv, key, choices[dflt], list, err) != LS_OK)
    return LS_ENOMEM;
  kv_pair *p = lookup(kv, key);
  if (!p) {
    *out = dflt;
    return LS_OK;
  }
  for (int i = 0; choices[i]; i++)
    if (strcmp(p->value, choices[i]) == 0) {
      *out = i;
      return LS_OK;
    }
  char why[600];
  snprintf(why, sizeof why, "unknown choice (expected one of: %s)", list);
  return bad(p, err, LS_EUSAGE, why);
}

int ls_kv_string(ls_kv *kv, const char *key, const char *dflt, const char **out)
{
  (void)note(kv, key, dflt ? dflt : "", "", NULL); /* as in ls_kv_find: the lookup must answer */
  kv_pair *p = lookup(kv, key);
  *out = p ? p->value : dflt;
  return LS_OK;
}

int ls_kv_doubles(ls_kv *kv, const char *key, double lo, double hi, double *out, int max, int *count,
                  ls_error *err)
{
  char d[512] = "", a[80];
  size_t len = 0;
  char l[32], h[32], x[32];
  for (int i = 0; i < *count && i < max && len + 34 < sizeof d; i++) { /* *count may be a sentinel */
    fmt_double(x, sizeof x, out[i]);
    len += (size_t)snprintf(d + len, sizeof d - len, "%s%s", i ? "," : "", x);
  }
  fmt_double(l, sizeof l, lo);
  fmt_double(h, sizeof h, hi);
  snprintf(a, sizeof a, "up to %d of [%s, %s]", max, l, h);
  if (note(kv, key, d, a, err) != LS_OK)
    return LS_ENOMEM;
  kv_pair *p = lookup(kv, key);
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
    int rc = check_range(p, v, lo, hi, err);
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

int ls_kv_check_used(const ls_kv *kv, const char *prefix, ls_error *err)
{
  size_t plen = strlen(prefix);
  for (int i = 0; i < kv->n; i++) {
    const kv_pair *p = &kv->p[i];
    if (p->used || strncmp(p->key, prefix, plen) != 0)
      continue;
    char known[600] = "";
    size_t len = 0;
    for (int j = 0; j < kv->n; j++)
      if (kv->p[j].used && strncmp(kv->p[j].key, prefix, plen) == 0 && len + 2 < sizeof known)
        len += (size_t)snprintf(known + len, sizeof known - len, "%s%s", len ? ", " : "", kv->p[j].key);
    char why[700];
    snprintf(why, sizeof why, "unknown setting%s%s%s", known[0] ? " (known here: " : "", known,
             known[0] ? ")" : "");
    return bad(p, err, LS_EUSAGE, why);
  }
  return LS_OK;
}
