/* filter and take.
 *
 * Moving values does not depend on their type, only on their width, so the
 * kernels exist per width (and, for take, per index type); booleans and
 * validity bitmaps move bit by bit. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Decimals (16 and 32 bytes) move as structs of 64-bit words: assigned,
 * never computed on. */
typedef struct bytes16 {
  uint64_t w[2];
} bytes16;
typedef struct bytes32 {
  uint64_t w[4];
} bytes32;

#define WIDTHS(X) \
  X(1, uint8_t) X(2, uint16_t) X(4, uint32_t) X(8, uint64_t) X(16, bytes16) X(32, bytes32)

/* ---- filter */

/* Where a filter keeps slots: mask bit set and (with `valid`) mask valid;
 * with `emit` (emit_null), also where the mask is null. */
typedef struct keep_mask {
  const uint8_t *bits, *valid;
  int64_t pos;
  int emit;
} keep_mask;

/* Kept slots among [i, i + 64) of n. */
static inline uint64_t keep_word(const keep_mask *mask, int64_t i, int64_t n) {
  uint64_t keep = am_bits_load(mask->bits, mask->pos + i, n - i);
  if (!mask->valid) return keep;
  uint64_t valid = am_bits_load(mask->valid, mask->pos + i, n - i);
  return mask->emit ? (keep | ~valid) & am_bits_mask(n - i) : keep & valid;
}

/* A bitmap a filter compacts: `a` from bit `apos`, ANDed with `b` from
 * `bpos` when b is given (emit_null's result validity: the input's and the
 * mask's). */
typedef struct bit_source {
  const uint8_t *a, *b;
  int64_t apos, bpos;
} bit_source;

/* The source's bits [i, i + 64) of n. */
static inline uint64_t source_word(const bit_source *src, int64_t i, int64_t n) {
  uint64_t bits = am_bits_valid(src->a, src->apos + i, n - i);
  return src->b ? bits & am_bits_load(src->b, src->bpos + i, n - i) : bits;
}

/* Below this many kept slots in a word, visiting the set bits beats the
 * branch-free pass over all 64. */
#define SPARSE 16

/* Slots [begin, end) of n (begin a multiple of 64) into dst. The dense pass
 * stores every slot and advances only past kept ones, so it may store one slot
 * past the range's output: host buffers have slack past the result's end, and
 * with `exact` (a range whose output another part continues) the last word
 * takes the sparse path, which stores nothing extra. */
#define DEFINE_FILTER(W, TW)                                                                  \
  AM_CPU_CLONES static void filter_##W(const void *src, const keep_mask *mask, int64_t begin, \
                                       int64_t end, int64_t n, int exact, void *dst) {        \
    const TW *x = src;                                                                        \
    TW *o = dst;                                                                              \
    int64_t pos = 0;                                                                          \
    for (int64_t i = begin; i < end; i += 64) {                                               \
      uint64_t keep = keep_word(mask, i, n);                                                  \
      if (keep == ~(uint64_t)0) {                                                             \
        memcpy(o + pos, x + i, 64 * W);                                                       \
        pos += 64;                                                                            \
      } else if (am_popcount64(keep) < SPARSE || (exact && i + 64 >= end)) {                  \
        for (; keep; keep &= keep - 1) o[pos++] = x[i + __builtin_ctzll(keep)];               \
      } else {                                                                                \
        int64_t m = end - i < 64 ? end - i : 64;                                              \
        for (int64_t j = 0; j < m; j++) {                                                     \
          o[pos] = x[i + j];                                                                  \
          pos += (keep >> j) & 1;                                                             \
        }                                                                                     \
      }                                                                                       \
    }                                                                                         \
  }
WIDTHS(DEFINE_FILTER)

/* Compacts the source's bits [begin, end) (of n) to the kept slots into
 * `dst` from bit `at` (the word holding it zero above `at`); returns the
 * number of set bits written. */
AM_CPU_CLONES static int64_t filter_bits(const bit_source *src, const keep_mask *mask,
                                         int64_t begin, int64_t end, int64_t n, uint64_t *dst,
                                         int64_t at) {
  am_bit_writer writer = {dst, at};
  int64_t ones = 0;
  for (int64_t i = begin; i < end; i += 64) {
    uint64_t keep = keep_word(mask, i, n);
    if (!keep) continue;
    uint64_t bits = source_word(src, i, n), packed = bits;
    int count = 64;
    if (keep != ~(uint64_t)0) {
      packed = 0;
      count = 0;
      for (; keep; keep &= keep - 1) packed |= ((bits >> __builtin_ctzll(keep)) & 1) << count++;
    }
    ones += am_popcount64(packed);
    am_bits_append(&writer, packed, count);
  }
  return ones;
}

/* Kept slots in [begin, end), begin a multiple of 64. */
static int64_t count_kept(const keep_mask *keep, int64_t begin, int64_t end) {
  if (keep->emit) {
    int64_t kept = 0;
    for (int64_t i = begin; i < end; i += 64) kept += am_popcount64(keep_word(keep, i, end));
    return kept;
  }
  return keep->valid ? am_bits_count_and(keep->bits, keep->pos + begin, keep->valid,
                                         keep->pos + begin, end - begin)
                     : am_bits_count(keep->bits, keep->pos + begin, end - begin);
}

/* In parallel: a pass counting each range's kept slots gives each range its
 * output offset; a second moves the values. Bitmaps (the validity, boolean
 * data) go per range to scratch words starting at the range's bit offset
 * within its first word, and are then spliced together. */
typedef struct filter_job {
  const am_array *array;
  keep_mask keep;
  bit_source validity_src; /* used when with_validity */
  int64_t n;
  int parts, width, with_validity;
  const char *x;
  char *o;
  uint64_t *validity, *data_bits; /* outputs when they are bitmaps */
  uint64_t *scratch;              /* per range: words from scratch_at[part] */
  int64_t kept[64], offset[65], scratch_at[64], valid[64], ones[64];
} filter_job;

static void filter_count_part(void *ctx, int part) {
  filter_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  job->kept[part] = end > begin ? count_kept(&job->keep, begin, end) : 0;
}

/* Bits of one range into its scratch words; returns the set bits. */
static int64_t filter_bits_part(filter_job *job, int part, const bit_source *src, int64_t begin,
                                int64_t end, uint64_t *scratch) {
  scratch[0] = 0;
  return filter_bits(src, &job->keep, begin, end, job->n, scratch, job->offset[part] % 64);
}

static void filter_move_part(void *ctx, int part) {
  filter_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  const am_array *array = job->array;
  /* No scratch at all when nothing is a bitmap (and NULL + 0 is undefined). */
  uint64_t *scratch = job->scratch ? job->scratch + job->scratch_at[part] : NULL;
  int64_t words = (job->kept[part] + 63) / 64 + 2;
  job->valid[part] = job->ones[part] = 0;
  if (end <= begin) return;
  if (job->validity)
    job->valid[part] = filter_bits_part(job, part, &job->validity_src, begin, end, scratch);
  if (job->width == 1) {
    bit_source data = {array->data, NULL, array->offset, 0};
    job->ones[part] =
        filter_bits_part(job, part, &data, begin, end, scratch + (job->validity ? words : 0));
    return;
  }
  int exact = part + 1 < job->parts;
  void *o = job->o + job->offset[part] * (job->width / 8);
  switch (job->width / 8) {
#define CASE(W, TW)                                               \
  case W:                                                         \
    filter_##W(job->x, &job->keep, begin, end, job->n, exact, o); \
    break;
    WIDTHS(CASE)
#undef CASE
  }
}

/* Splices the ranges' scratch bitmaps (`second`: the data bits, which follow
 * the validity's in each range's scratch) into dst. */
static void filter_splice(const filter_job *job, int second, uint64_t *dst) {
  for (int p = 0; p < job->parts; p++) {
    int64_t kept = job->kept[p];
    if (!kept) continue;
    int64_t words = (kept + 63) / 64 + 2;
    const uint64_t *scratch = job->scratch + job->scratch_at[p] + (second ? words : 0);
    int64_t first = job->offset[p] / 64, last = (job->offset[p] + kept - 1) / 64;
    dst[first] = job->offset[p] % 64 ? dst[first] | scratch[0] : scratch[0];
    if (last > first) memcpy(dst + first + 1, scratch + 1, (size_t)(last - first) * 8);
  }
}

static int filter_parallel(am_err *err, filter_job *job, am_array **out) {
  const am_array *array = job->array;
  am_pool_run(job->parts, filter_count_part, job);
  job->offset[0] = 0;
  int64_t scratch_words = 0;
  int bitmaps = job->with_validity + (job->width == 1);
  for (int p = 0; p < job->parts; p++) {
    job->offset[p + 1] = job->offset[p] + job->kept[p];
    job->scratch_at[p] = scratch_words;
    scratch_words += bitmaps * ((job->kept[p] + 63) / 64 + 2);
  }
  int64_t kept = job->offset[job->parts];
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), array->type, kept, 0, &result);
  if (status != AM_OK) return status;
  am_buffer *validity = NULL, *scratch = NULL;
  if (bitmaps) {
    scratch = am_buffer_alloc_host(scratch_words * 8);
    if (job->with_validity) validity = am_buffer_alloc_host((kept + 7) / 8);
    if (!scratch || (job->with_validity && !validity)) {
      am_buffer_release(scratch);
      am_buffer_release(validity);
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)kept);
    }
    job->scratch = scratch->ptr;
  }
  job->o = result->data_buf->ptr;
  job->validity = validity ? validity->ptr : NULL;
  job->data_bits = job->width == 1 ? result->data_buf->ptr : NULL;
  am_pool_run(job->parts, filter_move_part, job);
  int64_t valid = 0;
  for (int p = 0; p < job->parts; p++) valid += job->valid[p];
  if (job->validity) filter_splice(job, 0, job->validity);
  if (job->data_bits) filter_splice(job, job->validity != NULL, job->data_bits);
  am_buffer_release(scratch);
  if (validity) am_cpu_set_validity(result, validity, valid);
  *out = result;
  return AM_OK;
}

int am_cpu_filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out) {
  int64_t n = array->length;
  int mask_nulls = am_cpu_has_nulls(mask), emit = nulls == AM_NULL_EMIT && mask_nulls;
  keep_mask keep = {mask->data, mask_nulls ? mask->validity : NULL, mask->offset, emit};
  /* The result's validity: the input's, and with emit_null the mask's. */
  int with_validity = am_cpu_has_nulls(array) || emit;
  bit_source validity_src = {am_cpu_has_nulls(array) ? array->validity : NULL,
                             emit ? mask->validity : NULL, array->offset, mask->offset};
  int width = am_type_bits(array->type);
  int parts = am_pool_parts(n);
  if (parts > 1) {
    filter_job job = {.array = array,
                      .keep = keep,
                      .validity_src = validity_src,
                      .n = n,
                      .parts = parts,
                      .width = width,
                      .with_validity = with_validity};
    job.x = width == 1 ? NULL : (const char *)array->data + array->offset * (width / 8);
    return filter_parallel(err, &job, out);
  }
  int64_t kept = count_kept(&keep, 0, n);
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), array->type, kept, 0, &result);
  if (status != AM_OK) return status;
  if (with_validity) {
    am_buffer *validity = am_buffer_alloc_host((kept + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)kept);
    }
    int64_t valid = filter_bits(&validity_src, &keep, 0, n, n, validity->ptr, 0);
    am_cpu_set_validity(result, validity, valid);
  }
  void *o = result->data_buf->ptr;
  if (width == 1) {
    bit_source data = {array->data, NULL, array->offset, 0};
    filter_bits(&data, &keep, 0, n, n, o, 0);
  } else {
    const void *x = (const char *)array->data + array->offset * (width / 8);
    switch (width / 8) {
#define CASE(W, TW)                      \
  case W:                                \
    filter_##W(x, &keep, 0, n, n, 0, o); \
    break;
      WIDTHS(CASE)
#undef CASE
    }
  }
  *out = result;
  return AM_OK;
}

/* ---- take */

/* Indices are checked as unsigned, which turns negative ones into huge ones.
 * Every slot gathers, an out-of-bounds (so null, or failing) one from 0, and
 * the kernel says whether any index was out of bounds at all. Random gathers
 * wait on memory: prefetching the slot PREFETCH indices ahead keeps several
 * misses in flight. */
#define PREFETCH 32
#define DEFINE_TAKE(W, TW, I, NI)                                                             \
  AM_CPU_CLONES static int take_##W##_##NI(const void *src, uint64_t length, const void *idx, \
                                           int64_t n, void *dst) {                            \
    const TW *x = src;                                                                        \
    const I *index = idx;                                                                     \
    TW *o = dst;                                                                              \
    int bad = 0;                                                                              \
    for (int64_t i = 0; i < n; i++) {                                                         \
      if (i + PREFETCH < n) {                                                                 \
        uint64_t ahead = (uint64_t)(int64_t)index[i + PREFETCH];                              \
        __builtin_prefetch(x + (ahead < length ? ahead : 0));                                 \
      }                                                                                       \
      uint64_t k = (uint64_t)(int64_t)index[i];                                               \
      bad |= k >= length;                                                                     \
      o[i] = x[k < length ? k : 0];                                                           \
    }                                                                                         \
    return bad;                                                                               \
  }
#define DEFINE_TAKES(W, TW) DEFINE_TAKE(W, TW, int32_t, i32) DEFINE_TAKE(W, TW, int64_t, i64)
WIDTHS(DEFINE_TAKES)

/* Gathers bits of `src` (from bit spos) at the indices into `dst` like
 * take_W_NI; returns the number of set bits and sets *bad as take_W_NI does. */
#define DEFINE_TAKE_BITS(I, NI)                                                                  \
  AM_CPU_CLONES static int64_t take_bits_##NI(const uint8_t *src, int64_t spos, uint64_t length, \
                                              const void *idx, int64_t n, uint64_t *dst,         \
                                              int *bad) {                                        \
    const I *index = idx;                                                                        \
    int64_t ones = 0;                                                                            \
    int outside = 0;                                                                             \
    for (int64_t i = 0; i < n; i += 64) {                                                        \
      int64_t m = n - i < 64 ? n - i : 64;                                                       \
      uint64_t word = 0;                                                                         \
      for (int64_t j = 0; j < m; j++) {                                                          \
        uint64_t k = (uint64_t)(int64_t)index[i + j];                                            \
        outside |= k >= length;                                                                  \
        word |= (uint64_t)am_bit_get(src, spos + (int64_t)(k < length ? k : 0)) << j;            \
      }                                                                                          \
      dst[i >> 6] = word;                                                                        \
      ones += am_popcount64(word);                                                               \
    }                                                                                            \
    *bad = outside;                                                                              \
    return ones;                                                                                 \
  }
DEFINE_TAKE_BITS(int32_t, i32)
DEFINE_TAKE_BITS(int64_t, i64)

static int64_t index_at(const am_array *indices, int64_t i) {
  int64_t slot = indices->offset + i;
  return indices->type == AM_INT32 ? ((const int32_t *)indices->data)[slot]
                                   : ((const int64_t *)indices->data)[slot];
}

/* Fails with the first valid index out of [0, length), if there is one. */
static int check_bounds(am_err *err, const am_array *indices, uint64_t length) {
  const uint8_t *valid = am_cpu_has_nulls(indices) ? indices->validity : NULL;
  for (int64_t i = 0; i < indices->length; i++) {
    int64_t k = index_at(indices, i);
    if ((uint64_t)k >= length && (!valid || am_bit_get(valid, indices->offset + i)))
      return am_fail(err, AM_EINDEX, "index %lld out of bounds for length %lld", (long long)k,
                     (long long)length);
  }
  return AM_OK;
}

/* In parallel: ranges of the output (whole words of its bitmaps). The data
 * pass and the validity pass each run as one job. */
typedef struct take_job {
  const uint8_t *src; /* bitmap source (bits), or NULL for values */
  int64_t spos;
  const char *x, *idx;
  int wide, width;
  uint64_t length;
  int64_t n;
  int parts;
  void *o;
  int bad[64];
  int64_t ones[64];
} take_job;

static void take_part(void *ctx, int part) {
  take_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  job->bad[part] = 0;
  job->ones[part] = 0;
  if (end <= begin) return;
  const char *idx = job->idx + begin * (job->wide ? 8 : 4);
  if (job->src) {
    uint64_t *dst = (uint64_t *)job->o + begin / 64;
    job->ones[part] = (job->wide ? take_bits_i64 : take_bits_i32)(
        job->src, job->spos, job->length, idx, end - begin, dst, &job->bad[part]);
    return;
  }
  void *o = (char *)job->o + begin * (job->width / 8);
  switch (job->width / 8) {
#define CASE(W, TW)                                                                              \
  case W:                                                                                        \
    job->bad[part] =                                                                             \
        (job->wide ? take_##W##_i64 : take_##W##_i32)(job->x, job->length, idx, end - begin, o); \
    break;
    WIDTHS(CASE)
#undef CASE
  }
}

/* Runs a take job; returns the set bits (bitmaps) and sets *bad. */
static int64_t take_parallel(take_job *job, int *bad) {
  am_pool_run(job->parts, take_part, job);
  int64_t ones = 0;
  for (int p = 0; p < job->parts; p++) {
    *bad |= job->bad[p];
    ones += job->ones[p];
  }
  return ones;
}

int am_cpu_take(am_err *err, const am_array *array, const am_array *indices, am_array **out) {
  if (indices->type != AM_INT32 && indices->type != AM_INT64)
    return am_fail(err, AM_ETYPE, "indices must be int32 or int64, not %s",
                   am_type_name(indices->type));
  if (am_type_is_binary(array->type)) return am_cpu_string_take(err, array, indices, out);
  int64_t n = indices->length;
  uint64_t length = (uint64_t)array->length;
  int wide = indices->type == AM_INT64;
  const void *idx = (const char *)indices->data + indices->offset * (wide ? 8 : 4);
  int status;
  /* Nothing to gather from: every index must be null. */
  if (length == 0) {
    if ((status = check_bounds(err, indices, length)) != AM_OK) return status;
    return am_cpu_null_result(err, am_cpu_device(), array->type, n, out);
  }
  am_array *result = NULL;
  if ((status = am_cpu_result(err, array->type, n, indices, NULL, &result)) != AM_OK) return status;
  void *o = result->data_buf->ptr;
  int width = am_type_bits(array->type), bad = 0;
  int parts = am_pool_parts(n);
  take_job job = {
      .idx = idx, .wide = wide, .width = width, .length = length, .n = n, .parts = parts, .o = o};
  if (parts > 1) {
    if (width == 1) job.src = array->data, job.spos = array->offset;
    job.x = (const char *)array->data + array->offset * (width / 8);
    take_parallel(&job, &bad);
  } else if (width == 1) {
    (wide ? take_bits_i64 : take_bits_i32)(array->data, array->offset, length, idx, n, o, &bad);
  } else {
    const void *x = (const char *)array->data + array->offset * (width / 8);
    switch (width / 8) {
#define CASE(W, TW)                                                       \
  case W:                                                                 \
    bad = (wide ? take_##W##_i64 : take_##W##_i32)(x, length, idx, n, o); \
    break;
      WIDTHS(CASE)
#undef CASE
    }
  }
  /* An out-of-bounds index under a null slot is no error. */
  if (bad && (status = check_bounds(err, indices, length)) != AM_OK) {
    am_array_free(result);
    return status;
  }
  if (am_cpu_has_nulls(array)) {
    am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)n);
    }
    int64_t valid;
    if (parts > 1) {
      job.src = array->validity, job.spos = array->offset, job.o = validity->ptr;
      valid = take_parallel(&job, &bad);
    } else {
      valid = (wide ? take_bits_i64 : take_bits_i32)(array->validity, array->offset, length, idx, n,
                                                     validity->ptr, &bad);
    }
    /* Null indices: AND with the index validity the result started with. */
    if (result->validity)
      valid = am_bits_combine(AM_BITS_AND, validity->ptr, validity->ptr, 0, result->validity, 0, n);
    am_buffer_release(result->validity_buf);
    am_cpu_set_validity(result, validity, valid);
  }
  *out = result;
  return AM_OK;
}
