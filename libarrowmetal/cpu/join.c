/* Hash joins on the CPU (am_join_indices; core/backend.h's join_indices).
 *
 * No second hasher: each left key column is concatenated with its right
 * partner and the (left rows, then right rows) are grouped by all keys with
 * am_cpu_group_keys (cpu/groupby.c, on cpu/hash.c's table), so equal key
 * tuples on either side share one dense id. The right rows are then
 * bucketed by id in row order (a counting sort: the build side), and each
 * left row reads its id's bucket (the probe). A row with a null key has an
 * id like any other but is kept out of the buckets and never probes: null
 * keys never match. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/memstats.h"
#include "cpu.h"

/* An int64 host array of n slots, with an all-valid bitmap when `nullable`. */
static int indices_alloc(am_err *err, int64_t n, int nullable, am_array **out) {
  int status = am_array_alloc_host(err, am_cpu_device(), AM_INT64, n, nullable, out);
  if (status == AM_OK && nullable)
    memset((void *)(*out)->validity, 0xff, (size_t)(n + 63) / 64 * 8);
  return status;
}

static inline void put(am_array *a, int64_t at, int64_t row, int64_t *nulls) {
  if (row < 0) {
    ((int64_t *)a->data)[at] = 0;
    ((uint8_t *)a->validity)[at >> 3] &= (uint8_t)~(1u << (at & 7));
    (*nulls)++;
  } else {
    ((int64_t *)a->data)[at] = row;
  }
}

static void finish(am_array *a, int64_t nulls) {
  am_buffer *bitmap = a->validity_buf;
  a->validity_buf = NULL;
  a->validity = NULL;
  am_cpu_set_validity(a, bitmap, a->length - nulls);
}

int am_cpu_join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                        am_array **left_indices, am_array **right_indices) {
  const int64_t nl = left_keys[0]->length, nr = right_keys[0]->length, n = nl + nr;
  am_array **both = calloc((size_t)n_keys, sizeof *both);
  am_hash_groups g = {.null_group = -1};
  am_array *li = NULL, *ri = NULL;
  uint8_t *null_row = NULL, *left_has = NULL;
  int64_t *start = NULL, *bucket = NULL;
  int status = AM_OK;
  if (!both) return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *pair[2] = {left_keys[k], right_keys[k]};
    if ((status = am_cpu_concat(err, pair, 2, &both[k])) != AM_OK) goto done;
  }
  if ((status = am_cpu_group_keys(err, (const am_array *const *)both, n_keys, &g)) != AM_OK)
    goto done;
  const int32_t *id = (const int32_t *)g.ids->data;
  const int64_t groups = g.groups;
  null_row = am_scratch_alloc(n ? n : 1);
  left_has = am_scratch_alloc(groups ? groups : 1);
  start = am_scratch_alloc((groups + 1) * 8);
  if (!null_row || !left_has || !start) goto nomem;
  memset(null_row, 0, (size_t)n);
  for (int64_t k = 0; k < n_keys; k++) {
    const am_array *a = both[k];
    if (!am_cpu_has_nulls(a)) continue;
    for (int64_t i = 0; i < n; i++)
      if (!am_bit_get(a->validity, a->offset + i)) null_row[i] = 1;
  }
  /* The build side: right rows by id, in row order. */
  memset(start, 0, (size_t)(groups + 1) * 8);
  for (int64_t r = 0; r < nr; r++)
    if (!null_row[nl + r]) start[id[nl + r] + 1]++;
  for (int64_t x = 0; x < groups; x++) start[x + 1] += start[x];
  if (!(bucket = am_scratch_alloc((start[groups] ? start[groups] : 1) * 8))) goto nomem;
  {
    int64_t *cursor = am_scratch_alloc((groups ? groups : 1) * 8);
    if (!cursor) goto nomem;
    memcpy(cursor, start, (size_t)groups * 8);
    for (int64_t r = 0; r < nr; r++)
      if (!null_row[nl + r]) bucket[cursor[id[nl + r]]++] = r;
    am_scratch_free(cursor);
  }
  memset(left_has, 0, (size_t)groups);
  for (int64_t i = 0; i < nl; i++)
    if (!null_row[i]) left_has[id[i]] = 1;
#define MATCHES(i) (null_row[i] ? 0 : start[id[i] + 1] - start[id[i]])
#define RIGHT_MATCHED(r) (!null_row[nl + (r)] && left_has[id[nl + (r)]])
  switch (join_type) {
    case AM_JOIN_LEFT_SEMI:
    case AM_JOIN_LEFT_ANTI: {
      const int semi = join_type == AM_JOIN_LEFT_SEMI;
      int64_t m = 0, at = 0, none = 0;
      for (int64_t i = 0; i < nl; i++) m += (MATCHES(i) > 0) == semi;
      if ((status = indices_alloc(err, m, 0, &li)) != AM_OK) goto done;
      for (int64_t i = 0; i < nl; i++)
        if ((MATCHES(i) > 0) == semi) put(li, at++, i, &none);
      finish(li, 0);
      break;
    }
    case AM_JOIN_RIGHT_SEMI:
    case AM_JOIN_RIGHT_ANTI: {
      const int semi = join_type == AM_JOIN_RIGHT_SEMI;
      int64_t m = 0, at = 0, none = 0;
      for (int64_t r = 0; r < nr; r++) m += RIGHT_MATCHED(r) == semi;
      if ((status = indices_alloc(err, m, 0, &ri)) != AM_OK) goto done;
      for (int64_t r = 0; r < nr; r++)
        if (RIGHT_MATCHED(r) == semi) put(ri, at++, r, &none);
      finish(ri, 0);
      break;
    }
    default: {
      const int keep_left = join_type == AM_JOIN_LEFT_OUTER || join_type == AM_JOIN_FULL_OUTER;
      const int keep_right = join_type == AM_JOIN_RIGHT_OUTER || join_type == AM_JOIN_FULL_OUTER;
      int64_t m = 0;
      for (int64_t i = 0; i < nl; i++) {
        int64_t c = MATCHES(i);
        m += c ? c : keep_left;
      }
      if (keep_right)
        for (int64_t r = 0; r < nr; r++) m += !RIGHT_MATCHED(r);
      if ((status = indices_alloc(err, m, keep_right, &li)) != AM_OK ||
          (status = indices_alloc(err, m, keep_left, &ri)) != AM_OK)
        goto done;
      int64_t at = 0, lnulls = 0, rnulls = 0;
      for (int64_t i = 0; i < nl; i++) {
        int64_t c = MATCHES(i);
        if (!c) {
          if (keep_left) {
            put(li, at, i, &lnulls);
            put(ri, at++, -1, &rnulls);
          }
          continue;
        }
        for (int64_t b = start[id[i]]; b < start[id[i] + 1]; b++) {
          put(li, at, i, &lnulls);
          put(ri, at++, bucket[b], &rnulls);
        }
      }
      if (keep_right)
        for (int64_t r = 0; r < nr; r++)
          if (!RIGHT_MATCHED(r)) {
            put(li, at, -1, &lnulls);
            put(ri, at++, r, &rnulls);
          }
      finish(li, lnulls);
      finish(ri, rnulls);
    }
  }
#undef MATCHES
#undef RIGHT_MATCHED
  *left_indices = li;
  *right_indices = ri;
  li = ri = NULL;
  goto done;
nomem:
  status = am_fail(err, AM_ENOMEM, "out of memory for the join's work areas");
done:
  for (int64_t k = 0; k < n_keys; k++) am_array_free(both[k]);
  free(both);
  am_hash_groups_free(&g);
  am_array_free(li);
  am_array_free(ri);
  am_scratch_free(null_row);
  am_scratch_free(left_has);
  am_scratch_free(start);
  am_scratch_free(bucket);
  return status;
}
