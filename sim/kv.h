/* sim/kv: settings as ordered key=value pairs ("draft.budget=32", "workload.p=0.6,0.2,0.1").
 *
 * The command line's --set, an experiment's sweep axes and its fixed settings all become one
 * ls_kv. Readers ask for typed values with an explicit default; each lookup marks the key
 * known, and ls_kv_check_used(prefix) turns any setting nobody asked for into an error, so a
 * misspelt key is never silently ignored. Keys stay sorted, so iteration order (and any
 * hash of the settings) is canonical. Values use the units of sim/units. */
#ifndef LS_SIM_KV_H
#define LS_SIM_KV_H
#include "sim/error.h"
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
const char *ls_kv_origin(const ls_kv *kv, int i); /* borrowed; "" when none was given */
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
/* Error for the first key starting with prefix that no reader asked for. */
int ls_kv_check_used(const ls_kv *kv, const char *prefix, ls_error *err);

/* Read log: each key a reader asked for (a typed getter or ls_kv_find), once, in the order it
 * was first asked, whether set or not, with the default that reader offered and the values it
 * accepts, as text ("" for none; ls_kv_unit's in base units, numbers in the shortest exact form). Creating a
 * component on an empty kv thus tells which keys it reads and its defaults. Not copied by
 * ls_kv_copy. Strings are borrowed, valid until ls_kv_free. */
int ls_kv_read_count(const ls_kv *kv);
const char *ls_kv_read_key(const ls_kv *kv, int i);
const char *ls_kv_read_default(const ls_kv *kv, int i);
const char *ls_kv_read_accepts(const ls_kv *kv, int i);

#endif
