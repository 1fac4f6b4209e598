/* runner/calib_input: see calib_input.h.
 *
 * llama-bench layout (src:llamacpp-bench: github.com/ggml-org/llama.cpp commit
 * 050fc7f32de16858ac667d775b43a51ed8976e6f, tools/llama-bench/llama-bench.cpp, test::get_fields
 * and the csv/json/jsonl printers): the CSV printer
 * writes the field names as a bare header line and every value in double quotes; the JSON
 * printer writes an array of objects with the same names (integers bare, booleans true/false,
 * avg_ts/stddev_ts as reals) plus samples_ns/samples_ts arrays; JSONL writes one such object a
 * line. A NaN rate is written as `nan`, which is not JSON: jansson reports it as a syntax
 * error at its line and column. fio's JSON layout is the one `fio --output-format=json`
 * writes (checked against the real tool by tests/calibrate). */
#include "sim/fileio.h"
#include "runner/calibrate/calib_input.h"
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "workloads/model.h"

#define MAX_COLS 128
#define MAX_MODELS 64

/* ---- small helpers ---- */

char *ls_calib_slurp(const char *path, ls_error *err)
{
  char *buf = NULL; /* missing: 66; a FIFO, device or folder: 74, never a hang (sim/fileio) */
  size_t len = 0;
  if (ls_file_read_all(path, NULL, LS_FILE_MAX_INPUT, &buf, &len, err))
    return NULL;
  if (strlen(buf) != len) {
    free(buf);
    return ls_error_set(err, LS_EPARSE, "%s: binary data (a NUL byte): not a text file", path), NULL;
  }
  return buf;
}

/* Letters and digits of s, lower-cased. */
static void compact(const char *s, char *out, size_t size)
{
  size_t n = 0;
  for (; *s && n + 1 < size; s++)
    if (isalnum((unsigned char)*s))
      out[n++] = (char)tolower((unsigned char)*s);
  out[n] = '\0';
}

int ls_calib_model_for(const char *data_root, const char *filename, char *id, ls_error *err)
{
  static const char *const skip = "/";
  const char *base = strrchr(filename, *skip);
  base = base ? base + 1 : filename;
  char ids[MAX_MODELS][64], file[512], cid[64];
  int n = ls_model_list(data_root, ids, MAX_MODELS);
  compact(base, file, sizeof file);
  int best = -1;
  size_t best_len = 0;
  for (int i = 0; i < n && i < MAX_MODELS; i++) {
    compact(ids[i], cid, sizeof cid);
    size_t len = strlen(cid);
    if (len > best_len && strstr(file, cid)) {
      best = i;
      best_len = len;
    }
  }
  if (best >= 0) {
    snprintf(id, 64, "%s", ids[best]);
    return LS_OK;
  }
  char list[LS_ERR_MSG / 2] = "";
  size_t len = 0;
  for (int i = 0; i < n && i < MAX_MODELS && len + 2 < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", ids[i]);
  return ls_error_set(err, LS_EINVALID, "unknown model: '%s' matches none of workloads/models (%s); "
                      "name it with --llama-bench FILE:ID (this file only) or --model ID (every file)",
                      filename, list);
}

static const char *quant_of(const char *model_type)
{
  static const char *const names[][2] = {{"q4_0", "q4_0"}, {"q8_0", "q8_0"}, {"f16", "fp16"}};
  char low[128];
  size_t i = 0;
  for (; model_type[i] && i + 1 < sizeof low; i++)
    low[i] = (char)tolower((unsigned char)model_type[i]);
  low[i] = '\0';
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strstr(low, names[k][0]))
      return names[k][1];
  return NULL;
}

static int contains_ci(const char *s, const char *word)
{
  size_t n = strlen(word);
  for (; *s; s++) {
    size_t k = 0;
    while (k < n && s[k] && tolower((unsigned char)s[k]) == tolower((unsigned char)word[k]))
      k++;
    if (k == n)
      return 1;
  }
  return 0;
}

static ls_calib_backend backend_of(const char *backends, long ngl)
{
  if (ngl <= 0 || strcmp(backends, "CPU") == 0 || backends[0] == '\0')
    return LS_CALIB_CPU;
  if (contains_ci(backends, "HTP") || contains_ci(backends, "Hexagon"))
    return LS_CALIB_NPU;
  return LS_CALIB_OTHER;
}

/* Room for element n of an array of `elem`-byte elements (*cap allocated): *moved receives
 * the array (reallocated when full, arr itself otherwise); returns the zeroed element, or NULL
 * with err set (the array unchanged). */
static void *grow(void *arr, int n, int *cap, size_t elem, void **moved, ls_error *err)
{
  *moved = arr;
  if (n == *cap) {
    int nc = *cap ? 2 * *cap : 16;
    void *a = realloc(arr, (size_t)nc * elem);
    if (!a)
      return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory"), NULL;
    *moved = a;
    *cap = nc;
  }
  void *e = (char *)*moved + (size_t)n * elem;
  memset(e, 0, elem);
  return e;
}

static ls_bench_row *new_row(ls_calib_inputs *in, ls_error *err)
{
  void *moved;
  ls_bench_row *r = grow(in->rows, in->n_rows, &in->cap_rows, sizeof *in->rows, &moved, err);
  in->rows = moved;
  return r;
}

/* Raw text values of one llama-bench test, before checks (CSV cells or JSON members). */
enum { F_THREADS, F_NGL, F_PROMPT, F_GEN, F_DEPTH, F_AVG_TS, F_STDDEV_TS, F_AVG_NS, N_FIELDS };
static const char *const FIELD[N_FIELDS] = {"n_threads", "n_gpu_layers", "n_prompt", "n_gen",
                                            "n_depth",   "avg_ts",       "stddev_ts", "avg_ns"};
typedef struct raw_row {
  const char *filename, *type, *backends;
  double v[N_FIELDS];             /* NAN when absent */
  char loc[N_FIELDS][LS_CALIB_WHERE]; /* where each came from: "file:7:23" or "file: $[2].n_prompt" */
} raw_row;

/* Checks and converts one raw row; `at` locates messages ("file:7" or "file: $[2]"). */
static int finish_row(ls_calib_inputs *in, const raw_row *w, const char *file, const char *at, int index,
                      const char *data_root, const char *model_id, ls_error *err)
{
  /* required: everything but n_depth and avg_ns; integers: the counts; positive: avg_ts, avg_ns */
  static const int required[N_FIELDS] = {1, 1, 1, 1, 0, 1, 1, 0}, integer[N_FIELDS] = {1, 1, 1, 1, 1, 0, 0, 0},
                   positive[N_FIELDS] = {0, 0, 0, 0, 0, 1, 0, 1};
  static const double max[N_FIELDS] = {1024, 1e6, 1e6, 1e6, 1e7, 1e12, 1e12, 1e18};
  for (int k = 0; k < N_FIELDS; k++) {
    double v = w->v[k];
    if (isnan(v) && !required[k])
      continue;
    if (!isfinite(v))
      return ls_error_set(err, LS_ERANGE, "%s: %s = %g: must be a finite number", w->loc[k], FIELD[k], v);
    if (v < 0 || (positive[k] && v == 0) || v > max[k])
      return ls_error_set(err, LS_ERANGE, "%s: %s = %g: must be %s and at most %g", w->loc[k], FIELD[k], v,
                          positive[k] ? "> 0" : ">= 0", max[k]);
    if (integer[k] && v != floor(v))
      return ls_error_set(err, LS_ERANGE, "%s: %s = %g: must be a whole number", w->loc[k], FIELD[k], v);
  }
  if (w->v[F_PROMPT] + w->v[F_GEN] < 1)
    return ls_error_set(err, LS_ERANGE, "%s: n_prompt and n_gen are both 0", w->loc[F_PROMPT]);
  if (!isnan(w->v[F_AVG_NS])) {
    /* llama-bench's own two figures must tell the same rate, up to the gap between them that
     * noisy repetitions open: avg_ts is the mean of the repetitions' rates, avg_ns the mean of
     * their times, so n / avg_ns is the rates' harmonic mean, below their arithmetic mean by
     * about cv^2 (cv = stddev_ts / avg_ts; one slow repetition of three can make it 30 %). A
     * unit mixed up is a factor of 1,000 or more. */
    double ts = (w->v[F_PROMPT] + w->v[F_GEN]) * 1e9 / w->v[F_AVG_NS], cv = w->v[F_STDDEV_TS] / w->v[F_AVG_TS];
    if (fabs(ts / w->v[F_AVG_TS] - 1.0) > 0.15 + 3.0 * cv * cv)
      return ls_error_set(err, LS_EUNIT, "%s: mixed units: avg_ts = %g tokens/s but (n_prompt + n_gen) / avg_ns "
                          "gives %g tokens/s (avg_ts must be tokens/s and avg_ns nanoseconds)", w->loc[F_AVG_NS],
                          w->v[F_AVG_TS], ts);
  }
  const char *q = quant_of(w->type);
  if (!q)
    return ls_error_set(err, LS_EINVALID, "%s: model_type '%s' names no supported quantisation (q4_0, q8_0, f16)",
                        at, w->type);
  ls_bench_row *r = new_row(in, err);
  if (!r)
    return err->code;
  if (model_id)
    snprintf(r->model, sizeof r->model, "%s", model_id);
  else if (ls_calib_model_for(data_root, w->filename, r->model, err))
    return ls_error_wrap(err, "%s", at);
  snprintf(r->where, sizeof r->where, "%s", at);
  snprintf(r->file, sizeof r->file, "%s", file);
  snprintf(r->tag, sizeof r->tag, "r%d", index);
  snprintf(r->quant, sizeof r->quant, "%s", q);
  r->backend = backend_of(w->backends, (long)w->v[F_NGL]);
  snprintf(r->backends, sizeof r->backends, "%s", w->backends[0] ? w->backends : "CPU");
  r->threads = w->v[F_THREADS] < 1 ? 1 : (int)w->v[F_THREADS];
  r->n_prompt = (int)w->v[F_PROMPT];
  r->n_gen = (int)w->v[F_GEN];
  r->n_depth = isnan(w->v[F_DEPTH]) ? 0 : (int)w->v[F_DEPTH];
  r->avg_ts = w->v[F_AVG_TS];
  r->stddev_ts = w->v[F_STDDEV_TS];
  in->n_rows++;
  return LS_OK;
}

/* ---- RFC 4180 CSV ---- */

typedef struct csv {
  char *p;      /* parse position (the buffer is modified in place) */
  int line;     /* line of p */
  const char *line_start; /* where that line starts (columns are counted from it) */
  const char *file;
} csv;

/* Reads one record into cells (pointers into the buffer) and the 1-based column each starts
 * at (cols may be NULL); *n cells; *line_out its first line. Returns 1 for a record, 0 at end
 * of input, or a negative status. */
static int csv_record(csv *c, char **cells, int *cols, int max, int *n, int *line_out, ls_error *err)
{
  if (*c->p == '\0')
    return 0;
  *line_out = c->line;
  *n = 0;
  for (;;) {
    if (*n == max)
      return ls_error_at(err, LS_EPARSE, c->file, c->line, 0, "more than %d fields in a record", max);
    char *out = c->p, *start = c->p;
    int col = (int)(start - c->line_start) + 1;
    if (*c->p == '"') {
      int open_line = c->line;
      c->p++;
      for (;;) {
        if (*c->p == '\0')
          return ls_error_at(err, LS_EPARSE, c->file, open_line, 0, "unterminated quoted field");
        if (*c->p == '"' && c->p[1] == '"') {
          *out++ = '"';
          c->p += 2;
        } else if (*c->p == '"') {
          c->p++;
          break;
        } else {
          if (*c->p == '\n') {
            c->line++;
            c->line_start = c->p + 1;
          }
          *out++ = *c->p++;
        }
      }
      if (*c->p != ',' && *c->p != '\n' && *c->p != '\r' && *c->p != '\0')
        return ls_error_at(err, LS_EPARSE, c->file, c->line, 0, "text after a closing quote");
    } else {
      while (*c->p != ',' && *c->p != '\n' && *c->p != '\r' && *c->p != '\0') {
        if (*c->p == '"')
          return ls_error_at(err, LS_EPARSE, c->file, c->line, 0, "a quote inside an unquoted field");
        out++;
        c->p++;
      }
    }
    char sep = *c->p;
    *out = '\0';
    if (cols)
      cols[*n] = col;
    cells[(*n)++] = start;
    if (sep == ',') {
      c->p++;
      continue;
    }
    if (sep == '\r' && c->p[1] == '\n')
      c->p++;
    if (sep != '\0') {
      c->p++;
      c->line++;
      c->line_start = c->p;
    }
    return 1;
  }
}

static int col_index(char **hdr, int n, const char *name)
{
  for (int i = 0; i < n; i++)
    if (strcmp(hdr[i], name) == 0)
      return i;
  return -1;
}

/* Cell idx as a number into w->v[k] (NAN when the column is absent or, for optional ones,
 * empty), its location into w->loc[k]. Returns 0 or a negative status. */
static int csv_num(char **cells, const int *cols, int idx, int k, const char *path, int line, raw_row *w,
                   ls_error *err)
{
  w->v[k] = NAN;
  snprintf(w->loc[k], sizeof w->loc[k], "%s:%d:%d", path, line, idx >= 0 ? cols[idx] : 0);
  if (idx < 0)
    return LS_OK;
  const char *s = cells[idx];
  if (s[0] == '\0') /* an empty cell: absent (optional columns) or an error */
    return (k == F_AVG_NS || k == F_DEPTH) ? LS_OK
                                           : ls_error_at(err, LS_ESCHEMA, path, line, cols[idx], "%s is empty", FIELD[k]);
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0')
    return ls_error_at(err, LS_EPARSE, path, line, cols[idx], "%s = '%s': not a number", FIELD[k], s);
  if (!isfinite(v))
    return ls_error_at(err, LS_ERANGE, path, line, cols[idx], "%s = '%s': must be a finite number", FIELD[k], s);
  w->v[k] = v;
  return LS_OK;
}

/* A record equal to the header: the next file of concatenated llama-bench outputs. */
static int is_header(char **cells, int n, char **hdr, int nh)
{
  if (n != nh)
    return 0;
  for (int i = 0; i < n; i++)
    if (strcmp(cells[i], hdr[i]) != 0)
      return 0;
  return 1;
}

static const char *const REQUIRED[] = {"model_filename", "model_type", "backends", "n_threads", "n_gpu_layers",
                                       "n_prompt", "n_gen", "avg_ts", "stddev_ts", NULL};

static int read_bench_csv(ls_calib_inputs *in, char *text, const char *path, const char *root, const char *model,
                          ls_error *err)
{
  csv c = {text, 1, text, path};
  char *hdr[MAX_COLS], *cells[MAX_COLS];
  int cols[MAX_COLS], nh, n, line, rc = csv_record(&c, hdr, NULL, MAX_COLS, &nh, &line, err);
  if (rc < 0)
    return rc;
  if (rc == 0)
    return ls_error_at(err, LS_EPARSE, path, 1, 0, "empty file");
  if (col_index(hdr, nh, "avg_ts") < 0 && col_index(hdr, nh, "n_prompt") < 0 && col_index(hdr, nh, "n_gen") < 0)
    return ls_error_at(err, LS_ESCHEMA, path, 1, 0, "not llama-bench output: the header has none of avg_ts, "
                       "n_prompt, n_gen (a file from another tool? llama-bench writes it with -o csv)");
  int ix[16];
  for (int k = 0; REQUIRED[k]; k++)
    if ((ix[k] = col_index(hdr, nh, REQUIRED[k])) < 0)
      return ls_error_at(err, LS_ESCHEMA, path, 1, 0, "missing column '%s' (llama-bench -o csv writes it)",
                         REQUIRED[k]);
  /* column of each field, in FIELD order */
  int fx[N_FIELDS] = {ix[3], ix[4], ix[5], ix[6], col_index(hdr, nh, "n_depth"), ix[7], ix[8],
                      col_index(hdr, nh, "avg_ns")};
  int index = 0;
  raw_row *w = malloc(sizeof *w);
  if (!w)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  while ((rc = csv_record(&c, cells, cols, MAX_COLS, &n, &line, err)) == 1) {
    if (n == 1 && cells[0][0] == '\0')
      continue; /* blank line */
    if (is_header(cells, n, hdr, nh))
      continue; /* concatenated outputs: each file starts with the same header */
    char at[LS_CALIB_WHERE];
    snprintf(at, sizeof at, "%s:%d", path, line);
    if (n != nh) {
      rc = ls_error_at(err, LS_EPARSE, path, line, 0, "%d fields, the header has %d", n, nh);
      break;
    }
    rc = LS_OK;
    w->filename = cells[ix[0]];
    w->type = cells[ix[1]];
    w->backends = cells[ix[2]];
    for (int k = 0; k < N_FIELDS && !rc; k++)
      rc = csv_num(cells, cols, fx[k], k, path, line, w, err);
    if (rc || (rc = finish_row(in, w, path, at, ++index, root, model, err)))
      break;
  }
  free(w);
  if (rc < 0)
    return rc;
  if (index == 0)
    return ls_error_at(err, LS_ESCHEMA, path, 1, 0, "no rows after the header");
  return LS_OK;
}

/* ---- JSON ---- */

/* A jansson syntax error located in the file (skipped: lines before the parsed text). */
static int json_syntax(const json_error_t *je, const char *path, int skipped, ls_error *err)
{
  return ls_error_at(err, LS_EPARSE, path, je->line > 0 ? je->line + skipped : 0, je->column > 0 ? je->column : 0,
                     "malformed JSON: %s", je->text);
}

/* Member key of obj as a number (NAN when absent and not required); numbers written as
 * strings are tolerated, as some converters write them. */
static double json_num(json_t *obj, const char *key, const char *at, int required, int *bad, ls_error *err)
{
  json_t *v = json_object_get(obj, key);
  if (!v) {
    if (required && !*bad)
      *bad = ls_error_set(err, LS_ESCHEMA, "%s: missing key '%s'", at, key);
    return NAN;
  }
  if (json_is_string(v)) {
    char *end;
    double d = strtod(json_string_value(v), &end);
    if (end != json_string_value(v) && *end == '\0' && !isfinite(d) && !*bad) /* "nan" is not "absent" */
      *bad = ls_error_set(err, LS_ERANGE, "%s.%s = '%s': must be a finite number", at, key, json_string_value(v));
    if (end != json_string_value(v) && *end == '\0')
      return d;
  }
  if (!json_is_number(v)) {
    if (!*bad)
      *bad = ls_error_set(err, LS_ESCHEMA, "%s.%s: expected a number", at, key);
    return NAN;
  }
  return json_number_value(v);
}

static const char *json_str(json_t *obj, const char *key, const char *at, int *bad, ls_error *err)
{
  json_t *v = json_object_get(obj, key);
  if (!json_is_string(v)) {
    if (!*bad)
      *bad = ls_error_set(err, LS_ESCHEMA, "%s: %s key '%s'", at, v ? "expected a string at" : "missing", key);
    return "";
  }
  return json_string_value(v);
}

static int bench_object(ls_calib_inputs *in, json_t *o, const char *path, const char *at, int index, const char *root,
                        const char *model, ls_error *err)
{
  if (!json_is_object(o))
    return ls_error_set(err, LS_ESCHEMA, "%s: expected an object (one llama-bench test)", at);
  static const int required[N_FIELDS] = {1, 1, 1, 1, 0, 1, 1, 0};
  int bad = 0;
  raw_row *w = malloc(sizeof *w);
  if (!w)
    return ls_error_set(err, LS_ENOMEM, "calibrate: out of memory");
  w->filename = json_str(o, "model_filename", at, &bad, err);
  w->type = json_str(o, "model_type", at, &bad, err);
  w->backends = json_str(o, "backends", at, &bad, err);
  for (int k = 0; k < N_FIELDS; k++) {
    w->v[k] = json_num(o, FIELD[k], at, required[k], &bad, err);
    snprintf(w->loc[k], sizeof w->loc[k], "%s.%s", at, FIELD[k]);
  }
  int rc = bad ? bad : finish_row(in, w, path, at, index, root, model, err);
  free(w);
  return rc;
}

static int is_fio(json_t *root)
{
  return json_is_object(root) && (json_object_get(root, "fio version") || json_object_get(root, "jobs"));
}

static int read_bench_json(ls_calib_inputs *in, const char *text, const char *path, const char *root,
                           const char *model, ls_error *err)
{
  json_error_t je;
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  char at[LS_CALIB_WHERE];
  if (*p == '[') {
    json_t *doc = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
      return json_syntax(&je, path, 0, err);
    int rc = LS_OK;
    size_t n = json_array_size(doc);
    if (n == 0)
      rc = ls_error_set(err, LS_ESCHEMA, "%s: $: an empty array (no llama-bench tests)", path);
    for (size_t i = 0; i < n && !rc; i++) {
      snprintf(at, sizeof at, "%s: $[%zu]", path, i);
      rc = bench_object(in, json_array_get(doc, i), path, at, (int)i + 1, root, model, err);
    }
    json_decref(doc);
    return rc;
  }
  /* JSONL: one object a line (or one object that is a file from another tool). */
  json_t *whole = json_loads(text, 0, &je);
  if (whole && is_fio(whole)) {
    json_decref(whole);
    return ls_error_set(err, LS_ESCHEMA, "%s: $: a fio result (it has \"fio version\"/\"jobs\"), not llama-bench "
                        "output: pass it with --fio", path);
  }
  json_decref(whole);
  int line = 1, index = 0, rc = LS_OK;
  for (const char *s = text; *s && !rc; line++) {
    const char *e = strchr(s, '\n');
    size_t len = e ? (size_t)(e - s) : strlen(s);
    int blank = 1;
    for (size_t k = 0; k < len; k++)
      blank &= isspace((unsigned char)s[k]) != 0;
    if (!blank) {
      json_t *o = json_loadb(s, len, JSON_REJECT_DUPLICATES, &je);
      if (!o)
        return ls_error_at(err, LS_EPARSE, path, line, je.column > 0 ? je.column : 0, "malformed JSON: %s", je.text);
      snprintf(at, sizeof at, "%s:%d: $", path, line);
      rc = bench_object(in, o, path, at, ++index, root, model, err);
      json_decref(o);
    }
    s = e ? e + 1 : s + len;
  }
  if (!rc && index == 0)
    rc = ls_error_at(err, LS_EPARSE, path, 1, 0, "no llama-bench tests in the file");
  return rc;
}

/* ---- llama-bench's default output: a Markdown table ----
 * | model | size | params | backend | [ngl] | [threads] | ... | test | t/s |, one row per test:
 * model is model_type ("qwen3 4B Q4_0"); ngl appears for non-CPU backends (absent: 0), threads
 * for CPU backends or when not the default; test is ppN, tgN or ppN+tgM, " @ dD" with a depth;
 * t/s is "avg ± stddev". There is no model_filename: the model comes from the caller, else
 * from model_type by the same rule as a file name. Other lines (build info, logs) are skipped. */

/* Splits a table line "| a | b |" into trimmed cells (in place); returns their count. */
static int md_cells(char *line, char **cells, int max)
{
  int n = 0;
  char *p = strchr(line, '|');
  while (p && n < max) {
    char *start = p + 1, *end = strchr(start, '|');
    if (!end) break;
    *end = '\0';
    while (isspace((unsigned char)*start)) start++;
    char *t = end;
    while (t > start && isspace((unsigned char)t[-1])) *--t = '\0';
    cells[n++] = start;
    p = end;
  }
  return n;
}

/* "pp512", "tg128", "pp512+tg128", each optionally " @ d512". */
static int md_test(const char *s, double *pp, double *tg, double *depth)
{
  *pp = *tg = 0;
  *depth = NAN;
  char *end;
  if (!strncmp(s, "pp", 2)) {
    *pp = strtod(s + 2, &end);
    s = end;
    if (*s == '+') s++;
  }
  if (!strncmp(s, "tg", 2)) {
    *tg = strtod(s + 2, &end);
    s = end;
  }
  if (!strncmp(s, " @ d", 4)) {
    *depth = strtod(s + 4, &end);
    s = end;
  }
  return *s == '\0' && *pp + *tg > 0 ? 0 : -1;
}

static int md_row(ls_calib_inputs *in, char **cells, int n, const int *ix, const char *path, int line,
                  int index, const char *root, const char *model, ls_error *err)
{
  enum { C_MODEL, C_BACKEND, C_NGL, C_THREADS, C_TEST, C_TS };
  raw_row w;
  char at[LS_CALIB_WHERE], id[64];
  snprintf(at, sizeof at, "%s:%d", path, line);
  for (int k = 0; k < N_FIELDS; k++) {
    w.v[k] = NAN;
    snprintf(w.loc[k], sizeof w.loc[k], "%s", at);
  }
  if (n <= ix[C_TS])
    return ls_error_at(err, LS_EPARSE, path, line, 0, "%d cells, the header has more", n);
  w.filename = w.type = cells[ix[C_MODEL]];
  w.backends = cells[ix[C_BACKEND]];
  w.v[F_NGL] = ix[C_NGL] >= 0 ? strtod(cells[ix[C_NGL]], NULL) : 0;
  w.v[F_THREADS] = ix[C_THREADS] >= 0 ? strtod(cells[ix[C_THREADS]], NULL) : 0;
  if (md_test(cells[ix[C_TEST]], &w.v[F_PROMPT], &w.v[F_GEN], &w.v[F_DEPTH]))
    return ls_error_at(err, LS_EPARSE, path, line, 0, "test '%s': expected ppN, tgN or ppN+tgM (\" @ dD\")",
                       cells[ix[C_TEST]]);
  char *end;
  w.v[F_AVG_TS] = strtod(cells[ix[C_TS]], &end);
  while (isspace((unsigned char)*end)) end++;
  if (end == cells[ix[C_TS]])
    return ls_error_at(err, LS_EPARSE, path, line, 0, "t/s '%s': not a number", cells[ix[C_TS]]);
  /* "± 0.16" (UTF-8 plus-minus), or "+/- 0.16", or nothing (no repetitions: 0) */
  if (!strncmp(end, "\xc2\xb1", 2)) end += 2;
  else if (!strncmp(end, "+/-", 3)) end += 3;
  w.v[F_STDDEV_TS] = *end ? strtod(end, NULL) : 0;
  if (!model && ls_calib_model_for(root, w.type, id, err))
    return ls_error_set(err, LS_EINVALID, "%s: the Markdown table names the model only by its type ('%s'), "
                        "which matches no id of workloads/models: give it with --llama-bench %s:MODEL "
                        "(e.g. %s:qwen3-4b) or --model MODEL", at, w.type, path, path);
  return finish_row(in, &w, path, at, index, root, model ? model : id, err);
}

static int read_bench_md(ls_calib_inputs *in, char *text, const char *path, const char *root, const char *model,
                         ls_error *err)
{
  enum { MAXC = 40 };
  static const char *const COLS[] = {"model", "backend", "ngl", "threads", "test", "t/s"};
  char *cells[MAXC];
  int ix[6], have_header = 0, index = 0, line = 0, rc = LS_OK;
  for (char *s = text, *nl; rc == LS_OK && s && *s; s = nl ? nl + 1 : NULL) {
    nl = strchr(s, '\n');
    if (nl) *nl = '\0';
    line++;
    char *p = s;
    while (isspace((unsigned char)*p)) p++;
    if (*p != '|') continue; /* build info, logs, blank lines */
    int n = md_cells(p, cells, MAXC);
    if (!have_header) {
      for (int k = 0; k < 6; k++) ix[k] = col_index(cells, n, COLS[k]);
      if (ix[0] < 0 || ix[1] < 0 || ix[4] < 0 || ix[5] < 0)
        return ls_error_at(err, LS_ESCHEMA, path, line, 0, "not llama-bench output: a table without the "
                           "columns model, backend, test and t/s");
      have_header = 1;
    } else if (n > 0 && strspn(cells[0], "-:") == strlen(cells[0]) && cells[0][0]) {
      continue; /* the |---|---:| line */
    } else {
      rc = md_row(in, cells, n, ix, path, line, ++index, root, model, err);
    }
  }
  if (rc == LS_OK && index == 0)
    rc = ls_error_at(err, LS_ESCHEMA, path, 1, 0, "no llama-bench table rows in the file");
  return rc;
}

int ls_calib_read_bench(ls_calib_inputs *in, const char *path, const char *data_root, const char *model_id,
                        ls_error *err)
{
  if (model_id) {
    ls_model *m;
    /* a model id named on the command line that names no model is "not found" (66), as in
     * `leversim run --model`; a model file that cannot be read keeps its own status */
    if (ls_model_load_id(&m, data_root, model_id, err))
      return ls_error_wrap(err, "--model (or %s:MODEL)", path);
    ls_model_free(m);
  }
  char *text = ls_calib_slurp(path, err);
  if (!text)
    return err->code;
  const char *p = text;
  while (isspace((unsigned char)*p))
    p++;
  /* a Markdown table: a line opening with '|' (maybe after log lines); CSV and JSON have none */
  int md = 0;
  for (const char *q = p; !md && q && *q; q = strchr(q, '\n') ? strchr(q, '\n') + 1 : NULL) {
    while (*q == ' ' || *q == '\t') q++;
    md = *q == '|';
  }
  int rc = md ? read_bench_md(in, text, path, data_root, model_id, err)
              : (*p == '[' || *p == '{') ? read_bench_json(in, text, path, data_root, model_id, err)
                                         : read_bench_csv(in, text, path, data_root, model_id, err);
  free(text);
  return rc;
}

/* ---- fio ---- */

/* fio sizes: a number with an optional k/m/g suffix (powers of 1024, fio's default kb_base),
 * an optional trailing "b"/"ib"; of a "read,write" pair the read size. */
static int fio_size(const char *text, double *out)
{
  char s[64], *end;
  snprintf(s, sizeof s, "%s", text);
  s[strcspn(s, ",:")] = '\0'; /* "4k,64k": read size first; "4k:..." likewise */
  double v = strtod(s, &end);
  if (end == s || !(v > 0))
    return -1;
  double mul = 1;
  switch (tolower((unsigned char)*end)) {
  case 'k': mul = 1024.0; end++; break;
  case 'm': mul = 1048576.0; end++; break;
  case 'g': mul = 1073741824.0; end++; break;
  default: break;
  }
  if (tolower((unsigned char)*end) == 'i')
    end++;
  if (tolower((unsigned char)*end) == 'b')
    end++;
  if (*end != '\0')
    return -1;
  *out = v * mul;
  return 0;
}

/* Option value: the job's own, else the global one, else NULL; *where receives its JSON path
 * ("$.jobs[3][\"job options\"].bs" or "$[\"global options\"].bs"). */
static const char *fio_opt(json_t *job, json_t *global, const char *key, const char *path, size_t i, char *where,
                           size_t size)
{
  json_t *v = json_object_get(json_object_get(job, "job options"), key);
  if (v) {
    snprintf(where, size, "%s: $.jobs[%zu][\"job options\"].%s", path, i, key);
  } else {
    v = json_object_get(global, key);
    snprintf(where, size, "%s: $[\"global options\"].%s", path, key);
  }
  return json_is_string(v) ? json_string_value(v) : v ? "" : NULL;
}

/* A whole number in [lo, hi] from an option's text; -1 when it is not one. */
static long fio_int(const char *text, long lo, long hi)
{
  char *end;
  errno = 0;
  long v = strtol(text, &end, 10);
  return (end == text || *end != '\0' || errno || v < lo || v > hi) ? -1 : v;
}

static ls_fio_job *new_job(ls_calib_inputs *in, ls_error *err)
{
  void *moved;
  ls_fio_job *j = grow(in->jobs, in->n_jobs, &in->cap_jobs, sizeof *in->jobs, &moved, err);
  in->jobs = moved;
  return j;
}

static int fio_percentiles(ls_fio_job *j, json_t *read, const char *at, ls_error *err)
{
  json_t *clat = json_object_get(read, "clat_ns");
  if (!clat) {
    if (json_object_get(read, "clat_us") || json_object_get(read, "clat"))
      return ls_error_set(err, LS_EUNIT, "%s.read: mixed units: completion latency in microseconds (clat_us/clat, "
                          "fio 2.x); need clat_ns (fio 3)", at);
    return ls_error_set(err, LS_ESCHEMA, "%s.read: missing key 'clat_ns'", at);
  }
  json_t *pct = json_object_get(clat, "percentile");
  if (!json_is_object(pct))
    return LS_OK; /* fio ran with percentiles off: bandwidth only */
  const char *key;
  json_t *v;
  json_object_foreach(pct, key, v) {
    double p = strtod(key, NULL), ns = json_number_value(v);
    if (!json_is_number(v) || !(ns > 0) || !(p > 0 && p < 100))
      return ls_error_set(err, LS_ERANGE, "%s.read.clat_ns.percentile[\"%s\"]: must be a latency > 0 ns", at, key);
    if (j->n_pct == LS_CALIB_PCT_MAX)
      break;
    int k = j->n_pct++; /* keep sorted by percentile */
    while (k > 0 && j->pct[k - 1] > p) {
      j->pct[k] = j->pct[k - 1];
      j->clat_s[k] = j->clat_s[k - 1];
      k--;
    }
    j->pct[k] = p;
    j->clat_s[k] = ns * 1e-9;
  }
  for (int k = 1; k < j->n_pct; k++)
    if (j->clat_s[k] < j->clat_s[k - 1])
      return ls_error_set(err, LS_ERANGE, "%s.read.clat_ns.percentile: latencies fall with the percentile", at);
  return LS_OK;
}

/* Buffered random reads with an engine whose submission blocks until the data is in (the read
 * happens inside io_submit or the read call; all but io_uring): one request in flight,
 * whatever iodepth says. Sequential buffered reads keep the device busy through the kernel's
 * readahead, so their iodepth stands. */
static int blocking_buffered(const char *engine, const char *rw)
{
  int random = rw && strncmp(rw, "rand", 4) == 0;
  return random && (!engine || strcmp(engine, "io_uring") != 0);
}

/* The job's read-side numbers (located at $.jobs[i].read.KEY). */
static int fio_read_side(ls_fio_job *j, json_t *read, const char *at, ls_error *err)
{
  char rat[LS_CALIB_WHERE];
  snprintf(rat, sizeof rat, "%s.read", at);
  int bad = 0;
  double bw = json_num(read, "bw_bytes", rat, 1, &bad, err), iops = json_num(read, "iops", rat, 1, &bad, err);
  double kib = json_num(read, "bw", rat, 0, &bad, err), dev = json_num(read, "bw_dev", rat, 0, &bad, err);
  double ios = json_num(read, "total_ios", rat, 0, &bad, err);
  double slat = json_num(json_object_get(read, "slat_ns"), "mean", rat, 0, &bad, err);
  if (bad)
    return bad;
  if (!(bw > 0) || !isfinite(bw))
    return ls_error_set(err, LS_ERANGE, "%s.bw_bytes = %g: must be a rate > 0", rat, bw);
  if (!(iops > 0) || !isfinite(iops))
    return ls_error_set(err, LS_ERANGE, "%s.iops = %g: must be a rate > 0", rat, iops);
  if (!isnan(dev) && !(dev >= 0 && isfinite(dev)))
    return ls_error_set(err, LS_ERANGE, "%s.bw_dev = %g: must be >= 0", rat, dev);
  if (!isnan(slat) && !(slat >= 0 && slat < 1e10))
    return ls_error_set(err, LS_ERANGE, "%s.slat_ns.mean = %g: must be >= 0 ns", rat, slat);
  if (!isnan(kib) && fabs(kib * 1024.0 / bw - 1.0) > 0.02)
    return ls_error_set(err, LS_EUNIT, "%s: mixed units: bw = %g (KiB/s) but bw_bytes = %g B/s", rat, kib, bw);
  j->bw = bw;
  j->bw_dev = isnan(dev) ? 0.0 : dev * 1024.0;
  j->iops = iops;
  j->slat_s = isnan(slat) ? 0.0 : slat * 1e-9;
  j->total_ios = isnan(ios) ? 0.0 : ios;
  return LS_OK;
}

/* One job's options: bs, iodepth, direct, ioengine (each located where it was given). */
static int fio_options(ls_fio_job *j, json_t *job, json_t *global, const char *path, size_t i, ls_error *err)
{
  char w_bs[LS_CALIB_WHERE], w_qd[LS_CALIB_WHERE], w_dir[LS_CALIB_WHERE], w_eng[LS_CALIB_WHERE];
  const char *bs_s = fio_opt(job, global, "bs", path, i, w_bs, sizeof w_bs);
  const char *qd_s = fio_opt(job, global, "iodepth", path, i, w_qd, sizeof w_qd);
  const char *direct = fio_opt(job, global, "direct", path, i, w_dir, sizeof w_dir);
  const char *engine = fio_opt(job, global, "ioengine", path, i, w_eng, sizeof w_eng);
  const char *rw = fio_opt(job, global, "rw", path, i, w_eng, sizeof w_eng);
  if (!bs_s)
    bs_s = "4k"; /* fio's default block size */
  if (fio_size(bs_s, &j->bs))
    return ls_error_set(err, LS_EPARSE, "%s = '%s': not a size (4k, 128k, 1m)", w_bs, bs_s);
  long qd = qd_s ? fio_int(qd_s, 1, 65536) : 1;
  if (qd < 0)
    return ls_error_set(err, LS_ERANGE, "%s = '%s': must be a whole number 1..65536", w_qd, qd_s);
  long d = direct ? fio_int(direct, 0, 1) : 0;
  if (d < 0)
    return ls_error_set(err, LS_ERANGE, "%s = '%s': must be 0 or 1", w_dir, direct);
  j->iodepth = (int)qd;
  j->direct = (int)d;
  j->eff_qd = (j->direct || !blocking_buffered(engine, rw)) ? j->iodepth : 1;
  return LS_OK;
}

/* One job; jobs that read nothing (write-only) are skipped. */
static int fio_job(ls_calib_inputs *in, json_t *job, json_t *global, const char *path, size_t i, ls_error *err)
{
  char at[LS_CALIB_WHERE];
  snprintf(at, sizeof at, "%s: $.jobs[%zu]", path, i);
  if (!json_is_object(job))
    return ls_error_set(err, LS_ESCHEMA, "%s: expected an object (one fio job)", at);
  json_t *e = json_object_get(job, "error");
  if (e && !json_is_integer(e))
    return ls_error_set(err, LS_ESCHEMA, "%s.error: expected fio's error number (an integer)", at);
  if (e && json_integer_value(e) != 0)
    return ls_error_set(err, LS_EINVALID, "%s.error = %lld: fio reports that this job failed (%s); its numbers are "
                        "not a measurement", at, (long long)json_integer_value(e),
                        json_integer_value(e) > 0 && json_integer_value(e) < 4096 ? strerror((int)json_integer_value(e))
                                                                                   : "unknown error");
  json_t *read = json_object_get(job, "read");
  if (!json_is_object(read))
    return ls_error_set(err, LS_ESCHEMA, "%s: missing key 'read' (fio --output-format=json writes one per job)", at);
  json_t *io = json_object_get(read, "io_bytes");
  if (json_is_number(io) && json_number_value(io) == 0)
    return LS_OK; /* a write-only job */
  ls_fio_job *j = new_job(in, err);
  if (!j)
    return err->code;
  int rc = fio_read_side(j, read, at, err);
  if (!rc)
    rc = fio_options(j, job, global, path, i, err);
  if (rc)
    return rc;
  if (fabs(j->bw / j->iops / j->bs - 1.0) > 0.1)
    return ls_error_set(err, LS_EUNIT, "%s.read: mixed units: bs = %.0f B but bw_bytes / iops = %.0f B per request", at,
                        j->bs, j->bw / j->iops);
  if ((rc = fio_percentiles(j, read, at, err)))
    return rc;
  json_t *name = json_object_get(job, "jobname");
  snprintf(j->name, sizeof j->name, "%s", json_is_string(name) ? json_string_value(name) : "job");
  snprintf(j->where, sizeof j->where, "%s", at);
  snprintf(j->file, sizeof j->file, "%s", path);
  snprintf(j->tag, sizeof j->tag, "j%zu", i + 1);
  in->n_jobs++;
  return LS_OK;
}

int ls_calib_read_fio(ls_calib_inputs *in, const char *path, ls_error *err)
{
  char *text = ls_calib_slurp(path, err);
  if (!text)
    return err->code;
  /* fio prints notes ("note: both iodepth >= 1 and synchronous I/O engine ...") on stdout
   * before the JSON: start at the first line that opens an object or array. */
  const char *p = text;
  int skipped = 0;
  while (*p && *p != '{' && *p != '[') {
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
    skipped++;
  }
  json_error_t je;
  json_t *doc = *p ? json_loads(p, JSON_REJECT_DUPLICATES, &je) : NULL;
  int rc = LS_OK;
  if (!*p)
    rc = ls_error_at(err, LS_ESCHEMA, path, 1, 0, "not fio JSON (run fio with --output-format=json)");
  else if (!doc)
    rc = json_syntax(&je, path, skipped, err);
  else if (json_is_array(doc) || !is_fio(doc))
    rc = ls_error_set(err, LS_ESCHEMA, "%s: $: not fio JSON (no \"fio version\"/\"jobs\")%s", path,
                      json_is_array(doc) ? ": an array, as llama-bench -o json writes (pass it with --llama-bench)" : "");
  json_t *jobs = doc ? json_object_get(doc, "jobs") : NULL;
  if (!rc && !json_is_array(jobs))
    rc = ls_error_set(err, LS_ESCHEMA, "%s: $.jobs: expected an array", path);
  int before = in->n_jobs;
  for (size_t i = 0; !rc && i < json_array_size(jobs); i++)
    rc = fio_job(in, json_array_get(jobs, i), json_object_get(doc, "global options"), path, i, err);
  if (!rc && in->n_jobs == before)
    rc = ls_error_set(err, LS_ESCHEMA, "%s: $.jobs: no job read anything", path);
  json_decref(doc);
  free(text);
  return rc;
}

void ls_calib_inputs_free(ls_calib_inputs *in)
{
  free(in->rows);
  free(in->jobs);
  memset(in, 0, sizeof *in);
}
