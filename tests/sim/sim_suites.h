/* tests/sim: the test lists of each suite of the sim/ runner (one file per module). */
#ifndef LS_TEST_SIM_SUITES_H
#define LS_TEST_SIM_SUITES_H
#include <CUnit/CUnit.h>

extern CU_TestInfo ls_t_engine[];   /* test_engine.c */
extern CU_TestInfo ls_t_resource[]; /* test_resource.c */
extern CU_TestInfo ls_t_mm1[];      /* test_resource.c */
extern CU_TestInfo ls_t_rng[];      /* test_rng.c */
extern CU_TestInfo ls_t_stats[];    /* test_stats.c */
extern CU_TestInfo ls_t_units[];    /* test_units.c */
extern CU_TestInfo ls_t_yaml[];     /* test_yaml.c */
extern CU_TestInfo ls_t_fileio[];   /* test_fileio.c */
extern CU_TestInfo ls_t_kv[];       /* test_kv.c */
extern CU_TestInfo ls_t_bench[];    /* test_engine.c */
extern CU_TestInfo ls_t_boot[];     /* test_boot.c */
extern CU_TestInfo ls_t_range[];    /* test_range.c */

#endif
