/* runner/report/plot: see plot.h.
 * The query is built from fixed SQL fragments; every user-given name or value is a bound
 * parameter (never spliced into the SQL), except a where filter's number, which is printed
 * by %.17g from the double it parsed to. */
#include "runner/report/plot.h"
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "runner/report/draw.h"
#include "sim/fileio.h"
#include "sim/gnuplot.h"

#define SQL_MAX 8192
#define PARAMS_MAX 40

static const char *const name_columns[] = {"part", "device", "model", "dataset", "system", "seed", NULL};

static int is_column(const char *key)
{
  for (int i = 0; name_columns[i]; i++)
    if (strcmp(key, name_columns[i]) == 0) return 1;
  return 0;
}

/* Short names people type for the metrics they plot most. */
static const char *metric_alias(const char *y)
{
  static const char *const alias[][2] = {{"tps", "throughput_tps"}, {"throughput", "throughput_tps"},
                                         {"energy", "energy_per_token_j"}, {NULL, NULL}};
  for (int i = 0; alias[i][0]; i++)
    if (strcmp(y, alias[i][0]) == 0) return alias[i][1];
  return y;
}

/* A number written in full ("16", "0.5", "1e9"); 0 when text is not one. */
static int full_number(const char *text, double *v)
{
  char *end;
  errno = 0;
  *v = strtod(text, &end);
  return text[0] && *end == '\0' && errno == 0 && isfinite(*v);
}

typedef struct sql_buf {
  char s[SQL_MAX];
  size_t len;
  const char *params[PARAMS_MAX];
  int n;
} sql_buf;

static void put(sql_buf *b, const char *text)
{
  if (b->len < sizeof b->s) b->len += (size_t)snprintf(b->s + b->len, sizeof b->s - b->len, "%s", text);
}

/* Binds text as the next parameter and returns its number. */
static int bind(sql_buf *b, const char *text)
{
  if (b->n == PARAMS_MAX) return PARAMS_MAX; /* caught by the caller's count check */
  b->params[b->n++] = text;
  return b->n;
}

int ls_plot_key_sql(const char *key, int k, int want_num, char *t, size_t size)
{
  if (is_column(key)) {
    snprintf(t, size, want_num ? "CASE WHEN typeof(r.%s) = 'integer' THEN r.%s END" : "CAST(r.%s AS TEXT)",
             key, key);
    return 1;
  }
  if (want_num)
    snprintf(t, size, "(SELECT value_num FROM run_settings s WHERE s.run_id = r.run_id AND s.key = ?%d)", k);
  else
    snprintf(t, size, "coalesce((SELECT value_text FROM run_settings s WHERE s.run_id = r.run_id"
             " AND s.key = ?%d), json_extract(r.axes_json, '$.\"' || ?%d || '\"'))", k, k);
  return 0;
}

/* The SQL of key's value as text (want_num 0) or number (1) for run r. */
static void key_expr(sql_buf *b, const char *key, int want_num)
{
  char t[512];
  if (ls_plot_key_sql(key, b->n + 1, want_num, t, sizeof t) == 0)
    bind(b, key);
  put(b, t);
}

/* Several keys' values joined by " / " ('' for none): a line or a panel per combination. */
static void keys_expr(sql_buf *b, const char *const *keys, int n)
{
  if (n == 0) put(b, "''");
  for (int i = 0; i < n; i++) {
    put(b, i ? " || ' / ' || coalesce(" : "coalesce(");
    key_expr(b, keys[i], 0);
    put(b, ", '(none)')");
  }
}

static int found_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)text, (void)num, (void)err;
  *(int *)ctx = 1;
  return LS_OK;
}

static int exists(ls_db *db, const char *sql, const char *param, ls_error *err, int *found)
{
  *found = 0;
  return ls_db_select(db, sql, &param, 1, found_row, found, err);
}

int ls_plot_check_key(ls_db *db, const char *key, const char *what, ls_error *err)
{
  int found = 1, rc = LS_OK;
  if (!is_column(key))
    rc = exists(db, "SELECT 1 FROM run_settings WHERE key = ?1 UNION ALL SELECT 1 FROM runs"
                " WHERE json_extract(axes_json, '$.\"' || ?1 || '\"') IS NOT NULL LIMIT 1", key, err, &found);
  if (rc || found) return rc;
  return ls_error_set(err, LS_EUSAGE, "%s '%s': no run in the database has this setting (keys: part, "
                      "device, model, dataset, system, seed, or a setting key: `leversim export "
                      "--view v_settings` lists them)", what, key);
}

static int unit_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)num, (void)err;
  if (n > 0 && text[0])
    snprintf(ctx, 32, "%s", text[0]);
  return LS_OK;
}

static int check_metric(ls_db *db, const char *y, ls_error *err)
{
  int found = 0;
  int rc = exists(db, "SELECT 1 FROM metrics WHERE name = ?1 LIMIT 1", y, err, &found);
  if (rc || found) return rc;
  char list[1024];
  size_t len = 0;
  for (int i = 0; ls_db_metric_name(i) && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", ls_db_metric_name(i));
  return ls_error_set(err, LS_EUSAGE, "--y '%s': no run in the database has this metric (metrics: tps, %s)",
                      y, list);
}

/* The filter "KEY=VALUE": the key's text equals VALUE, or its number equals VALUE's. */
static int where_sql(sql_buf *b, ls_db *db, const char *filter, char (*keys)[128], int i, ls_error *err)
{
  const char *eq = strchr(filter, '=');
  if (!eq || eq == filter || (size_t)(eq - filter) >= sizeof keys[i])
    return ls_error_set(err, LS_EUSAGE, "--where '%s': expected KEY=VALUE", filter);
  snprintf(keys[i], sizeof keys[i], "%.*s", (int)(eq - filter), filter);
  int rc = ls_plot_check_key(db, keys[i], "--where", err);
  if (rc) return rc;
  put(b, " AND (");
  key_expr(b, keys[i], 0);
  char t[96];
  snprintf(t, sizeof t, " = ?%d", bind(b, eq + 1));
  put(b, t);
  double v;
  if (full_number(eq + 1, &v)) {
    put(b, " OR ");
    key_expr(b, keys[i], 1);
    snprintf(t, sizeof t, " = %.17g", v);
    put(b, t);
  }
  put(b, ")");
  return LS_OK;
}

typedef struct read_ctx {
  ls_plot_table *t;
  int cap;
  char (*what)[256]; /* per point: which run, for the duplicate message */
} read_ctx;

static int add_row(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n;
  read_ctx *c = ctx;
  if (c->t->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 64;
    ls_plot_point *p = realloc(c->t->p, (size_t)cap * sizeof *p);
    if (p) c->t->p = p;
    char(*w)[256] = p ? realloc(c->what, (size_t)cap * sizeof *w) : NULL;
    if (!w) return ls_error_set(err, LS_ENOMEM, "plot: out of memory");
    c->what = w;
    c->cap = cap;
  }
  ls_plot_point *p = &c->t->p[c->t->n];
  snprintf(p->group, sizeof p->group, "%s", text[0] ? text[0] : "");
  snprintf(p->x, sizeof p->x, "%s", text[1] ? text[1] : "(none)");
  p->x_num = num[2];
  if (isnan(p->x_num) && text[1] && !full_number(text[1], &p->x_num)) p->x_num = NAN;
  p->y = num[3];
  p->lo = num[4];
  p->hi = num[5];
  snprintf(p->run_id, sizeof p->run_id, "%s", text[6] ? text[6] : "");
  snprintf(c->what[c->t->n], sizeof c->what[0], "%s", text[7] ? text[7] : "");
  p->x_effective = num[8];
  snprintf(p->panel, sizeof p->panel, "%s", text[9] ? text[9] : "");
  c->t->n_effective += !isnan(p->x_effective);
  c->t->n++;
  return LS_OK;
}

static int cmp_text_num(const char *a, const char *b, int numeric)
{
  double x, y;
  if (numeric && full_number(a, &x) && full_number(b, &y)) return (x > y) - (x < y);
  return strcmp(a, b);
}

static int cmp_point(const ls_plot_point *a, const ls_plot_point *b, int numeric)
{
  int c = cmp_text_num(a->panel, b->panel, 1);
  if (!c) c = cmp_text_num(a->group, b->group, 1);
  if (c) return c;
  if (numeric) return (a->x_num > b->x_num) - (a->x_num < b->x_num);
  return strcmp(a->x, b->x);
}

/* Sorts by group and x; two runs at one point are refused, naming both. */
static int sort_points(ls_plot_table *t, const read_ctx *c, const ls_plot_query *q, ls_error *err)
{
  t->x_numeric = 1;
  for (int i = 0; i < t->n; i++)
    if (isnan(t->p[i].x_num)) t->x_numeric = 0;
  /* duplicates are found on the unsorted rows (the "what" texts stay aligned) */
  for (int i = 0; i < t->n; i++)
    for (int j = i + 1; j < t->n; j++)
      if (!strcmp(t->p[i].group, t->p[j].group) && !strcmp(t->p[i].x, t->p[j].x) &&
          !strcmp(t->p[i].panel, t->p[j].panel))
        return ls_error_set(err, LS_EUSAGE, "two runs at %s=%s%s%s%s%s: %s and %s; they differ in another "
                            "name or setting: keep one with --where KEY=VALUE, or split them with --by KEY "
                            "(lines) or --panel KEY (panels)", q->x, t->p[i].x, t->p[i].group[0] ? " in line " : "",
                            t->p[i].group, t->p[i].panel[0] ? " in panel " : "", t->p[i].panel, c->what[i], c->what[j]);
  for (int i = 1; i < t->n; i++) { /* insertion sort: a plot has few points, qsort no context */
    ls_plot_point v = t->p[i];
    int j = i;
    for (; j > 0 && cmp_point(&t->p[j - 1], &v, t->x_numeric) > 0; j--) t->p[j] = t->p[j - 1];
    t->p[j] = v;
  }
  return LS_OK;
}

/* A study may declare the intervals it writes (role intervals.metrics, docs/EXPERIMENTS.md):
 * a metric it leaves out has no error bars for a reason other than too few prompts, so the
 * note says which. */
static int note_undeclared(ls_db *db, const char *y, ls_error *err)
{
  int written = 1, known = 0;
  for (int i = 0; ls_db_ci_metric_name(i); i++) known |= !strcmp(ls_db_ci_metric_name(i), y);
  int rc = known ? ls_db_intervals_written(db, y, &written, NULL, err) : LS_OK;
  if (!rc && !written)
    fprintf(stderr, "leversim plot: note: the study of this database writes no interval of %s "
                    "(its role intervals.metrics leaves it out): the points have no error bars\n", y);
  return rc;
}

int ls_plot_read(ls_db *db, const ls_plot_query *q, ls_plot_table *t, ls_error *err)
{
  memset(t, 0, sizeof *t);
  if (q->n_where > 8) return ls_error_set(err, LS_EUSAGE, "at most 8 --where filters");
  const char *y = metric_alias(q->y);
  int rc = check_metric(db, y, err);
  t->unit[0] = '\0';
  if (!rc) rc = ls_db_select(db, "SELECT unit FROM metrics WHERE name = ?1 LIMIT 1", &y, 1, unit_row, t->unit, err);
  if (!rc) rc = ls_plot_check_key(db, q->x, "--x", err);
  const char *const *bys = q->n_by ? q->bys : &q->by;
  int n_by = q->n_by ? q->n_by : q->by != NULL;
  if (n_by > LS_PLOT_KEYS_MAX || q->n_panel > LS_PLOT_KEYS_MAX)
    rc = ls_error_set(err, LS_EUSAGE, "at most %d --by and %d --panel keys", LS_PLOT_KEYS_MAX, LS_PLOT_KEYS_MAX);
  for (int i = 0; !rc && i < n_by; i++) rc = ls_plot_check_key(db, bys[i], "--by", err);
  for (int i = 0; !rc && i < q->n_panel; i++) rc = ls_plot_check_key(db, q->panels[i], "--panel", err);
  if (rc) return rc;
  sql_buf *b = calloc(1, sizeof *b);
  if (!b) return ls_error_set(err, LS_ENOMEM, "plot: out of memory");
  bind(b, y);
  put(b, "SELECT ");
  keys_expr(b, bys, n_by);
  put(b, ", ");
  key_expr(b, q->x, 0);
  put(b, ", ");
  key_expr(b, q->x, 1);
  char eff_key[160], t8[128];
  snprintf(eff_key, sizeof eff_key, "effective.%s", q->x);
  snprintf(t8, sizeof t8, ", (SELECT value_num FROM run_settings s WHERE s.run_id = r.run_id AND s.key = ?%d)",
           bind(b, eff_key));
  put(b, ", m.value, c.lo, c.hi, r.run_id, r.part || '/' || r.device || '/' || r.model || '/' ||"
         " r.dataset || '/' || r.system || ' ' || r.axes_json");
  put(b, t8);
  put(b, ", ");
  keys_expr(b, q->panels, q->n_panel);
  put(b, " FROM runs r JOIN metrics m ON"
         " m.run_id = r.run_id AND m.name = ?1 LEFT JOIN metric_ci c ON c.run_id = r.run_id AND"
         " c.name = ?1 WHERE r.status = 'ok'");
  char keys[8][128];
  for (int i = 0; !rc && i < q->n_where; i++) rc = where_sql(b, db, q->where[i], keys, i, err);
  if (!rc && (b->len >= sizeof b->s || b->n >= PARAMS_MAX))
    rc = ls_error_set(err, LS_EUSAGE, "plot: query too long");
  read_ctx c = {t, 0, NULL};
  if (!rc) rc = ls_db_select(db, b->s, b->params, b->n, add_row, &c, err);
  if (!rc && t->n == 0)
    rc = ls_error_set(err, LS_ENOTFOUND, "no ok run with metric %s%s", y,
                      q->n_where ? " passes the --where filters" : "");
  if (!rc) rc = sort_points(t, &c, q, err);
  if (!rc) rc = note_undeclared(db, y, err);
  free(c.what);
  free(b);
  return rc;
}

void ls_plot_table_free(ls_plot_table *t)
{
  free(t->p);
  memset(t, 0, sizeof *t);
}

static void csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
  if (isfinite(v)) fprintf(f, ",%.17g", v);
  else fputs(",", f);
}

/* The keys of --by (which = 0) or --panel (1) joined by " / "; "" when none. */
static const char *keys_name(const ls_plot_query *q, int which, char *buf, size_t size)
{
  const char *const *k = which ? q->panels : q->n_by ? q->bys : &q->by;
  int n = which ? q->n_panel : q->n_by ? q->n_by : q->by != NULL;
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n; i++) len += (size_t)snprintf(buf + len, size > len ? size - len : 0, "%s%s", i ? " / " : "", k[i]);
  return buf;
}

int ls_plot_write_csv(const ls_plot_table *t, const ls_plot_query *q, FILE *out, ls_error *err)
{
  char by[400], panel[400];
  keys_name(q, 0, by, sizeof by);
  keys_name(q, 1, panel, sizeof panel);
  if (q->n_panel) fprintf(out, "%s,", panel);
  fprintf(out, "%s,%s,%s_num,%s,lo,hi,run_id", by[0] ? by : "group", q->x, q->x, metric_alias(q->y));
  if (t->n_effective) fprintf(out, ",%s_effective", q->x);
  fputc('\n', out);
  for (int i = 0; i < t->n; i++) {
    const ls_plot_point *p = &t->p[i];
    if (q->n_panel) {
      csv_field(out, p->panel);
      fputc(',', out);
    }
    csv_field(out, p->group);
    fputc(',', out);
    csv_field(out, p->x);
    csv_num(out, p->x_num);
    csv_num(out, p->y);
    csv_num(out, p->lo);
    csv_num(out, p->hi);
    fprintf(out, ",%s", p->run_id);
    if (t->n_effective) csv_num(out, p->x_effective);
    fputc('\n', out);
  }
  if (fflush(out) != 0 || ferror(out))
    return ls_error_set(err, LS_EIO, "writing the table: %s", strerror(errno));
  return LS_OK;
}

/* The data file for a panel is a leversim output like any other (sim/fileio.h: never through a
 * link, never over a foreign file), marked by its first line. */
#define PLOT_DAT_MARK "# leversim plot data"
/* The distinct values of field off (group or panel) of t's points, in plot order. */
static int distinct(const ls_plot_table *t, size_t off, const char **out)
{
  int n = 0;
  for (int i = 0; i < t->n; i++) {
    const char *v = (const char *)&t->p[i] + off;
    int seen = 0;
    for (int k = 0; k < n && !seen; k++) seen = !strcmp(out[k], v);
    if (seen) continue;
    int at = n++;
    for (; at > 0 && cmp_text_num(out[at - 1], v, 1) > 0; at--) out[at] = out[at - 1];
    out[at] = v;
  }
  return n;
}

/* gnuplot's data for one panel (NULL: every point): one block per group of the whole table,
 * in order, two blank lines between, so group i is block i in every panel (a group with no
 * point here is one row of NaN); columns x position, x text (quoted), y, lo, hi, 1 when x
 * took effect as another value (else 0). Categorical x: the position is the x's rank among all
 * x values, the same in every panel. */
static int write_dat(const ls_plot_table *t, const char *path, const char *panel, const char **groups, int ng,
                     ls_error *err)
{
  ls_file_out o;
  int rc = ls_file_out_open(&o, path, "plot --out", PLOT_DAT_MARK, err);
  if (rc) return rc;
  FILE *f = o.f;
  fprintf(f, "%s (leversim plot; gnuplot reads it)\n", PLOT_DAT_MARK);
  for (int g = 0; g < ng; g++) {
    fprintf(f, "%s# %s\n", g ? "\n\n" : "", groups[g]);
    int rows = 0;
    for (int i = 0; i < t->n; i++) {
      const ls_plot_point *p = &t->p[i];
      if (strcmp(p->group, groups[g]) || (panel && strcmp(p->panel, panel))) continue;
      double pos = p->x_num;
      if (!t->x_numeric) {
        int rank = 0;
        for (int j = 0; j < t->n; j++) {
          int seen = 0;
          for (int k = 0; k < j && !seen; k++) seen = !strcmp(t->p[k].x, t->p[j].x);
          if (!seen && strcmp(t->p[j].x, p->x) < 0) rank++;
        }
        pos = rank;
      }
      fprintf(f, "%.17g \"", pos);
      for (const char *s = p->x; *s; s++) fputc(*s == '"' ? '\'' : *s, f);
      fprintf(f, "\" %.17g %.17g %.17g %d\n", p->y, isfinite(p->lo) ? p->lo : NAN, isfinite(p->hi) ? p->hi : NAN,
              !isnan(p->x_effective));
      rows++;
    }
    if (!rows) fputs("NaN \"\" NaN NaN NaN 0\n", f);
  }
  return ls_file_out_commit(&o, err);
}

/* 1 when x is numeric, positive and spans at least 16x: a log axis shows it evenly. */
static int log_x(const ls_plot_table *t)
{
  if (!t->x_numeric || t->n == 0) return 0;
  double lo = t->p[0].x_num, hi = lo;
  for (int i = 0; i < t->n; i++) {
    lo = fmin(lo, t->p[i].x_num);
    hi = fmax(hi, t->p[i].x_num);
  }
  return lo > 0 && hi >= 16 * lo;
}

int ls_plot_draw(const ls_plot_table *t, const ls_plot_query *q, const char *db_path,
                 const char *png_path, const char *data_root, const char *gnuplot, ls_error *err)
{
  /* the names beside the image are as long as its path needs: a fixed buffer would cut a long
   * path and write the .dat somewhere else */
  size_t pn = strlen(png_path) + 32, sn = strlen(data_root) + 32;
  char text[600], *paths = malloc(2 * pn + sn), *dat = paths, *log = paths + pn, *script = log + pn;
  if (!paths) return ls_error_set(err, LS_ENOMEM, "plot: out of memory");
  snprintf(log, pn, "%s.log", png_path);
  snprintf(script, sn, "%s/plots/plot.gp", data_root);
  if (strcmp(ls_file_kind(script), "a regular file") != 0) {
    int rc = ls_error_set(err, LS_ENOTFOUND, "%s: the plot script is %s (a data root without "
                          "plots/? LEVERSIM_DATA names it)", script, ls_file_kind(script));
    free(paths);
    return rc;
  }
  ls_file_out png; /* gnuplot draws into a temporary file, renamed over the image after */
  int rc = ls_file_out_open(&png, png_path, "plot --out", "PNG", err);
  const char **names = rc ? NULL : malloc(2 * ((size_t)t->n + 1) * sizeof *names);
  const char **panels = names ? names + t->n + 1 : NULL;
  char *vars = names ? calloc(1, 32768) : NULL;
  if (!vars) {
    free(names);
    free(paths);
    if (rc) return rc;
    ls_file_out_abort(&png);
    return ls_error_set(err, LS_ENOMEM, "plot: out of memory");
  }
  int groups = distinct(t, offsetof(ls_plot_point, group), names);
  int np = q->n_panel ? distinct(t, offsetof(ls_plot_point, panel), panels) : 1;
  /* one data file per panel: <png>.dat, or <png>.<k>.dat with panels */
  snprintf(vars, 32768, "panels=%d; array D[%d]; array P[%d]; ", np, np, np);
  for (int k = 0; rc == LS_OK && k < np; k++) {
    char name[16];
    if (q->n_panel) snprintf(dat, pn, "%s.%d.dat", png_path, k + 1);
    else snprintf(dat, pn, "%s.dat", png_path);
    rc = write_dat(t, dat, q->n_panel ? panels[k] : NULL, names, groups, err);
    snprintf(name, sizeof name, "D[%d]", k + 1);
    ls_draw_var(vars, 32768, name, dat);
    snprintf(name, sizeof name, "P[%d]", k + 1);
    ls_draw_var(vars, 32768, name, q->n_panel ? panels[k] : "");
  }
  if (rc) {
    free(vars);
    free(names);
    free(paths);
    ls_file_out_abort(&png);
    return rc;
  }
  ls_draw_var(vars, 32768, "out", ls_file_out_release(&png));
  ls_draw_var(vars, 32768, "xlabel", q->x);
  snprintf(text, sizeof text, "%s%s%s%s", metric_alias(q->y), t->unit[0] ? " (" : "", t->unit, t->unit[0] ? ")" : "");
  ls_draw_var(vars, 32768, "ylabel", text);
  char by[400], panel[400];
  keys_name(q, 0, by, sizeof by);
  keys_name(q, 1, panel, sizeof panel);
  snprintf(text, sizeof text, "%s vs %s%s%s%s%s", metric_alias(q->y), q->x, by[0] ? " by " : "", by,
           panel[0] ? ", panels by " : "", panel);
  ls_draw_var(vars, 32768, "title", text);
  size_t len = (size_t)snprintf(text, sizeof text, "%s", db_path);
  for (int i = 0; i < q->n_where && len < sizeof text; i++)
    len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", i ? ", " : "; ", q->where[i]);
  ls_draw_var(vars, 32768, "subtitle", text);
  len = strlen(vars);
  len += (size_t)snprintf(vars + len, 32768 - len, "groups=%d; numeric=%d; logx=%d; capped=%d; array T[%d]; ",
                          groups, t->x_numeric, log_x(t), t->n_effective, groups > 0 ? groups : 1);
  for (int g = 0; g < groups; g++) {
    char name[32];
    snprintf(name, sizeof name, "T[%d]", g + 1);
    ls_draw_var(vars, 32768, name, names[g]);
  }
  if (strcmp(ls_file_kind(log), "a regular file") == 0) remove(log); /* an old log only */
  int st = ls_gnuplot_run(gnuplot, vars, script, log);
  free(vars);
  free(names);
  if (st != 0) ls_file_out_abort(&png);
  if (st == LS_GNUPLOT_NOT_FOUND)
    rc = ls_error_set(err, LS_ENOTFOUND, "gnuplot not found (install gnuplot-nox); the "
                      "data is in %s, `--format csv` prints the table", dat);
  else if (st == LS_GNUPLOT_TIMED_OUT)
    rc = ls_error_set(err, LS_ESTATE, "gnuplot on %s stopped at its time limit of %.0f s "
                      "(LEVERSIM_GNUPLOT_LIMIT=SECONDS changes it); its output is in %s",
                      script, ls_gnuplot_limit_s(), log);
  else if (st != 0)
    rc = ls_error_set(err, LS_ESTATE, "gnuplot failed on %s (exit %d); its output is in %s", script, st, log);
  else
    rc = ls_file_out_commit(&png, err);
  if (st == 0 && rc == LS_OK && strcmp(ls_file_kind(log), "a regular file") == 0) remove(log);
  free(paths);
  return rc;
}
