/* pairwise_diff and pairwise_diff_checked on the CPU: slot i
 * is x[i] - x[i - period], read from the one array at two positions (no
 * slices, nothing concatenated). The subtraction is subtract_checked's row
 * of AM_BINARY_OPS (core/ops.h): its wrapping expression for pairwise_diff
 * and, for the checked op, its overflow check too, compiled here as C with
 * cpu/binary.c's vocabulary. */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bitmap.h"
#include "core/ops.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

#define AM_WRAP_SUB(x, y) ((am_t)((am_u)(x) - (am_u)(y)))
#define am_sub_overflows(x, y)         \
  __extension__({                      \
    am_t r_;                           \
    __builtin_sub_overflow(x, y, &r_); \
  })

/* Picks subtract_checked's row out of AM_BINARY_OPS by its enum name: a
 * probe macro exists for that name only, so IS_SUB(ID) is 1 there and 0 for
 * every other row. */
#define SUB_PROBE_AM_SUBTRACT_CHECKED ~, 1
#define SUB_SECOND_(a, b, ...) b
#define SUB_SECOND(...) SUB_SECOND_(__VA_ARGS__)
#define SUB_CAT_(a, b) a##b
#define SUB_CAT(a, b) SUB_CAT_(a, b)
#define IS_SUB(ID) SUB_SECOND(SUB_CAT(SUB_PROBE_, ID), 0, ~)
#define SUB_IF_1(...) __VA_ARGS__
#define SUB_IF_0(...)
#define ONLY_SUB(ID, ...) SUB_CAT(SUB_IF_, IS_SUB(ID))(__VA_ARGS__)

typedef struct pairwise_job {
  const char *x;
  const uint8_t *valid; /* the input's validity, NULL: all valid */
  int64_t offset;       /* of the input's slot 0 in `valid` */
  char *o;
  uint64_t *ovalid; /* the result's bitmap (offset 0) */
  int64_t n, period;
  am_type type;
  int checked;
  _Atomic int64_t last; /* the last refused slot, or -1 */
  _Atomic int64_t valid_count;
} pairwise_job;

static inline int slot_valid(const pairwise_job *job, int64_t i) {
  return !job->valid || am_bit_get(job->valid, job->offset + i);
}

/* Slots [begin, end): values (0 where no pair), validity words, and the
 * last refused valid slot. Ranges start on 64-slot boundaries (pool.h), so
 * each range owns whole words of the result's bitmap. */
#define PAIR_LOOP(T, U, EXPR, FAILS)                                               \
  do {                                                                             \
    typedef T am_t;                                                                \
    typedef U am_u;                                                                \
    (void)sizeof(am_u);                                                            \
    const am_t *xs = (const am_t *)job->x;                                         \
    am_t *o = (am_t *)job->o;                                                      \
    for (int64_t w = begin; w < end; w += 64) {                                    \
      int64_t m = end - w < 64 ? end - w : 64;                                     \
      uint64_t word = 0;                                                           \
      for (int64_t k = 0; k < m; k++) {                                            \
        int64_t i = w + k, j = i - job->period;                                    \
        int ok = j >= 0 && j < job->n && slot_valid(job, i) && slot_valid(job, j); \
        am_t r = 0;                                                                \
        if (ok) {                                                                  \
          const am_t x = xs[i], y = xs[j];                                         \
          r = (am_t)(EXPR);                                                        \
          if (job->checked && (FAILS)) last = i;                                   \
          word |= (uint64_t)1 << k;                                                \
        }                                                                          \
        o[i] = r;                                                                  \
      }                                                                            \
      job->ovalid[w / 64] = word;                                                  \
      valid += am_popcount64(word);                                                \
    }                                                                              \
  } while (0)

#define CASE(E, T, U, NAME, FIELD, LO, HI, EXPR, FAILS) \
  case E:                                               \
    PAIR_LOOP(T, U, EXPR, FAILS);                       \
    break;
#define CASE_S(EXPR, FAILS, ...) CASE(__VA_ARGS__, EXPR, FAILS)
#define SUB_CASES(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2)                      \
  ONLY_SUB(ID, AM_CPU_SIGNED_TYPES_AFTER(CASE_S, S, FS) AM_CPU_UNSIGNED_TYPES_AFTER(CASE_S, U, FU) \
                   AM_CPU_FLOAT_TYPES_AFTER(CASE_S, F, FF))

static void pairwise_range(void *ctx, int64_t begin, int64_t end) {
  pairwise_job *job = ctx;
  int64_t last = -1, valid = 0;
  switch (job->type) {
    AM_BINARY_OPS(SUB_CASES)
    default:
      break;
  }
  atomic_fetch_add(&job->valid_count, valid);
  if (last < 0) return;
  int64_t seen = atomic_load(&job->last);
  while (last > seen && !atomic_compare_exchange_weak(&job->last, &seen, last)) {
  }
}

int am_cpu_pairwise_diff(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                         am_array **out) {
  am_type t = array->type;
  int64_t n = array->length, width = am_type_bits(t) / 8;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), t, n, 0, &result);
  if (status != AM_OK) return status;
  am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
  if (!validity) {
    am_array_free(result);
    return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots", (long long)n);
  }
  pairwise_job job = {.x = (const char *)array->data + array->offset * width,
                      .valid = am_cpu_has_nulls(array) ? array->validity : NULL,
                      .offset = array->offset,
                      .o = result->data_buf->ptr,
                      .ovalid = validity->ptr,
                      .n = n,
                      .period = period,
                      .type = t,
                      .checked = op == AM_PAIRWISE_DIFF_CHECKED};
  atomic_init(&job.last, -1);
  atomic_init(&job.valid_count, 0);
  am_pool_sweep(n, width, pairwise_range, &job);
  int64_t last = atomic_load(&job.last);
  if (last >= 0) {
    char left[64], right[64];
    am_value_text(t, job.x + last * width, left, sizeof left);
    am_value_text(t, job.x + (last - period) * width, right, sizeof right);
    am_buffer_release(validity);
    am_array_free(result);
    const am_binary_check *check = am_binary_check_of(AM_SUBTRACT_CHECKED);
    return am_fail(err, check->failure[0].status, "%s (%s - %s at slot %lld)",
                   check->failure[0].message, left, right, (long long)last);
  }
  am_cpu_set_validity(result, validity, atomic_load(&job.valid_count));
  *out = result;
  return AM_OK;
}
