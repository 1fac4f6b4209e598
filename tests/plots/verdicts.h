/* tests/plots: the suites of test_verdicts.c (the claims' verdicts, error bars, `tree`),
 * registered by test_plots.c's runner. */
#ifndef LS_TESTS_PLOTS_VERDICTS_H
#define LS_TESTS_PLOTS_VERDICTS_H
#include <CUnit/CUnit.h>

extern CU_TestInfo px_verdict_tests[], px_errorbar_tests[], px_tree_tests[];
int px_eb_init(void);  /* errorbars: a temporary folder */
int px_eb_clean(void);

#endif
