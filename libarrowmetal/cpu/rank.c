/* select_k_unstable, rank (rank_quantile, rank_normal) and
 * partition_nth_indices on the CPU (core/backend.h's select_k, rank,
 * partition_nth), in the order sort.c sorts by (order_key.h: per key a class
 * -- number, NaN, null -- placed by its null placement, then the number's
 * order key, inverted when descending).
 *
 * select_k: when k is small beside the rows (k * 8 < rows) a max-heap of
 * the best k rows seen, O(n log k) and k indices of memory; the heap is then
 * sorted in place. Rows that tie on every key are ordered by row, so both
 * paths give the stable sort's first k rows. Otherwise the stable radix sort
 * (sort.c) and its first k rows.
 * rank: the stable sort, then one walk over its tie groups.
 * partition_nth: a stable three-way split into numbers, NaN and nulls (their
 * order by the placement), then, when the pivot falls among the numbers, a
 * three-way quickselect over their order keys (pseudo-random pivots, so no
 * input pattern makes it quadratic). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/error.h"
#include "core/memstats.h"
#include "core/types.h"
#include "cpu.h"
#include "order_key.h"

typedef struct order_col {
  const am_array *a;
  int has_nulls, desc, first;
} order_col;

/* A class's place: numbers, NaN, null at the end; reversed at the start. */
static inline int place(int c, int first) { return first ? 2 - c : c; }

/* <0, 0, >0: row r1 before, with, after row r2 over every key, then by row. */
static inline int cmp_rows(const order_col *cols, int64_t nk, uint64_t r1, uint64_t r2) {
  for (int64_t k = 0; k < nk; k++) {
    const order_col *c = &cols[k];
    uint64_t k1, k2;
    const int c1 = am_order_key(c->a, c->has_nulls, (int64_t)r1, &k1);
    const int c2 = am_order_key(c->a, c->has_nulls, (int64_t)r2, &k2);
    if (c1 != c2) return place(c1, c->first) < place(c2, c->first) ? -1 : 1;
    if (k1 != k2) return (k1 < k2) != (c->desc != 0) ? -1 : 1;
  }
  return r1 < r2 ? -1 : (r1 > r2);
}

/* The first key's place of row r: its class's place, and in *key its order
 * key as the order reads it (inverted when descending). */
static inline int first_key(const order_col *c, uint64_t r, uint64_t *key) {
  uint64_t k;
  const int cls = am_order_key(c->a, c->has_nulls, (int64_t)r, &k);
  *key = cls == AM_ORDER_NUMBER && c->desc ? ~k : k;
  return place(cls, c->first);
}

static void sift_down(const order_col *cols, int64_t nk, uint64_t *heap, int64_t size, int64_t i) {
  const uint64_t v = heap[i];
  for (;;) {
    int64_t child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && cmp_rows(cols, nk, heap[child + 1], heap[child]) > 0) child++;
    if (cmp_rows(cols, nk, heap[child], v) <= 0) break;
    heap[i] = heap[child];
    i = child;
  }
  heap[i] = v;
}

int am_cpu_select_k(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *nulls_first, int64_t k, am_array **out) {
  const int64_t n = keys[0]->length;
  if (k > n) k = n;
  am_array *result = NULL;
  int status;
  if (k * 8 >= n) { /* k near the rows: a sort is as cheap */
    am_array *sorted = NULL;
    status = am_cpu_sort_indices(err, keys, n_keys, descending, nulls_first, &sorted);
    if (status != AM_OK) return status;
    if (k == n) {
      *out = sorted;
      return AM_OK;
    }
    status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, k, 0, &result);
    if (status == AM_OK) {
      atomic_store(&result->null_count, 0);
      memcpy((void *)result->data, sorted->data, (size_t)k * sizeof(uint64_t));
      *out = result;
    }
    am_array_free(sorted);
    return status;
  }
  order_col *cols = calloc((size_t)n_keys, sizeof *cols);
  if (!cols) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n_keys; i++) {
    cols[i].a = keys[i];
    cols[i].has_nulls = am_cpu_has_nulls(keys[i]);
    cols[i].desc = descending[i] != 0;
    cols[i].first = nulls_first[i] != 0;
  }
  status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, k, 0, &result);
  if (status != AM_OK) goto done;
  atomic_store(&result->null_count, 0);
  uint64_t *heap = (uint64_t *)result->data;
  if (k > 0) {
    /* the first k rows, heapified: the worst of the best on top */
    for (int64_t i = 0; i < k; i++) heap[i] = (uint64_t)i;
    for (int64_t i = k / 2 - 1; i >= 0; i--) sift_down(cols, n_keys, heap, k, i);
    /* most rows lose to the kept worst on the first key alone: its place
     * is cached, and the full comparison runs only on a first-key tie */
    uint64_t top_key, key;
    int top = first_key(&cols[0], heap[0], &top_key);
    for (int64_t r = k; r < n; r++) {
      const int p = first_key(&cols[0], (uint64_t)r, &key);
      if (p > top || (p == top && key > top_key)) continue;
      if (p == top && key == top_key && cmp_rows(cols, n_keys, (uint64_t)r, heap[0]) >= 0) continue;
      heap[0] = (uint64_t)r;
      sift_down(cols, n_keys, heap, k, 0);
      top = first_key(&cols[0], heap[0], &top_key);
    }
    /* heap sort: the best first */
    for (int64_t end = k - 1; end > 0; end--) {
      const uint64_t t = heap[0];
      heap[0] = heap[end];
      heap[end] = t;
      sift_down(cols, n_keys, heap, end, 0);
    }
  }
  *out = result;
  result = NULL;
done:
  free(cols);
  am_array_free(result);
  return status;
}

/* The standard normal quantile of p in (0, 1): a rational first guess
 * (the well-known three-region approximation, relative error ~1e-9), then
 * two Halley steps on erfc, which bring it to double precision. */
static double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425;
  double x;
  if (p < lo) {
    const double q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p <= 1 - lo) {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    const double q = sqrt(-2 * log1p(-p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  for (int step = 0; step < 2; step++) {
    const double e = 0.5 * erfc(-x / sqrt(2.0)) - p;
    const double u = e * sqrt(2 * M_PI) * exp(x * x / 2);
    x = x - u / (1 + x * u / 2);
  }
  return x;
}

int am_cpu_rank(am_err *err, const am_array *array, int descending, int nulls_first, int how,
                am_array **out) {
  const int64_t n = array->length;
  const int floats = how == AM_RANK_HOW_QUANTILE || how == AM_RANK_HOW_NORMAL;
  am_array *result = NULL, *sorted = NULL;
  int status =
      am_array_alloc_host(err, am_cpu_device(), floats ? AM_FLOAT64 : AM_UINT64, n, 0, &result);
  if (status != AM_OK) return status;
  atomic_store(&result->null_count, 0);
  if (n > 0) {
    status = am_cpu_sort_indices(err, &array, 1, &descending, &nulls_first, &sorted);
    if (status != AM_OK) goto done;
    const uint64_t *idx = (const uint64_t *)sorted->data;
    uint64_t *ranks = (uint64_t *)result->data;
    double *quantiles = (double *)result->data;
    const int has_nulls = am_cpu_has_nulls(array);
    uint64_t dense = 0;
    for (int64_t p = 0; p < n;) {
      /* the tie group [p, q) */
      uint64_t key, next_key;
      const int c = am_order_key(array, has_nulls, (int64_t)idx[p], &key);
      int64_t q = p + 1;
      while (q < n && am_order_key(array, has_nulls, (int64_t)idx[q], &next_key) == c &&
             next_key == key)
        q++;
      dense++;
      const double quantile = ((double)p + 0.5 * (double)(q - p)) / (double)n;
      for (int64_t i = p; i < q; i++) {
        const uint64_t row = idx[i];
        switch (how) {
          case AM_RANK_MIN:
            ranks[row] = (uint64_t)p + 1;
            break;
          case AM_RANK_MAX:
            ranks[row] = (uint64_t)q;
            break;
          case AM_RANK_FIRST:
            ranks[row] = (uint64_t)i + 1;
            break;
          case AM_RANK_DENSE:
            ranks[row] = dense;
            break;
          case AM_RANK_HOW_QUANTILE:
            quantiles[row] = quantile;
            break;
          default: /* AM_RANK_HOW_NORMAL */
            quantiles[row] = normal_quantile(quantile);
            break;
        }
      }
      p = q;
    }
  }
  *out = result;
  result = NULL;
done:
  am_array_free(sorted);
  am_array_free(result);
  return status;
}

static inline void swap2(uint64_t *key, uint64_t *idx, int64_t i, int64_t j) {
  const uint64_t k = key[i], r = idx[i];
  key[i] = key[j];
  idx[i] = idx[j];
  key[j] = k;
  idx[j] = r;
}

/* Puts the nth smallest key of [lo, hi) at nth, no larger keys before it
 * and no smaller after (idx moves with key). */
static void select_nth(uint64_t *key, uint64_t *idx, int64_t lo, int64_t hi, int64_t nth) {
  uint64_t state = 0x9e3779b97f4a7c15u ^ (uint64_t)(hi - lo);
  while (hi - lo > 1) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    const uint64_t pv = key[lo + (int64_t)(state % (uint64_t)(hi - lo))];
    /* [lo, lt) < pv, [lt, i) == pv, [gt, hi) > pv */
    int64_t lt = lo, i = lo, gt = hi;
    while (i < gt) {
      if (key[i] < pv)
        swap2(key, idx, lt++, i++);
      else if (key[i] > pv)
        swap2(key, idx, i, --gt);
      else
        i++;
    }
    if (nth < lt)
      hi = lt;
    else if (nth >= gt)
      lo = gt;
    else
      return;
  }
}

int am_cpu_partition_nth(am_err *err, const am_array *array, int64_t pivot, int nulls_first,
                         am_array **out) {
  const int64_t n = array->length;
  am_array *result = NULL;
  uint64_t *key = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, n, 0, &result);
  if (status != AM_OK) return status;
  atomic_store(&result->null_count, 0);
  uint64_t *idx = (uint64_t *)result->data;
  if (n > 0) {
    key = am_scratch_alloc(n * (int64_t)sizeof *key);
    if (!key) {
      status = am_fail(err, AM_ENOMEM, "out of memory partitioning %lld rows", (long long)n);
      goto done;
    }
    const int has_nulls = am_cpu_has_nulls(array);
    /* the classes' sizes, then each row to its class's range, in row order */
    int64_t count[3] = {0, 0, 0};
    uint64_t unused;
    if (has_nulls || array->type == AM_FLOAT32 || array->type == AM_FLOAT64)
      for (int64_t r = 0; r < n; r++) count[am_order_key(array, has_nulls, r, &unused)]++;
    else
      count[AM_ORDER_NUMBER] = n;
    int64_t start[3];
    int64_t pos = 0;
    for (int s = 0; s < 3; s++) {
      const int c = nulls_first ? 2 - s : s; /* the class at place s */
      start[c] = pos;
      pos += count[c];
    }
    const int64_t num_lo = start[AM_ORDER_NUMBER], num_hi = num_lo + count[AM_ORDER_NUMBER];
    int64_t next[3] = {start[0], start[1], start[2]};
    for (int64_t r = 0; r < n; r++) {
      uint64_t k;
      const int c = am_order_key(array, has_nulls, r, &k);
      const int64_t to = next[c]++;
      key[to] = k;
      idx[to] = (uint64_t)r;
    }
    if (pivot >= num_lo && pivot < num_hi) select_nth(key, idx, num_lo, num_hi, pivot);
  }
  *out = result;
  result = NULL;
done:
  am_scratch_free(key);
  am_array_free(result);
  return status;
}
