/* The exported op table (core/ops.c holds it). */
#include <string.h>

#include "abi.h"
#include "core/ops.h"

AM_EXPORT int am_function_count(void) { return am_op_count; }

static int function_info(am_err *err, int index, am_function_info *out) {
  AM_REQUIRE(out, "out");
  if (index < 0 || index >= am_op_count)
    return am_fail(err, AM_EINVAL, "function %d is out of range (0 to %d)", index, am_op_count - 1);
  const am_op_desc *op = &am_ops[index];
  memset(out, 0, sizeof *out);
  out->name = op->name;
  out->entry = op->entry;
  out->family = op->family;
  out->op = op->op;
  out->arity = op->arity;
  out->kinds = op->kinds;
  out->type_rule = op->type_rule;
  out->null_rule = op->null_rule;
  return AM_OK;
}

AM_EXPORT int am_function_info_get(int index, am_function_info *out) {
  AM_API_BEGIN;
  AM_API_RETURN(function_info(err, index, out));
}
