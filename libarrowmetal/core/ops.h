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
 *
 * Each line: X(enum value, pyarrow name, accepted kinds, expression for
 * signed integers, for unsigned integers, for floats). For a kind the op
 * does not accept write 0: the CPU compiles a loop for it that is never
 * called, the GPU backends never emit it. */
#ifndef AM_CORE_OPS_H
#define AM_CORE_OPS_H

#include <stdint.h>

#include "arrowmetal.h"

/* Bits of am_type_kind, for the kinds a function accepts. */
#define AM_KINDS_BOOL (1 << AM_KIND_BOOL)
#define AM_KINDS_INTEGER ((1 << AM_KIND_SIGNED) | (1 << AM_KIND_UNSIGNED))
#define AM_KINDS_NUMERIC (AM_KINDS_INTEGER | (1 << AM_KIND_FLOAT))
#define AM_KINDS_ALL (AM_KINDS_BOOL | AM_KINDS_NUMERIC)

/* clang-format off */
#define AM_UNARY_OPS(X)                                                                   \
  X(AM_NEGATE, "negate", AM_KINDS_NUMERIC, AM_WRAP_NEG(x), AM_WRAP_NEG(x), am_fneg(x))     \
  X(AM_ABS, "abs", AM_KINDS_NUMERIC, ((x) < 0 ? AM_WRAP_NEG(x) : (x)), (x), am_fabs(x))     \
  X(AM_BIT_WISE_NOT, "bit_wise_not", AM_KINDS_INTEGER, (~(x)), (~(x)), 0)
/* clang-format on */

/* The number of am_unary_op values. */
enum {
#define AM_COUNT_ONE(ID, NAME, KINDS, S, U, F) +1
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

/* The name of an am_unary_op ("negate"), NULL when out of range. */
const char *am_unary_op_name(int op);

#endif
