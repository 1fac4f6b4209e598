/* runner/testbed/gguf: see gguf.h.
 *
 * Random weights: every Q4_0 block gets the same small scale and uniformly random nibbles
 * from a counter-based generator (splitmix64 of seed and block index), so the file is the
 * same for a seed and no state is shared. The scale keeps activations finite through many
 * layers of random matrices (timing does not look at the values, but NaN logits would make
 * llama.cpp's samplers misbehave). Norm weights are 1. */
#include "runner/testbed/gguf.h"
#include <unistd.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/fileio.h"
#include <sys/statvfs.h>
#include "workloads/model.h"

/* GGUF value types (src:gguf-spec). */
enum { GV_U32 = 4, GV_I32 = 5, GV_F32 = 6, GV_STRING = 8, GV_ARRAY = 9 };

#define MAX_TENSORS 4096
#define FIXED_VOCAB 259 /* 3 special tokens + 256 byte tokens (the llama tokenizer's floor) */
#define RAND_SCALE 0.002f

/* ---- fp16 and Q4_0 ---- */

uint16_t ls_gguf_f16(float f)
{
  uint32_t x;
  memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = (int32_t)((x >> 23) & 0xff) - 127 + 15;
  uint32_t man = x & 0x7fffffu;
  if (((x >> 23) & 0xff) == 0xff) /* inf / nan */
    return (uint16_t)(sign | 0x7c00u | (man ? 0x200u : 0));
  if (exp >= 31)
    return (uint16_t)(sign | 0x7c00u);
  if (exp <= 0) { /* subnormal half or zero */
    if (exp < -10)
      return (uint16_t)sign;
    man |= 0x800000u;
    int shift = 14 - exp;
    uint32_t h = man >> shift, rem = man & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1u)))
      h++;
    return (uint16_t)(sign | h);
  }
  uint32_t h = sign | ((uint32_t)exp << 10) | (man >> 13), rem = man & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
    h++; /* a carry into the exponent is the correct rounding */
  return (uint16_t)h;
}

float ls_gguf_f32(uint16_t h)
{
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu, x;
  if (exp == 0) {
    if (man == 0) {
      x = sign;
    } else { /* subnormal: normalise */
      int e = -1;
      do {
        man <<= 1;
        e++;
      } while (!(man & 0x400u));
      x = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else if (exp == 31) {
    x = sign | 0x7f800000u | (man << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (man << 13);
  }
  float f;
  memcpy(&f, &x, sizeof f);
  return f;
}

void ls_q4_0_pack(const float w[LS_Q4_0_BLOCK], uint8_t out[LS_Q4_0_BYTES])
{
  float amax = 0, max = 0;
  for (int j = 0; j < LS_Q4_0_BLOCK; j++)
    if (fabsf(w[j]) > amax) {
      amax = fabsf(w[j]);
      max = w[j];
    }
  /* The signed extreme maps to nibble 0 (value -8), as ggml's reference quantiser does, so
   * the full range -8..7 is used. */
  float d = max / -8.0f, id = d != 0.0f ? 1.0f / d : 0.0f;
  uint16_t h = ls_gguf_f16(d);
  out[0] = (uint8_t)(h & 0xff);
  out[1] = (uint8_t)(h >> 8);
  for (int j = 0; j < LS_Q4_0_BLOCK / 2; j++) {
    int lo = (int)floorf(w[j] * id + 8.5f), hi = (int)floorf(w[j + 16] * id + 8.5f);
    lo = lo < 0 ? 0 : lo > 15 ? 15 : lo;
    hi = hi < 0 ? 0 : hi > 15 ? 15 : hi;
    out[2 + j] = (uint8_t)(lo | (hi << 4));
  }
}

void ls_q4_0_unpack(const uint8_t in[LS_Q4_0_BYTES], float w[LS_Q4_0_BLOCK])
{
  float d = ls_gguf_f32((uint16_t)(in[0] | (in[1] << 8)));
  for (int j = 0; j < LS_Q4_0_BLOCK / 2; j++) {
    w[j] = d * (float)((in[2 + j] & 0x0f) - 8);
    w[j + 16] = d * (float)((in[2 + j] >> 4) - 8);
  }
}

uint64_t ls_gguf_tensor_bytes(int type, int64_t ne0, int64_t ne1)
{
  if (type == LS_GGUF_TYPE_F32)
    return (uint64_t)(ne0 * ne1) * 4u;
  if (type == LS_GGUF_TYPE_Q6_K)
    return (uint64_t)(ne0 / LS_Q6_K_BLOCK * ne1) * LS_Q6_K_BYTES;
  return (uint64_t)(ne0 / LS_Q4_0_BLOCK * ne1) * LS_Q4_0_BYTES;
}

/* ---- shapes ---- */

int ls_gguf_shape_scaled(const char *data_root, const char *model_id, int layers, int width, ls_gguf_shape *out,
                         ls_error *err)
{
  ls_model *m;
  if (ls_model_load_id(&m, data_root, model_id, err))
    return err ? err->code : LS_ENOTFOUND;
  ls_model_arch a;
  ls_model_arch_get(m, &a);
  ls_model_free(m);
  if (layers < 0 || width < 0)
    return ls_error_set(err, LS_ERANGE, "%s: layers %d, width %d: must be >= 0", model_id, layers, width);
  ls_gguf_shape s = {a.n_layers, a.hidden, a.ffn, a.n_heads, a.n_kv_heads, a.head_dim, a.vocab,
                     a.tied_embeddings, 4096};
  if (layers > 0)
    s.n_layers = layers;
  if (width > 0 && width != a.hidden) {
    double r = (double)width / a.hidden;
    s.hidden = width;
    s.n_heads = width / a.head_dim;
    s.n_kv_heads = (int)lround(a.n_kv_heads * r);
    if (s.n_kv_heads < 1)
      s.n_kv_heads = 1;
    while (s.n_kv_heads > 1 && s.n_heads % s.n_kv_heads)
      s.n_kv_heads--; /* grouped attention needs heads divisible by KV heads */
    s.ffn = (int)lround(a.ffn * r / 32.0) * 32;
  }
  if (s.hidden % 256 || s.ffn % 32 || s.n_heads < 1 || (s.n_heads * s.head_dim) % 32 || s.n_layers > 1024 ||
      s.n_heads % s.n_kv_heads)
    return ls_error_set(err, LS_ERANGE, "%s at %d layers, width %d: hidden %d, ffn %d, %d heads of %d: the width must be "
                        "a multiple of 256 (Q6_K head), every matrix dimension of 32 and the heads a multiple of the KV heads",
                        model_id, s.n_layers, width, s.hidden, s.ffn, s.n_heads, s.head_dim);
  *out = s;
  return LS_OK;
}

/* ---- writing ---- */

typedef struct wr {
  FILE *f;
  const char *path;
  uint64_t pos;
  ls_error *err;
  int rc;
} wr;

static void put(wr *w, const void *p, size_t n)
{
  if (w->rc || n == 0)
    return;
  if (fwrite(p, 1, n, w->f) != n)
    w->rc = ls_error_set(w->err, LS_EIO, "%s: write failed at byte %llu: %s", w->path, (unsigned long long)w->pos,
                         strerror(errno));
  w->pos += n;
}
static void put_u32(wr *w, uint32_t v)
{
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  put(w, b, 4);
}
static void put_u64(wr *w, uint64_t v)
{
  put_u32(w, (uint32_t)v);
  put_u32(w, (uint32_t)(v >> 32));
}
static void put_f32(wr *w, float f)
{
  uint32_t x;
  memcpy(&x, &f, 4);
  put_u32(w, x);
}
static void put_str(wr *w, const char *s)
{
  put_u64(w, strlen(s));
  put(w, s, strlen(s));
}
static void kv_u32(wr *w, const char *k, uint32_t v)
{
  put_str(w, k);
  put_u32(w, GV_U32);
  put_u32(w, v);
}
static void kv_f32(wr *w, const char *k, float v)
{
  put_str(w, k);
  put_u32(w, GV_F32);
  put_f32(w, v);
}
static void kv_str(wr *w, const char *k, const char *v)
{
  put_str(w, k);
  put_u32(w, GV_STRING);
  put_str(w, v);
}

static uint64_t splitmix(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static uint64_t align_up(uint64_t x)
{
  return (x + LS_GGUF_ALIGN - 1) / LS_GGUF_ALIGN * LS_GGUF_ALIGN;
}

static void add(ls_gguf_tensor *t, int *n, const char *name, int type, int64_t ne0, int64_t ne1, uint64_t *rel)
{
  ls_gguf_tensor *x = &t[(*n)++];
  snprintf(x->name, sizeof x->name, "%s", name);
  x->type = type;
  x->ne0 = ne0;
  x->ne1 = ne1;
  x->offset = *rel; /* relative until the data start is known */
  x->bytes = ls_gguf_tensor_bytes(type, ne0, ne1);
  *rel = align_up(*rel + x->bytes);
}

static int plan(const ls_gguf_shape *s, ls_gguf_tensor *t, int *n)
{
  uint64_t rel = 0;
  char name[LS_GGUF_NAME];
  int64_t h = s->hidden, q = (int64_t)s->n_heads * s->head_dim, kv = (int64_t)s->n_kv_heads * s->head_dim;
  *n = 0;
  add(t, n, "token_embd.weight", LS_GGUF_TYPE_Q6_K, h, s->vocab, &rel);
  for (int l = 0; l < s->n_layers; l++) {
    static const char *const parts[] = {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output",
                                        "ffn_norm",  "ffn_gate", "ffn_up", "ffn_down"};
    const int64_t dims[][2] = {{h, 1}, {h, q}, {h, kv}, {h, kv}, {q, h}, {h, 1}, {h, s->ffn}, {h, s->ffn}, {s->ffn, h}};
    for (int k = 0; k < 9; k++) {
      snprintf(name, sizeof name, "blk.%d.%s.weight", l, parts[k]);
      add(t, n, name, dims[k][1] == 1 ? LS_GGUF_TYPE_F32 : LS_GGUF_TYPE_Q4_0, dims[k][0], dims[k][1], &rel);
    }
  }
  add(t, n, "output_norm.weight", LS_GGUF_TYPE_F32, h, 1, &rel);
  if (!s->tied)
    add(t, n, "output.weight", LS_GGUF_TYPE_Q6_K, h, s->vocab, &rel);
  return LS_OK;
}

static void write_tokenizer(wr *w, int vocab)
{
  char tok[32];
  kv_str(w, "tokenizer.ggml.model", "llama");
  put_str(w, "tokenizer.ggml.tokens");
  put_u32(w, GV_ARRAY);
  put_u32(w, GV_STRING);
  put_u64(w, (uint64_t)vocab);
  for (int i = 0; i < vocab; i++) {
    if (i < 3)
      snprintf(tok, sizeof tok, "%s", i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>");
    else if (i < FIXED_VOCAB)
      snprintf(tok, sizeof tok, "<0x%02X>", i - 3);
    else /* filler pieces up to the model's vocabulary: unique, never produced by byte text */
      snprintf(tok, sizeof tok, "\xe2\x96\x81t%d", i);
    put_str(w, tok);
  }
  put_str(w, "tokenizer.ggml.scores");
  put_u32(w, GV_ARRAY);
  put_u32(w, GV_F32);
  put_u64(w, (uint64_t)vocab);
  for (int i = 0; i < vocab; i++)
    put_f32(w, i < FIXED_VOCAB ? 0.0f : -(float)i);
  put_str(w, "tokenizer.ggml.token_type");
  put_u32(w, GV_ARRAY);
  put_u32(w, GV_I32);
  put_u64(w, (uint64_t)vocab);
  for (int i = 0; i < vocab; i++) /* 2 unknown, 3 control, 6 byte, 1 normal */
    put_u32(w, i == 0 ? 2u : i < 3 ? 3u : i < FIXED_VOCAB ? 6u : 1u);
  kv_u32(w, "tokenizer.ggml.unknown_token_id", 0);
  kv_u32(w, "tokenizer.ggml.bos_token_id", 1);
  kv_u32(w, "tokenizer.ggml.eos_token_id", 2);
}

#define CHUNK_BLOCKS 65536

/* Q6_K (src:ggml-q6-k): 256 weights in 210 bytes: ql[128], qh[64], 16 int8 sub-block scales,
 * then the fp16 super-block scale d last. Random bytes everywhere but d and the scales,
 * which are kept small so the head's logits stay finite. */
static void write_q6_k(wr *w, const ls_gguf_tensor *t, uint64_t seed, uint8_t *buf)
{
  uint16_t h = ls_gguf_f16(RAND_SCALE / 32.0f);
  uint64_t blocks = t->bytes / LS_Q6_K_BYTES, base = splitmix(seed ^ t->offset), per = 4096;
  for (uint64_t b0 = 0; b0 < blocks && !w->rc; b0 += per) {
    uint64_t nb = blocks - b0 < per ? blocks - b0 : per;
    for (uint64_t b = 0; b < nb; b++) {
      uint8_t *p = buf + b * LS_Q6_K_BYTES;
      for (int k = 0; k < 192; k += 8) {
        uint64_t r = splitmix(base + 32 * (b0 + b) + (uint64_t)k / 8);
        memcpy(p + k, &r, 8);
      }
      for (int k = 0; k < 16; k++)
        p[192 + k] = (uint8_t)(1 + (p[k] & 7)); /* scales 1..8 */
      p[208] = (uint8_t)(h & 0xff);
      p[209] = (uint8_t)(h >> 8);
    }
    put(w, buf, nb * LS_Q6_K_BYTES);
  }
}

static void write_data(wr *w, const ls_gguf_tensor *t, uint64_t seed, uint8_t *buf)
{
  if (t->type == LS_GGUF_TYPE_F32) {
    for (int64_t i = 0; i < t->ne0 * t->ne1; i++)
      put_f32(w, 1.0f);
    return;
  }
  if (t->type == LS_GGUF_TYPE_Q6_K) {
    write_q6_k(w, t, seed, buf);
    return;
  }
  uint16_t h = ls_gguf_f16(RAND_SCALE);
  uint64_t blocks = t->bytes / LS_Q4_0_BYTES, base = splitmix(seed ^ t->offset);
  for (uint64_t b0 = 0; b0 < blocks && !w->rc; b0 += CHUNK_BLOCKS) {
    uint64_t nb = blocks - b0 < CHUNK_BLOCKS ? blocks - b0 : CHUNK_BLOCKS;
    for (uint64_t b = 0; b < nb; b++) {
      uint8_t *p = buf + b * LS_Q4_0_BYTES;
      p[0] = (uint8_t)(h & 0xff);
      p[1] = (uint8_t)(h >> 8);
      uint64_t r0 = splitmix(base + 2 * (b0 + b)), r1 = splitmix(base + 2 * (b0 + b) + 1);
      memcpy(p + 2, &r0, 8);
      memcpy(p + 10, &r1, 8);
    }
    put(w, buf, nb * LS_Q4_0_BYTES);
  }
}

/* The header: magic, version, counts, the 23 key/value pairs and every tensor's info. */
static void write_header(wr *w, const ls_gguf_shape *s, const ls_gguf_tensor *t, int n)
{
  put(w, "GGUF", 4);
  put_u32(w, 3);
  put_u64(w, (uint64_t)n);
  put_u64(w, 23); /* key/value pairs: 16 below and 7 of the tokenizer */
  kv_str(w, "general.architecture", "llama");
  kv_str(w, "general.name", "leversim testbed random Q4_0");
  kv_u32(w, "general.alignment", LS_GGUF_ALIGN);
  kv_u32(w, "general.file_type", 2); /* LLAMA_FTYPE_MOSTLY_Q4_0 */
  kv_u32(w, "llama.context_length", (uint32_t)s->ctx_train);
  kv_u32(w, "llama.embedding_length", (uint32_t)s->hidden);
  kv_u32(w, "llama.block_count", (uint32_t)s->n_layers);
  kv_u32(w, "llama.feed_forward_length", (uint32_t)s->ffn);
  kv_u32(w, "llama.attention.head_count", (uint32_t)s->n_heads);
  kv_u32(w, "llama.attention.head_count_kv", (uint32_t)s->n_kv_heads);
  kv_u32(w, "llama.attention.key_length", (uint32_t)s->head_dim);
  kv_u32(w, "llama.attention.value_length", (uint32_t)s->head_dim);
  kv_f32(w, "llama.attention.layer_norm_rms_epsilon", 1e-5f);
  kv_u32(w, "llama.rope.dimension_count", (uint32_t)s->head_dim);
  kv_f32(w, "llama.rope.freq_base", 500000.0f);
  kv_u32(w, "llama.vocab_size", (uint32_t)s->vocab);
  write_tokenizer(w, s->vocab);
  for (int i = 0; i < n; i++) {
    put_str(w, t[i].name);
    int nd = t[i].ne1 == 1 ? 1 : 2;
    put_u32(w, (uint32_t)nd);
    put_u64(w, (uint64_t)t[i].ne0);
    if (nd == 2)
      put_u64(w, (uint64_t)t[i].ne1);
    put_u32(w, (uint32_t)t[i].type);
    put_u64(w, t[i].offset);
  }
}

/* LS_OK when the file system that will hold path has need bytes free (statvfs of its folder). */
static int room_for(const char *path, uint64_t need, ls_error *err)
{
  char *dir = strdup(path);
  if (!dir) return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  char *slash = strrchr(dir, '/');
  if (slash == dir) slash[1] = '\0';
  else if (slash) *slash = '\0';
  struct statvfs v;
  int ok = statvfs(slash ? dir : ".", &v) != 0 || (uint64_t)v.f_bavail * v.f_frsize >= need;
  uint64_t have = ok ? 0 : (uint64_t)v.f_bavail * v.f_frsize;
  free(dir);
  if (ok) return LS_OK;
  return ls_error_set(err, LS_EIO, "%s: the model needs %.3g GB, its file system has %.3g GB "
                      "free; nothing written (choose a smaller --layers/--width or another "
                      "folder)", path, need / 1e9, have / 1e9);
}

int ls_gguf_write(const char *path, const ls_gguf_shape *s, uint64_t seed, ls_gguf_layout *layout, ls_error *err)
{
  if (s->vocab < FIXED_VOCAB)
    return ls_error_set(err, LS_ERANGE, "%s: vocabulary %d: at least %d (3 special + 256 byte tokens)", path,
                        s->vocab, FIXED_VOCAB);
  int cap = 9 * s->n_layers + 3, n;
  ls_gguf_tensor *t = calloc((size_t)cap, sizeof *t);
  uint8_t *buf = malloc((size_t)CHUNK_BLOCKS * LS_Q4_0_BYTES);
  if (!t || !buf) {
    free(t);
    free(buf);
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  }
  plan(s, t, &n);
  /* The output rule (sim/fileio.h): a temporary file renamed over the target at the end, only
   * over a GGUF file, never through a link; and room for the whole file first, so a huge
   * shape is refused before a byte is written instead of filling the disk half-way. */
  ls_file_out o;
  uint64_t need = t[n - 1].offset + t[n - 1].bytes + (uint64_t)s->vocab * 64 + (1u << 20);
  int rc = ls_file_out_open(&o, path, "testbed model --out", "GGUF", err);
  if (rc == LS_OK) rc = room_for(path, need, err);
  if (rc) {
    ls_file_out_abort(&o);
    free(t);
    free(buf);
    return rc;
  }
  wr w = {o.f, path, 0, err, 0};
  write_header(&w, s, t, n);
  uint64_t start = align_up(w.pos);
  static const uint8_t zero[LS_GGUF_ALIGN];
  put(&w, zero, (size_t)(start - w.pos));
  for (int i = 0; i < n && !w.rc; i++) {
    t[i].offset += start;
    put(&w, zero, (size_t)(t[i].offset - w.pos));
    write_data(&w, &t[i], seed, buf);
  }
  free(buf);
  /* Written pages are dirty until written back, and dirty pages cannot be evicted: the first
   * cold pass would find part of the file still cached (the commit flushes and fsyncs). A
   * failed write removes the temporary file: nothing partial is left. */
  if (w.rc) ls_file_out_abort(&o);
  else w.rc = ls_file_out_commit(&o, err);
  if (w.rc || !layout) {
    free(t);
    return w.rc;
  }
  layout->n = n;
  layout->t = t;
  layout->data_start = start;
  layout->file_bytes = w.pos;
  layout->version = 3;
  layout->shape = *s;
  return LS_OK;
}

/* ---- reading back ---- */

typedef struct rd {
  FILE *f;
  const char *path;
  uint64_t pos, size;
  ls_error *err;
  int rc;
} rd;

static void get(rd *r, void *p, size_t n)
{
  if (r->rc)
    return;
  if (r->pos + n > r->size || fread(p, 1, n, r->f) != n) {
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: truncated (%zu more bytes expected)", r->path,
                         (unsigned long long)r->pos, n);
    memset(p, 0, n);
    return;
  }
  r->pos += n;
}
static uint32_t get_u32(rd *r)
{
  uint8_t b[4] = {0};
  get(r, b, 4);
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint64_t get_u64(rd *r)
{
  uint64_t lo = get_u32(r);
  return lo | (uint64_t)get_u32(r) << 32;
}
static void skip(rd *r, uint64_t n)
{
  if (r->rc)
    return;
  if (r->pos + n > r->size || fseek(r->f, (long)n, SEEK_CUR) != 0) {
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: truncated", r->path, (unsigned long long)r->pos);
    return;
  }
  r->pos += n;
}
/* A string into s (truncated to size - 1; the rest skipped). */
static void get_str(rd *r, char *s, size_t size)
{
  uint64_t n = get_u64(r);
  size_t k = n < size - 1 ? (size_t)n : size - 1;
  get(r, s, k);
  s[r->rc ? 0 : k] = '\0';
  skip(r, n - k);
}

static uint64_t scalar_size(uint32_t type)
{
  static const uint64_t sz[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
  return type < sizeof sz / sizeof sz[0] ? sz[type] : 0;
}

/* Reads one value of type; u32 values land in *u (else *u unchanged). */
static void value(rd *r, uint32_t type, uint64_t *u, int depth)
{
  if (type == GV_STRING) {
    skip(r, get_u64(r));
  } else if (type == GV_ARRAY && depth == 0) {
    uint32_t et = get_u32(r);
    uint64_t n = get_u64(r);
    if (et == GV_STRING || et == GV_ARRAY) {
      for (uint64_t i = 0; i < n && !r->rc; i++)
        value(r, et, NULL, 1);
    } else if (scalar_size(et)) {
      skip(r, n * scalar_size(et));
    } else if (!r->rc) {
      r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: unknown array element type %u", r->path,
                           (unsigned long long)r->pos, et);
    }
  } else if (type == GV_U32 && u) {
    *u = get_u32(r);
  } else if (scalar_size(type)) {
    skip(r, scalar_size(type));
  } else if (!r->rc) {
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: unknown value type %u", r->path,
                         (unsigned long long)r->pos, type);
  }
}

static void shape_key(ls_gguf_shape *s, const char *key, uint64_t u)
{
  static const char *const names[] = {"llama.block_count", "llama.embedding_length", "llama.feed_forward_length",
                                      "llama.attention.head_count", "llama.attention.head_count_kv",
                                      "llama.rope.dimension_count", "llama.vocab_size", "llama.context_length"};
  int *dst[] = {&s->n_layers, &s->hidden, &s->ffn, &s->n_heads, &s->n_kv_heads, &s->head_dim, &s->vocab,
                &s->ctx_train};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strcmp(key, names[k]) == 0)
      *dst[k] = (int)u;
}

/* One tensor info at r's position into t, checked (dimensions, type, shape against its type,
 * alignment); 0 when reading it failed (r->rc set), 1 otherwise (r->rc may still be set). */
static int tensor_info(rd *r, uint64_t align, ls_gguf_tensor *t)
{
  const char *path = r->path;
  uint64_t at = r->pos;
  get_str(r, t->name, sizeof t->name);
  uint32_t nd = get_u32(r);
  if (!r->rc && (nd < 1 || nd > 2))
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: tensor %s has %u dimensions (1 or 2 here)", path,
                         (unsigned long long)at, t->name, nd);
  t->ne0 = (int64_t)get_u64(r);
  t->ne1 = nd == 2 ? (int64_t)get_u64(r) : 1;
  t->type = (int)get_u32(r);
  t->offset = get_u64(r);
  if (r->rc)
    return 0;
  if (t->type != LS_GGUF_TYPE_F32 && t->type != LS_GGUF_TYPE_Q4_0 && t->type != LS_GGUF_TYPE_Q6_K)
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: tensor %s: type %d (F32 0, Q4_0 2 or Q6_K 14 here)",
                         path, (unsigned long long)at, t->name, t->type);
  else if (t->ne0 <= 0 || t->ne1 <= 0 || (t->type == LS_GGUF_TYPE_Q4_0 && t->ne0 % LS_Q4_0_BLOCK) ||
           (t->type == LS_GGUF_TYPE_Q6_K && t->ne0 % LS_Q6_K_BLOCK))
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: tensor %s: %lld x %lld does not fit its type", path,
                         (unsigned long long)at, t->name, (long long)t->ne0, (long long)t->ne1);
  else if (t->offset % align)
    r->rc = ls_error_set(r->err, LS_EPARSE, "%s: byte %llu: tensor %s: offset %llu not aligned to %llu", path,
                         (unsigned long long)at, t->name, (unsigned long long)t->offset, (unsigned long long)align);
  t->bytes = ls_gguf_tensor_bytes(t->type, t->ne0, t->ne1);
  return 1;
}

int ls_gguf_read_layout(const char *path, ls_gguf_layout *out, ls_error *err)
{
  memset(out, 0, sizeof *out);
  rd r = {NULL, path, 0, 0, err, 0};
  /* never a plain fopen: a FIFO given as --target would block it for ever */
  int orc = ls_file_open_read(&r.f, path, "GGUF model", err);
  if (orc)
    return orc;
  if (fseek(r.f, 0, SEEK_END) == 0) {
    long sz = ftell(r.f);
    r.size = sz > 0 ? (uint64_t)sz : 0;
  }
  rewind(r.f);
  char magic[4];
  get(&r, magic, 4);
  if (!r.rc && memcmp(magic, "GGUF", 4) != 0)
    r.rc = ls_error_set(err, LS_EPARSE, "%s: byte 0: not a GGUF file (magic)", path);
  out->version = (int)get_u32(&r);
  if (!r.rc && out->version != 3)
    r.rc = ls_error_set(err, LS_EPARSE, "%s: byte 4: GGUF version %d, expected 3", path, out->version);
  uint64_t n_t = get_u64(&r), n_kv = get_u64(&r), align = LS_GGUF_ALIGN;
  if (!r.rc && (n_t > MAX_TENSORS || n_kv > 1u << 20))
    r.rc = ls_error_set(err, LS_EPARSE, "%s: byte 8: %llu tensors, %llu keys: out of range", path,
                        (unsigned long long)n_t, (unsigned long long)n_kv);
  out->shape.tied = 1;
  char key[256];
  for (uint64_t i = 0; i < n_kv && !r.rc; i++) {
    get_str(&r, key, sizeof key);
    uint32_t type = get_u32(&r);
    uint64_t u = UINT64_MAX;
    value(&r, type, &u, 0);
    if (u != UINT64_MAX) {
      shape_key(&out->shape, key, u);
      if (strcmp(key, "general.alignment") == 0)
        align = u;
    }
  }
  if (!r.rc && (align == 0 || (align & (align - 1))))
    r.rc = ls_error_set(err, LS_EPARSE, "%s: general.alignment %llu: not a power of two", path,
                        (unsigned long long)align);
  out->t = r.rc ? NULL : calloc(n_t ? (size_t)n_t : 1, sizeof *out->t);
  if (!r.rc && !out->t)
    r.rc = ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  for (uint64_t i = 0; i < n_t && !r.rc; i++) {
    ls_gguf_tensor *t = &out->t[i];
    if (!tensor_info(&r, align, t))
      break;
    if (strcmp(t->name, "output.weight") == 0)
      out->shape.tied = 0;
    out->n++;
  }
  out->data_start = (r.pos + align - 1) / align * align;
  out->file_bytes = r.size;
  for (int i = 0; i < out->n && !r.rc; i++) {
    ls_gguf_tensor *t = &out->t[i];
    t->offset += out->data_start;
    if (t->offset + t->bytes > r.size)
      r.rc = ls_error_set(err, LS_EPARSE, "%s: tensor %s: bytes %llu..%llu beyond the end of the file (%llu)", path,
                          t->name, (unsigned long long)t->offset, (unsigned long long)(t->offset + t->bytes),
                          (unsigned long long)r.size);
    for (int k = 0; k < i && !r.rc; k++) /* infos need not be in file order: check all pairs */
      if (t->offset < out->t[k].offset + out->t[k].bytes && out->t[k].offset < t->offset + t->bytes)
        r.rc = ls_error_set(err, LS_EPARSE, "%s: tensors %s and %s overlap", path, out->t[k].name, t->name);
  }
  fclose(r.f);
  if (r.rc)
    ls_gguf_layout_free(out);
  return r.rc;
}

void ls_gguf_layout_free(ls_gguf_layout *l)
{
  free(l->t);
  l->t = NULL;
  l->n = 0;
}

/* See gguf.h. */
int ls_gguf_write_yaml(const char *path, const char *id, const ls_gguf_shape *s, ls_error *err)
{
  ls_file_out o; /* the output rule (sim/fileio.h) */
  int rc = ls_file_out_open(&o, path, "testbed model --yaml", "scaled by leversim testbed model", err);
  if (rc)
    return rc;
  FILE *f = o.f;
  double q = (double)s->n_heads * s->head_dim, kv = (double)s->n_kv_heads * s->head_dim;
  double params = s->n_layers * (s->hidden * (2 * q + 2 * kv) + 3.0 * s->hidden * s->ffn + 2.0 * s->hidden) +
                  (double)s->vocab * s->hidden * (s->tied ? 1 : 2) + s->hidden;
  int bad = fprintf(f,
                    "# %s scaled by leversim testbed model (runner/testbed/gguf.h): the shape of a random-weight file.\n"
                    "id: %s-tb%dl%dw\nfamily: llama3\nrole: draft\ndefault_quant: q4_0\nparams_b: %.6f\narch:\n"
                    "  n_layers: %d\n  hidden: %d\n  ffn: %d\n  n_heads: %d\n  n_kv_heads: %d\n  head_dim: %d\n"
                    "  vocab: %d\n  tied_embeddings: %s\n  qk_norm: false\n",
                    id, id, s->n_layers, s->hidden, params / 1e9, s->n_layers, s->hidden, s->ffn, s->n_heads,
                    s->n_kv_heads, s->head_dim, s->vocab, s->tied ? "true" : "false") < 0;
  if (bad) {
    ls_file_out_abort(&o);
    return ls_error_set(err, LS_EIO, "%s: write failed: %s", path, strerror(errno));
  }
  return ls_file_out_commit(&o, err);
}

