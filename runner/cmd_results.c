/* runner/cmd_results: 'leversim check', 'export', 'merge' (placeholders until results/ lands). */
#include <stdio.h>
#include "runner/commands.h"

static int todo(const char *name)
{
  fprintf(stderr, "leversim %s: not implemented yet\n", name);
  return 70;
}
int ls_cmd_check(int argc, char **argv) { (void)argc; (void)argv; return todo("check"); }
int ls_cmd_export(int argc, char **argv) { (void)argc; (void)argv; return todo("export"); }
int ls_cmd_merge(int argc, char **argv) { (void)argc; (void)argv; return todo("merge"); }
