/* tests/devices: shipped profiles (validate, every number sourced), broken fixtures with
 * exact locations, and the `profiles` / `devices curve` commands through the binary. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "devtest.h"
#include "sim/kv.h"
#include "sim/range.h"
#include "ls_test.h"

static const char *const shipped[] = {"galaxy-s23", "honor-500-pro", "honor-magic-v5", "oneplus-12",
                                      "pixel-9", "rtx-3090", "vivo-x100-pro"};
#define N_SHIPPED 7

static void test_shipped_validate(void)
{
  char ids[64][64];
  int n = ls_device_list(LS_DATA_ROOT, ids, 64);
  CU_ASSERT_FATAL(n >= N_SHIPPED);
  for (int i = 0; i < N_SHIPPED; i++) {
    int found = 0;
    for (int j = 0; j < n; j++)
      found |= strcmp(ids[j], shipped[i]) == 0;
    CU_ASSERT(found);
  }
  for (int j = 1; j < n; j++)
    CU_ASSERT(strcmp(ids[j - 1], ids[j]) < 0);
  for (int j = 0; j < n; j++) {
    ls_device *d = devtest_load(ids[j]);
    if (!d)
      continue;
    CU_ASSERT_STRING_EQUAL(ls_device_id(d), ids[j]); /* id matches the file name */
    CU_ASSERT(ls_flash_effective_bw(ls_device_flash(d)) > 0);
    CU_ASSERT(ls_device_is_gpu(d) == (strcmp(ids[j], "rtx-3090") == 0));
    ls_device_free(d);
  }
}

/* Honesty rule: every line whose value is a number (or a list of numbers) carries a comment
 * that names a source (src:<id>, docs/SOURCES.md), or says calibrated:, assumed, derived or
 * "by definition". */
static int names_its_basis(const char *comment)
{
  static const char *const MARKS[] = {"src:", "calibrated:", "assumed", "derived", "by definition"};
  for (size_t i = 0; i < sizeof MARKS / sizeof MARKS[0]; i++)
    if (strstr(comment, MARKS[i]))
      return 1;
  return 0;
}

static void test_every_number_commented(void)
{
  for (int i = 0; i < N_SHIPPED; i++) {
    char path[512], line[512];
    snprintf(path, sizeof path, "%s/devices/profiles/%s.yaml", LS_DATA_ROOT, shipped[i]);
    FILE *f = fopen(path, "r");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (int ln = 1; fgets(line, sizeof line, f); ln++) {
      char *hash = strchr(line, '#');
      if (hash)
        *hash = 0;
      char *v = strchr(line, ':');
      v = v ? v + 1 : line;
      while (*v == ' ' || *v == '-' || *v == '[')
        v++;
      int numeric = isdigit((unsigned char)*v) || (*v == '.' && isdigit((unsigned char)v[1]));
      if (numeric && !hash) {
        fprintf(stderr, "%s:%d: number without a source comment\n", path, ln);
        CU_FAIL("number without a source comment");
      } else if (numeric && !names_its_basis(hash + 1)) {
        fprintf(stderr, "%s:%d: the comment names no src:<id>, calibrated:, assumed or derived\n", path, ln);
        CU_FAIL("number whose comment names no source");
      }
    }
    fclose(f);
  }
}

static void expect_error(const char *fixture, int code, int line, int col, const char *what)
{
  char path[512], want[640], got[2048];
  snprintf(path, sizeof path, "%s/devices/fixtures/%s", LS_TEST_DIR, fixture);
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_device_load(&d, path, &err), code);
  CU_ASSERT_PTR_NULL(d);
  snprintf(want, sizeof want, "%s:%d:%d: %s", path, line, col, what);
  ls_error_format(&err, got, sizeof got);
  if (strncmp(got, want, strlen(want)) != 0)
    fprintf(stderr, "want: %s\ngot:  %s\n", want, got);
  CU_ASSERT(strncmp(got, want, strlen(want)) == 0);
}

static void test_broken_fixtures(void)
{
  expect_error("bad_missing.yaml", LS_ESCHEMA, 10, 3, "flash: missing required key 'queue_depth'");
  expect_error("bad_zero_bw.yaml", LS_ERANGE, 12, 19, "flash.link_bandwidth: value '0 GB/s' out of range");
  expect_error("bad_negative_bw.yaml", LS_ERANGE, 37, 21, "npu.weight_bandwidth: value '-5 GB/s' out of range");
  expect_error("bad_unknown_key.yaml", LS_ESCHEMA, 28, 3, "flash.read_bandwith: unknown key");
  expect_error("bad_curve.yaml", LS_EINVALID, 48, 7, "npu.batch_curve[6]: batch curve must be non-decreasing");
  expect_error("bad_empirical.yaml", LS_EINVALID, 24, 15, "flash.latency.cdf[2][1]: latencies must not decrease");
  expect_error("bad_unit.yaml", LS_EUNIT, 17, 10, "flash.chunk: bad value '512 MB/s': unit of the wrong kind");
}

/* oneplus-12 with `  <key>: <value>` lines added after cpu.call_overhead (line 64), written
 * to path (key2 NULL: one line); returns the line the last key is on. */
static int with_keys(const char *key, const char *value, const char *key2, const char *value2, const char *path)
{
  char src[512], line[1024];
  snprintf(src, sizeof src, "%s/devices/profiles/oneplus-12.yaml", LS_DATA_ROOT);
  FILE *in = fopen(src, "r"), *o = fopen(path, "w");
  CU_ASSERT_PTR_NOT_NULL_FATAL(in);
  CU_ASSERT_PTR_NOT_NULL_FATAL(o);
  int n = 0, at = 0, bad = 0;
  while (fgets(line, sizeof line, in)) {
    n++;
    bad |= fputs(line, o) < 0;
    if (!strncmp(line, "  call_overhead:", 16)) {
      bad |= fprintf(o, "  %s: %s # test\n", key, value) < 0;
      at = ++n;
      if (key2) {
        bad |= fprintf(o, "  %s: %s # test\n", key2, value2) < 0;
        at = ++n;
      }
    }
  }
  fclose(in);
  bad |= fclose(o) != 0;
  CU_ASSERT_FATAL(!bad && at > 0);
  return at;
}

/* The profile with `key: value` in its cpu section (with_keys) is refused with code, the error
 * located at the value (column col) and reading `what`. */
static void expect_cpu_key_refused(const char *key, const char *value, int code, int col, const char *what,
                                   const char *path)
{
  char want[512], got[2048];
  int at = with_keys(key, value, NULL, NULL, path);
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_device_load(&d, path, &err), code);
  CU_ASSERT_PTR_NULL(d);
  snprintf(want, sizeof want, "%s:%d:%d: %s", path, at, col, what);
  ls_error_format(&err, got, sizeof got);
  if (strncmp(got, want, strlen(want)) != 0)
    fprintf(stderr, "want: %s\ngot:  %s\n", want, got);
  CU_ASSERT(strncmp(got, want, strlen(want)) == 0);
}

static int with_head_bw(const char *value, const char *path)
{
  return with_keys("head_bandwidth", value, NULL, NULL, path);
}

/* cpu.head_bandwidth: optional; a stated rate must be a positive bandwidth, errors located at
 * the value. */
static void test_head_bandwidth_key(void)
{
  char path[256], want[512], got[2048];
  snprintf(path, sizeof path, "/tmp/ls-test-head-bw-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  int at = with_head_bw("19.5 GB/s", path);
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(ls_device_cpu(d)->head_bw, 19.5e9, 1e-3);
  ls_device_free(d);
  static const struct {
    const char *value;
    int code;
    const char *what;
  } bad[] = {{"0 GB/s", LS_ERANGE, "cpu.head_bandwidth: value '0 GB/s' out of range"},
             {"-3 GB/s", LS_ERANGE, "cpu.head_bandwidth: value '-3 GB/s' out of range"},
             {"2 TB/s", LS_ERANGE, "cpu.head_bandwidth: value '2 TB/s' out of range"},
             {"3 GHz", LS_EUNIT, "cpu.head_bandwidth: bad value '3 GHz': unit of the wrong kind"},
             {"fast", LS_EUNIT, "cpu.head_bandwidth: bad value 'fast'"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    at = with_head_bw(bad[i].value, path);
    d = NULL;
    CU_ASSERT_EQUAL(ls_device_load(&d, path, &err), bad[i].code);
    CU_ASSERT_PTR_NULL(d);
    snprintf(want, sizeof want, "%s:%d:19: %s", path, at, bad[i].what);
    ls_error_format(&err, got, sizeof got);
    if (strncmp(got, want, strlen(want)) != 0)
      fprintf(stderr, "want: %s\ngot:  %s\n", want, got);
    CU_ASSERT(strncmp(got, want, strlen(want)) == 0);
  }
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* cpu.head_first_bandwidth: optional, only beside head_bandwidth; a stated rate must be a
 * positive bandwidth, errors located at the value. */
static void test_head_first_bandwidth_key(void)
{
  char path[256], want[512], got[2048];
  snprintf(path, sizeof path, "/tmp/ls-test-head-bw1-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  int at = with_keys("head_bandwidth", "16 GB/s", "head_first_bandwidth", "7.25 GB/s", path);
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(ls_device_cpu(d)->head_bw, 16e9, 1e-3);
  CU_ASSERT_DOUBLE_EQUAL(ls_device_cpu(d)->head_bw_first, 7.25e9, 1e-3);
  ls_device_free(d);
  static const struct {
    const char *value;
    int code;
    int col;
    const char *what;
  } bad[] = {{"0 GB/s", LS_ERANGE, 25, "cpu.head_first_bandwidth: value '0 GB/s' out of range"},
             {"-3 GB/s", LS_ERANGE, 25, "cpu.head_first_bandwidth: value '-3 GB/s' out of range"},
             {"2 TB/s", LS_ERANGE, 25, "cpu.head_first_bandwidth: value '2 TB/s' out of range"},
             {"3 GHz", LS_EUNIT, 25, "cpu.head_first_bandwidth: bad value '3 GHz': unit of the wrong kind"},
             {"slow", LS_EUNIT, 25, "cpu.head_first_bandwidth: bad value 'slow'"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    at = with_keys("head_bandwidth", "16 GB/s", "head_first_bandwidth", bad[i].value, path);
    d = NULL;
    CU_ASSERT_EQUAL(ls_device_load(&d, path, &err), bad[i].code);
    CU_ASSERT_PTR_NULL(d);
    snprintf(want, sizeof want, "%s:%d:%d: %s", path, at, bad[i].col, bad[i].what);
    ls_error_format(&err, got, sizeof got);
    if (strncmp(got, want, strlen(want)) != 0)
      fprintf(stderr, "want: %s\ngot:  %s\n", want, got);
    CU_ASSERT(strncmp(got, want, strlen(want)) == 0);
  }
  /* Alone, without the further rows' rate: refused at its line. */
  at = with_keys("head_first_bandwidth", "7 GB/s", NULL, NULL, path);
  d = NULL;
  CU_ASSERT_EQUAL(ls_device_load(&d, path, &err), LS_EINVALID);
  CU_ASSERT_PTR_NULL(d);
  snprintf(want, sizeof want, "%s:%d:25: cpu.head_first_bandwidth: needs cpu.head_bandwidth", path, at);
  ls_error_format(&err, got, sizeof got);
  if (strncmp(got, want, strlen(want)) != 0)
    fprintf(stderr, "want: %s\ngot:  %s\n", want, got);
  CU_ASSERT(strncmp(got, want, strlen(want)) == 0);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* cpu.batch_group: optional (absent: 0, the roofline), a whole number of tokens >= 1, errors
 * located at the value and naming the key and the value. */
static void test_batch_group_key(void)
{
  char path[256];
  snprintf(path, sizeof path, "/tmp/ls-test-batch-group-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_device_load_id(&d, LS_DATA_ROOT, "oneplus-12", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->batch_group, 0); /* absent in the shipped profile */
  ls_device_free(d);
  with_keys("batch_group", "4", NULL, NULL, path);
  d = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->batch_group, 4);
  ls_device_free(d);
  static const struct {
    const char *value;
    int code;
    const char *what;
  } bad[] = {{"0", LS_ERANGE, "cpu.batch_group: value '0' out of range"},
             {"-4", LS_ERANGE, "cpu.batch_group: value '-4' out of range"},
             {"2000000", LS_ERANGE, "cpu.batch_group: value '2000000' out of range"},
             {"4.5", LS_ESCHEMA, "cpu.batch_group: wrong type: expected an integer, found '4.5'"},
             {"four", LS_ESCHEMA, "cpu.batch_group: wrong type: expected an integer, found 'four'"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    expect_cpu_key_refused("batch_group", bad[i].value, bad[i].code, 16, bad[i].what, path);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* cpu.single_bandwidth: optional (absent: 0, a one-token pass as any other), a positive
 * bandwidth, errors located at the value and naming the key and the value. */
static void test_single_bandwidth_key(void)
{
  char path[256];
  snprintf(path, sizeof path, "/tmp/ls-test-single-bw-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_device_load_id(&d, LS_DATA_ROOT, "oneplus-12", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->single_bw, 0); /* absent in the shipped profile */
  ls_device_free(d);
  with_keys("single_bandwidth", "17 GB/s", NULL, NULL, path);
  d = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(ls_device_cpu(d)->single_bw, 17e9, 1e-3);
  ls_device_free(d);
  static const struct {
    const char *value;
    int code;
    const char *what;
  } bad[] = {{"0 GB/s", LS_ERANGE, "cpu.single_bandwidth: value '0 GB/s' out of range"},
             {"2 TB/s", LS_ERANGE, "cpu.single_bandwidth: value '2 TB/s' out of range"},
             {"3 GHz", LS_EUNIT, "cpu.single_bandwidth: bad value '3 GHz': unit of the wrong kind"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    expect_cpu_key_refused("single_bandwidth", bad[i].value, bad[i].code, 21, bad[i].what, path);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* cpu.batch_remainder: optional (false), a boolean, and only beside batch_group. */
static void test_batch_remainder_key(void)
{
  char path[256];
  snprintf(path, sizeof path, "/tmp/ls-test-batch-rem-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  with_keys("batch_group", "4", "batch_remainder", "true", path);
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->batch_remainder, 1);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->batch_group, 4);
  ls_device_free(d);
  expect_cpu_key_refused("batch_remainder", "true", LS_EINVALID, 20,
                         "cpu.batch_remainder: needs cpu.batch_group (the tile whose remainder it is)", path);
  expect_cpu_key_refused("batch_remainder", "maybe", LS_ESCHEMA, 20, "cpu.batch_remainder:", path);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* cpu.remainder_bandwidth: optional (absent: 0, the remainder at the first pass's rate), a
 * positive bandwidth, only beside batch_remainder: true; errors located at the value. */
static void test_remainder_bandwidth_key(void)
{
  char path[256];
  snprintf(path, sizeof path, "/tmp/ls-test-rem-bw-%ld.yaml", (long)getpid());
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_device_load_id(&d, LS_DATA_ROOT, "oneplus-12", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_device_cpu(d)->remainder_bw, 0); /* absent in the shipped profile */
  ls_device_free(d);
  /* the three lines the testbed's kernel form writes: batch_group's value carries the next two */
  with_keys("batch_group", "4\n  batch_remainder: true", "remainder_bandwidth", "12 GB/s", path);
  d = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_device_load(&d, path, &err), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(ls_device_cpu(d)->remainder_bw, 12e9, 1e-3);
  ls_device_free(d);
  static const struct {
    const char *value;
    int code;
    const char *what;
  } bad[] = {{"0 GB/s", LS_ERANGE, "cpu.remainder_bandwidth: value '0 GB/s' out of range"},
             {"3 GHz", LS_EUNIT, "cpu.remainder_bandwidth: bad value '3 GHz': unit of the wrong kind"},
             {"12 GB/s", LS_EINVALID,
              "cpu.remainder_bandwidth: needs cpu.batch_remainder: true (the pass it is the rate of)"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    expect_cpu_key_refused("remainder_bandwidth", bad[i].value, bad[i].code, 24, bad[i].what, path);
  CU_ASSERT_EQUAL(remove(path), 0);
}

/* oneplus-12's profile with the value of its first line "  ...key: ..." replaced, into path. */
static int profile_with(const char *key, const char *value, const char *path)
{
  char src[512], line[1024], want[96];
  snprintf(src, sizeof src, "%s/devices/profiles/oneplus-12.yaml", LS_DATA_ROOT);
  snprintf(want, sizeof want, "%s:", key);
  FILE *in = fopen(src, "r"), *out = fopen(path, "w");
  int done = 0;
  while (in && out && fgets(line, sizeof line, in)) {
    char *k = line + strspn(line, " ");
    if (!done && strncmp(k, want, strlen(want)) == 0) {
      fprintf(out, "%.*s%s %s\n", (int)(k - line), line, want, value);
      done = 1;
    } else {
      fputs(line, out);
    }
  }
  if (in) fclose(in);
  if (out && fclose(out) != 0) done = 0;
  return done;
}

/* A value of a row as text in the row's base unit ("1000000 B/s", "32"). */
static void row_value(ls_range_id id, double v, char *buf, size_t size)
{
  static const char *const BASE[LS_U_KIND_COUNT] = {"", "B", "B/s", "s", "Hz", "W", "J", "J/B", "FLOP/s", "1/s"};
  const ls_range *r = ls_range_at(id);
  snprintf(buf, size, "%.17g%s%s", v, r->quantity ? " " : "", r->quantity ? BASE[r->unit] : "");
}

/* One table (issue 35): a value a profile may hold is a value --set may give, and the reverse.
 * For each quantity written in both, the two readers give the same verdict at the row's
 * bounds and just past them, and that verdict is the row's. */
static void test_profile_and_set_agree(void)
{
  static const struct {
    ls_range_id id;
    const char *profile_key, *set_key;
    int peer_lo; /* the profile's own relations make its least value unreachable: skip lo */
  } shared[] = {{LS_R_FLASH_BW, "link_bandwidth", "device.flash.bandwidth", 1},
                {LS_R_FLASH_CHUNK, "chunk", "device.flash.chunk", 0},
                {LS_R_FLASH_QD, "queue_depth", "device.flash.queue_depth", 0},
                {LS_R_CALL_TIME, "dispatch", "device.npu.dispatch", 0},
                {LS_R_COMPUTE, "vec_flops", "device.npu.vec_flops", 0},
                {LS_R_NPU_TILE, "mat_min", "device.npu.mat_min", 0}};
  char path[256], text[64], set[160];
  snprintf(path, sizeof path, "/tmp/ls-test-one-table-%ld.yaml", (long)getpid());
  ls_device *base = devtest_load("oneplus-12");
  CU_ASSERT_PTR_NOT_NULL_FATAL(base);
  for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
    const ls_range *r = ls_range_at(shared[i].id);
    double step = r->whole ? 1 : 0, below = r->whole ? r->lo - step : r->lo > 0 ? r->lo / 2 : -r->hi;
    double vals[4] = {r->lo, r->hi, below, r->whole ? r->hi + step : r->hi * 2};
    for (int k = shared[i].peer_lo ? 1 : 0; k < 4; k++) {
      int want = k < 2 ? LS_OK : -1;
      row_value(shared[i].id, vals[k], text, sizeof text);
      CU_ASSERT_FATAL(profile_with(shared[i].profile_key, text, path));
      ls_device *d = NULL, *c = NULL;
      ls_error err;
      int in_file = ls_device_load(&d, path, &err);
      ls_device_free(d);
      ls_kv *kv = NULL;
      snprintf(set, sizeof set, "%s=%s", shared[i].set_key, text);
      CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
      CU_ASSERT_EQUAL_FATAL(ls_kv_assign(kv, set, "--set", &err), LS_OK);
      CU_ASSERT_EQUAL_FATAL(ls_device_clone(&c, base, &err), LS_OK);
      int on_line = ls_device_apply(c, kv, &err);
      ls_device_free(c);
      ls_kv_free(kv);
      if ((in_file == LS_OK) != (on_line == LS_OK) || (in_file == LS_OK) != (want == LS_OK))
        fprintf(stderr, "%s: profile %s: %d, --set %s: %d (want %s)\n", r->name, text, in_file, set, on_line,
                want == LS_OK ? "accepted" : "refused");
      CU_ASSERT_EQUAL(in_file == LS_OK, on_line == LS_OK);
      CU_ASSERT_EQUAL(in_file == LS_OK, want == LS_OK);
    }
  }
  ls_device_free(base);
  remove(path);
}

static void test_unknown_id(void)
{
  ls_device *d = NULL;
  ls_error err;
  CU_ASSERT_EQUAL(ls_device_load_id(&d, LS_DATA_ROOT, "nokia-3310", &err), LS_ENOTFOUND);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown device 'nokia-3310'"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "oneplus-12"));
  CU_ASSERT_EQUAL(ls_device_load_id(&d, LS_DATA_ROOT, "../profiles/oneplus-12", &err), LS_ENOTFOUND);
}

CU_TestInfo profiles_tests[] = {{"every shipped profile validates", test_shipped_validate},
                                {"every number has a source comment", test_every_number_commented},
                                {"broken profiles rejected at file:line:col", test_broken_fixtures},
                                {"cpu.head_bandwidth: optional, positive, located", test_head_bandwidth_key},
                                {"cpu.head_first_bandwidth: optional, with head_bandwidth, positive, located",
                                 test_head_first_bandwidth_key},
                                {"cpu.batch_group: optional, a whole number >= 1, located", test_batch_group_key},
                                {"cpu.single_bandwidth: optional, a positive rate, located", test_single_bandwidth_key},
                                {"cpu.batch_remainder: optional, a boolean, only with batch_group", test_batch_remainder_key},
                                {"cpu.remainder_bandwidth: optional, a positive rate, only with batch_remainder",
                                 test_remainder_bandwidth_key},
                                {"a profile and --set accept the same values (one range table)", test_profile_and_set_agree},
                                {"unknown id lists the valid ones", test_unknown_id},
                                CU_TEST_INFO_NULL};

/* ---- commands ---- */

static char out[65536];

static void test_cli_profiles(void)
{
  CU_ASSERT_EQUAL(ls_test_cli("profiles list", out, sizeof out), 0);
  for (int i = 0; i < N_SHIPPED; i++)
    CU_ASSERT_PTR_NOT_NULL(strstr(out, shipped[i]));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "Snapdragon 8 Elite"));
  CU_ASSERT_EQUAL(ls_test_cli("profiles show oneplus-12", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "link bandwidth: 4.2 GB/s"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "Cortex-X4"));
  CU_ASSERT_EQUAL(ls_test_cli("profiles show nokia-3310", out, sizeof out), 66);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "valid: galaxy-s23"));
  char args[1024];
  snprintf(args, sizeof args, "profiles validate '%s/devices/fixtures/bad_unit.yaml'", LS_TEST_DIR);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 65);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, "bad_unit.yaml:17:10: flash.chunk"));
  snprintf(args, sizeof args, "profiles validate '%s/devices/profiles/rtx-3090.yaml'", LS_DATA_ROOT);
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  CU_ASSERT_EQUAL(ls_test_cli("profiles frobnicate", out, sizeof out), 64);
}

/* Reads the CSV of `devices curve` (the profile's own regime) into latency (ms) per row;
 * returns the row count. */
static int curve(const char *device, double *lat, double *speedup)
{
  char args[256];
  snprintf(args, sizeof args,
           "devices curve --device %s --model llama-3.1-8b --tokens 1,2,4,8,16,32,64 --csv --regime %s", device,
           strcmp(device, "rtx-3090") ? "q4_0-dynamic" : "static-graph");
  CU_ASSERT_EQUAL(ls_test_cli(args, out, sizeof out), 0);
  int n = 0;
  char *line = strchr(out, '\n');
  while (line && n < 16) {
    int tok, pad;
    double l, r, s;
    if (sscanf(line + 1, "%*[^,],%*[^,],%*[^,],%d,%d,%lf,%lf,%lf", &tok, &pad, &l, &r, &s) == 5) {
      lat[n] = l;
      speedup[n] = s;
      n++;
    }
    line = strchr(line + 1, '\n');
  }
  return n;
}

static void test_cli_curve(void)
{
  double npu[16], gpu[16], snpu[16], sgpu[16];
  CU_ASSERT_EQUAL_FATAL(curve("oneplus-12", npu, snpu), 7);
  CU_ASSERT_EQUAL_FATAL(curve("rtx-3090", gpu, sgpu), 7);
  for (int i = 1; i < 7; i++) {
    if ((i < 5) == (i - 1 < 5))      /* tokens 1..16 vector path, 32.. matrix path (q4_0-dynamic) */
      CU_ASSERT(npu[i] > npu[i - 1]);  /* grows with tokens on the phone NPU */
    CU_ASSERT(gpu[i] >= gpu[i - 1]);
  }
  CU_ASSERT(npu[6] / npu[0] > 4.0);  /* clearly: Q4_0 passes are far from flat */
  CU_ASSERT(gpu[6] / gpu[0] < 1.1);  /* nearly flat up to 64 */
  CU_ASSERT(sgpu[6] > snpu[6] * 1.3);
  CU_ASSERT_EQUAL(ls_test_cli("devices curve --device oneplus-12", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("devices curve --device oneplus-12 --model llama-3.1-8b --tokens 1,x", out, sizeof out), 64);
  CU_ASSERT_EQUAL(ls_test_cli("devices curve --device nope --model llama-3.1-8b", out, sizeof out), 66);
  /* both regimes by default, one table each; a regime the profile lacks is refused */
  CU_ASSERT_EQUAL(ls_test_cli("devices curve --device oneplus-12 --model llama-3.1-8b --csv", out, sizeof out), 0);
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",static-graph,64,"));
  CU_ASSERT_PTR_NOT_NULL(strstr(out, ",q4_0-dynamic,64,"));
  CU_ASSERT_EQUAL(ls_test_cli("devices curve --device rtx-3090 --model llama-3.1-8b --regime q4_0-dynamic", out,
                              sizeof out), 65);
}

CU_TestInfo cli_tests[] = {{"profiles list/show/validate", test_cli_profiles},
                           {"devices curve: NPU grows, GPU flat", test_cli_curve},
                           CU_TEST_INFO_NULL};
