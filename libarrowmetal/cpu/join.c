/* Hash joins on the CPU (am_join_indices; core/backend.h's join_indices).
 *
 * No second hasher. With one key, the right keys are grouped and the left
 * keys probed against their table (am_cpu_hash_join_ids, cpu/hash.c; a
 * string key only over a short right side, see STRING_PROBE_ROWS). With
 * several, each left key column is concatenated with its right partner and
 * the (left rows, then right rows) are grouped by all keys with
 * am_cpu_group_keys (cpu/groupby.c, on cpu/hash.c's table). Either way equal
 * key tuples on either side share one dense id. The right rows are then
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
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* The most right rows of one string key probed against their own table
 * (about 1 MB of slot table). */
#define STRING_PROBE_ROWS (1 << 14)

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

/* The left rows' matches over the pool: probe_count counts each part's
 * pairs into offset[part + 1], probe_write writes them from offset[part]
 * on (after the counts' scan), in row order; with keep_left a left row
 * without a match is one pair (i, -1). mark_unmatched then turns the -1s of
 * the first `pairs` right indices into nulls, over 64-aligned ranges of
 * the pairs, so no two parts write one validity byte. */
typedef struct probe_job {
  const int32_t *id;
  const uint8_t *null_row; /* NULL: no null keys */
  const int64_t *start, *bucket;
  int64_t rows, pairs;
  int parts, keep_left;
  int64_t *offset;       /* parts + 1 (mark_unmatched: parts, each one's nulls) */
  int64_t *left, *right; /* the pairs, for probe_write */
  uint8_t *right_valid;
} probe_job;

static inline int64_t matches_of(const probe_job *j, int64_t i) {
  if (j->null_row && j->null_row[i]) return 0;
  return j->start[j->id[i] + 1] - j->start[j->id[i]];
}

static void probe_count(void *ctx, int part) {
  probe_job *j = ctx;
  int64_t begin, end, m = 0;
  am_pool_range(j->rows, j->parts, part, &begin, &end);
  for (int64_t i = begin; i < end; i++) {
    int64_t c = matches_of(j, i);
    m += c ? c : j->keep_left;
  }
  j->offset[part + 1] = m;
}

static void probe_write(void *ctx, int part) {
  probe_job *j = ctx;
  int64_t begin, end, at = j->offset[part];
  am_pool_range(j->rows, j->parts, part, &begin, &end);
  for (int64_t i = begin; i < end; i++) {
    if (!matches_of(j, i)) {
      if (j->keep_left) {
        j->left[at] = i;
        j->right[at++] = -1;
      }
      continue;
    }
    for (int64_t b = j->start[j->id[i]]; b < j->start[j->id[i] + 1]; b++) {
      j->left[at] = i;
      j->right[at++] = j->bucket[b];
    }
  }
}

static void mark_unmatched(void *ctx, int part) {
  probe_job *j = ctx;
  int64_t begin, end, nulls = 0;
  am_pool_range(j->pairs, j->parts, part, &begin, &end);
  for (int64_t at = begin; at < end; at++)
    if (j->right[at] < 0) {
      j->right[at] = 0;
      j->right_valid[at >> 3] &= (uint8_t)~(1u << (at & 7));
      nulls++;
    }
  j->offset[part] = nulls;
}

static void run_probe(probe_job *j, void (*fn)(void *, int)) {
  if (j->parts > 1)
    am_pool_run(j->parts, fn, j);
  else
    fn(j, 0);
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
  int32_t *one_key_ids = NULL;
  const int32_t *id;
  int64_t groups;
  int status = AM_OK, any_nulls = 0;
  if (!both) return am_fail(err, AM_ENOMEM, "out of memory");
  /* One string key probes a table of the right side's values only while
   * that table stays in cache; past that the keys are grouped together as
   * several keys are, where the rows' bytes are hashed first
   * (cpu/hash_bytes.c): 1M x 100,000 keys 430 -> 144 ms, 1M x 1,000 63
   * ms the probe and 83 the grouping. Values of 16 or 32 bytes (decimal
   * keys) always probe: the table keeps them whole, so a probe reads no
   * bytes elsewhere, and the concatenation and grouping of both sides cost
   * more (1M left rows x 100,000 decimal128 keys: 56 -> 31 ms a join).  */
  const am_array *key = left_keys[0];
  const int whole =
      key->type == AM_FIXED_SIZE_BINARY && (key->byte_width == 16 || key->byte_width == 32);
  const int probe = !am_type_is_binary(key->type) || nr <= STRING_PROBE_ROWS || whole;
  if (n_keys == 1 && probe) {
    /* One key: the right keys grouped and the left keys probed against
     * them (am_cpu_hash_join_ids), with no copy of both into one column;
     * the two ids past the right groups hold the unmatched left rows and
     * the right rows with a null key, so no row needs a null mark. */
    if (!(one_key_ids = am_scratch_alloc((n ? n : 1) * 4))) goto nomem;
    if ((status = am_cpu_hash_join_ids(err, left_keys[0], right_keys[0], one_key_ids, &groups)) !=
        AM_OK)
      goto done;
    id = one_key_ids;
    groups += 2;
  } else {
    for (int64_t k = 0; k < n_keys; k++) {
      const am_array *pair[2] = {left_keys[k], right_keys[k]};
      if ((status = am_cpu_concat(err, pair, 2, &both[k])) != AM_OK) goto done;
    }
    if ((status = am_cpu_group_keys(err, (const am_array *const *)both, n_keys, &g)) != AM_OK)
      goto done;
    id = (const int32_t *)g.ids->data;
    groups = g.groups;
    /* Rows with a null key, where a key column has nulls (else NULL: none). */
    for (int64_t k = 0; k < n_keys; k++) any_nulls |= am_cpu_has_nulls(both[k]);
  }
  const int need_left_has = join_type == AM_JOIN_RIGHT_SEMI || join_type == AM_JOIN_RIGHT_ANTI ||
                            join_type == AM_JOIN_RIGHT_OUTER || join_type == AM_JOIN_FULL_OUTER;
  null_row = any_nulls ? am_scratch_alloc(n ? n : 1) : NULL;
  left_has = need_left_has ? am_scratch_alloc(groups ? groups : 1) : NULL;
  start = am_scratch_alloc((groups + 1) * 8);
  if ((any_nulls && !null_row) || (need_left_has && !left_has) || !start) goto nomem;
  if (any_nulls) {
    memset(null_row, 0, (size_t)n);
    for (int64_t k = 0; k < n_keys; k++) {
      const am_array *a = both[k];
      if (!am_cpu_has_nulls(a)) continue;
      for (int64_t i = 0; i < n; i++)
        if (!am_bit_get(a->validity, a->offset + i)) null_row[i] = 1;
    }
  }
#define NULL_ROW(i) (null_row && null_row[i])
  /* The build side: right rows by id, in row order. */
  memset(start, 0, (size_t)(groups + 1) * 8);
  for (int64_t r = 0; r < nr; r++)
    if (!NULL_ROW(nl + r)) start[id[nl + r] + 1]++;
  for (int64_t x = 0; x < groups; x++) start[x + 1] += start[x];
  if (!(bucket = am_scratch_alloc((start[groups] ? start[groups] : 1) * 8))) goto nomem;
  {
    int64_t *cursor = am_scratch_alloc((groups ? groups : 1) * 8);
    if (!cursor) goto nomem;
    memcpy(cursor, start, (size_t)groups * 8);
    for (int64_t r = 0; r < nr; r++)
      if (!NULL_ROW(nl + r)) bucket[cursor[id[nl + r]]++] = r;
    am_scratch_free(cursor);
  }
  if (need_left_has) {
    memset(left_has, 0, (size_t)groups);
    for (int64_t i = 0; i < nl; i++)
      if (!NULL_ROW(i)) left_has[id[i]] = 1;
  }
#define MATCHES(i) (NULL_ROW(i) ? 0 : start[id[i] + 1] - start[id[i]])
#define RIGHT_MATCHED(r) (!NULL_ROW(nl + (r)) && left_has[id[nl + (r)]])
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
      int64_t m = 0, at = 0, lnulls = 0, rnulls = 0;
      /* The left rows' pairs over the pool; then, for right and full outer
       * joins, the right rows no left row matched, with no left partner. */
      probe_job job = {.id = id,
                       .null_row = null_row,
                       .start = start,
                       .bucket = bucket,
                       .rows = nl,
                       .parts = am_pool_parts(nl),
                       .keep_left = keep_left};
      if (!(job.offset = calloc((size_t)job.parts + 1, sizeof *job.offset))) goto nomem;
      run_probe(&job, probe_count);
      for (int p = 0; p < job.parts; p++) job.offset[p + 1] += job.offset[p];
      m = at = job.pairs = job.offset[job.parts];
      if (keep_right)
        for (int64_t r = 0; r < nr; r++) m += !RIGHT_MATCHED(r);
      if ((status = indices_alloc(err, m, keep_right, &li)) != AM_OK ||
          (status = indices_alloc(err, m, keep_left, &ri)) != AM_OK) {
        free(job.offset);
        goto done;
      }
      job.left = (int64_t *)li->data;
      job.right = (int64_t *)ri->data;
      run_probe(&job, probe_write);
      free(job.offset);
      if (keep_left) {
        job.right_valid = (uint8_t *)ri->validity;
        job.parts = am_pool_parts(job.pairs);
        if (!(job.offset = calloc((size_t)job.parts, sizeof *job.offset))) goto nomem;
        run_probe(&job, mark_unmatched);
        for (int p = 0; p < job.parts; p++) rnulls += job.offset[p];
        free(job.offset);
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
#undef NULL_ROW
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
  am_scratch_free(one_key_ids);
  return status;
}
