/* Boolean logic on the CPU: every am_logic_op over two arrays, or an array
 * and a bool scalar.
 *
 * The null-propagating ops are word-wide bit operations of the values, with
 * the validity that am_cpu_result makes (the input's own bitmap, shared,
 * where it can). A Kleene op over inputs without a null is the plain op of
 * the same name (the two logics differ only where a null is), so it takes
 * the same path; over nulls its validity depends on the values, and
 * kleene.c computes both. */
#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"
#include "pool.h"

/* What the values of the result are, as a function of at most two bitmaps:
 * an am_bits_op, or a constant (an operand that is a scalar decides some
 * ops by itself). */
typedef enum { VALUES_BITS, VALUES_ZERO, VALUES_ONES } values_kind;

typedef struct logic_job {
  am_bits_op bits;
  uint64_t *dst;
  const am_array *left, *right;
  int parts;
} logic_job;

/* Part `part` of the slots: ranges start on 64 slots, so each writes whole
 * words of the offset-0 result. */
static void logic_part(void *ctx, int part) {
  const logic_job *job = ctx;
  int64_t begin, end;
  am_pool_range(job->left->length, job->parts, part, &begin, &end);
  if (end <= begin) return;
  const am_array *l = job->left, *r = job->right;
  am_bits_apply(job->bits, job->dst + begin / 64, l->data, l->offset + begin, r ? r->data : NULL,
                r ? r->offset + begin : 0, end - begin);
}

/* The bit operation of a null-propagating op over two arrays (or one, NOT). */
static am_bits_op bits_of(am_logic_op op) {
  switch (op) {
    case AM_LOGIC_AND:
      return AM_BITS_AND;
    case AM_LOGIC_OR:
      return AM_BITS_OR;
    case AM_LOGIC_NOT:
      return AM_BITS_NOT;
    case AM_LOGIC_XOR:
      return AM_BITS_XOR;
    default: /* AM_LOGIC_AND_NOT */
      return AM_BITS_ANDNOT;
  }
}

/* The values of `array (op) s`, or `s (op) array` when `scalar_left`, for a
 * valid scalar s and a null-propagating binary op. */
static values_kind with_scalar(am_logic_op op, int s, int scalar_left, am_bits_op *bits) {
  *bits = AM_BITS_COPY;
  switch (op) {
    case AM_LOGIC_AND:
      return s ? VALUES_BITS : VALUES_ZERO;
    case AM_LOGIC_OR:
      return s ? VALUES_ONES : VALUES_BITS;
    case AM_LOGIC_XOR:
      if (s) *bits = AM_BITS_NOT;
      return VALUES_BITS;
    default: /* AM_LOGIC_AND_NOT */
      if (scalar_left) {
        *bits = AM_BITS_NOT; /* s AND NOT array */
        return s ? VALUES_BITS : VALUES_ZERO;
      }
      return s ? VALUES_ZERO : VALUES_BITS; /* array AND NOT s */
  }
}

/* The plain op that a Kleene op is when no input slot is null. */
static am_logic_op plain_of(am_logic_op op) {
  switch (op) {
    case AM_LOGIC_AND_KLEENE:
      return AM_LOGIC_AND;
    case AM_LOGIC_OR_KLEENE:
      return AM_LOGIC_OR;
    case AM_LOGIC_AND_NOT_KLEENE:
      return AM_LOGIC_AND_NOT;
    default:
      return op;
  }
}

int am_cpu_logic(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, int scalar_left, am_array **out) {
  if (left->type != AM_BOOL || (right && right->type != AM_BOOL) ||
      (scalar && scalar->type != AM_BOOL))
    return am_fail(err, AM_ETYPE, "boolean logic needs bool operands");
  if ((unsigned)op > AM_LOGIC_AND_NOT_KLEENE)
    return am_fail(err, AM_EINVAL, "unknown logic op %d", (int)op);
  int scalar_null = scalar && scalar->is_null;
  if (plain_of(op) != op) {
    if (scalar_null || am_cpu_has_nulls(left) || (right && am_cpu_has_nulls(right)))
      return am_cpu_kleene(err, op, left, right, scalar, scalar_left, out);
    op = plain_of(op);
  }
  /* A null scalar under a propagating op: every slot is null. */
  if (scalar_null) return am_cpu_null_result(err, am_cpu_device(), AM_BOOL, left->length, out);
  am_array *result = NULL;
  int status = am_cpu_result(err, AM_BOOL, left->length, left, right, &result);
  if (status != AM_OK) return status;
  logic_job job = {.bits = bits_of(op),
                   .dst = result->data_buf->ptr,
                   .left = left,
                   .right = right,
                   .parts = am_pool_bit_parts(left->length)};
  values_kind kind = VALUES_BITS;
  if (scalar) kind = with_scalar(op, scalar->i64 != 0, scalar_left, &job.bits);
  if (kind == VALUES_BITS)
    am_pool_run(job.parts, logic_part, &job);
  else
    am_bits_fill(job.dst, left->length, kind == VALUES_ONES);
  *out = result;
  return AM_OK;
}
