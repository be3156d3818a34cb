/* and, or, not on booleans: word-wide bit operations (not Kleene: a null
 * input gives a null result). */
#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"
#include "pool.h"

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

int am_cpu_logic(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                 am_array **out) {
  if (left->type != AM_BOOL || (right && right->type != AM_BOOL))
    return am_fail(err, AM_ETYPE, "boolean logic needs bool operands");
  am_array *result = NULL;
  int status = am_cpu_result(err, AM_BOOL, left->length, left, right, &result);
  if (status != AM_OK) return status;
  /* The pool's threshold counts slots of a wide type; a 64-bit word of bits
   * is the comparable unit of work here. */
  logic_job job = {.bits = op == AM_LOGIC_AND  ? AM_BITS_AND
                           : op == AM_LOGIC_OR ? AM_BITS_OR
                                               : AM_BITS_NOT,
                   .dst = result->data_buf->ptr,
                   .left = left,
                   .right = right,
                   .parts = am_pool_parts(left->length / 64)};
  am_pool_run(job.parts, logic_part, &job);
  *out = result;
  return AM_OK;
}
