/* sort_indices' fast path for one integer (or bool) key whose numbers span
 * a small range: a counting sort. One pass finds the range, a second counts
 * each value, a third places each row at its value's next slot -- stable,
 * and three reads of the key instead of the radix sort's gather, per-byte
 * passes and n-sized work areas. Taken by sort.c when the range is small
 * beside the rows (its count array, 8 bytes a value, is counted scratch). */
#include <string.h>

#include "bitmap.h"
#include "core/memstats.h"
#include "core/types.h"
#include "cpu.h"

/* The most distinct values the count array may hold: a quarter of the rows
 * (so the count array costs less than the rows) and at most 2^18. */
static int64_t range_limit(int64_t n) {
  int64_t limit = n / 4;
  if (limit < 256) limit = 256;
  return limit < ((int64_t)1 << 18) ? limit : ((int64_t)1 << 18);
}

/* Value v of row j (after the offset), as a signed 64-bit number; unsigned
 * 64-bit values above INT64_MAX are refused by the range check (the fast
 * path then declines). */
#define VALUE_AT(T, a, j) ((int64_t)((const T *)(a)->data)[j])

#define SCAN_RANGE(T)                               \
  for (int64_t r = 0; r < n; r++) {                 \
    const int64_t j = off + r;                      \
    if (has_nulls && !am_bit_get(a->validity, j)) { \
      nulls++;                                      \
      continue;                                     \
    }                                               \
    const T raw = ((const T *)a->data)[j];          \
    if (is_u64 && ((uint64_t)raw >> 63)) {          \
      too_wide = 1;                                 \
      break;                                        \
    }                                               \
    const int64_t v = (int64_t)raw;                 \
    if (v < lo) lo = v;                             \
    if (v > hi) hi = v;                             \
  }

#define COUNT(T)                                            \
  for (int64_t r = 0; r < n; r++) {                         \
    const int64_t j = off + r;                              \
    if (has_nulls && !am_bit_get(a->validity, j)) continue; \
    count[VALUE_AT(T, a, j) - lo]++;                        \
  }
#define PLACE(T)                                        \
  for (int64_t r = 0; r < n; r++) {                     \
    const int64_t j = off + r;                          \
    if (has_nulls && !am_bit_get(a->validity, j)) {     \
      idx[null_next++] = (uint64_t)r;                   \
      continue;                                         \
    }                                                   \
    idx[count[VALUE_AT(T, a, j) - lo]++] = (uint64_t)r; \
  }

#define BY_TYPE(MACRO)       \
  switch (a->type) {         \
    case AM_INT8:            \
      MACRO(int8_t) break;   \
    case AM_UINT8:           \
      MACRO(uint8_t) break;  \
    case AM_INT16:           \
      MACRO(int16_t) break;  \
    case AM_UINT16:          \
      MACRO(uint16_t) break; \
    case AM_INT32:           \
      MACRO(int32_t) break;  \
    case AM_UINT32:          \
      MACRO(uint32_t) break; \
    case AM_INT64:           \
      MACRO(int64_t) break;  \
    default: /* AM_UINT64 */ \
      MACRO(uint64_t) break; \
  }

int am_cpu_counting_sort(const am_array *a, int descending, int nulls_first, uint64_t *idx) {
  const int64_t n = a->length, off = a->offset;
  if (a->type == AM_BOOL || !am_type_is_integer(a->type)) return 0;
  const int has_nulls = am_cpu_has_nulls(a);
  const int is_u64 = a->type == AM_UINT64;
  int64_t lo = INT64_MAX, hi = INT64_MIN, nulls = 0;
  int too_wide = 0;
  BY_TYPE(SCAN_RANGE)
  if (too_wide) return 0;
  if (nulls == n) { /* every row null: row order */
    for (int64_t r = 0; r < n; r++) idx[r] = (uint64_t)r;
    return 1;
  }
  /* hi - lo in unsigned arithmetic: no signed overflow for wide spans */
  const uint64_t span = (uint64_t)hi - (uint64_t)lo;
  if (span >= (uint64_t)range_limit(n)) return 0;
  const int64_t values = (int64_t)span + 1;
  int64_t *count = am_scratch_alloc(values * (int64_t)sizeof *count);
  if (!count) return -1;
  memset(count, 0, (size_t)values * sizeof *count);
  BY_TYPE(COUNT)
  /* each value's first slot; the nulls' block before or after the numbers */
  int64_t pos = nulls_first ? nulls : 0;
  int64_t null_next = nulls_first ? 0 : n - nulls;
  for (int64_t i = 0; i < values; i++) {
    const int64_t v = descending ? values - 1 - i : i;
    const int64_t c = count[v];
    count[v] = pos;
    pos += c;
  }
  BY_TYPE(PLACE)
  am_scratch_free(count);
  return 1;
}
