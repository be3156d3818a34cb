/* Runtime controls read by the GPU backends (set through the ABI). */
#ifndef AM_CORE_RUNTIME_H
#define AM_CORE_RUNTIME_H

#include <stdint.h>

#include "arrowmetal.h"

#define AM_DEFAULT_SPIN_MICROSECONDS 200

int64_t am_runtime_spin_microseconds(void);
int am_runtime_low_latency(void);

#endif
