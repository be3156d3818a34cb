/* The interface every backend implements: one table of functions, split by
 * concern into memory, kernels and the queue.
 *
 * The ABI layer (libarrowmetal/abi) does everything that does not depend on
 * where the data lives before it calls in here: argument checks, Arrow import
 * validation, device agreement, equal lengths, and pyarrow's type rules, so a
 * kernel always sees operands of one type (or a scalar of that type) and
 * allocates its result on the operands' device. Every function that can fail
 * takes the caller's error object first and returns an am_status.
 *
 * Every slot must be filled: am_backend_check() verifies that before a
 * backend's first device opens, so the ABI never tests a slot for NULL and
 * never infers what memory is from which slots exist; it reads `caps`. */
#ifndef AM_CORE_BACKEND_H
#define AM_CORE_BACKEND_H

#include <stdint.h>

#include "aggregate.h"
#include "array.h"
#include "arrowmetal.h"
#include "error.h"
#include "hash.h"
#include "memstats.h"
#include "round.h"

typedef enum am_reduce_op {
  AM_REDUCE_SUM,
  AM_REDUCE_MIN,
  AM_REDUCE_MAX,
  AM_REDUCE_MEAN
} am_reduce_op;
/* am_logic_op is the public header's. */

/* What a device's memory is. */
enum {
  /* Host memory: the CPU reads and writes it directly (the CPU backend). */
  AM_MEMORY_HOST = 1,
  /* The CPU can read the device's buffers once the work writing them has
   * finished (unified memory, such as Apple silicon's shared buffers). */
  AM_MEMORY_HOST_VISIBLE = 2,
  /* Host memory can become device memory without a copy when it is aligned
   * as the device needs. */
  AM_MEMORY_IMPORTS_HOST = 4
};

typedef struct am_memory_ops {
  unsigned caps; /* AM_MEMORY_* bits */
  /* Between the device and `host` (the CPU device). `host` arrays are
   * validated CPU arrays. Where the memory is host memory these share. */
  int (*upload)(am_err *err, am_device *device, const am_array *host, am_array **out);
  int (*download)(am_err *err, const am_array *array, am_device *host, am_array **host_out);
  /* Zero-copy import of memory of the backend's device_type; `array` has
   * been validated like a host import and is moved in (released exactly
   * once on every path). */
  int (*import_device)(am_err *err, am_device *device, am_type type, struct ArrowDeviceArray *array,
                       am_array **out);
  /* A C Device Data Interface export of a final array, without a copy. */
  int (*export_device)(am_err *err, const am_array *array, struct ArrowDeviceArray *out);
  /* Waits on a sync_event of the backend's device_type or host_device_type. */
  int (*wait_event)(am_err *err, void *sync_event);
  /* Nulls in the validity bitmap of a final array on the device. */
  int (*count_nulls)(am_err *err, const am_array *array, int64_t *out);
  /* A copy of an array of fixed-width slots (a data buffer and a validity
   * bitmap) on another device of the same backend, device to device;
   * complete when it returns, so the source may go at once.
   * AM_EUNSUPPORTED: it cannot here (am_no_copy_peer: never), and the
   * caller goes through the host. */
  int (*copy_peer)(am_err *err, const am_array *array, am_device *to, am_array **out);
} am_memory_ops;

/* For binary kernels exactly one of `right` / `scalar` is given, of the left
 * operand's type, with the same length. */
typedef struct am_kernel_ops {
  /* `type` is the result type the ABI decided (am_result_type); the kernel
   * writes *out as that type. */
  int (*reduce)(am_err *err, am_reduce_op op, const am_array *array, am_type type, am_scalar *out);
  int (*compare)(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out);
  int (*arith)(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
               const am_scalar *scalar, am_array **out);
  int (*cast)(am_err *err, const am_array *array, am_type to, int safe, am_array **out);
  /* op: am_unary_op; the result has the input's type. */
  int (*unary)(am_err *err, am_unary_op op, const am_array *array, am_array **out);
  /* op: am_binary_op, operands of one type (the common type the ABI chose);
   * the result has that type. */
  int (*binary)(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                const am_scalar *scalar, am_array **out);
  /* Bool operands. AM_LOGIC_NOT reads `left` alone (`right` and `scalar`
   * NULL); the binary ops take `right` or a bool `scalar` (its type AM_BOOL,
   * possibly null), computing `left op scalar`, or `scalar op left` when
   * `scalar_left` (and_not's order). */
  int (*logic)(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
               const am_scalar *scalar, int scalar_left, am_array **out);
  /* `nulls` is AM_NULL_EMIT only for a mask with nulls. */
  int (*filter)(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                am_array **out);
  /* Indices are AM_INT32 or AM_INT64. */
  int (*take)(am_err *err, const am_array *array, const am_array *indices, am_array **out);
  int (*fill)(am_err *err, am_device *device, const am_scalar *value, int64_t length,
              am_array **out);
  /* Arrays of one type on this device, count >= 1, total length checked. */
  int (*concat)(am_err *err, const am_array *const *arrays, int64_t count, am_array **out);
  /* am_aggregate's kernel ops (core/aggregate.h): measures the array and
   * writes the final result(s) of `spec` to *out (and *out2 for MIN_MAX),
   * through am_agg_finish. The ABI has applied every option that does not
   * depend on the values; `array` holds the slots to measure. */
  int (*aggregate)(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                   am_scalar *out2);
  /* Null handling. */
  /* am_is over a settled array of a type the predicate takes; `flags` is
   * AM_NAN_IS_NULL only with AM_IS_NULL of floats. A bool result of the same
   * length: never null for AM_IS_NULL and AM_IS_VALID, else null where the
   * input is. */
  int (*predicate)(am_err *err, am_predicate op, int flags, const am_array *array, am_array **out);
  /* coalesce of two (fill_null): slot i of `left` where it is valid, else of
   * `right` or the (non-null) `scalar`, exactly one of which is given, of
   * left's type and length. Null where both are. */
  int (*coalesce)(am_err *err, const am_array *left, const am_array *right, const am_scalar *scalar,
                  am_array **out);
  /* if_else over an AM_BOOL `cond` and two sides of one type, each an array
   * of cond's length or a scalar (null or not): exactly one of each pair. */
  int (*if_else)(am_err *err, const am_array *cond, const am_array *left,
                 const am_scalar *left_scalar, const am_array *right, const am_scalar *right_scalar,
                 am_array **out);
  /* fill_null_forward / _backward over an array that may have nulls. */
  int (*fill_direction)(am_err *err, am_fill_direction direction, const am_array *array,
                        am_array **out);
  /* Hash-based functions (core/hash.h). The rows of a settled
   * array grouped by value in first-occurrence order, with AM_HASH_* flags
   * saying what to fill. AM_EUNSUPPORTED where the backend has no kernel:
   * the ABI then groups on the host. String and binary arrays go to the
   * CPU's only (abi/string_hash.c), grouped by their bytes. */
  int (*hash_group)(am_err *err, const am_array *array, int flags, am_hash_groups *out);
  /* is_in (`as_bool`) or index_in of `values` in `value_set` (one type, one
   * device; on the CPU two string or binary arrays of any two such types,
   * compared by their bytes); AM_EUNSUPPORTED as hash_group. */
  int (*hash_lookup)(am_err *err, const am_array *values, const am_array *value_set, int skip_nulls,
                     int as_bool, am_array **out);
  /* Rounding and pairwise differences. */
  /* am_round and am_round_to_multiple over a numeric array, as `spec`
   * says (checked: integers only with a multiple above 1); the result has
   * the input's type and validity. */
  int (*round)(am_err *err, const am_array *array, const am_round_spec *spec, am_array **out);
  /* am_pairwise_diff over a numeric array, |period| <= its length. */
  int (*pairwise_diff)(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                       am_array **out);
  /* Quantiles (core/quantile.h, core/tdigest.h). The ABI has
   * checked q and the options and applied skip_nulls and min_count: these
   * rank the valid non-NaN values of a settled numeric array and write nq
   * slots, all null when no such value is left. quantile's result has
   * am_quantile_out_type's type, each q in [0, 1] or (linear only) NaN;
   * tdigest's is float64, nq may be 0. The (small) result is made on the
   * host device `host`; the ABI moves it to the array's device.
   * AM_EUNSUPPORTED: the backend cannot (the ABI then runs the host's). */
  int (*quantile)(am_err *err, const am_array *array, const double *q, int64_t nq,
                  am_quantile_interpolation interpolation, am_device *host, am_array **out);
  int (*tdigest)(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                 uint32_t buffer_size, am_device *host, am_array **out);
  /* Cumulative functions: an integer or float array of
   * length >= 1; `start` non-null, of the array's type (the ABI supplies the
   * op's default; MEAN ignores it). Result: the array's type, float64 for
   * MEAN. */
  int (*cumulative)(am_err *err, am_cumulative_op op, const am_array *array, const am_scalar *start,
                    int skip_nulls, am_array **out);
  /* Sorting: the stable order of the rows of n_keys >= 1
   * settled arrays of one length and of any element type, as AM_UINT64 row
   * indices (never null) on the backend's device; descending[k] and
   * nulls_first[k] (0: at end, 1: at start) for key k, both never NULL.
   * AM_EUNSUPPORTED: the ABI sorts on the host (the GPUs, from 2^32 - 1
   * rows). */
  int (*sort_indices)(am_err *err, const am_array *const *keys, int64_t n_keys,
                      const int *descending, const int *nulls_first, am_array **out);
  /* Group-by: am_group_by over settled arrays of one
   * length on the backend's device, every argument checked by the ABI
   * (ops, columns, the values' types, count modes); fills keys_out and
   * results as the header says, or nothing on failure. AM_EUNSUPPORTED: the
   * ABI groups on the host (the GPUs: no group-by kernel yet). */
  int (*group_by)(am_err *err, const am_array *const *keys, int64_t n_keys,
                  const am_array *const *values, const am_group_aggregate *aggregates,
                  int64_t n_aggregates, am_array **keys_out, am_group_result *results);
  /* Hash joins: am_join_indices over settled key arrays
   * on the backend's device, checked by the ABI (n_keys >= 1, pairs of one
   * type, one length per side, a valid join type); writes the indices as
   * the header says. AM_EUNSUPPORTED: the ABI joins on the host. */
  int (*join_indices)(am_err *err, const am_array *const *left_keys,
                      const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                      am_array **left_indices, am_array **right_indices);
  /* Selection and ranking (the header's am_select_k_unstable, am_rank,
   * am_rank_quantile, am_partition_nth_indices), over settled inputs of any
   * element type, checked by the ABI: k >= 0, 0 <= pivot <= rows; `how` an
   * am_rank_tiebreaker or AM_RANK_HOW_QUANTILE / AM_RANK_HOW_NORMAL (float64
   * results). AM_EUNSUPPORTED: the ABI runs them on the host (the GPUs). */
  int (*select_k)(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                  const int *nulls_first, int64_t k, am_array **out);
  int (*rank)(am_err *err, const am_array *array, int descending, int nulls_first, int how,
              am_array **out);
  int (*partition_nth)(am_err *err, const am_array *array, int64_t pivot, int nulls_first,
                       am_array **out);
  /* Temporal field extraction (am_temporal_field) over a settled array of a
   * temporal type the field takes; an int64 result with the input's
   * validity. The CPU's reads a timestamp's time zone (local time); the ABI
   * gives a GPU's none but UTC-like ones. AM_EUNSUPPORTED: the ABI runs it
   * on the host. */
  int (*temporal_field)(am_err *err, am_temporal_field_op op, const am_array *array, int week_start,
                        int count_from_zero, am_array **out);
  /* Temporal rounding (am_round_temporal: op an am_round_temporal_op) over a
   * settled array of a timestamp, date, time or duration type, with options
   * the ABI has checked (multiple >= 1; a duration's weeks as 7 days, no
   * calendar unit); flags core/round_temporal.h's AM_RT_*; a result of the
   * input's type and validity (the ABI sets its time zone). AM_EUNSUPPORTED:
   * the ABI runs it on the host. */
  int (*round_temporal)(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                        int flags, am_array **out);
  /* Strings and binary in device memory (core/string_array.h). Where these
   * answer AM_EUNSUPPORTED the ABI runs the call on host copies and moves
   * the result back; the CPU's always do, the host's string work being the
   * ABI's own (abi/string_*.c). The ABI has checked every argument; the
   * arrays live on this device.
   * string_function: am_string_function's lengths, matching and ASCII case
   * (no flags; a match_like pattern that pyarrow takes a fast path for is
   * already that op), `pattern` the pattern's bytes as a uint8 array on
   * this device (NULL for the ops without one); results as the header's.
   * string_compare: `right` of left's type and length, or one slot for every
   * row when `broadcast`.
   * string_take: int32 / int64 indices (AM_EINDEX outside the rows).
   * string_filter: a bool mask without nulls (AM_NULL_DROP).
   * string_check: a device import's offsets checked as a host import's are
   * (core/string_array.h: from 0 or more, never decreasing; AM_EINVAL), and
   * *bytes_size set to the last one. */
  int (*string_function)(am_err *err, am_string_op op, const am_array *array,
                         const am_array *pattern, am_array **out);
  int (*string_compare)(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                        int broadcast, am_array **out);
  int (*string_take)(am_err *err, const am_array *values, const am_array *indices, am_array **out);
  int (*string_filter)(am_err *err, const am_array *values, const am_array *mask, am_array **out);
  int (*string_check)(am_err *err, const am_array *array, int64_t *bytes_size);
} am_kernel_ops;

/* rank slot's `how` beyond the tiebreakers: rank_quantile and rank_normal. */
#define AM_RANK_HOW_QUANTILE 100
#define AM_RANK_HOW_NORMAL 101

typedef struct am_queue_ops {
  /* Waits until a pending result's length and null count are known. */
  int (*resolve)(am_err *err, const am_array *array);
  /* Submits this thread's open batch on the device; with `wait` also waits
   * and returns the batch's first error, else stores a ticket in *ticket
   * (0 when the device had nothing to submit). */
  int (*flush)(am_err *err, am_device *device, int wait, uint64_t *ticket);
  int (*wait)(am_err *err, am_device *device, uint64_t ticket);
  /* Waits until every call made so far on the device has finished there. */
  int (*sync)(am_err *err, am_device *device);
  /* Makes later work on the device wait for a foreign queue of its kind. */
  int (*wait_stream)(am_err *err, am_device *device, uintptr_t stream);
  /* Starts (on > 0), stops (on == 0) or reads (on < 0) the resident worker;
   * returns 1 while one runs, else 0 with *reason (static text) saying why. */
  int (*resident)(am_device *device, int on, const char **reason);
} am_queue_ops;

typedef struct am_backend {
  const char *name;
  /* The ArrowDeviceType of the backend's memory, and of host memory its
   * devices write (ARROW_DEVICE_CUDA_HOST), 0 where none. */
  int32_t device_type;
  int32_t host_device_type;
  /* The element types its kernels take, as AM_TYPE_BIT()s; 0: every type
   * the library describes. An op over a type outside this set runs on the
   * CPU over the same memory where the memory is host-visible (Metal has no
   * float64), and is refused otherwise. */
  uint64_t kernel_types;

  /* AM_OK when the backend can run here, else AM_EUNSUPPORTED with the reason.
   * Loads what it needs on first call; later calls are cheap. */
  int (*probe)(am_err *err);
  int (*device_count)(void);
  /* Creates the state of device `ordinal` (called once per device, under the
   * registry lock). */
  int (*open_device)(am_err *err, am_device *device);

  am_memory_ops memory;
  am_kernel_ops kernels;
  am_queue_ops queue;
} am_backend;

struct am_device {
  const am_backend *backend;
  int ordinal;
  char name[64];
  void *impl; /* the backend's state for this device */
  /* A device whose memory is not host memory counts its allocations here
   * (core/memstats.h); host memory counts on am_host_memory. */
  am_mem_counters memory;
};

/* The counters of `device`'s memory. */
static inline am_mem_counters *am_device_memory(const am_device *device) {
  if (device->backend->memory.caps & AM_MEMORY_HOST) return &am_host_memory;
  return (am_mem_counters *)&device->memory;
}

/* AM_OK when every slot of the table is filled, else AM_EUNSUPPORTED naming
 * the first empty one. */
int am_backend_check(am_err *err, const am_backend *backend);

/* The copy_peer of a backend whose devices share nothing faster than the
 * host (or that has one device): AM_EUNSUPPORTED. */
int am_no_copy_peer(am_err *err, const am_array *array, am_device *to, am_array **out);

#endif
