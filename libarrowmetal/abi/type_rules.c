/* pyarrow's type rules, decided here once for every backend: which element
 * types a function takes, what its operands are converted to, and the type
 * of its result, from the op table's rows (core/ops.h). */
#include "abi.h"
#include "core/ops.h"

int am_accepts(const am_op_desc *op, am_type type) {
  int kind = am_type_kind_of(type);
  return kind >= 0 && (op->kinds & (1 << kind)) != 0;
}

am_type am_operand_type(const am_op_desc *op, am_type left, am_type right) {
  if (!am_accepts(op, left) || (op->arity == 2 && !am_accepts(op, right))) return AM_TYPE_INVALID;
  if (op->arity == 1)  // a function of floats computes integers as float64
    return op->type_rule == AM_RULE_MATH && !am_type_is_float(left) ? AM_FLOAT64 : left;
  /* Booleans only meet booleans; numbers meet in their common numeric type.
   * A function of floats (atan2) converts each integer operand to float64
   * first, as pyarrow does: int64 and float32 meet in float64. */
  if (left == AM_BOOL || right == AM_BOOL) return left == right ? AM_BOOL : AM_TYPE_INVALID;
  if (op->type_rule == AM_RULE_MATH) {
    if (!am_type_is_float(left)) left = AM_FLOAT64;
    if (!am_type_is_float(right)) right = AM_FLOAT64;
  }
  return am_common_numeric(left, right);
}

am_type am_result_type(const am_op_desc *op, am_type operand) {
  switch (op->type_rule) {
    case AM_RULE_SAME:
    case AM_RULE_COMMON:
    case AM_RULE_VALUES:
    case AM_RULE_COMMON_ALL:
    case AM_RULE_COMMON_REST:
      return operand;
    case AM_RULE_SUM:
      return am_type_is_float(operand)    ? AM_FLOAT64
             : am_type_is_signed(operand) ? AM_INT64
                                          : AM_UINT64;
    case AM_RULE_FLOAT64:
      return AM_FLOAT64;
    case AM_RULE_INT64:
      return AM_INT64;
    case AM_RULE_INT32:
      return AM_INT32;
    case AM_RULE_UINT64:
      return AM_UINT64;
    case AM_RULE_MATH:
      return am_type_is_float(operand) ? operand : AM_FLOAT64;
    case AM_RULE_SIGN:
      return am_type_is_float(operand) ? operand : AM_INT8;
    case AM_RULE_COMMON_TO_BOOL:
    case AM_RULE_BOOL:
    case AM_RULE_PREDICATE:
      return AM_BOOL;
    case AM_RULE_UTF8:
      return AM_UTF8;
    case AM_RULE_TARGET:
      break;
  }
  return AM_TYPE_INVALID;
}

int am_no_kernel(am_err *err, const am_op_desc *op, am_type left, am_type right) {
  if (op->arity == 1)
    return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s)", op->name,
                   am_type_name(left));
  return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s, %s)",
                 op->name, am_type_name(left), am_type_name(right));
}
