/* runner/calib_write: the outputs of `leversim calibrate`: the calibrated profile YAML (the
 * base file's text with the fitted numbers replaced, each with a `calibrated:` comment naming
 * its measurements and standard error) and the --plot figures (gnuplot: measured points with
 * their deviations and the fitted curves, one figure per fitted group). */
#ifndef LS_RUNNER_CALIB_WRITE_H
#define LS_RUNNER_CALIB_WRITE_H
#include "runner/calibrate/calibrate.h"

/* LS_OK when out_path may take the calibrated profile (absent, empty, or a profile calibrate
 * wrote): the check ls_calib_write_profile makes, made before anything else is written. */
int ls_calib_check_out(const char *out_path, ls_error *err);

/* Writes base_path's text (base_label names it in the header comment) with r's fitted values into out_path (id: id, name: "<name>
 * (calibrated)"). Writes out_path.tmp, loads it with every check of the profile loader, then
 * renames it: on any error nothing is left at out_path (nor the .tmp). */
int ls_calib_write_profile(const char *base_path, const char *base_label, const ls_calib_result *r, const char *id,
                           const char *out_path, ls_error *err);
/* Writes dir/calibrate-<group>.dat and .gp for each fitted group and runs gnuplot on them
 * (dir/calibrate-<group>.png). dir must exist. */
int ls_calib_plot(const ls_calib_result *r, const char *dir, ls_error *err);
/* "22.41 GB/s": value rounded to 4 significant digits with a unit of its kind. */
const char *ls_calib_format(double si, ls_unit_kind k, char *buf, unsigned size);

#endif
