/* devices/devsim: see devsim.h. The resources are plain sim/resource servers; energy reads
 * their exact busy times (server-ns), so a CPU cluster's busy time is in core-ns. */
#include "devices/devsim.h"
#include <stdlib.h>

int ls_devsim_create(ls_devsim **out, const ls_device *d, ls_engine *e, uint64_t seed, uint64_t stream_id,
                     ls_error *err)
{
  return ls_devsim_create_shared(out, d, e, seed, stream_id, NULL, err);
}

int ls_devsim_create_shared(ls_devsim **out, const ls_device *d, ls_engine *e, uint64_t seed, uint64_t stream_id,
                            ls_flash_tables *ftabs, ls_error *err)
{
  ls_devsim *s = calloc(1, sizeof *s);
  *out = NULL;
  if (!s)
    return ls_error_set(err, LS_ENOMEM, "devsim: out of memory");
  const ls_cpu_params *c = ls_device_cpu(d);
  int rc = ls_resource_create(&s->npu, e, "npu", 1, err);
  for (int i = 0; !rc && i < c->n_clusters; i++) {
    char name[48];
    snprintf(name, sizeof name, "cpu.%s", c->cluster[i].name);
    rc = ls_resource_create(&s->cpu[i], e, name, c->cluster[i].cores, err);
    s->n_cpu = i + 1;
  }
  if (!rc)
    rc = ls_flash_dev_create_shared(&s->flash, e, ls_device_flash(d), seed, stream_id, ftabs, err);
  if (rc) {
    ls_devsim_free(s);
    return rc;
  }
  *out = s;
  return LS_OK;
}

void ls_devsim_free(ls_devsim *s)
{
  if (!s)
    return;
  ls_flash_dev_free(s->flash);
  for (int i = 0; i < s->n_cpu; i++)
    ls_resource_free(s->cpu[i]);
  ls_resource_free(s->npu);
  free(s);
}

void ls_devsim_energy(const ls_devsim *s, const ls_device *d, int64_t wall_ns, ls_energy *out)
{
  ls_power_meter *m;
  if (ls_power_meter_create(&m, ls_device_power(d), NULL)) {
    *out = (ls_energy){0};
    return;
  }
  ls_power_add_npu_busy(m, ls_resource_busy_ns(s->npu));
  for (int i = 0; i < s->n_cpu; i++)
    ls_power_add_cpu_busy(m, i, ls_resource_busy_ns(s->cpu[i]));
  ls_power_add_flash_bytes(m, ls_flash_dev_bytes_read(s->flash));
  ls_power_energy(m, wall_ns, out);
  ls_power_meter_free(m);
}
