/* devices/power: energy from busy times, per component state, and flash bytes read.
 *
 * E = wall * (base + npu_idle + cpu_idle + flash_idle + dram_background)
 *   + npu_busy_ns * (npu_busy - npu_idle) + sum_c core_ns[c] * core_w[c]
 *   + flash_bytes * read_j_per_byte.
 * The meter is filled by the runner (or by ls_devsim from its resources). Joules. */
#ifndef LS_DEVICES_POWER_H
#define LS_DEVICES_POWER_H
#include <stdint.h>
#include "devices/cpu.h"
#include "sim/error.h"

typedef struct ls_power_params {
  double base_w;                        /* rest of the SoC while the app runs */
  double npu_idle_w, npu_busy_w;
  double cpu_idle_w;
  int n_clusters;
  double core_w[LS_CPU_MAX_CLUSTERS];   /* one active core of each cluster */
  double flash_idle_w, flash_read_j_per_byte;
  double dram_background_w;
} ls_power_params;

typedef struct ls_energy {
  double base_j, npu_j, cpu_j, flash_j, dram_j, total_j;
} ls_energy;

typedef struct ls_power_meter ls_power_meter;
/* p is copied. *out owned by caller. */
int ls_power_meter_create(ls_power_meter **out, const ls_power_params *p, ls_error *err);
void ls_power_meter_free(ls_power_meter *m);
void ls_power_meter_reset(ls_power_meter *m);
void ls_power_add_npu_busy(ls_power_meter *m, int64_t ns);
void ls_power_add_cpu_busy(ls_power_meter *m, int cluster, int64_t core_ns); /* core-ns */
void ls_power_add_flash_bytes(ls_power_meter *m, double bytes);
/* Energy over a wall time of wall_ns with what was added so far. */
void ls_power_energy(const ls_power_meter *m, int64_t wall_ns, ls_energy *out);
double ls_power_energy_j(const ls_power_meter *m, int64_t wall_ns);

#endif
