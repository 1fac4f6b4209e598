/* tests/fuzz/fuzz_util: see fuzz_util.h. */
#include "fuzz_util.h"
#include "sim/error.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256]; /* the harness's private temporary folder, removed at exit */

static void remove_dir(void)
{
  DIR *d = opendir(dir);
  if (!d)
    return;
  char path[600];
  for (struct dirent *e; (e = readdir(d));)
    if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
  closedir(d);
  rmdir(dir);
}

static const char *tmp_dir(void)
{
  if (!dir[0]) {
    struct stat st;
    const char *base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/leversim-fuzz-XXXXXX", base);
    if (!mkdtemp(dir)) {
      perror("fuzz: mkdtemp");
      abort();
    }
    atexit(remove_dir);
  }
  return dir;
}

const char *fz_write(const char *name, const uint8_t *data, size_t size)
{
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", tmp_dir(), name);
  FILE *f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0) {
    perror("fuzz: write temp file");
    abort();
  }
  return path;
}

char *fz_strdup(const uint8_t *data, size_t size)
{
  char *s = malloc(size + 1);
  if (!s)
    abort();
  if (size)
    memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

void fz_yaml_id(const uint8_t *data, size_t size, char *out, size_t out_size)
{
  snprintf(out, out_size, "fuzz");
  for (size_t i = 0; i + 3 < size; i++) {
    if ((i > 0 && data[i - 1] != '\n') || memcmp(data + i, "id:", 3) != 0)
      continue;
    size_t j = i + 3, n = 0;
    while (j < size && data[j] == ' ')
      j++;
    char id[60];
    while (j < size && n + 1 < sizeof id && data[j] != '\n' && data[j] != ' ' && data[j] != '#') {
      char c = (char)data[j++];
      int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
      if (!ok)
        return;
      id[n++] = c;
    }
    id[n] = '\0';
    if (n > 0 && strcmp(id, ".") != 0 && strcmp(id, "..") != 0)
      snprintf(out, out_size, "%s", id);
    return;
  }
}

const char *fz_data_root(void)
{
  const char *env = getenv("LEVERSIM_DATA");
  if (env && env[0])
    return env;
#ifdef LS_SOURCE_DIR
  return LS_SOURCE_DIR;
#else
  return ".";
#endif
}

void *fz_devnull(void)
{
  static FILE *f;
  if (!f)
    f = fopen("/dev/null", "w");
  if (!f)
    abort();
  return f;
}

void fz_report(const char *what, const void *err)
{
  if (!getenv("FUZZ_VERBOSE"))
    return;
  char buf[LS_ERR_MSG + LS_ERR_FILE + 64];
  fprintf(stderr, "%s: %s\n", what, ls_error_format(err, buf, sizeof buf));
}
