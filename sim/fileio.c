/* sim/fileio: see fileio.h.
 * Invariants: an input is fstat'ed after open (not stat'ed before), so what is checked is
 * what is read; an output is checked when its temporary is created and again just before it
 * is named, so a file that appeared in between is not replaced; the temporary is always
 * removed on failure. An output's bytes live in a file without a name (Linux O_TMPFILE, since
 * 3.11) until they are complete and synced: no handler runs on SIGKILL, and the kernel frees
 * such a file with the killed process's descriptors, so a kill at any instant of the writing
 * leaves nothing behind (open(2), linkat(2): "O_TMPFILE ... can be made persistent with
 * linkat"). Where the file system refuses unnamed files, a named temporary is the fallback. */
#define _GNU_SOURCE /* O_TMPFILE */
#include "sim/fileio.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
  if (S_ISREG(m)) return "a regular file";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m) || S_ISBLK(m)) return "a device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

const char *ls_file_kind(const char *path)
{
  struct stat st;
  if (stat(path, &st) != 0) return "missing";
  return kind_of(st.st_mode);
}

/* Opens path read-only without blocking (a FIFO with no writer would block a plain open),
 * refuses anything but a regular file, then makes the descriptor blocking again. */
static int open_regular(const char *path, const char *what, int *fd_out, off_t *size,
                        int allow_fifo, ls_error *err)
{
  const char *sep = what ? " the " : "", *w = what ? what : "";
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR)
      return ls_error_at(err, LS_ENOTFOUND, path, 0, 0, "cannot open%s%s: %s", sep, w,
                         strerror(e));
    return ls_error_at(err, LS_EIO, path, 0, 0, "cannot open%s%s: %s", sep, w, strerror(e));
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && allow_fifo && S_ISFIFO(st.st_mode)) {
    *fd_out = fd; /* stays non-blocking: read_all polls it with a time limit */
    if (size) *size = -1;
    return LS_OK;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int e = errno;
    const char *k = S_ISREG(st.st_mode) ? strerror(e) : kind_of(st.st_mode);
    close(fd);
    return ls_error_at(err, LS_EIO, path, 0, 0, "cannot read%s%s: %s, not a regular file", sep,
                       w, k);
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  *fd_out = fd;
  if (size) *size = st.st_size;
  return LS_OK;
}

int ls_file_open_read(FILE **out, const char *path, const char *what, ls_error *err)
{
  *out = NULL;
  int fd;
  int rc = open_regular(path, what, &fd, NULL, 0, err);
  if (rc) return rc;
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return ls_error_at(err, LS_ENOMEM, path, 0, 0, "out of memory");
  }
  *out = f;
  return LS_OK;
}

int ls_file_read_all(const char *path, const char *what, long max, char **text, size_t *len,
                     ls_error *err)
{
  *text = NULL;
  *len = 0;
  int fd;
  off_t size;
  int rc = open_regular(path, what, &fd, &size, 1, err);
  if (rc) return rc;
  int fifo = size < 0;
  if (!fifo && size > max) {
    close(fd);
    return ls_error_at(err, LS_ERANGE, path, 0, 0, "%s%sfile too large (%lld bytes, at most %ld)",
                       what ? what : "", what ? " " : "", (long long)size, max);
  }
  size_t cap = fifo ? 65536 : (size_t)size + 1, n = 0; /* a pipe's buffer grows as it delivers */
  char *buf = malloc(cap + 1);
  while (buf) { /* the file may grow while read: read to its end, within max */
    ssize_t r = read(fd, buf + n, cap - n);
    if (r < 0 && errno == EAGAIN && fifo) { /* a pipe with a writer and no data yet */
      struct pollfd p = {fd, POLLIN, 0};
      if (poll(&p, 1, LS_FILE_PIPE_WAIT_MS) == 0) {
        free(buf);
        close(fd);
        return ls_error_at(err, LS_EIO, path, 0, 0, "%s%sno data for %d s from a pipe",
                           what ? what : "", what ? " " : "", LS_FILE_PIPE_WAIT_MS / 1000);
      }
      continue;
    }
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r < 0) {
      int e = errno;
      free(buf);
      close(fd);
      return ls_error_at(err, LS_EIO, path, 0, 0, "cannot read: %s", strerror(e));
    }
    if (r == 0) break;
    n += (size_t)r;
    if (n == cap) {
      if ((long)cap > max) {
        free(buf);
        close(fd);
        return ls_error_at(err, LS_ERANGE, path, 0, 0, "file too large (at most %ld bytes)", max);
      }
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) free(buf);
      buf = nb;
      cap *= 2;
    }
  }
  close(fd);
  if (!buf) return ls_error_at(err, LS_ENOMEM, path, 0, 0, "out of memory");
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return LS_OK;
}

/* 1 when mark occurs in the first LS_FILE_MARK_SPAN bytes of the open file. */
static int holds_mark(int fd, const char *mark)
{
  char buf[LS_FILE_MARK_SPAN];
  size_t n = 0, m = strlen(mark);
  while (n < sizeof buf) {
    ssize_t r = read(fd, buf + n, sizeof buf - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += (size_t)r;
  }
  for (size_t i = 0; m > 0 && i + m <= n; i++)
    if (memcmp(buf + i, mark, m) == 0) return 1;
  return 0;
}

int ls_file_check_output(const char *path, const char *what, const char *mark, ls_error *err)
{
  const char *w = what ? what : "output";
  if (!path || !path[0])
    return ls_error_set(err, LS_EUSAGE, "%s: an empty file name", w);
  struct stat st;
  if (lstat(path, &st) != 0) {
    if (errno == ENOENT) return LS_OK;
    return ls_error_set(err, LS_EIO, "%s %s: %s", w, path, strerror(errno));
  }
  if (S_ISLNK(st.st_mode) && stat(path, &st) != 0)
    return LS_OK; /* a dangling link: the rename replaces the link, not what it pointed to */
  if (!S_ISREG(st.st_mode))
    return ls_error_set(err, LS_EIO, "%s %s: is %s, not a file leversim wrote; refusing to "
                        "replace it", w, path, kind_of(st.st_mode));
  if (st.st_size == 0) return LS_OK;
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  int ours = fd >= 0 && mark && holds_mark(fd, mark);
  if (fd >= 0) close(fd);
  if (!ours)
    return ls_error_set(err, LS_EIO, "%s %s: exists and was not written by leversim (no "
                        "'%.40s%s' in its first bytes); refusing to replace it (move it away "
                        "or choose another name)", w, path, mark ? mark : "leversim mark",
                        mark && strlen(mark) > 40 ? "..." : "");
  return LS_OK;
}

/* The folder of path ("." for a bare name), malloc'd; NULL when out of memory. */
static char *dir_of(const char *path)
{
  const char *slash = strrchr(path, '/');
  size_t n = !slash ? 1 : slash == path ? 1 : (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, slash ? path : ".", n);
    d[n] = '\0';
  }
  return d;
}

/* An unnamed file (O_TMPFILE) in the target's folder, 0666 & ~umask, reachable as o->tmp =
 * "/proc/<pid>/fd/<n>" (by the owner, and by a program it starts) until commit names it.
 * -1 with errno on failure; *fallback = 1 when the folder's file system refuses unnamed files
 * (EOPNOTSUPP, EISDIR, EINVAL) or /proc does not show the descriptor (it could not be linked),
 * so a named temporary file is the way; 0 for errors a named file would meet as well. */
static int open_unnamed(ls_file_out *o, int *fallback)
{
  *fallback = 0;
  char *dir = dir_of(o->path);
  if (!dir) {
    errno = ENOMEM;
    return -1;
  }
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666), e = errno;
  free(dir);
  if (fd < 0) {
    *fallback = e == EOPNOTSUPP || e == EISDIR || e == EINVAL;
    errno = e;
    return -1;
  }
  struct stat a, b;
  snprintf(o->tmp, sizeof o->tmp, "/proc/%ld/fd/%d", (long)getpid(), fd);
  if (fstat(fd, &a) != 0 || stat(o->tmp, &b) != 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino) {
    close(fd);
    o->tmp[0] = '\0';
    *fallback = 1;
    errno = EOPNOTSUPP;
    return -1;
  }
  return fd;
}

/* The fallback: a named temporary file "<target>.tmp-XXXXXX" (a SIGKILL leaves it behind). */
static int open_named(ls_file_out *o)
{
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp-XXXXXX", o->path);
  int fd = mkstemp(o->tmp);
  if (fd < 0) {
    int e = errno;
    o->tmp[0] = '\0';
    errno = e;
    return -1;
  }
  mode_t mask = umask(0); /* mkstemp makes 0600; an output gets the usual 0666 & ~umask */
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  return fd;
}

int ls_file_out_open(ls_file_out *o, const char *path, const char *what, const char *mark,
                     ls_error *err)
{
  return ls_file_out_open_how(o, path, what, mark, 0, err);
}

int ls_file_out_open_how(ls_file_out *o, const char *path, const char *what, const char *mark,
                         int named, ls_error *err)
{
  memset(o, 0, sizeof *o);
  o->what = what ? what : "output";
  o->mark = mark;
  int rc = ls_file_check_output(path, o->what, mark, err);
  if (rc) return rc;
  if (strlen(path) >= sizeof o->path)
    return ls_error_set(err, LS_EUSAGE, "%s %s: path too long", o->what, path);
  snprintf(o->path, sizeof o->path, "%s", path);
  int fallback = 1, fd = named ? -1 : open_unnamed(o, &fallback);
  o->unnamed = fd >= 0;
  if (fd < 0 && fallback) fd = open_named(o);
  if (fd < 0)
    return ls_error_set(err, LS_EIO, "%s %s: cannot create a file next to it: %s", o->what,
                        path, strerror(errno));
  o->f = fdopen(fd, "w");
  if (!o->f) {
    close(fd);
    ls_file_out_abort(o);
    return ls_error_set(err, LS_ENOMEM, "%s: out of memory", path);
  }
  return LS_OK;
}

void ls_file_out_abort(ls_file_out *o)
{
  if (o->f) fclose(o->f); /* an unnamed file goes with its last descriptor */
  o->f = NULL;
  if (o->tmp[0] && !o->unnamed) unlink(o->tmp);
  o->tmp[0] = '\0';
}

const char *ls_file_out_release(ls_file_out *o)
{
  if (o->f && o->unnamed) {
    fflush(o->f); /* the descriptor stays open: it alone keeps an unnamed file alive */
  } else if (o->f) {
    fclose(o->f);
    o->f = NULL;
  }
  o->released = 1;
  return o->tmp;
}

/* The released temporary file as another program left it: a regular file, not empty, synced
 * (an unnamed one through the descriptor kept open; a named one opened, never through a link). */
static int released_ok(ls_file_out *o, int *e)
{
  struct stat st;
  int fd = o->unnamed ? fileno(o->f) : open(o->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  int ok = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && fsync(fd) == 0;
  *e = ok ? 0 : fd < 0 ? errno : 0;
  if (fd >= 0 && !o->unnamed) close(fd);
  return ok;
}

/* Flushes and fsyncs what the caller wrote; 1 (and *e) when that failed. */
static int sync_written(FILE *f, int *e)
{
  if (fflush(f) != 0 || ferror(f)) {
    *e = errno;
    return 1;
  }
  if (fsync(fileno(f)) != 0) {
    *e = errno;
    return 1;
  }
  return 0;
}

/* Names the synced unnamed file as the target. Nothing there: linked straight to the target's
 * name, which fails (EEXIST) rather than replace a file that appeared. Else (an output of
 * leversim's, checked again): linked under "<target>.tmp-<pid>-<k>" and renamed over the
 * target. Between those two calls alone a SIGKILL leaves a file behind, complete and synced. */
static int name_unnamed(ls_file_out *o, ls_error *err)
{
  if (linkat(AT_FDCWD, o->tmp, AT_FDCWD, o->path, AT_SYMLINK_FOLLOW) == 0) return LS_OK;
  if (errno != EEXIST)
    return ls_error_set(err, LS_EIO, "%s %s: cannot create it: %s", o->what, o->path,
                        strerror(errno));
  int rc = ls_file_check_output(o->path, o->what, o->mark, err), linked = -1;
  size_t n = strlen(o->path) + 48;
  char *name = rc ? NULL : malloc(n);
  if (rc) return rc;
  if (!name) return ls_error_set(err, LS_ENOMEM, "%s: out of memory", o->path);
  for (unsigned k = 0; linked != 0 && k < 1000; k++) { /* k: another thread's name in use */
    snprintf(name, n, "%s.tmp-%ld-%u", o->path, (long)getpid(), k);
    linked = linkat(AT_FDCWD, o->tmp, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
    if (linked != 0 && errno != EEXIST) break;
  }
  if (linked != 0) {
    rc = ls_error_set(err, LS_EIO, "%s %s: cannot create a file next to it: %s", o->what,
                      o->path, strerror(errno));
  } else if (renameat(AT_FDCWD, name, AT_FDCWD, o->path) != 0) {
    rc = ls_error_set(err, LS_EIO, "%s %s: cannot rename %s over it: %s", o->what, o->path,
                      name, strerror(errno));
    unlink(name);
  }
  free(name);
  return rc;
}

int ls_file_out_commit(ls_file_out *o, ls_error *err)
{
  if (!o->f && !o->released) return ls_error_set(err, LS_ESTATE, "%s: nothing to commit", o->path);
  int e = 0, bad = o->released ? !released_ok(o, &e) : sync_written(o->f, &e);
  if (o->f && !o->unnamed) { /* a named file is closed before its rename */
    if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
    o->f = NULL;
  }
  int rc = LS_OK;
  if (bad)
    rc = ls_error_set(err, LS_EIO, "%s %s: write failed: %s", o->what, o->path,
                      e ? strerror(e) : "I/O error");
  if (!rc) rc = ls_file_check_output(o->path, o->what, o->mark, err);
  if (!rc && o->unnamed) {
    rc = name_unnamed(o, err);
  } else if (!rc && rename(o->tmp, o->path) != 0) {
    rc = ls_error_set(err, LS_EIO, "%s %s: cannot rename %s over it: %s", o->what, o->path,
                      o->tmp, strerror(errno));
  }
  if (rc) {
    ls_file_out_abort(o);
  } else {
    if (o->f) fclose(o->f); /* synced and named: closing loses nothing */
    o->f = NULL;
    o->tmp[0] = '\0';
  }
  return rc;
}

int ls_file_write_atomic(const char *path, const char *what, const char *mark, const void *data,
                         size_t len, ls_error *err)
{
  ls_file_out o;
  int rc = ls_file_out_open(&o, path, what, mark, err);
  if (rc) return rc;
  if (len && fwrite(data, 1, len, o.f) != len) {
    int e = errno;
    ls_file_out_abort(&o);
    return ls_error_set(err, LS_EIO, "%s %s: write failed: %s", o.what, path, strerror(e));
  }
  return ls_file_out_commit(&o, err);
}
