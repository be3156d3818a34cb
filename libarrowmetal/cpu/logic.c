/* and, or, not on booleans: word-wide bit operations (not Kleene: a null
 * input gives a null result). */
#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"

int am_cpu_logic(am_logic_op op, const am_array *left, const am_array *right, am_array **out) {
  if (left->type != AM_BOOL || (right && right->type != AM_BOOL))
    return am_error(AM_ETYPE, "boolean logic needs bool operands");
  am_array *result = NULL;
  int status = am_cpu_result(AM_BOOL, left->length, left, right, &result);
  if (status != AM_OK) return status;
  am_bits_op bits = op == AM_LOGIC_AND ? AM_BITS_AND : op == AM_LOGIC_OR ? AM_BITS_OR : AM_BITS_NOT;
  am_bits_combine(bits, result->data_buf->ptr, left->data, left->offset, right ? right->data : NULL,
                  right ? right->offset : 0, left->length);
  *out = result;
  return AM_OK;
}
