/* workloads/model: transformer architectures (workloads/models/<id>.yaml) and what they cost.
 *
 * A model file gives the architecture from the official config (layers, hidden size, FFN
 * size, attention heads, KV heads, head dim, vocabulary, tied embeddings), its family
 * ("llama3", "qwen3"), whether it is a target or a draft, the draft a target pairs with by
 * default (data, not code) and its default quantisation. ls_model_costs derives, for one
 * quantisation, the bytes and FLOPs the device models charge: per transformer layer, the LM
 * head, the embedding and the KV cache. Quantisations: q4_0 (4.5 bits/weight), w4a16
 * (4 bits + per-group fp16 scales, 4.25 bits/weight), q8_0 (8.5), fp16 (16), with the output
 * projection per tensor class (q6_k beside q4_0 layers, as llama.cpp writes it). Norm
 * weights are kept at fp16 in every format. All sizes are bytes (not MiB). */
#ifndef LS_WORKLOADS_MODEL_H
#define LS_WORKLOADS_MODEL_H
#include "sim/error.h"

typedef struct ls_model ls_model;

/* Loads one model file; errors name file:line:col. *out owned by caller (ls_model_free). */
int ls_model_load(ls_model **out, const char *path, ls_error *err);
/* Loads data_root/workloads/models/<id>.yaml; an unknown id gives LS_ENOTFOUND listing the
 * valid ids. *out owned by caller. */
int ls_model_load_id(ls_model **out, const char *data_root, const char *id, ls_error *err);
/* A model file (spec ends in .yaml: ls_model_load) or an id (ls_model_load_id). */
int ls_model_load_any(ls_model **out, const char *data_root, const char *spec, ls_error *err);
/* Writes up to max ids (sorted) into ids; returns how many exist (may exceed max), or a
 * negative status when the folder cannot be read. */
int ls_model_list(const char *data_root, char (*ids)[64], int max);
void ls_model_free(ls_model *m);

const char *ls_model_id(const ls_model *m);            /* borrowed, e.g. "qwen3-8b" */
const char *ls_model_family(const ls_model *m);        /* borrowed: "llama3", "qwen3" */
int ls_model_is_target(const ls_model *m);             /* 1 target, 0 draft */
const char *ls_model_default_draft(const ls_model *m); /* borrowed; targets: draft id, drafts: NULL */
const char *ls_model_default_quant(const ls_model *m); /* borrowed, e.g. "q4_0" */

/* Architecture, as in the YAML. */
typedef struct ls_model_arch {
  int n_layers, hidden, ffn, n_heads, n_kv_heads, head_dim, vocab;
  int tied_embeddings; /* 1: LM head shares the embedding matrix */
} ls_model_arch;
void ls_model_arch_get(const ls_model *m, ls_model_arch *out);

typedef struct ls_model_costs {
  int n_layers, hidden, vocab;
  double layer_bytes;                  /* one transformer layer's weights at the quantisation */
  double layer_flops_per_token;        /* projections + MLP, 2 FLOPs/MAC, no attention over context */
  double attn_flops_per_token_per_ctx; /* QK^T + AV, one layer, per token per context position */
  double kv_bytes_per_token;           /* one layer, fp16 K and V */
  double lmhead_bytes, lmhead_flops_per_token, embed_bytes, total_bytes;
  /* lmhead_bytes is the LM head matrix even when tied (it is still read to project);
   * total_bytes = layers + final norm + embedding + (untied ? LM head : 0). */
} ls_model_costs;

/* Costs at quant (NULL = the model's default). Unknown quant -> LS_EINVALID listing the
 * valid ones. (Named _get: C forbids a function and a typedef both called ls_model_costs.) */
int ls_model_costs_get(const ls_model *m, const char *quant, ls_model_costs *out, ls_error *err);
/* As ls_model_costs_get with the output projection's format given too (NULL = the one that
 * goes with quant: q6_k for q4_0, else quant itself). */
int ls_model_costs_mixed(const ls_model *m, const char *quant, const char *out_quant, ls_model_costs *out,
                         ls_error *err);
/* Qwen3 targets: 1 when the model file says the paper runs it in thinking mode. */
int ls_model_default_thinking(const ls_model *m);
/* 1 for an EAGLE-3 draft head (one fused-feature decoder layer + its own LM head). */
int ls_model_is_eagle3(const ls_model *m);
/* Parameters implied by the architecture, and as declared in the file (params_b * 1e9);
 * the tests check they agree within 1 %. */
double ls_model_params(const ls_model *m);
double ls_model_params_declared(const ls_model *m);
/* Bits per weight of a quantisation name, or -1 when unknown. */
double ls_model_quant_bits(const char *quant);

#endif
