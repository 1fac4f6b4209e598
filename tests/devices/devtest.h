/* tests/devices: shared helpers and the suites' test tables. */
#ifndef LS_TESTS_DEVTEST_H
#define LS_TESTS_DEVTEST_H
#include <CUnit/CUnit.h>
#include "devices/device.h"

#define LS_DATA_ROOT LS_TEST_DIR "/.."
/* Loads a shipped profile (asserts on failure; returns NULL then). Owned by caller. */
ls_device *devtest_load(const char *id);

extern CU_TestInfo latency_tests[], flash_tests[], npu_tests[], cpu_tests[], power_tests[];
extern CU_TestInfo profiles_tests[], cli_tests[];
#endif
