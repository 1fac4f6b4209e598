/* devices/devsim: a device's event-driven parts on one sim/engine, for the runner.
 *
 * NPU: an ls_resource of capacity 1; CPU: one ls_resource per cluster, capacity = cores;
 * flash: an ls_flash_dev. The runner submits jobs whose service times come from the pure
 * queries (ls_npu_layer_ns, ls_cpu_layer_ns, ...), so event path and queries agree exactly
 * for compute. Energy is integrated from the resources' busy times and the flash bytes. */
#ifndef LS_DEVICES_DEVSIM_H
#define LS_DEVICES_DEVSIM_H
#include "devices/device.h"
#include "sim/resource.h"

typedef struct ls_devsim {
  ls_resource *npu;                         /* capacity 1 */
  int n_cpu;
  ls_resource *cpu[LS_CPU_MAX_CLUSTERS];    /* capacity = cores of the cluster */
  ls_flash_dev *flash;
} ls_devsim;

/* d and e are borrowed and must outlive the devsim; flash latencies from stream
 * ("flash", stream_id) of seed. *out owned by caller (ls_devsim_free). */
int ls_devsim_create(ls_devsim **out, const ls_device *d, ls_engine *e, uint64_t seed, uint64_t stream_id,
                     ls_error *err);
/* ls_devsim_create with the flash's latency table from ftabs (NULL: its own; borrowed, must
 * outlive the devsim): the same simulation either way. */
int ls_devsim_create_shared(ls_devsim **out, const ls_device *d, ls_engine *e, uint64_t seed, uint64_t stream_id,
                            ls_flash_tables *ftabs, ls_error *err);
void ls_devsim_free(ls_devsim *s);
/* Energy from time 0 to the engine's now (busy times so far, flash bytes so far). */
void ls_devsim_energy(const ls_devsim *s, const ls_device *d, int64_t wall_ns, ls_energy *out);

#endif
