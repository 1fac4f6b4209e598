/* tests/sim/test_kv: --set key=value settings (sim/kv). */
#include <float.h>
#include <string.h>
#include "ls_test.h"
#include "sim/kv.h"
#include "sim_suites.h"

static ls_kv *make(const char *const *assign)
{
  ls_kv *kv = NULL;
  ls_error err;
  CU_ASSERT_EQUAL_FATAL(ls_kv_create(&kv, &err), LS_OK);
  for (int i = 0; assign[i]; i++)
    CU_ASSERT_EQUAL(ls_kv_assign(kv, assign[i], "--set", &err), LS_OK);
  return kv;
}

static void test_typed(void)
{
  static const char *const A[] = {"draft.budget=32", "flash.bw=4.2 GB/s", "draft.alpha=0.75",
                                  "map.kind=lever", "workload.p=0.6,0.2,0.1", "name=x=y", NULL};
  ls_kv *kv = make(A);
  ls_error err;
  ls_error_clear(&err);
  long budget = 0;
  CU_ASSERT_EQUAL(ls_kv_int(kv, "draft.budget", 1, 1024, 8, &budget, &err), LS_OK);
  CU_ASSERT_EQUAL(budget, 32);
  long dflt = 0;
  CU_ASSERT_EQUAL(ls_kv_int(kv, "draft.depth", 1, 64, 6, &dflt, &err), LS_OK); /* absent */
  CU_ASSERT_EQUAL(dflt, 6);
  double bw = 0, alpha = 0;
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "flash.bw", LS_U_BANDWIDTH, DBL_MIN, DBL_MAX, 1.0, &bw, &err), LS_OK);
  LS_ASSERT_CLOSE(bw, 4.2e9, 1e-12);
  CU_ASSERT_EQUAL(ls_kv_double(kv, "draft.alpha", 0, 1, 0.5, &alpha, &err), LS_OK);
  CU_ASSERT_EQUAL(alpha, 0.75);
  static const char *const kinds[] = {"npu", "cpu", "lever", NULL};
  int k = -1;
  CU_ASSERT_EQUAL(ls_kv_enum(kv, "map.kind", kinds, 0, &k, &err), LS_OK);
  CU_ASSERT_EQUAL(k, 2);
  double p[4] = {0};
  int n = -1;
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "workload.p", 0, 1, p, 4, &n, &err), LS_OK);
  CU_ASSERT_EQUAL(n, 3);
  CU_ASSERT_EQUAL(p[0], 0.6);
  CU_ASSERT_EQUAL(p[2], 0.1);
  int untouched = 99;
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "workload.q", 0, 1, p, 4, &untouched, &err), LS_OK);
  CU_ASSERT_EQUAL(untouched, 99);
  const char *s = NULL;
  CU_ASSERT_EQUAL(ls_kv_string(kv, "name", "none", &s), LS_OK);
  CU_ASSERT_STRING_EQUAL(s, "x=y"); /* split at the first '=' */
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "", &err), LS_OK);
  /* Keys stay sorted; setting a key again replaces its value. */
  CU_ASSERT_EQUAL(ls_kv_count(kv), 6);
  for (int i = 1; i < ls_kv_count(kv); i++)
    CU_ASSERT(strcmp(ls_kv_key(kv, i - 1), ls_kv_key(kv, i)) < 0);
  CU_ASSERT_EQUAL(ls_kv_set(kv, "draft.budget", "64", "paper.yaml:3:5", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_count(kv), 6);
  CU_ASSERT_STRING_EQUAL(ls_kv_find(kv, "draft.budget"), "64");
  CU_ASSERT_PTR_NULL(ls_kv_find(kv, "nope"));
  ls_kv_free(kv);
}

static void test_bad_values(void)
{
  static const char *const A[] = {"a.int=3.5", "a.big=2000", "a.unit=4.2", "a.kind=gpu",
                                  "a.list=0.6,,0.1", "a.long=1,2,3,4,5", "a.prob=1.5",
                                  "a.wrongunit=3 GHz", NULL};
  ls_kv *kv = make(A);
  ls_error err;
  ls_error_clear(&err);
  long l;
  double d, arr[4];
  int k, n;
  CU_ASSERT_EQUAL(ls_kv_int(kv, "a.int", 0, 10, 0, &l, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--set: a.int=3.5: expected an integer"));
  CU_ASSERT_EQUAL(ls_kv_int(kv, "a.big", 0, 1024, 0, &l, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "a.big=2000"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "[0, 1024]"));
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "a.unit", LS_U_TIME, 0, 1, 0, &d, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unit is required"));
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "a.wrongunit", LS_U_TIME, 0, 1, 0, &d, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "wrong kind"));
  static const char *const kinds[] = {"npu", "cpu", NULL};
  CU_ASSERT_EQUAL(ls_kv_enum(kv, "a.kind", kinds, 0, &k, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "npu, cpu"));
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "a.list", 0, 1, arr, 4, &n, &err), LS_EUSAGE);
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "a.long", 0, 10, arr, 4, &n, &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "too many"));
  CU_ASSERT_EQUAL(ls_kv_double(kv, "a.prob", 0, 1, 0, &d, &err), LS_EUSAGE);
  /* The exit-code rule: every bad value above was typed with --set, so each is a usage error
   * (64); the same values read from a file are bad input data (65), with the precise code. */
  static const struct { const char *key, *value; int code; } F[] = {
      {"a.int", "3.5", LS_ESCHEMA}, {"a.big", "2000", LS_ERANGE}, {"a.unit", "4.2", LS_EUNIT},
      {"a.kind", "gpu", LS_ESCHEMA}, {"a.prob", "1.5", LS_ERANGE}};
  for (size_t i = 0; i < sizeof F / sizeof F[0]; i++)
    CU_ASSERT_EQUAL(ls_kv_set(kv, F[i].key, F[i].value, "exp.yaml:4:7", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_int(kv, "a.int", 0, 10, 0, &l, &err), LS_ESCHEMA);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "exp.yaml:4:7: a.int=3.5"));
  CU_ASSERT_EQUAL(ls_kv_int(kv, "a.big", 0, 1024, 0, &l, &err), LS_ERANGE);
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "a.unit", LS_U_TIME, 0, 1, 0, &d, &err), LS_EUNIT);
  CU_ASSERT_EQUAL(ls_kv_enum(kv, "a.kind", kinds, 0, &k, &err), LS_ESCHEMA);
  CU_ASSERT_EQUAL(ls_kv_double(kv, "a.prob", 0, 1, 0, &d, &err), LS_ERANGE);
  /* decimal numbers only: strtod would read these as 0.25, infinity and 16 */
  const char *nondecimal[] = {"0x1p-2", "inf", "0x10"};
  for (int i = 0; i < 3; i++) {
    CU_ASSERT_EQUAL(ls_kv_set(kv, "a.hex", nondecimal[i], "exp.yaml:5:7", &err), LS_OK);
    CU_ASSERT_EQUAL(ls_kv_double(kv, "a.hex", 0, 1e9, 0, &d, &err), LS_ESCHEMA);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "expected a number"));
  }
  CU_ASSERT_EQUAL(ls_status_exit(LS_ERANGE), 65);
  CU_ASSERT_EQUAL(ls_status_exit(LS_EUSAGE), 64);
  /* assignments without '=' or with an empty name */
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "novalue", "--set", &err), LS_EUSAGE);
  CU_ASSERT_EQUAL(ls_kv_assign(kv, "=3", "--set", &err), LS_EUSAGE);
  ls_kv_free(kv);
}

static void test_check_used(void)
{
  static const char *const A[] = {"draft.budget=32", "draft.budgte=16", "prune.kind=none", NULL};
  ls_kv *kv = make(A);
  ls_error err;
  ls_error_clear(&err);
  long b;
  CU_ASSERT_EQUAL(ls_kv_int(kv, "draft.budget", 1, 1024, 8, &b, &err), LS_OK);
  /* the misspelt key is reported, naming the known ones of its prefix */
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "draft.", &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "draft.budgte=16"));
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown setting (did you mean draft.budget?)"));
  /* prefixes select: "prune." is unused too, "map." has nothing */
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "map.", &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "prune.", &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(ls_kv_find(kv, "prune.kind"));
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "prune.", &err), LS_OK);
  /* a copy forgets which keys were used */
  ls_kv *copy = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_kv_copy(&copy, kv, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_count(copy), 3);
  CU_ASSERT_EQUAL(ls_kv_check_used(copy, "prune.", &err), LS_EUSAGE);
  ls_kv_free(copy);
  ls_kv_free(kv);
}

/* Every getter declares its key: type, range, unit, default and the value used; the
 * suggestion comes from the declared keys, never from the user's own. */
static void test_declarations(void)
{
  static const char *const A[] = {"b.int=7", "c.bw=2 GB/s", "z.tpyo=1", NULL};
  static const char *const K[] = {"npu", "cpu", NULL};
  ls_kv *kv = make(A);
  ls_error err;
  ls_error_clear(&err);
  long l;
  double d, list[3] = {0.5, 0.25};
  int n = 2, e;
  const char *t;
  ls_kv_reader(kv, "test reader");
  CU_ASSERT_EQUAL(ls_kv_int(kv, "b.int", 1, 10, 4, &l, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "c.bw", LS_U_BANDWIDTH, 1e6, 1e12, 1e9, &d, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_double(kv, "a.num", 0.0, 1.0, 0.5, &d, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_enum(kv, "d.kind", K, 1, &e, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_string(kv, "e.text", NULL, &t), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "f.list", 0.0, 1.0, list, 3, &n, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_int(kv, "b.int", 1, 10, 99, &l, &err), LS_OK); /* read twice: one record */
  CU_ASSERT_EQUAL_FATAL(ls_kv_decl_count(kv), 6);
  const ls_kv_decl *b = ls_kv_decl_at(kv, 0), *c = ls_kv_decl_at(kv, 1), *a = ls_kv_decl_at(kv, 2);
  CU_ASSERT_STRING_EQUAL(b->key, "b.int");
  CU_ASSERT_EQUAL(b->type, LS_KV_INT);
  CU_ASSERT_STRING_EQUAL(b->dflt, "4");
  CU_ASSERT_STRING_EQUAL(b->value, "7");
  CU_ASSERT_DOUBLE_EQUAL(b->num, 7.0, 0.0);
  CU_ASSERT_EQUAL(b->is_default, 0);
  CU_ASSERT_STRING_EQUAL(b->origin, "--set");
  CU_ASSERT_STRING_EQUAL(b->reader, "test reader");
  CU_ASSERT_EQUAL(c->type, LS_KV_QUANTITY);
  CU_ASSERT_DOUBLE_EQUAL(c->num, 2e9, 0.0);
  CU_ASSERT_STRING_EQUAL(c->value, "2 GB/s");
  char range[120];
  CU_ASSERT_STRING_EQUAL(ls_kv_decl_range(c, range, sizeof range), "[1 MB/s, 1 TB/s]");
  CU_ASSERT_EQUAL(a->is_default, 1);
  CU_ASSERT_STRING_EQUAL(a->value, "0.5");
  CU_ASSERT_STRING_EQUAL(a->origin, "");
  CU_ASSERT_STRING_EQUAL(ls_kv_decl_at(kv, 3)->choices, "npu|cpu");
  CU_ASSERT_STRING_EQUAL(ls_kv_decl_at(kv, 3)->value, "cpu");
  CU_ASSERT_STRING_EQUAL(ls_kv_decl_at(kv, 4)->value, "");
  CU_ASSERT_STRING_EQUAL(ls_kv_decl_at(kv, 5)->dflt, "0.5,0.25");
  /* the unused key is matched against declared keys only */
  CU_ASSERT_EQUAL(ls_kv_check_used(kv, "", &err), LS_EUSAGE);
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "z.tpyo=1: unknown setting (see 'leversim settings'"));
  CU_ASSERT_EQUAL(ls_kv_distance("draft.budgte", "draft.budget"), 2);
  CU_ASSERT_EQUAL(ls_kv_distance("", "abc"), 3);
  CU_ASSERT_EQUAL(ls_kv_distance("kitten", "sitting"), 3);
  /* a range error prints the range in the key's own unit */
  static const char *const B[] = {"c.bw=0.1 MB/s", NULL};
  ls_kv *kv2 = make(B);
  CU_ASSERT_EQUAL(ls_kv_unit(kv2, "c.bw", LS_U_BANDWIDTH, 1e6, 1e12, 1e9, &d, &err), LS_EUSAGE); /* --set */
  CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "must be in [1 MB/s, 1 TB/s]"));
  ls_kv_free(kv2);
  ls_kv_free(kv);
}

/* The read log lists each key once, in first-asked order, with the reader's default and range. */
static void test_read_log(void)
{
  static const char *const A[] = {"draft.budget=32", NULL};
  ls_kv *kv = make(A);
  ls_error err;
  ls_error_clear(&err);
  long l;
  double d, list[4] = {1, 3, 0.5};
  int n = 3, k;
  static const char *const kinds[] = {"npu", "cpu", NULL};
  const char *s;
  CU_ASSERT_EQUAL(ls_kv_int(kv, "draft.budget", 1, 512, 64, &l, &err), LS_OK); /* set: still logged */
  CU_ASSERT_EQUAL(ls_kv_double(kv, "draft.ratio", 0, 1, 0.25, &d, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_unit(kv, "flash.bw", LS_U_BANDWIDTH, DBL_MIN, 1e12, 2.1e9, &d, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_enum(kv, "map.kind", kinds, 1, &k, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_doubles(kv, "draft.widths", 1, 8, list, 4, &n, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_string(kv, "policy.map", "lever", &s), LS_OK);
  CU_ASSERT_PTR_NULL(ls_kv_find(kv, "workload.trace"));
  CU_ASSERT_EQUAL(ls_kv_int(kv, "draft.budget", 1, 8, 4, &l, &err), LS_EUSAGE); /* again: not re-logged (out of range; --set: usage) */
  static const char *const want[][3] = {
      {"draft.budget", "64", "[1, 512]"},     {"draft.ratio", "0.25", "[0, 1]"},
      {"flash.bw", "2100000000", "> 0, <= 1000000000000"}, {"map.kind", "cpu", "npu, cpu"},
      {"draft.widths", "1,3,0.5", "up to 4 of [1, 8]"}, {"policy.map", "lever", ""},
      {"workload.trace", "", ""}};
  int nw = (int)(sizeof want / sizeof want[0]);
  CU_ASSERT_EQUAL_FATAL(ls_kv_read_count(kv), nw);
  for (int i = 0; i < nw; i++) {
    CU_ASSERT_STRING_EQUAL(ls_kv_read_key(kv, i), want[i][0]);
    CU_ASSERT_STRING_EQUAL(ls_kv_read_default(kv, i), want[i][1]);
    CU_ASSERT_STRING_EQUAL(ls_kv_read_accepts(kv, i), want[i][2]);
  }
  ls_kv *copy = NULL;
  CU_ASSERT_EQUAL_FATAL(ls_kv_copy(&copy, kv, &err), LS_OK);
  CU_ASSERT_EQUAL(ls_kv_read_count(copy), 0);
  ls_kv_free(copy);
  ls_kv_free(kv);
}

CU_TestInfo ls_t_kv[] = {
    {"declarations: type, range, default, value; suggestions from declared keys", test_declarations},
    {"typed getters, defaults, lists, sorted keys", test_typed},
    {"bad values and ranges name key and value", test_bad_values},
    {"unknown settings via ls_kv_check_used", test_check_used},
    {"read log: keys, defaults, ranges", test_read_log},
    CU_TEST_INFO_NULL,
};
