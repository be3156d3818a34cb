/* The Kleene ops (and_kleene, or_kleene, and_not_kleene) over inputs with
 * nulls: a null is an unknown truth value, so whether a result slot is valid
 * depends on the other operand's value. Value and validity are computed
 * together, 64 slots a word, from the words of both operands' values (x, y)
 * and validity (vx, vy):
 *
 *   and_kleene      valid = vx&vy | vx&~x | vy&~y     value = x & y
 *   or_kleene       valid = vx&vy | vx&x  | vy&y      value = x&vx | y&vy
 *   and_not_kleene  and_kleene with y replaced by ~y
 *
 * (a false operand decides AND, a true one OR). Bits under a null are
 * whatever the input holds, so each term masks them with its own validity;
 * the value is then masked with the result's validity, so null result slots
 * hold false. An operand that is a scalar is a constant word of each. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"
#include "pool.h"

/* One operand: an array's bitmaps from bit `pos` (`valid` NULL when it has
 * no nulls), or, when `bits` is NULL, the constant words of a scalar. */
typedef struct operand {
  const uint8_t *bits, *valid;
  int64_t pos;
  uint64_t value, validity;
} operand;

static operand array_operand(const am_array *array) {
  operand o = {.bits = array->data,
               .valid = am_cpu_has_nulls(array) ? array->validity : NULL,
               .pos = array->offset};
  return o;
}

static operand scalar_operand(const am_scalar *scalar) {
  operand o = {.bits = NULL,
               .value = !scalar->is_null && scalar->i64 ? ~(uint64_t)0 : 0,
               .validity = scalar->is_null ? 0 : ~(uint64_t)0};
  return o;
}

/* Bits [pos, pos + 64); `aligned` (a constant in each caller) says pos is a
 * multiple of 8, where the word is one plain load. */
static inline __attribute__((always_inline)) uint64_t word_at(const uint8_t *bits, int64_t pos,
                                                              int aligned) {
  if (!aligned) return am_bits_word(bits, pos);
  uint64_t word;
  memcpy(&word, bits + (pos >> 3), 8);
  return word;
}

/* The operand's value and validity words for slots [i, i + 64), or, when
 * `full` is 0, for the n - i < 64 slots of the tail (zero above them). */
static inline __attribute__((always_inline)) void load(const operand *o, int64_t i, int64_t n,
                                                       int full, int aligned, uint64_t *x,
                                                       uint64_t *v) {
  if (!o->bits) {
    *x = o->value;
    *v = o->validity;
  } else if (full) {
    *x = word_at(o->bits, o->pos + i, aligned);
    *v = o->valid ? word_at(o->valid, o->pos + i, aligned) : ~(uint64_t)0;
  } else {
    *x = am_bits_tail(o->bits, o->pos + i, n - i);
    *v = o->valid ? am_bits_tail(o->valid, o->pos + i, n - i) : ~(uint64_t)0;
  }
}

/* Value and validity of word i >> 6 of the result; returns its valid slots.
 * `not_y` turns and_kleene into and_not_kleene. */
static inline __attribute__((always_inline)) int64_t kleene_word(int or_op, int not_y, int full,
                                                                 int aligned, uint64_t *dst,
                                                                 uint64_t *dst_valid,
                                                                 const operand *a, const operand *b,
                                                                 int64_t i, int64_t n) {
  uint64_t x, vx, y, vy;
  load(a, i, n, full, aligned, &x, &vx);
  load(b, i, n, full, aligned, &y, &vy);
  if (not_y) y = ~y;
  uint64_t valid, value;
  if (or_op) {
    valid = (vx & vy) | (vx & x) | (vy & y);
    value = (x & vx) | (y & vy);
  } else {
    valid = (vx & vy) | (vx & ~x) | (vy & ~y);
    value = x & y;
  }
  /* In the tail word the bits past n stay zero (a constant's are all set). */
  if (!full) valid &= am_bits_mask(n - i);
  dst[i >> 6] = value & valid;
  dst_valid[i >> 6] = valid;
  return am_popcount64(valid);
}

/* Writes value and validity words of slots [0, n) (offset 0); returns the
 * number of valid slots. One loop per op and alignment, so neither is
 * decided per word. */
static inline __attribute__((always_inline)) int64_t kleene_words(int or_op, int not_y, int aligned,
                                                                  uint64_t *dst,
                                                                  uint64_t *dst_valid,
                                                                  const operand *a,
                                                                  const operand *b, int64_t n) {
  int64_t count = 0, i = 0;
  for (; i + 64 <= n; i += 64)
    count += kleene_word(or_op, not_y, 1, aligned, dst, dst_valid, a, b, i, n);
  if (i < n) count += kleene_word(or_op, not_y, 0, aligned, dst, dst_valid, a, b, i, n);
  return count;
}

#define KLEENE_WORDS(ALIGNED)                                      \
  switch (op) {                                                    \
    case AM_LOGIC_OR_KLEENE:                                       \
      return kleene_words(1, 0, ALIGNED, dst, dst_valid, a, b, n); \
    case AM_LOGIC_AND_NOT_KLEENE:                                  \
      return kleene_words(0, 1, ALIGNED, dst, dst_valid, a, b, n); \
    default: /* AM_LOGIC_AND_KLEENE */                             \
      return kleene_words(0, 0, ALIGNED, dst, dst_valid, a, b, n); \
  }

static AM_CPU_CLONES int64_t kleene_range(am_logic_op op, uint64_t *dst, uint64_t *dst_valid,
                                          const operand *a, const operand *b, int64_t n) {
  /* Operands that start on a byte (offset 0, the common case) load words
   * without shifting. */
  if ((!a->bits || a->pos % 8 == 0) && (!b->bits || b->pos % 8 == 0)) KLEENE_WORDS(1);
  KLEENE_WORDS(0);
}

typedef struct kleene_job {
  am_logic_op op;
  uint64_t *dst, *dst_valid;
  operand a, b;
  int64_t n;
  int parts;
  int64_t valid[64]; /* per part; the pool runs at most 64 */
} kleene_job;

/* Part `part` of the slots: ranges start on 64 slots, so each writes whole
 * words of the offset-0 results. */
static void kleene_part(void *ctx, int part) {
  kleene_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->n, job->parts, part, &begin, &end);
  job->valid[part] = 0;
  if (end <= begin) return;
  operand a = job->a, b = job->b;
  a.pos += begin;
  b.pos += begin;
  job->valid[part] = kleene_range(job->op, job->dst + begin / 64, job->dst_valid + begin / 64, &a,
                                  &b, end - begin);
}

int am_cpu_kleene(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, int scalar_left, am_array **out) {
  if (op != AM_LOGIC_AND_KLEENE && op != AM_LOGIC_OR_KLEENE && op != AM_LOGIC_AND_NOT_KLEENE)
    return am_fail(err, AM_EINVAL, "logic op %d is not a Kleene op", (int)op);
  if ((right != NULL) == (scalar != NULL))
    return am_fail(err, AM_EINVAL, "a Kleene op takes a right array or a scalar");
  int64_t n = left->length;
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), AM_BOOL, n, 0, &result);
  if (status != AM_OK) return status;
  am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
  if (!validity) {
    am_array_free(result);
    return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots", (long long)n);
  }
  kleene_job job = {.op = op,
                    .dst = result->data_buf->ptr,
                    .dst_valid = validity->ptr,
                    .a = array_operand(left),
                    .n = n,
                    .parts = am_pool_parts(n)}; /* heavier than a plain bitmap op: pool.h */
  if (right) {
    job.b = array_operand(right);
  } else if (scalar_left) {
    job.b = job.a;
    job.a = scalar_operand(scalar);
  } else {
    job.b = scalar_operand(scalar);
  }
  int64_t valid = 0;
  if (job.parts == 1) {
    valid = kleene_range(op, job.dst, job.dst_valid, &job.a, &job.b, n);
  } else {
    am_pool_run(job.parts, kleene_part, &job);
    for (int p = 0; p < job.parts; p++) valid += job.valid[p];
  }
  am_cpu_set_validity(result, validity, valid);
  *out = result;
  return AM_OK;
}
