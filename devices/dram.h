/* devices/dram: main memory: capacity, the app's budget, bandwidth, resident target bytes. */
#ifndef LS_DEVICES_DRAM_H
#define LS_DEVICES_DRAM_H

typedef struct ls_dram_params {
  char type[32];           /* "LPDDR5X" */
  double capacity;         /* bytes installed */
  double app_budget;       /* bytes one app may hold before the OS kills it */
  double bandwidth;        /* B/s, measured streaming bandwidth */
  double resident_target;  /* bytes of target weights kept resident (<= app_budget) */
  double background_w;     /* self-refresh/background power while the app runs */
} ls_dram_params;

/* Bytes of target weights allowed resident: min(resident_target, app_budget). */
double ls_dram_resident_budget(const ls_dram_params *d);

#endif
