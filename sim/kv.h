/* sim/kv: settings as ordered key=value pairs ("draft.budget=32", "workload.p=0.6,0.2,0.1").
 *
 * The command line's --set, an experiment's sweep axes and its fixed settings all become one
 * ls_kv. Readers ask for typed values with an explicit default; each lookup marks the key
 * known, and ls_kv_check_used(prefix) turns any setting nobody asked for into an error, so a
 * misspelt key is never silently ignored. Keys stay sorted, so iteration order (and any
 * hash of the settings) is canonical. Values use the units of sim/units.
 *
 * Every typed getter also records a declaration: the key, its type, range, unit, default and
 * the value it resolved to (given or default). A reader's declarations are therefore both the
 * list of valid keys (for "did you mean" and `leversim settings`) and the fully resolved
 * settings of a run (stored with its results). */
#ifndef LS_SIM_KV_H
#define LS_SIM_KV_H
#include "sim/error.h"
#include <stddef.h>
#include "sim/units.h"

typedef struct ls_kv ls_kv;

int ls_kv_create(ls_kv **out, ls_error *err);       /* *out owned by caller */
void ls_kv_free(ls_kv *kv);
int ls_kv_copy(ls_kv **out, const ls_kv *src, ls_error *err); /* deep copy, "used" marks cleared */
/* Sets (or replaces) key; origin says where it came from, for messages ("--set", "paper.yaml:12:5"). */
int ls_kv_set(ls_kv *kv, const char *key, const char *value, const char *origin, ls_error *err);
/* Parses "key=value". */
int ls_kv_assign(ls_kv *kv, const char *assignment, const char *origin, ls_error *err);
int ls_kv_count(const ls_kv *kv);
const char *ls_kv_key(const ls_kv *kv, int i);    /* borrowed */
const char *ls_kv_value(const ls_kv *kv, int i);  /* borrowed */
const char *ls_kv_origin(const ls_kv *kv, int i); /* borrowed */
/* 1 when key is set; does not mark it known. */
int ls_kv_has(const ls_kv *kv, const char *key);
/* Origin of key's value, or NULL when it is not set; does not mark it known. Borrowed. */
const char *ls_kv_origin_of(const ls_kv *kv, const char *key);
/* Value of key or NULL; marks key known. */
const char *ls_kv_find(ls_kv *kv, const char *key);

/* Typed getters: absent -> *out = dflt, LS_OK. Bad value -> LS_E* naming key, value, origin. */
int ls_kv_double(ls_kv *kv, const char *key, double lo, double hi, double dflt, double *out, ls_error *err);
int ls_kv_int(ls_kv *kv, const char *key, long lo, long hi, long dflt, long *out, ls_error *err);
int ls_kv_unit(ls_kv *kv, const char *key, ls_unit_kind k, double lo, double hi, double dflt,
               double *out, ls_error *err);
/* choices NULL-terminated. */
int ls_kv_enum(ls_kv *kv, const char *key, const char *const *choices, int dflt, int *out, ls_error *err);
int ls_kv_string(ls_kv *kv, const char *key, const char *dflt, const char **out);
/* Comma-separated numbers; absent -> *count left unchanged and out untouched. */
int ls_kv_doubles(ls_kv *kv, const char *key, double lo, double hi, double *out, int max, int *count,
                  ls_error *err);
/* The first key starting with prefix that no reader asked for, or NULL. Borrowed. */
const char *ls_kv_unused(const ls_kv *kv, const char *prefix);
/* Error for the first key starting with prefix that no reader asked for, suggesting the
 * nearest declared key ("did you mean draft.budget?"). */
int ls_kv_check_used(const ls_kv *kv, const char *prefix, ls_error *err);

/* ---- declarations: what the readers asked for ---- */
typedef enum { LS_KV_TEXT, LS_KV_INT, LS_KV_NUMBER, LS_KV_QUANTITY, LS_KV_CHOICE, LS_KV_NUMBERS } ls_kv_type;

#define LS_KV_TEXT_MAX 256
typedef struct ls_kv_decl {
  char key[128];
  ls_kv_type type;
  double lo, hi;              /* accepted range, base units (INT, NUMBER, QUANTITY, NUMBERS) */
  ls_unit_kind unit;          /* QUANTITY only */
  char choices[256];          /* CHOICE: "a|b|c" */
  char dflt[LS_KV_TEXT_MAX];  /* default as text ("" when there is none) */
  char value[LS_KV_TEXT_MAX]; /* value used, as text ("" when none) */
  double num;                 /* value used as a number in base units; NAN when not one */
  int is_default;             /* 1: the key was not set, the default was used */
  char origin[288];           /* where a given value came from (ls_kv_set's origin); "" for defaults */
  const char *reader;         /* static text naming the reader (ls_kv_reader), "" if unset */
  char accepts[300];          /* the accepted values as plain text (see ls_kv_read_accepts) */
  char base_dflt[40];         /* QUANTITY: the default as a number in base units */
} ls_kv_decl;

/* Names the component whose reads follow ("policy draft/lever"); s must be static text. */
void ls_kv_reader(ls_kv *kv, const char *s);
/* Declarations in first-read order; a key read twice keeps its first record. Borrowed. */
int ls_kv_decl_count(const ls_kv *kv);
const ls_kv_decl *ls_kv_decl_at(const ls_kv *kv, int i);
/* Name of a declaration type ("integer", "quantity", ...). */
const char *ls_kv_type_name(ls_kv_type t);
/* The range of d as text in its own unit ("[1, 256]", "(0, 1e+12] B/s"; "" when none). */
const char *ls_kv_decl_range(const ls_kv_decl *d, char *buf, size_t size);
/* The read log, in plain text for tables and tests: each declared key (ls_kv_find declares
 * one too, as text with no default) in first-read order, the default its reader offered and
 * the values it accepts ("" for none; quantities in base units, numbers in the shortest form
 * that reads back exactly). Creating a component on an empty kv thus tells which keys it
 * reads and its defaults. Not copied by ls_kv_copy. Strings borrowed until ls_kv_free. */
int ls_kv_read_count(const ls_kv *kv);
const char *ls_kv_read_key(const ls_kv *kv, int i);
const char *ls_kv_read_default(const ls_kv *kv, int i);
const char *ls_kv_read_accepts(const ls_kv *kv, int i);
/* Levenshtein distance between a and b (for suggestions). */
int ls_kv_distance(const char *a, const char *b);

#endif
