/* sim/units: physical quantities written with their unit, parsed by one function.
 *
 * Profiles write "4.2 GB/s", "80 us", "3.3 GHz", "117 MiB", "2.5 W". ls_units_parse turns such
 * text into SI base units (bytes, seconds, hertz, watts, joules, bytes/s, FLOP/s, J/byte,
 * 1/s) and rejects a bare number where a unit is required and a unit of the wrong kind.
 * Decimal prefixes are powers of 1000 (GB = 1e9 B), binary ones powers of 1024 (GiB);
 * bit rates (Gb/s) are divided by 8. LS_U_RATIO takes a bare number or a percentage. Numbers
 * are decimal only (ls_units_decimal). */
#ifndef LS_SIM_UNITS_H
#define LS_SIM_UNITS_H

typedef enum ls_unit_kind {
  LS_U_RATIO = 0,   /* dimensionless: "0.85" or "85 %" */
  LS_U_BYTES,       /* B, KB, MB, GB, TB, KiB, MiB, GiB, TiB */
  LS_U_BANDWIDTH,   /* B/s ... TB/s, KiB/s ... GiB/s, Mb/s, Gb/s */
  LS_U_TIME,        /* ns, us, ms, s */
  LS_U_FREQ,        /* Hz, kHz, MHz, GHz */
  LS_U_POWER,       /* mW, W */
  LS_U_ENERGY,      /* nJ, uJ, mJ, J */
  LS_U_ENERGY_PER_BYTE, /* pJ/B, nJ/B, J/GB, J/GiB, mJ/MB */
  LS_U_COMPUTE,     /* FLOP/s, GFLOP/s, TFLOP/s, GOPS, TOPS */
  LS_U_RATE,        /* 1/s, IOPS, kIOPS */
  LS_U_KIND_COUNT
} ls_unit_kind;

/* Name of a kind ("bandwidth") and a few example units ("B/s, MB/s, GB/s, GiB/s"). */
const char *ls_units_kind_name(ls_unit_kind k);
const char *ls_units_examples(ls_unit_kind k);
/* The SI base unit ls_units_parse returns for kind k ("B/s"; "" for a ratio). */
const char *ls_units_base(ls_unit_kind k);

/* Reads the decimal number at the start of text: an optional sign, digits with an optional
 * fraction, an optional exponent ("-4.2", ".5", "1e-3"). strtod alone would also take
 * hexadecimal ("0x1p3"), "inf", "nan" and leading spaces, which the file formats do not allow.
 * Returns LS_OK with *out and *end (the first character after the number), or LS_EPARSE with
 * *why (static text): not a decimal number, or beyond the range of a double. */
int ls_units_decimal(const char *text, double *out, const char **end, const char **why);

/* Parses text as a quantity of kind k into SI base units. On failure returns a negative
 * LS_E* code and sets *why to a static explanation (never NULL on failure). */
int ls_units_parse(const char *text, ls_unit_kind k, double *out, const char **why);

/* Formats an SI value with a readable unit of kind k ("4.2 GB/s"). Returns buf. */
const char *ls_units_format(double si, ls_unit_kind k, char *buf, unsigned size);

#endif
