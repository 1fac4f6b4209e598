/* scripts/testbed/probe/probe.h: what the testbed's hand-run probes share. */
#ifndef LS_PROBE_H
#define LS_PROBE_H
#include <stdio.h>
#include "runner/testbed/llamadrv.h"

/* Opens the pinned library in libdir, loads gguf with options o and runs one untimed 4-token
 * pass (pages in, buffers made), so that every timed pass after it finds the library warmed
 * up. 0 on success; else the error is printed and 1 returned. *d and *t owned by the caller. */
static inline int probe_start(const char *libdir, const char *gguf, const ls_llamadrv_opts *o, ls_llamadrv **d,
                              ls_llamadrv_model **t)
{
  ls_error err = {0};
  if (ls_llamadrv_open(d, libdir, &err) || ls_llamadrv_load(*d, gguf, o, t, &err) ||
      ls_llamadrv_prompt(*t, 4, 0, NULL, &err)) {
    ls_error_print(&err, stderr);
    return 1;
  }
  return 0;
}

#endif
