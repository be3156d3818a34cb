/* if_else (am_if_else): slot i of the left side where the condition is
 * true, of the right side where it is false, null where it is null.
 *
 * Values move as bits, 64 slots at a time along the condition: a word whose
 * slots are all true copies the left side (or repeats its scalar), one all
 * false the right, and only a mixed word selects slot by slot. Booleans and
 * the validity are whole-word masks: valid = cond_valid & (cond ? left_valid
 * : right_valid). */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Slots [0, n) of out: where bit i of `c` (from bit `cpos`) is set, l[i] (or
 * the bits `ls` where l is NULL), else r[i] (or `rs`). */
#define DEFINE_PICK(T)                                                                            \
  AM_CPU_CLONES static void pick_##T(void *out, const void *left, uint64_t ls, const void *right, \
                                     uint64_t rs, const uint8_t *c, int64_t cpos, int64_t n) {    \
    T *o = out;                                                                                   \
    const T *l = left, *r = right, lv = (T)ls, rv = (T)rs;                                        \
    for (int64_t i = 0; i < n; i += 64) {                                                         \
      const int64_t m = n - i < 64 ? n - i : 64;                                                  \
      const uint64_t w = am_bits_load(c, cpos + i, m);                                            \
      const int all = w == am_bits_mask(m);                                                       \
      const T *from = all ? l : w == 0 ? r : NULL;                                                \
      if ((all || w == 0) && from) {                                                              \
        memcpy(o + i, from + i, (size_t)m * sizeof(T));                                           \
      } else if (all || w == 0) {                                                                 \
        for (int64_t j = 0; j < m; j++) o[i + j] = all ? lv : rv;                                 \
      } else {                                                                                    \
        for (int64_t j = 0; j < m; j++)                                                           \
          o[i + j] = (w >> j) & 1 ? (l ? l[i + j] : lv) : (r ? r[i + j] : rv);                    \
      }                                                                                           \
    }                                                                                             \
  }
DEFINE_PICK(uint8_t)
DEFINE_PICK(uint16_t)
DEFINE_PICK(uint32_t)
DEFINE_PICK(uint64_t)

typedef void (*pick_fn)(void *out, const void *left, uint64_t ls, const void *right, uint64_t rs,
                        const uint8_t *c, int64_t cpos, int64_t n);

/* One side: an array, or a scalar's bits and whether it is valid. */
typedef struct side {
  const am_array *array;
  uint64_t bits;
  int valid;
} side;

/* Validity of slots [pos, pos + m) of a side (relative to slot 0). */
static uint64_t side_valid(const side *s, int64_t pos, int64_t m) {
  if (!s->array) return s->valid ? am_bits_mask(m) : 0;
  return am_cpu_has_nulls(s->array) ? am_bits_load(s->array->validity, s->array->offset + pos, m)
                                    : am_bits_mask(m);
}

/* Boolean values of slots [pos, pos + m) of a side. */
static uint64_t side_bits(const side *s, int64_t pos, int64_t m) {
  if (!s->array) return s->bits ? am_bits_mask(m) : 0;
  return am_bits_load(s->array->data, s->array->offset + pos, m);
}

static const char *side_data(const side *s, int64_t pos, int64_t width) {
  return s->array ? (const char *)s->array->data + (s->array->offset + pos) * width : NULL;
}

typedef struct if_else_job {
  const am_array *cond;
  side left, right;
  pick_fn pick; /* NULL for bool */
  int64_t width;
  char *out;
  uint64_t *out_valid; /* NULL: every slot is valid */
  int parts;
  int64_t valid[64];
} if_else_job;

/* Slots [begin, end) of part `part`: ranges start on 64 slots, so each part
 * writes whole words of the offset-0 bitmaps. */
static void if_else_part(void *ctx, int part) {
  if_else_job *job = ctx;
  const am_array *c = job->cond;
  int64_t begin, end;
  am_pool_range(c->length, job->parts, part, &begin, &end);
  job->valid[part] = 0;
  if (end <= begin) return;
  int64_t n = end - begin;
  if (job->pick)
    job->pick(job->out + begin * job->width, side_data(&job->left, begin, job->width),
              job->left.bits, side_data(&job->right, begin, job->width), job->right.bits, c->data,
              c->offset + begin, n);
  int has_cond_nulls = am_cpu_has_nulls(c);
  int64_t valid = 0;
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t m = n - i < 64 ? n - i : 64, pos = begin + i;
    const uint64_t w = am_bits_load(c->data, c->offset + pos, m);
    if (!job->pick)
      ((uint64_t *)job->out)[pos / 64] = (w & side_bits(&job->left, pos, m)) |
                                         (~w & side_bits(&job->right, pos, m) & am_bits_mask(m));
    if (job->out_valid) {
      uint64_t v = (w & side_valid(&job->left, pos, m)) | (~w & side_valid(&job->right, pos, m));
      if (has_cond_nulls) v &= am_bits_load(c->validity, c->offset + pos, m);
      v &= am_bits_mask(m);
      job->out_valid[pos / 64] = v;
      valid += am_popcount64(v);
    }
  }
  job->valid[part] = valid;
}

static int side_may_be_null(const side *s) {
  return s->array ? am_cpu_has_nulls(s->array) : !s->valid;
}

int am_cpu_if_else(am_err *err, const am_array *cond, const am_array *left,
                   const am_scalar *left_scalar, const am_array *right,
                   const am_scalar *right_scalar, am_array **out) {
  am_type t = left ? left->type : (am_type)left_scalar->type;
  int64_t n = cond->length;
  if_else_job job = {.cond = cond, .width = am_type_bits(t) / 8};
  job.left = (side){left, 0, 1};
  job.right = (side){right, 0, 1};
  if (!left)
    job.left = (side){NULL, left_scalar->is_null ? 0 : am_cpu_scalar_bits(t, left_scalar),
                      !left_scalar->is_null};
  if (!right)
    job.right = (side){NULL, right_scalar->is_null ? 0 : am_cpu_scalar_bits(t, right_scalar),
                       !right_scalar->is_null};
  static const pick_fn by_width[9] = {
      [1] = pick_uint8_t, [2] = pick_uint16_t, [4] = pick_uint32_t, [8] = pick_uint64_t};
  job.pick = t == AM_BOOL ? NULL : by_width[job.width];
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), t, n, 0, &result);
  if (status != AM_OK) return status;
  am_buffer *validity = NULL;
  if (am_cpu_has_nulls(cond) || side_may_be_null(&job.left) || side_may_be_null(&job.right)) {
    validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)n);
    }
  }
  job.out = result->data_buf->ptr;
  job.out_valid = validity ? validity->ptr : NULL;
  job.parts = am_pool_parts(n);
  am_pool_run(job.parts, if_else_part, &job);
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
