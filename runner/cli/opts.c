/* runner/cli/opts: the option-table parser, help and Markdown writer (rules in opts.h). */
#include "runner/cli/opts.h"
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "runner/cli/commands.h"
#include "sim/range.h"

#define MAX_OPTS 64 /* options in one table */

/* The generated forms of the help: --help=markdown (docs/CLI.md), --help=bash (arms of the
 * completion script's case), --help=man (troff for the man page). */
static int is_generated(const char *a)
{
  return !strcmp(a, "--help=markdown") || !strcmp(a, "--help=bash") || !strcmp(a, "--help=man");
}

static int is_help(const char *a)
{
  return !strcmp(a, "--help") || !strcmp(a, "-h") || is_generated(a);
}

/* An option word: "-x" or "--x" (a lone "-" is a value: stdout). */
static int is_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

/* Edit distance counting a swap of two neighbours as one edit (optimal string alignment):
 * "shwo" is one typo from "show", not two. Words longer than 63 bytes are never close. */
static int distance(const char *a, const char *b)
{
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 63 || lb > 63)
    return 1 << 20;
  int d[64][64];
  for (int i = 0; i <= la; i++)
    d[i][0] = i;
  for (int j = 0; j <= lb; j++)
    d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int sub = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]), del = d[i - 1][j] + 1, ins = d[i][j - 1] + 1;
      int m = sub < del ? sub : del;
      m = m < ins ? m : ins;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < m)
        m = d[i - 2][j - 2] + 1;
      d[i][j] = m;
    }
  return d[la][lb];
}

const char *ls_opts_nearest(const char *word, const char *const *names, int n)
{
  const char *best = NULL;
  int bd = (int)strlen(word) / 3 + 1;
  for (int i = 0; i < n; i++) {
    int d = distance(word, names[i]);
    if (d < bd) {
      bd = d;
      best = names[i];
    }
  }
  return best;
}

int ls_opts_exit(int status) { return status == LS_OPTS_HELP ? 0 : ls_status_exit(status); }

static const ls_opt *find(const ls_cmd_spec *spec, const char *name, size_t len)
{
  for (const ls_opt *o = spec->opts; o && o->name; o++)
    if (strlen(o->name) == len && !strncmp(o->name, name, len))
      return o;
  return NULL;
}

static int unknown_option(const ls_cmd_spec *spec, const char *word, size_t len)
{
  const char *names[MAX_OPTS + 1] = {0};
  int n = 0;
  for (const ls_opt *o = spec->opts; o && o->name && n < MAX_OPTS; o++)
    names[n++] = o->name;
  names[n++] = "--help";
  char typed[256];
  snprintf(typed, sizeof typed, "%.*s", (int)(len < 200 ? len : 200), word);
  const char *near = ls_opts_nearest(typed, names, n);
  ls_usage_error(spec->name, "unknown option '%s'%s%s%s", typed, near ? " (did you mean " : "",
                 near ? near : "", near ? "?)" : "");
  return LS_EUSAGE;
}

/* The i-th valid value of a CHOICE option into buf (NULL past the last). */
static const char *choice(const ls_opt *o, int i, char *buf, size_t size)
{
  if (o->choice_at)
    return o->choice_at(i);
  const char *s = o->choices;
  for (int k = 0; k < i && s; k++)
    s = (s = strchr(s, ',')) ? s + 1 : NULL;
  if (!s)
    return NULL;
  size_t len = strcspn(s, ",");
  snprintf(buf, size, "%.*s", (int)len, s);
  return buf;
}

static int check_choice(const ls_cmd_spec *spec, const ls_opt *o, const char *v)
{
  char buf[64], list[1024] = "", store[MAX_OPTS][64];
  const char *names[MAX_OPTS] = {0};
  int n = 0;
  size_t len = 0;
  for (const char *c; (c = choice(o, n, buf, sizeof buf)) != NULL && n < MAX_OPTS; n++) {
    if (!strcmp(c, v))
      return LS_OK;
    snprintf(store[n], sizeof store[n], "%s", c);
    names[n] = store[n];
    len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s", n ? ", " : "", c);
  }
  const char *near = ls_opts_nearest(v, names, n);
  ls_usage_error(spec->name, "%s: unknown value '%s'%s%s%s (expected one of: %s)", o->name, v,
                 near ? ", did you mean " : "", near ? near : "", near ? "?" : "", list);
  return LS_EUSAGE;
}

/* The accepted whole numbers of a LONG or SETTING line: its range row's, else its own. */
static void bounds(const ls_opt *o, long *lo, long *hi)
{
  const ls_range *r = o->range ? ls_range_at((ls_range_id)(o->range - 1)) : NULL;
  *lo = r ? (long)r->lo : o->lo;
  *hi = r ? (long)r->hi : o->hi;
}

static int whole(const ls_cmd_spec *spec, const ls_opt *o, const char *v, long *out)
{
  char *end;
  long lo, hi;
  bounds(o, &lo, &hi);
  errno = 0;
  long x = strtol(v, &end, 10);
  /* strtol skips leading blanks: ' 4' would pass, where every other reader of a number refuses it */
  if (end == v || *end || isspace((unsigned char)*v) || errno == ERANGE || x < lo || x > hi) {
    ls_usage_error(spec->name, "%s: bad value '%s' (expected a whole number in [%ld, %ld])", o->name, v, lo, hi);
    return LS_EUSAGE;
  }
  *out = x;
  return LS_OK;
}

static int append(const ls_cmd_spec *spec, const char *what, ls_opt_list *l, const char *v)
{
  if (l->n == LS_OPT_LIST_MAX) {
    ls_usage_error(spec->name, "more than %d values of %s", LS_OPT_LIST_MAX, what);
    return LS_EUSAGE;
  }
  l->v[l->n++] = v;
  return LS_OK;
}

/* Stores value v of option o (argument position argpos, 1-based, for --set's origin). */
static int store(const ls_cmd_spec *spec, const ls_opt *o, const char *v, int argpos, void *dst, ls_kv *kv)
{
  void *field = (char *)dst + o->off;
  long n;
  ls_error err;
  char origin[48];
  const char *why;
  ls_error_clear(&err);
  switch (o->kind) {
  case LS_OPT_CHOICE:
    if (check_choice(spec, o, v))
      return LS_EUSAGE;
    /* fall through */
  case LS_OPT_STR:
    /* an empty name is a slip of the shell (an unset variable), never a file or folder:
     * refused here, not met later as an I/O error (--db '' has its own refusal, which says
     * the results would be lost) */
    if (!*v && strcmp(o->name, "--db") != 0) {
      ls_usage_error(spec->name, "%s '': an empty value (expected %s)", o->name,
                     o->meta ? o->meta : "a value");
      return LS_EUSAGE;
    }
    *(const char **)field = v;
    return LS_OK;
  case LS_OPT_LONG:
    return whole(spec, o, v, (long *)field);
  case LS_OPT_SETTING:
    if (whole(spec, o, v, &n))
      return LS_EUSAGE;
    if (ls_kv_set(kv, o->key, v, o->name, &err) == LS_OK)
      return LS_OK;
    break;
  case LS_OPT_SET:
    snprintf(origin, sizeof origin, "argument %d (--set)", argpos);
    if (v[0] && v[strlen(v) - 1] == '=' && strchr(v, '=') == v + strlen(v) - 1) {
      ls_usage_error(spec->name, "%s: %s: an empty value (give KEY=VALUE)", origin, v);
      return LS_EUSAGE;
    }
    if (ls_kv_assign(kv, v, origin, &err) == LS_OK)
      return LS_OK;
    break;
  case LS_OPT_MULTI:
  case LS_OPT_FILES:
    return append(spec, o->name, field, v);
  case LS_OPT_CALL:
    if (!(why = o->call(v, field)))
      return LS_OK;
    ls_usage_error(spec->name, "%s: bad value '%s' (%s)", o->name, v, why);
    return LS_EUSAGE;
  case LS_OPT_FLAG:
    break;
  }
  ls_usage_error(spec->name, "%s", err.msg);
  return LS_EUSAGE;
}

/* --name FILE...: the arguments after i up to the next option. */
static int take_files(const ls_cmd_spec *spec, const ls_opt *o, int argc, char **argv, int *i, void *dst,
                      int help)
{
  int start = *i;
  while (*i + 1 < argc && strncmp(argv[*i + 1], "--", 2) != 0)
    if (!help && append(spec, o->name, (ls_opt_list *)((char *)dst + o->off), argv[++*i]))
      return LS_EUSAGE;
    else if (help)
      ++*i;
  if (*i > start || help)
    return LS_OK;
  ls_usage_error(spec->name, "%s needs at least one %s", o->name, o->meta ? o->meta : "value");
  return LS_EUSAGE;
}

/* One option word at argv[*i]; given[] marks the table lines seen. */
static int option(const ls_cmd_spec *spec, int argc, char **argv, int *i, void *dst, ls_kv *kv, int help,
                  unsigned char *given)
{
  const char *a = argv[*i], *eq = strncmp(a, "--", 2) == 0 ? strchr(a, '=') : NULL;
  size_t len = eq ? (size_t)(eq - a) : strlen(a);
  const ls_opt *o = find(spec, a, len);
  if (!o)
    return unknown_option(spec, a, len);
  given[o - spec->opts] = 1;
  if (o->kind == LS_OPT_FLAG) {
    if (eq) {
      ls_usage_error(spec->name, "%s takes no value", o->name);
      return LS_EUSAGE;
    }
    *(int *)((char *)dst + o->off) = 1;
    return LS_OK;
  }
  if (o->kind == LS_OPT_FILES && !eq)
    return take_files(spec, o, argc, argv, i, dst, help);
  const char *v = eq ? eq + 1 : NULL;
  if (!v && *i + 1 < argc && !(help && is_help(argv[*i + 1])))
    v = argv[++*i];
  if (help)
    return LS_OK;
  if (!v) {
    ls_usage_error(spec->name, "%s needs a value", o->name);
    return LS_EUSAGE;
  }
  return store(spec, o, v, *i + 1, dst, kv);
}

static void join_required(const ls_cmd_spec *spec, char *buf, size_t size, int *count)
{
  int n = 0, total = 0;
  for (const ls_opt *o = spec->opts; o && o->name; o++)
    total += (o->flags & LS_OPT_REQUIRED) != 0;
  size_t len = 0;
  buf[0] = '\0';
  for (const ls_opt *o = spec->opts; o && o->name; o++)
    if (o->flags & LS_OPT_REQUIRED) {
      const char *sep = n == 0 ? "" : n == total - 1 ? " and " : ", ";
      len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", sep, o->name);
      n++;
    }
  *count = total;
}

/* After the options: every required option given, enough positionals. */
static int complete(const ls_cmd_spec *spec, const unsigned char *given, void *dst)
{
  int k = 0;
  for (const ls_opt *o = spec->opts; o && o->name; o++, k++)
    if ((o->flags & LS_OPT_REQUIRED) && !given[k]) {
      char names[512];
      int n;
      join_required(spec, names, sizeof names, &n);
      ls_usage_error(spec->name, "%s %s required (missing: %s)", names, n == 1 ? "is" : "are", o->name);
      return LS_EUSAGE;
    }
  int have = spec->max_args ? ((ls_opt_list *)((char *)dst + spec->args_off))->n : 0;
  if (have < spec->min_args) {
    ls_usage_error(spec->name, "missing argument%s: expected %s", spec->min_args - have > 1 ? "s" : "",
                   spec->args);
    return LS_EUSAGE;
  }
  return LS_OK;
}

static int positional(const ls_cmd_spec *spec, const char *a, void *dst, int help)
{
  if (help)
    return LS_OK;
  ls_opt_list *l = spec->max_args ? (ls_opt_list *)((char *)dst + spec->args_off) : NULL;
  if (!l || (spec->max_args > 0 && l->n >= spec->max_args)) {
    ls_usage_error(spec->name, "unexpected argument '%s'%s%s%s", a, spec->args ? " (expected " : "",
                   spec->args ? spec->args : "", spec->args ? ")" : "");
    return LS_EUSAGE;
  }
  return append(spec, "arguments", l, a);
}

/* A table this parser cannot serve is the programmer's error, caught on first use. */
static int table_ok(const ls_cmd_spec *spec, const ls_kv *kv)
{
  int n = 0;
  for (const ls_opt *o = spec->opts; o && o->name; o++, n++)
    if ((o->kind == LS_OPT_SET || o->kind == LS_OPT_SETTING) && !kv) {
      fprintf(stderr, "leversim %s: internal error: %s needs the command's settings (kv)\n", spec->name, o->name);
      return 0;
    }
  if (n > MAX_OPTS)
    fprintf(stderr, "leversim %s: internal error: more than %d options in the table\n", spec->name, MAX_OPTS);
  return n <= MAX_OPTS;
}

int ls_opts_parse(const ls_cmd_spec *spec, int argc, char **argv, void *dst, ls_kv *kv)
{
  int help = 0;
  const char *generated = NULL;
  unsigned char given[MAX_OPTS] = {0};
  if (!table_ok(spec, kv))
    return LS_ESTATE;
  for (int i = 1; i < argc; i++)
    if (is_help(argv[i])) {
      help = 1;
      if (is_generated(argv[i])) generated = argv[i] + 7;
    }
  for (int i = 1; i < argc; i++) {
    int rc = is_help(argv[i]) ? LS_OK
             : is_option(argv[i]) ? option(spec, argc, argv, &i, dst, kv, help, given)
                                  : positional(spec, argv[i], dst, help);
    if (rc)
      return rc;
  }
  if (generated && !strcmp(generated, "markdown"))
    ls_opts_markdown(spec, stdout);
  else if (generated && !strcmp(generated, "bash"))
    ls_opts_bash(spec, stdout);
  else if (generated)
    ls_opts_man(spec, stdout);
  else if (help)
    ls_opts_help(spec, stdout);
  return help ? LS_OPTS_HELP : complete(spec, given, dst);
}

/* ---- help ---- */

/* One option as in the usage line: "--device D", "[--seed N]", "[--set key=value]...". */
static void synopsis_item(const ls_opt *o, char *buf, size_t size)
{
  int req = (o->flags & LS_OPT_REQUIRED) != 0;
  int many = o->kind == LS_OPT_SET || o->kind == LS_OPT_MULTI;
  const char *dots = o->kind == LS_OPT_FILES ? "..." : "";
  if (o->kind == LS_OPT_FLAG)
    snprintf(buf, size, "%s%s%s", req ? "" : "[", o->name, req ? "" : "]");
  else
    snprintf(buf, size, "%s%s %s%s%s%s", req ? "" : "[", o->name, o->meta ? o->meta : "VALUE", dots, req ? "" : "]",
             many ? "..." : "");
}

static void usage_lines(const ls_cmd_spec *spec, FILE *f)
{
  char head[128], item[160];
  int indent = snprintf(head, sizeof head, "usage: leversim %s", spec->name), col = indent;
  fputs(head, f);
  if (spec->args)
    col += fprintf(f, " %s", spec->args);
  for (const ls_opt *o = spec->opts; o && o->name; o++) {
    synopsis_item(o, item, sizeof item);
    if (col + 1 + (int)strlen(item) > 96) {
      fprintf(f, "\n%*s", indent, "");
      col = indent;
    }
    col += fprintf(f, " %s", item);
  }
  fputc('\n', f);
}

/* What an option accepts, when the table knows: "; a whole number in [1, 64]", "; one of
 * csv, json, table", "; repeatable", "; required". */
static void accepts(const ls_opt *o, char *buf, size_t size)
{
  char c[64];
  buf[0] = '\0';
  size_t len = 0;
  long lo, hi;
  bounds(o, &lo, &hi);
  if (o->kind == LS_OPT_LONG || o->kind == LS_OPT_SETTING)
    len = (size_t)snprintf(buf, size, "; a whole number in [%ld, %ld]", lo, hi);
  if (o->kind == LS_OPT_CHOICE && o->choices)
    for (int i = 0; choice(o, i, c, sizeof c); i++)
      len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "%s%s", i ? ", " : "; one of ", c);
  if (o->kind == LS_OPT_SET || o->kind == LS_OPT_MULTI || o->kind == LS_OPT_FILES)
    len += (size_t)snprintf(buf + len, len < size ? size - len : 0, "; repeatable");
  if (o->flags & LS_OPT_REQUIRED)
    snprintf(buf + len, len < size ? size - len : 0, "; required");
}

static void option_name(const ls_opt *o, char *buf, size_t size)
{
  snprintf(buf, size, "%s%s%s%s", o->name, o->kind == LS_OPT_FLAG ? "" : " ",
           o->kind == LS_OPT_FLAG ? "" : o->meta ? o->meta : "VALUE", o->kind == LS_OPT_FILES ? "..." : "");
}

void ls_opts_help(const ls_cmd_spec *spec, FILE *f)
{
  usage_lines(spec, f);
  fprintf(f, "%s\n", spec->summary);
  if (spec->opts && spec->opts->name)
    fprintf(f, "\noptions:\n");
  for (const ls_opt *o = spec->opts; o && o->name; o++) {
    char name[96], acc[512];
    option_name(o, name, sizeof name);
    accepts(o, acc, sizeof acc);
    fprintf(f, "  %-22s %s%s\n", name, o->help, acc);
  }
  if (spec->about)
    fprintf(f, "\n%s", spec->about);
  if (spec->more)
    spec->more(f);
}

/* Text for a Markdown table cell: '|' escaped, '<' and '>' as entities, backticks escaped
 * when they do not pair (a lone one would open a code span that swallows the page). */
static void cell(const char *s, FILE *f)
{
  int ticks = 0;
  for (const char *c = s; *c; c++)
    ticks += *c == '`';
  for (; *s; s++)
    if (*s == '`' && ticks % 2)
      fputs("\\`", f);
    else if (*s == '|')
      fputs("\\|", f);
    else if (*s == '<')
      fputs("&lt;", f);
    else if (*s == '>')
      fputs("&gt;", f);
    else
      fputc(*s, f);
}

void ls_opts_markdown(const ls_cmd_spec *spec, FILE *f)
{
  fprintf(f, "## leversim %s\n\n", spec->name);
  cell(spec->summary, f);
  fprintf(f, "\n\n```\n");
  usage_lines(spec, f);
  fprintf(f, "```\n\n");
  if (spec->opts && spec->opts->name)
    fprintf(f, "| option | meaning |\n|---|---|\n");
  for (const ls_opt *o = spec->opts; o && o->name; o++) {
    char name[96], acc[512];
    option_name(o, name, sizeof name);
    accepts(o, acc, sizeof acc);
    fprintf(f, "| `%s` | ", name);
    cell(o->help, f);
    cell(acc, f);
    fprintf(f, " |\n");
  }
  if (spec->about || spec->more) {
    fprintf(f, "%s```\n", spec->opts && spec->opts->name ? "\n" : "");
    if (spec->about)
      fputs(spec->about, f);
    if (spec->more)
      spec->more(f);
    fprintf(f, "```\n");
  }
  fputc('\n', f);
}

/* One arm of the completion script's case on "$cmd $sub": the options of this command, and
 * the choices of its CHOICE options (offered after the option). One-word commands match any
 * second word ("run "*), two-word ones exactly ("policy check"). */
void ls_opts_bash(const ls_cmd_spec *spec, FILE *f)
{
  fprintf(f, strchr(spec->name, ' ') ? "    \"%s\")\n" : "    \"%s \"*)\n", spec->name);
  fputs("      opts=\"", f);
  for (const ls_opt *o = spec->opts; o && o->name; o++)
    fprintf(f, "%s%s", o == spec->opts ? "" : " ", o->name);
  fputs(" --help\"\n      case \"$prev\" in\n", f);
  for (const ls_opt *o = spec->opts; o && o->name; o++) {
    char c[64];
    if (o->kind != LS_OPT_CHOICE) continue;
    fprintf(f, "        %s) opts=\"", o->name);
    const char *w;
    for (int i = 0; (w = choice(o, i, c, sizeof c)) != NULL; i++) fprintf(f, "%s%s", i ? " " : "", w);
    fputs("\";;\n", f);
  }
  fputs("      esac;;\n", f);
}

/* Text for troff: a leading '.' or '\'' escaped, backslashes doubled. */
static void roff(const char *s, FILE *f)
{
  for (const char *c = s; *c; c++) {
    if ((c == s || c[-1] == '\n') && (*c == '.' || *c == '\''))
      fputs("\\&", f);
    if (*c == '\\') fputs("\\e", f);
    else if (*c == '-') fputs("\\-", f);
    else fputc(*c, f);
  }
}

void ls_opts_man(const ls_cmd_spec *spec, FILE *f)
{
  fputs(".SS \"leversim ", f);
  roff(spec->name, f);
  fputs("\"\n", f);
  roff(spec->summary, f);
  fputs("\n.PP\n.nf\n", f);
  char *text = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&text, &len);
  if (m) {
    usage_lines(spec, m);
    fclose(m);
    roff(text, f);
    free(text);
  }
  fputs(".fi\n", f);
  for (const ls_opt *o = spec->opts; o && o->name; o++) {
    char name[96], acc[512];
    option_name(o, name, sizeof name);
    accepts(o, acc, sizeof acc);
    fputs(".TP\n.B ", f);
    roff(name, f);
    fputc('\n', f);
    roff(o->help, f);
    roff(acc, f);
    fputc('\n', f);
  }
  if (spec->about) {
    fputs(".PP\n", f);
    roff(spec->about, f);
  }
}

/* ---- groups of subcommands ---- */

static void group_usage(const char *cmd, const char *summary, const ls_subcmd *subs, FILE *f)
{
  fprintf(f, "usage: leversim %s <subcommand> [options]\n%s\n\nsubcommands:\n", cmd, summary);
  for (const ls_subcmd *s = subs; s->name; s++)
    fprintf(f, "  %-10s %s\n", s->name, s->summary);
  fprintf(f, "\n'leversim %s <subcommand> --help' describes a subcommand.\n", cmd);
}

int ls_opts_group(const char *cmd, const char *summary, const ls_subcmd *subs, int argc, char **argv)
{
  if (argc < 2) {
    group_usage(cmd, summary, subs, stderr);
    return ls_status_exit(LS_EUSAGE);
  }
  if (is_help(argv[1])) {
    if (!is_generated(argv[1])) {
      group_usage(cmd, summary, subs, stdout);
      return 0;
    }
    for (const ls_subcmd *s = subs; s->name; s++) {
      char *sub[] = {(char *)s->name, argv[1], NULL};
      s->fn(2, sub);
    }
    if (!strcmp(argv[1], "--help=bash")) { /* the group's own arm: its subcommands, after theirs */
      fprintf(stdout, "    \"%s \"*)\n      opts=\"", cmd);
      for (const ls_subcmd *s = subs; s->name; s++) fprintf(stdout, "%s%s", s == subs ? "" : " ", s->name);
      fputs(" --help\";;\n", stdout);
    }
    return 0;
  }
  const char *names[MAX_OPTS] = {0};
  int n = 0;
  for (const ls_subcmd *s = subs; s->name; s++) {
    if (!strcmp(argv[1], s->name))
      return s->fn(argc - 1, argv + 1);
    if (n < MAX_OPTS)
      names[n++] = s->name;
  }
  const char *near = ls_opts_nearest(argv[1], names, n);
  char list[512];
  size_t len = 0;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0, "%s%s", i ? ", " : "", names[i]);
  return ls_usage_error(cmd, "unknown subcommand '%s'%s%s%s (expected one of: %s)", argv[1],
                        near ? ", did you mean " : "", near ? near : "", near ? "?" : "", list);
}
