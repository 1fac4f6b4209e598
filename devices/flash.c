/* devices/flash: see flash.h.
 *
 * Model (per request k of a read, chunk c_k bytes, effective rate B = link x efficiency;
 * a read's bytes and chunk are whole bytes, a fraction rounded up, so the byte counters are
 * exact int64 sums whatever order they are added in; c_k / B is rounded to the nanosecond):
 *   issue_k  = when fewer than QD requests are outstanding on the device (FIFO over reads)
 *   arrive_k = issue_k + L_k,            L_k ~ latency distribution (parallel across slots)
 *   done_k   = max(arrive_k, link free) + c_k / B   (the link is one FIFO server, in order of
 *              (arrive_k, k))
 * A request stops being outstanding at done_k, and that is when the next one is issued. The
 * read completes at the last done_k of its requests.
 * Emergent behaviour: large chunks at QD >= 2 keep the link busy, so sequential throughput
 * -> B; small requests are latency-bound, IOPS ~= QD / (E[L] + c/B) (the IOPS limit);
 * QD 1 pays E[L] per request.
 *
 * Draws (both simulation modes): request k is the k-th issued by the device (k = 0, 1, ...).
 * Each request is "plain" with probability P = (1 - tail_prob) (Phi(3) - Phi(-3)): its
 * latency is from the lognormal body with |Z| <= 3 (empirical tables: every request is
 * plain, P = 1); otherwise it is "special": a Pareto tail draw with probability
 * tail_prob / (1 - P), else a body draw with |Z| > 3. Classes are independent across
 * requests: the gaps between specials are geometric, G_j = floor(ln U_j / ln P), U_j a
 * counter-based uniform of (K, j). Within its class a latency inverts the class's CDF at
 * V_k (below; a special picks tail or body with ls_uniform(K + 2k)). K hashes (seed,
 * "flash", stream_id). So L_k is a pure function of k, drawn only when needed.
 * The V_k, independent uniforms on (0, 1), come in blocks b of B = 32 requests
 * (k = 32 b .. 32 b + 31), drawn from the block's minimum down, so that the smallest V of a
 * block (all a fresh read's first QD = 32 need: "Whole reads" below) is one draw instead of
 * 32 hashes. With W_b, A_b from one hash of (K, "block-min", b) (its high 52 bits a uniform
 * on (0, 1), its low 5 bits a position) and U_k = ls_uniform_open(K + 2k + 1):
 *   M_b = 1 - W_b^(1/B),   V_(32 b + A_b) = M_b,   V_k = M_b + (1 - M_b) U_k otherwise.
 * Derivation: for X_1..X_B independent uniforms, P(min > x) = (1 - x)^B, so the minimum
 * has CDF F(x) = 1 - (1 - x)^B and inverse F^-1(w) = 1 - (1 - w)^(1/B); 1 - W is uniform
 * when W is, hence M_b = 1 - W^(1/B) ~ F. By symmetry the index of the minimum is uniform
 * on the B positions and independent of its value, and given the minimum m at position a
 * the other B - 1 are independent uniforms on (m, 1): (B - 1)! ways times the density
 * B (1 - m)^(B - 1) of the minimum equals B!, the joint density of the X_i on the ordered
 * region. So (V_k) has exactly the joint law of independent uniforms, as before (tested:
 * the block minimum by KS against F and against the old sampler's minimum of 32 hashes, its
 * mean against 1/(B + 1), every V_k by KS against the uniform). A read's first request takes
 * the next k that starts a block (the k skipped are never used; the specials' cursor moves
 * past them), so a fresh read's first 32 are one block; any part of a block has its
 * smallest at M_b when it holds A_b, else at the part's smallest U_k. The mixture is
 * unchanged:
 *   P(L <= x) = P F_plain(x) + (1 - P) F_special(x) = (1-p) Phi((ln x - mu)/sigma) + p F_Pareto(x).
 * Plain latencies (parametric form) come from a table of the band's inverse CDF, built at
 * creation: LAT_TAB + 1 = 4097 nodes evenly spaced in V with the latency and its exact
 * slope, a cubic Hermite curve in between. Against the exact inverse (median 50 us,
 * sigma 0.25) it is within 0.1 ns everywhere (1e-4 ns in the central 98 %), so the rounded
 * nanoseconds differ in about 4 draws in 100,000, by 1 ns. It is used only when the curve
 * is non-decreasing (checked at creation), so a plain latency still never falls as V
 * rises. Specials and empirical tables are inverted exactly. The table is a pure function of
 * (median, sigma), so a worker's runs share one per pair (ls_flash_tables).
 * Knowing that the next special is request s, the requests before it need no draw at all
 * unless a comparison needs their exact latency (below).
 *
 * Two ways to simulate the same equations (device.flash.sim):
 *  - events: every request is two engine events (arrival, then the link's completion).
 *  - recurrence (default): the equations above are iterated directly, one engine event per
 *    read (its completion). The device keeps the requests issued and not yet transferred in
 *    a small array sorted by (arrive_k, k) (at most QD entries) and the time the link frees.
 *    One step takes the first request p:
 *        start = max(arrive_p, link_free),  done = start + c_p / B,  link_free = done,
 *    then issues requests at `done` (new k, arrive = done + L_k) while slots are free, in
 *    the same FIFO order over reads. This is exactly the event model: the link serves
 *    requests in (arrival, issue) order, which is the order its queue sees them in the
 *    events (arrivals are scheduled in issue order, so equal arrival times keep k order);
 *    completions happen one at a time on the single link, so the step order is time order.
 *    Equal draws give equal done times: tests run both modes on the same overlapping reads,
 *    and on lone reads probed part-way, and compare completion times and counters to the
 *    nanosecond.
 *    Lookahead and rollback: steps are computed ahead of the engine up to the next read
 *    completion, which is scheduled as the one engine event. A step at time done depends on
 *    the outside world only through reads submitted before done (they take freed slots and
 *    their requests can arrive first). So when a read is submitted at t (or a counter is
 *    read at t) before the scheduled completion, the state is restored to the snapshot
 *    taken before the lookahead, the steps with done <= t are replayed (the draws are the
 *    same: they depend on k only), and the lookahead restarts with the new read queued.
 *    Lazy latencies: a plain L_k lies within median x exp(+-3 sigma) (an empirical table:
 *    within its first and last latency), so a plain request keeps the bounds
 *    [arrive_lo, arrive_hi]; the exact L_k (a hash and a table look-up) is computed
 *    only when a comparison needs it: ordering against a neighbour whose bounds overlap, or
 *    a start when arrive_hi > link_free (an idle link). On a busy link (layer streaming)
 *    a request waits far longer than its latency, so it starts at link_free whatever L_k
 *    is. The results are the same as with every latency computed (tested).
 *    Runs: on a saturated link (QD requests outstanding, all of the read being issued) with
 *    t_x >= hi - lo and hi <= (QD - 1) t_x (hi, lo the plain bounds; the profile's 512 KiB
 *    chunks: t_x = 205 us against 82 us and 106 us), every step pops a full chunk that has
 *    arrived and issues one plain request that goes to the end of the line and will have
 *    arrived by its turn. Up to the next special, the read's last full chunk or the lookahead
 *    limit, M steps are then done_j = link_free + (j + 1) t_x, j < M, and the line ends as
 *    the last QD requests issued: computed at once (saturated_run; the whole-byte counters
 *    move by M chunks at once). The requests popped may also be those of one earlier read,
 *    all issued (prefetch: the next layer's read queued behind this one), when they take t_x
 *    too and the run stops before that read's last request (which completes it): each step
 *    then moves a slot from the earlier read to the issuing one, and the line ends the same.
 *    Same results, tested against the events (a read always queued behind one or two
 *    others, devices.flash).
 *    Bursts: plain requests issued at one instant to an idle link (a read's first QD) only
 *    need their smallest latency exactly when t_x >= hi - lo: the others have all arrived
 *    when the first transfer ends (rec_issue). Same results, tested against the events.
 *    Drains: when no read has bytes left to issue, a step issues nothing, so the line is
 *    popped in a tight loop (advance).
 *    Whole reads: a lone read (no other read pending) whose link provably never idles until
 *    its last byte completes at S + (sum of its remaining t_x), S the first start, with
 *    every request done back to back: computed at once (whole_read, and fresh_read for a
 *    read submitted to an empty device), only in a lookahead (a sync replays the steps).
 *    Why the link never idles, with all of its full chunks taking t_x and QD in flight:
 *    (a) the QD requests in line at S (at submission: the first QD, issued together) have
 *    arrival bounds with entry j (line order) in by S + j t_x (at submission: S = t + their
 *    smallest latency, the plain ones' smallest being that of their smallest V as the plain
 *    latency rises with V; the plain ones in by t + hi <= S + t_x, and the specials, exact,
 *    in by S + j t_x at their place j in the arrival order); (b) every request still to
 *    issue has L <= (QD - 2) t_x (plain: hi; specials: a bound when it decides, else their
 *    exact latency). At the start of service j >= 1, j transfers have started and QD
 *    requests are waiting: if one of them was in line at S, some entry i <= j is still
 *    waiting and arrived by S + i t_x; otherwise the QD waiting were issued one per
 *    completion, so the oldest was issued at least
 *    (QD - 1) t_x ago while issuing, or (QD - 2) t_x + t_last ago once the read's last
 *    (shorter, t_last) chunk has been issued and maybe served: it has arrived. The counters
 *    then move by the read's totals; the state at completion (an empty line, link_free,
 *    counters, k and the specials' cursor) is the one the steps reach. The snapshot of a
 *    fresh_read is taken before its first QD are issued; a sync issues them at the
 *    submission time before replaying. Bit-identical results (full replay compared), and
 *    tested against the events at the conditions' edges.
 *    Queued reads: the read being issued (B: QD requests in line, R still to issue, the last
 *    one's transfer t_last) with one read queued behind it (C: not started, the same QD, more
 *    than QD requests; the prefetch case, the next layer's read submitted while this one
 *    streams) is done at once up to B's completion (queued_read, only in a lookahead). With
 *    every full chunk taking t_x, hi <= t_x and S the first start: (a) line entry j is in by
 *    S + j t_x and by S + R t_x + lo; (b) B's i-th request still to issue (issued at
 *    S + i t_x, i = 1..R) is plain, or a special in by min((R - i) t_x + lo, (QD - 1) t_x),
 *    and B's last (i = R) is plain. Then every request of B is in by its turn (the counting
 *    of "Whole reads"), so the link never idles until B's last; B's other requests are all in
 *    by S + R t_x + lo, when B's last can arrive at the earliest, so it is served last of B;
 *    C's first request is issued at the completion after B's last issue, S + (R + 1) t_x,
 *    so every C request arrives at or after B's last (in by S + R t_x + hi, a tie going to
 *    B's smaller k) and none is served before it. So B completes at
 *    S + (QD + R - 1) t_x + t_last; C's j-th request (j < QD - 1) is issued at
 *    S + (R + 1 + j) t_x and stands in issue order: a plain one as t_x >= hi - lo, a special
 *    when its exact latency L has back <= L <= t_x + lo, back the one before it relative to
 *    its issue (queued_specials; else the steps go on); the QD-th is issued at B's
 *    completion by rec_issue, which places it. The counters move by B's totals. Same results, tested against the events at the
 *    conditions' edges (t_x just above and below hi, QD 3 to 32, reads behind of fewer, as
 *    many and more requests than QD, frequent specials near B's end).
 *    Memos across a worker's runs (ls_flash_tables): every draw is a pure function of its
 *    counter, so the specials' gaps (gap_seq) and a fresh read's outcome (read_memo: its
 *    smallest latency and the specials it passes, keyed by its first request, bytes, chunk
 *    and queue depth, kept by the read's index in its run) are kept per stream and latency
 *    profile; runs of one seed read the same layers in the same order whatever the system,
 *    so a worker's later runs find them.
 *
 * Pure query (expected time on an idle device, n = ceil(bytes / chunk), t_x = chunk / B):
 * the read is a closed network of QD circulating requests: a delay station (mean E[L]) and
 * the link (deterministic t_x). Its throughput X comes from mean value analysis with the
 * deterministic-service residual correction (src:reiser-mva): for k = 1..QD customers
 *   R_k = t_x (1 + Q_{k-1} - U_{k-1}) + U_{k-1} t_x / 2,  X_k = k / (E[L] + R_k),
 *   Q_k = X_k R_k,  U_k = min(1, X_k t_x);   interval = max(t_x, 1 / X_QD)
 *   T = E[L] + bytes / B + (n - 1) (interval - t_x)
 * Exact in expectation at QD 1 (interval = E[L] + t_x) and in the link-bound limit
 * (interval = t_x, the profile's 512 KiB x QD 32 layer reads: within 1 %). Where the two
 * regimes meet (t_x ~ (E[L] + t_x) / QD) the simulated reads are slower than the formula:
 * requests issued together stay bunched and the last in-flight latencies are not hidden.
 * Measured on oneplus-12 over chunk 4 KiB..1 MiB x QD 1..32: within 4 % except 4 KiB at
 * QD 16 (+7 %) and QD 32 (+23 %), a small-random-read regime that weight streaming does not use.
 * Simplifications: NAND parallelism is assumed to cover the queue depth; the software path
 * (direct I/O vs page cache) is a rate efficiency on the transfer, not a per-request CPU cost;
 * reads never hit in a cache (target weights are streamed once per pass).
 * Sources: profile comments (src:ufs40-samsung: UFS 4.0 4.2 GB/s; src:phonearena-s24u:
 * ~2.5 GB/s in a phone app; src:f2fs-folios: ~2 GB/s small-folio page cache vs ~4 GB/s direct
 * I/O; src:ufs-queue: QD <= 32 on legacy UFSHCI); src:reiser-mva for mean value analysis. */
#include "devices/flash.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include "sim/rng.h"

double ls_flash_effective_bw(const ls_flash_params *f)
{
  return f->link_bandwidth * f->efficiency[f->path];
}

void ls_flash_set_effective_bw(ls_flash_params *f, double bw)
{
  f->link_bandwidth = bw / f->efficiency[f->path];
}

/* Steady time between request completions of a read kept at qd outstanding (see top). */
static double steady_interval(double L, double tx, int qd)
{
  double Q = 0, U = 0, X = 0;
  for (int k = 1; k <= qd; k++) {
    double R = tx * (1.0 + Q - U) + U * tx * 0.5;
    X = k / (L + R);
    Q = X * R;
    U = fmin(1.0, X * tx);
  }
  return fmax(tx, 1.0 / X);
}

int64_t ls_flash_read_ns_at(const ls_flash_params *f, double bytes, double chunk, int qd)
{
  if (bytes <= 0)
    return 0;
  double B = ls_flash_effective_bw(f);
  double n = ceil(bytes / chunk);
  double tx = chunk / B, L = ls_latency_mean(&f->latency);
  /* Only min(qd, n) requests can ever be outstanding. */
  int k = (double)qd < n ? qd : (int)n;
  double t = L + bytes / B + (n - 1.0) * (steady_interval(L, tx, k) - tx);
  return (int64_t)llround(t * 1e9);
}

int64_t ls_flash_read_ns(const ls_flash_params *f, double bytes)
{
  return ls_flash_read_ns_at(f, bytes, f->chunk_bytes, f->queue_depth);
}

const char *const ls_flash_sim_names[] = {"recurrence", "events", NULL};

/* ---- event model: shared state ---- */

typedef struct {
  int64_t to_issue, chunk;    /* bytes not yet issued; request size (whole bytes) */
  int64_t tx_chunk;           /* transfer time of a full chunk, ns */
  int qd, in_flight, finished;
  ls_flash_done_fn done;
  void *ctx;
  int started;                /* its first request has been issued (its k aligned) */
} fread_t;

typedef struct {
  int64_t a_lo, a_hi;         /* arrival bounds; equal once L_k is known exactly (always for
                                 special requests; plain: issue time + lat_lo_ns .. lat_hi_ns) */
  int64_t tx;                 /* transfer time, ns */
  uint64_t k;                 /* issue index (the draw's counter) */
  int64_t bytes;
  uint32_t rid;               /* read id */
} freq_t;

/* A tail draw's latency tail_start V^(-1/alpha) is at most cap when V >= u (tail_within): the
 * cap last asked (0: none) and its u. */
typedef struct {
  int64_t cap;
  double u;
} tail_cut;

/* Everything the recurrence changes, so a snapshot is one copy. Rings: q holds the requests
 * issued and not yet transferred, sorted by (arrival, k), q_cap a power of two; reads are
 * addressed by id & (r_cap - 1), ids r_first..r_next-1 pending, r_issue the oldest with
 * bytes left to issue. */
typedef struct {
  freq_t *q;
  uint32_t q_head, q_n, q_cap;
  fread_t *r;
  uint32_t r_first, r_issue, r_next, r_cap;
  int64_t link_free, busy_ns;
  int64_t bytes_read;
  uint64_t requests, next_k;
  uint64_t next_special, n_special; /* k of the next special request; specials drawn so far */
  tail_cut within, late, queued; /* special_within's caps (whole and queued reads), fresh_read's */
  int outstanding, pending;
  uint32_t n_fresh;           /* fresh reads looked up in the read memo so far (its index) */
} fstate;

typedef struct evreq evreq; /* events mode: one request in flight */
struct evreq {
  evreq *next_free, *all_next;
  ls_flash_dev *dev;
  uint64_t k;
  uint32_t rid;
  int special;
  int64_t bytes;
};

#define Z_BAND 3.0
#define Z_MAX 8.3 /* above Phi^-1(1 - 2^-53), the largest |Z| of a body draw */
#define LAT_TAB 4096 /* intervals of the plain latency table */

/* A node of the plain latency table: the latency (ns) and its slope per table interval. */
typedef struct {
  double ns, slope;
} lat_node;

/* A read computed alone converts the same sizes pass after pass (a serial pass reads a layer's
 * bytes, then maybe the head's): the arguments last checked (bytes NaN: none yet, as NaN
 * equals nothing) and what they became, whole bytes, the transfer time of a chunk and the
 * queue depth, its ring capacity reserved. Equal arguments give equal conversions, so a
 * match skips the checks and conversions without changing what is appended. */
typedef struct {
  double bytes, chunk;
  int qd, qd_used;
  int64_t b, c, tx;
} read_args;

/* The specials' gaps of one stream, remembered (see plain_gap): G_j is a pure function of
 * (ls_mix64(K), ln P, j), the key (ln P compared bit for bit), and every run of a study
 * with one seed and one latency profile asks the same G_0, G_1, ... in order, so a worker's
 * devices share one sequence through their set (ls_flash_tables). g[j] for j < n, at most
 * GAP_MAX of them (later gaps are computed each time). 32 bits hold any G_j: U_j >= 2^-53, so
 * -ln U_j < 36.8, and P <= Phi(3) - Phi(-3) (parametric; an empirical table has no specials),
 * so -ln P > 0.0027 and G_j < 13,700. refs: devices borrowing it (a set never evicts one that is
 * borrowed); used: the set's clock at its last borrowing (the least recent goes first).
 * The same sequence holds the stream's read memo (read_memo), so its key also holds the
 * latency profile's parameters, which a fresh read's outcome depends on. */
/* A whole fresh read remembered (fresh_read, "Whole reads" at the top): its outcome is a pure
 * function of the stream, the latency profile (gap_seq's key) and what the read finds: its
 * first request k0, the next special ns at k0 (a function of k0, kept as a guard), its bytes,
 * chunk, transfer time of a chunk and queue depth. The outcome: the smallest latency of the
 * first QD (the link starts at t + lmin), the next special at the end and the specials passed.
 * left = 0: an empty slot. */
typedef struct {
  uint64_t k0, ns, ns_end;
  int64_t left, chunk, tx, lmin;
  int32_t qd;
  uint32_t passed;
} read_memo;

#define READ_ORD (1u << 19) /* fresh reads a read memo keeps per run, two each (64 MiB at most) */

typedef struct {
  uint64_t mixed;
  double ln_plain;
  double lat[5];      /* median, sigma, tail_prob, tail_start, tail_alpha: the read memo's key */
  uint32_t *g;
  uint32_t n, cap;
  read_memo *reads;   /* 2 READ_ORD, allocated at the first read kept; NULL before */
  uint64_t found;     /* reads found in it */
  int refs;
  uint64_t used;
} gap_seq;

struct ls_flash_dev {
  ls_engine *e;
  ls_flash_params p;
  double ns_per_byte;         /* 1e9 / effective B/s, fixed at creation */
  uint64_t key;               /* K of the draws */
  uint64_t gap_mixed;         /* ls_mix64(K): the specials' gaps draw at ls_key2(K, j) */
  uint64_t blk_mixed;         /* the blocks' minima draw at ls_key2_mixed(blk_mixed, b) */
  double band_lo, band_w;     /* the plain band of U2: [band_lo, band_lo + band_w] */
  double p_tail_special;      /* P(tail | special) */
  double ln_plain;            /* ln P(plain); 0: every request is plain */
  gap_seq *gaps;              /* the specials' gaps drawn so far: a set's (borrowed, refs
                                 counted) or, when gaps_own, owned */
  int gaps_own;
  int64_t lat_lo_ns, lat_hi_ns; /* bounds of a plain request's latency */
  int64_t body_max_ns;        /* bound of a special body draw's latency (|Z| <= Z_MAX) */
  int64_t body_hi_lo_ns;      /* a special body draw above the band is at least this */
  int64_t tail_lo_ns;         /* a tail draw is at least this (tail_start) */
  const lat_node *plain;      /* parametric: the plain latency at V = i / LAT_TAB (see top), LAT_TAB + 1
                                 nodes: plain_own, or a shared set's (borrowed) */
  lat_node *plain_own;        /* owned; NULL when the table is a set's */
  fstate st[2];               /* working state and the snapshot before a lookahead */
  fstate *w, *snap;
  int ahead;                  /* w is past now (a lookahead); snap is the state at now's side */
  int has_wake;
  int snap_issue;             /* the snapshot is from before issuing at snap_t (fresh_read) */
  int64_t snap_t;
  int plain_tab;              /* plain latencies come from the table (parametric, monotone) */
  ls_event_id wake;
  uint32_t wake_rid;          /* the read the lookahead's last step completes */
  ls_resource *link;          /* events mode */
  evreq *free_reqs, *all_reqs;
  read_args alone;            /* the last sizes ls_flash_dev_read_alone checked */
};

#define BLK 32 /* requests per block of V draws (see the top): v_block_min takes 2^5-th roots */
#define RUN_MIN 4 /* shortest saturated run worth taking at once */
#define BURST_SPECIALS 8 /* most specials among a fresh read's first QD it takes at once */
#define MAX_BYTES 1e15 /* largest read or chunk: int64 counters of whole bytes never overflow */

static int64_t tx_ns(const ls_flash_dev *d, int64_t bytes)
{
  return (int64_t)((double)bytes * d->ns_per_byte + 0.5);
}

/* U_k as the integer it is made from: ls_uniform_open(K + 2k + 1) = (bits + 1/2) 2^-52 with
 * bits = mix64(K + 2k + 1) >> 12 < 2^52, a map that preserves order, so minima of U are
 * taken on the integers and only the one U needed is converted (the same values as comparing
 * the doubles).
 * The smallest of m and the bits of U_k over requests k .. end - 1. The minimum is taken on the whole
 * hashes and shifted once at the end (x >> 12 does not decrease as x rises, so the smallest
 * shifted hash is the smallest hash shifted), over four running minima so that the hashes of
 * neighbouring requests overlap and the loop's own work is paid once per four (a minimum does
 * not depend on the order it is taken in). This loop is a third of a layer read. */
#if defined(__GNUC__)
__attribute__((noinline)) /* inlined into the read's code, the four lanes spill to memory */
#endif
static uint64_t v_bits_min(const ls_flash_dev *d, uint64_t k, uint64_t end, uint64_t m)
{
  if (k >= end)
    return m;
  uint64_t x = d->key + 2 * k + 1, n = end - k;
  uint64_t h0 = UINT64_MAX, h1 = UINT64_MAX, h2 = UINT64_MAX, h3 = UINT64_MAX;
  for (; n >= 4; n -= 4, x += 8) {
    uint64_t a = ls_mix64(x), b = ls_mix64(x + 2), c = ls_mix64(x + 4), e = ls_mix64(x + 6);
    h0 = a < h0 ? a : h0;
    h1 = b < h1 ? b : h1;
    h2 = c < h2 ? c : h2;
    h3 = e < h3 ? e : h3;
  }
  for (; n > 0; n--, x += 2) {
    uint64_t a = ls_mix64(x);
    h0 = a < h0 ? a : h0;
  }
  h0 = h1 < h0 ? h1 : h0;
  h2 = h3 < h2 ? h3 : h2;
  uint64_t h = (h2 < h0 ? h2 : h0) >> 12; /* n >= 1 hashes were taken: h is one of them */
  return h < m ? h : m;
}

static inline double v_of_bits(uint64_t bits)
{
  return ((double)bits + 0.5) * 0x1.0p-52;
}

/* The hash of block b (see the top): W_b in its high 52 bits, A_b in its low 5. */
static inline uint64_t v_block_hash(const ls_flash_dev *d, uint64_t b)
{
  return ls_key2_mixed(d->blk_mixed, b);
}

/* Block b's smallest V, M_b = 1 - W^(1/32) (see the top), and in *arg the request that holds
 * it: W from the hash's high 52 bits, the position in the block from its low 5 (disjoint bits
 * of one hash, so independent). W^(1/32) is five square roots (each correctly rounded and
 * non-decreasing, so M_b never rises with W; a few instructions where log and expm1 cost
 * two hundred); 1 - x loses a few of M_b's low bits near W = 1, far below the latency
 * table's resolution in V. */
static inline double v_block_min(const ls_flash_dev *d, uint64_t b, uint64_t *arg)
{
  uint64_t h = v_block_hash(d, b);
  *arg = b * BLK + (h & (BLK - 1));
  return 1.0 - sqrt(sqrt(sqrt(sqrt(sqrt(v_of_bits(h >> 12))))));
}

/* V_k (see the top): M_b at the block's argmin, else M_b + (1 - M_b) U_k. */
static double v_of(const ls_flash_dev *d, uint64_t k)
{
  uint64_t a;
  double m = v_block_min(d, k / BLK, &a);
  return k == a ? m : m + (1.0 - m) * ls_uniform_open(d->key + 2 * k + 1);
}

/* The smallest V over the plain requests of k .. end - 1, the specials among them being
 * spk[0..n-1] (ascending); 2.0 when none is plain. Block by block: M_b when the part of block
 * b asked holds A_b and it is plain, else M_b + (1 - M_b) times the smallest U_k of the
 * part's plain requests (V rises with U off the argmin, so this is the V of the part's
 * smallest U: the same value v_of gives that request). */
static double plain_min(const ls_flash_dev *d, uint64_t k, uint64_t end, const uint64_t *spk, int n)
{
  if (n == 0 && k % BLK == 0 && end - k == BLK) { /* one whole block, all plain (most fresh reads) */
    uint64_t a;
    return v_block_min(d, k / BLK, &a);
  }
  double m = 2.0;
  for (int s = 0; k < end;) {
    uint64_t b = k / BLK, hi = (b + 1) * BLK < end ? (b + 1) * BLK : end, a;
    double bm = v_block_min(d, b, &a), v;
    int s0 = s, a_plain = a >= k && a < hi;
    for (; s < n && spk[s] < hi; s++)
      a_plain &= spk[s] != a;
    if (a_plain) {
      v = bm;
    } else { /* the plain runs between the part's specials */
      uint64_t u = UINT64_MAX, j = k;
      for (int i = s0; i < s; j = spk[i++] + 1)
        u = v_bits_min(d, j, spk[i], u);
      u = v_bits_min(d, j, hi, u);
      v = u == UINT64_MAX ? 2.0 : bm + (1.0 - bm) * v_of_bits(u);
    }
    m = v < m ? v : m;
    k = hi;
  }
  return m;
}

/* A plain request's latency at V = v from the table: cubic Hermite between nodes (see top),
 * kept within the plain bounds. */
static int64_t plain_latency_ns(const ls_flash_dev *d, double v)
{
  double x = v * LAT_TAB;
  int i = x < LAT_TAB ? (int)x : LAT_TAB - 1;
  double s = x - i, r = 1.0 - s;
  const lat_node *a = &d->plain[i], *b = a + 1;
  double l = r * r * ((1.0 + 2.0 * s) * a->ns + s * a->slope) + s * s * ((3.0 - 2.0 * s) * b->ns - r * b->slope);
  int64_t ns = (int64_t)(l + 0.5);
  return ns < d->lat_lo_ns ? d->lat_lo_ns : ns > d->lat_hi_ns ? d->lat_hi_ns : ns;
}

/* Latency of request k (see the top: plain requests invert U2 within the band, special ones
 * pick the tail or the body outside the band). */
static int64_t latency_ns(const ls_flash_dev *d, uint64_t k, int special)
{
  double v = v_of(d, k), u2, l;
  if (!special && d->plain_tab)
    return plain_latency_ns(d, v);
  if (!special) {
    u2 = d->band_lo + d->band_w * v;
  } else if (ls_uniform(d->key + 2 * k) < d->p_tail_special) {
    l = ls_latency_from_uniforms(&d->p.latency, 0.0, v);
    return (int64_t)(l * 1e9 + 0.5);
  } else {
    double r = v * (1.0 - d->band_w);
    u2 = fmin(r < d->band_lo ? r : r + d->band_w, 1.0 - 0x1p-53);
  }
  l = ls_latency_from_uniforms(&d->p.latency, 1.0, u2);
  return (int64_t)(l * 1e9 + 0.5);
}

#define GAP_MAX (1u << 22)   /* most gaps a sequence keeps (16 MiB); later ones are computed */
#define GAP_FILL 64          /* gaps drawn at a time past a sequence's end (GAP_MAX a multiple) */

/* Number of plain requests before special number j: geometric, by inversion, floor(ln U / ln P).
 * The quotient is positive (ln U < 0 and ln P < 0), so the conversion's truncation is the floor. */
static uint64_t gap_draw(uint64_t mixed, double ln_plain, uint64_t j)
{
  double g = log(ls_uniform_open(ls_key2_mixed(mixed, j))) / ln_plain;
  return g < 1e18 ? (uint64_t)g : UINT64_MAX / 2;
}

/* gap_draw of d's stream when d->gaps does not hold G_j yet: the sequence is drawn on, GAP_FILL
 * gaps at a time past its end (the cursor only moves on, so they are asked next; a rollback
 * or another run of the worker asks again from an earlier j), and kept: the log and the hash
 * were about a tenth of an AR cycle. Written through the const device as the oracle's rank
 * cache is: a memo of a pure function changes no value. */
static uint64_t gap_slow(const ls_flash_dev *d, uint64_t j)
{
  gap_seq *s = d->gaps;
  if (j >= (uint64_t)s->n + GAP_FILL || s->n + GAP_FILL > GAP_MAX)
    return gap_draw(d->gap_mixed, d->ln_plain, j); /* far ahead, or the sequence full */
  if (s->n + GAP_FILL > s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 64 * GAP_FILL;
    uint32_t *grown = realloc(s->g, (size_t)cap * sizeof *grown);
    if (!grown)
      return gap_draw(d->gap_mixed, d->ln_plain, j); /* out of memory: computed each time */
    s->g = grown;
    s->cap = cap;
  }
  for (uint32_t i = s->n, end = s->n + GAP_FILL; i < end; i++)
    s->g[i] = (uint32_t)gap_draw(d->gap_mixed, d->ln_plain, i); /* < 13,700 (gap_seq) */
  s->n += GAP_FILL;
  return s->g[j];
}

static void gap_free(gap_seq *s)
{
  free(s->g);
  free(s->reads);
  free(s);
}

static inline uint64_t plain_gap(const ls_flash_dev *d, uint64_t j)
{
  const gap_seq *s = d->gaps;
  return j < s->n ? s->g[j] : gap_slow(d, j);
}

/* The memo's pair of entries for the device's next fresh read (the read memo allocated at
 * first use: a device without a set, or out of memory, or past READ_ORD fresh reads in a
 * run, keeps none: NULL). Runs of one stream and profile read the same layers in the same
 * order whatever the system (every pass streams them; only whether the head is read with
 * them differs between systems), so a run's i-th fresh read is the i-th of the worker's
 * earlier runs: indexed by i, the memo is read in order, one pair of cache lines a read (a
 * table hashed by k0 was a cache and TLB miss a read: slower than the reads it saved). Two
 * entries an index, the last two reads kept there (two groups of systems, or of targets,
 * alternating). The key decides a hit, so a run whose reads differ only misses. Written
 * through the const device, as plain_gap's. */
static read_memo *read_pair(const ls_flash_dev *d, fstate *w)
{
  gap_seq *s = d->gaps;
  uint32_t i = w->n_fresh++;
  if (d->gaps_own || i >= READ_ORD)
    return NULL;
  if (!s->reads && !(s->reads = calloc(2 * (size_t)READ_ORD, sizeof *s->reads)))
    return NULL;
  return &s->reads[2 * (size_t)i];
}

static inline int memo_is(const read_memo *m, uint64_t k0, uint64_t ns, const fread_t *r)
{
  return m->k0 == k0 && m->ns == ns && m->left == r->to_issue && m->chunk == r->chunk && m->tx == r->tx_chunk &&
         m->qd == r->qd;
}

static fread_t *read_of(const fstate *w, uint32_t rid) { return &w->r[rid & (w->r_cap - 1)]; }

static int state_init(fstate *w)
{
  memset(w, 0, sizeof *w);
  w->q_cap = 32;
  w->r_cap = 8;
  w->q = malloc(w->q_cap * sizeof *w->q);
  w->r = malloc(w->r_cap * sizeof *w->r);
  return w->q && w->r ? LS_OK : LS_ENOMEM;
}

static void state_free(fstate *w)
{
  free(w->q);
  free(w->r);
}

/* Copies the line's live entries to the same positions: at most two contiguous pieces, each
 * one memcpy when it is long (a full line at every lookahead of a streamed read), entry by
 * entry when short (a serial pass's snapshots hold a few or none, where a call costs more). */
static void line_copy(freq_t *dst, const freq_t *src, uint32_t head, uint32_t n, uint32_t cap)
{
  uint32_t first = n < cap - head ? n : cap - head;
  if (n <= 8) {
    for (uint32_t i = 0, j; i < n; i++) {
      j = (head + i) & (cap - 1);
      dst[j] = src[j];
    }
    return;
  }
  memcpy(dst + head, src + head, (size_t)first * sizeof *dst);
  if (n > first)
    memcpy(dst, src, (size_t)(n - first) * sizeof *dst);
}

/* dst = src (capacities equal): live entries only, at the same positions. */
static void state_copy(fstate *dst, const fstate *src)
{
  freq_t *q = dst->q;
  fread_t *r = dst->r;
  *dst = *src;
  dst->q = q;
  dst->r = r;
  line_copy(q, src->q, src->q_head, src->q_n, src->q_cap);
  for (uint32_t id = src->r_first; id != src->r_next; id++)
    r[id & (src->r_cap - 1)] = *read_of(src, id);
}

/* Doubles the rings of both states until they hold qd requests and one more read; the
 * working state's contents move to the same ids/positions modulo the new sizes. */
static int state_reserve(ls_flash_dev *d, int qd)
{
  fstate *w = d->w;
  while (w->q_cap < (uint32_t)qd || w->r_next - w->r_first == w->r_cap) {
    int grow_q = w->q_cap < (uint32_t)qd;
    uint32_t qc = grow_q ? 2 * w->q_cap : w->q_cap, rc = grow_q ? w->r_cap : 2 * w->r_cap;
    freq_t *q = malloc(qc * sizeof *q), *q2 = malloc(qc * sizeof *q2);
    fread_t *r = malloc(rc * sizeof *r), *r2 = malloc(rc * sizeof *r2);
    if (!q || !q2 || !r || !r2) {
      free(q), free(q2), free(r), free(r2);
      return LS_ENOMEM;
    }
    for (uint32_t i = 0; i < w->q_n; i++)
      q[i] = w->q[(w->q_head + i) & (w->q_cap - 1)];
    for (uint32_t id = w->r_first; id != w->r_next; id++)
      r[id & (rc - 1)] = *read_of(w, id);
    state_free(d->w);
    state_free(d->snap);
    w->q = q, w->r = r, w->q_cap = qc, w->r_cap = rc, w->q_head = 0;
    d->snap->q = q2, d->snap->r = r2, d->snap->q_cap = qc, d->snap->r_cap = rc;
  }
  return LS_OK;
}

/* Appends a read (capacity reserved). */
static void state_add_read(fstate *w, int64_t bytes, int64_t chunk, int64_t tx_chunk, int qd,
                           ls_flash_done_fn done, void *ctx)
{
  *read_of(w, w->r_next) = (fread_t){bytes, chunk, tx_chunk, qd, 0, 0, done, ctx, 0};
  w->r_next++;
  w->pending++;
}

/* A read's first request takes the next k that starts a block (see the top), skipping the
 * specials' cursor past the k left unused. */
static inline void start_read(const ls_flash_dev *d, fstate *w, fread_t *r)
{
  if (r->started)
    return;
  r->started = 1;
  uint64_t k = (w->next_k + BLK - 1) & ~(uint64_t)(BLK - 1);
  while (w->next_special < k)
    w->next_special += 1 + plain_gap(d, ++w->n_special);
  w->next_k = k;
}

/* Takes the next request of the oldest read with bytes left, if a slot is free: its bytes,
 * read id, k and whether it is special (advancing the specials' cursor). 0 when nothing is
 * issued. */
static inline int take_request(const ls_flash_dev *d, fstate *w, int64_t *bytes, uint32_t *rid,
                               uint64_t *k, int *special)
{
  if (w->r_issue == w->r_next)
    return 0;
  fread_t *r = read_of(w, w->r_issue);
  if (w->outstanding >= r->qd)
    return 0;
  start_read(d, w, r);
  *bytes = r->to_issue < r->chunk ? r->to_issue : r->chunk;
  *rid = w->r_issue;
  *k = w->next_k++;
  *special = *k == w->next_special;
  if (*special)
    w->next_special += 1 + plain_gap(d, ++w->n_special);
  r->to_issue -= *bytes;
  r->in_flight++;
  w->outstanding++;
  if (r->to_issue <= 0)
    w->r_issue++;
  return 1;
}

/* A request's transfer is done: counters; 1 when its read has nothing left. */
static int transfer_done(fstate *w, uint32_t rid, int64_t bytes)
{
  fread_t *r = read_of(w, rid);
  w->outstanding--;
  w->bytes_read += bytes;
  w->requests++;
  r->in_flight--;
  return r->in_flight == 0 && r->to_issue <= 0;
}

/* Marks a read finished and calls its done callback (which may start reads). */
static void read_finished(ls_flash_dev *d, uint32_t rid)
{
  fstate *w = d->w;
  fread_t *r = read_of(w, rid);
  ls_flash_done_fn done = r->done;
  void *ctx = r->ctx;
  r->finished = 1;
  w->pending--;
  while (w->r_first != w->r_issue && read_of(w, w->r_first)->finished)
    w->r_first++;
  if (done)
    done(d->e, ctx);
}

/* ---- events mode ---- */

static void ev_issue(ls_flash_dev *d);

static void on_transfer(ls_engine *e, void *vq)
{
  (void)e;
  evreq *q = vq;
  ls_flash_dev *d = q->dev;
  int finished = transfer_done(d->w, q->rid, q->bytes);
  uint32_t rid = q->rid;
  q->next_free = d->free_reqs;
  d->free_reqs = q;
  ev_issue(d); /* refill the queue before user code runs, so a chained read queues behind */
  if (finished)
    read_finished(d, rid);
}

static void on_arrival(ls_engine *e, void *vq)
{
  (void)e;
  evreq *q = vq;
  ls_resource_submit(q->dev->link, tx_ns(q->dev, q->bytes), on_transfer, q, NULL);
}

static evreq *new_evreq(ls_flash_dev *d)
{
  evreq *q = d->free_reqs;
  if (q) {
    d->free_reqs = q->next_free;
    return q;
  }
  if ((q = malloc(sizeof *q))) {
    q->all_next = d->all_reqs;
    d->all_reqs = q;
  }
  return q;
}

static void ev_issue(ls_flash_dev *d)
{
  for (;;) {
    evreq *q = new_evreq(d);
    if (!q)
      return; /* out of memory: the read stalls; nothing else can be done in a callback */
    if (!take_request(d, d->w, &q->bytes, &q->rid, &q->k, &q->special)) {
      q->next_free = d->free_reqs;
      d->free_reqs = q;
      return;
    }
    q->dev = d;
    ls_engine_schedule_in(d->e, latency_ns(d, q->k, q->special), on_arrival, q, NULL, NULL);
  }
}

/* ---- recurrence mode ---- */

/* Sets a request's exact arrival. */
static inline void resolve(const ls_flash_dev *d, freq_t *x)
{
  if (x->a_lo != x->a_hi)
    x->a_lo = x->a_hi = x->a_lo - d->lat_lo_ns + latency_ns(d, x->k, 0); /* only plain ones wait */
}

/* x before y in the link's order (arrival, then k)? Exact latencies only when the bounds
 * cannot tell. */
static int req_before(const ls_flash_dev *d, freq_t *x, freq_t *y)
{
  if (x->a_hi < y->a_lo || (x->a_hi == y->a_lo && x->k < y->k))
    return 1;
  if (y->a_hi < x->a_lo || (y->a_hi == x->a_lo && y->k < x->k))
    return 0;
  resolve(d, x);
  resolve(d, y);
  return x->a_lo < y->a_lo || (x->a_lo == y->a_lo && x->k < y->k);
}

/* Inserts x (the newest request) into the line before the requests it arrives before. */
static void insert_sorted(const ls_flash_dev *d, fstate *w, freq_t *x)
{
  uint32_t m = w->q_cap - 1, i = w->q_n;
  while (i > 0 && req_before(d, x, &w->q[(w->q_head + i - 1) & m])) {
    w->q[(w->q_head + i) & m] = w->q[(w->q_head + i - 1) & m];
    i--;
  }
  w->q[(w->q_head + i) & m] = *x;
  w->q_n++;
}

/* Sorts the line from offset `from` (a burst, below) to its end by (arrival, k). */
static void sort_burst(const ls_flash_dev *d, fstate *w, uint32_t from)
{
  uint32_t m = w->q_cap - 1;
  for (uint32_t i = from + 1; i < w->q_n; i++) {
    freq_t x = w->q[(w->q_head + i) & m];
    uint32_t j = i;
    while (j > from && req_before(d, &x, &w->q[(w->q_head + j - 1) & m])) {
      w->q[(w->q_head + j) & m] = w->q[(w->q_head + j - 1) & m];
      j--;
    }
    w->q[(w->q_head + j) & m] = x;
  }
}

/* Issues requests at time t while slots are free, each inserted in link order.
 * Bursts: plain requests issued together (same time, read and size) with t_x >= hi - lo
 * (see the top) are kept with their smallest latency first and the rest in any order: the
 * first starts at max(its arrival, link_free), and by the time its transfer ends every
 * other one has arrived (arrival <= t + hi <= t + lo + t_x), so they start back to back
 * whatever their order and latencies. The smallest latency is that of the smallest V_k
 * (the plain latency rises with V_k), so one comparison of uniforms replaces the exact
 * latencies. A request that does not join the burst but may arrive before its end first
 * sorts the burst exactly. */
static inline void rec_issue(const ls_flash_dev *d, fstate *w, int64_t t)
{
  freq_t x;
  int special;
  uint32_t m = w->q_cap - 1, burst = UINT32_MAX; /* offset of the open burst's first request */
  double burst_v = 0; /* V of the burst's first request */
  while (take_request(d, w, &x.bytes, &x.rid, &x.k, &special)) {
    x.tx = tx_ns(d, x.bytes);
    if (special) {
      x.a_lo = x.a_hi = t + latency_ns(d, x.k, 1);
    } else {
      x.a_lo = t + d->lat_lo_ns;
      x.a_hi = t + d->lat_hi_ns;
    }
    freq_t *f = burst != UINT32_MAX ? &w->q[(w->q_head + burst) & m] : NULL;
    if (f && !special && x.rid == f->rid && x.tx == f->tx && x.a_lo == f->a_lo && f->a_hi == x.a_hi) {
      double v = v_of(d, x.k);
      freq_t *slot = &w->q[(w->q_head + w->q_n) & m];
      if (v < burst_v) { /* the new smallest goes first, the old first to the end */
        *slot = *f;
        *f = x;
        burst_v = v;
      } else {
        *slot = x;
      }
      w->q_n++;
      continue;
    }
    freq_t *back = w->q_n ? &w->q[(w->q_head + w->q_n - 1) & m] : NULL;
    if (back && back->a_hi > x.a_lo) { /* may arrive before the last in line: sort */
      if (burst != UINT32_MAX)
        sort_burst(d, w, burst);
      burst = UINT32_MAX;
      insert_sorted(d, w, &x);
      continue;
    }
    w->q[(w->q_head + w->q_n) & m] = x; /* the common case: last in line */
    w->q_n++;
    burst = UINT32_MAX;
    if (!special && x.tx >= d->lat_hi_ns - d->lat_lo_ns) { /* may open a burst */
      burst = w->q_n - 1;
      burst_v = v_of(d, x.k);
    }
  }
}

/* Start time of the first request in line (resolving its latency when the link may idle). */
static int64_t first_start(const ls_flash_dev *d, fstate *w)
{
  freq_t *p = &w->q[w->q_head];
  if (p->a_hi > w->link_free)
    resolve(d, p);
  return p->a_lo > w->link_free ? p->a_lo : w->link_free;
}

enum { STEP_NONE, STEP_OK, STEP_FINISH };

/* Many steps at once on a saturated link (see the top, "Runs"): returns how many (0 when
 * the preconditions do not hold; step() then goes one at a time). The counters and the
 * line end exactly as that many step() calls leave them, sums taken in the same order. */
static uint64_t saturated_run(const ls_flash_dev *d, fstate *w, int64_t limit)
{
  uint32_t n = w->q_n, m = w->q_cap - 1;
  if (n < 2 || w->r_issue == w->r_next)
    return 0;
  uint32_t rid = w->r_issue;
  fread_t *r = read_of(w, rid);
  if (w->outstanding != r->qd || (uint32_t)w->outstanding != n)
    return 0; /* not saturated: a pop would not be followed by exactly one issue */
  start_read(d, w, r); /* its next issue is this read's: k as take_request would */
  int64_t tx = r->tx_chunk, t0 = w->link_free, lo = d->lat_lo_ns, hi = d->lat_hi_ns;
  /* new requests append to the line and never wait for their arrival */
  if (tx <= 0 || hi - lo > tx || hi > (int64_t)(n - 1) * tx || limit - t0 < RUN_MIN * tx)
    return 0;
  /* issues that leave bytes to issue (full chunks), before the next special, done by limit */
  uint64_t M = r->to_issue > 0 ? (uint64_t)((r->to_issue - 1) / r->chunk) : 0;
  if (w->next_special - w->next_k < M)
    M = w->next_special - w->next_k;
  if (limit != INT64_MAX && (uint64_t)((limit - t0) / tx) < M)
    M = (uint64_t)((limit - t0) / tx);
  if (M < RUN_MIN || w->q[(w->q_head + n - 1) & m].a_hi > t0 + tx + lo)
    return 0;
  /* the requests in line that leave: full chunks of this read, or requests of one earlier
   * read (all issued) with the same transfer time but not its last, already arrived when the
   * link takes them */
  uint32_t old = rid;  /* the earlier read, if any */
  int64_t n_old = 0, old_bytes = 0, old_in = 0, due = t0; /* entry j must be in by t0 + j tx */
  for (uint32_t j = 0, pos = w->q_head; j < n && j < M; j++, pos = (pos + 1) & m, due += tx) {
    const freq_t *e = &w->q[pos];
    if (e->tx != tx || e->a_hi > due) {
      M = j; /* the run stops before the first one that does not qualify */
      break;
    }
    if (e->rid != rid) {
      if (old == rid) /* its requests in flight do not change in this loop */
        old = e->rid, old_in = read_of(w, old)->in_flight;
      if (e->rid != old || n_old + 1 >= old_in) {
        M = j; /* another read, or the earlier read's last request: it would complete it */
        break;
      }
      n_old++;
      old_bytes += e->bytes;
    }
  }
  if (M < RUN_MIN)
    return 0;
  r->to_issue -= (int64_t)M * r->chunk; /* whole bytes: the same counts as M steps */
  w->bytes_read += ((int64_t)M - n_old) * r->chunk + old_bytes;
  if (n_old) { /* slots move from the earlier read to this one */
    read_of(w, old)->in_flight -= (int)n_old;
    r->in_flight += (int)n_old;
  }
  uint64_t k0 = w->next_k;
  w->next_k += M;
  w->requests += M;
  w->link_free = t0 + (int64_t)M * tx;
  w->busy_ns += (int64_t)M * tx;
  /* new request i is issued at t0 + (i + 1) tx and stands after the ones issued before it;
   * only the last n of them are still in line */
  uint64_t i = M > n ? M - n : 0;
  int64_t t = t0 + (int64_t)(i + 1) * tx;
  for (uint32_t pos = (uint32_t)((w->q_head + n + i) & m); i < M; i++, t += tx, pos = (pos + 1) & m)
    w->q[pos] = (freq_t){t + lo, t + hi, tx, k0 + i, r->chunk, rid};
  w->q_head = (uint32_t)((w->q_head + M) & m);
  return M;
}

/* Takes the first request in line off the link, if its transfer is done by `limit` (and, with
 * keep_finish, does not complete a read); the freed slot is not refilled (step does that).
 * STEP_FINISH: it completed read *fin. */
static inline int pop(const ls_flash_dev *d, fstate *w, int64_t limit, int keep_finish, uint32_t *fin)
{
  if (w->q_n == 0)
    return STEP_NONE;
  int64_t done = first_start(d, w) + w->q[w->q_head].tx;
  const freq_t *p = &w->q[w->q_head];
  if (done > limit)
    return STEP_NONE;
  fread_t *r = read_of(w, p->rid);
  if (keep_finish && r->in_flight == 1 && r->to_issue <= 0)
    return STEP_NONE;
  w->q_head = (w->q_head + 1) & (w->q_cap - 1);
  w->q_n--;
  w->link_free = done;
  w->busy_ns += p->tx;
  if (!transfer_done(w, p->rid, p->bytes))
    return STEP_OK;
  *fin = p->rid;
  return STEP_FINISH;
}

/* One transfer, then the issues it allows (see pop). */
static int step(const ls_flash_dev *d, fstate *w, int64_t limit, int keep_finish, uint32_t *fin)
{
  int st = pop(d, w, limit, keep_finish, fin);
  if (st != STEP_NONE)
    rec_issue(d, w, w->link_free); /* the freed slot refills before the read completes */
  return st;
}

/* Whether tail draw k's latency tail_start V^(-1/alpha) is at most cap ns (cap > 0): so when
 * V >= (tail_start / cap)^alpha, taken with a relative margin of 1e-9 (far above the
 * rounding of pow), the threshold kept in c for the last cap asked; the latency itself only
 * when V is within the margin. */
static inline int tail_within(const ls_flash_dev *d, tail_cut *c, uint64_t k, int64_t cap)
{
  const ls_latency_dist *l = &d->p.latency;
  if (c->cap != cap) {
    c->cap = cap;
    c->u = pow(l->tail_start_s * 1e9 / (double)cap, l->tail_alpha) * (1.0 + 1e-9);
  }
  uint64_t b = k / BLK;
  /* V_k >= U_k except at the block's argmin, so U_k decides without M_b when it is high */
  if ((v_block_hash(d, b) & (BLK - 1)) != k - b * BLK && ls_uniform_open(d->key + 2 * k + 1) >= c->u)
    return 1;
  return v_of(d, k) >= c->u || latency_ns(d, k, 1) <= cap;
}

/* Whether special request k's latency is at most cap ns (cap > 0), computing it only when no
 * bound decides: a body draw is at most body_max_ns; a tail draw by tail_within (its cut
 * kept in c). */
static inline int special_within(const ls_flash_dev *d, tail_cut *c, uint64_t k, int64_t cap)
{
  if (d->p.latency.kind != LS_LAT_PARAMETRIC)
    return latency_ns(d, k, 1) <= cap;
  if (ls_uniform(d->key + 2 * k) < d->p_tail_special)
    return tail_within(d, c, k, cap);
  return d->body_max_ns <= cap || latency_ns(d, k, 1) <= cap;
}

/* Completes the lone read rid at once (see the top, "Whole reads"): the link starts at `start`
 * and never idles; n full chunks are in line (or issued with them), the rest is still to
 * issue from request k on, the next special being request ns (number nsp). 0 and nothing
 * changed when a special still to issue may take longer than cap; else 1 and the state at
 * the read's completion. */
static void whole_apply(const ls_flash_dev *d, fstate *w, fread_t *r, int64_t start, uint64_t n, uint64_t k,
                        int64_t left, uint64_t ns, uint64_t nsp);

static int finish_whole(const ls_flash_dev *d, fstate *w, uint32_t rid, int64_t start, uint64_t n,
                        uint64_t k, int64_t left, int64_t cap, uint64_t ns, uint64_t nsp)
{
  fread_t *r = read_of(w, rid);
  uint64_t full = (uint64_t)((left - 1) / r->chunk), kend = k + full + 1;
  for (; ns < kend; ns += 1 + plain_gap(d, ++nsp))
    if (!special_within(d, &w->within, ns, cap))
      return 0;
  whole_apply(d, w, r, start, n, k, left, ns, nsp);
  return 1;
}

/* The state at a whole read's completion (finish_whole, and a remembered fresh read). */
static void whole_apply(const ls_flash_dev *d, fstate *w, fread_t *r, int64_t start, uint64_t n, uint64_t k,
                        int64_t left, uint64_t ns, uint64_t nsp)
{
  uint64_t full = (uint64_t)((left - 1) / r->chunk), kend = k + full + 1;
  int64_t busy = (int64_t)(n + full) * r->tx_chunk + tx_ns(d, left - (int64_t)full * r->chunk);
  w->next_special = ns;
  w->n_special = nsp;
  w->next_k = kend;
  w->requests += n + full + 1;
  w->bytes_read += (int64_t)n * r->chunk + left;
  w->busy_ns += busy;
  w->link_free = start + busy;
  w->q_n = 0;
  w->outstanding = 0;
  w->r_issue++;
  r->to_issue = 0;
  r->in_flight = 0;
}

/* The rest of a lone saturated read at once, when the link provably never idles until its
 * last byte (see the top, "Whole reads"): 1 and the state at its completion (read *fin),
 * else 0 and nothing changed but exact arrivals. */
static int whole_read(const ls_flash_dev *d, fstate *w, uint32_t *fin)
{
  uint32_t n = w->q_n, m = w->q_cap - 1, rid = w->r_issue;
  if (n < 2 || rid == w->r_next || w->r_next - w->r_first != 1)
    return 0; /* not one read with bytes left to issue */
  fread_t *r = read_of(w, rid);
  int64_t tx = r->tx_chunk, cap = (int64_t)(n - 2) * tx;
  if (r->in_flight != (int)n || r->qd != (int)n || d->lat_hi_ns > cap)
    return 0; /* not saturated, or a plain latency may exceed (QD - 2) t_x */
  int64_t start = first_start(d, w);
  for (uint32_t j = 0; j < n; j++) { /* line entry j has arrived by start + j t_x */
    const freq_t *e = &w->q[(w->q_head + j) & m];
    if (e->tx != tx || e->a_hi > start + (int64_t)j * tx)
      return 0;
  }
  if (!finish_whole(d, w, rid, start, n, w->next_k, r->to_issue, cap, w->next_special, w->n_special))
    return 0;
  *fin = rid;
  return 1;
}

/* The specials among the first QD - 1 requests of the read queued behind (k from kc, issued
 * t_x apart; see queued_read), with their exact latencies L (spk, spl): each keeps those
 * requests in issue order when back <= L <= t_x + lo, back being nothing for the first (every
 * entry of the read ahead is in by its issue), hi - t_x after a plain request and L' - t_x
 * after a special. Returns how many, or -1 when one is out of order or there are more than
 * BURST_SPECIALS; *ns, *nsp: the specials' cursor moved past them. */
static int queued_specials(const ls_flash_dev *d, uint64_t kc, uint32_t n, int64_t tx, uint64_t *ns, uint64_t *nsp,
                           uint64_t *spk, int64_t *spl)
{
  int c = 0;
  for (; *ns < kc + n - 1; *ns += 1 + plain_gap(d, ++*nsp)) {
    if (c == BURST_SPECIALS)
      return -1;
    int64_t l = latency_ns(d, *ns, 1);
    int64_t back = *ns == kc ? 0 : c && spk[c - 1] + 1 == *ns ? spl[c - 1] - tx : d->lat_hi_ns - tx;
    if (l < back || l > tx + d->lat_lo_ns)
      return -1;
    spk[c] = *ns;
    spl[c++] = l;
  }
  return c;
}

/* The read being issued (B: its line full, R requests still to issue) up to its completion
 * when one read is queued behind it (C, not started, the same queue depth, more than QD
 * requests), at once (see the top, "Queued reads"): B's requests end back to back from
 * the first start S, its last (plain) one last, at S + (QD + R - 1) t_x + t_last, and C's
 * first QD - 1 (plain) are issued at the completions after B's last issue. 1 and the state
 * the steps reach at B's completion (C's QD-th issued there by rec_issue), else 0 and
 * nothing changed but exact arrivals. */
static int queued_read(const ls_flash_dev *d, fstate *w, uint32_t *fin)
{
  uint32_t n = w->q_n, m = w->q_cap - 1, rid = w->r_issue;
  if (n < 3 || rid == w->r_next || rid != w->r_first || w->r_next - rid != 2)
    return 0; /* not the oldest read being issued with one read behind it */
  fread_t *r = read_of(w, rid), *c = read_of(w, rid + 1);
  int64_t tx = r->tx_chunk, lo = d->lat_lo_ns, hi = d->lat_hi_ns, in_time = (int64_t)(n - 1) * tx;
  if (r->in_flight != (int)n || r->qd != (int)n || c->qd != (int)n || c->started || hi > tx ||
      (c->to_issue - 1) / c->chunk < (int64_t)n)
    return 0; /* not saturated, C not QD + 1 requests, or a plain B may arrive after C's first */
  uint64_t R = (uint64_t)((r->to_issue - 1) / r->chunk) + 1, kl = w->next_k + R - 1; /* B's last */
  uint64_t ns = w->next_special, nsp = w->n_special;
  for (; ns <= kl; ns += 1 + plain_gap(d, ++nsp)) { /* B's specials: in by their turn and before */
    int64_t before = (int64_t)(kl - ns) * tx + lo; /* B's last can arrive, kl - ns issues later */
    if (ns == kl || !special_within(d, &w->queued, ns, before < in_time ? before : in_time))
      return 0;
  }
  uint64_t kc = (kl + BLK) & ~(uint64_t)(BLK - 1); /* C's first k (start_read) */
  for (; ns < kc; ns += 1 + plain_gap(d, ++nsp))
    ;
  int64_t S = first_start(d, w), bytes = 0;
  for (uint32_t j = 0; j < n; j++) { /* in by its turn and before B's last can arrive */
    const freq_t *e = &w->q[(w->q_head + j) & m];
    if (e->tx != tx || e->a_hi > S + (int64_t)j * tx || e->a_hi > S + (int64_t)R * tx + lo)
      return 0;
    bytes += e->bytes;
  }
  uint64_t spk[BURST_SPECIALS];
  int64_t spl[BURST_SPECIALS];
  int nc = queued_specials(d, kc, n, tx, &ns, &nsp, spk, spl);
  if (nc < 0)
    return 0;
  int64_t last = r->to_issue - (int64_t)(R - 1) * r->chunk, busy = (int64_t)(n + R - 1) * tx + tx_ns(d, last);
  w->requests += n + R;
  w->bytes_read += bytes + r->to_issue;
  w->busy_ns += busy;
  w->link_free = S + busy;
  r->to_issue = 0;
  r->in_flight = 0;
  w->r_issue = rid + 1;
  c->started = 1;
  c->to_issue -= (int64_t)(n - 1) * c->chunk;
  c->in_flight = (int)n - 1;
  w->outstanding = (int)n - 1;
  w->next_special = ns;
  w->n_special = nsp;
  w->next_k = kc + n - 1;
  w->q_head = 0;
  w->q_n = n - 1;
  for (uint32_t j = 0, s = 0; j + 1 < n; j++) { /* C's j-th issued at S + (R + 1 + j) t_x */
    int64_t t = S + (int64_t)(R + 1 + j) * tx;
    freq_t e = {t + lo, t + hi, c->tx_chunk, kc + j, c->chunk, rid + 1};
    if (s < (uint32_t)nc && spk[s] == kc + j)
      e.a_lo = e.a_hi = t + spl[s++];
    w->q[j] = e;
  }
  rec_issue(d, w, w->link_free);
  *fin = rid;
  return 1;
}

/* Whether fresh_read may leave special k's latency unknown (parametric latencies): it is at
 * least lmin, so not the burst's smallest, and at most cap, so in time at any place in the
 * arrival order. A tail draw is at least tail_start; a body draw above the band (V_k says
 * which side) at least body_hi_lo_ns; below the band it may be the smallest: 0. */
static int special_late(const ls_flash_dev *d, fstate *w, uint64_t k, int64_t lmin, int64_t cap)
{
  if (ls_uniform(d->key + 2 * k) < d->p_tail_special)
    return d->tail_lo_ns >= lmin && tail_within(d, &w->late, k, cap);
  if (v_of(d, k) * (1.0 - d->band_w) < d->band_lo) /* latency_ns's test of the side */
    return 0;
  return d->body_hi_lo_ns >= lmin && (d->body_max_ns <= cap || latency_ns(d, k, 1) <= cap);
}

/* The specials spk[0..n-1] among a fresh read's first qd placed by their exact latencies: the
 * smallest lowers *lmin (the burst's start), and special i in ascending latency, arriving
 * after S + t_x, comes after every plain one, at place qd - n + i of the arrival order, so
 * it must be in by S + that place's t_x. 1 when every one is. */
static int specials_placed(const ls_flash_dev *d, const uint64_t *spk, int n, int64_t *lmin, int qd, int64_t tx)
{
  int64_t sl[BURST_SPECIALS]; /* ascending */
  for (int j = 0; j < n; j++) {
    int64_t l = latency_ns(d, spk[j], 1);
    int i = j;
    for (; i > 0 && sl[i - 1] > l; i--)
      sl[i] = sl[i - 1];
    sl[i] = l;
  }
  if (sl[0] < *lmin)
    *lmin = sl[0];
  for (int i = 0; i < n; i++) {
    int64_t pos = qd - n + i > 1 ? qd - n + i : 1;
    if (sl[i] > *lmin + pos * tx)
      return 0;
  }
  return 1;
}

/* A read just submitted at t to an empty device, done at once without issuing its first QD
 * requests one by one (see the top, "Whole reads"): the j-th of them to arrive must be in by
 * S + j t_x, S = t + the smallest of their latencies (the plain ones' smallest is the plain
 * latency of their smallest V; the plain ones arrive by t + hi); specials are placed by
 * their exact latencies (specials_placed), unless bounds show that every one of them is
 * neither the smallest nor later than its earliest possible place allows (special_late:
 * at most the allowance of place max(QD - n, 1) without S, which S >= t only widens), when
 * the latencies are not needed. 1 and the state at its completion, else 0 and nothing
 * changed. */
static int fresh_read(const ls_flash_dev *d, fstate *w, int64_t t, uint32_t *fin)
{
  uint32_t rid = w->r_issue;
  if (w->q_n || w->r_next - w->r_first != 1 || rid != w->r_first || w->link_free > t || !d->plain_tab)
    return 0;
  fread_t *r = read_of(w, rid);
  int64_t tx = r->tx_chunk, cap = (int64_t)(r->qd - 2) * tx;
  if (r->qd < 2 || (r->to_issue - 1) / r->chunk < r->qd || d->lat_hi_ns > cap)
    return 0; /* no request beyond the first QD, or a plain latency may exceed (QD - 2) t_x */
  start_read(d, w, r);
  uint64_t k0 = w->next_k, ns = w->next_special, nsp = w->n_special;
  read_memo *pair = read_pair(d, w), *m = pair && memo_is(pair, k0, ns, r) ? pair
                                          : pair && memo_is(pair + 1, k0, ns, r) ? pair + 1 : NULL;
  if (m) { /* remembered: the same outcome */
    whole_apply(d, w, r, t + m->lmin, (uint64_t)r->qd, k0 + (uint64_t)r->qd, r->to_issue - (int64_t)r->qd * r->chunk,
                m->ns_end, nsp + m->passed);
    d->gaps->found++;
    *fin = rid;
    return 1;
  }
  read_memo key = {k0, ns, 0, r->to_issue, r->chunk, tx, 0, r->qd, 0};
  uint64_t nsp0 = nsp;
  uint64_t spk[BURST_SPECIALS] = {0}, kend = k0 + (uint64_t)r->qd; /* the specials' k, ascending */
  int n_sp = 0;
  for (; ns < kend; ns += 1 + plain_gap(d, ++nsp)) {
    if (n_sp == BURST_SPECIALS)
      return 0;
    spk[n_sp++] = ns;
  }
  double vmin = plain_min(d, k0, kend, spk, n_sp); /* the plain ones' smallest V (< 1 when any) */
  int64_t lmin = vmin < 2.0 ? plain_latency_ns(d, vmin) : INT64_MAX;
  int late = n_sp == 0 || (vmin < 2.0 && lmin >= 0);
  for (int i = 0; late && i < n_sp; i++)
    late = special_late(d, w, spk[i], lmin, (r->qd - n_sp > 1 ? r->qd - n_sp : 1) * tx);
  if (!late && !specials_placed(d, spk, n_sp, &lmin, r->qd, tx))
    return 0;
  if (vmin < 2.0 && d->lat_hi_ns > lmin + tx)
    return 0; /* a plain one may arrive later than S + t_x */
  if (!finish_whole(d, w, rid, t + lmin, (uint64_t)r->qd, k0 + (uint64_t)r->qd,
                    r->to_issue - (int64_t)r->qd * r->chunk, cap, ns, nsp))
    return 0;
  if (pair) { /* the newest first, the older moved to the second entry (none in a first run) */
    key.ns_end = w->next_special;
    key.passed = (uint32_t)(w->n_special - nsp0);
    key.lmin = lmin;
    if (pair[0].left)
      pair[1] = pair[0];
    pair[0] = key;
  }
  *fin = rid;
  return 1;
}

/* Every step it can take by `limit` (keep_finish: none that completes a read); STEP_FINISH
 * when the last one completed read *fin, else STEP_NONE. When no read has bytes left to issue
 * (a read's last requests draining) a step issues nothing, so the pops run back to back.
 * Without a limit (a lookahead) a lone read, or one with a read queued behind it, is finished
 * at once when it can be (whole_read, queued_read), tried first and after each saturated run. */
static int advance(const ls_flash_dev *d, fstate *w, int64_t limit, int keep_finish, uint32_t *fin)
{
  int st, whole = limit == INT64_MAX && !keep_finish;
  if (whole && (whole_read(d, w, fin) || queued_read(d, w, fin)))
    return STEP_FINISH;
  do {
    if (w->r_issue == w->r_next) {
      while ((st = pop(d, w, limit, keep_finish, fin)) == STEP_OK)
        ;
      return st;
    }
    if (saturated_run(d, w, limit)) {
      if (whole && (whole_read(d, w, fin) || queued_read(d, w, fin)))
        return STEP_FINISH;
      st = STEP_OK;
    } else {
      st = step(d, w, limit, keep_finish, fin);
    }
  } while (st == STEP_OK);
  return st;
}

static void on_wake(ls_engine *e, void *vd);

/* Schedules the completion of read rid at the working state's link_free. */
static int schedule_wake(ls_flash_dev *d, uint32_t rid, ls_error *err)
{
  d->wake_rid = rid;
  int rc = ls_engine_schedule(d->e, d->w->link_free, on_wake, d, &d->wake, err);
  d->has_wake = rc == LS_OK;
  return rc;
}

/* Looks ahead to the next read completion and schedules it (nothing when idle or already
 * scheduled). */
static int lookahead(ls_flash_dev *d, ls_error *err)
{
  if (d->has_wake || d->w->q_n == 0)
    return LS_OK;
  state_copy(d->snap, d->w);
  d->ahead = 1;
  uint32_t fin = 0;
  if (advance(d, d->w, INT64_MAX, 0, &fin) != STEP_FINISH) { /* cannot happen: a read's last transfer completes it */
    fstate *x = d->w;
    d->w = d->snap;
    d->snap = x;
    d->ahead = 0;
    return ls_error_set(err, LS_ESTATE, "flash: requests in flight but no read completes");
  }
  d->snap_issue = 0;
  return schedule_wake(d, fin, err);
}

/* Brings the working state to time t (the engine's now): drops a lookahead and replays the
 * steps done by t that complete no read (a completion at t keeps its scheduled event). */
static void sync_to(ls_flash_dev *d, int64_t t)
{
  if (!d->ahead)
    return;
  fstate *x = d->w;
  d->w = d->snap;
  d->snap = x;
  d->ahead = 0;
  if (d->has_wake)
    ls_engine_cancel(d->e, d->wake);
  d->has_wake = 0;
  if (d->snap_issue) /* the snapshot is from before a submission's issues */
    rec_issue(d, d->w, d->snap_t);
  d->snap_issue = 0;
  uint32_t fin;
  advance(d, d->w, t, 1, &fin);
}

static void on_wake(ls_engine *e, void *vd)
{
  (void)e;
  ls_flash_dev *d = vd;
  d->has_wake = 0;
  d->ahead = 0; /* the lookahead ended exactly now: it is the state */
  d->snap_issue = 0;
  read_finished(d, d->wake_rid);
  lookahead(d, NULL);
}

/* ---- plain latency tables ---- */

/* The plain latency table: L(V) = median exp(sigma Phi^-1(band_lo + band_w V)) and its slope
 * dL/dV = L sigma band_w / phi(Z) times the interval 1 / LAT_TAB. Used only when the cubic
 * is non-decreasing on every interval (Fritsch-Carlson: slopes over the secant a, b >= 0 with
 * a^2 + b^2 <= 9), so a plain latency never falls as V rises: the return value.
 * A pure function of (median, sigma): the band is the constant Z_BAND's, and
 * ls_latency_from_uniforms's body branch (u_pick 1) reads nothing else. */
static int plain_table_fill(const ls_latency_dist *l, double band_lo, double band_w, lat_node *t)
{
  for (int i = 0; i <= LAT_TAB; i++) {
    double z = gsl_cdf_ugaussian_Pinv(band_lo + band_w * i / LAT_TAB);
    double ns = ls_latency_from_uniforms(l, 1.0, band_lo + band_w * i / LAT_TAB) * 1e9;
    t[i] = (lat_node){ns, ns * l->sigma * band_w / gsl_ran_ugaussian_pdf(z) / LAT_TAB};
  }
  int monotone = 1;
  for (int i = 0; i < LAT_TAB; i++) {
    double sec = t[i + 1].ns - t[i].ns, a = t[i].slope / sec, b = t[i + 1].slope / sec;
    if (!(sec > 0 && a >= 0 && b >= 0 && a * a + b * b <= 9.0))
      monotone = 0;
  }
  return monotone;
}

/* One table of a set: its key (median, sigma), compared bit for bit (memcmp), so a table is
 * reused only for the very same parameters; whether it is monotone; its nodes. */
typedef struct {
  double key[2];
  int monotone;
  lat_node t[LAT_TAB + 1];
} plain_entry;

#define GAPS_KEEP 4 /* gap sequences a set keeps (one per seed and profile a worker meets) */

struct ls_flash_tables {
  plain_entry **e; /* owned, n of cap */
  int n, cap;
  gap_seq *gaps[GAPS_KEEP]; /* owned, gn of them; LRU eviction among those not borrowed */
  int gn, gaps_built;
  uint64_t clock;
};

int ls_flash_tables_create(ls_flash_tables **out, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  return *out ? LS_OK : ls_error_set(err, LS_ENOMEM, "flash: out of memory");
}

void ls_flash_tables_free(ls_flash_tables *t)
{
  if (!t)
    return;
  for (int i = 0; i < t->n; i++)
    free(t->e[i]);
  free(t->e);
  for (int i = 0; i < t->gn; i++)
    gap_free(t->gaps[i]);
  free(t);
}

int ls_flash_tables_count(const ls_flash_tables *t) { return t->n; }
int ls_flash_tables_gaps_held(const ls_flash_tables *t) { return t->gn; }
int ls_flash_tables_gaps_built(const ls_flash_tables *t) { return t->gaps_built; }
uint64_t ls_flash_tables_reads_found(const ls_flash_tables *t)
{
  uint64_t n = 0;
  for (int i = 0; i < t->gn; i++)
    n += t->gaps[i]->found;
  return n;
}

/* d's gap sequence: the set's for d's (ls_mix64(K), ln P) when it holds one, else a new one,
 * kept in the set in a free place or in that of the least recently borrowed one no device
 * borrows (set NULL, or every kept one borrowed: d owns it). */
static int gap_table(ls_flash_dev *d, ls_flash_tables *set)
{
  const ls_latency_dist *l = &d->p.latency;
  gap_seq key = {.mixed = d->gap_mixed, .ln_plain = d->ln_plain,
                 .lat = {l->median_s, l->sigma, l->tail_prob, l->tail_start_s, l->tail_alpha}};
  int slot = -1;
  for (int i = 0; set && i < set->gn; i++) {
    gap_seq *x = set->gaps[i];
    if (x->mixed == key.mixed && memcmp(&x->ln_plain, &key.ln_plain, sizeof key.ln_plain) == 0 &&
        memcmp(x->lat, key.lat, sizeof key.lat) == 0) {
      x->refs++;
      x->used = ++set->clock;
      d->gaps = x;
      return LS_OK;
    }
    if (x->refs == 0 && (slot < 0 || x->used < set->gaps[slot]->used))
      slot = i;
  }
  gap_seq *x = malloc(sizeof *x);
  if (!x)
    return LS_ENOMEM;
  *x = key;
  d->gaps = x;
  d->gaps_own = !set || (set->gn == GAPS_KEEP && slot < 0);
  if (d->gaps_own)
    return LS_OK;
  if (set->gn < GAPS_KEEP) {
    slot = set->gn++;
  } else {
    gap_free(set->gaps[slot]);
  }
  x->refs = 1;
  x->used = ++set->clock;
  set->gaps[slot] = x;
  set->gaps_built++;
  return LS_OK;
}

/* d's plain table (parametric latencies): the set's for d's (median, sigma) when it holds
 * one, else built, and kept in the set (set NULL: d owns it). */
static int plain_table(ls_flash_dev *d, ls_flash_tables *set)
{
  const ls_latency_dist *l = &d->p.latency;
  double key[2] = {l->median_s, l->sigma};
  for (int i = 0; set && i < set->n; i++)
    if (memcmp(set->e[i]->key, key, sizeof key) == 0) {
      d->plain = set->e[i]->t;
      d->plain_tab = set->e[i]->monotone;
      return LS_OK;
    }
  if (!set) {
    if (!(d->plain_own = malloc((LAT_TAB + 1) * sizeof *d->plain_own)))
      return LS_ENOMEM;
    d->plain_tab = plain_table_fill(l, d->band_lo, d->band_w, d->plain_own);
    d->plain = d->plain_own;
    return LS_OK;
  }
  if (set->n == set->cap) {
    int cap = set->cap ? 2 * set->cap : 4;
    plain_entry **e = realloc(set->e, (size_t)cap * sizeof *e);
    if (!e)
      return LS_ENOMEM;
    set->e = e;
    set->cap = cap;
  }
  plain_entry *x = malloc(sizeof *x);
  if (!x)
    return LS_ENOMEM;
  memcpy(x->key, key, sizeof key);
  x->monotone = plain_table_fill(l, d->band_lo, d->band_w, x->t);
  set->e[set->n++] = x;
  d->plain = x->t;
  d->plain_tab = x->monotone;
  return LS_OK;
}

/* ---- public ---- */

int ls_flash_dev_create(ls_flash_dev **out, ls_engine *e, const ls_flash_params *p, uint64_t seed,
                        uint64_t stream_id, ls_error *err)
{
  return ls_flash_dev_create_shared(out, e, p, seed, stream_id, NULL, err);
}

int ls_flash_dev_create_shared(ls_flash_dev **out, ls_engine *e, const ls_flash_params *p, uint64_t seed,
                               uint64_t stream_id, ls_flash_tables *tabs, ls_error *err)
{
  *out = NULL;
  if (!(ls_flash_effective_bw(p) > 0) || !(p->chunk_bytes > 0) || p->queue_depth < 1)
    return ls_error_set(err, LS_EINVALID, "flash: bandwidth, chunk and queue depth must be positive");
  ls_flash_dev *d = calloc(1, sizeof *d);
  if (!d)
    return ls_error_set(err, LS_ENOMEM, "flash: out of memory");
  d->e = e;
  d->p = *p;
  d->ns_per_byte = 1e9 / ls_flash_effective_bw(p);
  d->key = ls_key2(ls_key_str(ls_mix64(seed), "flash"), stream_id);
  d->gap_mixed = ls_mix64(d->key);
  d->blk_mixed = ls_mix64(ls_key_str(d->key, "block-min"));
  const ls_latency_dist *l = &p->latency;
  if (l->kind == LS_LAT_EMPIRICAL) { /* every request is plain: the whole table bounds it */
    d->band_lo = 0.0;
    d->band_w = 1.0;
    d->lat_lo_ns = (int64_t)floor(l->x_s[0] * 1e9) - 1;
    d->lat_hi_ns = (int64_t)ceil(l->x_s[l->n - 1] * 1e9) + 1;
  } else { /* bounds a little wider than the band's latencies, against rounding */
    d->band_lo = gsl_cdf_ugaussian_P(-Z_BAND);
    d->band_w = gsl_cdf_ugaussian_P(Z_BAND) - d->band_lo;
    d->lat_lo_ns = (int64_t)floor(l->median_s * exp(-l->sigma * (Z_BAND + 1e-3)) * 1e9) - 1;
    d->lat_hi_ns = (int64_t)ceil(l->median_s * exp(l->sigma * (Z_BAND + 1e-3)) * 1e9) + 1;
    d->body_max_ns = (int64_t)ceil(l->median_s * exp(l->sigma * Z_MAX) * 1e9) + 1;
    d->body_hi_lo_ns = (int64_t)floor(l->median_s * exp(l->sigma * (Z_BAND - 1e-3)) * 1e9) - 1;
    d->tail_lo_ns = (int64_t)floor(l->tail_start_s * 1e9) - 1;
    if (plain_table(d, tabs)) {
      ls_flash_dev_free(d);
      return ls_error_set(err, LS_ENOMEM, "flash: out of memory");
    }
  }
  double tail = l->kind == LS_LAT_EMPIRICAL ? 0.0 : l->tail_prob, plain = (1.0 - tail) * d->band_w;
  d->p_tail_special = plain < 1.0 ? tail / (1.0 - plain) : 0.0;
  d->ln_plain = log(plain);
  if (gap_table(d, tabs)) {
    ls_flash_dev_free(d);
    return ls_error_set(err, LS_ENOMEM, "flash: out of memory");
  }
  d->w = &d->st[0];
  d->snap = &d->st[1];
  d->alone.bytes = NAN;
  int rc = state_init(d->w) || state_init(d->snap) ? ls_error_set(err, LS_ENOMEM, "flash: out of memory") : LS_OK;
  d->w->next_special = d->ln_plain < 0 ? plain_gap(d, 0) : UINT64_MAX;
  if (!rc && p->sim == LS_FLASH_SIM_EVENTS)
    rc = ls_resource_create(&d->link, e, "flash.link", 1, err);
  if (rc) {
    ls_flash_dev_free(d);
    return rc;
  }
  *out = d;
  return LS_OK;
}

void ls_flash_dev_free(ls_flash_dev *d)
{
  if (!d)
    return;
  if (d->has_wake)
    ls_engine_cancel(d->e, d->wake);
  ls_resource_free(d->link);
  state_free(&d->st[0]);
  state_free(&d->st[1]);
  free(d->plain_own);
  if (d->gaps && d->gaps_own) {
    gap_free(d->gaps);
  } else if (d->gaps) {
    d->gaps->refs--;
  }
  /* Requests may still be referenced by pending events when the engine was not run to the
   * end; every one ever allocated is on the all_reqs list. */
  for (evreq *q = d->all_reqs, *n; q; q = n) {
    n = q->all_next;
    free(q);
  }
  free(d);
}

/* A read's sizes checked and its chunk defaulted (the profile's when <= 0). */
static int check_sizes(const ls_flash_dev *d, double bytes, double *chunk, ls_error *err)
{
  if (!(bytes > 0 && bytes <= MAX_BYTES))
    return ls_error_set(err, LS_ERANGE, "flash read: bytes must be in (0, %g] (got %g)", MAX_BYTES, bytes);
  *chunk = *chunk > 0 ? *chunk : d->p.chunk_bytes;
  if (!(*chunk <= MAX_BYTES))
    return ls_error_set(err, LS_ERANGE, "flash read: chunk must be <= %g bytes (got %g)", MAX_BYTES, *chunk);
  return LS_OK;
}

/* ceil(x) for 0 < x <= MAX_BYTES (checked), without the library's general sequence: the
 * conversion truncates, one more byte when that dropped a fraction. */
static int64_t whole_bytes(double x)
{
  int64_t b = (int64_t)x;
  return b + ((double)b < x);
}

/* Appends a checked read to the working state (qd <= 0: the profile's), in whole bytes (a
 * partial byte is read as a byte), so the counters are exact integers. */
/* A read's sizes (checked by check_sizes) as the ring takes them: whole bytes, the transfer
 * time of a chunk, the queue depth (the device's when qd <= 0), its ring capacity reserved.
 * *a is written only on success. */
static int convert_read(ls_flash_dev *d, double bytes, double chunk, int qd, read_args *a, ls_error *err)
{
  int q = qd > 0 ? qd : d->p.queue_depth;
  if (state_reserve(d, q))
    return ls_error_set(err, LS_ENOMEM, "flash read: out of memory");
  int64_t c = whole_bytes(chunk);
  *a = (read_args){bytes, chunk, qd, q, whole_bytes(bytes), c, tx_ns(d, c)};
  return LS_OK;
}

static int append_read(ls_flash_dev *d, double bytes, double chunk, int qd, ls_flash_done_fn done, void *ctx,
                       ls_error *err)
{
  read_args a;
  int rc = convert_read(d, bytes, chunk, qd, &a, err);
  if (!rc)
    state_add_read(d->w, a.b, a.c, a.tx, a.qd_used, done, ctx);
  return rc;
}

int ls_flash_dev_read_at(ls_flash_dev *d, double bytes, double chunk, int qd, ls_flash_done_fn done,
                         void *ctx, ls_error *err)
{
  int rc = check_sizes(d, bytes, &chunk, err);
  if (rc)
    return rc;
  int64_t now = ls_engine_now(d->e);
  sync_to(d, now);
  if ((rc = append_read(d, bytes, chunk, qd, done, ctx, err)))
    return rc;
  if (d->link) {
    ev_issue(d);
    return LS_OK;
  }
  if (!d->has_wake && d->w->q_n == 0) { /* a read on an empty device may be done at once
                                           (fresh_read; nothing in line is its first test) */
    uint32_t fin;
    state_copy(d->snap, d->w);
    if (fresh_read(d, d->w, now, &fin)) {
      d->ahead = 1;
      d->snap_issue = 1;
      d->snap_t = now;
      return schedule_wake(d, fin, err);
    }
  }
  rec_issue(d, d->w, now);
  return lookahead(d, err);
}

int ls_flash_dev_can_read_alone(const ls_flash_dev *d)
{
  return !d->link && !d->has_wake && !d->ahead && d->w->pending == 0;
}

/* The steps ls_flash_dev_read_at and the wake of its completion take for a read submitted at
 * t to an idle device (fresh_read, else the issues and the lookahead's advance, then
 * read_finished), in the same order, without the snapshot no one will go back to. */
int ls_flash_dev_read_alone(ls_flash_dev *d, double bytes, double chunk, int qd, int64_t t, int64_t *done_at,
                            ls_error *err)
{
  *done_at = -1;
  read_args *a = &d->alone;
  int rc, same = bytes == a->bytes && chunk == a->chunk && qd == a->qd;
  double c = chunk;
  if (!same && (rc = check_sizes(d, bytes, &c, err)))
    return rc;
  if (!ls_flash_dev_can_read_alone(d) || t < ls_engine_now(d->e))
    return ls_error_set(err, LS_ESTATE, "flash read: a read computed alone needs an idle device (recurrence "
                        "mode, no read pending) and a start no earlier than now");
  if (!same) {
    if ((rc = convert_read(d, bytes, c, qd, a, err)))
      return rc;
    a->chunk = chunk; /* the key is the argument as given, before check_sizes */
  }
  /* no read pending: every read is finished and dropped from the ring, which has room, and
   * its capacities only grow, so a->qd_used's reservation holds */
  state_add_read(d->w, a->b, a->c, a->tx, a->qd_used, NULL, NULL);
  uint32_t fin = 0;
  if (!fresh_read(d, d->w, t, &fin)) {
    rec_issue(d, d->w, t);
    if (advance(d, d->w, INT64_MAX, 0, &fin) != STEP_FINISH) /* cannot happen, as in lookahead */
      return ls_error_set(err, LS_ESTATE, "flash: requests in flight but no read completes");
  }
  *done_at = d->w->link_free;
  read_finished(d, fin);
  return LS_OK;
}

uint64_t ls_flash_dev_special_gap(const ls_flash_dev *d, uint64_t j) { return plain_gap(d, j); }

double ls_flash_dev_v_min(const ls_flash_dev *d, uint64_t k, uint64_t n)
{
  return n == 1 ? v_of(d, k) : plain_min(d, k, k + n, NULL, 0);
}

int ls_flash_dev_read(ls_flash_dev *d, double bytes, ls_flash_done_fn done, void *ctx, ls_error *err)
{
  return ls_flash_dev_read_at(d, bytes, 0, 0, done, ctx, err);
}

/* The working state at now (recurrence: the lookahead is dropped and redone after). */
static fstate *state_now(ls_flash_dev *d)
{
  sync_to(d, ls_engine_now(d->e));
  return d->w;
}

double ls_flash_dev_bytes_read(ls_flash_dev *d)
{
  double b = (double)state_now(d)->bytes_read;
  lookahead(d, NULL);
  return b;
}

uint64_t ls_flash_dev_requests(ls_flash_dev *d)
{
  uint64_t n = state_now(d)->requests;
  lookahead(d, NULL);
  return n;
}

int64_t ls_flash_dev_link_busy_ns(ls_flash_dev *d)
{
  if (d->link)
    return ls_resource_busy_ns(d->link);
  fstate *w = state_now(d);
  int64_t busy = w->busy_ns, now = ls_engine_now(d->e);
  if (w->q_n > 0) { /* the transfer in progress counts up to now, as a resource's does */
    int64_t start = first_start(d, w);
    if (start < now)
      busy += now - start;
  }
  lookahead(d, NULL);
  return busy;
}

int ls_flash_dev_pending(const ls_flash_dev *d) { return d->w->pending; }
