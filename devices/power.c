/* devices/power: see power.h.
 * Energy = static power over the wall time + the extra power of busy states over their busy
 * time + flash read energy per byte. Idle power of the NPU is paid all the time; its busy
 * power replaces it while busy (so the increment is busy - idle). A CPU core's power is the
 * increment over the CPU complex's idle power. Sources: profile comments. */
#include "devices/power.h"
#include <stdlib.h>
#include <string.h>

struct ls_power_meter {
  ls_power_params p;
  int64_t npu_ns;
  int64_t core_ns[LS_CPU_MAX_CLUSTERS];
  double flash_bytes;
};

int ls_power_meter_create(ls_power_meter **out, const ls_power_params *p, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  if (!*out)
    return ls_error_set(err, LS_ENOMEM, "power meter: out of memory");
  (*out)->p = *p;
  return LS_OK;
}

void ls_power_meter_free(ls_power_meter *m) { free(m); }

void ls_power_meter_reset(ls_power_meter *m)
{
  m->npu_ns = 0;
  memset(m->core_ns, 0, sizeof m->core_ns);
  m->flash_bytes = 0;
}

void ls_power_add_npu_busy(ls_power_meter *m, int64_t ns) { m->npu_ns += ns; }

void ls_power_add_cpu_busy(ls_power_meter *m, int cluster, int64_t core_ns)
{
  if (cluster >= 0 && cluster < m->p.n_clusters)
    m->core_ns[cluster] += core_ns;
}

void ls_power_add_flash_bytes(ls_power_meter *m, double bytes) { m->flash_bytes += bytes; }

void ls_power_energy(const ls_power_meter *m, int64_t wall_ns, ls_energy *o)
{
  const ls_power_params *p = &m->p;
  double wall = (double)wall_ns * 1e-9;
  o->base_j = p->base_w * wall;
  o->npu_j = p->npu_idle_w * wall + (p->npu_busy_w - p->npu_idle_w) * (double)m->npu_ns * 1e-9;
  o->cpu_j = p->cpu_idle_w * wall;
  for (int c = 0; c < p->n_clusters; c++)
    o->cpu_j += p->core_w[c] * (double)m->core_ns[c] * 1e-9;
  o->flash_j = p->flash_idle_w * wall + p->flash_read_j_per_byte * m->flash_bytes;
  o->dram_j = p->dram_background_w * wall;
  o->total_j = o->base_j + o->npu_j + o->cpu_j + o->flash_j + o->dram_j;
}

double ls_power_energy_j(const ls_power_meter *m, int64_t wall_ns)
{
  ls_energy e;
  ls_power_energy(m, wall_ns, &e);
  return e.total_j;
}
