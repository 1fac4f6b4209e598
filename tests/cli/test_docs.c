/* tests/cli/test_docs: docs that cannot drift (issue 21 item 5).
 *
 * 1. docs/CLI.md is exactly `leversim help --markdown` (the option tables' own text).
 * 2. Every `leversim ...` command line quoted in a Markdown file of the repository (README.md,
 *    docs/, the folders' READMEs; build folders excluded), in fenced code blocks and inline
 *    code spans, build/leversim included, runs:
 *    - always with --help appended: the binary checks that the command and every option name
 *      exist (runner/cli/opts.h, help mode) and must exit 0 printing its usage;
 *    - for real, on the shipped data and a one-run database made here, when it is an example
 *      that runs in a moment (settings, profiles, tree, devices, trace info, export,
 *      --version, help) and has no placeholder (FILE, N, [optional], ...): it must exit 0.
 *    How a line is read: it ends at a shell comment, redirection or arrow (" #", " > ",
 *    " -> ", ...); " | " separates alternatives ("profiles list | show ID": "profiles show
 *    ID"); brackets and parentheses around words are dropped; quotes group words.
 * A negative control checks that a line naming an option that does not exist fails. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ls_test.h"

#define MAX_TOK 96

static char g_dir[256];   /* scratch folder */
static char g_db[600];    /* the one-run database of the real runs */

/* Runs the binary with argv (argv[0] ignored) and returns its exit status (-1 when it did
 * not exit); stdout and stderr into out. */
static int run(char **argv, char *out, size_t size)
{
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    dup2(fd[1], 2);
    close(fd[0]);
    close(fd[1]);
    argv[0] = (char *)LS_BINARY;
    if (chdir(LS_TEST_DIR "/..") != 0) /* paths in the docs are relative to the top */
      _exit(126);
    execv(LS_BINARY, argv);
    _exit(127);
  }
  close(fd[1]);
  size_t n = 0;
  ssize_t r;
  char sink[4096];
  while ((r = read(fd[0], n + 1 < size ? out + n : sink, n + 1 < size ? size - 1 - n : sizeof sink)) > 0)
    n += n + 1 < size ? (size_t)r : 0;
  out[n] = '\0';
  close(fd[0]);
  int st;
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

typedef struct doc_count {
  int lines, help_runs, real_runs, failed;
  char report[8192]; /* the failures, one line each */
} doc_count;

static void fail(doc_count *c, const char *where, const char *cmd, const char *how, const char *out)
{
  size_t len = strlen(c->report);
  char first[300];
  snprintf(first, sizeof first, "%s", out);
  char *nl = strchr(first, '\n'); /* two lines of the output */
  if (nl && (nl = strchr(nl + 1, '\n')) != NULL)
    *nl = '\0';
  snprintf(c->report + len, sizeof c->report - len, "%s: `leversim %s`: %s\n    %s\n", where, cmd, how, first);
  c->failed++;
}

/* A placeholder or an optional part: the line is a pattern, not an example. */
static int is_pattern(const char *tok)
{
  if (strchr(tok, '[') || strchr(tok, '<') || strchr(tok, '(') || strstr(tok, "..."))
    return 1;
  int upper = 0, lower = 0;
  for (const char *c = tok; *c; c++) {
    upper += *c >= 'A' && *c <= 'Z';
    lower += *c >= 'a' && *c <= 'z';
  }
  return upper > 0 && lower == 0 && tok[0] != '-'; /* D, FILE, OUT.db is not: "db" */
}

/* Splits text into words: spaces separate, quotes group (and are removed), brackets and
 * parentheses at a word's edges are dropped, and so are the words "..." and "|". Returns
 * the count; *pattern set when some word is a placeholder. Words point into buf. */
static int words(const char *text, char *buf, size_t size, char **tok, int *pattern)
{
  int n = 0;
  size_t k = 0;
  const char *p = text;
  *pattern = 0;
  while (*p && n < MAX_TOK - 2) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    char *w = buf + k, q = 0;
    for (; *p && (q || *p != ' ') && k + 1 < size; p++)
      if (q && *p == q)
        q = 0;
      else if (!q && (*p == '\'' || *p == '"'))
        q = *p;
      else
        buf[k++] = *p;
    buf[k++] = '\0';
    *pattern |= is_pattern(w);
    while (*w == '[' || *w == '(')
      w++;
    for (size_t e = strlen(w); e > 0 && strchr("])", w[e - 1]); e--)
      w[e - 1] = '\0';
    if (strlen(w) >= 3 && !strcmp(w + strlen(w) - 3, "...") && strcmp(w, "..."))
      w[strlen(w) - 3] = '\0', *pattern = 1;
    for (size_t e = strlen(w); e > 0 && strchr("])", w[e - 1]); e--)
      w[e - 1] = '\0';
    if (*w && strcmp(w, "...") && strcmp(w, "|"))
      tok[n++] = w;
  }
  tok[n] = NULL;
  return n;
}

/* The examples that run in a moment on the shipped data. */
static int runs_for_real(char **tok, int n)
{
  static const char *const quick[] = {"settings", "profiles", "tree", "devices", "export", "--version", "--help", "help"};
  if (n == 0)
    return 0;
  if (!strcmp(tok[0], "trace"))
    return n > 1 && !strcmp(tok[1], "info");
  for (size_t i = 0; i < sizeof quick / sizeof quick[0]; i++)
    if (!strcmp(tok[0], quick[i]))
      return 1;
  return 0;
}

/* One command (the words after leversim). */
static void check_command(doc_count *c, const char *where, char **tok, int n, int pattern)
{
  char out[16384], shown[2048] = "";
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(shown + len, len < sizeof shown ? sizeof shown - len : 0, "%s%s", i ? " " : "", tok[i]);
  if (n == 0 || tok[0][0] == '<')
    return; /* "leversim <command> --help": the generic form */
  size_t l0 = strlen(tok[0]);
  size_t l1 = n > 1 ? strlen(tok[1]) : 0;
  if (tok[0][l0 - 1] == ':' || (l1 && tok[1][l1 - 1] == ':') ||
      !(tok[0][0] == '-' || (tok[0][0] >= 'a' && tok[0][0] <= 'z')))
    return; /* "leversim run: bad value ..." and "leversim trace record: ..." quote a message;
               "leversim > file" is no command */
  char *argv[MAX_TOK + 2];
  argv[0] = NULL;
  int k = 0;
  for (int i = 0; i < n; i++) /* "<command>" stands for any name: left out */
    if (tok[i][0] != '<')
      tok[k++] = tok[i];
  n = k;
  for (int i = 0; i < n; i++)
    argv[i + 1] = tok[i];
  int top_flag = !strcmp(tok[0], "--version") || (!strcmp(tok[0], "--help") && n == 1);
  argv[n + 1] = top_flag ? NULL : "--help";
  argv[n + 2] = NULL;
  c->help_runs++;
  if (getenv("LS_DOCS_VERBOSE")) /* LS_DOCS_VERBOSE=1 test_cli docs: every command as read */
    fprintf(stderr, "  %s: leversim %s%s\n", where, shown,
            pattern || !runs_for_real(tok, n) || strstr(where, "BAD_INPUTS.md") ? "" : "   [runs for real]");
  int rc = run(argv, out, sizeof out);
  if (rc != 0 || (!top_flag && !strstr(out, "usage: leversim")))
    fail(c, where, shown, rc != 0 ? "with --help: not exit 0 (a command or option that does not exist?)"
                                  : "with --help: no usage printed", out);
  /* docs/BAD_INPUTS.md lists commands that fail on purpose, on files that
   * tests/fuzz/bad_inputs.sh makes and runs itself: their names are checked, not run. */
  if (pattern || !runs_for_real(tok, n) || strstr(where, "BAD_INPUTS.md"))
    return;
  for (int i = 1; i < n; i++) /* export reads the one-run database; --out goes to scratch */
    if (!strcmp(tok[i - 1], "--db"))
      argv[i + 1] = g_db;
    else if (!strcmp(tok[i - 1], "--out"))
      argv[i + 1] = "/dev/null";
    else if (!strcmp(tok[i - 1], "--plugin") && !strcmp(tok[i], "examples/policy-greedy/libgreedy.so"))
      argv[i + 1] = LS_PLUGIN_DIR "/libgreedy.so"; /* the same source, built by CMake, not in the checkout */
  argv[n + 1] = NULL;
  c->real_runs++;
  rc = run(argv, out, sizeof out);
  if (rc != 0)
    fail(c, where, shown, "the example does not run (exit not 0)", out);
}

/* A command line as quoted: cut at the first shell comment, redirection or arrow, split into
 * alternatives at " | ". */
static void check_line(doc_count *c, const char *where, const char *text)
{
  static const char *const stops[] = {" #", " > ", " >> ", " < ", " 2>", " -> ", " && ", " ; ", " || "};
  char line[2048];
  snprintf(line, sizeof line, "%s", text);
  for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++) {
    char *s = strstr(line, stops[i]);
    if (s)
      *s = '\0';
  }
  c->lines++;
  char *base[MAX_TOK], buf[2048], *alt = line, *bar;
  char basebuf[2048];
  int nb = -1, pattern;
  for (;;) {
    bar = strstr(alt, " | ");
    if (bar)
      *bar = '\0';
    char *tok[MAX_TOK + 2];
    int n = words(alt, buf, sizeof buf, tok, &pattern);
    if (nb < 0) { /* the first alternative: the command itself */
      nb = words(alt, basebuf, sizeof basebuf, base, &pattern);
      check_command(c, where, tok, n, pattern);
    } else if (n > 0) { /* "show ID" of "profiles list | show ID" */
      char *full[MAX_TOK + 2];
      int k = 0;
      if (nb > 0 && base[0][0] != '-' && strcmp(tok[0], base[0]) != 0)
        full[k++] = base[0];
      for (int i = 0; i < n && k < MAX_TOK; i++)
        full[k++] = tok[i];
      full[k] = NULL;
      check_command(c, where, full, k, 1);
    }
    if (!bar)
      break;
    alt = bar + 3;
  }
}

/* The "leversim " that starts a command in text[0..len) (a code line or span): at its start
 * (after spaces or a "$ " prompt) or after a path ("build/leversim", "/usr/bin/time -v
 * build/leversim"); a span that merely mentions leversim in a message does not count. */
static void scan(doc_count *c, const char *where, const char *text, size_t len)
{
  size_t start = 0;
  while (start < len && text[start] == ' ')
    start++;
  if (start + 2 <= len && !strncmp(text + start, "$ ", 2))
    start += 2;
  for (size_t i = start; i + 9 <= len; i++) {
    if (strncmp(text + i, "leversim ", 9) != 0 || (i > start && text[i - 1] != '/'))
      continue;
    char cmd[2048];
    size_t n = len - i - 9 < sizeof cmd - 1 ? len - i - 9 : sizeof cmd - 1;
    memcpy(cmd, text + i + 9, n);
    cmd[n] = '\0';
    for (char *p = cmd; *p; p++)
      if (*p == '\n' || *p == '\t')
        *p = ' ';
    check_line(c, where, cmd);
    return; /* one command per line or span */
  }
}

/* 1 when text between a and b holds a blank line or a fence line. */
static int span_breaks(const char *a, const char *b)
{
  for (const char *r = a; r < b; r++)
    if (*r == '\n') {
      const char *t = r + 1;
      while (*t == ' ')
        t++;
      if (*t == '\n' || !strncmp(t, "```", 3))
        return 1;
    }
  return 0;
}

/* The fenced code blocks (line by line, "\" continuations joined) and the inline code spans
 * of a Markdown text. */
static void check_markdown(doc_count *c, const char *name, char *text)
{
  int fenced = 0, line_no = 1;
  char where[300], joined[4096];
  for (char *p = text; *p;) {
    char *end = strchr(p, '\n');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    const char *t = p;
    while (*t == ' ')
      t++;
    snprintf(where, sizeof where, "%s:%d", name, line_no);
    if (!strncmp(t, "```", 3)) {
      fenced = !fenced;
    } else if (fenced) {
      size_t jl = 0;
      while (len > 0 && p[len - 1] == '\\' && end) { /* a continued shell line */
        jl += (size_t)snprintf(joined + jl, jl < sizeof joined ? sizeof joined - jl : 0, "%.*s ", (int)len - 1, p);
        p = end + 1;
        line_no++;
        end = strchr(p, '\n');
        len = end ? (size_t)(end - p) : strlen(p);
      }
      jl += (size_t)snprintf(joined + jl, jl < sizeof joined ? sizeof joined - jl : 0, "%.*s", (int)len, p);
      scan(c, where, joined, strlen(joined));
    } else {
      for (const char *q = p; q < p + len; q++) { /* inline spans; a span may cross lines */
        if (*q != '`')
          continue;
        const char *close = strchr(q + 1, '`');
        if (!close)
          break;
        if (span_breaks(q, close))
          continue; /* a lone backtick: a span never crosses a paragraph or a fence */
        scan(c, where, q + 1, (size_t)(close - q - 1));
        for (const char *r = q; r < close; r++)
          line_no += *r == '\n';
        if (close >= p + len) { /* the span ended on a later line */
          p = (char *)close + 1;
          end = strchr(p, '\n');
          len = end ? (size_t)(end - p) : strlen(p);
          q = p - 1;
          continue;
        }
        q = close;
      }
    }
    if (!end)
      break;
    p = end + 1;
    line_no++;
  }
}


static int init_docs(void)
{
  unsetenv("LEVERSIM_DATA"); /* the shipped data, as a reader of the docs has it */
  snprintf(g_dir, sizeof g_dir, "/tmp/leversim-docs-%ld", (long)getpid());
  char cmd[600], out[8192];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", g_dir, g_dir);
  if (system(cmd) != 0)
    return -1;
  snprintf(g_db, sizeof g_db, "%s/one.db", g_dir);
  char *argv[] = {NULL, "run", "--device", "oneplus-12", "--model", "llama-3.1-8b", "--dataset", "gsm8k", "--system",
                  "lever", "--prompts", "1", "--tokens", "8", "--db", g_db, NULL};
  return run(argv, out, sizeof out) == 0 ? 0 : -1;
}

static int clean_docs(void)
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
  return system(cmd) == 0 ? 0 : 0;
}

static void test_cli_md_current(void)
{
  static char out[1 << 20];
  char path[512];
  char *argv[] = {NULL, "help", "--markdown", NULL};
  CU_ASSERT_EQUAL_FATAL(run(argv, out, sizeof out), 0);
  snprintf(path, sizeof path, "%s/../docs/CLI.md", LS_TEST_DIR);
  char *doc = ls_test_slurp(path);
  CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
  int same = strcmp(doc, out) == 0;
  if (!same)
    fprintf(stderr, "\n  docs/CLI.md is out of date: build/leversim help --markdown > docs/CLI.md\n");
  CU_ASSERT(same);
  free(doc);
}

/* Every Markdown file under dir (rel: its path from the top), build folders and hidden ones
 * left out. */
static void check_tree(doc_count *c, const char *dir, const char *rel)
{
  DIR *d = opendir(dir);
  if (!d)
    return;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    const char *n = e->d_name;
    size_t len = strlen(n);
    char path[1024], name[600];
    if (n[0] == '.' || (!rel[0] && !strncmp(n, "build", 5)))
      continue;
    snprintf(path, sizeof path, "%s/%s", dir, n);
    snprintf(name, sizeof name, "%s%s%s", rel, rel[0] ? "/" : "", n);
    if (len > 3 && !strcmp(n + len - 3, ".md")) {
      char *t = ls_test_slurp(path);
      if (t)
        check_markdown(c, name, t);
      free(t);
    } else {
      struct stat st;
      if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        check_tree(c, path, name);
    }
  }
  closedir(d);
}

static void test_doc_commands(void)
{
  static doc_count c;
  memset(&c, 0, sizeof c);
  check_tree(&c, LS_TEST_DIR "/..", "");
  if (c.failed)
    fprintf(stderr, "\n%s", c.report);
  fprintf(stderr, "\n  %d command lines: %d --help runs, %d real runs, %d failed\n", c.lines, c.help_runs,
          c.real_runs, c.failed);
  CU_ASSERT_EQUAL(c.failed, 0);
  CU_ASSERT(c.lines >= 50);
  CU_ASSERT(c.real_runs >= 5);
}

/* The test can fail: an option or command that does not exist, a real example that fails. */
static void test_negative_control(void)
{
  static doc_count c;
  char bad[] = "text `leversim check --db X --tolerance 3` and\n```\nbuild/leversim profiles show no-such-phone\n"
               "leversim swep x.yaml\nleversim profiles list | shw ID\n```\n`leversim run --device D --model M --dataset S"
               " --system Y`\n";
  memset(&c, 0, sizeof c);
  check_markdown(&c, "control.md", bad);
  CU_ASSERT_EQUAL(c.lines, 5);
  CU_ASSERT_EQUAL(c.failed, 4); /* --tolerance, no-such-phone (real run), swep, shw; not the last */
  CU_ASSERT_PTR_NOT_NULL(strstr(c.report, "control.md:1: `leversim check --db X --tolerance 3`"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c.report, "control.md:3: `leversim profiles show no-such-phone`: the example"));
  CU_ASSERT_PTR_NOT_NULL(strstr(c.report, "control.md:5: `leversim profiles shw ID`"));
}

CU_TestInfo ls_cli_docs_tests[] = {
    {"docs/CLI.md is `leversim help --markdown`", test_cli_md_current},
    {"every leversim command line in the docs runs", test_doc_commands},
    {"a line with a wrong option or command fails", test_negative_control},
    CU_TEST_INFO_NULL};

int ls_cli_docs_init(void) { return init_docs(); }
int ls_cli_docs_clean(void) { return clean_docs(); }
