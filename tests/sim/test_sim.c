/* tests/sim: the CUnit runner for sim/ (engine, resources, random streams, statistics,
 * errors, units, the YAML walker). */
#include <math.h>
#include <string.h>
#include "ls_test.h"
#include "sim/error.h"

static void test_status_table(void)
{
  CU_ASSERT_EQUAL(ls_status_exit(LS_OK), 0);
  CU_ASSERT_EQUAL(ls_status_exit(LS_EREGRESS), 2);
  CU_ASSERT_EQUAL(ls_status_exit(LS_EUSAGE), 64);
  ls_error e;
  ls_error_clear(&e);
  CU_ASSERT_EQUAL(ls_error_at(&e, LS_EUNIT, "a.yaml", 3, 7, "x: bad"), LS_EUNIT);
  char buf[256];
  CU_ASSERT_STRING_EQUAL(ls_error_format(&e, buf, sizeof buf), "a.yaml:3:7: x: bad");
}

static CU_TestInfo errors_tests[] = {{"status table and formatting", test_status_table}, CU_TEST_INFO_NULL};

static CU_SuiteInfo suites[] = {
    {"errors", NULL, NULL, NULL, NULL, errors_tests},
    CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
