/* Calls with no GPU kernel yet, or inputs split over devices: run on the
 * inputs' device when it has the kernel, else on host copies, and bring the
 * results home. Shared by sorting, ranking, group-by and joins, whose
 * kernels come to the GPUs one at a time. */
#ifndef AM_ABI_HOST_FALLBACK_H
#define AM_ABI_HOST_FALLBACK_H

#include "abi.h"

/* One kernel call over `inputs` (all on one device): a backend without the
 * kernel answers AM_EUNSUPPORTED. `call` is the caller's own state. */
typedef int (*am_fallback_kernel)(am_err *err, const am_array *const *inputs, void *call);

/* Runs `kernel` over the n settled `inputs` (NULL entries allowed) where they
 * live when they share one device. Where that device declines
 * (AM_EUNSUPPORTED) or the inputs are on several devices, it runs again
 * over host copies, freed before returning. The declined attempt's
 * compiled kernels are kept in `err`; its message is not. */
int am_run_here_or_on_host(am_err *err, const am_array *const *inputs, int64_t n,
                           am_fallback_kernel kernel, void *call);

/* Replaces *a (when not NULL and elsewhere) with its copy on `device`. */
int am_move_home(am_err *err, am_array **a, am_device *device);

/* Ends a call that returned `status` and *result: on success moves *result
 * to `home` and hands it to *out; *result is NULL afterwards either way. */
int am_deliver_home(am_err *err, int status, am_array **result, am_device *home, am_array **out);

#endif
