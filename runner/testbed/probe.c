/* runner/testbed/probe: see probe.h. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "runner/testbed/probe.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "runner/testbed/llamadrv.h"

#define NODES_MAX 4096 /* nodes of one pass kept (a 16-layer model has about 700) */

/* The node times of one pass, filled by the library's callback. */
typedef struct node_log {
  int n;
  double start;
  double at[NODES_MAX];
  char name[NODES_MAX][48];
} node_log;

static double mono_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void on_node(const char *node, void *user)
{
  node_log *g = user;
  if (g->n >= NODES_MAX)
    return;
  g->at[g->n] = mono_s();
  snprintf(g->name[g->n], sizeof g->name[0], "%s", node ? node : "?");
  g->n++;
}

static int tiles(ls_llamadrv_model *m, int reps, FILE *out, ls_error *err)
{
  static const int ns[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 16};
  for (int rep = 0; rep < reps; rep++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
      ls_llamadrv_cost c;
      ls_llamadrv_clear(m);
      int rc = ls_llamadrv_prompt(m, ns[i], 0, &c, err);
      if (rc)
        return rc;
      if (fprintf(out, "%d %d %.4f %.4f\n", ns[i], rep, c.time_s, c.cpu_s) < 0 || fflush(out))
        return ls_error_set(err, LS_EIO, "testbed probe: writing failed");
    }
  return LS_OK;
}

static int nodes(ls_llamadrv_model *m, node_log *g, int reps, FILE *out, ls_error *err)
{
  static const int ns[] = {1, 2, 4, 5, 8, 16};
  for (int rep = 0; rep < reps; rep++)
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
      for (int cold = 1; cold >= 0; cold--) {
        ls_llamadrv_cost c;
        ls_llamadrv_clear(m);
        int rc = cold ? ls_llamadrv_evict(m, NULL, err) : LS_OK;
        g->n = 0;
        g->start = mono_s();
        if (rc || (rc = ls_llamadrv_prompt(m, ns[i], 0, &c, err)))
          return rc;
        const char *state = cold ? "cold" : "warm";
        int bad = 0;
        for (int k = 0; k < g->n; k++)
          bad |= fprintf(out, "%s %d %d %d %s %.6f\n", state, ns[i], rep, k, g->name[k],
                         g->at[k] - (k ? g->at[k - 1] : g->start)) < 0;
        bad |= fprintf(out, "pass %s %d %d %.6f\n", state, ns[i], rep, c.time_s) < 0;
        if (bad || fflush(out))
          return ls_error_set(err, LS_EIO, "testbed probe: writing failed");
      }
  return LS_OK;
}

int ls_tbprobe_run(ls_tbprobe_kind kind, const char *libdir, const char *gguf, int reps, FILE *out, ls_error *err)
{
  if (reps < 1)
    return ls_error_set(err, LS_ERANGE, "testbed probe: %d repetitions (at least 1)", reps);
  node_log *g = kind == LS_TBPROBE_NODES ? calloc(1, sizeof *g) : NULL;
  if (kind == LS_TBPROBE_NODES && !g)
    return ls_error_set(err, LS_ENOMEM, "out of memory");
  ls_llamadrv *d = NULL;
  ls_llamadrv_model *m = NULL;
  ls_llamadrv_opts o = ls_llamadrv_defaults();
  o.observe = g ? on_node : NULL;
  o.observe_user = g;
  int rc = ls_llamadrv_open(&d, libdir, err);
  if (!rc)
    rc = ls_llamadrv_load(d, gguf, &o, &m, err);
  if (!rc) /* untimed: pages in, buffers made */
    rc = ls_llamadrv_prompt(m, 4, 0, NULL, err);
  if (!rc)
    rc = kind == LS_TBPROBE_NODES ? nodes(m, g, reps, out, err) : tiles(m, reps, out, err);
  ls_llamadrv_unload(m);
  ls_llamadrv_close(d);
  free(g);
  return rc;
}
