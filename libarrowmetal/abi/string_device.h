/* Strings and binary on GPU devices: moving them there and back, importing
 * them from device memory, and where a string call runs when its inputs
 * live on a GPU (string_device.c, string_gpu.c). */
#ifndef AM_ABI_STRING_DEVICE_H
#define AM_ABI_STRING_DEVICE_H

#include "abi.h"

/* The device of the first of `count` arrays (NULL entries allowed) that is
 * not in host memory; NULL when every one is. */
am_device *am_string_home(const am_array *const *arrays, int64_t count);

/* am_place of a host string array: its offsets, bytes and validity moved
 * to `device` by the backend's upload; frees `host` in every case. */
int am_string_place(am_err *err, am_array *host, am_device *device, am_array **out);

/* A host copy of a string array that lives on a GPU (its parts moved by the
 * backend's download to `host`, the CPU device). */
int am_string_to_host(am_err *err, const am_array *array, am_device *host, am_array **out);

/* Zero-copy import of a checked device string array of `type` (the
 * backend's import of its offsets keeps the producer's struct alive, which
 * is moved in and released exactly once); the device checks the offsets as
 * a host import's are checked and reads back the last one. */
int am_string_import_device(am_err *err, am_device *device, am_type type, int32_t byte_width,
                            struct ArrowDeviceArray *array, am_array **out);

/* A string call whose inputs live on a GPU runs on host copies: begin
 * replaces each input in inputs[0, n) (NULL entries allowed) that is not in
 * host memory by a host copy (settled first when it is not a string
 * array), and notes the first such input's device; end frees the copies
 * and, when the call succeeded, moves its result (when given) to that
 * device. With every input on the host both do nothing. end returns the
 * call's status, or the move's failure. */
typedef struct am_string_hosted {
  am_device *home; /* NULL: every input was on the host */
  int64_t n;
  am_array **copies;
} am_string_hosted;
int am_string_hosted_begin(am_err *err, const am_array **inputs, int64_t n, am_string_hosted *h);
int am_string_hosted_end(am_err *err, int status, am_string_hosted *h, am_array **result);

/* string_gpu.c: the string calls a GPU runs itself, tried first where the
 * inputs live on one (core/backend.h's string slots). AM_EUNSUPPORTED, with
 * err untouched, when the call is to run on the host instead; any other
 * status is the call's. */
int am_string_gpu_filter(am_err *err, const am_array *values, const am_array *mask, int emit,
                         am_array **out);
int am_string_gpu_take(am_err *err, const am_array *values, const am_array *indices,
                       am_array **out);
int am_string_gpu_compare(am_err *err, int op, const am_array *left, const am_array *right,
                          const am_scalar *scalar, am_array **out);
int am_string_gpu_function(am_err *err, am_string_op op, const am_array *array,
                           const uint8_t *pattern, int64_t m, int flags, am_array **out);

#endif
