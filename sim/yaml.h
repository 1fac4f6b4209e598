/* sim/yaml: a schema walker over libyaml's document API.
 *
 * Load a file into an ls_ydoc, then walk it with ls_ynode handles (a node plus the key path
 * that led to it, for messages). Typed getters check type, range, enumeration and unit; every
 * error names file:line:col, the key path and the bad value, e.g.
 *   oneplus-12.yaml:14:5: flash.read_bandwith: unknown key (expected one of: read_bandwidth, ...)
 * Rules enforced for every document:
 *  - duplicate keys in any mapping are an error at load time;
 *  - a key the reader never asked for is an error: call ls_ymap_finish(map) after reading a
 *    mapping; the "expected" list is exactly the keys that were looked up on it;
 *  - a bare number where a unit is required, or a unit of the wrong kind, is an error;
 *  - nothing is defaulted silently: optional getters take an explicit default.
 * Ranges are inclusive; pass LS_Y_POS as lo to require a value > 0. */
#ifndef LS_SIM_YAML_H
#define LS_SIM_YAML_H
#include <float.h>
#include "sim/error.h"
#include "sim/units.h"

#define LS_YPATH 256
#define LS_Y_POS DBL_MIN  /* lo bound meaning "strictly positive" */

typedef struct ls_ydoc ls_ydoc;

typedef enum { LS_Y_NONE = 0, LS_Y_SCALAR, LS_Y_MAP, LS_Y_SEQ } ls_ykind;

typedef struct ls_ynode {
  ls_ydoc *doc;          /* borrowed */
  int id;                /* libyaml node index (1-based) */
  char path[LS_YPATH];   /* "flash.latency.body[2]"; "" for the root */
} ls_ynode;

/* Loads and parses a file / a string (name is used in messages). *out is owned by the
 * caller: free with ls_ydoc_free. Empty documents are an error. */
int ls_ydoc_load_file(ls_ydoc **out, const char *path, ls_error *err);
int ls_ydoc_load_string(ls_ydoc **out, const char *name, const char *text, ls_error *err);
void ls_ydoc_free(ls_ydoc *d);
/* File name as given to the loader (borrowed). */
const char *ls_ydoc_name(const ls_ydoc *d);
/* The root node. */
ls_ynode ls_ydoc_root(ls_ydoc *d);

ls_ykind ls_ynode_kind(const ls_ynode *n);
int ls_ynode_line(const ls_ynode *n);   /* 1-based */
int ls_ynode_col(const ls_ynode *n);    /* 1-based */
/* Scalar text (borrowed, lives as long as the doc) or NULL when n is not a scalar. */
const char *ls_ynode_text(const ls_ynode *n);
/* Error located at n, message prefixed with n's path: "path: <fmt>". Returns code. */
int ls_ynode_error(const ls_ynode *n, ls_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Checks n is of kind k ("expected a mapping, found a sequence"). */
int ls_ynode_expect(const ls_ynode *n, ls_ykind k, ls_error *err);

/* Mappings. find: 1 when present (out set), 0 when absent; the key becomes "known". */
int ls_ymap_find(const ls_ynode *map, const char *key, ls_ynode *out);
/* Required key: LS_ESCHEMA "missing required key" located at the mapping. */
int ls_ymap_require(const ls_ynode *map, const char *key, ls_ynode *out, ls_error *err);
/* Unknown-key check: every key not looked up is an error at the key. */
int ls_ymap_finish(const ls_ynode *map, ls_error *err);
/* Free-form mappings (keys are names): count and i-th pair; marks the key known. */
int ls_ymap_size(const ls_ynode *map);
int ls_ymap_at(const ls_ynode *map, int i, const char **key, ls_ynode *value);

/* Sequences. */
int ls_yseq_len(const ls_ynode *seq);
ls_ynode ls_yseq_at(const ls_ynode *seq, int i);

/* Typed leaves. */
int ls_yas_double(const ls_ynode *n, double lo, double hi, double *out, ls_error *err);
int ls_yas_int(const ls_ynode *n, long lo, long hi, long *out, ls_error *err);
int ls_yas_bool(const ls_ynode *n, int *out, ls_error *err);
int ls_yas_string(const ls_ynode *n, const char **out, ls_error *err); /* borrowed */
/* choices: NULL-terminated; *out = index. */
int ls_yas_enum(const ls_ynode *n, const char *const *choices, int *out, ls_error *err);
int ls_yas_unit(const ls_ynode *n, ls_unit_kind k, double lo, double hi, double *out,
                ls_error *err);
/* A sequence of plain numbers into out[0..max-1]; *n = count. */
int ls_yas_doubles(const ls_ynode *n, double lo, double hi, double *out, int max, int *count,
                   ls_error *err);

/* Keyed shorthands on a mapping: req = required, opt = default when absent. */
int ls_yreq_double(const ls_ynode *m, const char *key, double lo, double hi, double *out, ls_error *err);
int ls_yopt_double(const ls_ynode *m, const char *key, double lo, double hi, double dflt, double *out, ls_error *err);
int ls_yreq_int(const ls_ynode *m, const char *key, long lo, long hi, long *out, ls_error *err);
int ls_yopt_int(const ls_ynode *m, const char *key, long lo, long hi, long dflt, long *out, ls_error *err);
int ls_yreq_unit(const ls_ynode *m, const char *key, ls_unit_kind k, double lo, double hi, double *out, ls_error *err);
int ls_yopt_unit(const ls_ynode *m, const char *key, ls_unit_kind k, double lo, double hi, double dflt, double *out, ls_error *err);
int ls_yreq_string(const ls_ynode *m, const char *key, const char **out, ls_error *err);
int ls_yopt_string(const ls_ynode *m, const char *key, const char *dflt, const char **out, ls_error *err);
int ls_yreq_enum(const ls_ynode *m, const char *key, const char *const *choices, int *out, ls_error *err);
int ls_yopt_enum(const ls_ynode *m, const char *key, const char *const *choices, int dflt, int *out, ls_error *err);
int ls_yopt_bool(const ls_ynode *m, const char *key, int dflt, int *out, ls_error *err);

#endif
