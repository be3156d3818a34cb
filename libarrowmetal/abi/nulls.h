/* What the null-handling entry points share: coalesce.c,
 * if_else.c. Private to abi/. */
#ifndef AM_ABI_NULLS_H
#define AM_ABI_NULLS_H

#include "abi.h"

/* `array` safe-cast to `to` where routing says (the CPU over the same
 * memory, for a type the array's device has no kernels for), the result on
 * the array's device. */
int am_nulls_cast(am_err *err, const am_array *array, am_type to, am_array **out);

#endif
