/* runner/csvtab: see csvtab.h. Fields are unescaped in place into one buffer; cells point
 * into it. */
#include "runner/report/csvtab.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ls_csvtab_free(ls_csvtab *t)
{
  free(t->buf);
  free(t->cell);
  memset(t, 0, sizeof *t);
}

/* Splits text into cells in place (quotes removed, "" -> "). Every row must have the
 * header's column count. */
int ls_csvtab_parse(ls_csvtab *t, const char *text, size_t len, ls_error *err)
{
  memset(t, 0, sizeof *t);
  t->buf = malloc(len + 1);
  size_t cap = 64, n = 0;
  t->cell = malloc(cap * sizeof *t->cell);
  if (!t->buf || !t->cell) return ls_error_set(err, LS_ENOMEM, "csv: out of memory");
  char *w = t->buf;
  size_t i = 0;
  int col = 0;
  while (i < len) {
    if (n == cap) {
      char **c = realloc(t->cell, (cap *= 2) * sizeof *c);
      if (!c) return ls_error_set(err, LS_ENOMEM, "csv: out of memory");
      t->cell = c;
    }
    t->cell[n++] = w;
    if (text[i] == '"') {
      for (i++; i < len; i++) {
        if (text[i] == '"' && !(i + 1 < len && text[i + 1] == '"')) {
          i++; /* closing quote */
          break;
        }
        if (text[i] == '"') i++; /* "" inside quotes is one quote */
        *w++ = text[i];
      }
    } else {
      while (i < len && text[i] != ',' && text[i] != '\n' && text[i] != '\r') *w++ = text[i++];
    }
    *w++ = '\0';
    col++;
    if (i < len && text[i] == ',') {
      i++;
      continue;
    }
    while (i < len && (text[i] == '\r' || text[i] == '\n')) i++;
    if (!t->ncol) t->ncol = col;
    if (col != t->ncol)
      return ls_error_set(err, LS_EPARSE, "csv: a row has %d fields, the header %d", col, t->ncol);
    col = 0;
  }
  t->nrow = t->ncol ? (int)(n / (size_t)t->ncol) - 1 : 0;
  return LS_OK;
}

int ls_csvtab_col(const ls_csvtab *t, const char *name)
{
  for (int c = 0; c < t->ncol; c++)
    if (!strcmp(t->cell[c], name)) return c;
  return -1;
}

const char *ls_csvtab_at(const ls_csvtab *t, int row, int col)
{
  return t->cell[(size_t)(row + 1) * (size_t)t->ncol + (size_t)col];
}

double ls_csvtab_num(const ls_csvtab *t, int row, int col)
{
  if (col < 0) return NAN;
  const char *s = ls_csvtab_at(t, row, col);
  return s[0] ? strtod(s, NULL) : -1;
}

int ls_csvtab_is(const ls_csvtab *t, int row, int col, const char *v)
{
  return col >= 0 && !strcmp(ls_csvtab_at(t, row, col), v);
}
