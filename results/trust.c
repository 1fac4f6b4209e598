/* results/trust: a database file is data, never code.
 *
 * A SQLite file can carry code of its own: views (any SELECT, including a recursive one that
 * never ends), triggers (run by the writes of whoever opens it), CHECK constraints, generated
 * columns and indexes on expressions. leversim reads and writes files that others hand it
 * (shards to merge, databases to export or draw), so none of that code may run:
 *  - every connection: SQLITE_DBCONFIG_DEFENSIVE (no writable_schema, no shadow-table writes)
 *    and SQLITE_DBCONFIG_ENABLE_TRIGGER off (a trigger stored in the file never fires);
 *  - an input (ls_db_open_read): SQLITE_DBCONFIG_TRUSTED_SCHEMA off (the file's schema may
 *    call only innocuous functions) and SQLITE_DBCONFIG_ENABLE_VIEW off, so a view stored in
 *    the file never runs; leversim's own views are recreated as TEMP views over the file's tables
 *    (TEMP objects stay allowed and are found first); an authorizer lets statements read only
 *    leversim's tables and create only TEMP views; a progress handler ends any statement that
 *    runs longer than LS_DB_READ_LIMIT_S seconds (LEVERSIM_DB_READ_LIMIT=SECONDS overrides
 *    it; LS_EPARSE saying so) or when a stop is asked (Ctrl-C);
 *  - the shape of the file is compared with a reference built in memory by the same code that
 *    creates leversim's schema (ls_db_schema_create): a name leversim gives a table must be
 *    that table, with every column leversim defines (found by name: another order is fine,
 *    since every read and copy names its columns) and no generated column; an output must
 *    hold nothing leversim did not create (a trigger, a view, a table or index of another
 *    name) — it is refused, naming the object, before anything is written;
 *  - an existing output is checked whole before anything changes it (ls_db_check_fit): no
 *    damaged page (quick_check), no table leversim makes STRICT made loose, no foreign key to
 *    a table the file lacks; a file the command refuses is left byte for byte as it was.
 * An output keeps a trusted schema: its tables' CHECK constraints call json_valid(), which
 * this SQLite does not mark innocuous; a constraint can only refuse a write, and the output
 * holds nothing but leversim's objects by then.
 * The reference is what the current code creates, so it cannot drift from the schema. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "results/db_int.h"
#include "sim/clock.h"
#include "sim/stop.h"

#define LS_DB_READ_LIMIT_S 600.0 /* a statement on an input ends after this long */
#define LS_DB_PROGRESS_OPS 10000 /* SQLite VM steps between two looks at the clock */

int ls_db_harden(sqlite3 *h, int input)
{
  int rc = sqlite3_db_config(h, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0);
  if (rc == SQLITE_OK) rc = sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0);
  if (rc == SQLITE_OK && input)
    rc = sqlite3_db_config(h, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)0);
  if (rc == SQLITE_OK && input)
    rc = sqlite3_db_config(h, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)0);
  return rc;
}

/* --- the reference schema ---------------------------------------------------------------- */

/* One object of leversim's schema: type and name; for a table, its columns as ",a,b,". */
typedef struct ref_obj {
  char type[8], name[64];
  char *cols; /* owned; NULL unless a table */
  int strict; /* a table declared STRICT (SQLite checks each value's type on write) */
} ref_obj;
struct ls_db_ref {
  ref_obj *obj; /* owned */
  int n;
};

void ls_db_ref_free(ls_db_ref *ref)
{
  if (!ref) return;
  for (int i = 0; i < ref->n; i++) free(ref->obj[i].cols);
  free(ref->obj);
  free(ref);
}

/* 1 when table name in schema of h is STRICT, 0 when not or unknown. */
static int is_strict(sqlite3 *h, const char *schema, const char *name)
{
  sqlite3_stmt *st = NULL;
  int strict = 0;
  if (sqlite3_prepare_v2(h, "SELECT strict FROM pragma_table_list WHERE schema = ?1 AND "
                         "name = ?2", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, schema, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW) strict = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  return strict;
}

/* ",a,b,c," of table name in schema of h: the column names (hidden 2/3 = generated: *gen). */
static char *columns(sqlite3 *h, const char *schema, const char *name, int *gen)
{
  sqlite3_stmt *st = NULL;
  size_t len = 1, cap = 256;
  char *s = malloc(cap);
  if (!s) return NULL;
  strcpy(s, ",");
  if (gen) *gen = 0;
  if (sqlite3_prepare_v2(h, "SELECT name, hidden FROM pragma_table_xinfo(?1, ?2)", -1, &st,
                         NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    free(s);
    return NULL;
  }
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, schema, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *c = (const char *)sqlite3_column_text(st, 0);
    size_t k = c ? strlen(c) : 0;
    if (gen && sqlite3_column_int(st, 1) >= 2) *gen = 1;
    if (len + k + 2 > cap) {
      cap = 2 * (len + k + 2);
      char *t = realloc(s, cap);
      if (!t) {
        free(s);
        s = NULL;
        break;
      }
      s = t;
    }
    memcpy(s + len, c ? c : "", k);
    len += k;
    s[len++] = ',';
    s[len] = '\0';
  }
  sqlite3_finalize(st);
  return s;
}

/* ls_db_sql_declares_strict (results/db_int.h). The reference's STRICT flags come from its own
 * CREATE text, which results/schema.c wrote into the in-memory database (never a file's):
 * asking SQLite (pragma_table_list) makes it work out the columns of every view of the schema
 * first, about 90 M instructions, and the reference is built at every database open. The
 * table options follow the column list, so STRICT is looked for after its last ')'. */
int ls_db_sql_declares_strict(const char *sql)
{
  const char *close = sql ? strrchr(sql, ')') : NULL;
  for (const char *s = close; s && *s; s++)
    if (strncasecmp(s, "strict", 6) == 0 && (s[6] == '\0' || s[6] == ',' || s[6] == ' ' || s[6] == ';'))
      return 1;
  return 0;
}

static int ref_fill(ls_db_ref *ref, sqlite3 *h)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(h, "SELECT type, name, sql FROM sqlite_master ORDER BY name", -1, &st,
                         NULL) != SQLITE_OK)
    return -1;
  int rc = 0, cap = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    if (ref->n == cap) {
      cap = cap ? 2 * cap : 64;
      ref_obj *t = realloc(ref->obj, (size_t)cap * sizeof *t);
      if (!t) { rc = -1; break; }
      ref->obj = t;
    }
    ref_obj *o = &ref->obj[ref->n++];
    snprintf(o->type, sizeof o->type, "%s", (const char *)sqlite3_column_text(st, 0));
    snprintf(o->name, sizeof o->name, "%s", (const char *)sqlite3_column_text(st, 1));
    o->cols = NULL;
    if (!strcmp(o->type, "table") && !(o->cols = columns(h, "main", o->name, NULL))) rc = -1;
    o->strict = o->cols ? ls_db_sql_declares_strict((const char *)sqlite3_column_text(st, 2)) : 0;
  }
  sqlite3_finalize(st);
  return rc;
}

int ls_db_ref_create(ls_db_ref **out, ls_error *err)
{
  *out = NULL;
  ls_db_ref *ref = calloc(1, sizeof *ref);
  ls_db mem = {.claim_fd = -1, .path = (char *)"(leversim's schema)"};
  int rc = LS_OK;
  if (!ref || sqlite3_open_v2(":memory:", &mem.h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
      ls_db_register_math(mem.h) != SQLITE_OK)
    rc = ls_error_set(err, LS_ENOMEM, "building the reference schema: out of memory");
  if (rc == LS_OK) rc = ls_db_schema_create(&mem, err);
  if (rc == LS_OK && ref_fill(ref, mem.h) != 0)
    rc = ls_error_set(err, LS_ENOMEM, "reading the reference schema: out of memory");
  sqlite3_close(mem.h);
  if (rc != LS_OK) {
    ls_db_ref_free(ref);
    return rc;
  }
  *out = ref;
  return LS_OK;
}

static const ref_obj *ref_find(const ls_db_ref *ref, const char *name)
{
  for (int i = 0; i < ref->n; i++)
    if (!strcmp(ref->obj[i].name, name)) return &ref->obj[i];
  return NULL;
}

int ls_db_ref_is_table(const ls_db_ref *ref, const char *name)
{
  const ref_obj *o = ref ? ref_find(ref, name) : NULL;
  return o && o->cols;
}

int ls_db_ref_is_strict(const ls_db_ref *ref, const char *name)
{
  const ref_obj *o = ref ? ref_find(ref, name) : NULL;
  return o && o->strict;
}

const char *ls_db_ref_columns(const ls_db_ref *ref, const char *table)
{
  const ref_obj *o = ref_find(ref, table);
  return o ? o->cols : NULL;
}

/* --- comparing a file with the reference ------------------------------------------------- */

/* The first column of want (",a,b,") missing from have, into out (size bytes); 0 when none. */
static int missing_column(const char *want, const char *have, char *out, size_t size)
{
  for (const char *p = want + 1; *p; ) {
    const char *e = strchr(p, ',');
    size_t k = (size_t)(e - p);
    char needle[80];
    snprintf(needle, sizeof needle, ",%.*s,", (int)k, p);
    if (!strstr(have, needle)) {
      snprintf(out, size, "%.*s", (int)k, p);
      return 1;
    }
    p = e + 1;
  }
  return 0;
}

/* One table of the file against the reference: every column by name, none generated; an
 * output also has no column leversim does not write. */
static int check_table(ls_db *db, const char *schema, const ref_obj *r, int output,
                       ls_error *err)
{
  int gen = 0;
  char *have = columns(db->h, schema, r->name, &gen), col[80];
  int rc = LS_OK;
  if (!have)
    rc = ls_error_set(err, LS_ENOMEM, "%s: reading table %s: out of memory", db->path, r->name);
  else if (gen)
    rc = ls_error_set(err, LS_EPARSE, "%s: table '%s' has a generated column (code stored in "
                      "the file); leversim did not create it, refusing to use the database",
                      db->path, r->name);
  else if (missing_column(r->cols, have, col, sizeof col))
    rc = ls_error_set(err, LS_EPARSE, "%s: table '%s' has no column '%s' (leversim did not "
                      "create this table); refusing to use the database", db->path, r->name, col);
  else if (output && missing_column(have, r->cols, col, sizeof col))
    rc = ls_error_set(err, LS_EPARSE, "%s: table '%s' has a column '%s' that leversim did not "
                      "create; refusing to write into the database", db->path, r->name, col);
  else if (output && r->strict && !is_strict(db->h, schema, r->name))
    /* a loose table takes a text seed or a blob time, which every reader then trips over */
    rc = ls_error_set(err, LS_EPARSE, "%s: table '%s' is not STRICT (leversim did not create "
                      "it so); refusing to write into the database", db->path, r->name);
  free(have);
  return rc;
}

/* One object of the file: LS_EPARSE naming it when it is not leversim's. */
static int check_object(ls_db *db, const ls_db_ref *ref, const char *schema, const char *type,
                        const char *name, int output, ls_error *err)
{
  const ref_obj *r = ref_find(ref, name);
  if (!strncmp(name, "sqlite_", 7) && strcmp(type, "trigger") && strcmp(type, "view"))
    return LS_OK; /* SQLite's own: sqlite_sequence, sqlite_stat1, automatic indexes */
  if (r && strcmp(r->type, type) != 0)
    return ls_error_set(err, LS_EPARSE, "%s: '%s' is a %s, but leversim's '%s' is a %s; "
                        "refusing to use the database", db->path, name, type, name, r->type);
  if (!r && output)
    return ls_error_set(err, LS_EPARSE, "%s: holds a %s '%s' that leversim did not create; "
                        "refusing to write into the database (drop it, or give another --db)",
                        db->path, type, name);
  if (r && r->cols) return check_table(db, schema, r, output, err);
  return LS_OK; /* an input's own views and triggers never run: ignored */
}

int ls_db_check_objects(ls_db *db, const char *schema, int output, ls_error *err)
{
  if (!db->ref) {
    int rc = ls_db_ref_create(&db->ref, err);
    if (rc != LS_OK) return rc;
  }
  char sql[96];
  snprintf(sql, sizeof sql, "SELECT type, name FROM \"%s\".sqlite_master ORDER BY rowid", schema);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, sql, -1, &st, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return LS_OK; /* not SQLite, damaged: the caller's next read says which */
  }
  /* which of leversim's tables the file has: an input without one is not a whole leversim
   * database (a read of it would fail later with SQLite's "no such table", exit 74); an output
   * gets it made again; a file with none of them is left to the version check */
  char *seen = calloc((size_t)db->ref->n + 1, 1);
  if (!seen) {
    sqlite3_finalize(st);
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", db->path);
  }
  int rc = LS_OK, s;
  while (rc == LS_OK && (s = sqlite3_step(st)) == SQLITE_ROW) {
    const char *type = (const char *)sqlite3_column_text(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const ref_obj *r = ref_find(db->ref, name ? name : "");
    if (r) seen[r - db->ref->obj] = 1;
    rc = check_object(db, db->ref, schema, type ? type : "?", name ? name : "", output, err);
  }
  sqlite3_finalize(st);
  int some = 0; /* none at all: not leversim's, which the caller's version check says */
  for (int i = 0; i < db->ref->n; i++) some |= seen[i] && db->ref->obj[i].cols;
  for (int i = 0; rc == LS_OK && some && !output && i < db->ref->n; i++)
    if (db->ref->obj[i].cols && !seen[i])
      rc = ls_error_set(err, LS_EPARSE, "%s: has no table '%s' (every leversim results database "
                        "has it); refusing to use the database", db->path, db->ref->obj[i].name);
  free(seen);
  return rc;
}

/* The first row's text of a one-column query into out (size bytes): 1 a row, 0 none, -1 the
 * query failed (SQLite's error stays on the connection). */
static int first_text(sqlite3 *h, const char *sql, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  int r = -1;
  if (sqlite3_prepare_v2(h, sql, -1, &st, NULL) == SQLITE_OK) {
    int s = sqlite3_step(st);
    r = s == SQLITE_ROW ? 1 : s == SQLITE_DONE ? 0 : -1;
    const char *t = r == 1 ? (const char *)sqlite3_column_text(st, 0) : NULL;
    if (r == 1) snprintf(out, size, "%s", t ? t : "");
  }
  sqlite3_finalize(st);
  return r;
}

int ls_db_check_fit(ls_db *db, ls_error *err)
{
  char what[200];
  /* quick_check reads every page once (no index cross-check): damage a later write would
   * trip over half-way is found before the first one. It also reports stored values that
   * break a CHECK, NOT NULL or STRICT rule: those are another run's data, not damage, and a
   * new run is still written beside them (as before this check). */
  int r = first_text(db->h, "SELECT m FROM (SELECT replace(quick_check, '*** in database main "
                     "***' || char(10), '') AS m FROM pragma_quick_check) WHERE m <> 'ok' AND m NOT "
                     "LIKE 'CHECK constraint failed%' AND m NOT LIKE 'NULL value in %' AND m NOT "
                     "LIKE 'non-% value in %' LIMIT 1", what, sizeof what);
  if (r < 0) return ls_db_fail_wait(db, err, "checking the database");
  if (r == 1) {
    for (char *p = what; *p; p++)
      if (*p == '\n') *p = ' '; /* one line: the first of stderr is what a user sees */
    return ls_error_set(err, LS_EPARSE, "%s: the database is damaged (%s); refusing to write "
                        "into it (nothing was changed; merge its readable runs into a new one)",
                        db->path, what);
  }
  r = first_text(db->h, "SELECT m.name || ' refers to ' || f.\"table\" FROM sqlite_master m, "
                 "pragma_foreign_key_list(m.name) f WHERE m.type = 'table' AND f.\"table\" "
                 "NOT IN (SELECT name FROM sqlite_master WHERE type = 'table') LIMIT 1",
                 what, sizeof what);
  if (r < 0) return ls_db_fail_wait(db, err, "checking the database");
  if (r == 1)
    return ls_error_set(err, LS_EPARSE, "%s: table %s, a table the database does not have; "
                        "refusing to write into it", db->path, what);
  return LS_OK;
}

/* --- what an input's statements may do ----------------------------------------------------- */

/* Reads of the file's own tables are allowed only for leversim's tables (and its catalogue);
 * writes nowhere but the TEMP database (leversim's views, check's working tables). SQLITE_READ's a3 is the database name (main, temp, src). */
static int authorize(void *ctx, int action, const char *a1, const char *a2, const char *a3,
                     const char *a4)
{
  ls_db *db = ctx;
  (void)a2;
  (void)a4;
  switch (action) {
  case SQLITE_SELECT:
  case SQLITE_FUNCTION:
  case SQLITE_RECURSIVE:
  case SQLITE_PRAGMA:
  case SQLITE_TRANSACTION:
  case SQLITE_CREATE_TEMP_VIEW: /* leversim's views, and check's working tables */
  case SQLITE_DROP_TEMP_VIEW:
  case SQLITE_CREATE_TEMP_TABLE:
  case SQLITE_DROP_TEMP_TABLE:
  case SQLITE_CREATE_TEMP_INDEX:
  case SQLITE_DROP_TEMP_INDEX:
    return SQLITE_OK;
  case SQLITE_READ:
    if (!a3 || strcmp(a3, "main") != 0) return SQLITE_OK; /* a CTE (no database), TEMP */
    if (a1 && (!strcmp(a1, "sqlite_master") || !strcmp(a1, "sqlite_schema") ||
               !strcmp(a1, "json_each") || !strcmp(a1, "json_tree") || /* SQLite's own, for axes_json */
               ls_db_ref_is_table(db->ref, a1)))
      return SQLITE_OK;
    return SQLITE_DENY;
  case SQLITE_UPDATE:
    /* SQLite asks this while it declares a built-in table-valued function (json_each) on the
     * main catalogue; no statement can write that catalogue itself under SQLITE_DBCONFIG_DEFENSIVE
     * (ls_db_harden), so only that question is answered yes. */
    if (a1 && !strcmp(a1, "sqlite_master") && a3 && !strcmp(a3, "main")) return SQLITE_OK;
    return a3 && !strcmp(a3, "temp") ? SQLITE_OK : SQLITE_DENY;
  default: /* a write: to the TEMP database (and its catalogue) only */
    return (a1 && !strcmp(a1, "sqlite_temp_master")) || (a3 && !strcmp(a3, "temp"))
               ? SQLITE_OK : SQLITE_DENY;
  }
}

static const ls_env_limit READ_LIMIT = {"LEVERSIM_DB_READ_LIMIT", LS_DB_READ_LIMIT_S, 1e9, 0};

int ls_db_read_limit(double *v, ls_error *err) { return ls_env_seconds(&READ_LIMIT, v, err); }

static double read_limit_s(void) { return ls_env_seconds_or_default(&READ_LIMIT); }

/* Ends a statement on an input that runs past the limit or when a stop is asked. */
static int progress(void *ctx)
{
  ls_db *db = ctx;
  if (ls_now_s() - db->read_t0 > db->read_limit_s) {
    db->read_expired = 1;
    return 1;
  }
  return *ls_stop_flag() != 0;
}

/* Each statement's clock starts when it starts (SQLITE_TRACE_STMT). */
static int stmt_start(unsigned type, void *ctx, void *p, void *x)
{
  (void)type;
  (void)p;
  (void)x;
  ((ls_db *)ctx)->read_t0 = ls_now_s();
  return 0;
}

int ls_db_guard_input(ls_db *db, ls_error *err)
{
  int rc = ls_db_check_objects(db, "main", 0, err);
  if (rc != LS_OK) return rc;
  db->read_t0 = ls_now_s();
  db->read_limit_s = read_limit_s();
  sqlite3_progress_handler(db->h, LS_DB_PROGRESS_OPS, progress, db);
  sqlite3_trace_v2(db->h, SQLITE_TRACE_STMT, stmt_start, db);
  if (sqlite3_set_authorizer(db->h, authorize, db) != SQLITE_OK)
    return ls_db_fail(db, err, "configuring the connection");
  return LS_OK;
}

int ls_db_limit_said(ls_db *db, ls_error *err, const char *what)
{
  return ls_error_set(err, LS_EPARSE, "%s: %s: stopped after %.0f s, the time limit of a query "
                      "on an input (LEVERSIM_DB_READ_LIMIT=SECONDS changes it)", db->path,
                      what, db->read_limit_s);
}
