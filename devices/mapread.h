/* devices/mapread: reading a memory-mapped file that compute faults in, with the kernel's
 * read-ahead (src:linux-readahead): how llama.cpp streams a model it maps, measured by the
 * testbed (src:testbed-run, docs/VALIDATION.md).
 *
 * The file is consumed front to back as a sequence of segments (a layer's weights, the head),
 * each with the compute that uses it. The kernel reads the file in windows of `window` bytes
 * (the device's read_ahead_kb): the first fault reads a window synchronously; once compute has
 * consumed `trigger` (0..1) of a window, the next window's read is issued asynchronously (in
 * steady state at the window's first page: trigger 0), so reading overlaps compute by up to
 * one window. Compute cannot use a byte before its window
 * has arrived. Windows are read one after another on the flash model (devices/flash.h), each
 * as one request of its size on the page-cache path. Compute is spread over a segment's bytes
 * evenly.
 * A share `serial` of a segment's compute cannot start before the segment's last window has
 * arrived (measured for the testbed's output projection: src:testbed-run, docs/VALIDATION.md
 * §3.10); it runs with the compute of that window.
 * Each byte brought in also costs the faulting thread `fault_s_per_byte` of CPU time (mapping
 * pages into the process), added to compute.
 * While the thread computes, a read in flight progresses at (1 - io_cpu_share) of its rate.
 * On the testbed's VM the host serves the virtual disk on the cores the guest runs on, so a
 * busy thread slows the reads it overlaps (measured with a stream that does fixed arithmetic
 * after each page: src:testbed-run, docs/VALIDATION.md §3.10); a phone's UFS moves data by DMA
 * and its profile has no such share (0).
 * With `share_waited` the share slows only a read the thread ends up waiting for: one that
 * would still be in flight, at its full rate, when the compute it overlaps ends. A read that
 * full rate would finish inside that compute is not slowed. The busy streams show it: at 120 and
 * 150 % of a stream's time in compute the reads hide under the compute, where a share slowing
 * every read would make them outlast it (src:testbed-run, docs/VALIDATION.md §3.18). The rule
 * is all or nothing per window, so a pass whose windows compute for about as long as they read
 * sits on its edge.
 * Instead of slowing, a read issued while the thread computes may start late: after
 * `io_delay_s`, or when that compute ends if sooner (a host that serves the disk only when the
 * computing vCPU yields or after a delay; the shape the node-by-node probe shows, tried as an
 * alternative to the share: docs/VALIDATION.md §3.16). 0: at once.
 * A pass waits `start_s` at its first read before the first window is in: what starting a cold
 * pass costs beyond the steady reads. On the testbed a llama.cpp pass first faults in the
 * embedding rows of its tokens (single pages scattered over the embedding matrix) and then starts
 * a new sequential read at the first layer, whose read-ahead grows from small synchronous reads;
 * both show as waits before the first layer's compute (measured node by node with
 * `testbed probe --kind nodes`: src:testbed-run, docs/VALIDATION.md §3.16). 0: none.
 * Host-only, `contend_s_per_byte`: when the runtime's threads occupy every core of a host that
 * serves its own reads on those cores (the testbed's VM: faults, page-cache fills and the
 * hypervisor's virtio work run on the guest's cores, docs/VALIDATION.md §3.3, §0.8), the read
 * path's CPU work has no idle core and takes its time from the compute it overlaps: each byte
 * read while a window's compute runs lengthens that compute by contend_s_per_byte (wall seconds:
 * the path's CPU time per byte over the cores it shares). A read the thread waits for with the
 * cores idle costs nothing extra, so a read-bound pass is barely touched and a compute-bound one
 * pays for all its overlapped bytes. A phone's UFS moves data by DMA: absent (0).
 * With io_cpu_share 0 and start_s 0 the result lies between max(read, compute) (perfect overlap) and
 * read + compute (the `serial` assumption of the phone replay: read a layer, then compute it). */
#ifndef LS_DEVICES_MAPREAD_H
#define LS_DEVICES_MAPREAD_H
#include "devices/flash.h"

typedef struct ls_mapread_seg {
  double bytes;      /* file bytes of the segment */
  double compute_s;  /* compute that uses them */
  double serial;     /* 0..1: share of compute_s that waits for the segment's last byte (0: all of
                      * it follows the windows as they arrive) */
} ls_mapread_seg;

typedef struct ls_mapread_params {
  double window;            /* read-ahead window, bytes (> 0) */
  double trigger;           /* fraction of a window consumed when the next read is issued */
  double fault_s_per_byte;  /* CPU time per byte faulted in */
  /* Host-only: the testbed VM's effects with no phone equivalent (docs/VALIDATION.md §0.4,
   * §3.10 to §3.18). No profile sets them and the decode library leaves them 0
   * (policies/costmodel.c, ls_costmodel_read_ahead); only `testbed validate --io-share` does. */
  double io_cpu_share;      /* host-only: 0..0.95, share of a read's progress lost while the thread computes */
  double start_s;           /* wait at the pass's first read, s (>= 0) */
  double io_delay_s;        /* host-only: a read issued while the thread computes starts after
                             * this, s, or when that compute ends if sooner (0: at once) */
  int share_waited;         /* host-only: 1, io_cpu_share slows only a read the thread waits for;
                             * 0, every read that overlaps compute (docs/VALIDATION.md §3.10) */
  double contend_s_per_byte;   /* host-only: compute lengthened per byte read while it runs, s/B (0: none;
                             * set only when the threads occupy every core: docs/VALIDATION.md §0.8) */
} ls_mapread_params;

/* Time (s) to consume the segments in order from a cold page cache. */
double ls_mapread_time_s(const ls_flash_params *f, const ls_mapread_params *m, const ls_mapread_seg *segs, int n);
/* The same, with ends[i] (ends: n values, may be NULL) the time segment i's compute ends: its
 * window's compute start plus the window's compute up to and including the segment's share
 * (and its serial part). A segment with no bytes ends with the compute of the window it falls
 * in (or after the last window). Unset when the file has no bytes (the time is then 0). The
 * decode library schedules a mapped verification pass layer by layer from these
 * (runner/decode/cycle_verify.c, verify.overlap=mapped). */
double ls_mapread_time_ends_s(const ls_flash_params *f, const ls_mapread_params *m, const ls_mapread_seg *segs, int n,
                              double *ends);
/* The serial bound: every segment read whole (ls_flash_read_ns), then computed. */
double ls_mapread_serial_s(const ls_flash_params *f, const ls_mapread_seg *segs, int n);

/* A model file in the order a pass reads it: `layers` layers of layer_bytes, each computed in
 * layer_s, then the output projection's head_bytes computed in head_s with head_serial of it
 * waiting for its last byte (tied embeddings: the embedding matrix, read whole to project).
 * head = 0: the pass asks for no output row, so the runtime neither reads nor computes the
 * projection (llama.cpp). Consumed from a cold page cache with reads overlapping compute
 * through read-ahead (mapped = 1: ls_mapread_time_s) or each segment read whole, then computed
 * (mapped = 0: ls_mapread_serial_s, the phone replay's `serial`). NAN when out of memory. */
typedef struct ls_mapread_file {
  int layers;
  double layer_bytes, layer_s;
  double head_bytes, head_s, head_serial;
  int head;
} ls_mapread_file;
double ls_mapread_pass_s(const ls_flash_params *f, const ls_mapread_params *m, int mapped, const ls_mapread_file *p);

/* The flash base with its page-cache rate set so that streaming `bytes` through a mapping
 * without compute (one segment, ls_mapread_time_s) takes `seconds`: the read rate a stream
 * measurement shows (bisection on the rate to 1e-6 relative; the latency model kept). */
ls_flash_params ls_mapread_stream_flash(const ls_flash_params *base, const ls_mapread_params *m, double bytes,
                                        double seconds);

#endif
