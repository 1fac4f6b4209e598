/* devices/device: one phone (or the desktop GPU reference) as loaded from
 * devices/profiles/<id>.yaml: flash, dram, npu, cpu and power parts.
 *
 * Every number of a profile carries a YAML comment with its source or says `calibrated:` /
 * `assumed:` (checked by the tests). Loading validates everything: missing required keys,
 * unknown keys, zero/negative rates, wrong unit kinds, non-monotone batch curves are errors
 * located at file:line:col. A loaded device is immutable except through ls_device_apply. */
#ifndef LS_DEVICES_DEVICE_H
#define LS_DEVICES_DEVICE_H
#include "devices/cpu.h"
#include "devices/dram.h"
#include "devices/flash.h"
#include "devices/npu.h"
#include "devices/power.h"
#include "sim/error.h"
#include "sim/kv.h"

typedef struct ls_device ls_device;

/* Loads and validates one profile file. *out owned by caller (ls_device_free). */
int ls_device_load(ls_device **out, const char *path, ls_error *err);
/* data_root/devices/profiles/<id>.yaml; unknown id -> LS_ENOTFOUND listing valid ids. An id
 * that is a path (ls_device_is_path) loads that file instead (a calibrated profile). */
int ls_device_load_id(ls_device **out, const char *data_root, const char *id, ls_error *err);
/* 1 when a device name is a profile file rather than an id: it contains '/' or ends in .yaml. */
int ls_device_is_path(const char *id);
/* Writes up to max profile ids (sorted) into ids; returns how many exist (may exceed max), or
 * a negative status when the folder cannot be read. */
int ls_device_list(const char *data_root, char (*ids)[64], int max);
/* Overrides from "device.*" settings (marks them used):
 *   device.flash.bandwidth (effective sequential read, e.g. "3 GB/s"; the path is kept and
 *   the link rate rescaled), device.flash.path (direct|page_cache), device.flash.chunk,
 *   device.flash.queue_depth, device.flash.sim (recurrence|events: how the flash queue is
 *   simulated, identical results), device.dram.budget (resident target bytes),
 *   device.npu.dispatch (time), device.cpu.threads. */
int ls_device_apply(ls_device *d, ls_kv *kv, ls_error *err);
void ls_device_free(ls_device *d);
/* Deep copy (for per-run overrides). *out owned by caller. */
int ls_device_clone(ls_device **out, const ls_device *d, ls_error *err);

const char *ls_device_id(const ls_device *d);    /* borrowed: "oneplus-12" */
const char *ls_device_name(const ls_device *d);  /* borrowed: "OnePlus 12" */
const char *ls_device_soc(const ls_device *d);   /* borrowed: "Snapdragon 8 Gen 3" */
const char *ls_device_path(const ls_device *d);  /* borrowed: file it came from */
/* 1 when the "npu" section describes a GPU (desktop reference). */
int ls_device_is_gpu(const ls_device *d);

/* Parts (borrowed; valid until ls_device_free; changed only by ls_device_apply). */
const ls_flash_params *ls_device_flash(const ls_device *d);
const ls_dram_params *ls_device_dram(const ls_device *d);
const ls_npu_params *ls_device_npu(const ls_device *d);
/* Points d's NPU padding report at r (devices/npu.h; NULL: none). Only on a device the caller
 * owns alone, such as a run's own clone: the cost queries write through it. */
void ls_device_set_npu_report(ls_device *d, ls_npu_report *r);
const ls_cpu_params *ls_device_cpu(const ls_device *d);
const ls_power_params *ls_device_power(const ls_device *d);

/* The host section (optional; no phone profile has one): a llama.cpp-style runtime on a host's
 * CPU reading the model through a mapped file, as `leversim testbed validate --host-profile`
 * fitted it on a testbed run (docs/VALIDATION.md §0.5). Read only by ls_costmodel_pass_host. */
typedef struct ls_device_host {
  int present;             /* 0: the profile has no host section (every other field 0) */
  double read_ahead;       /* the read-ahead window, bytes */
  double fault_s_per_byte; /* CPU time a faulted-in byte costs, s (0: none) */
  double stream_bytes, stream_s; /* the mapped file's stream without compute (0, 0: the profile's flash) */
  double start_s;          /* the wait at a cold pass's first read, s */
  double head_serial;      /* 0..1: share of the head's compute after its last byte */
  double contend_s_per_byte;  /* compute lost per byte read beside it when the threads occupy every
                            * core, s/B (0: none; devices/mapread.h; key contention_rate, its inverse) */
} ls_device_host;
const ls_device_host *ls_device_host_params(const ls_device *d);

/* Prints the resolved values with units (for `leversim profiles show`). */
void ls_device_print(const ls_device *d, FILE *f);

#endif
