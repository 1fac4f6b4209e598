/* tests/workloads: the CUnit runner for workloads/ (models, datasets, oracle, traces). */
#include "ls_test.h"

static CU_TestInfo none[] = {CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {
    {"models", NULL, NULL, NULL, NULL, none},   {"datasets", NULL, NULL, NULL, NULL, none},
    {"oracle", NULL, NULL, NULL, NULL, none},   {"traces", NULL, NULL, NULL, NULL, none},
    {"cli", NULL, NULL, NULL, NULL, none},      CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
