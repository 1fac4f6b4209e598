/* runner/calibrate: fits a device profile's parameters to llama-bench and fio measurements by
 * weighted nonlinear least squares (GSL multifit_nlinear), predicting every measurement with
 * the simulator's own cost functions, so a fitted profile reproduces what was measured by
 * construction. Three groups, fitted in this order (the NPU rows need the CPU head):
 *   cpu:   cpu.gemv_scale (x every cluster's gemv_bandwidth), cpu.max_bandwidth,
 *          cpu.flops_scale (x every cluster's flops_per_cycle), from CPU rows; the kernel's
 *          form (the roofline or the sum, cpu.batch_group) chosen by profile likelihood;
 *   npu:   npu.q4_0_dynamic.{op_call, weight_bandwidth, vec_flops, mat_flops} from Hexagon
 *          rows; tile and mat_min (discrete) chosen by profile likelihood over a small set;
 *   flash: flash.link_bandwidth (the direct path's efficiency held), flash.efficiency.page_cache
 *          (only when fio measured both paths), flash.latency.{median, sigma} from fio.
 * See calibrate.c for the equations, weights, standard errors and leave-one-out report. */
#ifndef LS_RUNNER_CALIBRATE_H
#define LS_RUNNER_CALIBRATE_H
#include "devices/device.h"
#include "runner/calibrate/calib_input.h"
#include "sim/units.h"

#define LS_CALIB_MAXP 5
#define LS_CALIB_CURVES 8
#define LS_CALIB_CURVE_PTS 64

typedef enum { LS_CALIB_GROUP_CPU = 0, LS_CALIB_GROUP_NPU = 1, LS_CALIB_GROUP_FLASH = 2, LS_CALIB_GROUPS } ls_calib_gid;

typedef enum { LS_CALIB_FITTED = 0, LS_CALIB_FIXED, LS_CALIB_UNDETERMINED } ls_calib_status;

typedef struct ls_calib_param {
  char name[64];           /* "npu.q4_0_dynamic.op_call" (a profile key, or a scale of keys) */
  ls_unit_kind unit;
  double base, value, se;  /* SI units; se 0 unless fitted */
  ls_calib_status status;
  int unit01;              /* a fraction in (0, 1) (an efficiency): fitted as its logit, so the
                              fit cannot leave the physical range */
  char why[128];           /* why kept (FIXED / UNDETERMINED); for a fitted rate, why it is only a
                              lower bound (at cpu.max_bandwidth); "" otherwise */
  char rows[256];          /* measurements that determine it: "file rows r1,r2" */
} ls_calib_param;

typedef struct ls_calib_point {
  char where[LS_CALIB_WHERE]; /* location in its input file */
  char label[64];             /* "qwen3-4b pp128", "bs 512 KiB qd 32: bandwidth" */
  char series[64];            /* plot series */
  double y, sigma;            /* measured (s per test, B/s or s) and its standard deviation */
  double fit;                 /* prediction at the fitted parameters */
  double loo;                 /* prediction fitted without this point; NAN when undetermined */
  double px, py, pe, pfit;    /* plot coordinates: abscissa, measured, its error, fitted */
  char why[160];              /* when the point is off: what it likely measured instead */
} ls_calib_point;

typedef struct ls_calib_curve {
  char series[64];
  int n;
  double x[LS_CALIB_CURVE_PTS], y[LS_CALIB_CURVE_PTS];
} ls_calib_curve;

/* The sum form's batch_group when the base has none: one pass over the weights for any batch
 * (the loader's largest batch_group; devices/cpu.c). */
#define LS_CALIB_ONEPASS 1000000

typedef struct ls_calib_group {
  char name[16];            /* "cpu", "npu", "flash" */
  int n_par;
  ls_calib_param par[LS_CALIB_MAXP];
  int n_pts;
  ls_calib_point *pts;      /* owned */
  double chi2;              /* sum of squared weighted residuals at the fit */
  int dof;                  /* points - fitted parameters */
  int tile, mat_min;        /* npu: the discrete choice written */
  int cpu_group;            /* cpu: the kernel form written: batch_group, 0 the roofline
                             * (calibrate.c, choose_cpu_form) */
  char note[512];           /* how the discrete parameters / weights were chosen */
  int n_curves;
  ls_calib_curve curves[LS_CALIB_CURVES];
} ls_calib_group;

typedef struct ls_calib_result {
  ls_calib_group g[LS_CALIB_GROUPS]; /* a group with n_pts 0 was not fitted */
  ls_cpu_params cpu;                  /* fitted parts, ready to write */
  ls_npu_params npu;
  ls_flash_params flash;
} ls_calib_result;

typedef struct ls_calib_options {
  const char *const *fix;  /* parameter names held at the base value (NULL-terminated or NULL) */
  int want[LS_CALIB_GROUPS]; /* all 0: every group with measurements; else only these (refused
                                when they have none) */
  int base_form;           /* 1: the CPU kernel's form is the base's, not chosen (calibrate.c,
                              choose_cpu_form) */
} ls_calib_options;

/* Fits every group that has measurements. base is borrowed. Refuses (LS_EINVALID, exit 65)
 * inputs that cannot determine a fitted parameter (too few points, parameters that the rows
 * cannot tell apart), naming them. *out is owned by the caller (ls_calib_result_free). */
int ls_calibrate(const ls_device *base, const ls_calib_inputs *in, const char *data_root,
                 const ls_calib_options *opt, ls_calib_result *out, ls_error *err);
void ls_calib_result_free(ls_calib_result *r);
/* 1 when name is a parameter --fix can hold: a full name ("npu.q4_0_dynamic.op_call") or its
 * last part ("op_call"); 0 otherwise. The valid names, comma-separated, into list (may be NULL). */
int ls_calib_param_known(const char *name, char *list, unsigned size);

#endif
