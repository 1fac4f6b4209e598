/* sim/error: the one table of status codes and the error detail record.
 *
 * Every fallible function returns int: 0 (LS_OK) on success, a negative LS_E* code on
 * failure, and writes the detail into a caller-supplied ls_error (which may be NULL when the
 * caller does not want it). Input errors carry file:line:col (1-based), so a message reads
 *   oneplus-12.yaml:14:5: flash.read_bandwith: unknown key (expected one of: ...)
 * Process exit codes for the command line are derived in one place (ls_status_exit). */
#ifndef LS_SIM_ERROR_H
#define LS_SIM_ERROR_H
#include <stdio.h>

/* X-macro: code, name, exit status of the leversim binary (docs/ARCHITECTURE.md, "Exit codes"). */
#define LS_STATUS_TABLE(X)                                                     \
  X(LS_OK, 0, "ok", 0)                                                         \
  X(LS_ENOMEM, -1, "out of memory", 70)                                        \
  X(LS_EIO, -2, "input/output error", 74)                                      \
  X(LS_EPARSE, -3, "malformed input", 65)                                      \
  X(LS_ESCHEMA, -4, "schema violation", 65)                                    \
  X(LS_ERANGE, -5, "value out of range", 65)                                   \
  X(LS_EUNIT, -6, "bad unit", 65)                                              \
  X(LS_ENOTFOUND, -7, "not found", 66)                                         \
  X(LS_EUSAGE, -8, "usage error", 64)                                          \
  X(LS_ESTATE, -9, "invalid state", 70)                                        \
  X(LS_EDB, -10, "database error", 74)                                         \
  X(LS_ENUMERIC, -11, "numerical error", 70)                                   \
  X(LS_EINVALID, -12, "invalid configuration", 65)                             \
  X(LS_ERUN, -13, "run failed", 1)                                             \
  X(LS_EREGRESS, -14, "regression found", 2)                                   \
  X(LS_EINTR, -15, "interrupted", 130)

enum {
#define LS_X(sym, code, text, exitc) sym = code,
  LS_STATUS_TABLE(LS_X)
#undef LS_X
};

/* A message holds paths of any length the system allows (PATH_MAX), so no file name is cut. */
#define LS_PATH_MAX 4096 /* PATH_MAX on Linux: the longest path a buffer here must hold */
#define LS_ERR_MSG (2 * LS_PATH_MAX)
#define LS_ERR_FILE LS_PATH_MAX

typedef struct ls_error {
  int code;                  /* last status, LS_OK when nothing happened */
  char file[LS_ERR_FILE];    /* input file, "" when not an input error */
  int line, col;             /* 1-based; 0 when unknown */
  char msg[LS_ERR_MSG];      /* human text, without the location prefix */
} ls_error;

/* Clears e (NULL allowed). */
void ls_error_clear(ls_error *e);
/* Records code and a printf-style message in e (NULL allowed); returns code. */
int ls_error_set(ls_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Same, with an input location. */
int ls_error_at(ls_error *e, int code, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Prepends "prefix: " to e->msg (keeps code and location); returns e->code. */
int ls_error_wrap(ls_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes "file:line:col: msg" (or "msg") into buf; returns buf. */
const char *ls_error_format(const ls_error *e, char *buf, size_t size);
/* Prints "leversim: <formatted>\n" to f. */
void ls_error_print(const ls_error *e, FILE *f);
/* Short name of a status code ("bad unit"). */
const char *ls_status_text(int code);
/* Process exit status for a status code (0, 1, 2, 64+). */
int ls_status_exit(int code);

#endif
