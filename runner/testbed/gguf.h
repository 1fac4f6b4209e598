/* runner/testbed/gguf: writes and reads back GGUF v3 model files of random Q4_0 weights in
 * llama.cpp's `llama` architecture, with the shapes of a workloads/models architecture at a
 * chosen scale (layers, width), so the testbed can time a real llama.cpp on them without
 * downloading weights (timing does not need trained ones).
 *
 * File layout, from the format's specification (src:gguf-spec): little-endian; magic "GGUF",
 * version 3 (u32), tensor count and key/value count (u64); the key/value pairs (key: u64
 * length + bytes; value type u32; value; arrays: element type u32, count u64, elements); the
 * tensor infos (name, n_dims u32, ne[] u64 innermost first, ggml type u32, offset u64 from the
 * start of the data section); padding to general.alignment (32); the tensor data, each tensor
 * starting at a multiple of the alignment.
 * Tensors: token_embd [hidden x vocab] Q6_K; per layer blk.N.{attn_norm, ffn_norm} F32
 * [hidden] and blk.N.{attn_q, attn_k, attn_v, attn_output, ffn_gate, ffn_up, ffn_down} Q4_0;
 * output_norm F32; output [hidden x vocab] Q6_K unless the embeddings are tied (the head
 * in Q6_K beside Q4_0 layers, as llama.cpp's Q4_0 files have it and workloads/model costs it). In the file
 * the embedding comes first, then the layers in order, then the head: the order a pass reads
 * them, so a cold pass streams the file front to back.
 * Q4_0 (src:ggml-q4-0): blocks of 32 weights in 18 bytes: the scale d as IEEE fp16, then 16
 * bytes where byte j holds weight j in its low nibble and weight j + 16 in its high nibble;
 * weight = d * (nibble - 8). */
#ifndef LS_RUNNER_TESTBED_GGUF_H
#define LS_RUNNER_TESTBED_GGUF_H
#include <stdint.h>
#include "sim/error.h"

#define LS_GGUF_ALIGN 32
#define LS_Q4_0_BLOCK 32       /* weights per block */
#define LS_Q4_0_BYTES 18       /* bytes per block */
#define LS_GGUF_NAME 64
#define LS_GGUF_TYPE_F32 0     /* ggml type numbers (src:gguf-spec) */
#define LS_GGUF_TYPE_Q4_0 2
#define LS_GGUF_TYPE_Q6_K 14
#define LS_Q6_K_BLOCK 256      /* weights per Q6_K super-block */
#define LS_Q6_K_BYTES 210

/* The architecture written (what llama.cpp's llama loader needs). */
typedef struct ls_gguf_shape {
  int n_layers, hidden, ffn, n_heads, n_kv_heads, head_dim, vocab;
  int tied;        /* 1: no output tensor, the head reads token_embd */
  int ctx_train;   /* llama.context_length */
} ls_gguf_shape;

/* One tensor as stored. */
typedef struct ls_gguf_tensor {
  char name[LS_GGUF_NAME];
  int type;               /* LS_GGUF_TYPE_* */
  int64_t ne0, ne1;       /* ne1 = 1 for vectors */
  uint64_t offset;        /* absolute file offset of its first byte */
  uint64_t bytes;
} ls_gguf_tensor;

/* Every tensor of a file, in file order. */
typedef struct ls_gguf_layout {
  int n;
  ls_gguf_tensor *t;      /* owned (ls_gguf_layout_free) */
  uint64_t data_start;    /* absolute offset of the data section */
  uint64_t file_bytes;
  int version;
  ls_gguf_shape shape;    /* read back from the llama.* keys */
} ls_gguf_layout;

/* Shape of a workloads/models architecture scaled to `layers` (0: as the model) and `width`
 * (0: as the model; else hidden = width, heads scaled at the same head_dim, ffn scaled by
 * width / hidden and rounded to a multiple of 32). LS_ERANGE when the result has a matrix
 * dimension that is not a multiple of 32 or a head count below 1. */
int ls_gguf_shape_scaled(const char *data_root, const char *model_id, int layers, int width, ls_gguf_shape *out,
                         ls_error *err);

/* Packs 32 weights into one Q4_0 block (scale = max |w| / 8, the nibble of each weight its
 * rounded quotient + 8, clamped to 0..15). */
void ls_q4_0_pack(const float w[LS_Q4_0_BLOCK], uint8_t out[LS_Q4_0_BYTES]);
/* The 32 weights a Q4_0 block stands for. */
void ls_q4_0_unpack(const uint8_t in[LS_Q4_0_BYTES], float w[LS_Q4_0_BLOCK]);
/* IEEE half <-> float (normal numbers, zero and subnormals; round to nearest even). */
uint16_t ls_gguf_f16(float f);
float ls_gguf_f32(uint16_t h);

/* Writes a random-weight model of shape s to path (seeded: the same seed gives the same
 * bytes). Every write is checked: LS_EIO names the path and the failing call. layout (NULL
 * allowed) receives the tensors written (owned by the caller). */
int ls_gguf_write(const char *path, const ls_gguf_shape *s, uint64_t seed, ls_gguf_layout *layout,
                  ls_error *err);
/* Reads a GGUF file's header, keys and tensor infos back and checks them: magic, version 3,
 * offsets aligned and inside the file, tensors not overlapping, each tensor's size what its
 * type and dims imply. Errors (LS_EPARSE) name the file and the byte offset. */
int ls_gguf_read_layout(const char *path, ls_gguf_layout *out, ls_error *err);
void ls_gguf_layout_free(ls_gguf_layout *l);
/* Bytes of a tensor of type with ne0 x ne1 elements (Q4_0: ne0 must be a multiple of 32). */
uint64_t ls_gguf_tensor_bytes(int type, int64_t ne0, int64_t ne1);

/* Writes shape s as a workloads/models file (id "<id>-tb<L>l<W>w", role draft) so the simulator
 * costs a scaled file as it is. The file must be named by its id to be loaded by id. */
int ls_gguf_write_yaml(const char *path, const char *id, const ls_gguf_shape *s, ls_error *err);

#endif
