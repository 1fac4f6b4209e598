/* devices/dram: see dram.h.
 * The resident budget is the part of the target that stays in DRAM across passes (the rest
 * is streamed from flash every pass). It can never exceed what the app may hold. */
#include "devices/dram.h"

double ls_dram_resident_budget(const ls_dram_params *d)
{
  return d->resident_target < d->app_budget ? d->resident_target : d->app_budget;
}
