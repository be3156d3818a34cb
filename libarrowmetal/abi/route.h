/* Where a call runs: the crossover table and the moves it implies.
 *
 * An op runs on the device its inputs live on unless the table says that
 * moving them first is faster for this op and size (measured, per machine,
 * by benchmarks/crossover.py); its result then goes back to the inputs'
 * device, so where data lives never depends on a size. Inputs on two devices
 * meet on the device of the larger one (a GPU when equal), where the result
 * stays. Inside a batch nothing is moved for speed: a move would wait on the
 * batch's work. */
#ifndef AM_ABI_ROUTE_H
#define AM_ABI_ROUTE_H

#include "abi.h"
#include "core/ops.h"

typedef enum am_op_class {
  AM_ROUTE_REDUCE,
  AM_ROUTE_COMPARE,
  AM_ROUTE_ARITH,
  AM_ROUTE_CAST,
  AM_ROUTE_LOGIC,
  AM_ROUTE_FILTER,
  AM_ROUTE_TAKE,
  AM_ROUTE_UNARY,
  AM_ROUTE_NULLS, /* null handling: is_null ... fill_null_backward */
  AM_ROUTE_CLASSES
} am_op_class;

/* AM_EINVAL naming the ARROWMETAL_ROUTES file and why it was not used (the
 * built-in table is used instead); AM_OK otherwise. */
int am_routes_check(am_err *err);

/* The parser of an ARROWMETAL_ROUTES file, on `text` (NUL-terminated), for
 * the fuzz target fuzz/routes_fuzz.c: the active table is not touched. The
 * number of rules, written to `rules_text` as am_routes() lists them (as
 * much as fits `rules_size`); -1 for a file the library would refuse, with
 * the reason in `why`. Internal: not exported, not in the public header. */
int am_routes_parse_text(const char *text, char *rules_text, size_t rules_size, char *why,
                         size_t why_size);

/* The most array inputs one routed call has (if_else: cond, left, right). */
#define AM_ROUTE_MAX_INPUTS 3

typedef struct am_route {
  const am_array *use[AM_ROUTE_MAX_INPUTS]; /* the inputs to run on: the caller's or moved copies */
  am_array *moved[AM_ROUTE_MAX_INPUTS];     /* copies made here, freed by am_route_done */
  am_device *home;                          /* where the result belongs; NULL: where it ran */
} am_route;

/* Chooses where a call over `count` (1 to AM_ROUTE_MAX_INPUTS) settled
 * inputs runs and moves them there: inputs on several devices meet on the
 * device of the one with the most bytes (a GPU on a tie with the host).
 * `types` (AM_TYPE_BIT()s) are the element types its kernels will touch: a
 * device whose kernels lack one runs nothing of the call. On failure nothing
 * is left to free. */
int am_route_inputs(am_err *err, am_op_class op, uint64_t types, const am_array *const *inputs,
                    int count, am_route *route);

/* Ends a routed call whose kernel returned `status` and `result`: moves the
 * result to route->home when the call ran elsewhere, then writes *out, only
 * on success (a failed move frees the result). Returns the call's status. */
int am_route_finish(am_err *err, const am_route *route, int status, am_array *result,
                    am_array **out);

void am_route_done(am_route *route);

/* Whether the device's kernels take every type of `types` (AM_TYPE_BIT()s). */
int am_has_kernels(const am_device *device, uint64_t types);

/* Copies `array` to `device` (a new handle sharing buffers when it is
 * already there). */
int am_move(am_err *err, const am_array *array, am_device *device, am_array **out);

/* The shape every binary element-wise function shares (elementwise.c): the
 * op's row decides the operand type both inputs are converted to, the route
 * picks the device, then `kernel` runs there with exactly one of right /
 * scalar. A null scalar of no valid type takes the array's type. */
typedef int (*am_elementwise_kernel)(am_err *err, int op, const am_array *left,
                                     const am_array *right, const am_scalar *scalar,
                                     am_array **out);
/* Array (op) array, equal lengths. */
int am_elementwise_arrays(am_err *err, const am_op_desc *desc, am_op_class op_class,
                          am_elementwise_kernel kernel, int op, const am_array *left,
                          const am_array *right, am_array **out);
/* Array (op) scalar. */
int am_elementwise_scalar(am_err *err, const am_op_desc *desc, am_op_class op_class,
                          am_elementwise_kernel kernel, int op, const am_array *left,
                          const am_scalar *right, am_array **out);

#endif
