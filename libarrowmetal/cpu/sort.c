/* sort_indices on the CPU (core/backend.h's sort_indices): a
 * stable LSD radix sort of the row indices.
 *
 * Every key becomes, per row, an order-preserving unsigned key (core/
 * quantile.h's: sign flip for signed integers, the float bit flip; -0.0 is
 * read as 0.0 so the two tie, as pyarrow compares them) plus a class: a
 * number, NaN or null. Descending inverts the number's key. A row's place is
 * then (class, key), and the classes' order is pyarrow's: numbers, NaN, null
 * with nulls at the end; null, NaN, numbers with nulls at the start (NaN is
 * never ordered among the numbers, descending or not). Each key has its own
 * placement (pyarrow 26's per-key null_placement).
 *
 * Multi-key sorts are LSD over the keys too: the permutation is sorted
 * stably by the last key, then by each earlier one, so ties of an earlier
 * key keep the order the later keys gave them. Each key costs one byte pass
 * per byte of its type (passes where every row has the same byte are
 * skipped) and a pass over the classes only when the key has nulls or NaNs.
 *
 * A pass is parallel on the worker pool (pool.h) above its threshold: each
 * part counts the digits of a contiguous range, the offsets are laid out
 * digit-major and part-minor, and each part scatters its range in order, so
 * the pass is stable however many parts run. The four n-sized work areas
 * (keys and indices, twice) are counted host scratch (core/memstats.h); the
 * last index buffer is the result's own.
 *
 * One integer key whose numbers span a small range takes a counting sort
 * instead (sort_counting.c); a string or binary key is a stable MSD pass
 * of the permutation of its own (sort_strings.c). */
#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/memstats.h"
#include "core/quantile.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

#define MAX_PARTS 64

enum { CLASS_NUMBER = 0, CLASS_NAN = 1, CLASS_NULL = 2 };

typedef struct sorter {
  int64_t n;
  int parts;
  uint64_t *key, *key2; /* per position: the current key's order key */
  uint64_t *idx, *idx2; /* per position: the row */
  /* the key being gathered */
  const am_array *array;
  int width; /* bytes of its order key (bool: 1) */
  int descending;
  int has_nulls;
  /* per part: rows with nulls, with NaN, seen while gathering */
  int64_t nulls[MAX_PARTS], nans[MAX_PARTS];
  /* per part: the AND and the OR of the numbers' keys; a byte where the two
   * agree is the same in every number, and its pass is skipped */
  uint64_t all[MAX_PARTS], any[MAX_PARTS];
  /* the pass being run */
  int shift;   /* byte pass: the digit's shift; -1: the class pass */
  int classes; /* the class pass: class order (0: at end, 1: at start) */
  int64_t (*count)[256];
} sorter;

/* The class of row r of the array being gathered, and its order key. */
static inline int read_row(const sorter *s, int64_t r, uint64_t *key) {
  const am_array *a = s->array;
  const int64_t j = a->offset + r;
  if (s->has_nulls && !am_bit_get(a->validity, j)) {
    *key = 0;
    return CLASS_NULL;
  }
  uint64_t bits;
  switch (a->type) {
    case AM_BOOL:
      bits = (uint64_t)am_bit_get(a->data, j);
      break;
    case AM_INT8:
    case AM_UINT8:
      bits = ((const uint8_t *)a->data)[j];
      break;
    case AM_INT16:
    case AM_UINT16:
      bits = ((const uint16_t *)a->data)[j];
      break;
    case AM_FLOAT32: {
      const float f = ((const float *)a->data)[j];
      if (isnan(f)) {
        *key = 0;
        return CLASS_NAN;
      }
      uint32_t u = 0;
      if (f != 0) memcpy(&u, &f, 4); /* -0.0 ties with 0.0 */
      bits = u;
      break;
    }
    case AM_INT32:
    case AM_UINT32:
      bits = ((const uint32_t *)a->data)[j];
      break;
    case AM_FLOAT64: {
      const double f = ((const double *)a->data)[j];
      if (isnan(f)) {
        *key = 0;
        return CLASS_NAN;
      }
      bits = 0;
      if (f != 0) memcpy(&bits, &f, 8);
      break;
    }
    default: /* 64-bit integers */
      bits = ((const uint64_t *)a->data)[j];
      break;
  }
  uint64_t k = a->type == AM_BOOL ? bits : am_quantile_key(a->type, bits);
  /* 8- to 32-bit signed keys come sign-extended with bit 63 flipped: their
   * low `width` bytes need the type's own sign bit flipped instead */
  if (s->width < 8 && (a->type == AM_INT8 || a->type == AM_INT16 || a->type == AM_INT32))
    k = (k ^ ((uint64_t)1 << 63)) ^ ((uint64_t)1 << (s->width * 8 - 1));
  *key = s->descending ? ~k : k;
  return CLASS_NUMBER;
}

/* Gathers the keys of the rows in idx[begin, end). */
static void gather_part(void *ctx, int part) {
  sorter *s = ctx;
  int64_t begin, end, nulls = 0, nans = 0;
  uint64_t all = ~(uint64_t)0, any = 0;
  am_pool_range(s->n, s->parts, part, &begin, &end);
  for (int64_t i = begin; i < end; i++) {
    const int c = read_row(s, (int64_t)s->idx[i], &s->key[i]);
    nulls += c == CLASS_NULL;
    nans += c == CLASS_NAN;
    if (c == CLASS_NUMBER) {
      all &= s->key[i];
      any |= s->key[i];
    }
  }
  s->nulls[part] = nulls;
  s->nans[part] = nans;
  s->all[part] = all;
  s->any[part] = any;
}

/* A position's digit in the running pass. */
static inline int digit(const sorter *s, int64_t i) {
  if (s->shift >= 0) return (int)((s->key[i] >> s->shift) & 0xff);
  uint64_t unused;
  const int c = read_row(s, (int64_t)s->idx[i], &unused);
  return s->classes ? 2 - c : c; /* at start: null, NaN, numbers */
}

static void count_part(void *ctx, int part) {
  sorter *s = ctx;
  int64_t begin, end;
  am_pool_range(s->n, s->parts, part, &begin, &end);
  int64_t *count = s->count[part];
  memset(count, 0, 256 * sizeof *count);
  for (int64_t i = begin; i < end; i++) count[digit(s, i)]++;
}

/* Scatters positions [begin, end) to their places; count[part] holds the
 * part's first place per digit. */
static void scatter_part(void *ctx, int part) {
  sorter *s = ctx;
  int64_t begin, end;
  am_pool_range(s->n, s->parts, part, &begin, &end);
  int64_t *next = s->count[part];
  if (s->shift >= 0) {
    for (int64_t i = begin; i < end; i++) {
      const int64_t to = next[(s->key[i] >> s->shift) & 0xff]++;
      s->key2[to] = s->key[i];
      s->idx2[to] = s->idx[i];
    }
  } else { /* the class pass: the keys are not needed after it */
    for (int64_t i = begin; i < end; i++) s->idx2[next[digit(s, i)]++] = s->idx[i];
  }
}

static void swap_buffers(sorter *s) {
  uint64_t *t = s->key;
  s->key = s->key2;
  s->key2 = t;
  t = s->idx;
  s->idx = s->idx2;
  s->idx2 = t;
}

/* One stable counting pass on the current digit; skipped (nothing moves)
 * when every position has the same digit. */
static void pass(sorter *s) {
  am_pool_run(s->parts, count_part, s);
  int64_t pos = 0;
  for (int d = 0; d < 256; d++) {
    int64_t total = 0;
    for (int p = 0; p < s->parts; p++) {
      const int64_t c = s->count[p][d];
      s->count[p][d] = pos + total;
      total += c;
    }
    if (total == s->n) return; /* one digit everywhere */
    pos += total;
  }
  am_pool_run(s->parts, scatter_part, s);
  swap_buffers(s);
}

static int key_width(am_type t) { return t == AM_BOOL ? 1 : am_type_bits(t) / 8; }

int am_cpu_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *nulls_first, am_array **out) {
  const int64_t n = keys[0]->length;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), AM_UINT64, n, 0, &result);
  if (status != AM_OK) return status;
  atomic_store(&result->null_count, 0);
  if (n == 0) {
    *out = result;
    return AM_OK;
  }
  if (n_keys == 1) { /* one integer key of a small range: sort_counting.c */
    const int done = am_cpu_counting_sort(keys[0], descending[0] != 0, nulls_first[0] != 0,
                                          (uint64_t *)result->data);
    if (done < 0) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory sorting %lld rows", (long long)n);
    }
    if (done) {
      *out = result;
      return AM_OK;
    }
  }
  sorter s = {.n = n};
  s.parts = am_pool_parts(n);
  if (s.parts > MAX_PARTS) s.parts = MAX_PARTS;
  if (s.parts < 1) s.parts = 1;
  const int64_t bytes = n * (int64_t)sizeof(uint64_t);
  /* counted scratch: three n-sized areas and the digit counts; the fourth
   * area is the result's buffer */
  uint64_t *scratch_key = am_scratch_alloc(bytes), *scratch_key2 = am_scratch_alloc(bytes);
  uint64_t *scratch_idx = am_scratch_alloc(bytes);
  int64_t (*count)[256] = am_scratch_alloc(s.parts * 256 * (int64_t)sizeof(int64_t));
  if (!scratch_key || !scratch_key2 || !scratch_idx || !count) {
    status = am_fail(err, AM_ENOMEM, "out of memory sorting %lld rows", (long long)n);
    goto done;
  }
  uint64_t *result_idx = (uint64_t *)result->data;
  s.key = scratch_key;
  s.key2 = scratch_key2;
  s.idx = result_idx;
  s.idx2 = scratch_idx;
  s.count = count;
  for (int64_t i = 0; i < n; i++) s.idx[i] = (uint64_t)i;
  for (int64_t k = n_keys - 1; k >= 0; k--) {
    if (am_type_is_binary(keys[k]->type)) { /* no order-preserving word: sort_strings.c */
      if (am_cpu_sort_strings(keys[k], descending[k] != 0, nulls_first[k] != 0, s.idx, n) != 0) {
        status = am_fail(err, AM_ENOMEM, "out of memory sorting %lld rows", (long long)n);
        goto done;
      }
      continue;
    }
    s.array = keys[k];
    s.width = key_width(keys[k]->type);
    s.descending = descending[k] != 0;
    s.classes = nulls_first[k] != 0;
    s.has_nulls = am_cpu_has_nulls(keys[k]);
    am_pool_run(s.parts, gather_part, &s);
    int64_t special = 0;
    uint64_t all = ~(uint64_t)0, any = 0;
    for (int p = 0; p < s.parts; p++) {
      special += s.nulls[p] + s.nans[p];
      all &= s.all[p];
      any |= s.any[p];
    }
    /* A byte the same in every number orders nothing among them; NaN and
     * null rows (key 0) are put in place by the class pass after. */
    const uint64_t varies = all ^ any;
    for (s.shift = 0; s.shift < s.width * 8; s.shift += 8)
      if ((varies >> s.shift) & 0xff) pass(&s);
    if (special) {
      s.shift = -1;
      pass(&s);
    }
  }
  if (s.idx != result_idx) memcpy(result_idx, s.idx, (size_t)bytes);
  *out = result;
  result = NULL;
done:
  am_scratch_free(scratch_key);
  am_scratch_free(scratch_key2);
  am_scratch_free(scratch_idx);
  am_scratch_free(count);
  am_array_free(result);
  return status;
}
