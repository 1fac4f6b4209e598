/* runner/decode/phase: the phases of one run's decode simulation, a state machine. The
 * allowed transitions, and why each exists, are written at the top of phase.c; the run state
 * (decode_int.h) holds the current phase, and ls_cyc_enter (decode_int.h) is its only writer.
 * Internal to runner/decode (and tests/runner). */
#ifndef LS_RUNNER_DECODE_PHASE_H
#define LS_RUNNER_DECODE_PHASE_H

/* The phases, in the order a prompt meets them (phase.c explains each). */
#define LS_PHASE_LIST(X) \
  X(IDLE)                \
  X(PREFETCH)            \
  X(PREFILL_WAIT)        \
  X(PREFILL_LAYER)       \
  X(PREFILL_HEAD)        \
  X(PREFILL_SAMPLE)      \
  X(DRAFT)               \
  X(VERIFY_WAIT)         \
  X(VERIFY_LAYER)        \
  X(ACCEPT)              \
  X(HEAD)                \
  X(SAMPLE)              \
  X(COMMIT)

#define LS_PHASE_ENUM_(n) LS_PHASE_##n,
typedef enum { LS_PHASE_LIST(LS_PHASE_ENUM_) LS_PHASE_COUNT } ls_phase;
#undef LS_PHASE_ENUM_

/* "VERIFY_WAIT" for LS_PHASE_VERIFY_WAIT; "?" out of range. */
const char *ls_phase_name(int p);
/* 1 when the table at the top of phase.c allows from -> to, else 0 (also out of range). */
int ls_phase_allowed(int from, int to);

/* Predicates the stages branch on (each names what an old flag meant). */
static inline int ls_phase_prefill(ls_phase p) /* the prompt's own pass, up to its first token */
{
  return p >= LS_PHASE_PREFILL_WAIT && p <= LS_PHASE_PREFILL_SAMPLE;
}
static inline int ls_phase_in_pass(ls_phase p) /* a target pass is running its layers */
{
  return p == LS_PHASE_PREFILL_WAIT || p == LS_PHASE_PREFILL_LAYER || p == LS_PHASE_VERIFY_WAIT ||
         p == LS_PHASE_VERIFY_LAYER;
}
static inline int ls_phase_layer(ls_phase p) /* a target layer computes on the NPU */
{
  return p == LS_PHASE_PREFILL_LAYER || p == LS_PHASE_VERIFY_LAYER;
}
static inline int ls_phase_sampling(ls_phase p) /* a projection's rows are being sampled */
{
  return p == LS_PHASE_PREFILL_SAMPLE || p == LS_PHASE_SAMPLE;
}
#endif
