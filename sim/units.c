/* sim/units: see units.h. One table of (kind, spelling, factor to SI). */
#include "sim/units.h"
#include "sim/error.h"
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  ls_unit_kind kind;
  const char *name;
  double factor;
} unit_def;

static const unit_def UNITS[] = {
    {LS_U_RATIO, "%", 0.01},
    {LS_U_BYTES, "B", 1.0}, {LS_U_BYTES, "KB", 1e3}, {LS_U_BYTES, "MB", 1e6},
    {LS_U_BYTES, "GB", 1e9}, {LS_U_BYTES, "TB", 1e12}, {LS_U_BYTES, "KiB", 1024.0},
    {LS_U_BYTES, "MiB", 1048576.0}, {LS_U_BYTES, "GiB", 1073741824.0},
    {LS_U_BYTES, "TiB", 1099511627776.0},
    {LS_U_BANDWIDTH, "B/s", 1.0}, {LS_U_BANDWIDTH, "KB/s", 1e3}, {LS_U_BANDWIDTH, "MB/s", 1e6},
    {LS_U_BANDWIDTH, "GB/s", 1e9}, {LS_U_BANDWIDTH, "TB/s", 1e12}, {LS_U_BANDWIDTH, "KiB/s", 1024.0},
    {LS_U_BANDWIDTH, "MiB/s", 1048576.0}, {LS_U_BANDWIDTH, "GiB/s", 1073741824.0},
    {LS_U_BANDWIDTH, "Mb/s", 1e6 / 8}, {LS_U_BANDWIDTH, "Gb/s", 1e9 / 8},
    {LS_U_TIME, "ns", 1e-9}, {LS_U_TIME, "us", 1e-6}, {LS_U_TIME, "ms", 1e-3}, {LS_U_TIME, "s", 1.0},
    {LS_U_FREQ, "Hz", 1.0}, {LS_U_FREQ, "kHz", 1e3}, {LS_U_FREQ, "MHz", 1e6}, {LS_U_FREQ, "GHz", 1e9},
    {LS_U_POWER, "mW", 1e-3}, {LS_U_POWER, "W", 1.0},
    {LS_U_ENERGY, "nJ", 1e-9}, {LS_U_ENERGY, "uJ", 1e-6}, {LS_U_ENERGY, "mJ", 1e-3}, {LS_U_ENERGY, "J", 1.0},
    {LS_U_ENERGY_PER_BYTE, "pJ/B", 1e-12}, {LS_U_ENERGY_PER_BYTE, "nJ/B", 1e-9},
    {LS_U_ENERGY_PER_BYTE, "J/GB", 1e-9}, {LS_U_ENERGY_PER_BYTE, "mJ/MB", 1e-9},
    {LS_U_ENERGY_PER_BYTE, "J/GiB", 1.0 / 1073741824.0},
    {LS_U_COMPUTE, "FLOP/s", 1.0}, {LS_U_COMPUTE, "GFLOP/s", 1e9}, {LS_U_COMPUTE, "TFLOP/s", 1e12},
    {LS_U_COMPUTE, "GOPS", 1e9}, {LS_U_COMPUTE, "TOPS", 1e12},
    {LS_U_RATE, "1/s", 1.0}, {LS_U_RATE, "IOPS", 1.0}, {LS_U_RATE, "kIOPS", 1e3},
};

static const char *KIND_NAMES[LS_U_KIND_COUNT] = {
    "ratio", "size", "bandwidth", "time", "frequency", "power", "energy",
    "energy per byte", "compute rate", "rate"};

static const char *KIND_EXAMPLES[LS_U_KIND_COUNT] = {
    "a number or %", "B, KiB, MiB, GiB, MB, GB", "MB/s, GB/s, GiB/s, Gb/s", "ns, us, ms, s",
    "MHz, GHz", "mW, W", "nJ, uJ, mJ, J", "pJ/B, nJ/B, J/GB", "GFLOP/s, TFLOP/s, TOPS",
    "1/s, IOPS, kIOPS"};

const char *ls_units_kind_name(ls_unit_kind k)
{
  return (unsigned)k < LS_U_KIND_COUNT ? KIND_NAMES[k] : "?";
}

const char *ls_units_base(ls_unit_kind k)
{
  static const char *const BASE[LS_U_KIND_COUNT] = {"", "B", "B/s", "s", "Hz", "W", "J", "J/B",
                                                    "FLOP/s", "1/s"};
  return (unsigned)k < LS_U_KIND_COUNT ? BASE[k] : "?";
}

const char *ls_units_examples(ls_unit_kind k)
{
  return (unsigned)k < LS_U_KIND_COUNT ? KIND_EXAMPLES[k] : "?";
}

static const unit_def *find_unit(const char *s)
{
  for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++)
    if (strcmp(UNITS[i].name, s) == 0)
      return &UNITS[i];
  return NULL;
}

static const char *digits(const char *s)
{
  while (*s >= '0' && *s <= '9')
    s++;
  return s;
}

int ls_units_decimal(const char *text, double *out, const char **end, const char **why)
{
  const char *s = text + (*text == '+' || *text == '-');
  const char *int_end = digits(s), *p = int_end;
  int have = int_end > s;
  if (*p == '.') {
    const char *frac_end = digits(p + 1);
    have |= frac_end > p + 1;
    p = frac_end;
  }
  if (!have) {
    *why = "expected a decimal number";
    return LS_EPARSE;
  }
  if (int_end == s + 1 && *s == '0' && (*int_end == 'x' || *int_end == 'X')) {
    *why = "hexadecimal numbers are not accepted (write the number in decimal)";
    return LS_EPARSE;
  }
  if ((*p == 'e' || *p == 'E')) {
    const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
    if (digits(q) > q)
      p = digits(q);
  }
  /* strtod reads exactly the validated prefix: copy it, so text after it is not read. */
  char buf[128];
  size_t n = (size_t)(p - text);
  if (n >= sizeof buf) {
    *why = "number too long";
    return LS_EPARSE;
  }
  memcpy(buf, text, n);
  buf[n] = '\0';
  errno = 0;
  double v = strtod(buf, NULL);
  if (errno == ERANGE || !isfinite(v)) {
    *why = "number beyond the range of a double";
    return LS_EPARSE;
  }
  *out = v;
  *end = p;
  return LS_OK;
}

int ls_units_parse(const char *text, ls_unit_kind k, double *out, const char **why)
{
  static const char *const WRONG_KIND[LS_U_KIND_COUNT] = {
      "expected a plain number or a percentage", "unit of the wrong kind: expected a size",
      "unit of the wrong kind: expected a bandwidth", "unit of the wrong kind: expected a time",
      "unit of the wrong kind: expected a frequency", "unit of the wrong kind: expected a power",
      "unit of the wrong kind: expected an energy",
      "unit of the wrong kind: expected an energy per byte",
      "unit of the wrong kind: expected a compute rate", "unit of the wrong kind: expected a rate"};
  *why = "expected a number followed by a unit";
  if (!text || (unsigned)k >= LS_U_KIND_COUNT)
    return LS_EUNIT;
  const char *end = NULL, *num_why;
  double v;
  if (ls_units_decimal(text, &v, &end, &num_why) != LS_OK) {
    if (strstr(num_why, "hexadecimal"))
      *why = num_why;
    return LS_EUNIT;
  }
  while (*end == ' ' || *end == '\t')
    end++;
  if (*end == '\0') {
    if (k == LS_U_RATIO) {
      *out = v;
      return LS_OK;
    }
    *why = "a unit is required here";
    return LS_EUNIT;
  }
  const unit_def *u = find_unit(end);
  if (!u) {
    *why = "unknown unit";
    return LS_EUNIT;
  }
  if (u->kind != k) {
    *why = WRONG_KIND[k];
    return LS_EUNIT;
  }
  if (!isfinite(v * u->factor)) { /* "1e308 TB" must not become infinity */
    *why = "value too large";
    return LS_EUNIT;
  }
  *out = v * u->factor;
  return LS_OK;
}

static int formattable(const unit_def *u, ls_unit_kind k)
{
  /* Only the plain decimal spellings are used for output. */
  static const char *const SKIP[] = {"mJ/MB", "Mb/s", "Gb/s", "GOPS", "TOPS", "IOPS", "kIOPS"};
  if (u->kind != k || strchr(u->name, 'i'))
    return 0;
  for (size_t i = 0; i < sizeof SKIP / sizeof SKIP[0]; i++)
    if (strcmp(u->name, SKIP[i]) == 0)
      return 0;
  return 1;
}

const char *ls_units_format(double si, ls_unit_kind k, char *buf, unsigned size)
{
  const unit_def *fit = NULL, *smallest = NULL; /* fit: largest factor <= |si| */
  for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++) {
    const unit_def *u = &UNITS[i];
    if (!formattable(u, k))
      continue;
    if (!smallest || u->factor < smallest->factor)
      smallest = u;
    if (fabs(si) >= u->factor && (!fit || u->factor > fit->factor))
      fit = u;
  }
  const unit_def *u = fit ? fit : smallest;
  if (k == LS_U_RATIO || !u)
    snprintf(buf, size, "%.6g", si);
  else
    snprintf(buf, size, "%.6g %s", si / u->factor, u->name);
  return buf;
}
