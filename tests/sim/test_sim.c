/* tests/sim: the CUnit runner for sim/ (engine, resources, random streams, statistics,
 * errors, units, the YAML walker, settings) and 'leversim bench engine'. One suite per line
 * of tests/sim/SUITES; the tests of each suite live in test_<module>.c. */
#include <math.h>
#include <string.h>
#include "ls_test.h"
#include "sim/error.h"
#include "sim_suites.h"

static void test_status_table(void)
{
  CU_ASSERT_EQUAL(ls_status_exit(LS_OK), 0);
  CU_ASSERT_EQUAL(ls_status_exit(LS_EREGRESS), 2);
  CU_ASSERT_EQUAL(ls_status_exit(LS_EUSAGE), 64);
  CU_ASSERT_EQUAL(ls_status_exit(-999), 70);
  CU_ASSERT_STRING_EQUAL(ls_status_text(LS_EUNIT), "bad unit");
  ls_error e;
  ls_error_clear(&e);
  CU_ASSERT_EQUAL(ls_error_at(&e, LS_EUNIT, "a.yaml", 3, 7, "x: bad"), LS_EUNIT);
  char buf[256];
  CU_ASSERT_STRING_EQUAL(ls_error_format(&e, buf, sizeof buf), "a.yaml:3:7: x: bad");
  CU_ASSERT_EQUAL(ls_error_wrap(&e, "loading %s", "phone"), LS_EUNIT);
  CU_ASSERT_STRING_EQUAL(ls_error_format(&e, buf, sizeof buf), "a.yaml:3:7: loading phone: x: bad");
  ls_error_set(&e, LS_ESTATE, "no file");
  CU_ASSERT_STRING_EQUAL(ls_error_format(&e, buf, sizeof buf), "no file");
  ls_error_clear(&e);
  e.code = LS_ENOMEM;
  CU_ASSERT_STRING_EQUAL(ls_error_format(&e, buf, sizeof buf), "out of memory");
  CU_ASSERT_EQUAL(ls_error_set(NULL, LS_EIO, "ignored"), LS_EIO); /* NULL detail allowed */
}

static CU_TestInfo errors_tests[] = {{"status table and formatting", test_status_table}, CU_TEST_INFO_NULL};

static CU_SuiteInfo suites[] = {
    {"errors", NULL, NULL, NULL, NULL, errors_tests},
    {"engine", NULL, NULL, NULL, NULL, ls_t_engine},
    {"resource", NULL, NULL, NULL, NULL, ls_t_resource},
    {"mm1", NULL, NULL, NULL, NULL, ls_t_mm1},
    {"rng", NULL, NULL, NULL, NULL, ls_t_rng},
    {"stats", NULL, NULL, NULL, NULL, ls_t_stats},
    {"units", NULL, NULL, NULL, NULL, ls_t_units},
    {"yaml", NULL, NULL, NULL, NULL, ls_t_yaml},
    {"fileio", NULL, NULL, NULL, NULL, ls_t_fileio},
    {"kv", NULL, NULL, NULL, NULL, ls_t_kv},
    {"bench", NULL, NULL, NULL, NULL, ls_t_bench},
    {"boot", NULL, NULL, NULL, NULL, ls_t_boot},
    {"range", NULL, NULL, NULL, NULL, ls_t_range},
    CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
