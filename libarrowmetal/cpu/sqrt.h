/* float64 square roots faster than the hardware's, and the same bits. */
#ifndef AM_CPU_SQRT_H
#define AM_CPU_SQRT_H

#include "vector_math.h"

/* o[i] = sqrt(x[i]) over doubles, correctly rounded as IEEE 754's sqrt (and
 * so pyarrow's) in every lane: the AVX-512 loop of sqrt.c where the CPU has
 * AVX-512F, else NULL (the caller keeps its sqrt loop). */
am_vm_unary_fn am_fast_sqrt_f64(void);

#endif
