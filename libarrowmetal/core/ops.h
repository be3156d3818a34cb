/* The op descriptor table: every compute function the library has, as data.
 *
 * One row per pyarrow.compute function: its name, the C entry point and the
 * family enum value that select it, its arity, the kinds of element it
 * accepts, how its result type follows from its inputs (am_type_rule) and
 * what a null input does (am_null_rule). The ABI decides result types from
 * these rows (abi/types_rules.c), am_function_info_get() hands them to
 * bindings (the Python package builds its functions from them) and to the
 * conformance generator (which makes cases for every row).
 *
 * Element-wise functions of one array are one line each in AM_UNARY_OPS,
 * with the expression every backend computes. The same tokens are compiled
 * as C by the CPU backend (cpu/unary.c) and emitted as kernel source for
 * CUDA and Metal by gpu/kernel_source.c, so a new op of this family is that
 * line plus its enum value in include/arrowmetal.h. The vocabulary of the
 * expressions, which each of those places defines for its element type:
 *
 *   x               the input value, of the element type am_t
 *   AM_WRAP_NEG(x)  two's complement negation of an integer (computed in the
 *                   unsigned type am_u of the same width: it wraps, never traps)
 *   am_fabs(x)      the absolute value of a float (clears the sign bit)
 *   am_fneg(x)      the negation of a float (flips the sign bit, NaN's too:
 *                   IEEE 754's negate, which a GPU's neg instruction may not
 *                   do for NaN)
 *   am_sqrt(x), am_exp(x), am_log(x) (natural), am_log10(x), am_log2(x),
 *   am_log1p(x), am_floor(x), am_ceil(x), am_trunc(x), am_sin(x), am_cos(x),
 *   am_tan(x), am_asin(x), am_acos(x), am_atan(x)
 *                   C's functions of those names, in the float's precision
 *                   (sqrtf for float32); outside the domain they give NaN or
 *                   an infinity, as pyarrow's unchecked functions do
 *
 *   am_lowest       the smallest value of the integer type am_t
 *
 * Each line: X(enum value, pyarrow name, accepted kinds, type rule,
 * expression for signed integers, for unsigned integers, for floats, the
 * check for each of the three, its status and its message). For a kind the
 * op does not compute write 0: the CPU compiles a loop for it that is never
 * called, the GPU backends never emit it. A check is an expression of x that
 * is true for a valid slot the function refuses (the _checked variants:
 * pyarrow's overflow and domain errors), 0 where nothing is refused; the call
 * then fails with that status and message, naming the first such slot and
 * its value, and writes no result. The type rule:
 *   AM_RULE_SAME      the result has the input's type;
 *   AM_RULE_MATH      integers are converted to float64 first (pyarrow's
 *                     sqrt, ln, sin, floor, ... of integers are float64), so
 *                     only the float expression is ever computed;
 *   AM_RULE_SIGN      integers give int8 (-1, 0, 1), floats keep their type:
 *                     the integer expression is computed in the input's type
 *                     and narrowed after. */
#ifndef AM_CORE_OPS_H
#define AM_CORE_OPS_H

#include <stdint.h>

#include "arrowmetal.h"

/* Bits of am_type_kind, for the kinds a function accepts. */
#define AM_KINDS_BOOL (1 << AM_KIND_BOOL)
#define AM_KINDS_INTEGER ((1 << AM_KIND_SIGNED) | (1 << AM_KIND_UNSIGNED))
#define AM_KINDS_NUMERIC (AM_KINDS_INTEGER | (1 << AM_KIND_FLOAT))
#define AM_KINDS_ALL (AM_KINDS_BOOL | AM_KINDS_NUMERIC)
#define AM_KINDS_SIGNED_FLOAT ((1 << AM_KIND_SIGNED) | (1 << AM_KIND_FLOAT))
#define AM_KINDS_TEMPORAL (1 << AM_KIND_TEMPORAL)
#define AM_KINDS_BINARY (1 << AM_KIND_BINARY)

/* clang-format off */
#define AM_UNARY_OPS(X) \
  X(AM_NEGATE, "negate", AM_KINDS_NUMERIC, AM_RULE_SAME, AM_WRAP_NEG(x), AM_WRAP_NEG(x), am_fneg(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_ABS, "abs", AM_KINDS_NUMERIC, AM_RULE_SAME, ((x) < 0 ? AM_WRAP_NEG(x) : (x)), (x), am_fabs(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_BIT_WISE_NOT, "bit_wise_not", AM_KINDS_INTEGER, AM_RULE_SAME, (~(x)), (~(x)), 0, 0, 0, 0, AM_OK, NULL) \
  X(AM_SIGN, "sign", AM_KINDS_NUMERIC, AM_RULE_SIGN, (((x) > 0) - ((x) < 0)), ((x) != 0), ((x) != (x) ? (x) : (x) > 0 ? 1 : (x) < 0 ? -1 : 0), 0, 0, 0, AM_OK, NULL) \
  X(AM_SQRT, "sqrt", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_sqrt(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_EXP, "exp", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_exp(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_LN, "ln", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_LOG10, "log10", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log10(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_LOG2, "log2", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log2(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_LOG1P, "log1p", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log1p(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_FLOOR, "floor", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_floor(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_CEIL, "ceil", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_ceil(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_TRUNC, "trunc", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_trunc(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_SIN, "sin", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_sin(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_COS, "cos", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_cos(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_TAN, "tan", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_tan(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_ASIN, "asin", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_asin(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_ACOS, "acos", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_acos(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_ATAN, "atan", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_atan(x), 0, 0, 0, AM_OK, NULL) \
  X(AM_NEGATE_CHECKED, "negate_checked", AM_KINDS_SIGNED_FLOAT, AM_RULE_SAME, AM_WRAP_NEG(x), 0, am_fneg(x), ((x) == am_lowest), 0, 0, AM_EOVERFLOW, "overflow") \
  X(AM_ABS_CHECKED, "abs_checked", AM_KINDS_NUMERIC, AM_RULE_SAME, ((x) < 0 ? AM_WRAP_NEG(x) : (x)), (x), am_fabs(x), ((x) == am_lowest), 0, 0, AM_EOVERFLOW, "overflow") \
  X(AM_SQRT_CHECKED, "sqrt_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_sqrt(x), 0, 0, ((x) < 0), AM_EINVAL, "square root of negative number") \
  X(AM_LN_CHECKED, "ln_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log(x), 0, 0, ((x) <= 0), AM_EINVAL, "logarithm of zero or negative number") \
  X(AM_LOG10_CHECKED, "log10_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log10(x), 0, 0, ((x) <= 0), AM_EINVAL, "logarithm of zero or negative number") \
  X(AM_LOG2_CHECKED, "log2_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log2(x), 0, 0, ((x) <= 0), AM_EINVAL, "logarithm of zero or negative number") \
  X(AM_LOG1P_CHECKED, "log1p_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_log1p(x), 0, 0, ((x) <= -1), AM_EINVAL, "logarithm of zero or negative number") \
  X(AM_ASIN_CHECKED, "asin_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_asin(x), 0, 0, ((x) < -1 || (x) > 1), AM_EINVAL, "domain error") \
  X(AM_ACOS_CHECKED, "acos_checked", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_acos(x), 0, 0, ((x) < -1 || (x) > 1), AM_EINVAL, "domain error")
/* clang-format on */

/* Element-wise functions of two arrays (am_binary), as AM_UNARY_OPS with
 * x and y, their operands in the common type am_t. The vocabulary, which the
 * CPU (cpu/binary.c) and the kernel source (gpu/kernel_source.c) define for
 * am_t:
 *
 *   AM_WRAP_ADD(x, y), AM_WRAP_SUB, AM_WRAP_MUL   integer +, -, * that wrap
 *   am_add_overflows(x, y), am_sub_overflows, am_mul_overflows
 *                   whether the exact integer result leaves am_t's range
 *   am_ipow(x, y)   x to the integer power y >= 0, wrapping
 *   am_ipow_overflows(x, y)  whether that power leaves am_t's range
 *   am_pow(x, y), am_atan2(x, y)  C's functions, in the float's precision
 *   am_lowest       the smallest value of am_t
 *   AM_SHIFT_OK_S(y), AM_SHIFT_OK_U(y)  0 <= y < the precision of a signed
 *                   (bits - 1) or unsigned (bits) am_t
 *   AM_SHL(x, y), AM_SHR(x, y)  shifts by such a y (left in the unsigned
 *                   type: it wraps; right arithmetic for signed values)
 *
 * Each line: X(enum value, pyarrow name, accepted kinds, type rule,
 * expressions for signed, unsigned, floats, checks for signed, unsigned,
 * floats, then two (status, message) pairs). A check is 0 for an accepted
 * slot, or the failure it is: 1 (the first pair) or 2 (the second). */
/* clang-format off */
#define AM_BINARY_OPS(X) \
  X(AM_ADD_CHECKED, "add_checked", AM_KINDS_NUMERIC, AM_RULE_COMMON, AM_WRAP_ADD(x, y), AM_WRAP_ADD(x, y), ((x) + (y)), am_add_overflows(x, y), am_add_overflows(x, y), 0, AM_EOVERFLOW, "overflow", AM_OK, NULL) \
  X(AM_SUBTRACT_CHECKED, "subtract_checked", AM_KINDS_NUMERIC, AM_RULE_COMMON, AM_WRAP_SUB(x, y), AM_WRAP_SUB(x, y), ((x) - (y)), am_sub_overflows(x, y), am_sub_overflows(x, y), 0, AM_EOVERFLOW, "overflow", AM_OK, NULL) \
  X(AM_MULTIPLY_CHECKED, "multiply_checked", AM_KINDS_NUMERIC, AM_RULE_COMMON, AM_WRAP_MUL(x, y), AM_WRAP_MUL(x, y), ((x) * (y)), am_mul_overflows(x, y), am_mul_overflows(x, y), 0, AM_EOVERFLOW, "overflow", AM_OK, NULL) \
  X(AM_DIVIDE_CHECKED, "divide_checked", AM_KINDS_NUMERIC, AM_RULE_COMMON, ((y) == 0 || ((x) == am_lowest && (y) == -1) ? 0 : (x) / (y)), ((y) == 0 ? 0 : (x) / (y)), ((x) / (y)), ((y) == 0 ? 1 : (x) == am_lowest && (y) == -1 ? 2 : 0), ((y) == 0), ((y) == 0), AM_EZERODIV, "divide by zero", AM_EOVERFLOW, "overflow") \
  X(AM_POWER, "power", AM_KINDS_NUMERIC, AM_RULE_COMMON, am_ipow(x, y), am_ipow(x, y), am_pow(x, y), ((y) < 0), 0, 0, AM_EINVAL, "integers to negative integer powers are not allowed", AM_OK, NULL) \
  X(AM_POWER_CHECKED, "power_checked", AM_KINDS_NUMERIC, AM_RULE_COMMON, am_ipow(x, y), am_ipow(x, y), am_pow(x, y), ((y) < 0 ? 1 : am_ipow_overflows(x, y) ? 2 : 0), (am_ipow_overflows(x, y) ? 2 : 0), 0, AM_EINVAL, "integers to negative integer powers are not allowed", AM_EOVERFLOW, "overflow") \
  X(AM_ATAN2, "atan2", AM_KINDS_NUMERIC, AM_RULE_MATH, 0, 0, am_atan2(x, y), 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_BIT_WISE_AND, "bit_wise_and", AM_KINDS_INTEGER, AM_RULE_COMMON, ((x) & (y)), ((x) & (y)), 0, 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_BIT_WISE_OR, "bit_wise_or", AM_KINDS_INTEGER, AM_RULE_COMMON, ((x) | (y)), ((x) | (y)), 0, 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_BIT_WISE_XOR, "bit_wise_xor", AM_KINDS_INTEGER, AM_RULE_COMMON, ((x) ^ (y)), ((x) ^ (y)), 0, 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_SHIFT_LEFT, "shift_left", AM_KINDS_INTEGER, AM_RULE_COMMON, (AM_SHIFT_OK_S(y) ? AM_SHL(x, y) : (x)), (AM_SHIFT_OK_U(y) ? AM_SHL(x, y) : (x)), 0, 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_SHIFT_LEFT_CHECKED, "shift_left_checked", AM_KINDS_INTEGER, AM_RULE_COMMON, (AM_SHIFT_OK_S(y) ? AM_SHL(x, y) : (x)), (AM_SHIFT_OK_U(y) ? AM_SHL(x, y) : (x)), 0, !AM_SHIFT_OK_S(y), !AM_SHIFT_OK_U(y), 0, AM_EINVAL, "shift amount must be >= 0 and less than precision of type", AM_OK, NULL) \
  X(AM_SHIFT_RIGHT, "shift_right", AM_KINDS_INTEGER, AM_RULE_COMMON, (AM_SHIFT_OK_S(y) ? AM_SHR(x, y) : (x)), (AM_SHIFT_OK_U(y) ? AM_SHR(x, y) : (x)), 0, 0, 0, 0, AM_OK, NULL, AM_OK, NULL) \
  X(AM_SHIFT_RIGHT_CHECKED, "shift_right_checked", AM_KINDS_INTEGER, AM_RULE_COMMON, (AM_SHIFT_OK_S(y) ? AM_SHR(x, y) : (x)), (AM_SHIFT_OK_U(y) ? AM_SHR(x, y) : (x)), 0, !AM_SHIFT_OK_S(y), !AM_SHIFT_OK_U(y), 0, AM_EINVAL, "shift amount must be >= 0 and less than precision of type", AM_OK, NULL)
/* clang-format on */

/* The number of am_binary_op values. */
enum {
#define AM_COUNT_ONE(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, C1, M1, C2, M2) +1
  AM_BINARY_COUNT = 0 AM_BINARY_OPS(AM_COUNT_ONE)
#undef AM_COUNT_ONE
};

/* The number of am_unary_op values. */
enum {
#define AM_COUNT_ONE(ID, NAME, KINDS, RULE, S, U, F, FS, FU, FF, CODE, MESSAGE) +1
  AM_UNARY_COUNT = 0 AM_UNARY_OPS(AM_COUNT_ONE)
#undef AM_COUNT_ONE
};

struct am_op_desc {
  const char *name;  /* pyarrow.compute's name */
  const char *entry; /* the C entry point */
  am_function_family family;
  int op; /* the value of the family's enum */
  int arity;
  int kinds; /* AM_KINDS_* of the first (array) input */
  am_type_rule type_rule;
  am_null_rule null_rule;
};
typedef struct am_op_desc am_op_desc;

/* The table, and its length. */
extern const am_op_desc am_ops[];
extern const int am_op_count;

/* The row of a family's op (NULL when it has none). */
const am_op_desc *am_op_find(am_function_family family, int op);

/* The failure of a checked unary op (a row whose check is not 0). */
typedef struct am_unary_check {
  int status;          /* AM_EOVERFLOW or AM_EINVAL */
  const char *message; /* pyarrow's words: "square root of negative number" */
} am_unary_check;

/* The check of unary op `op`, NULL when it refuses nothing. */
const am_unary_check *am_unary_check_of(int op);

/* The failures of a binary op, by the number its check gives (index 0 is
 * failure 1); NULL when it refuses nothing. */
typedef struct am_binary_check {
  am_unary_check failure[2];
} am_binary_check;
const am_binary_check *am_binary_check_of(int op);

/* Whether a backend's kernel computes binary op `op` on operands of type `t`
 * (the common type; atan2's integers are converted to float64 first). */
int am_binary_computes(int op, am_type t);

/* The name of an am_binary_op ("power"), NULL when out of range. */
const char *am_binary_op_name(int op);

/* Whether a backend's kernel computes unary op `op` on elements of type `t`:
 * a type the op accepts, less the integers an AM_RULE_MATH op has converted
 * to float64 before any kernel runs. */
int am_unary_computes(int op, am_type t);

/* The name of an am_unary_op ("negate"), NULL when out of range. */
const char *am_unary_op_name(int op);

#endif
