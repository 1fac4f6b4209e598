/* tests/fuzz/fuzz_util: helpers shared by the libFuzzer harnesses (not part of leversim).
 *
 * The loaders take file paths, so each harness writes the fuzzer's bytes to a file in a
 * private temporary folder (under /dev/shm when it exists: no disk I/O) and loads that.
 * Harness state (the folder, fixed models loaded once) lives in function-local statics:
 * libFuzzer calls LLVMFuzzerTestOneInput from one thread, and the project rule against
 * mutable globals concerns the simulator, not these drivers. */
#ifndef LS_FUZZ_UTIL_H
#define LS_FUZZ_UTIL_H
#include <stddef.h>
#include <stdint.h>

/* Writes data to <tmpdir>/<name> and returns that path (static storage, overwritten by the
 * next call). name must be a plain file name; aborts when the file cannot be written. */
const char *fz_write(const char *name, const uint8_t *data, size_t size);
/* A NUL-terminated copy of data (owned by caller: free). */
char *fz_strdup(const uint8_t *data, size_t size);
/* The value of the top-level "id:" line of a YAML text, made safe as a file name
 * ([A-Za-z0-9._-], at most 59 characters) into out; "fuzz" when there is none. */
void fz_yaml_id(const uint8_t *data, size_t size, char *out, size_t out_size);
/* Source tree root (data folders), from LS_SOURCE_DIR or the LEVERSIM_DATA environment. */
const char *fz_data_root(void);
/* Prints the error to stderr when the environment sets FUZZ_VERBOSE (for checking which
 * path a seed takes); err is an ls_error *. */
void fz_report(const char *what, const void *err);
/* /dev/null opened for writing (for print functions); never NULL. */
void *fz_devnull(void);

#endif
