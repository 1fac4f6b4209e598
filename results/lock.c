/* results/lock: a writer's claim on a database for the length of a command (ls_db_claim).
 *
 * Why: SQLite serialises single transactions, but a command is many transactions, and
 * `reproduce` (without --resume) empties the database first. Without a claim, a reproduce
 * started while a sweep writes would discard the sweep's runs.
 * How: an open-file-description lock (F_OFD_SETLK, Linux >= 3.15) on one byte of the database
 * file that SQLite never locks (its lock bytes are 0x40000000..0x400001FF). Shared claims
 * (sweep, merge, run --db, reproduce --resume) coexist: each run commits its own rows under
 * SQLite's lock. An exclusive claim (a fresh reproduce) is granted only when nobody else holds
 * one, and refused at once otherwise. OFD locks belong to the open file, not the process, so
 * forked workers share their parent's claim, and closing another descriptor of the same file
 * (as SQLite does) does not drop it; the kernel drops it when the process dies, so a killed
 * command never leaves the database claimed.
 * Who holds a claim is written in meta as writer.<host>.<pid>.<fd> = "<command> since <UTC time>",
 * so a refusal names the holder; rows of dead processes are removed by the next claimant. */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "results/db_int.h"

#define LS_DB_CLAIM_BYTE 0x40000400L

static int set_lock(int fd, short type)
{
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = type;
  fl.l_whence = SEEK_SET;
  fl.l_start = LS_DB_CLAIM_BYTE;
  fl.l_len = 1;
  return fcntl(fd, F_OFD_SETLK, &fl);
}

/* "writer.<host>.<pid>.<fd>" (the descriptor tells two claims of one process apart); with
 * pid 0: the prefix "writer.<host>." alone. */
static void holder_key(char *key, size_t size, long pid, int fd)
{
  char host[64] = "";
  gethostname(host, sizeof host - 1);
  if (pid == 0) snprintf(key, size, "writer.%s.", host[0] ? host : "localhost");
  else snprintf(key, size, "writer.%s.%ld.%d", host[0] ? host : "localhost", pid, fd);
}

/* The holders recorded in meta, as "command since time (host pid)" items joined by "; ". */
static void holders(ls_db *db, char *out, size_t size)
{
  sqlite3_stmt *st = NULL;
  size_t n = 0;
  out[0] = '\0';
  if (sqlite3_prepare_v2(db->h, "SELECT substr(key, 8), value FROM meta WHERE key LIKE "
                         "'writer.%' ORDER BY value LIMIT 4", -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW && n < size)
      n += (size_t)snprintf(out + n, size - n, "%s%s (host.pid %s)", n ? "; " : "",
                            (const char *)sqlite3_column_text(st, 1),
                            (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  if (!out[0]) snprintf(out, size, "another leversim process (not recorded yet)");
}

/* Removes the rows of this host's processes that are gone (a SIGKILL leaves its row). */
static void forget_dead(ls_db *db)
{
  char mine[128];
  holder_key(mine, sizeof mine, 0, 0);
  sqlite3_stmt *st = NULL, *del = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT key FROM meta WHERE key LIKE ?1 || '%'", -1, &st, NULL) !=
          SQLITE_OK ||
      sqlite3_prepare_v2(db->h, "DELETE FROM meta WHERE key = ?1", -1, &del, NULL) != SQLITE_OK) {
    sqlite3_finalize(st);
    return;
  }
  sqlite3_bind_text(st, 1, mine, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *k = (const char *)sqlite3_column_text(st, 0);
    long pid = strtol(k + strlen(mine), NULL, 10);
    if (pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
      sqlite3_bind_text(del, 1, k, -1, SQLITE_TRANSIENT);
      sqlite3_step(del);
      sqlite3_reset(del);
    }
  }
  sqlite3_finalize(st);
  sqlite3_finalize(del);
}

/* The lock alone: granted, or refused at once naming the holders (a read: in WAL mode it
 * never waits for a writer). */
int ls_db_claim_lock(ls_db *db, int exclusive, ls_error *err)
{
  if (db->claim_fd >= 0)
    return ls_error_set(err, LS_ESTATE, "%s: already claimed", db->path);
  int fd = open(db->path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return ls_error_set(err, LS_EIO, "%s: cannot open: %s", db->path, strerror(errno));
  if (set_lock(fd, exclusive ? F_WRLCK : F_RDLCK) != 0) {
    int e = errno;
    close(fd);
    if (e != EAGAIN && e != EACCES)
      return ls_error_set(err, LS_EIO, "%s: cannot lock: %s", db->path, strerror(e));
    char who[600];
    holders(db, who, sizeof who);
    return ls_error_set(err, LS_EDB, "%s: in use by %s; %s (wait for it to finish, or give "
                        "another --db)", db->path, who,
                        exclusive ? "a fresh reproduce empties the database, so it needs it to "
                                    "itself"
                                  : "it is being emptied and refilled by a fresh reproduce");
  }
  db->claim_fd = fd;
  db->claim_shared = !exclusive;
  return LS_OK;
}

/* Writes who holds the claim into meta (an exclusive claim first forgets every older row:
 * nobody else can hold one; a shared one forgets the rows of dead processes of this host). */
int ls_db_claim_record(ls_db *db, const char *command, ls_error *err)
{
  char key[128], val[256], when[32];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
  holder_key(key, sizeof key, (long)getpid(), db->claim_fd);
  snprintf(val, sizeof val, "leversim %s since %s", command ? command : "?", when);
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE", err);
  if (!rc) {
    if (!db->claim_shared)
      sqlite3_exec(db->h, "DELETE FROM meta WHERE key LIKE 'writer.%'", NULL, NULL, NULL);
    else
      forget_dead(db);
    rc = ls_db_set_meta(db, key, val, err);
    if (!rc) rc = ls_db_exec(db, "COMMIT", err);
    else sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  }
  return rc;
}

int ls_db_claim(ls_db *db, int exclusive, const char *command, ls_error *err)
{
  int rc = ls_db_claim_lock(db, exclusive, err);
  if (!rc) rc = ls_db_claim_record(db, command, err);
  if (rc && db->claim_fd >= 0) ls_db_claim_release(db);
  return rc;
}

int ls_db_claim_share(ls_db *db, ls_error *err)
{
  if (db->claim_fd < 0 || db->claim_shared) return LS_OK;
  if (set_lock(db->claim_fd, F_RDLCK) != 0)
    return ls_error_set(err, LS_EIO, "%s: cannot share the claim: %s", db->path, strerror(errno));
  db->claim_shared = 1;
  return LS_OK;
}

void ls_db_claim_release(ls_db *db)
{
  if (db->claim_fd < 0) return;
  if (db->h) {
    char key[128], sql[200];
    holder_key(key, sizeof key, (long)getpid(), db->claim_fd);
    snprintf(sql, sizeof sql, "DELETE FROM meta WHERE key = '%s'", key);
    if (!strchr(key, '\''))
      sqlite3_exec(db->h, sql, NULL, NULL, NULL);
  }
  close(db->claim_fd);
  db->claim_fd = -1;
}

int ls_db_clear(ls_db *db, ls_error *err)
{
  if (db->claim_fd < 0 || db->claim_shared)
    return ls_error_set(err, LS_ESTATE, "%s: emptying needs an exclusive claim", db->path);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db->h, "SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                         "NOT IN ('meta') AND name NOT LIKE 'sqlite_%'", -1, &st, NULL) != SQLITE_OK)
    return ls_db_fail(db, err, "listing tables");
  int rc = ls_db_exec(db, "BEGIN IMMEDIATE; PRAGMA defer_foreign_keys = ON;", err);
  while (!rc && sqlite3_step(st) == SQLITE_ROW) {
    char sql[200];
    snprintf(sql, sizeof sql, "DELETE FROM \"%s\"", (const char *)sqlite3_column_text(st, 0));
    rc = ls_db_exec(db, sql, err);
  }
  sqlite3_finalize(st);
  if (!rc)
    rc = ls_db_exec(db, "DELETE FROM meta WHERE key NOT LIKE 'writer.%' AND key <> "
                    "'schema_version'", err);
  if (!rc) return ls_db_exec(db, "COMMIT", err);
  sqlite3_exec(db->h, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* A leversim database of another schema version cannot be opened for writing, so a fresh
 * reproduce removes it (it is leversim's: application_id, or a meta table with a
 * schema_version) when nobody holds a claim on it, with its -wal and -shm. */
int ls_db_remove_old(const char *path, ls_error *err)
{
  sqlite3 *h = NULL;
  int ours = 0;
  size_t size = ls_db_input_uri_size(path);
  char *uri = malloc(size);
  if (uri && ls_db_input_uri(path, uri, size) >= 0 &&
      sqlite3_open_v2(uri, &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK &&
      ls_db_harden(h, 1) == SQLITE_OK) { /* the file's views never run */
    sqlite3_stmt *st = NULL;
    ours = sqlite3_prepare_v2(h, "SELECT (SELECT application_id FROM pragma_application_id) IN "
                              "(0, 1280725587) AND EXISTS (SELECT 1 FROM meta WHERE key = "
                              "'schema_version')", -1, &st, NULL) == SQLITE_OK &&
           sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
    sqlite3_finalize(st);
  }
  sqlite3_close(h);
  free(uri);
  if (!ours)
    return ls_error_set(err, LS_EPARSE, "%s: not a leversim results database; refusing to "
                        "remove it", path);
  int fd = open(path, O_RDWR | O_CLOEXEC);
  if (fd < 0) return ls_error_set(err, LS_EIO, "%s: cannot open: %s", path, strerror(errno));
  if (set_lock(fd, F_WRLCK) != 0) {
    close(fd);
    return ls_error_set(err, LS_EDB, "%s: in use by another leversim writer; not removed", path);
  }
  size_t n = strlen(path) + 5;
  char *side = malloc(n);
  int rc = unlink(path) == 0 ? LS_OK : ls_error_set(err, LS_EIO, "%s: cannot remove: %s", path,
                                                      strerror(errno));
  for (int i = 0; side && i < 2; i++) {
    snprintf(side, n, "%s-%s", path, i ? "shm" : "wal");
    unlink(side);
  }
  free(side);
  close(fd);
  return rc;
}
