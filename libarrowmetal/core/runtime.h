/* Process-wide runtime settings and the per-thread batch depth.
 *
 * They live here, below every backend, because the GPU runtime reads them on
 * every call; the exported setters and getters (am_spin_microseconds,
 * am_low_latency_wait, am_batch_begin, ...) are in abi/ and only forward. */
#ifndef AM_CORE_RUNTIME_H
#define AM_CORE_RUNTIME_H

#include <stdint.h>

#include "arrowmetal.h"

#define AM_DEFAULT_SPIN_MICROSECONDS 2000

/* Spin budget of a completion wait before the waiter blocks. */
int64_t am_runtime_spin_microseconds(void);
void am_runtime_set_spin_microseconds(int64_t us);

/* 1 when a waiter spins before it blocks (off at start when
 * ARROWMETAL_LOW_LATENCY=0). */
int am_runtime_low_latency(void);
void am_runtime_set_low_latency(int on);

/* The watchdog of completion waits in milliseconds, 0 = off (the default;
 * ARROWMETAL_WAIT_TIMEOUT_MS sets it at start). Clamped to
 * AM_WAIT_TIMEOUT_MS_MAX. */
int64_t am_runtime_wait_timeout_ms(void);
void am_runtime_set_wait_timeout_ms(int64_t ms);

/* This thread's batch nesting depth: > 0 between am_batch_begin and the
 * matching end. */
int am_runtime_batch_depth(void);
void am_runtime_batch_enter(void);
/* Returns the depth after leaving; never goes below 0. */
int am_runtime_batch_leave(void);

/* The scalar results of a temporal array's min, max, first and last are
 * computed on its storage integers (abi/temporal_view.c) and take its type
 * back (a timestamp's zone rides in u64). A GPU op deferred into a batch
 * writes its scalars after the call has returned, so the GPU runtime keeps
 * this thread's tag with the op when it is made, and applies it when the op
 * finishes. `type` AM_TYPE_INVALID: no tag. */
typedef struct am_scalar_tag {
  am_type storage; /* a result of this type ... */
  am_type type;    /* ... becomes this type, */
  uint64_t u64;    /* with this u64 */
} am_scalar_tag;
am_scalar_tag am_runtime_scalar_tag(void);
void am_runtime_set_scalar_tag(am_scalar_tag tag);
/* Retypes `s` (may be NULL) when it holds a result of the storage type. */
static inline void am_scalar_tag_apply(const am_scalar_tag *tag, am_scalar *s) {
  if (s && tag->type != AM_TYPE_INVALID && s->type == (int32_t)tag->storage)
    s->type = (int32_t)tag->type, s->u64 = tag->u64;
}

/* Nonzero while an ABI call makes GPU work whose outcome it reads before it
 * returns (a reduction checking a cast, the overflow of a cast a take makes;
 * not the caller's result): an op made then waits for its answer even
 * inside a batch, instead of writing it at the batch's end (into a scalar
 * gone by then, or as an error the call could not turn into its own).
 * Per thread. */
int am_runtime_wait_now(void);
void am_runtime_set_wait_now(int now);
/* A stretch of it: begin returns what end puts back. */
static inline int am_wait_now_begin(void) {
  int before = am_runtime_wait_now();
  am_runtime_set_wait_now(1);
  return before;
}
static inline void am_wait_now_end(int before) { am_runtime_set_wait_now(before); }

#endif
