/* runner/system: see system.h. The conventional execution the baselines use and the
 * ablations fall back to: no pruning, everything on the NPU, one batched draft forward per
 * depth level over all nodes of that level (map npu-batch: how the baselines' own papers and
 * a conventional port draft a tree level by level), and an eager output projection in the NPU
 * graph. Single-node NPU drafting (map npu) remains for Fig. 13's comparison. */
#include "runner/decode/system.h"
#include <stdio.h>
#include <string.h>
#include "sim/kv.h"

static const ls_system SYSTEMS[] = {
    {"ar-mem", "ar", "none", "npu", 1, "autoregressive, whole target resident in DRAM (reference)", 0},
    {"ar-flash", "ar", "none", "npu", 0, "autoregressive, target streamed from flash (paper baseline)", 0},
    {"sd-chain", "chain", "none", "npu-batch", 0, "chain speculative decoding", 0},
    {"specinfer", "specinfer", "none", "npu-batch", 0, "conventional tree SD: SpecInfer tree, NPU only, eager LM head", 0},
    {"sequoia", "sequoia", "none", "npu-batch", 0, "Sequoia tree, conventional execution", 0},
    {"eagle2", "eagle2", "none", "npu-batch", 0, "EAGLE-2 dynamic tree, conventional execution", 0},
    {"opt-tree", "opt-tree", "none", "npu-batch", 0, "OPT-Tree adaptive tree, conventional execution", 0},
    {"lever", "lever", "early-exit", "lever", 0, "Lever: gain/cost tree + early-exit pruning + CPU/NPU mapping", 0},
    {"lever-conv-draft", "specinfer", "early-exit", "lever", 0, "Lever with SpecInfer drafting (ablation)", 0},
    {"lever-no-prune", "lever", "none", "lever", 0, "Lever without early-exit pruning (ablation)", 0},
    {"lever-npu-map", "lever", "early-exit", "npu-batch", 0, "Lever with conventional all-NPU mapping: batched NPU draft steps, eager LM head (ablation)", 0},
    {"lever-draft-only", "lever", "none", "npu-batch", 0, "Lever's drafting alone, conventional execution (Fig. 11)", 0},
    {"llama-spec", "chain", "none", "cpu", 0, "llama.cpp's speculative run on a host profile's CPU (testbed validate's spec prediction; not the paper's)", 1},
    {NULL, NULL, NULL, NULL, 0, NULL, 0},
};

const ls_system *ls_system_find(const char *name)
{
  for (const ls_system *s = SYSTEMS; s->name; s++)
    if (strcmp(s->name, name) == 0)
      return s;
  return NULL;
}

const ls_system *ls_system_all(void) { return SYSTEMS; }

const char *ls_system_names(char *buf, unsigned size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (const ls_system *s = SYSTEMS; s->name && len + 2 < size; s++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", s->name);
  return buf;
}

const char *ls_system_nearest(const char *name)
{
  const char *best = NULL;
  int bd = (int)strlen(name) / 3 + 1;
  for (const ls_system *s = SYSTEMS; s->name; s++) {
    int d = ls_kv_distance(name, s->name);
    if (d < bd) {
      bd = d;
      best = s->name;
    }
  }
  return best;
}
