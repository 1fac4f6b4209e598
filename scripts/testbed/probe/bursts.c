/* scripts/testbed/probe/bursts.c: does a busy thread slow the reads it overlaps by how long it
 * computes at a stretch (docs/VALIDATION.md §3.16)? The node probe saw a cold pass's reads stop
 * while the thread computes below 5 tokens (a layer's compute in short stretches between waits)
 * and keep up from 5 on. This probe streams the model file through a mapping from a cold cache,
 * as the stream measurement does, with the same total arithmetic (no memory traffic) done in
 * stretches after every B bytes, for several B; then the same loop over the cached file (the
 * arithmetic alone), and a plain stream. Interleaved, REPS repetitions.
 * Not part of `make testbed`; build and run by hand:
 *   cc -O2 -std=c11 -D_GNU_SOURCE -o /tmp/bursts scripts/testbed/probe/bursts.c
 *   echo 60000 > /sys/module/page_reporting/parameters/min_free_ms   # as run.sh does, when allowed
 *   /tmp/bursts build/testbed/full/Llama-3.2-1B-testbed-Q4_0.gguf 0.12 5
 * The second argument is the arithmetic's time in all, in seconds (0.12: 60 % of a 0.2 s
 * stream, a read-bound loop). Prints one line per
 * measurement: kind (plain, cold, warm), B in KiB, the repetition, wall seconds. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* A dependent multiply-add chain: arithmetic with no memory traffic. */
static double spin(uint64_t iters, double x)
{
  for (uint64_t i = 0; i < iters; i++)
    x = x * 1.0000001 + 1e-9;
  return x;
}

/* Touches every page of the mapping in order, with iters_per_burst iterations after every
 * `burst` bytes; returns the wall time. */
static double run(const volatile unsigned char *p, size_t len, size_t burst, uint64_t iters_per_burst, double *sink)
{
  double t0 = now(), x = *sink;
  unsigned s = 0;
  for (size_t o = 0; o < len; o += 4096) {
    s += p[o];
    if (burst && (o + 4096) % burst == 0)
      x = spin(iters_per_burst, x);
  }
  *sink = x + s;
  return now() - t0;
}

static int evict(int fd, void *p, size_t len)
{
  return madvise(p, len, MADV_DONTNEED) || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
}

int main(int argc, char **argv)
{
  static const size_t bursts_kib[] = {4, 256, 2048, 8192, 32768};
  double work_s = argc == 4 ? atof(argv[2]) : 0;
  int reps = argc == 4 ? atoi(argv[3]) : 0;
  if (reps < 1 || !(work_s > 0)) {
    fprintf(stderr, "usage: bursts MODEL.gguf SECONDS REPS\n");
    return 64;
  }
  int fd = open(argv[1], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st))
    return perror(argv[1]), 66;
  size_t len = (size_t)st.st_size;
  const volatile unsigned char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    return perror("mmap"), 1;
  double sink = 1, t0 = now();
  sink = spin(200000000, sink);
  double rate = 2e8 / (now() - t0); /* iterations a second */
  uint64_t total = (uint64_t)(work_s * rate);
  for (int rep = 0; rep < reps; rep++) {
    if (evict(fd, (void *)p, len))
      return perror("evict"), 1;
    if (printf("plain 0 %d %.4f\n", rep, run(p, len, 0, 0, &sink)) < 0)
      return 74;
    for (size_t b = 0; b < sizeof bursts_kib / sizeof bursts_kib[0]; b++) {
      size_t burst = bursts_kib[b] * 1024;
      uint64_t per = total / (len / burst);
      for (int cold = 1; cold >= 0; cold--) {
        if (cold && evict(fd, (void *)p, len))
          return perror("evict"), 1;
        double t = run(p, len, burst, per, &sink);
        if (printf("%s %zu %d %.4f\n", cold ? "cold" : "warm", bursts_kib[b], rep, t) < 0)
          return 74;
      }
    }
    if (fflush(stdout))
      return 74;
  }
  return sink == 42 ? 1 : 0;
}
