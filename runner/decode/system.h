/* runner/system: the named systems compared in the paper, in one table (docs/ARCHITECTURE.md, "Module boundaries").
 *
 * A system bundles a draft, a prune and a map policy (chosen from policies/registry.c by
 * name) with execution settings. Every Lever ablation switches exactly one of Lever's three
 * parts back to what conventional tree SD (`specinfer`) uses. One more, llama-spec, is not the
 * paper's: the testbed's llama.cpp runtime, for `leversim run` on a host profile. */
#ifndef LS_RUNNER_SYSTEM_H
#define LS_RUNNER_SYSTEM_H

typedef struct ls_system {
  const char *name;
  const char *draft;    /* policies/registry.c names */
  const char *prune;
  const char *map;
  int target_in_dram;   /* 1: the whole target is resident (ar-mem); valid only if it fits */
  const char *summary;
  /* 1: a host system (llama-spec): a llama.cpp-style runtime on the CPU a profile's host
   * section describes, priced by the decode library's CPU replay (runner/decode/cycle_host.c);
   * its draft, prune and map names are unused. Not one of the paper's systems: experiments
   * refuse it (runner/study/experiment.c), `leversim run` runs it. */
  int host;
} ls_system;

/* The system called name, or NULL. */
const ls_system *ls_system_find(const char *name);
/* All systems, NULL-name terminated (borrowed, static). */
const ls_system *ls_system_all(void);
/* Comma-separated list of valid names into buf (for messages); returns buf. */
const char *ls_system_names(char *buf, unsigned size);
/* The system name nearest to name by edit distance (a likely typo), or NULL. Borrowed. */
const char *ls_system_nearest(const char *name);

#endif
