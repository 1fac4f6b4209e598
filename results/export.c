/* results/export: a view of the results database as CSV, JSON or an aligned text table.
 *
 * Only the views named in results/schema.c can be exported (the name is checked against that
 * list before it reaches SQL). Reals are printed in the shortest of %.15g/%.16g/%.17g that
 * reads back to the same double, so exported numbers are exact and still readable
 * (2.93, not 2.9300000000000002). CSV follows RFC 4180: a header row, fields with a comma,
 * quote or line break are quoted with quotes doubled, NULL is an empty field. JSON is an array
 * of objects keyed by column name, NULL and non-finite numbers as null. The text table (for
 * people, e.g. the reproduce summary) prints reals with 6 significant digits, numbers right-
 * aligned. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "results/db_int.h"

/* Shortest round-tripping %g text of x. */
void ls_db_format_real(double x, char *buf, size_t size)
{
  for (int prec = 15; prec <= 17; prec++) {
    snprintf(buf, size, "%.*g", prec, x);
    if (strtod(buf, NULL) == x) return;
  }
}

/* Text of column i (NULL -> ""), reals in round-trip form (6 significant digits when
 * human, for the text table); buf is used for numbers. */
static const char *cell_text_h(sqlite3_stmt *st, int i, char *buf, size_t size, int human)
{
  switch (sqlite3_column_type(st, i)) {
  case SQLITE_NULL: return "";
  case SQLITE_FLOAT:
    if (human) snprintf(buf, size, "%.6g", sqlite3_column_double(st, i));
    else ls_db_format_real(sqlite3_column_double(st, i), buf, size);
    return buf;
  case SQLITE_INTEGER:
    snprintf(buf, size, "%lld", (long long)sqlite3_column_int64(st, i));
    return buf;
  default: return (const char *)sqlite3_column_text(st, i);
  }
}

static const char *cell_text(sqlite3_stmt *st, int i, char *buf, size_t size)
{
  return cell_text_h(st, i, buf, size, 0);
}

static void csv_field(FILE *out, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* The length of the well-formed UTF-8 sequence at p (RFC 3629: no overlong form, no
 * surrogate, at most U+10FFFF), 0 when p does not start one. */
static int utf8_len(const unsigned char *p)
{
  if (p[0] < 0x80) return 1;
  int n = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
          : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
  for (int i = 1; i < n; i++)
    if ((p[i] & 0xC0) != 0x80) return 0;
  if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0) ||
      (p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90))
    return 0;
  return n;
}

/* A JSON string: always valid UTF-8 (RFC 8259), so a byte that starts no well-formed
 * sequence (text a database holds is not checked by SQLite) is written as U+FFFD. */
static void json_string(FILE *out, const char *s)
{
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p;) {
    int n = utf8_len(p);
    if (n == 0) fputs("\\ufffd", out), n = 1;
    else if (*p == '"' || *p == '\\') fprintf(out, "\\%c", *p);
    else if (*p == '\n') fputs("\\n", out);
    else if (*p == '\t') fputs("\\t", out);
    else if (*p < 0x20) fprintf(out, "\\u%04x", *p);
    else fwrite(p, 1, (size_t)n, out);
    p += n;
  }
  fputc('"', out);
}

static void json_value(FILE *out, sqlite3_stmt *st, int i)
{
  char buf[64];
  int t = sqlite3_column_type(st, i);
  if (t == SQLITE_NULL || (t == SQLITE_FLOAT && !isfinite(sqlite3_column_double(st, i))))
    fputs("null", out);
  else if (t == SQLITE_FLOAT || t == SQLITE_INTEGER) fputs(cell_text(st, i, buf, sizeof buf), out);
  else json_string(out, (const char *)sqlite3_column_text(st, i));
}


/* Column widths (w[0..nc-1]) and numeric flags (w[nc..2nc-1], right-aligned) for the text
 * table: a first pass over the rows. */
static int table_widths(ls_db *db, sqlite3_stmt *st, int *w, ls_error *err)
{
  int nc = sqlite3_column_count(st), s;
  char buf[64];
  for (int i = 0; i < nc; i++) w[i] = (int)strlen(sqlite3_column_name(st, i));
  while ((s = sqlite3_step(st)) == SQLITE_ROW)
    for (int i = 0; i < nc; i++) {
      int n = (int)strlen(cell_text_h(st, i, buf, sizeof buf, 1)), t = sqlite3_column_type(st, i);
      if (n > w[i]) w[i] = n;
      if (t != SQLITE_NULL) w[nc + i] = t == SQLITE_FLOAT || t == SQLITE_INTEGER; /* numeric */
    }
  sqlite3_reset(st);
  return s == SQLITE_DONE ? LS_OK : ls_db_fail(db, err, "reading the view");
}

enum { FMT_CSV, FMT_JSON, FMT_TABLE };

static void header(sqlite3_stmt *st, int fmt, const int *w, FILE *out)
{
  int nc = sqlite3_column_count(st);
  if (fmt == FMT_JSON) {
    fputc('[', out);
    return;
  }
  for (int i = 0; i < nc; i++) {
    if (fmt == FMT_CSV) {
      if (i) fputc(',', out);
      csv_field(out, sqlite3_column_name(st, i));
    } else {
      fprintf(out, w[nc + i] ? "%s%*s" : "%s%-*s", i ? "  " : "", w[i],
              sqlite3_column_name(st, i));
    }
  }
  fputc('\n', out);
}

static void row(sqlite3_stmt *st, int fmt, const int *w, long k, FILE *out)
{
  int nc = sqlite3_column_count(st);
  char buf[64];
  if (fmt == FMT_JSON) fputs(k ? ",\n {" : "\n {", out);
  for (int i = 0; i < nc; i++) {
    if (fmt == FMT_CSV) {
      if (i) fputc(',', out);
      csv_field(out, cell_text(st, i, buf, sizeof buf));
    } else if (fmt == FMT_JSON) {
      if (i) fputs(", ", out);
      json_string(out, sqlite3_column_name(st, i));
      fputs(": ", out);
      json_value(out, st, i);
    } else {
      fprintf(out, w[nc + i] ? "%s%*s" : "%s%-*s", i ? "  " : "", w[i],
              cell_text_h(st, i, buf, sizeof buf, 1));
    }
  }
  fputs(fmt == FMT_JSON ? "}" : "\n", out);
}

static int step_rows(ls_db *db, sqlite3_stmt *st, int fmt, FILE *out, ls_error *err)
{
  int nc = sqlite3_column_count(st), s, rc = LS_OK;
  int *w = calloc(2 * (size_t)nc + 1, sizeof *w);
  if (!w) return ls_error_set(err, LS_ENOMEM, "export: out of memory");
  if (fmt == FMT_TABLE) rc = table_widths(db, st, w, err);
  if (rc == LS_OK) {
    header(st, fmt, w, out);
    long k = 0;
    while ((s = sqlite3_step(st)) == SQLITE_ROW) row(st, fmt, w, k++, out);
    if (s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading the view");
    else if (fmt == FMT_JSON) fputs(k ? "\n]\n" : "]\n", out);
  }
  free(w);
  if (rc == LS_OK && ferror(out)) rc = ls_error_set(err, LS_EIO, "export: write error");
  return rc;
}

int ls_db_export(ls_db *db, const char *view, const char *format, FILE *out, ls_error *err)
{
  int known = 0;
  for (int i = 0; ls_db_view_name(i); i++) known |= strcmp(view, ls_db_view_name(i)) == 0;
  if (!known) return ls_error_set(err, LS_ENOTFOUND, "unknown view '%s'", view);
  int fmt;
  if (strcmp(format, "csv") == 0) fmt = FMT_CSV;
  else if (strcmp(format, "json") == 0) fmt = FMT_JSON;
  else if (strcmp(format, "table") == 0) fmt = FMT_TABLE;
  else return ls_error_set(err, LS_EUSAGE, "unknown format '%s' (expected csv, json, table)", format);
  char sql[128];
  snprintf(sql, sizeof sql, "SELECT * FROM %s", view);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, view);
  int rc = step_rows(db, st, fmt, out, err);
  sqlite3_finalize(st);
  return rc;
}

/* --- generic read-only queries (ls_db_select) ------------------------------------------- */

#define SELECT_MAX_COLS 32

int ls_db_select(ls_db *db, const char *sql, const char *const *params, int n_params,
                 ls_db_row_fn fn, void *ctx, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "preparing a query");
  int n = sqlite3_column_count(st), rc = LS_OK, s;
  if (n > SELECT_MAX_COLS) {
    sqlite3_finalize(st);
    return ls_error_set(err, LS_EUSAGE, "ls_db_select: more than %d columns", SELECT_MAX_COLS);
  }
  for (int i = 0; i < n_params; i++)
    sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *text[SELECT_MAX_COLS];
    double num[SELECT_MAX_COLS];
    for (int c = 0; c < n; c++) {
      int t = sqlite3_column_type(st, c);
      num[c] = t == SQLITE_INTEGER || t == SQLITE_FLOAT ? sqlite3_column_double(st, c) : NAN;
      text[c] = t == SQLITE_NULL ? NULL : (const char *)sqlite3_column_text(st, c);
    }
    rc = fn(ctx, n, text, num, err);
  }
  if (rc == LS_OK && s != SQLITE_DONE) rc = ls_db_fail(db, err, "reading a query");
  sqlite3_finalize(st);
  return rc;
}

/* --- swept settings as columns ------------------------------------------------------------ */

#define AXES_MAX 32 /* swept settings turned into columns; more are refused */

typedef struct axes_keys {
  char key[AXES_MAX][128];
  int n, more;
} axes_keys;

static int add_key(void *ctx, int n, const char *const *text, const double *num, ls_error *err)
{
  (void)n, (void)num, (void)err;
  axes_keys *k = ctx;
  if (!text[0]) return LS_OK;
  if (k->n == AXES_MAX) {
    k->more = 1;
    return LS_OK;
  }
  snprintf(k->key[k->n++], sizeof k->key[0], "%s", text[0]);
  return LS_OK;
}

/* An SQL identifier in double quotes (quotes doubled): a key read from the database is data. */
static size_t put_ident(char *sql, size_t size, size_t len, const char *name)
{
  len += (size_t)snprintf(sql + len, size > len ? size - len : 0, "\"");
  for (; *name; name++)
    len += (size_t)snprintf(sql + len, size > len ? size - len : 0, *name == '"' ? "\"\"" : "%c", *name);
  return len + (size_t)snprintf(sql + len, size > len ? size - len : 0, "\"");
}

int ls_db_export_axes(ls_db *db, const char *view, const char *format, FILE *out, ls_error *err)
{
  int known = 0, fmt;
  for (int i = 0; ls_db_view_name(i); i++) known |= strcmp(view, ls_db_view_name(i)) == 0;
  if (!known) return ls_error_set(err, LS_ENOTFOUND, "unknown view '%s'", view);
  if (strcmp(format, "csv") == 0) fmt = FMT_CSV;
  else if (strcmp(format, "json") == 0) fmt = FMT_JSON;
  else if (strcmp(format, "table") == 0) fmt = FMT_TABLE;
  else return ls_error_set(err, LS_EUSAGE, "unknown format '%s' (expected csv, json, table)", format);
  char probe[128];
  snprintf(probe, sizeof probe, "SELECT axes_json FROM %s LIMIT 0", view);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, probe, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return ls_error_set(err, LS_EUSAGE, "--axes: view %s has no axes_json column (v_runs, v_vs_lever, "
                        "v_speedup, v_metric_ci and v_failed have)", view);
  }
  sqlite3_finalize(st);
  axes_keys k;
  memset(&k, 0, sizeof k);
  int rc = ls_db_select(db, "SELECT DISTINCT j.key FROM runs r, json_each(r.axes_json) j ORDER BY 1", NULL, 0,
                        add_key, &k, err);
  if (rc) return rc;
  if (k.more) return ls_error_set(err, LS_EUSAGE, "--axes: more than %d swept settings in the database", AXES_MAX);
  size_t size = 1024 + (size_t)k.n * 700, len;
  char *sql = malloc(size);
  if (!sql) return ls_error_set(err, LS_ENOMEM, "export: out of memory");
  len = (size_t)snprintf(sql, size, "SELECT v.*");
  for (int i = 0; i < k.n; i++) { /* a number when the value is written as one ("16"), else the text ("4 GB/s") */
    len += (size_t)snprintf(sql + len, size - len, ", CASE WHEN json_extract(v.axes_json, ?%d) GLOB '*[^0-9.eE+-]*'"
                            " OR json_extract(v.axes_json, ?%d) = '' THEN json_extract(v.axes_json, ?%d)"
                            " ELSE CAST(json_extract(v.axes_json, ?%d) AS NUMERIC) END AS ", i + 1, i + 1, i + 1, i + 1);
    len = put_ident(sql, size, len, k.key[i]);
  }
  snprintf(sql + len, size - len, " FROM %s v", view);
  char path[AXES_MAX][160];
  rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) == SQLITE_OK ? LS_OK : ls_db_fail(db, err, view);
  for (int i = 0; rc == LS_OK && i < k.n; i++) {
    snprintf(path[i], sizeof path[i], "$.\"%s\"", k.key[i]);
    sqlite3_bind_text(st, i + 1, path[i], -1, SQLITE_STATIC);
  }
  if (rc == LS_OK) rc = step_rows(db, st, fmt, out, err);
  sqlite3_finalize(st);
  free(sql);
  return rc;
}
