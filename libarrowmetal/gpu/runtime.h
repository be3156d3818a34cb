/* The device-neutral GPU runtime, written once for every GPU backend.
 *
 * It owns what does not depend on the driver: submission under the commit
 * lock with the completion timeline, per-thread batches, tickets and waits,
 * results whose length is known only later, deferred error checks through
 * status blocks, the sticky device error, the in-process kernel table with
 * its disk-cache lookups, and every op (reduce, compare, ... : ops.c), which
 * fill an am_gpu_args block and launch the kernels of gpu/kernel_source.c.
 *
 * A backend supplies an am_gpu_hooks table (the driver calls) and, when it
 * opens a device, host-visible memory for the status blocks; it then points
 * its am_backend's kernel and queue entries at the am_gpu_* functions below.
 * CUDA: cuda/hooks.c. Metal: metal/ (Objective-C behind the same hooks).
 *
 * Contexts: the runtime calls `enter` before a sequence of hooks and `leave`
 * after it; every hook but `reached` runs between them. */
#ifndef AM_GPU_RUNTIME_H
#define AM_GPU_RUNTIME_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "core/array.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/timeline.h"
#include "gpu/kernels.h"
#include "gpu/resident_ring.h"

enum { AM_GPU_STATUS_SLOTS = 4096 };

typedef struct am_gpu_device am_gpu_device;

typedef struct am_gpu_hooks {
  /* Makes the device's context current on this thread; returns what leave
   * needs to restore the previous one. */
  int (*enter)(am_gpu_device *gpu);
  void (*leave)(am_gpu_device *gpu, int token);

  /* Device memory: `bytes` (rounded up as the kernels need: whole 64-byte
   * lines) in a buffer whose free_fn gives it back in queue order. */
  int (*alloc)(am_err *err, am_gpu_device *gpu, int64_t bytes, am_buffer **out);
  /* Enqueues a fill of `bytes` zero bytes at device address `address`. The
   * runtime zeroes only buffers it has just allocated, which no queued work
   * uses yet (a backend with host-visible memory may clear them at once). */
  int (*zero)(am_err *err, am_gpu_device *gpu, uint64_t address, int64_t bytes);
  /* Copies `bytes` from device address `address` to host memory after the
   * work queued so far, and returns once they are there. */
  int (*read)(am_err *err, am_gpu_device *gpu, void *host, uint64_t address, int64_t bytes);

  /* Kernels. The disk-cache key is the kernel's source plus `compiler_id`
   * (target architecture, compiler version and options). `compile` turns
   * source into an image that `load` takes (on CUDA a CUBIN); the image is
   * what the disk cache keeps. A backend whose driver caches compiled
   * kernels itself (Metal's system shader cache) leaves `compile` NULL:
   * `load` then takes the source text, and the disk cache is not used. */
  const char *(*compiler_id)(am_gpu_device *gpu);
  int (*compile)(am_err *err, am_gpu_device *gpu, const char *source, const char *name,
                 void **image, size_t *size);
  int (*load)(am_err *err, am_gpu_device *gpu, const void *image, size_t size, const char *name,
              void **kernel);
  /* Enqueues one launch: `blocks` blocks of AM_GPU_BLOCK threads. */
  int (*launch)(am_err *err, am_gpu_device *gpu, void *kernel, int blocks, const am_gpu_args *args);
  /* Optional: a launch of `key` inside a batch, which the backend may hold
   * back and send with the batch's later launches as one submission (CUDA: a
   * graph), provided that whatever else it enqueues or waits for sends them
   * first, and that launches whose footprints conflict
   * (gpu/launch_footprint.h) run in the order they came. NULL: `launch`. */
  int (*launch_deferred)(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, void *kernel,
                         int blocks, const am_gpu_args *args);

  /* The timeline. `mark` enqueues "raise the reached value to `value`" after
   * the work queued so far; `reached` reads that value with acquire ordering
   * (no context needed; `gpu` is the am_gpu_device, passed untyped because
   * the timeline calls it directly on every poll of a wait); `block` waits
   * without spinning until it is reached, or fails with
   * am_wait_timeout_fail once `deadline` (0 = never) has passed. */
  int (*mark)(am_err *err, am_gpu_device *gpu, uint64_t value);
  /* Optional: nonzero when all work enqueued so far has finished, asked
   * without enqueuing anything (CUDA: cuStreamQuery; Metal: nothing encoded
   * since the last commit and the event at the last value issued), so that
   * a sync with nothing left to run costs no round trip to the device
   * (H200: an idle am_device_sync took 5.4 us, a mark's trip to the device
   * and back). Called under the commit lock. NULL: sync always marks and
   * waits. `ask` 0 lets the backend answer from what it saw before (CUDA:
   * no work enqueued since the stream was last seen idle), as the resident
   * worker's gate does on every call; 1 asks the driver, so that a sync
   * still sees a fault elsewhere in the context. */
  int (*idle)(am_gpu_device *gpu, int ask);
  uint64_t (*reached)(void *gpu);
  int (*block)(am_err *err, am_gpu_device *gpu, uint64_t value, int64_t deadline);
} am_gpu_hooks;

/* A kernel table: compiled kernels by key, read without a lock. */
typedef struct am_gpu_kernel_table am_gpu_kernel_table;

struct am_gpu_device {
  const am_gpu_hooks *hooks;
  am_device *device;
  am_dialect dialect;
  int multiprocessors;

  /* Host-visible status blocks (the backend's memory): slot i is read at
   * status[i] by the host and written at status_address + i * sizeof by
   * kernels. */
  am_gpu_status *status;
  uint64_t status_address;
  pthread_mutex_t status_lock;
  int free_status[AM_GPU_STATUS_SLOTS];
  int free_count;

  /* AM_GPU_SCRATCH_AREAS areas of AM_GPU_SCRATCH_BYTES of device memory
   * (kernels.h), each used by one launch sequence at a time (under the
   * commit lock); allocated and zeroed by am_gpu_init. scratch_turn: the
   * reductions' last area (under the commit lock). */
  am_buffer *scratch;
  unsigned int scratch_turn;

  am_timeline timeline;

  pthread_mutex_t compile_lock;
  _Atomic(am_gpu_kernel_table *) kernels;

  /* The resident worker's ring (resident_ring.h), set by a backend that
   * runs one (CUDA) once it has been asked for; NULL otherwise. Small
   * synchronous reductions go through it while it runs (resident_ops.c). */
  _Atomic(am_resident *) resident;

  /* A failure the device cannot recover from (ggml's sticky error): every
   * later call fails with it instead of running on a broken context. */
  atomic_int broken;
  char broken_message[sizeof(((am_err *)0)->message)];
};

/* Sets up the runtime's part of an opened device. The backend has filled
 * hooks, device, dialect, multiprocessors, status and status_address. */
int am_gpu_init(am_err *err, am_gpu_device *gpu);

/* The runtime state of a GPU device (device->impl points at it). */
static inline am_gpu_device *am_gpu_of(const am_device *device) { return device->impl; }

/* AM_OK, or AM_EDEVICE with the message of the failure that broke the device. */
int am_gpu_check_broken(am_err *err, am_gpu_device *gpu);
/* Makes the device unusable, with `message` (only the first failure's is
 * kept). For backends whose queue reports failures on its own thread; they
 * then raise the timeline so that waiters wake and see it. */
void am_gpu_mark_broken(am_gpu_device *gpu, const char *message);

/* The compiled kernel of `key` (built, or loaded from disk, on first use). */
int am_gpu_kernel(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, void **kernel);
/* Kernel `name` of `source` (which this frees), from the disk cache or
 * compiled, then loaded; not kept in the kernel table. With the compile lock
 * and the device's context held. */
int am_gpu_kernel_of_source(am_err *err, am_gpu_device *gpu, char *source, const char *name,
                            void **kernel);

/* A device array of `length` slots with offset 0 (null_count -1 when it has
 * a validity bitmap, else 0). */
int am_gpu_alloc_array(am_err *err, am_gpu_device *gpu, am_type type, int64_t length,
                       int with_validity, am_array **out);

/* ---- The backend table entries (ops.c and submit.c) */

int am_gpu_count_nulls(am_err *err, const am_array *array, int64_t *out);
int am_gpu_reduce(am_err *err, am_reduce_op op, const am_array *array, am_type type,
                  am_scalar *out);
int am_gpu_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                   const am_scalar *scalar, am_array **out);
int am_gpu_arith(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out);
int am_gpu_cast(am_err *err, const am_array *array, am_type to, int safe, am_array **out);
int am_gpu_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out);
int am_gpu_binary(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out);
int am_gpu_logic(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, int scalar_left, am_array **out);
int am_gpu_filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out);
int am_gpu_take(am_err *err, const am_array *array, const am_array *indices, am_array **out);
int am_gpu_fill(am_err *err, am_device *device, const am_scalar *value, int64_t length,
                am_array **out);
int am_gpu_concat(am_err *err, const am_array *const *arrays, int64_t count, am_array **out);
int am_gpu_aggregate(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                     am_scalar *out2);
/* Null handling: ops_nulls.c. */
int am_gpu_predicate(am_err *err, am_predicate op, int flags, const am_array *array,
                     am_array **out);
int am_gpu_coalesce(am_err *err, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out);
int am_gpu_if_else(am_err *err, const am_array *cond, const am_array *left,
                   const am_scalar *left_scalar, const am_array *right,
                   const am_scalar *right_scalar, am_array **out);
int am_gpu_fill_direction(am_err *err, am_fill_direction direction, const am_array *array,
                          am_array **out);
/* Hash-based functions: ops_hash.c. */
int am_gpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out);
int am_gpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out);
/* Rounding and pairwise differences: ops_round.c. */
int am_gpu_round(am_err *err, const am_array *array, const am_round_spec *spec, am_array **out);
int am_gpu_pairwise_diff(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                         am_array **out);
/* ops_quantile.c */
int am_gpu_quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, am_device *host, am_array **out);
int am_gpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, am_device *host, am_array **out);
int am_gpu_cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out);
/* ops_sort.c: the device radix sort (AM_EUNSUPPORTED from 2^32 - 1 rows) */
int am_gpu_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *nulls_first, am_array **out);
/* ops_groupby.c: the device group-by (AM_EUNSUPPORTED for list, distinct,
 * count_distinct, Metal, empty inputs: grouped on the host) */
int am_gpu_group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, const am_group_aggregate *aggregates,
                    int64_t n_aggregates, am_array **keys_out, am_group_result *results);
/* ops_join.c: the device hash join (AM_EUNSUPPORTED for Metal and empty
 * sides: joined on the host) */
int am_gpu_join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                        am_array **left_indices, am_array **right_indices);
/* ops_rank.c: select_k, rank, partition_nth: AM_EUNSUPPORTED (the ABI runs
 * them on the host) */
int am_gpu_select_k(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *nulls_first, int64_t k, am_array **out);
int am_gpu_rank(am_err *err, const am_array *array, int descending, int nulls_first, int how,
                am_array **out);
int am_gpu_partition_nth(am_err *err, const am_array *array, int64_t pivot, int nulls_first,
                         am_array **out);

/* ops_temporal.c: the temporal field extractions and temporal rounding. */
int am_gpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out);
int am_gpu_round_temporal(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                          int flags, am_array **out);

/* ops_strings.c: strings and binary (core/backend.h's string slots). */
int am_gpu_string_function(am_err *err, am_string_op op, const am_array *array,
                           const am_array *pattern, am_array **out);
int am_gpu_string_compare(am_err *err, am_compare_op op, const am_array *left,
                          const am_array *right, int broadcast, am_array **out);
int am_gpu_string_take(am_err *err, const am_array *values, const am_array *indices,
                       am_array **out);
int am_gpu_string_filter(am_err *err, const am_array *values, const am_array *mask, am_array **out);
int am_gpu_string_check(am_err *err, const am_array *array, int64_t *bytes_size);
/* Grouping and set lookups of var-binary rows by their bytes (the hash
 * slots send such arrays here): AM_EUNSUPPORTED where two values clash. */
int am_gpu_string_group(am_err *err, const am_array *array, int flags, am_hash_groups *out);
int am_gpu_string_lookup(am_err *err, const am_array *values, const am_array *value_set,
                         int skip_nulls, int as_bool, am_array **out);

int am_gpu_resolve(am_err *err, const am_array *array);
int am_gpu_flush(am_err *err, am_device *device, int wait, uint64_t *ticket);
int am_gpu_wait(am_err *err, am_device *device, uint64_t ticket);
int am_gpu_sync(am_err *err, am_device *device);

/* The kernel and queue entries of a GPU backend's am_backend table: every
 * GPU backend runs the runtime's ops and queue (wait_stream and resident are
 * the backend's own). */
#define AM_GPU_KERNELS                        \
  {.reduce = am_gpu_reduce,                   \
   .compare = am_gpu_compare,                 \
   .arith = am_gpu_arith,                     \
   .cast = am_gpu_cast,                       \
   .unary = am_gpu_unary,                     \
   .binary = am_gpu_binary,                   \
   .logic = am_gpu_logic,                     \
   .filter = am_gpu_filter,                   \
   .take = am_gpu_take,                       \
   .fill = am_gpu_fill,                       \
   .concat = am_gpu_concat,                   \
   .aggregate = am_gpu_aggregate,             \
   .predicate = am_gpu_predicate,             \
   .coalesce = am_gpu_coalesce,               \
   .if_else = am_gpu_if_else,                 \
   .fill_direction = am_gpu_fill_direction,   \
   .hash_group = am_gpu_hash_group,           \
   .hash_lookup = am_gpu_hash_lookup,         \
   .round = am_gpu_round,                     \
   .pairwise_diff = am_gpu_pairwise_diff,     \
   .quantile = am_gpu_quantile,               \
   .tdigest = am_gpu_tdigest,                 \
   .cumulative = am_gpu_cumulative,           \
   .sort_indices = am_gpu_sort_indices,       \
   .group_by = am_gpu_group_by,               \
   .join_indices = am_gpu_join_indices,       \
   .select_k = am_gpu_select_k,               \
   .rank = am_gpu_rank,                       \
   .partition_nth = am_gpu_partition_nth,     \
   .temporal_field = am_gpu_temporal_field,   \
   .round_temporal = am_gpu_round_temporal,   \
   .string_function = am_gpu_string_function, \
   .string_compare = am_gpu_string_compare,   \
   .string_take = am_gpu_string_take,         \
   .string_filter = am_gpu_string_filter,     \
   .string_check = am_gpu_string_check}
#define AM_GPU_QUEUE(wait_stream_fn, resident_fn) \
  {.resolve = am_gpu_resolve,                     \
   .flush = am_gpu_flush,                         \
   .wait = am_gpu_wait,                           \
   .sync = am_gpu_sync,                           \
   .wait_stream = (wait_stream_fn),               \
   .resident = (resident_fn)}

/* Waits until everything queued so far on `gpu` has finished (a device
 * failure makes the device broken). */
int am_gpu_synchronize(am_err *err, am_gpu_device *gpu);

#endif
