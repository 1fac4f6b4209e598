/* tests/fuzz/fuzz_yaml: libFuzzer harness for the generic readers of sim/: the YAML schema
 * walker (sim/yaml), unit parsing (sim/units) and settings (sim/kv). Every input goes to all
 * three:
 *  - YAML: loaded from a string, then walked with every typed getter on every node (a node
 *    budget bounds alias-amplified documents), unknown-key checks before and after reading;
 *  - units: every line, and the value after "key: ", parsed as each unit kind, and a parsed
 *    value formatted back and parsed again (it must give a value within 1e-5);
 *  - kv: every line taken as a key=value assignment, read back with every typed getter. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_util.h"
#include "sim/kv.h"
#include "sim/units.h"
#include "sim/yaml.h"

static const char *const CHOICES[] = {"direct", "page_cache", "phone", "gpu", "true", NULL};

static void leaf(const ls_ynode *n, ls_error *err)
{
  double d;
  long l;
  int b;
  const char *s;
  (void)ls_yas_double(n, -DBL_MAX, DBL_MAX, &d, err);
  (void)ls_yas_double(n, LS_Y_POS, 1.0, &d, err);
  (void)ls_yas_double(n, 0.0, DBL_MAX, &d, err);
  (void)ls_yas_int(n, -5, 1 << 20, &l, err);
  (void)ls_yas_bool(n, &b, err);
  (void)ls_yas_string(n, &s, err);
  (void)ls_yas_enum(n, CHOICES, &b, err);
  for (int k = 0; k < LS_U_KIND_COUNT; k++) {
    (void)ls_yas_unit(n, (ls_unit_kind)k, LS_Y_POS, DBL_MAX, &d, err);
    (void)ls_yas_unit(n, (ls_unit_kind)k, 0.0, 1e3, &d, err);
  }
}

static void walk(const ls_ynode *n, int depth, int *budget, ls_error *err)
{
  if (--*budget < 0 || depth > 64)
    return;
  (void)ls_ynode_line(n);
  (void)ls_ynode_col(n);
  switch (ls_ynode_kind(n)) {
  case LS_Y_SCALAR:
    leaf(n, err);
    (void)ls_ynode_expect(n, LS_Y_MAP, err);
    return;
  case LS_Y_SEQ: {
    double v[4];
    int cnt = 0;
    (void)ls_yas_doubles(n, -DBL_MAX, DBL_MAX, v, 4, &cnt, err);
    for (int i = 0; i < ls_yseq_len(n); i++) {
      ls_ynode it = ls_yseq_at(n, i);
      walk(&it, depth + 1, budget, err);
    }
    return;
  }
  case LS_Y_MAP: {
    ls_ynode v;
    double d;
    long l;
    int e;
    const char *s;
    (void)ls_yopt_double(n, "median", 0.0, 1e6, 1.0, &d, err);
    (void)ls_yopt_int(n, "lanes", 1, 16, 2, &l, err);
    (void)ls_yopt_unit(n, "chunk", LS_U_BYTES, 512, 1 << 30, 4096, &d, err);
    (void)ls_yopt_enum(n, "path", CHOICES, 0, &e, err);
    (void)ls_yopt_string(n, "name", "x", &s, err);
    (void)ls_yopt_bool(n, "quick", 1, &e, err);
    (void)ls_yreq_double(n, "sigma", 0.0, 5.0, &d, err);
    (void)ls_yreq_unit(n, "bandwidth", LS_U_BANDWIDTH, LS_Y_POS, DBL_MAX, &d, err);
    (void)ls_ymap_find(n, "id", &v);
    (void)ls_ymap_finish(n, err); /* usually reports an unknown key */
    const char *key;
    for (int i = 0; i < ls_ymap_size(n); i++)
      if (ls_ymap_at(n, i, &key, &v) == LS_OK)
        walk(&v, depth + 1, budget, err);
    (void)ls_ymap_finish(n, err); /* every key asked by now */
    return;
  }
  default:
    return;
  }
}

static void fuzz_yaml(const char *text)
{
  ls_ydoc *doc = NULL;
  ls_error err;
  ls_error_clear(&err);
  if (ls_ydoc_load_string(&doc, "fuzz.yaml", text, &err) != LS_OK)
    return;
  ls_ynode root = ls_ydoc_root(doc);
  int budget = 5000;
  walk(&root, 0, &budget, &err);
  char buf[LS_ERR_MSG + LS_ERR_FILE + 64];
  (void)ls_error_format(&err, buf, sizeof buf);
  ls_ydoc_free(doc);
}

static void fuzz_units(const char *text)
{
  for (int k = 0; k < LS_U_KIND_COUNT; k++) {
    double v;
    const char *why;
    if (ls_units_parse(text, (ls_unit_kind)k, &v, &why) != LS_OK)
      continue;
    char buf[64];
    ls_units_format(v, (ls_unit_kind)k, buf, sizeof buf);
    double w;
    if (isfinite(v) && ls_units_parse(buf, (ls_unit_kind)k, &w, &why) == LS_OK &&
        !(fabs(w - v) <= 1e-5 * fabs(v))) {
      fprintf(stderr, "fuzz_units: '%s' -> %.17g -> '%s' -> %.17g\n", text, v, buf, w);
      abort();
    }
  }
}

static void fuzz_kv(char *text)
{
  ls_kv *kv = NULL;
  ls_error err;
  if (ls_kv_create(&kv, &err) != LS_OK)
    return;
  for (char *line = text, *next; line; line = next) {
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    (void)ls_kv_assign(kv, line, "fuzz", &err);
  }
  ls_kv *copy = NULL;
  if (ls_kv_copy(&copy, kv, &err) == LS_OK) {
    for (int i = 0; i < ls_kv_count(copy); i++) {
      const char *key = ls_kv_key(copy, i), *s;
      double d, v[4];
      long l;
      int e, cnt = 0;
      (void)ls_kv_value(copy, i);
      switch (i % 6) {
      case 0: (void)ls_kv_double(copy, key, LS_Y_POS, 1e9, 1.0, &d, &err); break;
      case 1: (void)ls_kv_int(copy, key, -3, 1000, 0, &l, &err); break;
      case 2: (void)ls_kv_unit(copy, key, (ls_unit_kind)(i % LS_U_KIND_COUNT), 0, DBL_MAX, 0, &d, &err); break;
      case 3: (void)ls_kv_enum(copy, key, CHOICES, 0, &e, &err); break;
      case 4: (void)ls_kv_doubles(copy, key, 0.0, 1.0, v, 4, &cnt, &err); break;
      default: (void)ls_kv_string(copy, key, "", &s); break;
      }
    }
    (void)ls_kv_find(copy, "draft.budget");
    (void)ls_kv_check_used(copy, "", &err);
    ls_kv_free(copy);
  }
  ls_kv_free(kv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *text = fz_strdup(data, size);
  fuzz_yaml(text);
  fuzz_units(text);
  for (char *line = text, *next; line; line = next) { /* units: each line and each value */
    next = strchr(line, '\n');
    if (next)
      *next++ = '\0';
    fuzz_units(line);
    const char *colon = strstr(line, ": ");
    if (colon)
      fuzz_units(colon + 2);
  }
  free(text);
  text = fz_strdup(data, size);
  fuzz_kv(text);
  free(text);
  return 0;
}
