/* tests/sim/test_fileio: sim/fileio — inputs only from regular files (FIFOs never block),
 * outputs only over what leversim wrote, atomic replacement that leaves nothing behind. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static void test_outputs(void)
{
  char p[512], q[512];
  ls_error e;
  const char *mark = "# written by leversim test";
  put(in_dir(p, "foreign.txt"), "x\n");
  CU_ASSERT_EQUAL(ls_file_write_atomic(p, "--out", mark, "new\n", 4, &e), LS_EIO);
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
  CU_ASSERT_EQUAL(ls_file_write_atomic(q, "--out", mark, "# written by leversim test\n1\n", 29, &e), LS_OK);
  CU_ASSERT_EQUAL(ls_file_write_atomic(q, "--out", mark, "# written by leversim test\n2\n", 29, &e), LS_OK);
  put(in_dir(p, "empty.txt"), "");
  CU_ASSERT_EQUAL(ls_file_write_atomic(p, "--out", mark, "a", 1, &e), LS_OK);
  CU_ASSERT(only_files(2));
  unlink(p);
  unlink(q);
  /* a folder, a FIFO, a device are never replaced */
  CU_ASSERT_EQUAL(ls_file_write_atomic(g_dir, "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a directory"));
  CU_ASSERT_EQUAL_FATAL(mkfifo(in_dir(q, "fifo"), 0644), 0);
  CU_ASSERT_EQUAL(ls_file_write_atomic(q, "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a FIFO"));
  struct stat st;
  CU_ASSERT(stat(q, &st) == 0 && S_ISFIFO(st.st_mode));
  unlink(q);
  CU_ASSERT_EQUAL(ls_file_write_atomic("/dev/null", "--out", mark, "a", 1, &e), LS_EIO);
  CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is a device"));
  CU_ASSERT_EQUAL(ls_file_write_atomic("", "--out", mark, "a", 1, &e), LS_EUSAGE);
  /* a file that appears between open and commit is not replaced */
  ls_file_out o;
  CU_ASSERT_EQUAL_FATAL(ls_file_out_open(&o, in_dir(p, "late.txt"), "--out", mark, &e), LS_OK);
  fputs("mine\n", o.f);
  put(p, "theirs\n");
  CU_ASSERT_EQUAL(ls_file_out_commit(&o, &e), LS_EIO);
  CU_ASSERT(only_files(1));
  unlink(p);
  rmdir(g_dir);
}

CU_TestInfo ls_t_fileio[] = {
    {"inputs: regular files only, FIFOs never block", test_inputs},
    {"outputs: only over leversim's own, atomic, nothing left behind", test_outputs},
    CU_TEST_INFO_NULL,
};
