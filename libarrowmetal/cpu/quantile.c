/* quantile (am_quantile) on the CPU: the valid non-NaN values are copied as
 * their order keys (core/quantile.h), then each rank pyarrow reads is
 * selected in place: a multi-select that selects the middle one of the
 * ranks still wanted (an introselect: median-of-three Hoare partitions, a
 * sort of the range when they stop shrinking it) and recurses into the
 * ranks on each side of it, each within its side only. Many q cost about
 * n log(ranks), never a full sort; equal keys split evenly under Hoare's
 * scheme. */
#include <stdlib.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/memstats.h"
#include "core/quantile.h"
#include "core/types.h"
#include "cpu.h"

/* Copies the keys of the valid, non-NaN slots into `keys`; returns how many. */
#define DEFINE_KEYS(TYPE, CT, UT, SHORT, FIELD, LO, HI)               \
  static int64_t keys_##SHORT(uint64_t *keys, const am_array *a) {    \
    const CT *x = (const CT *)a->data + a->offset;                    \
    const int nulls = am_cpu_has_nulls(a);                            \
    int64_t m = 0;                                                    \
    for (int64_t i = 0; i < a->length; i++) {                         \
      if (nulls && !am_bit_get(a->validity, a->offset + i)) continue; \
      const CT v = x[i];                                              \
      if (v != v) continue; /* NaN: dropped, as pyarrow drops it */   \
      uint64_t bits = 0;                                              \
      memcpy(&bits, &v, sizeof v);                                    \
      keys[m++] = am_quantile_key(TYPE, bits);                        \
    }                                                                 \
    return m;                                                         \
  }
AM_CPU_NUMERIC_TYPES(DEFINE_KEYS)
#undef DEFINE_KEYS

static int64_t gather_keys(uint64_t *keys, const am_array *a) {
  switch (a->type) {
#define CASE(TYPE, CT, UT, SHORT, FIELD, LO, HI) \
  case TYPE:                                     \
    return keys_##SHORT(keys, a);
    AM_CPU_NUMERIC_TYPES(CASE)
#undef CASE
    default:
      return 0;
  }
}

static int by_key(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

static void insertion_sort(uint64_t *a, int64_t n) {
  for (int64_t i = 1; i < n; i++) {
    uint64_t v = a[i];
    int64_t j = i;
    for (; j > 0 && a[j - 1] > v; j--) a[j] = a[j - 1];
    a[j] = v;
  }
}

static inline void swap_keys(uint64_t *a, int64_t i, int64_t j) {
  uint64_t t = a[i];
  a[i] = a[j];
  a[j] = t;
}

/* Puts the key of rank k (lo <= k < hi) at a[k], smaller ones before it and
 * larger ones after it, within [lo, hi). */
static void select_rank(uint64_t *a, int64_t lo, int64_t hi, int64_t k) {
  int budget = 2 * 64; /* partitions before the range is sorted instead */
  while (hi - lo > 16) {
    if (budget-- == 0) {
      qsort(a + lo, (size_t)(hi - lo), sizeof *a, by_key);
      return;
    }
    /* median of three, with the smallest first and the largest last, so
     * both scans stop inside the range and each side keeps a slot */
    const int64_t mid = lo + (hi - lo) / 2;
    if (a[mid] < a[lo]) swap_keys(a, mid, lo);
    if (a[hi - 1] < a[lo]) swap_keys(a, hi - 1, lo);
    if (a[hi - 1] < a[mid]) swap_keys(a, hi - 1, mid);
    const uint64_t p = a[mid];
    int64_t i = lo - 1, j = hi;
    for (;;) {
      do i++;
      while (a[i] < p);
      do j--;
      while (a[j] > p);
      if (i >= j) break;
      swap_keys(a, i, j);
    }
    /* [lo, j] <= p <= [j + 1, hi) */
    if (k <= j)
      hi = j + 1;
    else
      lo = j + 1;
  }
  insertion_sort(a + lo, hi - lo);
}

/* Every rank of ranks[0..count) (ascending, distinct, within [lo, hi)). */
static void select_ranks(uint64_t *a, int64_t lo, int64_t hi, const int64_t *ranks, int64_t count) {
  while (count > 0) {
    const int64_t middle = count / 2, r = ranks[middle];
    select_rank(a, lo, hi, r);
    select_ranks(a, lo, r, ranks, middle); /* left side: recursion depth log(count) */
    lo = r + 1;
    ranks += middle + 1;
    count -= middle + 1;
  }
}

static int by_rank(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int am_cpu_quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, am_device *host, am_array **out) {
  (void)host; /* the CPU's own device */
  const am_type out_type = am_quantile_out_type(array->type, interpolation);
  /* Counted host scratch (core/memstats.h): the keys are as large as the
   * array's data. */
  uint64_t *keys =
      am_scratch_alloc((array->length > 0 ? array->length : 1) * (int64_t)sizeof *keys);
  int64_t *ranks = am_scratch_alloc(nq * 2 * (int64_t)sizeof *ranks);
  if (!keys || !ranks) {
    am_scratch_free(keys);
    am_scratch_free(ranks);
    return am_fail(err, AM_ENOMEM, "out of memory for %lld values", (long long)array->length);
  }
  const int64_t m = gather_keys(keys, array);
  int status;
  if (m == 0) {
    status = am_cpu_null_result(err, am_cpu_device(), out_type, nq, out);
  } else {
    int64_t count = 0;
    for (int64_t i = 0; i < nq; i++) {
      if (q[i] != q[i]) continue; /* NaN (linear): no rank */
      int64_t lo, hi;
      double f;
      am_quantile_ranks(m, q[i], interpolation, &lo, &hi, &f);
      ranks[count++] = lo;
      if (hi != lo) ranks[count++] = hi;
    }
    qsort(ranks, (size_t)count, sizeof *ranks, by_rank);
    int64_t distinct = 0;
    for (int64_t i = 0; i < count; i++)
      if (distinct == 0 || ranks[distinct - 1] != ranks[i]) ranks[distinct++] = ranks[i];
    select_ranks(keys, 0, m, ranks, distinct);
    am_array *result = NULL;
    status = am_array_alloc_host(err, am_cpu_device(), out_type, nq, 0, &result);
    if (status == AM_OK) {
      const int width = am_type_bits(out_type) / 8;
      uint8_t *o = (uint8_t *)result->data;
      for (int64_t i = 0; i < nq; i++) {
        uint64_t bits;
        if (q[i] != q[i]) {
          bits = am_quantile_nan_bits();
        } else {
          int64_t lo, hi;
          double f;
          am_quantile_ranks(m, q[i], interpolation, &lo, &hi, &f);
          bits = am_quantile_value(array->type, interpolation, f,
                                   am_quantile_unkey(array->type, keys[lo]),
                                   am_quantile_unkey(array->type, keys[hi]));
        }
        memcpy(o + i * width, &bits, (size_t)width); /* little-endian: the low bytes */
      }
      atomic_store(&result->null_count, 0);
      *out = result;
    }
  }
  am_scratch_free(keys);
  am_scratch_free(ranks);
  return status;
}
