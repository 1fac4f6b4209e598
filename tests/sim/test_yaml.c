/* tests/sim/test_yaml: the YAML schema walker (sim/yaml). Each error kind has a fixture in
 * tests/sim/fixtures/ and the test asserts the whole formatted message: exact
 * file:line:col, key path and bad value. */
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ls_test.h"
#include "sim/yaml.h"
#include "sim_suites.h"

/* The schema under test, shaped like a device profile. */
typedef struct {
  const char *name;
  double bw, lat, peak, curve[8];
  long qd;
  int ncurve, mode, enabled;
} prof;

static const char *const MODES[] = {"direct", "cached", NULL};

static int read_flash(const ls_ynode *root, prof *p, ls_error *err)
{
  ls_ynode f;
  int rc;
  if ((rc = ls_ymap_require(root, "flash", &f, err)) ||
      (rc = ls_yreq_unit(&f, "read_bandwidth", LS_U_BANDWIDTH, LS_Y_POS, DBL_MAX, &p->bw, err)) ||
      (rc = ls_yreq_int(&f, "queue_depth", 1, 256, &p->qd, err)) ||
      (rc = ls_yopt_unit(&f, "latency", LS_U_TIME, 0, 1, 0, &p->lat, err)))
    return rc;
  return ls_ymap_finish(&f, err);
}

static int read_npu(const ls_ynode *root, prof *p, ls_error *err)
{
  ls_ynode n, c;
  int rc;
  if ((rc = ls_ymap_require(root, "npu", &n, err)) ||
      (rc = ls_yreq_unit(&n, "peak", LS_U_COMPUTE, LS_Y_POS, DBL_MAX, &p->peak, err)) ||
      (rc = ls_ymap_require(&n, "batch_curve", &c, err)) ||
      (rc = ls_yas_doubles(&c, 0.1, 100, p->curve, 8, &p->ncurve, err)) ||
      (rc = ls_yreq_enum(&n, "mode", MODES, &p->mode, err)))
    return rc;
  return ls_ymap_finish(&n, err);
}

static int read_prof(ls_ydoc *d, prof *p, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(d);
  int rc;
  if ((rc = ls_ynode_expect(&root, LS_Y_MAP, err)) ||
      (rc = ls_yreq_string(&root, "name", &p->name, err)) || (rc = read_flash(&root, p, err)) ||
      (rc = read_npu(&root, p, err)) || (rc = ls_yopt_bool(&root, "enabled", 0, &p->enabled, err)))
    return rc;
  return ls_ymap_finish(&root, err);
}

/* Loads fixture `file` and reads it: returns the status; msg gets the formatted error. */
static int run_fixture(const char *file, char *path, size_t psize, char *msg, size_t msize)
{
  char rel[128];
  snprintf(rel, sizeof rel, "sim/fixtures/%s", file);
  ls_test_path(path, (unsigned)psize, rel);
  ls_error err;
  ls_error_clear(&err);
  ls_ydoc *d = NULL;
  prof p;
  memset(&p, 0, sizeof p);
  int rc = ls_ydoc_load_file(&d, path, &err);
  if (rc == LS_OK)
    rc = read_prof(d, &p, &err);
  ls_ydoc_free(d);
  msg[0] = '\0';
  if (rc)
    ls_error_format(&err, msg, msize);
  return rc;
}

typedef struct {
  const char *file;
  int code;
  const char *where_what; /* expected message after "<path>:" */
} fixture_case;

static void test_error_fixtures(void)
{
  static const fixture_case C[] = {
      {"unknown_key.yaml", LS_ESCHEMA,
       "6:3: flash.latncy: unknown key (expected one of: read_bandwidth, queue_depth, latency)"},
      {"duplicate_key.yaml", LS_ESCHEMA, "6:3: flash.queue_depth: duplicate key (first at line 5)"},
      {"missing_key.yaml", LS_ESCHEMA, "4:3: flash: missing required key 'read_bandwidth'"},
      {"out_of_range.yaml", LS_ERANGE,
       "5:16: flash.queue_depth: value '0' out of range (must be in [1, 256])"},
      {"bare_number.yaml", LS_EUNIT,
       "4:19: flash.read_bandwidth: bad value '4.2': a unit is required here (a bandwidth, e.g. "
       "MB/s, GB/s, GiB/s, Gb/s)"},
      {"wrong_unit.yaml", LS_EUNIT,
       "4:19: flash.read_bandwidth: bad value '4.2 GB': unit of the wrong kind: expected a "
       "bandwidth (a bandwidth, e.g. MB/s, GB/s, GiB/s, Gb/s)"},
      {"wrong_type.yaml", LS_ESCHEMA,
       "5:16: flash.queue_depth: wrong type: expected a scalar, found a sequence"},
      {"malformed.yaml", LS_EPARSE,
       "7:7: malformed YAML: did not find expected ',' or ']' while parsing a flow sequence "
       "(begun at 6:16)"},
  };
  for (unsigned i = 0; i < sizeof C / sizeof C[0]; i++) {
    char path[512], msg[2048], want[2600];
    int rc = run_fixture(C[i].file, path, sizeof path, msg, sizeof msg);
    snprintf(want, sizeof want, "%s:%s", path, C[i].where_what);
    CU_ASSERT_EQUAL(rc, C[i].code);
    CU_ASSERT_STRING_EQUAL(msg, want);
    if (rc != C[i].code || strcmp(msg, want) != 0)
      printf("\n    %s: rc %d\n      got  %s\n      want %s\n", C[i].file, rc, msg, want);
  }
}

static void test_valid(void)
{
  char path[512], msg[2048];
  ls_ydoc *d = NULL;
  ls_error err;
  ls_error_clear(&err);
  ls_test_path(path, sizeof path, "sim/fixtures/valid.yaml");
  CU_ASSERT_EQUAL_FATAL(ls_ydoc_load_file(&d, path, &err), LS_OK);
  CU_ASSERT_STRING_EQUAL(ls_ydoc_name(d), path);
  prof p;
  memset(&p, 0, sizeof p);
  int rc = read_prof(d, &p, &err);
  CU_ASSERT_EQUAL(rc, LS_OK);
  if (rc)
    printf("\n    %s\n", ls_error_format(&err, msg, sizeof msg));
  CU_ASSERT_STRING_EQUAL(p.name, "test-phone");
  LS_ASSERT_CLOSE(p.bw, 4.2e9, 1e-12);
  CU_ASSERT_EQUAL(p.qd, 32);
  LS_ASSERT_CLOSE(p.lat, 80e-6, 1e-12);
  LS_ASSERT_CLOSE(p.peak, 45e12, 1e-12);
  CU_ASSERT_EQUAL(p.ncurve, 3);
  CU_ASSERT_EQUAL(p.curve[1], 1.25);
  CU_ASSERT_EQUAL(p.mode, 1);
  CU_ASSERT_EQUAL(p.enabled, 1);
  /* node positions and paths */
  ls_ynode root = ls_ydoc_root(d), npu, curve;
  CU_ASSERT_EQUAL(ls_ynode_kind(&root), LS_Y_MAP);
  CU_ASSERT(ls_ymap_find(&root, "npu", &npu));
  CU_ASSERT(ls_ymap_find(&npu, "batch_curve", &curve));
  CU_ASSERT_EQUAL(ls_yseq_len(&curve), 3);
  ls_ynode second = ls_yseq_at(&curve, 1);
  CU_ASSERT_STRING_EQUAL(second.path, "npu.batch_curve[1]");
  CU_ASSERT_EQUAL(ls_ynode_line(&second), 9);
  CU_ASSERT_EQUAL(ls_ynode_col(&second), 22);
  CU_ASSERT_STRING_EQUAL(ls_ynode_text(&second), "1.25");
  CU_ASSERT_FALSE(ls_ymap_find(&root, "absent", &npu));
  ls_ydoc_free(d);
  /* a file that does not exist */
  CU_ASSERT_EQUAL(ls_ydoc_load_file(&d, "/nonexistent/x.yaml", &err), LS_ENOTFOUND);
  CU_ASSERT_PTR_NULL(d);
}

/* Reads `text` as a document named "t.yaml" with the profile schema. */
static int run_string(const char *text, char *msg, size_t size)
{
  ls_error err;
  ls_error_clear(&err);
  ls_ydoc *d = NULL;
  prof p;
  memset(&p, 0, sizeof p);
  int rc = ls_ydoc_load_string(&d, "t.yaml", text, &err);
  if (rc == LS_OK)
    rc = read_prof(d, &p, &err);
  ls_ydoc_free(d);
  msg[0] = '\0';
  if (rc)
    ls_error_format(&err, msg, size);
  return rc;
}

#define NPU_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [1.0]\n  mode: direct\n"
#define FLASH_OK "flash:\n  read_bandwidth: 4.2 GB/s\n  queue_depth: 32\n"

static void test_more_errors(void)
{
  static const struct {
    const char *text;
    int code;
    const char *msg;
  } C[] = {
      {"name: x\nflash: fast\n" NPU_OK, LS_ESCHEMA,
       "t.yaml:2:8: flash: wrong type: expected a mapping, found a scalar 'fast'"},
      {"name: x\n" FLASH_OK "  latency: soon\n" NPU_OK, LS_EUNIT,
       "t.yaml:5:12: flash.latency: bad value 'soon': expected a number followed by a unit (a "
       "time, e.g. ns, us, ms, s)"},
      {"name: x\nflash:\n  read_bandwidth: 4.2 GB/s\n  queue_depth: many\n" NPU_OK, LS_ESCHEMA,
       "t.yaml:4:16: flash.queue_depth: wrong type: expected an integer, found 'many'"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [1.0, 500]\n  mode: direct\n",
       LS_ERANGE, "t.yaml:7:22: npu.batch_curve[1]: value '500' out of range (must be in [0.1, 100])"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [1 GB]\n  mode: direct\n",
       LS_EUNIT,
       "t.yaml:7:17: npu.batch_curve[0]: bad value '1 GB': expected a plain number, without a unit"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [1.0]\n  mode: turbo\n",
       LS_ESCHEMA, "t.yaml:8:9: npu.mode: bad value 'turbo' (expected one of: direct, cached)"},
      {"name: x\n" FLASH_OK NPU_OK "enabled: yes\n", LS_ESCHEMA,
       "t.yaml:9:10: enabled: wrong type: expected true or false, found 'yes'"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [0x1p0]\n  mode: direct\n",
       LS_ESCHEMA, "t.yaml:7:17: npu.batch_curve[0]: bad value '0x1p0': hexadecimal numbers are not "
       "accepted (write the number in decimal)"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 45 TOPS\n  batch_curve: [inf]\n  mode: direct\n",
       LS_ESCHEMA, "t.yaml:7:17: npu.batch_curve[0]: wrong type: expected a decimal number, found 'inf'"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 0x2d TOPS\n  batch_curve: [1.0]\n  mode: direct\n",
       LS_EUNIT, "t.yaml:6:9: npu.peak: bad value '0x2d TOPS': hexadecimal numbers are not accepted "
       "(write the number in decimal) (a compute rate, e.g. GFLOP/s, TFLOP/s, TOPS)"},
      {"name: x\n" FLASH_OK "npu:\n  peak: 0 TOPS\n  batch_curve: [1.0]\n  mode: direct\n",
       LS_ERANGE, "t.yaml:6:9: npu.peak: value '0 TOPS' out of range (must be > 0)"},
      {"- a\n- b\n", LS_ESCHEMA,
       "t.yaml:1:1: (document): wrong type: expected a mapping, found a sequence"},
      {"name: x\n" FLASH_OK NPU_OK "npu: again\n", LS_ESCHEMA,
       "t.yaml:9:1: npu: duplicate key (first at line 5)"},
      {"name: x\n---\nname: y\n", LS_ESCHEMA, "t.yaml:3:1: only one YAML document is allowed"},
      {"# nothing\n", LS_ESCHEMA, "t.yaml:1:1: empty document"},
      {"name: x\n" FLASH_OK NPU_OK "extra: &a [*a]\n", LS_ESCHEMA,
       "t.yaml:9:1: extra: unknown key (expected one of: name, flash, npu, enabled)"},
      {"name: x\n" FLASH_OK "npu:\n  ? [k]\n  : v\n", LS_ESCHEMA,
       "t.yaml:6:5: npu: mapping keys must be plain scalars"},
  };
  for (unsigned i = 0; i < sizeof C / sizeof C[0]; i++) {
    char msg[2048];
    int rc = run_string(C[i].text, msg, sizeof msg);
    CU_ASSERT_EQUAL(rc, C[i].code);
    CU_ASSERT_STRING_EQUAL(msg, C[i].msg);
    if (rc != C[i].code || strcmp(msg, C[i].msg) != 0)
      printf("\n    case %u: rc %d\n      got  %s\n      want %s\n", i, rc, msg, C[i].msg);
  }
}

/* Regression: libyaml reports reader errors (control characters, bad UTF-8) by byte offset
 * only, and leversim printed them all at 1:1. Each is now at its real line and column, from a
 * string and from a file; an unclosed construct also says where it began. */
static void test_reader_errors_located(void)
{
  static const struct {
    const char *text, *msg;
  } C[] = {
      {"name: x\nflash: fast\nnpu: \001z\n",
       "t.yaml:3:6: malformed YAML: control characters are not allowed (byte 0x01)"},
      {"name: x\nflash: fast\nnpu: \xc3\xa9\xff\n",
       "t.yaml:3:7: malformed YAML: invalid leading UTF-8 octet (byte 0xFF)"},
      {"name: x\nflash: \"abc\nnpu: y\n",
       "t.yaml:4:1: malformed YAML: found unexpected end of stream while scanning a quoted "
       "scalar (begun at 2:8)"},
  };
  for (unsigned i = 0; i < sizeof C / sizeof C[0]; i++) {
    char msg[2048];
    CU_ASSERT_EQUAL(run_string(C[i].text, msg, sizeof msg), LS_EPARSE);
    CU_ASSERT_STRING_EQUAL(msg, C[i].msg);
  }
  char path[] = "/tmp/leversim-yaml-XXXXXX";
  int fd = mkstemp(path);
  CU_ASSERT_FATAL(fd >= 0);
  FILE *f = fdopen(fd, "wb");
  fputs("name: x\n\nflash: \001\n", f);
  fclose(f);
  ls_ydoc *d = NULL;
  ls_error err;
  ls_error_clear(&err);
  CU_ASSERT_EQUAL(ls_ydoc_load_file(&d, path, &err), LS_EPARSE);
  CU_ASSERT_EQUAL(err.line, 3);
  CU_ASSERT_EQUAL(err.col, 8);
  ls_ydoc_free(d);
  remove(path);
}

/* Regression (found while reviewing the walker for fuzzing): keys of 64 characters or more
 * were remembered truncated, so a free-form mapping read with ls_ymap_at, or a long key read
 * with ls_ymap_find, was then reported as an unknown key by ls_ymap_finish. */
static void test_long_keys(void)
{
  char key[200], text[512];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';
  snprintf(text, sizeof text, "%s: 1\nshort: 2\n", key);
  ls_error err;
  ls_error_clear(&err);
  ls_ydoc *d = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_ydoc_load_string(&d, "t.yaml", text, &err), LS_OK);
  ls_ynode root = ls_ydoc_root(d), v;
  const char *k;
  for (int i = 0; i < ls_ymap_size(&root); i++)
    CU_ASSERT_EQUAL(ls_ymap_at(&root, i, &k, &v), LS_OK);
  CU_ASSERT_EQUAL(ls_ymap_finish(&root, &err), LS_OK);
  ls_ydoc_free(d);
  /* Looked up by name: found, and known to the unknown-key check. */
  CU_ASSERT_EQUAL_FATAL(ls_ydoc_load_string(&d, "t.yaml", text, &err), LS_OK);
  root = ls_ydoc_root(d);
  CU_ASSERT_EQUAL(ls_ymap_find(&root, key, &v), 1);
  CU_ASSERT_EQUAL(ls_ymap_finish(&root, &err), LS_ESCHEMA); /* 'short' was not asked */
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "short: unknown key"));
  key[63] = '\0'; /* a 63-character prefix is a different key */
  CU_ASSERT_EQUAL(ls_ymap_find(&root, key, &v), 0);
  ls_ydoc_free(d);
}

/* libyaml turns "\0" escapes into NUL bytes inside a scalar; a C string would end there and
 * cut the key or value silently. Refused where it stands, for values and keys; a mapping of
 * many keys is checked for duplicates in n log n (the first repeat is the one reported). */
static void test_nul_and_many_keys(void)
{
  ls_ydoc *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "v.yaml", "a: 1\nname: \"One\\0Plus\"\n", &err), LS_EPARSE);
  CU_ASSERT_STRING_EQUAL(err.file, "v.yaml");
  CU_ASSERT_EQUAL(err.line, 2);
  CU_ASSERT_EQUAL(err.col, 7);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "name: a NUL byte (\\0) in a value ('One...')"));
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "k.yaml", "m:\n  \"na\\0me\": 1\n", &err), LS_EPARSE);
  CU_ASSERT_EQUAL(err.line, 2);
  CU_ASSERT_EQUAL(err.col, 3);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "m: a NUL byte (\\0) in a key ('na...')"));
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "s.yaml", "l: [a, \"b\\0\"]\n", &err), LS_EPARSE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "l[1]: a NUL byte"));
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "ok.yaml", "a: \"x\\ty\"\n", &err), LS_OK);
  ls_ydoc_free(d);
  enum { N = 50000 };
  char *big = malloc((size_t)N * 16 + 32), *p = big;
  for (int i = 0; i < N; i++) p += sprintf(p, "k%d: 1\n", i);
  sprintf(p, "k7: 2\nk3: 2\n");
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "big.yaml", big, &err), LS_ESCHEMA);
  CU_ASSERT_EQUAL(err.line, N + 1);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "k7: duplicate key (first at line 8)"));
  free(big);
}

/* Limits on libyaml's events, before the document is built: the first level past 256 is
 * located (20000 open brackets took libyaml 15 s to build); 256 levels are read; more than
 * 1024 aliases are refused at the first one past the limit. */
static void test_depth_and_alias_limits(void)
{
  ls_ydoc *d = NULL;
  ls_error err;
  enum { DEEP = 40000 };
  char *t = malloc(3 + 2 * DEEP + 2), *p = t;
  p += sprintf(p, "x: ");
  for (int i = 0; i < DEEP; i++) *p++ = '[';
  for (int i = 0; i < DEEP; i++) *p++ = ']';
  strcpy(p, "\n");
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "deep.yaml", t, &err), LS_ESCHEMA);
  CU_ASSERT_EQUAL(err.line, 1);
  CU_ASSERT_EQUAL(err.col, 4 + 255); /* the 256th bracket: level 257 (the root mapping is 1) */
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nesting deeper than 256 levels"));
  p = t + sprintf(t, "x: ");
  for (int i = 0; i < 255; i++) *p++ = '[';
  for (int i = 0; i < 255; i++) *p++ = ']';
  strcpy(p, "\n");
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "ok.yaml", t, &err), LS_OK);
  ls_ydoc_free(d);
  free(t);
  enum { ALIASES = 1025 };
  t = malloc(32 + (size_t)ALIASES * 4);
  p = t + sprintf(t, "a: &x 1\nb: [");
  for (int i = 0; i < ALIASES; i++) p += sprintf(p, "*x,");
  strcpy(p - 1, "]\n");
  CU_ASSERT_EQUAL(ls_ydoc_load_string(&d, "alias.yaml", t, &err), LS_ESCHEMA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "more than 1024 aliases"));
  free(t);
}

CU_TestInfo ls_t_yaml[] = {
    {"NUL bytes refused where they stand; many keys", test_nul_and_many_keys},
    {"nesting and alias limits, checked before the document is built", test_depth_and_alias_limits},
    {"keys longer than 63 characters (fuzz regression)", test_long_keys},
    {"one fixture per error kind: exact location, path, value", test_error_fixtures},
    {"a valid document read fully", test_valid},
    {"more errors: types, enums, bools, sequences, documents", test_more_errors},
    {"reader errors at their real line (not 1:1)", test_reader_errors_located},
    CU_TEST_INFO_NULL,
};
