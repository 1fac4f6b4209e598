/* tests/sim/test_fileio: sim/fileio — inputs only from regular files (FIFOs never block),
 * outputs only over what leversim wrote, atomic replacement that leaves nothing behind: both
 * ways of writing (an unnamed O_TMPFILE file, and the named fallback) give the same results
 * and messages, and a writer killed by SIGKILL in the middle of its output leaves no file. */
#define _GNU_SOURCE /* O_TMPFILE, to ask whether the test folder offers unnamed files */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ls_test.h"
#include "sim/fileio.h"
#include "sim_suites.h"

static char g_dir[64];

static const char *in_dir(char *buf, const char *name)
{
  if (!g_dir[0]) {
    snprintf(g_dir, sizeof g_dir, "/tmp/ls-fileio-XXXXXX");
    if (!mkdtemp(g_dir)) g_dir[0] = '\0';
  }
  snprintf(buf, 512, "%s/%s", g_dir, name);
  return buf;
}

/* ls_file_write_atomic, or its steps with the named fallback forced */
static int write_how(int named, const char *path, const char *what, const char *mark,
                     const void *data, size_t len, ls_error *err)
{
  if (!named) return ls_file_write_atomic(path, what, mark, data, len, err);
  ls_file_out o;
  int rc = ls_file_out_open_how(&o, path, what, mark, 1, err);
  if (rc) return rc;
  fwrite(data, 1, len, o.f);
  return ls_file_out_commit(&o, err);
}

static void put(const char *path, const char *text)
{
  FILE *f = fopen(path, "w");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
}

static int only_files(int expected) /* the folder holds exactly `expected` entries */
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq %d", g_dir, expected);
  return system(cmd) == 0;
}

static void test_inputs(void)
{
  char p[512], q[512];
  FILE *f = NULL;
  ls_error e;
  char *text = NULL;
  size_t len = 0;
  CU_ASSERT_EQUAL(ls_file_open_read(&f, in_dir(p, "none"), "trace", &e), LS_ENOTFOUND);
  CU_ASSERT_EQUAL(ls_file_open_read(&f, g_dir, "trace", &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a directory, not a regular file"));
  CU_ASSERT_EQUAL(ls_file_open_read(&f, "/dev/zero", NULL, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a device"));
  CU_ASSERT_EQUAL_FATAL(mkfifo(in_dir(q, "fifo"), 0644), 0);
  CU_ASSERT_EQUAL(ls_file_open_read(&f, q, NULL, &e), LS_EIO); /* at once: no writer needed */
  CU_ASSERT_EQUAL(ls_file_read_all(q, NULL, 1000, &text, &len, &e), LS_OK); /* no writer: empty */
  CU_ASSERT_EQUAL(len, 0);
  free(text);
  unlink(q);
  put(in_dir(p, "in.txt"), "hello\n");
  CU_ASSERT_EQUAL(ls_file_read_all(p, NULL, 1000, &text, &len, &e), LS_OK);
  CU_ASSERT_EQUAL(len, 6);
  CU_ASSERT_STRING_EQUAL(text, "hello\n");
  free(text);
  CU_ASSERT_EQUAL(ls_file_read_all(p, NULL, 3, &text, &len, &e), LS_ERANGE);
  CU_ASSERT_EQUAL_FATAL(ls_file_open_read(&f, p, NULL, &e), LS_OK);
  fclose(f);
  unlink(p);
}

/* 1 when the file system of dir creates unnamed files (ext4, xfs, btrfs, tmpfs do). */
static int tmpfile_works(const char *dir)
{
  int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd >= 0) close(fd);
  return fd >= 0;
}

static mode_t file_mode(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 ? st.st_mode & 0777 : (mode_t)-1;
}

/* Writes by another program's hand: the released temporary opened by its name, as gnuplot
 * does with `set output`. */
static void write_by_name(const char *name, const char *text)
{
  int fd = open(name, O_WRONLY | O_TRUNC | O_CLOEXEC);
  CU_ASSERT_FATAL(fd >= 0);
  CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
}

static void outputs(int named)
{
  char p[512], q[512];
  ls_error e;
  const char *mark = "# written by leversim test";
  put(in_dir(p, "foreign.txt"), "x\n");
  CU_ASSERT_EQUAL(write_how(named, p, "--out", mark, "new\n", 4, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "was not written by leversim"));
  FILE *f = fopen(p, "r");
  char line[16] = "";
  CU_ASSERT_PTR_NOT_NULL_FATAL(f);
  CU_ASSERT_PTR_NOT_NULL(fgets(line, sizeof line, f));
  fclose(f);
  CU_ASSERT_STRING_EQUAL(line, "x\n"); /* untouched */
  CU_ASSERT(only_files(1));            /* no temporary left */
  unlink(p);
  /* absent: written; then ours (holds the mark): replaced; an empty file: adopted */
  in_dir(q, "ours.txt");
  CU_ASSERT_EQUAL(write_how(named, q, "--out", mark, "# written by leversim test\n1\n", 29, &e), LS_OK);
  CU_ASSERT_EQUAL(write_how(named, q, "--out", mark, "# written by leversim test\n2\n", 29, &e), LS_OK);
  put(in_dir(p, "empty.txt"), "");
  CU_ASSERT_EQUAL(write_how(named, p, "--out", mark, "a", 1, &e), LS_OK);
  CU_ASSERT(only_files(2));
  unlink(p);
  unlink(q);
  /* a folder, a FIFO, a device are never replaced */
  CU_ASSERT_EQUAL(write_how(named, g_dir, "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a directory"));
  CU_ASSERT_EQUAL_FATAL(mkfifo(in_dir(q, "fifo"), 0644), 0);
  CU_ASSERT_EQUAL(write_how(named, q, "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a FIFO"));
  struct stat st;
  CU_ASSERT(stat(q, &st) == 0 && S_ISFIFO(st.st_mode));
  unlink(q);
  CU_ASSERT_EQUAL(write_how(named, "/dev/null", "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a device"));
  CU_ASSERT_EQUAL(write_how(named, "", "--out", mark, "a", 1, &e), LS_EUSAGE);
  /* a file that appears between open and commit is not replaced */
  ls_file_out o;
  CU_ASSERT_EQUAL_FATAL(ls_file_out_open_how(&o, in_dir(p, "late.txt"), "--out", mark, named, &e), LS_OK);
  CU_ASSERT_EQUAL(o.unnamed, !named && tmpfile_works(g_dir)); /* the way asked for is the way taken */
  fputs("mine\n", o.f);
  put(p, "theirs\n");
  CU_ASSERT_EQUAL(ls_file_out_commit(&o, &e), LS_EIO);
  CU_ASSERT(only_files(1));
  unlink(p);
  /* the usual mode of a new file; a released temporary written by name, then named */
  mode_t mask = umask(022);
  CU_ASSERT_EQUAL(write_how(named, in_dir(q, "mode.txt"), "--out", mark, "a", 1, &e), LS_OK);
  CU_ASSERT_EQUAL(file_mode(q), 0644);
  umask(mask);
  CU_ASSERT_EQUAL_FATAL(ls_file_out_open_how(&o, in_dir(p, "img.png"), "--out", "PNG", named, &e), LS_OK);
  write_by_name(ls_file_out_release(&o), "\x89PNG image");
  CU_ASSERT_EQUAL(ls_file_out_commit(&o, &e), LS_OK);
  char *text = NULL;
  size_t len = 0;
  CU_ASSERT_EQUAL(ls_file_read_all(p, NULL, 100, &text, &len, &e), LS_OK);
  CU_ASSERT_STRING_EQUAL(text ? text : "", "\x89PNG image");
  free(text);
  CU_ASSERT(only_files(2));
  /* released, never written (the program failed): refused, nothing left, the old image kept */
  CU_ASSERT_EQUAL_FATAL(ls_file_out_open_how(&o, p, "--out", "PNG", named, &e), LS_OK);
  ls_file_out_release(&o);
  CU_ASSERT_EQUAL(ls_file_out_commit(&o, &e), LS_EIO);
  CU_ASSERT(only_files(2));
  unlink(p);
  unlink(q);
  /* a folder that does not exist: the same message both ways */
  CU_ASSERT_EQUAL(write_how(named, in_dir(p, "no/such.txt"), "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "cannot create a file next to it: No such file or directory"));
  rmdir(g_dir);
  g_dir[0] = '\0';
}

static void test_outputs(void) { outputs(0); }
static void test_outputs_named(void) { outputs(1); }

/* The forked writer: opens target's output, writes a first MiB, says so on fd `told`, then
 * waits (as a long write does) to be killed. */
static void killed_writer(const char *target, int named, int told)
{
  ls_file_out o;
  ls_error e;
  static char chunk[1 << 20];
  memset(chunk, 'x', sizeof chunk);
  memcpy(chunk, "# written by leversim test\n", 27);
  if (ls_file_out_open_how(&o, target, "--out", "# written by leversim test", named, &e) != LS_OK ||
      fwrite(chunk, 1, sizeof chunk, o.f) != sizeof chunk || fflush(o.f) != 0)
    _exit(3);
  if (write(told, "w", 1) != 1) _exit(4);
  pause();
  _exit(5);
}

/* Forks a writer of target, kills it with SIGKILL after its first write; 1 when it was. */
static int kill_mid_write(const char *target, int named)
{
  int fds[2];
  if (pipe(fds) != 0) return 0;
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    killed_writer(target, named, fds[1]);
  }
  close(fds[1]);
  char c = 0;
  ssize_t r = pid > 0 ? read(fds[0], &c, 1) : -1;
  close(fds[0]);
  if (pid > 0) kill(pid, SIGKILL);
  int st = 0;
  if (pid > 0) waitpid(pid, &st, 0);
  return r == 1 && c == 'w' && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
}

static void test_sigkill(void)
{
  char p[512], q[512];
  in_dir(p, "out.txt");
  if (!tmpfile_works(g_dir)) { /* a file system without unnamed files: tmpfs has them */
    rmdir(g_dir);
    snprintf(g_dir, sizeof g_dir, "/dev/shm/ls-fileio-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(g_dir));
    CU_ASSERT_FATAL(tmpfile_works(g_dir));
    in_dir(p, "out.txt");
  }
  /* absent target: nothing at all afterwards */
  CU_ASSERT_FATAL(kill_mid_write(p, 0));
  CU_ASSERT(only_files(0));
  /* an output of leversim's: kept byte for byte, nothing beside it */
  const char *old = "# written by leversim test\nold\n";
  put(p, old);
  CU_ASSERT_FATAL(kill_mid_write(p, 0));
  CU_ASSERT(only_files(1));
  char *text = NULL;
  size_t len = 0;
  ls_error e;
  CU_ASSERT_EQUAL(ls_file_read_all(p, NULL, 1000, &text, &len, &e), LS_OK);
  CU_ASSERT_STRING_EQUAL(text ? text : "", old);
  free(text);
  /* the named fallback cannot do this: its half-written temporary stays (the kill really
   * came mid-write), while the target is still intact */
  CU_ASSERT_FATAL(kill_mid_write(p, 1));
  CU_ASSERT(only_files(2));
  snprintf(q, sizeof q, "rm -f '%s'/out.txt.tmp-*", g_dir);
  CU_ASSERT_EQUAL(system(q), 0);
  unlink(p);
  CU_ASSERT(only_files(0));
  rmdir(g_dir);
  g_dir[0] = '\0';
}



CU_TestInfo ls_t_fileio[] = {
    {"inputs: regular files only, FIFOs never block", test_inputs},
    {"outputs: only over leversim's own, atomic, nothing left behind", test_outputs},
    {"outputs, the named fallback: the same results and messages", test_outputs_named},
    {"outputs: a writer killed by SIGKILL mid-write leaves no file, the old one intact", test_sigkill},
    CU_TEST_INFO_NULL,
};
