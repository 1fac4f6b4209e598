/* runner/cli/cmd_policy: 'leversim policy list|check' — the policies a command can choose
 * from (built in, or from --plugin files), and their conformance tests (policies/conform.h).
 *
 * `policy check FILE.so...` checks every policy the plug-ins add; without a file, every
 * built-in policy; --policy NAME narrows to one. Each policy is checked in a child process
 * with a time limit, so a policy that crashes or hangs is reported by name (rules "no-crash",
 * "terminates") instead of taking the checker down. Exit 0 when every rule holds, 1 when one
 * is broken, 64+ when a plug-in cannot be loaded. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "policies/conform.h"
#include "runner/cli/cli_opts.h"
#include "runner/cli/commands.h"
#include "runner/cli/opts.h"

#define CHECK_TIMEOUT_S 120 /* per policy; a conforming one needs well under a second */

typedef struct policy_opts {
  ls_opt_list files;
  const char *policy;
  long cycles;
} policy_opts;

static const ls_opt LIST_OPTS[] = {{NULL}};
static const ls_cmd_spec LIST = {
    "policy list", "[FILE.so]...", 0, -1, OPT_AT(policy_opts, files),
    "list the policies by family: built in, then those of the given plug-ins",
    "One line per policy: family, name, where it comes from (built-in, or the plug-in's name\n"
    "and file with its SHA-256) and its summary. A plug-in that cannot be loaded (a name\n"
    "clash, another ABI, no leversim_plugin symbol) is refused with the reason (exit 65).\n",
    NULL, LIST_OPTS};

static const ls_opt CHECK_OPTS[] = {
    {"--policy", LS_OPT_STR, OPT_AT(policy_opts, policy), "NAME", "check only this policy (any family)"},
    {"--cycles", LS_OPT_LONG, OPT_AT(policy_opts, cycles), "N", "draft cycles per budget (default 40)", .lo = 1, .hi = 100000},
    {NULL}};
static const ls_cmd_spec CHECK = {
    "policy check", "[FILE.so]...", 0, -1, OPT_AT(policy_opts, files),
    "conformance tests of policies: every rule of policies/policy.h, by name",
    "With plug-in files: checks every policy they add; without: every built-in policy. Draft\n"
    "policies build trees over many cycles at draft.budget = 1, 4, 16 and 64 on a view whose\n"
    "candidate probabilities vary from node to node, with and without a cost model, and get\n"
    "the feedback of an acceptance walk. Rules: create, reads-budget, build-ok, tree-valid,\n"
    "within-budget, deterministic (two instances interleaved), no-foreign-writes; prune\n"
    "policies: exit-layer-range, keep-valid; map policies: exec-valid; and for every policy\n"
    "no-crash and terminates (each runs in a child process, at most 120 s). One line per rule\n"
    "(ok or FAIL with what broke it) and the time per call (reported, never judged). Exit 0\n"
    "when every rule holds, 1 when one is broken.\n",
    NULL, CHECK_OPTS};

static const char *const FAMILIES[] = {"draft", "prune", "map"};

static const char *summary_of(const ls_policy_set *s, ls_policy_family f, const char *name)
{
  if (f == LS_FAMILY_DRAFT) return ls_policy_set_draft(s, name)->summary;
  if (f == LS_FAMILY_PRUNE) return ls_policy_set_prune(s, name)->summary;
  return ls_policy_set_map(s, name)->summary;
}

static const void *ops_of(const ls_policy_set *s, ls_policy_family f, const char *name)
{
  if (f == LS_FAMILY_DRAFT) return ls_policy_set_draft(s, name);
  if (f == LS_FAMILY_PRUNE) return ls_policy_set_prune(s, name);
  return ls_policy_set_map(s, name);
}

/* Forks a child that tells it finished by one byte on a pipe, so a crash is told from an
 * ordinary end even where a sanitizer's handler turns the signal into an exit. Returns the
 * pid to the parent (*fd: the read end), 0 to the child (*fd: the write end, and an alarm of
 * CHECK_TIMEOUT_S that ends code which never returns), -1 when no child could be made. */
static pid_t child_start(int *fd)
{
  fflush(stdout);
  int done[2];
  if (pipe(done) != 0) {
    perror("leversim policy check: pipe");
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("leversim policy check: fork");
    close(done[0]), close(done[1]);
    return -1;
  }
  close(done[pid == 0 ? 0 : 1]);
  *fd = done[pid == 0 ? 1 : 0];
  if (pid == 0)
    alarm(CHECK_TIMEOUT_S);
  return pid;
}

/* Waits for the child of child_start: 1 when it said it finished; its wait status in *status. */
static int child_end(pid_t pid, int fd, int *status)
{
  char byte = 0;
  ssize_t got;
  while ((got = read(fd, &byte, 1)) < 0 && errno == EINTR) {}
  close(fd);
  *status = 0;
  while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
  return got == 1;
}

/* Loads one plug-in in a child process first: dlopen runs the file's constructors, code that
 * may crash, exit or never return, and would otherwise take the checker down (or end it with
 * exit 0, every rule unchecked). Returns 0 when the child came back from the load, else 1
 * with a FAIL line naming the file. */
static int probe_load(const char *path)
{
  int fd, status;
  pid_t pid = child_start(&fd);
  if (pid < 0)
    return 1;
  if (pid == 0) {
    ls_policy_set *s = NULL;
    ls_error err;
    ls_error_clear(&err);
    if (ls_policy_set_create(&s, &err) == LS_OK)
      (void)ls_policy_set_load(s, path, &err); /* its refusal is reported by the real load */
    _exit(write(fd, "1", 1) == 1 ? 0 : 3);
  }
  if (child_end(pid, fd, &status) && WIFEXITED(status) && WEXITSTATUS(status) == 0)
    return 0;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
    printf("  FAIL %-38s loading it gave no answer within %d s\n", path, CHECK_TIMEOUT_S);
  else if (WIFSIGNALED(status))
    printf("  FAIL %-38s loading it killed the process: signal %d (%s)\n", path, WTERMSIG(status),
           strsignal(WTERMSIG(status)));
  else
    printf("  FAIL %-38s loading it ended the process (exit %d) before it returned\n", path,
           WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  fprintf(stderr, "leversim: %s: its constructors crash, exit or hang when loaded (policy check); "
          "no rule was checked\n", path);
  return 1;
}

/* Parses and loads the plug-ins: 0 to go on, else the exit status (*stop = 1: after --help,
 * which exits 0 with nothing else to do). */
static int load(const ls_cmd_spec *spec, int argc, char **argv, policy_opts *o, ls_policy_set **s, int *stop)
{
  int prc = ls_opts_parse(spec, argc, argv, o, NULL);
  *stop = prc != LS_OK;
  if (prc)
    return ls_opts_exit(prc);
  for (int i = 0; spec == &CHECK && i < o->files.n; i++)
    if (probe_load(o->files.v[i])) {
      *stop = 1;
      return ls_status_exit(LS_ERUN);
    }
  ls_error err;
  ls_error_clear(&err);
  int rc = ls_cli_plugins(&o->files, s, &err);
  if (rc) {
    ls_error_print(&err, stderr);
    *stop = 1;
    return ls_status_exit(rc);
  }
  for (int i = 0; i < ls_policy_set_plugins(*s); i++) {
    ls_plugin_info in = ls_policy_set_plugin(*s, i);
    printf("plug-in %s: %s (sha256 %s)\n", in.name, in.path, in.sha256);
  }
  return 0;
}

static int list(int argc, char **argv)
{
  policy_opts o = {.cycles = 0};
  ls_policy_set *s = NULL;
  int stop = 0, st = load(&LIST, argc, argv, &o, &s, &stop);
  for (int f = 0; !st && !stop && f < 3; f++)
    for (int i = 0; ls_policy_set_name(s, (ls_policy_family)f, i); i++) {
      const char *name = ls_policy_set_name(s, (ls_policy_family)f, i);
      int k = ls_policy_set_origin(s, ops_of(s, (ls_policy_family)f, name));
      printf("%-6s %-12s %-16s %s\n", FAMILIES[f], name, k < 0 ? "built-in" : ls_policy_set_plugin(s, k).name,
             summary_of(s, (ls_policy_family)f, name));
    }
  ls_policy_set_free(s);
  return st;
}

/* Checks one policy in a child process; returns the number of broken rules. */
static int check_one(const ls_policy_set *s, ls_policy_family f, const char *name, long cycles)
{
  int fd, status;
  pid_t pid = child_start(&fd);
  if (pid < 0)
    return 1;
  if (pid == 0) {
    ls_conform_opts co = {NULL, (int)cycles, stdout};
    ls_error err;
    int failed = 0, rc = ls_conform_run(s, f, name, &co, &failed, &err);
    if (rc) fprintf(stderr, "leversim policy check: %s\n", err.msg);
    fflush(stdout);
    _exit(write(fd, "1", 1) == 1 ? (rc ? 3 : failed > 99 ? 99 : failed) : 3);
  }
  char label[96];
  snprintf(label, sizeof label, "%s/%s", FAMILIES[f], name);
  int finished = child_end(pid, fd, &status);
  if (!WIFSIGNALED(status) && !finished) {
    printf("  FAIL %-20s %-17s ended before the checks finished (exit %d)\n", label, "no-crash",
           WEXITSTATUS(status));
    return 1;
  }
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGALRM)
      printf("  FAIL %-20s %-17s no answer within %d s\n", label, "terminates", CHECK_TIMEOUT_S);
    else
      printf("  FAIL %-20s %-17s killed by signal %d (%s)\n", label, "no-crash", sig, strsignal(sig));
    return 1;
  }
  printf("  ok   %-20s %-17s %s\n", label, "no-crash", "ran in its own process");
  printf("  ok   %-20s %-17s %s\n", label, "terminates", "within the time limit");
  return WEXITSTATUS(status);
}

static int check(int argc, char **argv)
{
  policy_opts o = {.cycles = 40};
  ls_policy_set *s = NULL;
  int stop = 0, st = load(&CHECK, argc, argv, &o, &s, &stop);
  if (stop) {
    ls_policy_set_free(s);
    return st;
  }
  int checked = 0, broken = 0, plugins = ls_policy_set_plugins(s);
  for (int f = 0; !st && f < 3; f++)
    for (int i = 0; ls_policy_set_name(s, (ls_policy_family)f, i); i++) {
      const char *name = ls_policy_set_name(s, (ls_policy_family)f, i);
      int from_plugin = ls_policy_set_origin(s, ops_of(s, (ls_policy_family)f, name)) >= 0;
      if ((o.policy && strcmp(o.policy, name) != 0) || (!o.policy && plugins && !from_plugin))
        continue;
      int b = check_one(s, (ls_policy_family)f, name, o.cycles);
      checked++;
      broken += b > 0;
    }
  if (!st && checked == 0)
    st = ls_usage_error("policy check", "no policy named '%s' (leversim policy list)", o.policy ? o.policy : "");
  else if (!st)
    printf("policy check: %d polic%s checked, %d conform, %d break a rule\n", checked, checked == 1 ? "y" : "ies",
           checked - broken, broken);
  ls_policy_set_free(s);
  return st ? st : broken ? ls_status_exit(LS_ERUN) : 0;
}

static const ls_subcmd POLICY[] = {
    {"list", list, "the policies by family, built in and from plug-ins"},
    {"check", check, "conformance tests of policies (built in, or a plug-in's)"},
    {NULL, NULL, NULL}};

int ls_cmd_policy(int argc, char **argv)
{
  return ls_opts_group("policy", "Draft, prune and map policies, built in or from plug-ins (docs/POLICIES.md).",
                       POLICY, argc, argv);
}
