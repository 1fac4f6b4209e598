/* workloads/oracle: the synthetic token oracle (docs/ARCHITECTURE.md, "The token oracle").
 *
 * Text and keys. For prompt p the true text has canonical node keys
 *   K(t) = key2(B_p, t),  B_p = LS_KEY(s, TEXT, p),   t = text position,
 * s = key_str(key_str(seed, dataset id), target id): each dataset and target has its own
 * texts, the same for every system and draft model (common random numbers within a
 * configuration, independent samples across configurations).
 * where t = 0 is the prompt's last token and t = 1.. are generated tokens. A cycle rooted at
 * position pos has root key K(pos); a node at depth d of its tree stands for position pos+d.
 * The child of rank r of node (k, d) is K(pos+d+1) when k = K(pos+d) and r is the true rank
 * there (the target's token), and key2(key2(k, CHILD), r) otherwise (off the true path).
 * So true-path nodes get identical draws whatever position a cycle starts at (all systems
 * decode the same text), and every draw is a pure function of (seed, p, t, path).
 *
 * Latent regime. Per prompt, a two-state Markov chain s_t in {easy, hard} along the text:
 * P(easy->hard) = a, P(hard->easy) = b, s_0 from the stationary law (P(hard) = a/(a+b)), each
 * step one counter-based uniform. Drawn per prompt as far as it is asked (regime_at), up to
 * output_len + MARGIN positions (deeper positions reuse the last state). Mean run lengths 1/a and 1/b make
 * acceptance bursty, as observed in real decoding (easy boilerplate vs hard content).
 *
 * Draft probabilities at a node (key k, position t, regime s), K = LS_VIEW_TOPK_MAX:
 *   q_1 = logistic(mu_s + sd_s * z),  z = Phi^-1(u(k, TOP1))  (a logit-normal, a Beta look-alike
 *         that needs one normal draw instead of a Gamma rejection loop);
 *   ranks 2..K: stick-breaking of the remaining mass 1 - q_1 with v_j ~ Beta(1, c_s) drawn by
 *         inverse CDF v = 1 - (1-u)^(1/c_s); the pieces are sorted descending and capped by
 *         their predecessor so the list is descending (its sum stays <= 1).
 * Always all K values are computed, so a request for k < K returns a prefix of the same list
 * (a request for k <= 4 at a node whose true rank is not drawn from it takes that prefix
 * without sorting all K - 1 pieces, and k = 1 without drawing them: top_few).
 * Speed: both inverse CDFs are tabulated per regime at creation (QTAB quantiles at the
 * midpoints (i + 1/2)/QTAB, linear interpolation between them), so a node costs K counter
 * hashes and no transcendental calls; the table error is far below the sampling noise.
 * The tables are a pure function of the process's (logit_mean, logit_sd, tail) of both
 * regimes (build_tables reads nothing else), so a run's oracle may take them from a set shared
 * by the runs of one process (ls_oracle_create_shared; the runner keeps one per input cache):
 * 8,192 Pinv/exp/pow calls, about 3 M instructions, paid once per process, not per run.
 *
 * True rank (true-path nodes only): the target picks rank i with probability
 *   P_i = kappa_s * q_i^gamma   (scaled down to sum 1 if needed),  none with 1 - sum P_i,
 * a calibration curve: the more confident the draft, the likelier its top candidates match;
 * gamma < 1 means an under-confident draft, kappa_s < 1 leaves room for misses. One uniform
 * u(K(t), TRUE) walks the cumulative P. Drawn on first use and cached per prompt for
 * t < output_len + MARGIN (a pure function of (seed, p, t), so when it is drawn does not matter;
 * most of the margin is never visited, and drawing it up front cost a quarter of a replay).
 *
 * Validation modes. iid: one candidate with draft probability alpha, true rank 0 w.p. alpha,
 * else none (chain SD then gives (1-alpha^(g+1))/(1-alpha) tokens per cycle). positional:
 * candidates q_i = p_i and true rank i w.p. p_i (Sequoia's assumption), none w.p. 1 - sum p.
 *
 * Early-exit predictor score of a node:
 *   score = mu * [on true path] + w * logit(draft_prob) + z,  z ~ N(0,1) from u(k, EXIT),
 *   mu = sqrt(2) * Phi^-1(AUC),
 * so at equal draft confidence the on-path vs off-path AUC is exactly AUC (equal-variance
 * binormal model); w adds the dependence on the draft's confidence.
 *
 * Prompt and output lengths: lognormal (median, sigma) clamped to [min, max], one normal draw
 * per (seed, p); output lengths are multiplied by the process's output_scale (thinking). */
#include "workloads/oracle.h"
#include <assert.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sim/range.h"
#include "sim/rng.h"
#include "workloads/dataset_int.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define NCAND LS_VIEW_TOPK_MAX
#define MARGIN 1088 /* cached positions past output_len: the deepest tree plus slack */
#define GOLDEN 0x9E3779B97F4A7C15ULL
#define QTAB 4096 /* quantile table points per regime */
#define RANK_UNDRAWN INT8_MIN

enum { TAG_TEXT = 0x5458, TAG_CHILD, TAG_TOP1, TAG_STICK, TAG_TRUE, TAG_EXIT, TAG_REGIME, TAG_PLEN, TAG_OLEN };

typedef struct prompt_state {
  int prompt_len, output_len, horizon;
  uint64_t base;   /* B_p */
  uint64_t base_mixed; /* ls_mix64(B_p): K(t) = ls_key2_mixed(base_mixed, t) */
  uint8_t *regime; /* [horizon], filled up to regime_n (regime_at) */
  int regime_n;    /* positions of the chain drawn so far */
  uint64_t regime_key; /* the chain's counter key */
  int8_t *rank;    /* [horizon] true rank at K(t); RANK_UNDRAWN until first used */
} prompt_state;

struct ls_oracle {
  uint64_t seed;
  ls_dataset_kind kind;
  int n;
  ls_wl_process proc;
  double alpha;
  double p[NCAND];
  int np;
  double auc, exit_mu, exit_w;
  double spread;           /* (NCAND - 1)^(1 - gamma): the bound of rank0_early */
  const double (*top1_q)[QTAB];  /* [2][QTAB] quantiles of the top-1 probability, per regime */
  const double (*stick_q)[QTAB]; /* [2][QTAB] quantiles of Beta(1, tail), per regime */
  struct qtables *own;           /* the tables when no shared set was given (owned), else NULL */
  prompt_state *ps;
};

/* The quantile tables of one acceptance process: a pure function of its two regimes'
 * (logit_mean, logit_sd, tail), which is therefore the key a shared set finds them by. */
typedef struct qtables {
  double key[6];
  double top1_q[2][QTAB];
  double stick_q[2][QTAB];
} qtables;

struct ls_oracle_tables {
  qtables **t; /* owned, each owned */
  int n, cap;
};

/* Quantile u of a tabulated distribution (table at midpoints, linear in between). */
static inline double qtab(const double *tab, double u)
{
  double x = u * QTAB - 0.5;
  if (x <= 0.0)
    return tab[0];
  int i = (int)x;
  if (i >= QTAB - 1)
    return tab[QTAB - 1];
  double f = x - i;
  return tab[i] + f * (tab[i + 1] - tab[i]);
}

static void table_key(const ls_wl_process *proc, double key[6])
{
  for (int s = 0; s < 2; s++) {
    key[3 * s] = proc->regime[s].logit_mean;
    key[3 * s + 1] = proc->regime[s].logit_sd;
    key[3 * s + 2] = proc->regime[s].tail;
  }
}

static void build_tables(qtables *q, const ls_wl_process *proc)
{
  table_key(proc, q->key);
  for (int s = 0; s < 2; s++) {
    const ls_wl_regime *r = &proc->regime[s];
    for (int i = 0; i < QTAB; i++) {
      double u = (i + 0.5) / QTAB;
      q->top1_q[s][i] = 1.0 / (1.0 + exp(-(r->logit_mean + r->logit_sd * gsl_cdf_ugaussian_Pinv(u))));
      q->stick_q[s][i] = 1.0 - pow(1.0 - u, 1.0 / r->tail);
    }
  }
}

int ls_oracle_tables_create(ls_oracle_tables **out, ls_error *err)
{
  *out = calloc(1, sizeof **out);
  return *out ? LS_OK : ls_error_set(err, LS_ENOMEM, "oracle: out of memory");
}

void ls_oracle_tables_free(ls_oracle_tables *t)
{
  if (!t)
    return;
  for (int i = 0; i < t->n; i++)
    free(t->t[i]);
  free(t->t);
  free(t);
}

int ls_oracle_tables_count(const ls_oracle_tables *t) { return t->n; }

/* The tables of proc: from the set when it holds them (keys compared bit for bit, so a table
 * is reused only for the very same parameters), else built (and kept in the set, if any). */
static int get_tables(ls_oracle *o, ls_oracle_tables *set, ls_error *err)
{
  double key[6];
  table_key(&o->proc, key);
  for (int i = 0; set && i < set->n; i++)
    if (memcmp(set->t[i]->key, key, sizeof key) == 0) {
      o->top1_q = set->t[i]->top1_q;
      o->stick_q = set->t[i]->stick_q;
      return LS_OK;
    }
  if (set && set->n == set->cap) {
    int cap = set->cap ? 2 * set->cap : 8;
    qtables **grown = realloc(set->t, (size_t)cap * sizeof *grown);
    if (!grown)
      return ls_error_set(err, LS_ENOMEM, "oracle: out of memory");
    set->t = grown;
    set->cap = cap;
  }
  qtables *q = malloc(sizeof *q);
  if (!q)
    return ls_error_set(err, LS_ENOMEM, "oracle: out of memory");
  build_tables(q, &o->proc);
  if (set)
    set->t[set->n++] = q;
  else
    o->own = q;
  o->top1_q = q->top1_q;
  o->stick_q = q->stick_q;
  return LS_OK;
}

static uint64_t true_key(const prompt_state *ps, int t) { return ls_key2_mixed(ps->base_mixed, (uint64_t)t); }

#define REGIME_CHUNK 64 /* positions of the regime chain drawn at a time */

/* The regime at position t (positions past the horizon take its last). The chain is drawn as
 * far as it is asked, REGIME_CHUNK positions at a time, continuing from its last drawn state:
 * each step is one counter-based uniform of (key, t), so the chain is the one drawn up front
 * whatever the order of the questions, and a prompt's decode reaches about output_len plus a
 * tree's depth of its output_len + MARGIN positions (drawing them all was about 1.5 % of a
 * Lever cycle). The prompt state is written through the const oracle as the rank cache is. */
static void regime_extend(const ls_oracle *o, prompt_state *w, int i)
{
  double a = o->proc.easy_to_hard, b = o->proc.hard_to_easy;
  int end = i + REGIME_CHUNK < w->horizon ? i + REGIME_CHUNK : w->horizon;
  for (int k = w->regime_n; k < end; k++) {
    int st;
    if (k == 0)
      st = ls_uniform(w->regime_key) < a / (a + b);
    else {
      double u = ls_uniform(ls_key2(w->regime_key, (uint64_t)k));
      st = w->regime[k - 1] ? (u < b ? 0 : 1) : (u < a ? 1 : 0);
    }
    w->regime[k] = (uint8_t)st;
  }
  w->regime_n = end;
}

static inline int regime_at(const ls_oracle *o, const prompt_state *ps, int t)
{
  int i = t < ps->horizon ? t : ps->horizon - 1;
  if (i >= ps->regime_n)
    regime_extend(o, (prompt_state *)ps, i);
  return ps->regime[i];
}

/* Sorts x[0..14] descending with a fixed network (Batcher's odd-even merge sort of 16 inputs
 * without the comparators of the 16th, which would stay last; checked on every 0-1 input): no
 * branch depends on the data, and the values come out in the same order as from any sort
 * (they are non-negative numbers, never NaN). */
#ifdef __SSE2__ /* maxsd/minsd are these selections exactly (Intel's MAX(a, b) = a > b ? a : b); */
static inline double sel_max(double a, double b) /* compilers branch on the plain ternaries */
{
  return _mm_cvtsd_f64(_mm_max_sd(_mm_set_sd(a), _mm_set_sd(b)));
}
static inline double sel_min(double a, double b) { return _mm_cvtsd_f64(_mm_min_sd(_mm_set_sd(a), _mm_set_sd(b))); }
#else
static inline double sel_max(double a, double b) { return a > b ? a : b; }
static inline double sel_min(double a, double b) { return a < b ? a : b; }
#endif
#define CX(a, b)                                                                                   \
  do {                                                                                             \
    double hi_ = sel_max(v[a], v[b]), lo_ = sel_min(v[b], v[a]); /* v[a] > v[b] ? v[b] : v[a] */   \
    v[a] = hi_;                                                                                    \
    v[b] = lo_;                                                                                    \
  } while (0)
static void sort15_desc(double *x)
{
  double v[15];
  memcpy(v, x, sizeof v);
  CX(0, 1); CX(2, 3); CX(0, 2); CX(1, 3); CX(1, 2); CX(4, 5); CX(6, 7); CX(4, 6);
  CX(5, 7); CX(5, 6); CX(0, 4); CX(2, 6); CX(2, 4); CX(1, 5); CX(3, 7); CX(3, 5);
  CX(1, 2); CX(3, 4); CX(5, 6); CX(8, 9); CX(10, 11); CX(8, 10); CX(9, 11); CX(9, 10);
  CX(12, 13); CX(12, 14); CX(13, 14); CX(8, 12); CX(10, 14); CX(10, 12); CX(9, 13); CX(11, 13);
  CX(9, 10); CX(11, 12); CX(13, 14); CX(0, 8); CX(4, 12); CX(4, 8); CX(2, 10); CX(6, 14);
  CX(6, 10); CX(2, 4); CX(6, 8); CX(10, 12); CX(1, 9); CX(5, 13); CX(5, 9); CX(3, 11);
  CX(7, 11); CX(3, 5); CX(7, 9); CX(11, 13); CX(1, 2); CX(3, 4); CX(5, 6); CX(7, 8);
  CX(9, 10); CX(11, 12); CX(13, 14);
  memcpy(x, v, sizeof v);
}
#undef CX

static int synth_probs(const ls_oracle *o, int s, uint64_t key, double *q)
{
  uint64_t mk = ls_mix64(key); /* ls_key2(key, .) of both tags */
  q[0] = qtab(o->top1_q[s], ls_uniform(ls_key2_mixed(mk, TAG_TOP1)));
  double rem = 1.0 - q[0];
  uint64_t h = ls_key2_mixed(mk, TAG_STICK);
  for (int j = 1; j < NCAND; j++) {
    double u = ls_uniform(h + (uint64_t)j * GOLDEN);
    double piece = rem * qtab(o->stick_q[s], u);
    q[j] = piece;
    rem -= piece;
  }
  _Static_assert(NCAND == 16, "sort15_desc sorts the NCAND - 1 stick pieces");
  sort15_desc(q + 1);
  for (int j = 1; j < NCAND; j++)
    q[j] = sel_min(q[j - 1], q[j]); /* q[j] > q[j - 1] ? q[j - 1] : q[j] */
  return NCAND;
}

#define FEW_TOP 4 /* the most candidates top_few gives without the sorting network */

/* The first k (1 <= k <= FEW_TOP) of synth_probs's list, the same values: q_1, then the
 * largest stick pieces capped by q_1. After the network the pieces are descending, so the
 * cap chain q[j] = min(q[j - 1], piece_j) is min(q_1, piece_j), and piece_j (j = 1..k - 1)
 * is the j-th largest of the 15, a value whatever the order it is found in (the pieces are
 * >= +0, never -0, so equal values are equal bits). k = 1 needs no piece at all. For nodes
 * whose rank is not drawn from the list (view_candidates): SpecInfer's chains, SD's. */
static int top_few(const ls_oracle *o, int s, uint64_t key, double *q, int k)
{
  uint64_t mk = ls_mix64(key);
  q[0] = qtab(o->top1_q[s], ls_uniform(ls_key2_mixed(mk, TAG_TOP1)));
  if (k == 1)
    return 1;
  double rem = 1.0 - q[0], top[FEW_TOP - 1];
  int m = k - 1, have = 0;
  uint64_t h = ls_key2_mixed(mk, TAG_STICK);
  for (int j = 1; j < NCAND; j++) {
    double piece = rem * qtab(o->stick_q[s], ls_uniform(h + (uint64_t)j * GOLDEN));
    rem -= piece;
    if (have == m && !(piece > top[m - 1]))
      continue;
    int i = have < m ? have++ : m - 1;
    for (; i > 0 && top[i - 1] < piece; i--)
      top[i] = top[i - 1];
    top[i] = piece;
  }
  for (int j = 1; j < k; j++)
    q[j] = sel_min(q[0], top[j - 1]);
  return k;
}

/* Draft top-K at node key, position t: fills q, returns the count. */
static int node_probs(const ls_oracle *o, const prompt_state *ps, uint64_t key, int t, double *q)
{
  switch (o->kind) {
  case LS_DATASET_IID:
    q[0] = o->alpha;
    return 1;
  case LS_DATASET_POSITIONAL:
    memcpy(q, o->p, (size_t)o->np * sizeof *q);
    return o->np;
  default:
    return synth_probs(o, regime_at(o, ps, t), key, q);
  }
}

#define EARLY_SLACK 1e-9 /* relative; the floating sums and powers err by < 1e-13 */

/* Whether the true rank is 0, decided without the powers of ranks 1..n-1 (most true-path draws
 * take rank 0, and the powers were a tenth of a Lever cycle): 1 when it is, 0 when this cannot
 * tell (the caller then walks every rank). rank_draw's walk returns 0 iff u < P_0 s, s = 1 / sum
 * when sum = sum_i P_i > 1, else 1. For x_i >= 0 with sum x_i = X and gamma > 0, sum_{i<m} x_i^gamma
 * lies between X^gamma (all mass on one) and m^(1-gamma) X^gamma (spread evenly; which is the
 * larger depends on gamma vs 1), so sum_{i>=1} P_i lies within kappa times those, widened by
 * EARLY_SLACK against rounding. If even the upper bound of sum is <= 1, s = 1 exactly and the
 * walk's first cumulative is P_0 itself; if even the lower bound is > 1, the first cumulative
 * is at least P_0 / upper bound. Same ranks as the full walk (full replay compared). */
static int rank0_early(const ls_oracle *o, const ls_wl_regime *r, const double *q, int n, double u, double p0)
{
  double rest = 0.0;
  for (int i = 1; i < n; i++)
    rest += q[i];
  double a = pow(rest, o->proc.calibration), b = a * o->spread;
  double lo = r->agree * (a < b ? a : b), hi = r->agree * (a < b ? b : a);
  double shi = (p0 + hi) * (1.0 + EARLY_SLACK), slo = (p0 + lo) * (1.0 - EARLY_SLACK);
  if (shi <= 1.0)
    return u < p0;
  if (slo > 1.0)
    return u < p0 / shi * (1.0 - EARLY_SLACK);
  return 0;
}

/* The true rank at the true-path node (key, t) whose draft top-K q[0..n) is known (node_probs,
 * n = -1 for not computed yet: then this computes it). */
static int rank_draw(const ls_oracle *o, const prompt_state *ps, uint64_t key, int t, const double *known, int n)
{
  double u = ls_uniform(ls_key2(key, TAG_TRUE));
  if (o->kind == LS_DATASET_IID)
    return u < o->alpha ? 0 : -1;
  double qbuf[NCAND], P[NCAND], sum = 0.0;
  const double *q = known;
  if (n < 0) {
    n = node_probs(o, ps, key, t, qbuf);
    q = qbuf;
  }
  if (o->kind == LS_DATASET_POSITIONAL) {
    memcpy(P, q, (size_t)n * sizeof *P);
  } else {
    const ls_wl_regime *r = &o->proc.regime[regime_at(o, ps, t)];
    P[0] = r->agree * pow(q[0], o->proc.calibration);
    if (n == NCAND && rank0_early(o, r, q, n, u, P[0]))
      return 0;
    for (int i = 1; i < n; i++)
      P[i] = r->agree * pow(q[i], o->proc.calibration);
  }
  for (int i = 0; i < n; i++)
    sum += P[i];
  double scale = sum > 1.0 ? 1.0 / sum : 1.0, cum = 0.0;
  for (int i = 0; i < n; i++) {
    cum += P[i] * scale;
    if (u < cum)
      return i;
  }
  return -1;
}

/* The oracle is const to its users, but the prompt states it points to hold the rank cache:
 * filling it changes no observable value (the draw is pure), and one oracle serves one run in
 * one process. */
static int rank_at(const ls_oracle *o, prompt_state *ps, int t)
{
  if (t >= ps->horizon)
    return rank_draw(o, ps, true_key(ps, t), t, NULL, -1);
  if (ps->rank[t] == RANK_UNDRAWN)
    ps->rank[t] = (int8_t)rank_draw(o, ps, true_key(ps, t), t, NULL, -1);
  return ps->rank[t];
}

/* ---- the view (ctx = the cycle) ---- */

static int view_candidates(const void *ctx, uint64_t key, int depth, double *probs, int k)
{
  const ls_oracle_cycle *c = ctx;
  const prompt_state *ps = &c->o->ps[c->prompt];
  double q[NCAND];
  int t = c->pos + depth;
  /* a short request at a node whose rank is not drawn here takes only the list's head */
  if (k >= 1 && k <= FEW_TOP && c->o->kind == LS_DATASET_SYNTH &&
      !(t < ps->horizon && ps->rank[t] == RANK_UNDRAWN && key == true_key(ps, t)))
    return top_few(c->o, regime_at(c->o, ps, t), key, probs, k);
  int n = node_probs(c->o, ps, key, t, q);
  /* a true-path node's rank is drawn from these same candidates, so draw it now (it is a pure
   * function of (seed, p, t), cached as rank_at would; computing the candidates again for it
   * was a twentieth of a Lever cycle) */
  if (t < ps->horizon && ps->rank[t] == RANK_UNDRAWN && key == true_key(ps, t))
    ps->rank[t] = (int8_t)rank_draw(c->o, ps, key, t, q, n);
  if (k > n)
    k = n;
  if (k < 0)
    k = 0;
  memcpy(probs, q, (size_t)k * sizeof *probs);
  return k;
}

/* The child of rank r of (key, depth): the true child when (key, depth) is on the true path
 * and r its true rank, else key2(key2(key, CHILD), r). What depends on the parent only is
 * remembered for its next children (memo_*). The cycle is the caller's own (writable) object,
 * handed to the view as its context, so the const is cast away here only. */
static uint64_t view_child_key(const void *ctx, uint64_t key, int depth, int rank)
{
  ls_oracle_cycle *c = (ls_oracle_cycle *)ctx;
  if (!c->memo_ok || c->memo_key != key || c->memo_depth != depth) {
    prompt_state *ps = &c->o->ps[c->prompt];
    int t = c->pos + depth, on = key == true_key(ps, t);
    c->memo_ok = 1;
    c->memo_key = key;
    c->memo_depth = depth;
    c->memo_rank = on ? rank_at(c->o, ps, t) : LS_ORACLE_OFF_PATH; /* never a rank asked for */
    c->memo_next = on ? true_key(ps, t + 1) : 0;
    c->memo_child = ls_mix64(ls_key2(key, TAG_CHILD));
  }
  if (rank == c->memo_rank)
    return c->memo_next;
  return ls_key2_mixed(c->memo_child, (uint64_t)rank);
}

void ls_oracle_begin(const ls_oracle *o, int prompt, int pos, ls_oracle_cycle *cyc, ls_draft_view *view)
{
  assert(prompt >= 0 && prompt < o->n && pos >= 0);
  cyc->o = o;
  cyc->prompt = prompt;
  cyc->pos = pos;
  cyc->root_key = true_key(&o->ps[prompt], pos);
  cyc->memo_ok = 0;
  view->ctx = cyc;
  view->root_key = cyc->root_key;
  view->candidates = view_candidates;
  view->child_key = view_child_key;
}

int ls_oracle_true_rank(const ls_oracle_cycle *cyc, uint64_t key, int depth)
{
  prompt_state *ps = &cyc->o->ps[cyc->prompt];
  int t = cyc->pos + depth;
  return key == true_key(ps, t) ? rank_at(cyc->o, ps, t) : LS_ORACLE_OFF_PATH;
}

double ls_oracle_exit_score(const ls_oracle_cycle *cyc, uint64_t key, int depth, double draft_prob)
{
  const ls_oracle *o = cyc->o;
  int on = key == true_key(&o->ps[cyc->prompt], cyc->pos + depth);
  double p = draft_prob < 1e-9 ? 1e-9 : (draft_prob > 1.0 - 1e-9 ? 1.0 - 1e-9 : draft_prob);
  return o->exit_mu * on + o->exit_w * log(p / (1.0 - p)) + ls_normal(ls_key2(key, TAG_EXIT));
}

/* ---- creation ---- */

static int draw_len(const ls_wl_lendist *d, double scale, uint64_t key)
{
  double x = scale * exp(log(d->median) + d->sigma * ls_normal(key));
  double hi = ceil(scale * d->max);
  x = x < d->min ? d->min : (x > hi ? hi : x);
  return (int)lround(x);
}

static int init_prompt(ls_oracle *o, const ls_dataset *ds, int p, ls_error *err)
{
  prompt_state *ps = &o->ps[p];
  double scale = o->kind == LS_DATASET_SYNTH ? o->proc.output_scale : 1.0;
  ps->prompt_len = draw_len(&ds->prompt_len, 1.0, LS_KEY(o->seed, TAG_PLEN, (uint64_t)p));
  ps->output_len = draw_len(&ds->output_len, scale, LS_KEY(o->seed, TAG_OLEN, (uint64_t)p));
  ps->horizon = ps->output_len + MARGIN;
  ps->base = LS_KEY(o->seed, TAG_TEXT, (uint64_t)p);
  ps->base_mixed = ls_mix64(ps->base);
  ps->regime = calloc((size_t)ps->horizon, 1);
  ps->rank = calloc((size_t)ps->horizon, 1);
  if (!ps->regime || !ps->rank)
    return ls_error_set(err, LS_ENOMEM, "oracle: out of memory for prompt %d", p);
  ps->regime_key = LS_KEY(o->seed, TAG_REGIME, (uint64_t)p);
  ps->regime_n = o->kind == LS_DATASET_SYNTH ? 0 : ps->horizon; /* drawn on demand (regime_at); other kinds have none */
  memset(ps->rank, RANK_UNDRAWN, (size_t)ps->horizon);
  return LS_OK;
}

static int pick_process(ls_oracle *o, const ls_dataset *ds, const ls_model *target, const ls_model *draft,
                        ls_kv *kv, ls_error *err)
{
  static const char *const BOOLS[] = {"false", "true", NULL};
  int thinking = 0, rc = ls_kv_enum(kv, "workload.thinking", BOOLS, ls_model_default_thinking(target), &thinking, err);
  if (rc)
    return rc;
  if (draft && strcmp(ls_model_family(draft), ls_model_family(target)) != 0)
    return ls_error_set(err, LS_EINVALID, "draft %s (%s) does not match target %s (%s): families differ",
                        ls_model_id(draft), ls_model_family(draft), ls_model_id(target), ls_model_family(target));
  if (o->kind != LS_DATASET_SYNTH)
    return LS_OK;
  /* workload.thinking only changes Qwen3 (Llama-3.1 is "Instruct" only, src:lever-paper). */
  int pi = strcmp(ls_model_family(target), "qwen3") == 0
               ? (thinking ? LS_PROC_QWEN3_THINK : LS_PROC_QWEN3_NOTHINK)
               : LS_PROC_LLAMA3;
  if (draft && ls_model_is_eagle3(draft)) /* the EAGLE-3 pair accepts differently from a small draft model */
    pi += LS_PROC_EAGLE3_OFFSET;
  if (!ds->proc[pi].present)
    return ls_error_set(err, LS_EINVALID, "dataset %s has no acceptance process '%s' (for target %s)",
                        ds->id, ls_wl_process_names[pi], ls_model_id(target));
  o->proc = ds->proc[pi];
  return LS_OK;
}

static int read_settings(ls_oracle *o, const ls_dataset *ds, ls_kv *kv, ls_error *err)
{
  double n = ds->default_prompts;
  int rc = ls_range_kv(kv, "workload.prompts", LS_R_PROMPTS, ds->default_prompts, &n, err);
  o->n = (int)n;
  if (!rc) rc = ls_range_kv(kv, "workload.auc", LS_R_AUC, ds->auc, &o->auc, err);
  o->alpha = ds->alpha;
  o->np = ds->np;
  memcpy(o->p, ds->p, sizeof o->p);
  if (!rc && o->kind == LS_DATASET_IID)
    rc = ls_range_kv(kv, "workload.alpha", LS_R_PROB, ds->alpha, &o->alpha, err);
  if (!rc && o->kind == LS_DATASET_POSITIONAL) {
    rc = ls_range_kv_list(kv, "workload.p", LS_R_PROB, o->p, NCAND, &o->np, err);
    double s = 0.0;
    for (int i = 0; i < o->np; i++)
      s += o->p[i];
    if (!rc && (o->np < 1 || s > 1.0 + 1e-12))
      rc = ls_error_set(err, LS_ERANGE, "workload.p: needs 1..%d probabilities summing to <= 1 (sum %g)", NCAND, s);
    for (int i = 1; !rc && i < o->np; i++)
      if (o->p[i] > o->p[i - 1])
        rc = ls_error_set(err, LS_ERANGE, "workload.p: must be non-increasing (p%d = %g > p%d = %g)",
                          i + 1, o->p[i], i, o->p[i - 1]);
  }
  return rc;
}

void ls_oracle_free(ls_oracle *o);

/* build = 0: settings and consistency only, no tables or prompts (ls_oracle_check). */
static int create(ls_oracle **out, ls_oracle_tables *tabs, const ls_dataset *ds, const ls_model *target,
                  const ls_model *draft, uint64_t seed, ls_kv *kv, int build, ls_error *err)
{
  *out = NULL;
  ls_kv *own = NULL;
  int rc = LS_OK;
  if (!kv && (rc = ls_kv_create(&own, err)) != LS_OK)
    return rc;
  if (!target || !ls_model_is_target(target))
    rc = ls_error_set(err, LS_EINVALID, "oracle: %s is not a target model", target ? ls_model_id(target) : "(none)");
  ls_oracle *o = calloc(1, sizeof *o);
  if (!rc && !o)
    rc = ls_error_set(err, LS_ENOMEM, "oracle: out of memory");
  if (!rc) {
    /* one text per (seed, dataset, target): every system and draft of a configuration faces
     * it, while other datasets and targets get texts of their own (independent samples, so a
     * mean over configurations does not repeat one prompt's luck 48 times) */
    o->seed = ls_key_str(ls_key_str(seed, ls_dataset_id(ds)), ls_model_id(target));
    o->kind = ds->kind;
    o->exit_w = ds->conf_weight;
    rc = pick_process(o, ds, target, draft, kv ? kv : own, err);
  }
  if (!rc) rc = read_settings(o, ds, kv ? kv : own, err);
  if (!rc && !build) {
    ls_kv_free(own);
    ls_oracle_free(o);
    return LS_OK;
  }
  if (!rc) {
    o->exit_mu = sqrt(2.0) * gsl_cdf_ugaussian_Pinv(o->auc);
    if (o->kind == LS_DATASET_SYNTH)
      rc = get_tables(o, tabs, err);
    o->spread = pow(NCAND - 1, 1.0 - o->proc.calibration);
    o->ps = rc ? NULL : calloc((size_t)o->n, sizeof *o->ps);
    if (!rc && !o->ps)
      rc = ls_error_set(err, LS_ENOMEM, "oracle: out of memory");
  }
  for (int p = 0; !rc && p < o->n; p++)
    rc = init_prompt(o, ds, p, err);
  ls_kv_free(own);
  if (rc) {
    ls_oracle_free(o);
    return rc;
  }
  *out = o;
  return LS_OK;
}

int ls_oracle_create(ls_oracle **out, const ls_dataset *ds, const ls_model *target, const ls_model *draft,
                     uint64_t seed, ls_kv *kv, ls_error *err)
{
  return create(out, NULL, ds, target, draft, seed, kv, 1, err);
}

int ls_oracle_create_shared(ls_oracle **out, ls_oracle_tables *tabs, const ls_dataset *ds, const ls_model *target,
                            const ls_model *draft, uint64_t seed, ls_kv *kv, ls_error *err)
{
  return create(out, tabs, ds, target, draft, seed, kv, 1, err);
}

int ls_oracle_check(const ls_dataset *ds, const ls_model *target, const ls_model *draft, ls_kv *kv,
                    ls_error *err)
{
  ls_oracle *o = NULL;
  return create(&o, NULL, ds, target, draft, 0, kv, 0, err);
}

void ls_oracle_free(ls_oracle *o)
{
  if (!o)
    return;
  for (int p = 0; o->ps && p < o->n; p++) {
    free(o->ps[p].regime);
    free(o->ps[p].rank);
  }
  free(o->ps);
  free(o->own);
  free(o);
}

int ls_oracle_prompts(const ls_oracle *o) { return o->n; }
int ls_oracle_prompt_len(const ls_oracle *o, int prompt) { return o->ps[prompt].prompt_len; }
int ls_oracle_output_len(const ls_oracle *o, int prompt) { return o->ps[prompt].output_len; }
double ls_oracle_auc(const ls_oracle *o) { return o->auc; }
