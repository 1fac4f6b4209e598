/* workloads/model: architecture files and derived costs.
 *
 * Equations (per transformer layer; H hidden, F FFN, nh heads, nkv KV heads, d head dim,
 * V vocabulary, b bits per weight of the quantisation):
 *   attention weights  W_att = H*(nh*d) [q] + 2*H*(nkv*d) [k, v] + (nh*d)*H [o]
 *   MLP weights        W_mlp = 3*H*F           (SwiGLU: gate, up, down)
 *   layer bytes        (W_att + W_mlp) * b/8 + norms*2   (norms fp16: 2 RMSNorm of H, plus
 *                      Qwen3's per-head q/k norms of d each)
 *   layer FLOPs/token  2 * (W_att + W_mlp)     (2 FLOPs per multiply-accumulate)
 *   attention FLOPs    4 * nh * d per token per context position (QK^T and AV)
 *   KV bytes/token     2 * nkv * d * 2         (K and V in fp16, one layer)
 *   LM head            V*H weights, 2*V*H FLOPs/token; embedding V*H weights
 *   total bytes        L*layer + final norm + embedding + (tied ? 0 : LM head)
 * EAGLE-3 draft heads (kind: eagle3; src:eagle3-paper, src:eagle3-code) are one decoder
 * layer whose q/k/v read the concatenation of the token embedding and the fused feature
 * (attention input a*H, a = attn_input = 2), plus the fusion FC of f = fused target hidden
 * states (f*H -> H, f = 3), plus their own LM head over the draft vocabulary V_d:
 *   W_att = a*H*(nh*d) + 2*a*H*(nkv*d) + (nh*d)*H,  W_fuse = f*H*H,  W_mlp = 3*H*F
 *   layer = W_att + W_fuse + W_mlp; LM head V_d*H; no embedding (shared with the target).
 *   The FC is charged with the layer on every draft call (simplification: a real head applies
 *   it to target features at the first step only; it is ~12 % of the layer's bytes).
 * Quantisation per tensor class: the layers take the run's quantisation; the output
 * projection (and the embedding when tied to it) takes the output quantisation, which for
 * q4_0 is q6_k as llama.cpp writes it unless asked for a pure file (src:llamacpp-quant); for
 * q4_0-pure, w4a16, q8_0 and fp16 it is the same as the layers. An untied embedding takes the
 * layers' format. Bits per weight: q4_0 4.5 (4-bit + fp16 scale per 32, ggml), q6_k 6.5625
 * (ggml k-quant: 210 bytes per 256 weights), q8_0 8.5 (ggml), w4a16 4.25 (assumed: 4-bit
 * weights + fp16 scale per group of 64, as in QNN block quantisation), fp16 16.
 * Simplifications: no biases (none of these models has any), softmax/RoPE/norm FLOPs are
 * ignored (< 0.1 % of the matmuls). Sizes are checked against the model configs
 * (src:hf-model-configs) and the EAGLE-3 head sizes (src:eagle3-code, src:angelslim-bench)
 * in tests/workloads. */
#include "workloads/model.h"
#include <stdlib.h>
#include <string.h>
#include "sim/range.h"
#include "sim/yaml.h"
#include "workloads/workloads_int.h"

struct ls_model {
  char id[64];
  char family[32];
  char draft[64];
  char draft_file[LS_ERR_FILE]; /* where default_draft is written, for messages */
  int draft_line, draft_col;
  char quant[16];
  int is_target;
  int is_eagle3;   /* an EAGLE-3 draft head (see the top comment) */
  int thinking;    /* Qwen3 targets: the prompt mode the paper runs by default */
  int attn_input;  /* EAGLE-3: attention input width in units of H */
  int fused;       /* EAGLE-3: target hidden states fused by the FC */
  int qk_norm; /* Qwen3: RMSNorm on each head's q and k */
  double params_b;
  ls_model_arch a;
};

typedef struct quant_info {
  const char *name;
  double bits;
} quant_info;

static const quant_info QUANTS[] = {
    {"q4_0", 4.5}, {"q4_0-pure", 4.5}, {"q6_k", 6.5625}, {"w4a16", 4.25}, {"q8_0", 8.5}, {"fp16", 16.0},
};
static const char *const QUANT_NAMES[] = {"q4_0", "q4_0-pure", "q6_k", "w4a16", "q8_0", "fp16", NULL};
static const char *const KINDS[] = {"dense", "eagle3", NULL};
static const char *const FAMILIES[] = {"llama3", "qwen3", NULL};
static const char *const ROLES[] = {"draft", "target", NULL};

double ls_model_quant_bits(const char *quant)
{
  for (size_t i = 0; i < sizeof QUANTS / sizeof QUANTS[0]; i++)
    if (quant && strcmp(quant, QUANTS[i].name) == 0)
      return QUANTS[i].bits;
  return -1.0;
}

static int read_int(const ls_ynode *m, const char *key, ls_range_id id, int *out, ls_error *err)
{
  double v = 0;
  int rc = ls_range_yreq(m, key, id, &v, err);
  *out = (int)v;
  return rc;
}

static int read_arch(const ls_ynode *root, ls_model *m, ls_error *err)
{
  ls_ynode a;
  int rc = ls_ymap_require(root, "arch", &a, err);
  if (!rc) rc = ls_ynode_expect(&a, LS_Y_MAP, err);
  if (!rc) rc = read_int(&a, "n_layers", LS_R_LAYERS, &m->a.n_layers, err);
  if (!rc) rc = read_int(&a, "hidden", LS_R_HIDDEN, &m->a.hidden, err);
  if (!rc) rc = read_int(&a, "ffn", LS_R_FFN, &m->a.ffn, err);
  if (!rc) rc = read_int(&a, "n_heads", LS_R_HEADS, &m->a.n_heads, err);
  if (!rc) rc = read_int(&a, "n_kv_heads", LS_R_HEADS, &m->a.n_kv_heads, err);
  if (!rc) rc = read_int(&a, "head_dim", LS_R_HEADS, &m->a.head_dim, err);
  if (!rc) rc = read_int(&a, "vocab", LS_R_VOCAB, &m->a.vocab, err);
  if (!rc) rc = ls_yopt_bool(&a, "tied_embeddings", 0, &m->a.tied_embeddings, err);
  if (!rc) rc = ls_yopt_bool(&a, "qk_norm", 0, &m->qk_norm, err);
  double ai = 1, fu = 0;
  if (!rc && m->is_eagle3) rc = ls_range_yreq(&a, "attn_input", LS_R_EAGLE_INPUT, &ai, err);
  if (!rc && m->is_eagle3) rc = ls_range_yreq(&a, "fused_features", LS_R_EAGLE_FEATURES, &fu, err);
  m->attn_input = (int)ai;
  m->fused = (int)fu;
  if (!rc && m->a.n_heads % m->a.n_kv_heads != 0)
    rc = ls_ynode_error(&a, err, LS_EINVALID, "n_heads (%d) must be a multiple of n_kv_heads (%d)",
                        m->a.n_heads, m->a.n_kv_heads);
  if (!rc) rc = ls_ymap_finish(&a, err);
  return rc;
}

static int copy_str(const ls_ynode *root, const char *key, int required, char *dst, size_t size,
                    ls_error *err)
{
  const char *s = NULL;
  int rc = required ? ls_yreq_string(root, key, &s, err) : ls_yopt_string(root, key, "", &s, err);
  if (rc)
    return rc;
  if (strlen(s) >= size) {
    ls_ynode n;
    ls_ymap_find(root, key, &n);
    return ls_ynode_error(&n, err, LS_ERANGE, "'%s' is too long (max %zu characters)", s, size - 1);
  }
  memcpy(dst, s, strlen(s) + 1);
  return LS_OK;
}

static int read_model(ls_ydoc *doc, ls_model *m, ls_error *err)
{
  ls_ynode root = ls_ydoc_root(doc), n;
  int rc = ls_ynode_expect(&root, LS_Y_MAP, err);
  int fam = 0, role = 0, q = 0, kind = 0;
  if (!rc) rc = copy_str(&root, "id", 1, m->id, sizeof m->id, err);
  if (!rc) rc = ls_yreq_enum(&root, "family", FAMILIES, &fam, err);
  if (!rc) rc = ls_yreq_enum(&root, "role", ROLES, &role, err);
  if (!rc) rc = ls_yopt_enum(&root, "kind", KINDS, 0, &kind, err);
  m->is_eagle3 = kind == 1;
  if (!rc && m->is_eagle3 && role != 0) {
    ls_ymap_find(&root, "kind", &n);
    rc = ls_ynode_error(&n, err, LS_ESCHEMA, "an eagle3 head is a draft (role: draft)");
  }
  if (!rc) rc = copy_str(&root, "default_draft", 0, m->draft, sizeof m->draft, err);
  if (!rc) rc = ls_yreq_enum(&root, "default_quant", QUANT_NAMES, &q, err);
  if (!rc) rc = ls_yopt_bool(&root, "default_thinking", 0, &m->thinking, err);
  if (!rc) rc = ls_range_yreq(&root, "params_b", LS_R_PARAMS_B, &m->params_b, err);
  if (!rc) rc = read_arch(&root, m, err);
  if (rc)
    return rc;
  snprintf(m->family, sizeof m->family, "%s", FAMILIES[fam]);
  snprintf(m->quant, sizeof m->quant, "%s", QUANT_NAMES[q]);
  m->is_target = role == 1;
  if (!m->is_eagle3)
    m->attn_input = 1;
  if (m->is_target && m->draft[0] == '\0')
    return ls_ynode_error(&root, err, LS_ESCHEMA, "a target needs default_draft");
  if (m->is_target) {
    ls_ymap_find(&root, "default_draft", &n);
    snprintf(m->draft_file, sizeof m->draft_file, "%s", ls_ydoc_name(root.doc));
    m->draft_line = ls_ynode_line(&n);
    m->draft_col = ls_ynode_col(&n);
    if (strcmp(m->draft, m->id) == 0)
      return ls_ynode_error(&n, err, LS_ESCHEMA, "'%s': a target cannot draft for itself", m->draft);
  }
  if (!m->is_target && m->draft[0] != '\0') {
    ls_ymap_find(&root, "default_draft", &n);
    return ls_ynode_error(&n, err, LS_ESCHEMA, "a draft model has no default_draft");
  }
  return ls_ymap_finish(&root, err);
}

/* read_model for ls_wl_load, which knows the object only as memory. */
static int read_model_obj(ls_ydoc *doc, void *obj, ls_error *err) { return read_model(doc, obj, err); }

int ls_model_load(ls_model **out, const char *path, ls_error *err)
{
  void *obj = NULL;
  int rc = ls_wl_load(path, sizeof(ls_model), offsetof(ls_model, id), read_model_obj, &obj, err);
  *out = obj;
  return rc;
}

int ls_model_load_any(ls_model **out, const char *data_root, const char *spec, ls_error *err)
{
  size_t n = strlen(spec);
  return n > 5 && strcmp(spec + n - 5, ".yaml") == 0 ? ls_model_load(out, spec, err)
                                                     : ls_model_load_id(out, data_root, spec, err);
}

int ls_model_load_id(ls_model **out, const char *data_root, const char *id, ls_error *err)
{
  char path[LS_WL_PATH];
  *out = NULL;
  int rc = ls_wl_resolve(data_root, "workloads/models", "model", id, path, sizeof path, err);
  if (!rc) rc = ls_model_load(out, path, err);
  if (rc || !(*out)->is_target)
    return rc;
  /* a default_draft naming no model is an error of this file, at its line */
  ls_error e2;
  char dpath[LS_WL_PATH];
  ls_error_clear(&e2);
  if (ls_wl_resolve(data_root, "workloads/models", "model", (*out)->draft, dpath, sizeof dpath, &e2)) {
    rc = ls_error_at(err, e2.code, (*out)->draft_file, (*out)->draft_line, (*out)->draft_col,
                     "default_draft: %s", e2.msg);
    ls_model_free(*out);
    *out = NULL;
  }
  return rc;
}

int ls_model_list(const char *data_root, char (*ids)[64], int max)
{
  return ls_wl_list(data_root, "workloads/models", ids, max);
}

void ls_model_free(ls_model *m) { free(m); }
const char *ls_model_id(const ls_model *m) { return m->id; }
const char *ls_model_family(const ls_model *m) { return m->family; }
int ls_model_is_target(const ls_model *m) { return m->is_target; }
const char *ls_model_default_draft(const ls_model *m) { return m->is_target ? m->draft : NULL; }
const char *ls_model_default_quant(const ls_model *m) { return m->quant; }
void ls_model_arch_get(const ls_model *m, ls_model_arch *out) { *out = m->a; }

/* Output-projection format that goes with a layer format (see the top comment). */
static const char *output_quant(const char *layers)
{
  return strcmp(layers, "q4_0") == 0 ? "q6_k" : layers;
}

/* Weights of one layer: attention, MLP and (EAGLE-3) fusion FC. */
static void layer_weights(const ls_model *m, double *w_att, double *w_rest)
{
  const ls_model_arch *a = &m->a;
  double H = a->hidden, q_dim = (double)a->n_heads * a->head_dim, kv_dim = (double)a->n_kv_heads * a->head_dim;
  double in = (double)m->attn_input * H;
  *w_att = in * q_dim + 2.0 * in * kv_dim + q_dim * H;
  *w_rest = 3.0 * H * a->ffn + (double)m->fused * H * H;
}

int ls_model_costs_mixed(const ls_model *m, const char *quant, const char *out_quant, ls_model_costs *out,
                         ls_error *err)
{
  const char *qn = quant ? quant : m->quant;
  double bits = ls_model_quant_bits(qn);
  if (bits < 0)
    return ls_error_set(err, LS_EINVALID,
                        "model %s: unknown quantisation '%s' (valid: q4_0, q4_0-pure, q6_k, w4a16, q8_0, fp16)", m->id, qn);
  const char *oq = out_quant ? out_quant : output_quant(qn);
  double obits = ls_model_quant_bits(oq);
  if (obits < 0)
    return ls_error_set(err, LS_EINVALID,
                        "model %s: unknown output quantisation '%s' (valid: q4_0, q6_k, w4a16, q8_0, fp16)", m->id, oq);
  const ls_model_arch *a = &m->a;
  double H = a->hidden, q_dim = (double)a->n_heads * a->head_dim, kv_dim = (double)a->n_kv_heads * a->head_dim;
  double w_att, w_rest;
  layer_weights(m, &w_att, &w_rest);
  double norm_w = 2.0 * H + (m->qk_norm ? 2.0 * a->head_dim : 0.0);
  double head_w = (double)a->vocab * H;
  memset(out, 0, sizeof *out);
  out->n_layers = a->n_layers;
  out->hidden = a->hidden;
  out->vocab = a->vocab;
  out->layer_bytes = (w_att + w_rest) * bits / 8.0 + norm_w * 2.0;
  out->layer_flops_per_token = 2.0 * (w_att + w_rest);
  out->attn_flops_per_token_per_ctx = 4.0 * q_dim;
  out->kv_bytes_per_token = 2.0 * kv_dim * 2.0;
  out->lmhead_bytes = head_w * obits / 8.0;
  out->lmhead_flops_per_token = 2.0 * head_w;
  /* an EAGLE-3 head borrows the target's embedding; a tied embedding is the head itself */
  out->embed_bytes = m->is_eagle3 ? 0.0 : (a->tied_embeddings ? out->lmhead_bytes : head_w * bits / 8.0);
  out->total_bytes = a->n_layers * out->layer_bytes + H * 2.0 + out->embed_bytes +
                     (a->tied_embeddings ? 0.0 : out->lmhead_bytes);
  return LS_OK;
}

int ls_model_costs_get(const ls_model *m, const char *quant, ls_model_costs *out, ls_error *err)
{
  return ls_model_costs_mixed(m, quant, NULL, out, err);
}

double ls_model_params(const ls_model *m)
{
  const ls_model_arch *a = &m->a;
  double H = a->hidden, w_att, w_rest;
  layer_weights(m, &w_att, &w_rest);
  double layer = w_att + w_rest + 2.0 * H + (m->qk_norm ? 2.0 * a->head_dim : 0.0);
  double emb = (double)a->vocab * H;
  if (m->is_eagle3) /* own head, no embedding of its own */
    return a->n_layers * layer + H + emb;
  return a->n_layers * layer + H + emb * (a->tied_embeddings ? 1.0 : 2.0);
}

double ls_model_params_declared(const ls_model *m) { return m->params_b * 1e9; }
int ls_model_is_eagle3(const ls_model *m) { return m->is_eagle3; }
int ls_model_default_thinking(const ls_model *m) { return m->thinking; }
