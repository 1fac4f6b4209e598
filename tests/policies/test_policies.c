/* tests/policies: the CUnit runner for policies/ (tree, registry, the draft policies, pruning,
 * mapping, the cost model) and the `leversim tree` / `leversim bench policies` commands. One
 * suite per line of tests/policies/SUITES. */
#include "ls_test.h"
#include "ptest.h"

static CU_SuiteInfo suites[] = {
    {"tree", NULL, NULL, NULL, NULL, ls_t_tree},
    {"registry", NULL, NULL, NULL, NULL, ls_t_registry},
    {"chain", NULL, NULL, NULL, NULL, ls_t_chain},
    {"specinfer", NULL, NULL, NULL, NULL, ls_t_specinfer},
    {"sequoia", NULL, NULL, NULL, NULL, ls_t_sequoia},
    {"eagle2", NULL, NULL, NULL, NULL, ls_t_eagle2},
    {"opttree", NULL, NULL, NULL, NULL, ls_t_opttree},
    {"builders_same", NULL, NULL, NULL, NULL, ls_t_builders_same},
    {"lever", NULL, NULL, NULL, NULL, ls_t_lever},
    {"lever_same", NULL, NULL, NULL, NULL, ls_t_lever_same},
    {"prune", NULL, NULL, NULL, NULL, ls_t_prune},
    {"map", NULL, NULL, NULL, NULL, ls_t_map},
    {"costmodel", NULL, NULL, NULL, NULL, ls_t_costmodel},
    {"cli", NULL, NULL, NULL, NULL, ls_t_cli},
    {"bench", NULL, NULL, NULL, NULL, ls_t_bench},
    {"readme", NULL, NULL, NULL, NULL, ls_t_readme},
    {"plugin", NULL, NULL, NULL, NULL, ls_t_plugin},
    {"effective", NULL, NULL, NULL, NULL, ls_t_effective},
    CU_SUITE_INFO_NULL,
};

int main(int argc, char **argv) { return ls_test_main(argc, argv, suites); }
