/* tests/plots fixture: synthetic results databases for `leversim figures`, temporary
 * folders, and PNG header reading.
 *
 * The synthetic 'main' part: the paper's 3 devices x 4 targets x 4 datasets (configuration
 * k = 16 d + 4 m + s) and 9 systems; system y runs at lever / px_ratio(y, k) tokens/s;
 * specinfer's io_share is px_io_share(m, s). The studies: budget (eagle2, lever x budgets
 * 4..64), mapping (4 maps), lmhead (3 placements), sensitivity (5 bandwidths). */
#ifndef LS_TESTS_PLOTS_FIXTURE_H
#define LS_TESTS_PLOTS_FIXTURE_H
#include <stddef.h>
#include "results/db.h"

#define PX_MAIN 1
#define PX_STUDIES 2
#define PX_N_SYSTEMS 9

extern const char *const px_devices[3], *const px_models[4], *const px_datasets[4],
    *const px_systems[PX_N_SYSTEMS];

/* Creates path (must not exist) with the parts selected by the PX_* bits (0: no run). */
int px_make_db(const char *path, int parts);
double px_ratio(int system, int config);   /* lever tps / system tps */
double px_io_share(int model, int dataset);

/* A fresh folder under /tmp into buf, or NULL. */
const char *px_tmpdir(char *buf, size_t size);
/* Removes dir and everything in it. */
void px_rmdir(const char *dir);
/* Whole file, NUL-terminated, owned by caller (free); NULL when unreadable. */
char *px_read(const char *path, size_t *len);
/* 1 when path is a PNG: its IHDR width and height and the file size; else 0. */
int px_png_size(const char *path, unsigned *w, unsigned *h, size_t *bytes);

#endif
