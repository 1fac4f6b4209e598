/* runner/testbed/tbdb: see tbdb.h. */
#include "runner/testbed/tbdb.h"
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "sim/fileio.h"

struct ls_tbdb {
  sqlite3 *db;
  char *path; /* owned */
};

static const char *const SCHEMA =
    "CREATE TABLE IF NOT EXISTS tb_run(run_id TEXT PRIMARY KEY, created TEXT, target TEXT, draft TEXT,"
    " model_id TEXT, draft_model TEXT, threads INTEGER, threads_seen INTEGER, reps INTEGER,"
    " target_file_bytes INTEGER, target_model_bytes INTEGER, draft_model_bytes INTEGER,"
    " tree_nodes INTEGER, tree_depth INTEGER, tree_leaves INTEGER, read_ahead_bytes REAL);"
    "CREATE TABLE IF NOT EXISTS tb_pass(run_id TEXT, kind TEXT, n_tokens INTEGER, ctx INTEGER, rep INTEGER,"
    " time_s REAL, wall_s REAL, cpu_s REAL, thread_cpu_s REAL, runqueue_s REAL, majflt INTEGER, minflt INTEGER,"
    " read_bytes INTEGER);"
    "CREATE TABLE IF NOT EXISTS tb_spec(run_id TEXT PRIMARY KEY, generated INTEGER, cycles INTEGER, k INTEGER,"
    " time_s REAL, wall_s REAL, cpu_s REAL, draft_s REAL, verify_s REAL, accepted TEXT);"
    "CREATE TABLE IF NOT EXISTS tb_prediction(run_id TEXT, profile TEXT, kind TEXT, n_tokens INTEGER, ctx INTEGER,"
    " measured_s REAL, predicted_s REAL, rel_err REAL, held_out INTEGER);"
    "CREATE VIEW IF NOT EXISTS tb_passes AS SELECT run_id, kind, n_tokens, ctx, COUNT(*) AS reps,"
    " MIN(time_s) AS min_time_s, AVG(time_s) AS mean_time_s, AVG(wall_s) AS mean_wall_s, AVG(cpu_s) AS mean_cpu_s,"
    " AVG(read_bytes) AS mean_read_bytes FROM tb_pass GROUP BY run_id, kind, n_tokens, ctx;"
    "CREATE VIEW IF NOT EXISTS tb_error AS SELECT run_id, profile, kind, COUNT(*) AS points,"
    " AVG(ABS(rel_err)) AS mean_abs_err, MAX(ABS(rel_err)) AS max_abs_err FROM tb_prediction WHERE held_out = 1"
    " GROUP BY run_id, profile, kind;";

static int fail(ls_tbdb *d, ls_error *err, const char *what)
{
  return ls_error_set(err, LS_EDB, "%s: %s: %s", d->path, what, sqlite3_errmsg(d->db));
}

/* LS_EPARSE when the file is not SQLite, or a SQLite database with objects but no tb_run:
 * somebody else's data, which the schema below would be written into (a results database
 * given to head-rate gained the testbed's tables). */
static int foreign(ls_tbdb *d, ls_error *err)
{
  sqlite3_stmt *st = NULL;
  int rc = LS_OK;
  if (sqlite3_prepare_v2(d->db, "SELECT count(*), sum(name = 'tb_run') FROM sqlite_master", -1, &st, NULL) !=
      SQLITE_OK) {
    rc = (sqlite3_errcode(d->db) & 0xff) == SQLITE_NOTADB
             ? ls_error_set(err, LS_EPARSE, "%s: not a SQLite database, so not a testbed database", d->path)
             : fail(d, err, "cannot read");
  } else if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0 && sqlite3_column_int(st, 1) == 0) {
    rc = ls_error_set(err, LS_EPARSE, "%s: a SQLite database without the testbed's tables (tb_run); "
                      "refusing to write into it (give a testbed database, or a new file)", d->path);
  }
  sqlite3_finalize(st);
  return rc;
}

/* What stands at path, checked before SQLite opens it (SQLite follows links, blocks on a
 * FIFO and takes a 0-byte file for a new database): 1 a regular file of *size bytes, 0
 * absent (a writer creates it), else an error. A writer never goes through a symbolic
 * link (sim/fileio's output rule); a reader may. */
static int tb_target(const char *path, ls_tbdb_mode mode, off_t *size, ls_error *err)
{
  struct stat st;
  if (mode != LS_TBDB_READ && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s: is a symbolic link; refusing to write through it (give the "
                        "database's own path)", path);
  if (stat(path, &st) != 0) {
    if (errno == ENOENT && mode == LS_TBDB_CREATE)
      return 0;
    return ls_error_set(err, errno == ENOENT ? LS_ENOTFOUND : LS_EIO, "%s: %s (leversim testbed measure writes it)",
                        path, strerror(errno));
  }
  if (!S_ISREG(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s: is %s, not a testbed database", path, ls_file_kind(path));
  if (st.st_size == 0 && mode != LS_TBDB_CREATE) /* SQLite would write the schema into it */
    return ls_error_set(err, LS_EPARSE, "%s: an empty file, not a testbed database (leversim testbed measure "
                        "writes one)", path);
  *size = st.st_size;
  return 1;
}

/* Every table of SCHEMA the file has holds every column SCHEMA gives it (by name): a tb_run of
 * another shape is somebody else's table, refused before the missing tables are added. The
 * reference is SCHEMA itself, built in memory, so the check cannot drift from it. */
static int check_shape(ls_tbdb *d, ls_error *err)
{
  sqlite3 *ref = NULL;
  sqlite3_stmt *st = NULL;
  int rc = LS_OK;
  if (sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
      sqlite3_exec(ref, SCHEMA, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(ref, "SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c"
                              " WHERE m.type = 'table' ORDER BY m.name, c.cid", -1, &st, NULL) != SQLITE_OK)
    rc = ls_error_set(err, LS_ENOMEM, "building the testbed's reference schema: out of memory");
  while (rc == LS_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *t = (const char *)sqlite3_column_text(st, 0), *c = (const char *)sqlite3_column_text(st, 1);
    sqlite3_stmt *q = NULL;
    int table = 0, col = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT (SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1),"
                                  " (SELECT count(*) FROM pragma_table_info(?1) WHERE name = ?2)", -1, &q, NULL) ==
        SQLITE_OK) {
      sqlite3_bind_text(q, 1, t, -1, SQLITE_STATIC);
      sqlite3_bind_text(q, 2, c, -1, SQLITE_STATIC);
      if (sqlite3_step(q) == SQLITE_ROW) {
        table = sqlite3_column_int(q, 0);
        col = sqlite3_column_int(q, 1);
      } else {
        rc = fail(d, err, "cannot read");
      }
    } else {
      rc = fail(d, err, "cannot read");
    }
    sqlite3_finalize(q);
    if (rc == LS_OK && table && !col)
      rc = ls_error_set(err, LS_EPARSE, "%s: table '%s' has no column '%s' (not the testbed's table); refusing to "
                        "use the database", d->path, t, c);
  }
  sqlite3_finalize(st);
  sqlite3_close(ref);
  return rc;
}

/* "file:PATH?immutable=1" (malloc'd; NULL out of memory): the file read as it is, with no
 * lock, journal, -wal or -shm made beside it, for the checks before the real open. */
static char *immutable_uri(const char *path)
{
  size_t n = strlen(path);
  char *u = malloc(3 * n + 32), *p = u;
  if (!u)
    return NULL;
  p += sprintf(p, "file:%s", path[0] == '/' && path[1] == '/' ? "//" : "");
  for (const unsigned char *c = (const unsigned char *)path; *c; c++)
    p += *c == '%' || *c == '?' || *c == '#' || *c < 0x20 || *c >= 0x7f ? sprintf(p, "%%%02X", *c)
                                                                       : sprintf(p, "%c", *c);
  strcpy(p, "?immutable=1");
  return u;
}

/* Opens d->db with flags and makes the file's own code inert: no trigger fires, no write to
 * its schema by hand. */
static int open_hardened(ls_tbdb *d, const char *name, int flags, ls_error *err)
{
  int rc = sqlite3_open_v2(name, &d->db, flags, NULL) != SQLITE_OK ? fail(d, err, "cannot open") : LS_OK;
  if (!rc && (sqlite3_db_config(d->db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)0) != SQLITE_OK ||
              sqlite3_db_config(d->db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)0) != SQLITE_OK))
    rc = fail(d, err, "cannot configure");
  return rc;
}

/* An existing file checked before anything is written or made beside it. */
static int check_existing(ls_tbdb *d, ls_error *err)
{
  char *uri = immutable_uri(d->path);
  if (!uri)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  int rc = open_hardened(d, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, err);
  free(uri);
  if (!rc)
    rc = foreign(d, err);
  if (!rc)
    rc = check_shape(d, err);
  sqlite3_close(d->db);
  d->db = NULL;
  return rc;
}

int ls_tbdb_open(ls_tbdb **out, const char *path, ls_tbdb_mode mode, ls_error *err)
{
  *out = NULL;
  off_t size = 0;
  int exists = tb_target(path, mode, &size, err);
  if (exists < 0)
    return exists;
  ls_tbdb *d = calloc(1, sizeof *d);
  if (!d || !(d->path = strdup(path))) {
    free(d);
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  }
  int rc = exists && size > 0 ? check_existing(d, err) : LS_OK;
  int flags = mode == LS_TBDB_READ ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (exists ? 0 : SQLITE_OPEN_CREATE);
  if (!rc)
    rc = open_hardened(d, path, flags, err);
  if (!rc && mode != LS_TBDB_READ && sqlite3_exec(d->db, SCHEMA, NULL, NULL, NULL) != SQLITE_OK)
    rc = fail(d, err, "cannot open");
  if (rc) {
    ls_tbdb_close(d);
    return rc;
  }
  *out = d;
  return LS_OK;
}

void ls_tbdb_close(ls_tbdb *d)
{
  if (!d)
    return;
  sqlite3_close(d->db);
  free(d->path);
  free(d);
}

static int exec(ls_tbdb *d, const char *sql, ls_error *err)
{
  return sqlite3_exec(d->db, sql, NULL, NULL, NULL) == SQLITE_OK ? LS_OK : fail(d, err, sql);
}

/* The run's passes into tb_pass; 1 when stored (0: SQLite's error is left on d->db). */
static int store_passes(ls_tbdb *d, const char *run_id, const ls_tbm_result *r)
{
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(d->db, "INSERT INTO tb_pass VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
    return sqlite3_finalize(st), 0;
  for (int i = 0; i < r->n; i++) {
    const ls_tbm_pass *p = &r->p[i];
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, p->kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 3, p->n_tokens);
    sqlite3_bind_int(st, 4, p->ctx);
    sqlite3_bind_int(st, 5, p->rep);
    sqlite3_bind_double(st, 6, p->c.time_s);
    sqlite3_bind_double(st, 7, p->c.wall_s);
    sqlite3_bind_double(st, 8, p->c.cpu_s);
    sqlite3_bind_double(st, 9, p->c.thread_cpu_s);
    sqlite3_bind_double(st, 10, p->c.runqueue_s);
    sqlite3_bind_int64(st, 11, p->c.majflt);
    sqlite3_bind_int64(st, 12, p->c.minflt);
    sqlite3_bind_int64(st, 13, (sqlite3_int64)p->c.read_bytes);
    if (sqlite3_step(st) != SQLITE_DONE)
      return sqlite3_finalize(st), 0;
  }
  sqlite3_finalize(st);
  st = NULL;
  return 1;
}

/* The run's speculative totals into tb_spec (none without a speculative run); 1 when stored. */
static int store_spec(ls_tbdb *d, const char *run_id, const ls_tbm_result *r)
{
  sqlite3_stmt *st = NULL;
  if (r->has_spec) {
    const ls_tbm_spec *s = &r->spec;
    char acc[256];
    size_t len = 0;
    for (int a = 0; a <= s->k && a < 17; a++)
      len += (size_t)snprintf(acc + len, sizeof acc - len, "%s%d", a ? "," : "", s->accepted[a]);
    if (sqlite3_prepare_v2(d->db, "INSERT OR REPLACE INTO tb_spec VALUES(?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) !=
        SQLITE_OK)
      return sqlite3_finalize(st), 0;
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, s->generated);
    sqlite3_bind_int(st, 3, s->cycles);
    sqlite3_bind_int(st, 4, s->k);
    sqlite3_bind_double(st, 5, s->time_s);
    sqlite3_bind_double(st, 6, s->wall_s);
    sqlite3_bind_double(st, 7, s->cpu_s);
    sqlite3_bind_double(st, 8, s->draft_s);
    sqlite3_bind_double(st, 9, s->verify_s);
    sqlite3_bind_text(st, 10, acc, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) != SQLITE_DONE)
      return sqlite3_finalize(st), 0;
    sqlite3_finalize(st);
    st = NULL;
  }
  return 1;
}

int ls_tbdb_store_run(ls_tbdb *d, ls_tbdb_meta *m, const ls_tbm_result *r, ls_error *err)
{
  char created[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(created, sizeof created, "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!m->run_id[0])
    strftime(m->run_id, sizeof m->run_id, "tb-%Y%m%dT%H%M%SZ", &tm);
  int rc = exec(d, "BEGIN", err);
  if (rc)
    return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(d->db, "INSERT OR REPLACE INTO tb_run VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st,
                         NULL) != SQLITE_OK)
    goto bad;
  sqlite3_bind_text(st, 1, m->run_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, created, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 3, m->target, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 4, m->draft, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 5, m->model_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 6, m->draft_model, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int(st, 7, m->threads);
  sqlite3_bind_int(st, 8, r->threads_seen);
  sqlite3_bind_int(st, 9, m->reps);
  sqlite3_bind_int64(st, 10, (sqlite3_int64)r->target_file_bytes);
  sqlite3_bind_int64(st, 11, (sqlite3_int64)r->target_model_bytes);
  sqlite3_bind_int64(st, 12, (sqlite3_int64)r->draft_model_bytes);
  sqlite3_bind_int(st, 13, r->tree_nodes);
  sqlite3_bind_int(st, 14, r->tree_depth);
  sqlite3_bind_int(st, 15, r->tree_leaves);
  sqlite3_bind_double(st, 16, r->read_ahead_bytes);
  if (sqlite3_step(st) != SQLITE_DONE)
    goto bad;
  sqlite3_finalize(st);
  st = NULL;
  if (!store_passes(d, m->run_id, r) || !store_spec(d, m->run_id, r))
    goto bad;
  return exec(d, "COMMIT", err);
bad:
  rc = fail(d, err, "storing the run");
  sqlite3_finalize(st);
  sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

static void text(sqlite3_stmt *st, int col, char *dst, size_t size)
{
  const unsigned char *s = sqlite3_column_text(st, col);
  snprintf(dst, size, "%s", s ? (const char *)s : "");
}

/* The run's passes, in the order stored, appended to r. */
static int load_passes(ls_tbdb *d, const char *run_id, ls_tbm_result *r, ls_error *err)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, "SELECT kind, n_tokens, ctx, rep, time_s, wall_s, cpu_s, thread_cpu_s, runqueue_s,"
                                " majflt, minflt, read_bytes FROM tb_pass WHERE run_id = ?1 ORDER BY rowid",
                         -1, &st, NULL) != SQLITE_OK)
    return fail(d, err, "reading tb_pass");
  sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
  int rc = LS_OK, s;
  while ((s = sqlite3_step(st)) == SQLITE_ROW) {
    if (r->n == r->cap) {
      int nc = r->cap ? 2 * r->cap : 64;
      ls_tbm_pass *p = realloc(r->p, (size_t)nc * sizeof *p);
      if (!p) {
        rc = ls_error_set(err, LS_ENOMEM, "out of memory");
        break;
      }
      r->p = p;
      r->cap = nc;
    }
    ls_tbm_pass *p = &r->p[r->n++];
    memset(p, 0, sizeof *p);
    text(st, 0, p->kind, sizeof p->kind);
    p->n_tokens = sqlite3_column_int(st, 1);
    p->ctx = sqlite3_column_int(st, 2);
    p->rep = sqlite3_column_int(st, 3);
    p->c.time_s = sqlite3_column_double(st, 4);
    p->c.wall_s = sqlite3_column_double(st, 5);
    p->c.cpu_s = sqlite3_column_double(st, 6);
    p->c.thread_cpu_s = sqlite3_column_double(st, 7);
    p->c.runqueue_s = sqlite3_column_double(st, 8);
    p->c.majflt = (long)sqlite3_column_int64(st, 9);
    p->c.minflt = (long)sqlite3_column_int64(st, 10);
    p->c.read_bytes = (uint64_t)sqlite3_column_int64(st, 11);
  }
  if (!rc && s != SQLITE_DONE)
    rc = fail(d, err, "reading tb_pass");
  sqlite3_finalize(st);
  return rc;
}

/* The run's speculative totals, when it has them (a run without a draft has none). */
static void load_spec(ls_tbdb *d, const char *run_id, ls_tbm_result *r)
{
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(d->db, "SELECT generated, cycles, k, time_s, wall_s, cpu_s, draft_s, verify_s,"
                                       " accepted FROM tb_spec WHERE run_id = ?1", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW) {
      ls_tbm_spec *sp = &r->spec;
      r->has_spec = 1;
      sp->generated = sqlite3_column_int(st, 0);
      sp->cycles = sqlite3_column_int(st, 1);
      sp->k = sqlite3_column_int(st, 2);
      sp->time_s = sqlite3_column_double(st, 3);
      sp->wall_s = sqlite3_column_double(st, 4);
      sp->cpu_s = sqlite3_column_double(st, 5);
      sp->draft_s = sqlite3_column_double(st, 6);
      sp->verify_s = sqlite3_column_double(st, 7);
      char acc[256];
      text(st, 8, acc, sizeof acc);
      char *p = acc;
      for (int a = 0; a < 17 && *p; a++) {
        sp->accepted[a] = (int)strtol(p, &p, 10);
        if (*p == ',')
          p++;
      }
    }
    sqlite3_finalize(st);
  }
}

int ls_tbdb_load_run(ls_tbdb *d, const char *run_id, ls_tbdb_meta *m, ls_tbm_result *r, ls_error *err)
{
  memset(m, 0, sizeof *m);
  memset(r, 0, sizeof *r);
  sqlite3_stmt *st;
  const char *q = run_id && run_id[0]
                      ? "SELECT run_id, target, draft, model_id, draft_model, threads, reps, threads_seen,"
                        " target_file_bytes, target_model_bytes, draft_model_bytes, tree_nodes, tree_depth,"
                        " tree_leaves, read_ahead_bytes FROM tb_run WHERE run_id = ?1"
                      : "SELECT run_id, target, draft, model_id, draft_model, threads, reps, threads_seen,"
                        " target_file_bytes, target_model_bytes, draft_model_bytes, tree_nodes, tree_depth,"
                        " tree_leaves, read_ahead_bytes FROM tb_run ORDER BY created DESC, run_id DESC LIMIT 1";
  if (sqlite3_prepare_v2(d->db, q, -1, &st, NULL) != SQLITE_OK)
    return fail(d, err, "reading tb_run");
  if (run_id && run_id[0])
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) != SQLITE_ROW) {
    sqlite3_finalize(st);
    return ls_error_set(err, LS_ENOTFOUND, "%s: no testbed run%s%s (leversim testbed measure writes one)", d->path,
                        run_id && run_id[0] ? " " : "", run_id ? run_id : "");
  }
  text(st, 0, m->run_id, sizeof m->run_id);
  text(st, 1, m->target, sizeof m->target);
  text(st, 2, m->draft, sizeof m->draft);
  text(st, 3, m->model_id, sizeof m->model_id);
  text(st, 4, m->draft_model, sizeof m->draft_model);
  m->threads = sqlite3_column_int(st, 5);
  m->reps = sqlite3_column_int(st, 6);
  r->threads_seen = sqlite3_column_int(st, 7);
  r->target_file_bytes = (uint64_t)sqlite3_column_int64(st, 8);
  r->target_model_bytes = (uint64_t)sqlite3_column_int64(st, 9);
  r->draft_model_bytes = (uint64_t)sqlite3_column_int64(st, 10);
  r->tree_nodes = sqlite3_column_int(st, 11);
  r->tree_depth = sqlite3_column_int(st, 12);
  r->tree_leaves = sqlite3_column_int(st, 13);
  r->read_ahead_bytes = sqlite3_column_double(st, 14);
  sqlite3_finalize(st);
  int rc = load_passes(d, m->run_id, r, err);
  if (!rc)
    load_spec(d, m->run_id, r);
  if (rc)
    ls_tbm_result_free(r);
  return rc;
}

int ls_tbdb_store_points(ls_tbdb *d, const char *run_id, const char *profile, const ls_tbdb_point *pts, int n,
                         ls_error *err)
{
  int rc = exec(d, "BEGIN", err);
  if (rc)
    return rc;
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(d->db, "DELETE FROM tb_prediction WHERE run_id = ?1 AND profile = ?2", -1, &st, NULL) !=
      SQLITE_OK)
    goto bad;
  sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(st, 2, profile, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) != SQLITE_DONE)
    goto bad;
  sqlite3_finalize(st);
  if (sqlite3_prepare_v2(d->db, "INSERT INTO tb_prediction VALUES(?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
    goto bad;
  for (int i = 0; i < n; i++) {
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, run_id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 2, profile, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, pts[i].kind, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 4, pts[i].n_tokens);
    sqlite3_bind_int(st, 5, pts[i].ctx);
    sqlite3_bind_double(st, 6, pts[i].measured_s);
    sqlite3_bind_double(st, 7, pts[i].predicted_s);
    sqlite3_bind_double(st, 8, pts[i].predicted_s / pts[i].measured_s - 1.0);
    sqlite3_bind_int(st, 9, pts[i].held_out);
    if (sqlite3_step(st) != SQLITE_DONE)
      goto bad;
  }
  sqlite3_finalize(st);
  return exec(d, "COMMIT", err);
bad:
  rc = fail(d, err, "storing predictions");
  sqlite3_finalize(st);
  sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}
