/* sim/fileio: file access that never hangs on an input and never destroys what leversim did
 * not write.
 *
 * Inputs are read only from regular files: a FIFO, a device or a directory named where a
 * file is read whole is refused at once (opened O_NONBLOCK, so a FIFO without a writer does
 * not block the open), with LS_EIO naming the path and what it is.
 * Outputs follow one rule: leversim replaces or truncates only a regular file it can
 * recognise as its own — one that is empty or whose first LS_FILE_MARK_SPAN bytes hold the
 * writer's mark (e.g. "leversim-trace", "Written by `leversim calibrate`"). Anything else at
 * the path (a foreign file, a directory, a device, a FIFO, a socket) is refused with LS_EIO.
 * Writes are atomic and leave nothing behind, even when the process is killed (SIGKILL, a
 * power cut before the data was synced): the bytes go to an unnamed file in the target's
 * folder (O_TMPFILE), fflush + fsync, and only then get a name: linked as the target when
 * nothing is there, else linked under "<target>.tmp-<pid>-<k>" and renamed over the target,
 * which is checked again just before. A kill between those two calls is the one instant that
 * leaves a file behind, complete. Where the folder's file system refuses unnamed files (some
 * do: EOPNOTSUPP) or /proc is missing, the temporary is a named file "<target>.tmp-XXXXXX",
 * removed on any failure but left behind by a SIGKILL. */
#ifndef LS_SIM_FILEIO_H
#define LS_SIM_FILEIO_H
#include <stdio.h>
#include "sim/error.h"

#define LS_FILE_MARK_SPAN 4096          /* bytes of an existing output searched for the mark */
#define LS_FILE_MAX_INPUT (512L << 20)  /* largest file read whole (512 MiB) */
#define LS_FILE_PIPE_WAIT_MS 3000       /* longest wait for the next bytes of a pipe */

/* What path is, for messages: "a directory", "a FIFO", "a device", "a socket", "a regular
 * file", "missing" (borrowed static text). */
const char *ls_file_kind(const char *path);

/* Opens an existing regular file for reading ("rb"). Missing: LS_ENOTFOUND; not a regular
 * file or unreadable: LS_EIO. *out is owned by the caller (fclose). what ("trace", may be
 * NULL) prefixes the message. */
int ls_file_open_read(FILE **out, const char *path, const char *what, ls_error *err);

/* Reads a whole regular file (at most max bytes, else LS_ERANGE) into a malloc'd buffer
 * with a terminating NUL (not counted in *len); *text owned by the caller (free). A pipe or
 * FIFO is read too (`<(cat x.yaml)`), but never waited on for more than
 * LS_FILE_PIPE_WAIT_MS between two reads (LS_EIO); a FIFO without a writer reads as empty. */
int ls_file_read_all(const char *path, const char *what, long max, char **text, size_t *len,
                     ls_error *err);

/* LS_OK when path may be written as an output: absent, or a regular file that is empty or
 * holds mark in its first LS_FILE_MARK_SPAN bytes (mark NULL: only absent or empty). Else
 * LS_EIO naming the path, what it is and why it is refused. what names the option
 * ("--out"). */
int ls_file_check_output(const char *path, const char *what, const char *mark, ls_error *err);

/* An atomic output: write to f, then commit (or abort). */
typedef struct ls_file_out {
  FILE *f;            /* the temporary file; owned until commit/abort */
  char path[LS_PATH_MAX]; /* the target */
  char tmp[LS_PATH_MAX + 16]; /* a name that reaches the temporary file until commit (to read
                               * it back, or for another program to write): an unnamed one's
                               * "/proc/<pid>/fd/<n>", else the named file's path */
  const char *what, *mark;
  int released;       /* the temporary file is another program's to write (gnuplot) */
  int unnamed;        /* 1: the temporary has no name (O_TMPFILE); 0: the named fallback */
} ls_file_out;
/* Checks the target (ls_file_check_output) and creates the temporary file next to it. */
int ls_file_out_open(ls_file_out *o, const char *path, const char *what, const char *mark,
                     ls_error *err);
/* ls_file_out_open; named = 1 takes the named fallback even where unnamed files work, so tests
 * reach both ways (no command offers it). */
int ls_file_out_open_how(ls_file_out *o, const char *path, const char *what, const char *mark,
                         int named, ls_error *err);
/* Flushes and fsyncs the temporary file, checks the target again and gives the temporary
 * the target's name (see above), then closes it. Any failure removes the temporary and leaves
 * the target as it was. */
int ls_file_out_commit(ls_file_out *o, ls_error *err);
/* Hands the temporary file, empty, to another program to write by its name (o->tmp: gnuplot
 * writes an image there; an unnamed one stays open here, as its descriptor alone keeps it);
 * ls_file_out_commit then checks that it is still a regular file and names it as the target.
 * So a program that writes by name never writes the target itself: not through a symbolic
 * link, never over a foreign file, and a failed run leaves nothing behind. Returns o->tmp. */
const char *ls_file_out_release(ls_file_out *o);
/* Closes and removes the temporary file (after a failed write; safe after commit). */
void ls_file_out_abort(ls_file_out *o);

/* Writes len bytes to path atomically (ls_file_out_open + fwrite + commit). */
int ls_file_write_atomic(const char *path, const char *what, const char *mark, const void *data,
                         size_t len, ls_error *err);

#endif
