/* runner/csvtab: a CSV table held in memory, as `leversim export` (results/export.c) writes
 * it: RFC 4180 fields, a header row naming the columns, every row with the header's number
 * of fields. `leversim figures` reads each figure's view this way, and the claims of
 * runner/report/figures.h are tested on it. (runner/calibrate/calib_input.c reads measurement files, whose
 * errors must name a file, line and column; it has its own reader.) */
#ifndef LS_RUNNER_CSVTAB_H
#define LS_RUNNER_CSVTAB_H
#include <stddef.h>
#include "sim/error.h"

typedef struct ls_csvtab {
  char *buf;    /* owned: unescaped fields, NUL-terminated */
  char **cell;  /* owned: (nrow + 1) * ncol pointers into buf, header row first */
  int ncol, nrow;
} ls_csvtab;

/* Parses text (len bytes) into *t, owned by the caller (ls_csvtab_free, also after an
 * error). LS_EPARSE when a row's field count differs from the header's, LS_ENOMEM. */
int ls_csvtab_parse(ls_csvtab *t, const char *text, size_t len, ls_error *err);
void ls_csvtab_free(ls_csvtab *t);
/* The column named name, -1 when there is none. */
int ls_csvtab_col(const ls_csvtab *t, const char *name);
/* The field of data row row (0-based, header excluded) and column col; borrowed. */
const char *ls_csvtab_at(const ls_csvtab *t, int row, int col);
/* The field as a number; -1 when empty, NaN when col < 0. */
double ls_csvtab_num(const ls_csvtab *t, int row, int col);
/* 1 when column col (>= 0) of row holds exactly v. */
int ls_csvtab_is(const ls_csvtab *t, int row, int col, const char *v);

#endif
