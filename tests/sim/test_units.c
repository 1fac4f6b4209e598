/* tests/sim/test_units: physical quantities with units (sim/units). */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "ls_test.h"
#include "sim/error.h"
#include "sim/units.h"
#include "sim_suites.h"

typedef struct {
  const char *text;
  ls_unit_kind kind;
  double si;
} case_t;

static void test_each_kind(void)
{
  static const case_t C[] = {
      {"0.85", LS_U_RATIO, 0.85},           {"85 %", LS_U_RATIO, 0.85},
      {"117 MiB", LS_U_BYTES, 117.0 * 1048576}, {"16 GB", LS_U_BYTES, 16e9},
      {"4 KiB", LS_U_BYTES, 4096},          {"4.2 GB/s", LS_U_BANDWIDTH, 4.2e9},
      {"2 GiB/s", LS_U_BANDWIDTH, 2.0 * 1073741824}, {"8 Gb/s", LS_U_BANDWIDTH, 1e9},
      {"80 us", LS_U_TIME, 80e-6},          {"1.5 ms", LS_U_TIME, 1.5e-3},
      {"250 ns", LS_U_TIME, 250e-9},        {"3.3 GHz", LS_U_FREQ, 3.3e9},
      {"2.5 W", LS_U_POWER, 2.5},           {"800 mW", LS_U_POWER, 0.8},
      {"3 mJ", LS_U_ENERGY, 3e-3},          {"20 pJ/B", LS_U_ENERGY_PER_BYTE, 20e-12},
      {"0.5 J/GB", LS_U_ENERGY_PER_BYTE, 0.5e-9}, {"45 TOPS", LS_U_COMPUTE, 45e12},
      {"1.2 TFLOP/s", LS_U_COMPUTE, 1.2e12}, {"100 kIOPS", LS_U_RATE, 1e5},
      {"4.2GB/s", LS_U_BANDWIDTH, 4.2e9},   /* no space is fine */
  };
  for (unsigned i = 0; i < sizeof C / sizeof C[0]; i++) {
    double v = -1;
    const char *why = NULL;
    int rc = ls_units_parse(C[i].text, C[i].kind, &v, &why);
    CU_ASSERT_EQUAL(rc, LS_OK);
    if (rc == LS_OK) {
      LS_ASSERT_CLOSE(v, C[i].si, 1e-12);
    } else {
      printf("\n    '%s': %s\n", C[i].text, why);
    }
  }
}

static void test_bad(void)
{
  double v = 123;
  const char *why = NULL;
  /* A bare number where a unit is required: every kind but the ratio. */
  for (int k = LS_U_BYTES; k < LS_U_KIND_COUNT; k++) {
    why = NULL;
    CU_ASSERT_EQUAL(ls_units_parse("4.2", (ls_unit_kind)k, &v, &why), LS_EUNIT);
    CU_ASSERT_PTR_NOT_NULL(why);
    if (why)
      CU_ASSERT_PTR_NOT_NULL(strstr(why, "unit is required"));
  }
  CU_ASSERT_EQUAL(v, 123); /* untouched on failure */
  /* Wrong kind. */
  CU_ASSERT_EQUAL(ls_units_parse("4.2 GB", LS_U_BANDWIDTH, &v, &why), LS_EUNIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "wrong kind"));
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "bandwidth"));
  CU_ASSERT_EQUAL(ls_units_parse("80 us", LS_U_FREQ, &v, &why), LS_EUNIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "frequency"));
  CU_ASSERT_EQUAL(ls_units_parse("3 W", LS_U_RATIO, &v, &why), LS_EUNIT);
  /* Unknown unit, no number, junk. */
  CU_ASSERT_EQUAL(ls_units_parse("4 furlongs", LS_U_TIME, &v, &why), LS_EUNIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "unknown unit"));
  CU_ASSERT_EQUAL(ls_units_parse("GB/s", LS_U_BANDWIDTH, &v, &why), LS_EUNIT);
  CU_ASSERT_EQUAL(ls_units_parse("", LS_U_TIME, &v, &why), LS_EUNIT);
  CU_ASSERT_EQUAL(ls_units_parse("inf s", LS_U_TIME, &v, &why), LS_EUNIT);
  CU_ASSERT_EQUAL(ls_units_parse("4 gb/s", LS_U_BANDWIDTH, &v, &why), LS_EUNIT); /* case matters */
  CU_ASSERT_EQUAL(v, 123);
}

static void test_format_round_trip(void)
{
  static const case_t C[] = {
      {NULL, LS_U_BYTES, 117.0 * 1048576}, {NULL, LS_U_BANDWIDTH, 4.2e9}, {NULL, LS_U_TIME, 80e-6},
      {NULL, LS_U_TIME, 3.0}, {NULL, LS_U_FREQ, 3.3e9}, {NULL, LS_U_POWER, 0.75},
      {NULL, LS_U_ENERGY, 2.5e-6}, {NULL, LS_U_ENERGY_PER_BYTE, 3e-11},
      {NULL, LS_U_COMPUTE, 4.5e13}, {NULL, LS_U_RATE, 250.0}, {NULL, LS_U_RATIO, 0.125},
      {NULL, LS_U_TIME, 1e-10}, /* below the smallest unit: still readable and parseable */
  };
  for (unsigned i = 0; i < sizeof C / sizeof C[0]; i++) {
    char buf[64];
    ls_units_format(C[i].si, C[i].kind, buf, sizeof buf);
    double v = 0;
    const char *why = NULL;
    int rc = ls_units_parse(buf, C[i].kind, &v, &why);
    CU_ASSERT_EQUAL(rc, LS_OK);
    if (rc == LS_OK) {
      LS_ASSERT_CLOSE(v, C[i].si, 5e-6); /* %.6g: half a unit in the 6th digit */
    } else {
      printf("\n    '%s' does not parse back: %s\n", buf, why);
    }
  }
  char buf[64];
  CU_ASSERT_STRING_EQUAL(ls_units_format(4.2e9, LS_U_BANDWIDTH, buf, sizeof buf), "4.2 GB/s");
  CU_ASSERT_STRING_EQUAL(ls_units_format(80e-6, LS_U_TIME, buf, sizeof buf), "80 us");
  CU_ASSERT_STRING_EQUAL(ls_units_kind_name(LS_U_BANDWIDTH), "bandwidth");
}

/* Regression (found while fuzzing): a finite number times its unit factor could overflow to
 * infinity and be accepted as a parsed value. */
static void test_overflow(void)
{
  double v = 123;
  const char *why = NULL;
  CU_ASSERT_EQUAL(ls_units_parse("1e308 TB", LS_U_BYTES, &v, &why), LS_EUNIT);
  CU_ASSERT_PTR_NOT_NULL(why);
  if (why)
    CU_ASSERT_STRING_EQUAL(why, "value too large");
  CU_ASSERT_EQUAL(ls_units_parse("1.7e308 TFLOP/s", LS_U_COMPUTE, &v, &why), LS_EUNIT);
  CU_ASSERT_EQUAL(v, 123);
  CU_ASSERT_EQUAL(ls_units_parse("1e296 TB", LS_U_BYTES, &v, &why), LS_OK); /* still finite */
  LS_ASSERT_CLOSE(v, 1e308, 1e-12);
}

/* Regression: strtod accepts hexadecimal floats ("0x1p3" = 8), inf and nan, so a profile
 * could say "0x1p3 GB/s" where the format says decimal. Only decimal numbers are read now. */
static void test_decimal_only(void)
{
  static const struct { const char *text; int ok; double v; const char *rest; } C[] = {
      {"4.2", 1, 4.2, ""}, {"-0.5e3 GB", 1, -500, " GB"}, {".5", 1, 0.5, ""}, {"5.", 1, 5, ""},
      {"+2", 1, 2, ""}, {"1e", 1, 1, "e"}, {"7E+2x", 1, 700, "x"},
      {"0x1p3", 0, 0, NULL}, {"-0X10", 0, 0, NULL}, {"inf", 0, 0, NULL}, {"nan", 0, 0, NULL},
      {" 1", 0, 0, NULL}, {".", 0, 0, NULL}, {"", 0, 0, NULL}, {"1e999", 0, 0, NULL},
  };
  for (size_t i = 0; i < sizeof C / sizeof C[0]; i++) {
    double v = -1;
    const char *end = NULL, *why = NULL;
    int rc = ls_units_decimal(C[i].text, &v, &end, &why);
    CU_ASSERT_EQUAL(rc, C[i].ok ? LS_OK : LS_EPARSE);
    if (C[i].ok && rc == LS_OK) {
      CU_ASSERT_DOUBLE_EQUAL(v, C[i].v, 1e-12);
      CU_ASSERT_STRING_EQUAL(end, C[i].rest);
    }
  }
  double v;
  const char *why;
  CU_ASSERT_EQUAL(ls_units_parse("0x1p3 GB/s", LS_U_BANDWIDTH, &v, &why), LS_EUNIT);
  CU_ASSERT_PTR_NOT_NULL(strstr(why, "hexadecimal"));
  CU_ASSERT_EQUAL(ls_units_parse("0x10", LS_U_RATIO, &v, &why), LS_EUNIT);
  CU_ASSERT_EQUAL(ls_units_parse("8 GB/s", LS_U_BANDWIDTH, &v, &why), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 8e9, 1e-3);
}

/* Ranges are printed in the key's own unit: 1e12 B/s is "1 TB/s", not "1e+12". */
static void test_range_units(void)
{
  char a[64], b[64];
  CU_ASSERT_STRING_EQUAL(ls_units_format(1e6, LS_U_BANDWIDTH, a, sizeof a), "1 MB/s");
  CU_ASSERT_STRING_EQUAL(ls_units_format(1e12, LS_U_BANDWIDTH, b, sizeof b), "1 TB/s");
  double v;
  const char *why;
  CU_ASSERT_EQUAL(ls_units_parse("2 TB/s", LS_U_BANDWIDTH, &v, &why), LS_OK);
  CU_ASSERT_DOUBLE_EQUAL(v, 2e12, 1);
}

CU_TestInfo ls_t_units[] = {
    {"overflow to infinity is refused (fuzz regression)", test_overflow},
    {"each kind parses", test_each_kind},
    {"bare number, wrong kind, unknown unit -> LS_EUNIT", test_bad},
    {"format round trip", test_format_round_trip},
    {"decimal numbers only: no hex, inf, nan", test_decimal_only},
    {"ranges in the key's unit (TB/s)", test_range_units},
    CU_TEST_INFO_NULL,
};
