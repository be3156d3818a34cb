/* coalesce of two (am_fill_null, and each step of am_coalesce): slot i of the
 * left array where it is valid, else of the right array or the scalar.
 *
 * Values move as bits (a copy, never a conversion), 64 slots at a time along
 * the left validity: a word whose slots are all valid copies left's values,
 * one with none valid copies right's (or repeats the scalar), and only a mixed
 * word selects slot by slot. Booleans select whole words with masks. The
 * result is valid where either side is: no bitmap when the right side has no
 * nulls (or is a scalar), else left | right. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Slots [0, n) of out from left (validity `lv` from bit `lpos`) and right
 * (NULL: the scalar's bits `s`). */
#define DEFINE_SELECT(T)                                                                           \
  AM_CPU_CLONES static void select_##T(void *out, const void *left, const void *right, uint64_t s, \
                                       const uint8_t *lv, int64_t lpos, int64_t n) {               \
    T *o = out;                                                                                    \
    const T *l = left, *r = right, sv = (T)s;                                                      \
    for (int64_t i = 0; i < n; i += 64) {                                                          \
      const int64_t m = n - i < 64 ? n - i : 64;                                                   \
      const uint64_t w = am_bits_valid(lv, lpos + i, m);                                           \
      if (w == am_bits_mask(m)) {                                                                  \
        memcpy(o + i, l + i, (size_t)m * sizeof(T));                                               \
      } else if (w == 0 && r) {                                                                    \
        memcpy(o + i, r + i, (size_t)m * sizeof(T));                                               \
      } else if (w == 0) {                                                                         \
        for (int64_t j = 0; j < m; j++) o[i + j] = sv;                                             \
      } else {                                                                                     \
        for (int64_t j = 0; j < m; j++) o[i + j] = (w >> j) & 1 ? l[i + j] : r ? r[i + j] : sv;    \
      }                                                                                            \
    }                                                                                              \
  }
DEFINE_SELECT(uint8_t)
DEFINE_SELECT(uint16_t)
DEFINE_SELECT(uint32_t)
DEFINE_SELECT(uint64_t)

typedef void (*select_fn)(void *out, const void *left, const void *right, uint64_t s,
                          const uint8_t *lv, int64_t lpos, int64_t n);

typedef struct coalesce_job {
  const am_array *left, *right; /* right NULL: the scalar */
  uint64_t scalar;
  select_fn select; /* NULL for bool */
  int64_t width;
  char *out;
  uint64_t *out_valid; /* NULL: every slot is valid */
  int parts;
  int64_t valid[64];
} coalesce_job;

/* Slots [begin, end) of part `part`: ranges start on 64 slots, so each part
 * writes whole words of the offset-0 bitmaps. */
static void coalesce_part(void *ctx, int part) {
  coalesce_job *job = ctx;
  const am_array *l = job->left, *r = job->right;
  int64_t begin, end;
  am_pool_range(l->length, job->parts, part, &begin, &end);
  job->valid[part] = 0;
  if (end <= begin) return;
  int64_t n = end - begin;
  const uint8_t *lv = am_cpu_has_nulls(l) ? l->validity : NULL;
  if (job->select) {
    job->select(job->out + begin * job->width,
                (const char *)l->data + (l->offset + begin) * job->width,
                r ? (const char *)r->data + (r->offset + begin) * job->width : NULL, job->scalar,
                lv, l->offset + begin, n);
  } else {
    uint64_t *dst = (uint64_t *)job->out + begin / 64;
    for (int64_t i = 0; i < n; i += 64) {
      const int64_t m = n - i < 64 ? n - i : 64;
      const uint64_t w = am_bits_valid(lv, l->offset + begin + i, m);
      const uint64_t x = am_bits_load(l->data, l->offset + begin + i, m);
      const uint64_t y =
          r ? am_bits_load(r->data, r->offset + begin + i, m) : (job->scalar ? am_bits_mask(m) : 0);
      dst[i / 64] = (x & w) | (y & ~w & am_bits_mask(m));
    }
  }
  if (job->out_valid)
    job->valid[part] = am_bits_combine(AM_BITS_OR, job->out_valid + begin / 64, l->validity,
                                       l->offset + begin, r->validity, r->offset + begin, n);
}

int am_cpu_coalesce(am_err *err, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out) {
  am_type t = left->type;
  int64_t n = left->length;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), t, n, 0, &result);
  if (status != AM_OK) return status;
  /* Null only where both sides are: a bitmap only when both have nulls. */
  am_buffer *validity = NULL;
  if (right && am_cpu_has_nulls(left) && am_cpu_has_nulls(right)) {
    validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)n);
    }
  }
  static const select_fn by_width[9] = {
      [1] = select_uint8_t, [2] = select_uint16_t, [4] = select_uint32_t, [8] = select_uint64_t};
  int64_t width = am_type_bits(t) / 8;
  coalesce_job job = {.left = left,
                      .right = right,
                      .scalar = scalar ? am_cpu_scalar_bits(t, scalar) : 0,
                      .select = t == AM_BOOL ? NULL : by_width[width],
                      .width = width,
                      .out = result->data_buf->ptr,
                      .out_valid = validity ? validity->ptr : NULL,
                      .parts = am_pool_parts(n)};
  am_pool_run(job.parts, coalesce_part, &job);
  if (validity) {
    int64_t valid = 0;
    for (int p = 0; p < job.parts; p++) valid += job.valid[p];
    am_cpu_set_validity(result, validity, valid);
  } else {
    atomic_store_explicit(&result->null_count, 0, memory_order_relaxed);
  }
  *out = result;
  return AM_OK;
}
