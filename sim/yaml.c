/* sim/yaml: see yaml.h.
 * Invariants: a loaded ls_ydoc holds one libyaml document whose mappings have no duplicate
 * keys; `asked` lists (mapping id, key) pairs looked up so far, without repeats. */
#include "sim/yaml.h"
#include "sim/fileio.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#define LS_YMAX_DEPTH 256          /* nesting levels */
#define LS_YMAX_ALIASES 1024       /* aliases (*name) in one document */
#define LS_YAML_MAX_BYTES (64L << 20) /* no profile, model or experiment comes near */

typedef struct {
  int map_id;
  char *key; /* owned: keys of any length must match exactly */
} asked_key;

struct ls_ydoc {
  yaml_document_t doc;
  char name[LS_ERR_FILE];
  asked_key *asked;
  int n_asked, cap_asked;
  int *slot;      /* owned: open-addressing index of asked (i + 1; 0 empty), so a lookup */
  size_t n_slot;  /* costs O(1) and a document of many mappings is read in linear time */
};

static yaml_node_t *node_of(const ls_ynode *n)
{
  return yaml_document_get_node(&n->doc->doc, n->id);
}

const char *ls_ydoc_name(const ls_ydoc *d) { return d->name; }

ls_ynode ls_ydoc_root(ls_ydoc *d)
{
  ls_ynode r = {d, 1, ""};
  return r;
}

ls_ykind ls_ynode_kind(const ls_ynode *n)
{
  yaml_node_t *y = node_of(n);
  if (!y)
    return LS_Y_NONE;
  switch (y->type) {
  case YAML_SCALAR_NODE: return LS_Y_SCALAR;
  case YAML_MAPPING_NODE: return LS_Y_MAP;
  case YAML_SEQUENCE_NODE: return LS_Y_SEQ;
  default: return LS_Y_NONE;
  }
}

int ls_ynode_line(const ls_ynode *n)
{
  yaml_node_t *y = node_of(n);
  return y ? (int)y->start_mark.line + 1 : 0;
}

int ls_ynode_col(const ls_ynode *n)
{
  yaml_node_t *y = node_of(n);
  return y ? (int)y->start_mark.column + 1 : 0;
}

const char *ls_ynode_text(const ls_ynode *n)
{
  yaml_node_t *y = node_of(n);
  return (y && y->type == YAML_SCALAR_NODE) ? (const char *)y->data.scalar.value : NULL;
}

static int vnode_error(const ls_ynode *n, ls_error *err, int code, const char *fmt, va_list ap)
{
  char body[LS_ERR_MSG];
  vsnprintf(body, sizeof body, fmt, ap);
  return ls_error_at(err, code, n->doc->name, ls_ynode_line(n), ls_ynode_col(n), "%s: %s",
                     n->path[0] ? n->path : "(document)", body);
}

int ls_ynode_error(const ls_ynode *n, ls_error *err, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  int rc = vnode_error(n, err, code, fmt, ap);
  va_end(ap);
  return rc;
}

static const char *kind_name(ls_ykind k)
{
  static const char *const N[] = {"nothing", "a scalar", "a mapping", "a sequence"};
  return N[k];
}

int ls_ynode_expect(const ls_ynode *n, ls_ykind k, ls_error *err)
{
  ls_ykind have = ls_ynode_kind(n);
  if (have == k)
    return LS_OK;
  const char *t = ls_ynode_text(n);
  return ls_ynode_error(n, err, LS_ESCHEMA, "wrong type: expected %s, found %s%s%s%s", kind_name(k),
                        kind_name(have), t ? " '" : "", t ? t : "", t ? "'" : "");
}

/* ---- loading ---- */

/* Walks the node graph from the root with the key path in hand, so a duplicate key is
 * reported as "flash.queue_depth", like every other error. seen[] visits a node shared
 * through an alias once (and stops alias cycles such as `&a [*a]`). */
/* libyaml turns a "\\0" escape into a NUL byte inside the scalar; C strings would end there
 * and silently cut the key or value, so a NUL is refused where it stands. */
static int nul_check(ls_ydoc *d, yaml_node_t *y, const char *path, const char *what, ls_error *err)
{
  if (strlen((const char *)y->data.scalar.value) == y->data.scalar.length)
    return LS_OK;
  return ls_error_at(err, LS_EPARSE, d->name, (int)y->start_mark.line + 1,
                     (int)y->start_mark.column + 1, "%s: a NUL byte (\\0) in a %s ('%s...') is "
                     "not allowed", path[0] ? path : "(document)", what,
                     (const char *)y->data.scalar.value);
}

typedef struct key_at {
  const char *key;
  int index, line;
} key_at;

static int key_cmp(const void *a, const void *b)
{
  const key_at *x = a, *y = b;
  int c = strcmp(x->key, y->key);
  return c ? c : x->index - y->index;
}

/* Duplicate keys of one mapping, sorted (n log n: a mapping of many keys must not take
 * quadratic time); the error is at the earliest repeated occurrence. */
static int dup_keys(ls_ydoc *d, yaml_node_t *y, const char *path, ls_error *err)
{
  size_t n = (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start);
  if (n < 2)
    return LS_OK;
  key_at *k = malloc(n * sizeof *k);
  if (!k)
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", d->name);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *ka = yaml_document_get_node(&d->doc, y->data.mapping.pairs.start[i].key);
    k[i] = (key_at){(const char *)ka->data.scalar.value, (int)i, (int)ka->start_mark.line + 1};
  }
  qsort(k, n, sizeof *k, key_cmp);
  int worst = -1, first_line = 0;
  for (size_t i = 1; i < n; i++)
    if (strcmp(k[i].key, k[i - 1].key) == 0 && (worst < 0 || k[i].index < worst)) {
      size_t j = i;
      while (j > 0 && strcmp(k[j - 1].key, k[i].key) == 0) j--;
      worst = k[i].index;
      first_line = k[j].line;
    }
  free(k);
  if (worst < 0)
    return LS_OK;
  yaml_node_t *ka = yaml_document_get_node(&d->doc, y->data.mapping.pairs.start[worst].key);
  char sub[LS_YPATH];
  snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", (const char *)ka->data.scalar.value);
  return ls_error_at(err, LS_ESCHEMA, d->name, (int)ka->start_mark.line + 1,
                     (int)ka->start_mark.column + 1, "%s: duplicate key (first at line %d)", sub,
                     first_line);
}

static int dup_walk(ls_ydoc *d, int id, const char *path, char *seen, int depth, ls_error *err)
{
  yaml_node_t *y = yaml_document_get_node(&d->doc, id);
  if (!y || seen[id])
    return LS_OK;
  seen[id] = 1;
  if (depth > LS_YMAX_DEPTH)
    return ls_error_at(err, LS_ESCHEMA, d->name, (int)y->start_mark.line + 1,
                       (int)y->start_mark.column + 1, "%s: nesting deeper than %d levels",
                       path[0] ? path : "(document)", LS_YMAX_DEPTH);
  char sub[LS_YPATH];
  if (y->type == YAML_SEQUENCE_NODE) {
    int i = 0;
    for (yaml_node_item_t *it = y->data.sequence.items.start; it < y->data.sequence.items.top; it++, i++) {
      snprintf(sub, sizeof sub, "%s[%d]", path, i);
      int rc = dup_walk(d, *it, sub, seen, depth + 1, err);
      if (rc)
        return rc;
    }
    return LS_OK;
  }
  if (y->type == YAML_SCALAR_NODE)
    return nul_check(d, y, path, "value", err);
  if (y->type != YAML_MAPPING_NODE)
    return LS_OK;
  size_t n = (size_t)(y->data.mapping.pairs.top - y->data.mapping.pairs.start);
  for (size_t i = 0; i < n; i++) {
    yaml_node_t *ka = yaml_document_get_node(&d->doc, y->data.mapping.pairs.start[i].key);
    if (ka->type != YAML_SCALAR_NODE)
      return ls_error_at(err, LS_ESCHEMA, d->name, (int)ka->start_mark.line + 1,
                         (int)ka->start_mark.column + 1, "%s: mapping keys must be plain scalars",
                         path[0] ? path : "(document)");
    int rc = nul_check(d, ka, path, "key", err);
    if (rc)
      return rc;
  }
  int rc = dup_keys(d, y, path, err);
  for (yaml_node_pair_t *a = y->data.mapping.pairs.start; !rc && a < y->data.mapping.pairs.top; a++) {
    yaml_node_t *ka = yaml_document_get_node(&d->doc, a->key);
    snprintf(sub, sizeof sub, "%s%s%s", path, path[0] ? "." : "", (const char *)ka->data.scalar.value);
    rc = dup_walk(d, a->value, sub, seen, depth + 1, err);
  }
  return rc;
}

static int check_duplicates(ls_ydoc *d, ls_error *err)
{
  size_t n = (size_t)(d->doc.nodes.top - d->doc.nodes.start);
  char *seen = calloc(n + 2, 1); /* node ids are 1-based */
  if (!seen)
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", d->name);
  int rc = dup_walk(d, 1, "", seen, 0, err);
  free(seen);
  return rc;
}

/* Line and column (1-based, columns in characters as libyaml counts them) of byte offset in
 * the input: libyaml gives reader errors (bad bytes, bad UTF-8) only as a byte offset. The
 * whole input is in memory (files and pipes alike), so every error has a line:col. */
static void offset_mark(const char *text, size_t len, size_t offset, int *line, int *col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < offset && i < len; i++) {
    int c = (unsigned char)text[i];
    if (c == '\n') {
      ++*line;
      *col = 1;
    } else if ((c & 0xC0) != 0x80) { /* not a UTF-8 continuation byte */
      ++*col;
    }
  }
}

/* Reader errors are located by their byte offset, scanner and parser errors by problem_mark;
 * when the construct that failed began on another line (an unclosed quote or bracket), the
 * message also says where it began (context_mark). */
static int parse_error(yaml_parser_t *p, const char *name, const char *text, size_t len,
                       ls_error *err)
{
  const char *problem = p->problem ? p->problem : "parse error";
  if (p->error == YAML_READER_ERROR && strcmp(problem, "input error") == 0)
    return ls_error_set(err, LS_EIO, "%s: cannot read: %s", name, strerror(errno));
  int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
  if (p->error == YAML_READER_ERROR)
    offset_mark(text, len, p->problem_offset, &line, &col);
  if (p->error == YAML_READER_ERROR && p->problem_value >= 0)
    return ls_error_at(err, LS_EPARSE, name, line, col, "malformed YAML: %s (byte 0x%02X)",
                       problem, (unsigned)p->problem_value & 0xFF);
  int cline = (int)p->context_mark.line + 1;
  if (p->context && cline != line)
    return ls_error_at(err, LS_EPARSE, name, line, col, "malformed YAML: %s %s (begun at %d:%d)",
                       problem, p->context, cline, (int)p->context_mark.column + 1);
  return ls_error_at(err, LS_EPARSE, name, line, col, "malformed YAML: %s%s%s", problem,
                     p->context ? " " : "", p->context ? p->context : "");
}

/* The tag of a scalar, sequence or mapping event ("" when none). */
static const char *tag_of(const yaml_event_t *e)
{
  const yaml_char_t *t = e->type == YAML_SCALAR_EVENT           ? e->data.scalar.tag
                         : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.tag
                         : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.tag
                                                                : NULL;
  return t ? (const char *)t : "";
}

/* Only the core schema's tags (!!str, !!int, ...) say what leversim reads anyway; any other
 * (!!binary, !!python/object, a local !tag) would be silently read as plain text. */
static int tag_known(const yaml_event_t *e)
{
  static const char *const CORE[] = {"str", "int", "float", "bool", "null", "map", "seq", NULL};
  const char *t = tag_of(e), *pre = "tag:yaml.org,2002:";
  if (!*t) return 1;
  if (strncmp(t, pre, strlen(pre)) != 0) return 0;
  for (int i = 0; CORE[i]; i++)
    if (!strcmp(t + strlen(pre), CORE[i])) return 1;
  return 0;
}

/* Limits checked on libyaml's events before the document is built: libyaml's scanner spends
 * time proportional to the open flow levels on every token, so 20000 nested brackets took
 * 15 s; stopping at the first level past LS_YMAX_DEPTH keeps reading linear in the input.
 * Aliases are counted too. A malformed input is left to the load, which reports it. */
static int check_limits(const char *name, const char *text, size_t len, ls_error *err)
{
  yaml_parser_t p;
  yaml_event_t e;
  int depth = 0, aliases = 0, rc = LS_OK, done = 0;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  while (!done && rc == LS_OK && yaml_parser_parse(&p, &e)) {
    int line = (int)e.start_mark.line + 1, col = (int)e.start_mark.column + 1;
    if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT) depth++;
    if (e.type == YAML_SEQUENCE_END_EVENT || e.type == YAML_MAPPING_END_EVENT) depth--;
    if (e.type == YAML_ALIAS_EVENT) aliases++;
    done = e.type == YAML_STREAM_END_EVENT;
    int bad_tag = !tag_known(&e);
    char tag[64];
    if (bad_tag) snprintf(tag, sizeof tag, "%s", tag_of(&e));
    yaml_event_delete(&e);
    if (bad_tag)
      rc = ls_error_at(err, LS_EPARSE, name, line, col, "YAML tag '%s' is not supported: a value "
                       "would be read as plain text, not as the tag says (remove the tag)", tag);
    else if (depth > LS_YMAX_DEPTH)
      rc = ls_error_at(err, LS_ESCHEMA, name, line, col, "nesting deeper than %d levels",
                       LS_YMAX_DEPTH);
    else if (aliases > LS_YMAX_ALIASES)
      rc = ls_error_at(err, LS_ESCHEMA, name, line, col, "more than %d aliases",
                       LS_YMAX_ALIASES);
  }
  yaml_parser_delete(&p);
  return rc;
}

static int load(ls_ydoc **out, const char *name, const char *text, size_t len, ls_error *err)
{
  *out = NULL;
  ls_ydoc *d = calloc(1, sizeof *d);
  if (!d)
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", name);
  snprintf(d->name, sizeof d->name, "%s", name);
  int rc = check_limits(name, text, len, err);
  if (rc != LS_OK) {
    free(d);
    return rc;
  }
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
  if (!yaml_parser_load(&p, &d->doc)) {
    rc = parse_error(&p, name, text, len, err);
    yaml_parser_delete(&p);
    free(d);
    return rc;
  }
  if (!yaml_document_get_root_node(&d->doc)) {
    rc = ls_error_at(err, LS_ESCHEMA, name, 1, 1, "empty document");
  } else {
    yaml_document_t extra;
    if (!yaml_parser_load(&p, &extra)) {
      rc = parse_error(&p, name, text, len, err);
    } else {
      yaml_node_t *r = yaml_document_get_root_node(&extra);
      if (r)
        rc = ls_error_at(err, LS_ESCHEMA, name, (int)r->start_mark.line + 1,
                         (int)r->start_mark.column + 1, "only one YAML document is allowed");
      yaml_document_delete(&extra);
    }
  }
  yaml_parser_delete(&p);
  if (rc == LS_OK)
    rc = check_duplicates(d, err);
  if (rc != LS_OK) {
    ls_ydoc_free(d);
    return rc;
  }
  *out = d;
  return LS_OK;
}

int ls_ydoc_load_file(ls_ydoc **out, const char *path, ls_error *err)
{
  *out = NULL;
  char *text = NULL; /* read whole: a FIFO or folder never hangs or half-parses (sim/fileio) */
  size_t len = 0;
  int rc = ls_file_read_all(path, NULL, LS_YAML_MAX_BYTES, &text, &len, err);
  if (rc == LS_OK)
    rc = load(out, path, text, len, err);
  free(text);
  return rc;
}

int ls_ydoc_load_string(ls_ydoc **out, const char *name, const char *text, ls_error *err)
{
  return load(out, name, text, strlen(text), err);
}

void ls_ydoc_free(ls_ydoc *d)
{
  if (!d)
    return;
  yaml_document_delete(&d->doc);
  for (int i = 0; i < d->n_asked; i++)
    free(d->asked[i].key);
  free(d->asked);
  free(d->slot);
  free(d);
}

/* ---- mappings ---- */

static size_t asked_hash(int map_id, const char *key)
{
  size_t h = 1469598103934665603ULL ^ (size_t)map_id;
  for (const unsigned char *p = (const unsigned char *)key; *p; p++) h = (h ^ *p) * 1099511628211ULL;
  return h;
}

/* The slot of (map_id, key) in the index: its entry, or the empty slot it would take. */
static size_t asked_slot(const ls_ydoc *d, int map_id, const char *key)
{
  size_t i = asked_hash(map_id, key) & (d->n_slot - 1);
  while (d->slot[i]) {
    const asked_key *a = &d->asked[d->slot[i] - 1];
    if (a->map_id == map_id && strcmp(a->key, key) == 0) break;
    i = (i + 1) & (d->n_slot - 1);
  }
  return i;
}

/* Keeps the index at most half full (rebuilt at twice the size); 0 when out of memory. */
static int asked_grow(ls_ydoc *d)
{
  if (d->n_slot && 2 * (size_t)(d->n_asked + 1) <= d->n_slot) return 1;
  size_t n = d->n_slot ? 2 * d->n_slot : 256;
  int *s = calloc(n, sizeof *s);
  if (!s) return 0;
  free(d->slot);
  d->slot = s;
  d->n_slot = n;
  for (int i = 0; i < d->n_asked; i++)
    d->slot[asked_slot(d, d->asked[i].map_id, d->asked[i].key)] = i + 1;
  return 1;
}

static void mark_asked(ls_ydoc *d, int map_id, const char *key)
{
  if (!asked_grow(d) || d->slot[asked_slot(d, map_id, key)])
    return; /* known already (or out of memory: only weakens the unknown-key message) */
  if (d->n_asked == d->cap_asked) {
    int cap = d->cap_asked ? 2 * d->cap_asked : 64;
    asked_key *a = realloc(d->asked, (size_t)cap * sizeof *a);
    if (!a)
      return; /* only weakens the unknown-key message; never unsafe */
    d->asked = a;
    d->cap_asked = cap;
  }
  size_t len = strlen(key) + 1;
  char *copy = malloc(len);
  if (!copy)
    return;
  memcpy(copy, key, len);
  d->asked[d->n_asked].map_id = map_id;
  d->asked[d->n_asked].key = copy;
  d->n_asked++;
  d->slot[asked_slot(d, map_id, copy)] = d->n_asked;
}

static int was_asked(const ls_ydoc *d, int map_id, const char *key)
{
  return d->n_slot && d->slot[asked_slot(d, map_id, key)] != 0;
}

static void child(const ls_ynode *parent, int id, const char *key, int index, ls_ynode *out)
{
  out->doc = parent->doc;
  out->id = id;
  if (key)
    snprintf(out->path, sizeof out->path, "%s%s%s", parent->path, parent->path[0] ? "." : "", key);
  else
    snprintf(out->path, sizeof out->path, "%s[%d]", parent->path, index);
}

int ls_ymap_find(const ls_ynode *map, const char *key, ls_ynode *out)
{
  yaml_node_t *y = node_of(map);
  if (!y || y->type != YAML_MAPPING_NODE)
    return 0;
  mark_asked(map->doc, map->id, key);
  for (yaml_node_pair_t *p = y->data.mapping.pairs.start; p < y->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&map->doc->doc, p->key);
    if (k->type == YAML_SCALAR_NODE && strcmp((char *)k->data.scalar.value, key) == 0) {
      child(map, p->value, key, 0, out);
      return 1;
    }
  }
  return 0;
}

int ls_ymap_require(const ls_ynode *map, const char *key, ls_ynode *out, ls_error *err)
{
  int rc = ls_ynode_expect(map, LS_Y_MAP, err);
  if (rc)
    return rc;
  if (ls_ymap_find(map, key, out))
    return LS_OK;
  return ls_ynode_error(map, err, LS_ESCHEMA, "missing required key '%s'", key);
}

int ls_ymap_finish(const ls_ynode *map, ls_error *err)
{
  yaml_node_t *y = node_of(map);
  if (!y || y->type != YAML_MAPPING_NODE)
    return ls_ynode_expect(map, LS_Y_MAP, err);
  for (yaml_node_pair_t *p = y->data.mapping.pairs.start; p < y->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(&map->doc->doc, p->key);
    const char *ks = (const char *)k->data.scalar.value;
    if (was_asked(map->doc, map->id, ks))
      continue;
    char expected[LS_ERR_MSG / 2] = "";
    size_t len = 0;
    for (int i = 0; i < map->doc->n_asked && len + 2 < sizeof expected; i++)
      if (map->doc->asked[i].map_id == map->id)
        len += (size_t)snprintf(expected + len, sizeof expected - len, "%s%s", len ? ", " : "",
                                map->doc->asked[i].key);
    ls_ynode kn;
    child(map, p->key, ks, 0, &kn);
    return ls_ynode_error(&kn, err, LS_ESCHEMA, "unknown key (expected one of: %s)",
                          expected[0] ? expected : "nothing");
  }
  return LS_OK;
}

int ls_ymap_size(const ls_ynode *map)
{
  yaml_node_t *y = node_of(map);
  if (!y || y->type != YAML_MAPPING_NODE)
    return 0;
  return (int)(y->data.mapping.pairs.top - y->data.mapping.pairs.start);
}

int ls_ymap_at(const ls_ynode *map, int i, const char **key, ls_ynode *value)
{
  if (i < 0 || i >= ls_ymap_size(map))
    return LS_ERANGE;
  yaml_node_pair_t *p = node_of(map)->data.mapping.pairs.start + i;
  yaml_node_t *k = yaml_document_get_node(&map->doc->doc, p->key);
  *key = (const char *)k->data.scalar.value;
  mark_asked(map->doc, map->id, *key);
  child(map, p->value, *key, 0, value);
  return LS_OK;
}

/* ---- sequences ---- */

int ls_yseq_len(const ls_ynode *seq)
{
  yaml_node_t *y = node_of(seq);
  if (!y || y->type != YAML_SEQUENCE_NODE)
    return 0;
  return (int)(y->data.sequence.items.top - y->data.sequence.items.start);
}

ls_ynode ls_yseq_at(const ls_ynode *seq, int i)
{
  ls_ynode out;
  child(seq, node_of(seq)->data.sequence.items.start[i], NULL, i, &out);
  return out;
}

/* ---- typed leaves ---- */

static int scalar(const ls_ynode *n, const char **text, ls_error *err)
{
  int rc = ls_ynode_expect(n, LS_Y_SCALAR, err);
  if (rc)
    return rc;
  *text = ls_ynode_text(n);
  return LS_OK;
}

static int range_error(const ls_ynode *n, ls_error *err, const char *text, double lo, double hi)
{
  if (lo == LS_Y_POS && hi >= DBL_MAX)
    return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be > 0)", text);
  if (lo == LS_Y_POS)
    return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be > 0 and <= %g)",
                          text, hi);
  if (hi >= DBL_MAX)
    return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be >= %g)", text, lo);
  return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be in [%g, %g])", text,
                        lo, hi);
}

int ls_yas_double(const ls_ynode *n, double lo, double hi, double *out, ls_error *err)
{
  const char *t;
  int rc = scalar(n, &t, err);
  if (rc)
    return rc;
  const char *end, *why;
  double v;
  int bad = ls_units_decimal(t, &v, &end, &why) != LS_OK;
  if (bad && strstr(why, "hexadecimal"))
    return ls_ynode_error(n, err, LS_ESCHEMA, "bad value '%s': %s", t, why);
  if (bad || *end != '\0') {
    double dummy;
    /* A value with a unit where a plain number is wanted gets a precise message. */
    if (!bad && ls_units_parse(t, LS_U_RATIO, &dummy, &why) != LS_OK)
      return ls_ynode_error(n, err, LS_EUNIT, "bad value '%s': expected a plain number, without a unit", t);
    return ls_ynode_error(n, err, LS_ESCHEMA, "wrong type: expected a decimal number, found '%s'", t);
  }
  if (v < lo || v > hi)
    return range_error(n, err, t, lo, hi);
  *out = v;
  return LS_OK;
}

int ls_yas_int(const ls_ynode *n, long lo, long hi, long *out, ls_error *err)
{
  const char *t;
  int rc = scalar(n, &t, err);
  if (rc)
    return rc;
  char *end;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (end == t || *end != '\0' || errno == ERANGE)
    return ls_ynode_error(n, err, LS_ESCHEMA, "wrong type: expected an integer, found '%s'", t);
  if (v < lo || v > hi)
    return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be in [%ld, %ld])", t,
                          lo, hi);
  *out = v;
  return LS_OK;
}

int ls_yas_bool(const ls_ynode *n, int *out, ls_error *err)
{
  const char *t;
  int rc = scalar(n, &t, err);
  if (rc)
    return rc;
  if (strcmp(t, "true") == 0)
    *out = 1;
  else if (strcmp(t, "false") == 0)
    *out = 0;
  else
    return ls_ynode_error(n, err, LS_ESCHEMA, "wrong type: expected true or false, found '%s'", t);
  return LS_OK;
}

int ls_yas_string(const ls_ynode *n, const char **out, ls_error *err)
{
  return scalar(n, out, err);
}

int ls_yas_enum(const ls_ynode *n, const char *const *choices, int *out, ls_error *err)
{
  const char *t;
  int rc = scalar(n, &t, err);
  if (rc)
    return rc;
  char list[LS_ERR_MSG / 2] = "";
  size_t len = 0;
  for (int i = 0; choices[i]; i++) {
    if (strcmp(t, choices[i]) == 0) {
      *out = i;
      return LS_OK;
    }
    if (len + 2 < sizeof list)
      len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
  }
  return ls_ynode_error(n, err, LS_ESCHEMA, "bad value '%s' (expected one of: %s)", t, list);
}

int ls_yas_unit(const ls_ynode *n, ls_unit_kind k, double lo, double hi, double *out, ls_error *err)
{
  const char *t;
  int rc = scalar(n, &t, err);
  if (rc)
    return rc;
  const char *why;
  double v;
  if (ls_units_parse(t, k, &v, &why) != LS_OK)
    return ls_ynode_error(n, err, LS_EUNIT, "bad value '%s': %s (a %s, e.g. %s)", t, why,
                          ls_units_kind_name(k), ls_units_examples(k));
  if (v < lo || v > hi) {
    char a[64], b[64];
    if (lo == LS_Y_POS)
      return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be > 0%s%s)", t,
                            hi < DBL_MAX ? " and <= " : "",
                            hi < DBL_MAX ? ls_units_format(hi, k, b, sizeof b) : "");
    return ls_ynode_error(n, err, LS_ERANGE, "value '%s' out of range (must be in [%s, %s])", t,
                          ls_units_format(lo, k, a, sizeof a),
                          hi < DBL_MAX ? ls_units_format(hi, k, b, sizeof b) : "inf");
  }
  *out = v;
  return LS_OK;
}

int ls_yas_doubles(const ls_ynode *n, double lo, double hi, double *out, int max, int *count,
                   ls_error *err)
{
  int rc = ls_ynode_expect(n, LS_Y_SEQ, err);
  if (rc)
    return rc;
  int len = ls_yseq_len(n);
  if (len > max)
    return ls_ynode_error(n, err, LS_ERANGE, "too many values (%d, at most %d)", len, max);
  for (int i = 0; i < len; i++) {
    ls_ynode it = ls_yseq_at(n, i);
    if ((rc = ls_yas_double(&it, lo, hi, &out[i], err)))
      return rc;
  }
  *count = len;
  return LS_OK;
}

/* ---- keyed shorthands ---- */

#define LS_KEYED_REQ(fn, call)                          \
  do {                                                  \
    ls_ynode v;                                         \
    int rc_ = ls_ymap_require(m, key, &v, err);         \
    return rc_ ? rc_ : (call);                          \
  } while (0)

#define LS_KEYED_OPT(fn, call, assign_default)          \
  do {                                                  \
    ls_ynode v;                                         \
    int rc_ = ls_ynode_expect(m, LS_Y_MAP, err);        \
    if (rc_)                                            \
      return rc_;                                       \
    if (!ls_ymap_find(m, key, &v)) {                    \
      assign_default;                                   \
      return LS_OK;                                     \
    }                                                   \
    return (call);                                      \
  } while (0)

int ls_yreq_double(const ls_ynode *m, const char *key, double lo, double hi, double *out, ls_error *err)
{ LS_KEYED_REQ(double, ls_yas_double(&v, lo, hi, out, err)); }
int ls_yopt_double(const ls_ynode *m, const char *key, double lo, double hi, double dflt, double *out, ls_error *err)
{ LS_KEYED_OPT(double, ls_yas_double(&v, lo, hi, out, err), *out = dflt); }
int ls_yreq_int(const ls_ynode *m, const char *key, long lo, long hi, long *out, ls_error *err)
{ LS_KEYED_REQ(int, ls_yas_int(&v, lo, hi, out, err)); }
int ls_yopt_int(const ls_ynode *m, const char *key, long lo, long hi, long dflt, long *out, ls_error *err)
{ LS_KEYED_OPT(int, ls_yas_int(&v, lo, hi, out, err), *out = dflt); }
int ls_yreq_unit(const ls_ynode *m, const char *key, ls_unit_kind k, double lo, double hi, double *out, ls_error *err)
{ LS_KEYED_REQ(unit, ls_yas_unit(&v, k, lo, hi, out, err)); }
int ls_yopt_unit(const ls_ynode *m, const char *key, ls_unit_kind k, double lo, double hi, double dflt, double *out, ls_error *err)
{ LS_KEYED_OPT(unit, ls_yas_unit(&v, k, lo, hi, out, err), *out = dflt); }
int ls_yreq_string(const ls_ynode *m, const char *key, const char **out, ls_error *err)
{ LS_KEYED_REQ(string, ls_yas_string(&v, out, err)); }
int ls_yopt_string(const ls_ynode *m, const char *key, const char *dflt, const char **out, ls_error *err)
{ LS_KEYED_OPT(string, ls_yas_string(&v, out, err), *out = dflt); }
int ls_yreq_enum(const ls_ynode *m, const char *key, const char *const *choices, int *out, ls_error *err)
{ LS_KEYED_REQ(enum, ls_yas_enum(&v, choices, out, err)); }
int ls_yopt_enum(const ls_ynode *m, const char *key, const char *const *choices, int dflt, int *out, ls_error *err)
{ LS_KEYED_OPT(enum, ls_yas_enum(&v, choices, out, err), *out = dflt); }
int ls_yopt_bool(const ls_ynode *m, const char *key, int dflt, int *out, ls_error *err)
{ LS_KEYED_OPT(bool, ls_yas_bool(&v, out, err), *out = dflt); }
