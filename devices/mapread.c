/* devices/mapread: see mapread.h.
 *
 * Recurrence over windows w = 0, 1, ... of the concatenated segments (the last one shorter):
 *   c_w     compute falling in window w (each segment's (1 - serial) x compute_s pro rata to its
 *           bytes in w, and serial x compute_s in the window where the segment ends) plus
 *           fault_s_per_byte x the window's bytes
 *   r_w     one read request of the window's bytes at queue depth 1 (ls_flash_read_ns_at) on the
 *           profile's page-cache path
 *   issue_0 = 0, done_0 = start_s + r_0; issue_w = max(done_{w-1}, start_{w-1} + trigger x c_{w-1})   (asynchronous
 *           read-ahead: issued when compute reaches the trigger point of the previous window,
 *           never before the previous read has finished: one read at a time)
 *   begin_w = min(issue_w + io_delay_s, end_{w-1}) when the previous window's compute is still
 *           running at issue_w (a read the host starts late while the thread computes), else
 *           issue_w
 *   done_w  = begin_w + r_w, when io_cpu_share s = 0; otherwise the read progresses at 1 - s
 *           while the previous window's compute [start_{w-1}, end_{w-1}] runs (the only compute
 *           that can overlap it: issue_w >= start_{w-1} >= end_{w-2}), at 1 outside it; with
 *           share_waited, done_w = begin_w + r_w whenever begin_w + r_w <= end_{w-1} (a read that
 *           ends inside the compute keeps its full rate: the thread never waits for it)
 *   end_{w-1} += contend_s_per_byte x bytes_w x (the share of read w's time [begin_w, done_w] that
 *           the previous window's compute overlaps): the read path's CPU work taken from the
 *           compute it runs beside (first order: the longer compute is not overlapped again)
 *   start_w = max(end_{w-1}, done_w); end_w = start_w + c_w
 * The time is end of the last window. With trigger 0 the reads run back to back (the most
 * overlap); with trigger 1 and one window per segment it is the serial bound. */
#include "devices/mapread.h"
#include <math.h>
#include <stdlib.h>

/* One window: the kernel submits it as one read (src:linux-readahead), so it is one request
 * of its size at queue depth 1, on the page-cache path. */
static double window_s(const ls_flash_params *f, double bytes)
{
  ls_flash_params p = *f;
  p.path = LS_PATH_PAGE_CACHE;
  return (double)ls_flash_read_ns_at(&p, bytes, bytes, 1) * 1e-9;
}

/* The read begins at `issue`, or later while the compute running until b holds it back. */
static double read_begin(double issue, double b, double delay)
{
  return delay > 0 && b > issue ? fmin(issue + delay, b) : issue;
}

/* When a read of r seconds issued at `issue` completes if it progresses at 1 - share until the
 * previous window's compute ends at b (that compute started no later than the issue:
 * issue_w >= start_{w-1}) and at 1 after; with waited, at 1 throughout when that is enough to
 * end it by b (the thread, still computing, never waits for it). */
static double read_done(double issue, double r, double b, double share, double delay, int waited)
{
  issue = read_begin(issue, b, delay); /* the read waits for the host: until the compute ends, or delay */
  if (!(share > 0) || b <= issue || (waited && issue + r <= b))
    return issue + r;
  double slow = 1 - fmin(share, 0.95), during = b - issue;
  return slow * during >= r ? issue + r / slow : b + r - slow * during;
}

static double read_s(const ls_flash_params *f, double bytes)
{
  ls_flash_params p = *f;
  p.path = LS_PATH_PAGE_CACHE;
  return (double)ls_flash_read_ns(&p, bytes) * 1e-9;
}

double ls_mapread_time_ends_s(const ls_flash_params *f, const ls_mapread_params *m, const ls_mapread_seg *segs, int n,
                              double *ends)
{
  double total = 0;
  for (int i = 0; i < n; i++)
    total += segs[i].bytes > 0 ? segs[i].bytes : 0;
  if (total <= 0 || !(m->window > 0))
    return 0;
  int seg = 0;
  double seg_used = 0; /* bytes of segs[seg] already assigned to windows */
  double prev_start = 0, prev_end = 0, prev_done = 0, prev_c = 0;
  int prev_first = 0, prev_last = 0; /* the segments that ended in the previous window */
  for (double pos = 0; pos < total; pos += m->window) {
    double wb = fmin(m->window, total - pos), c = wb * m->fault_s_per_byte, need = wb;
    int first = seg; /* the segments that end in this window: first .. seg - 1 */
    while (need > 0 && seg < n) {
      if (!(segs[seg].bytes > 0)) { /* compute without bytes of its own runs in this window */
        c += segs[seg].compute_s;
        if (ends)
          ends[seg] = c; /* an offset into the window's compute until its start is known */
        seg++;
        continue;
      }
      double left = segs[seg].bytes - seg_used, take = fmin(left, need), ser = fmin(fmax(segs[seg].serial, 0), 1);
      c += segs[seg].compute_s * (1 - ser) * take / segs[seg].bytes;
      seg_used += take;
      need -= take;
      if (seg_used >= segs[seg].bytes) {
        c += segs[seg].compute_s * ser; /* after the segment's last byte: this window's compute */
        if (ends)
          ends[seg] = c;
        seg++;
        seg_used = 0;
      }
    }
    double issue = pos == 0 ? 0 : fmax(prev_done, prev_start + m->trigger * prev_c);
    double done = pos == 0 ? fmax(m->start_s, 0) + window_s(f, wb)
                           : read_done(issue, window_s(f, wb), prev_end, m->io_cpu_share, m->io_delay_s,
                                               m->share_waited);
    if (pos > 0 && m->contend_s_per_byte > 0) { /* the read path's work beside the running compute */
      double begin = read_begin(issue, prev_end, m->io_delay_s);
      double beside = done > begin ? (fmin(done, prev_end) - begin) / (done - begin) : 0;
      double more = m->contend_s_per_byte * wb * fmax(beside, 0);
      prev_end += more;
      for (int k = prev_first; ends && k < prev_last; k++)
        ends[k] += more; /* their compute ends later by as much (first order) */
    }
    double start = fmax(prev_end, done);
    for (int k = first; ends && k < seg; k++)
      ends[k] += start;
    prev_first = first;
    prev_last = seg;
    prev_start = start;
    prev_end = start + c;
    prev_done = done;
    prev_c = c;
  }
  /* Compute of segments without bytes (none here in practice) runs after the last window. */
  for (; seg < n; seg++)
    if (!(segs[seg].bytes > 0)) {
      prev_end += segs[seg].compute_s;
      if (ends)
        ends[seg] = prev_end;
    }
  return prev_end;
}

double ls_mapread_time_s(const ls_flash_params *f, const ls_mapread_params *m, const ls_mapread_seg *segs, int n)
{
  return ls_mapread_time_ends_s(f, m, segs, n, NULL);
}

double ls_mapread_serial_s(const ls_flash_params *f, const ls_mapread_seg *segs, int n)
{
  double t = 0;
  for (int i = 0; i < n; i++)
    t += (segs[i].bytes > 0 ? read_s(f, segs[i].bytes) : 0) + segs[i].compute_s;
  return t;
}

double ls_mapread_pass_s(const ls_flash_params *f, const ls_mapread_params *m, int mapped, const ls_mapread_file *p)
{
  int L = p->layers;
  ls_mapread_seg *s = malloc((size_t)(L + 1) * sizeof *s);
  if (!s)
    return NAN;
  for (int i = 0; i < L; i++)
    s[i] = (ls_mapread_seg){p->layer_bytes, p->layer_s, 0};
  s[L] = (ls_mapread_seg){p->head_bytes, p->head_s, p->head_serial};
  int n = p->head ? L + 1 : L;
  double t = mapped ? ls_mapread_time_s(f, m, s, n) : ls_mapread_serial_s(f, s, n);
  free(s);
  return t;
}

ls_flash_params ls_mapread_stream_flash(const ls_flash_params *base, const ls_mapread_params *m, double bytes,
                                        double seconds)
{
  ls_flash_params f = *base;
  f.path = LS_PATH_PAGE_CACHE;
  ls_mapread_seg s = {bytes, 0, 0};
  double lo = 1e6, hi = 1e12; /* B/s */
  for (int i = 0; i < 200 && hi / lo > 1 + 1e-6; i++) {
    double mid = sqrt(lo * hi);
    ls_flash_set_effective_bw(&f, mid);
    if (ls_mapread_time_s(&f, m, &s, 1) > seconds)
      lo = mid;
    else
      hi = mid;
  }
  ls_flash_set_effective_bw(&f, sqrt(lo * hi));
  return f;
}
