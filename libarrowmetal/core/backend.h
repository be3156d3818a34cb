/* The interface every backend implements: a table of functions.
 *
 * The ABI layer (libarrowmetal/abi) does everything that does not depend on
 * where the data lives before it calls in here: argument checks, Arrow import
 * validation, device agreement, equal lengths, and pyarrow's type rules, so a
 * kernel always sees operands of one type (or a scalar of that type) and
 * allocates its result on the operands' device. A kernel reports failures
 * with am_error() and returns the status. */
#ifndef AM_CORE_BACKEND_H
#define AM_CORE_BACKEND_H

#include <stdint.h>

#include "array.h"
#include "arrowmetal.h"

typedef enum am_reduce_op {
  AM_REDUCE_SUM,
  AM_REDUCE_MIN,
  AM_REDUCE_MAX,
  AM_REDUCE_MEAN
} am_reduce_op;
typedef enum am_logic_op { AM_LOGIC_AND, AM_LOGIC_OR, AM_LOGIC_NOT } am_logic_op;

typedef struct am_backend {
  const char *name;
  /* The ArrowDeviceType of the backend's memory, and of host memory its
   * devices write (ARROW_DEVICE_CUDA_HOST), 0 where none. */
  int32_t device_type;
  int32_t host_device_type;

  /* AM_OK when the backend can run here, else AM_EUNSUPPORTED with the reason
   * set. Loads what it needs on first call; later calls are cheap. */
  int (*probe)(void);
  int (*device_count)(void);
  /* Creates the state of device `ordinal` (called once per device, under the
   * registry lock). */
  int (*open_device)(am_device *device);

  /* Data movement between the device and `host` (the CPU device). `host`
   * arrays are validated CPU arrays. Where the device's memory is host
   * memory (the CPU) these share the buffers. */
  int (*upload)(am_device *device, const am_array *host, am_array **out);
  int (*download)(const am_array *array, am_device *host, am_array **host_out);
  /* Zero-copy import of device memory the backend understands; `array` has
   * been validated like a host import and is moved in. NULL: unsupported. */
  int (*import_device)(am_device *device, am_type type, struct ArrowDeviceArray *array,
                       am_array **out);
  int (*export_device)(const am_array *array, struct ArrowDeviceArray *out);
  /* Waits on a C Device Data Interface sync_event of this backend's kind
   * (for host memory the backend's device wrote, ARROW_DEVICE_CUDA_HOST). */
  int (*wait_event)(void *sync_event);
  /* Waits until every call made so far on the device has finished there. */
  int (*sync)(am_device *device);
  /* Makes later work on the device wait for a foreign queue of its kind. */
  int (*wait_stream)(am_device *device, uintptr_t stream);
  /* Nulls in a validity bitmap that lives on the device. */
  int (*count_nulls)(const am_array *array, int64_t *out);
  /* Waits until a pending result's length and null count are known. */
  int (*resolve)(const am_array *array);

  /* Kernels. For binary kernels exactly one of `right` / `scalar` is given,
   * of the left operand's type, with the same length. */
  int (*reduce)(am_reduce_op op, const am_array *array, am_scalar *out);
  int (*compare)(am_compare_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out);
  int (*arith)(am_arith_op op, const am_array *left, const am_array *right, const am_scalar *scalar,
               am_array **out);
  int (*cast)(const am_array *array, am_type to, int safe, am_array **out);
  /* `right` is NULL for AM_LOGIC_NOT. */
  int (*logic)(am_logic_op op, const am_array *left, const am_array *right, am_array **out);
  int (*filter)(const am_array *array, const am_array *mask, am_array **out);
  int (*take)(const am_array *array, const am_array *indices, am_array **out);
  int (*fill)(am_device *device, const am_scalar *value, int64_t length, am_array **out);
  /* Arrays of one type on this device, in order. NULL: the ABI concatenates
   * on the host and places the result. */
  int (*concat)(const am_array *const *arrays, int64_t count, am_array **out);

  /* Submission. NULL on a backend that finishes every call before returning.
   * flush submits this thread's open batch on `device`; with wait it also
   * waits and returns the batch's first error, else it stores a ticket. */
  int (*batch_flush)(am_device *device, int wait, uint64_t *ticket);
  int (*wait)(am_device *device, uint64_t ticket);
  /* Starts (on > 0), stops (on == 0) or reads (on < 0) the resident worker;
   * returns 1 while one runs, else 0 with *reason (static text) saying why.
   * NULL: the backend has none. */
  int (*resident)(am_device *device, int on, const char **reason);
} am_backend;

struct am_device {
  const am_backend *backend;
  int ordinal;
  char name[64];
  void *impl; /* the backend's state for this device */
};

#endif
