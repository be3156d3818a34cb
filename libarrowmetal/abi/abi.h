/* Shared by the ABI layer's files: the entry-point frame, argument checks and
 * the device registry.
 *
 * Every exported function that can fail is written
 *
 *   AM_EXPORT int am_thing(...) {
 *     AM_API_BEGIN;
 *     AM_API_RETURN(thing(err, ...));
 *   }
 *
 * so that its work, written as ordinary internal functions taking `err`,
 * fails with `return am_fail(err, ...)` anywhere, and the message reaches
 * am_last_error() exactly once, at the exported function's return. */
#ifndef AM_ABI_ABI_H
#define AM_ABI_ABI_H

#include <stddef.h>

#include "core/array.h"
#include "core/backend.h"
#include "core/error.h"
#include "core/export.h"
#include "core/runtime.h"
#include "core/types.h"

/* Declares the call's error object `err`, naming the exported function. */
#define AM_API_BEGIN                \
  am_err am_api_err_;               \
  am_api_err_.entry = __func__;     \
  am_api_err_.origin = NULL;        \
  am_api_err_.message[0] = '\0';    \
  am_api_err_.kernels_compiled = 0; \
  am_api_err_.kernels_kept = 0;     \
  am_api_err_.compile_ns = 0;       \
  am_err *const err = &am_api_err_

/* Returns `status`, publishing the message first when it is a failure, and
 * reporting the GPU kernels the call compiled, if any. */
#define AM_API_RETURN(status) return am_publish(err, (status))

/* Copies "<function>: <message>" into the thread's am_last_error() when
 * `status` is a failure; returns `status`. Only exported functions call it. */
int am_publish(const am_err *err, int status);

/* Fails with AM_EINVAL naming `what` when `pointer` is NULL. */
#define AM_REQUIRE(pointer, what)                                       \
  do {                                                                  \
    if (!(pointer)) return am_fail(err, AM_EINVAL, "%s is NULL", what); \
  } while (0)

/* dictionary.c: AM_ETYPE for a dictionary array given to a call that has no
 * kernel for it, naming its type. */
int am_dictionary_refused(am_err *err, const am_array *array);

/* Makes a pending GPU result's length and null count final (a no-op for
 * arrays that are already final). Every call that computes on an array
 * settles it first, so this is also where a struct handle (a table's rows,
 * which has no kernels) is refused, before any table indexed by type sees
 * AM_STRUCT. The few calls that take struct handles test for them before
 * settling. */
static inline int am_settle(am_err *err, const am_array *array) {
  if (array->type == AM_STRUCT)
    return am_fail(err, AM_ETYPE,
                   "a struct array (a table's rows) has no kernels: pass its columns "
                   "(am_struct_field)");
  /* Strings and binary likewise reach only the calls that take them
   * (abi/strings.h), which test for them before settling. */
  if (am_type_is_binary(array->type))
    return am_fail(err, AM_ETYPE,
                   "no kernel for %s arrays in this function (strings and binary take the "
                   "calls listed under \"Strings\" in arrowmetal.h)",
                   am_type_name(array->type));
  /* Decimals likewise (abi/decimal_calls.h). */
  if (am_type_is_decimal(array->type))
    return am_fail(err, AM_ETYPE,
                   "no kernel for %s arrays in this function (decimals take the calls listed "
                   "under \"Decimals\" in arrowmetal.h)",
                   am_type_name(array->type));
  /* Dictionary arrays likewise (abi/dictionary.h). */
  if (array->dictionary) return am_dictionary_refused(err, array);
  /* float16 likewise: the calls that take it settle it with am_settle_data
   * (abi/float16.h), most of them as a view of its uint16 storage. */
  if (array->type == AM_FLOAT16)
    return am_fail(err, AM_ETYPE,
                   "no kernel for halffloat arrays in this function (float16 takes the calls "
                   "listed under \"float16\" in arrowmetal.h)");
  return am_array_pending(array) ? array->device->backend->queue.resolve(err, array) : AM_OK;
}

/* am_settle for the calls that move an array whatever its values are
 * (export, am_to_device, am_slice, the getters, the float16 views): a
 * float16 array settles too. */
static inline int am_settle_data(am_err *err, const am_array *array) {
  if (array->type == AM_FLOAT16 && !array->dictionary)
    return am_array_pending(array) ? array->device->backend->queue.resolve(err, array) : AM_OK;
  return am_settle(err, array);
}

/* registry.c: the backends compiled in. */
int am_registry_count(void);
const am_backend *am_registry_backend(int index); /* NULL when out of range */
const am_backend *am_registry_find(const char *name, size_t length);
/* The backend whose memory or sync events an ArrowDeviceType names (for
 * CUDA: ARROW_DEVICE_CUDA and ARROW_DEVICE_CUDA_HOST); NULL if none. */
const am_backend *am_registry_for_device_type(int32_t device_type);
/* The CPU device: host memory, where imports land first. */
am_device *am_host_device(void);
/* Probes a backend; the first time one answers AM_OK its table is checked
 * (am_backend_check). */
int am_registry_probe(am_err *err, const am_backend *backend);

/* Checks that the inputs of one call share a device. */
int am_same_device(am_err *err, const am_array *left, const am_array *right);

/* Opens "cuda:1" and the like (am_device_open's work). */
int am_open_device(am_err *err, const char *spec, am_device **out);

/* The device of a call given none: the default, or the reason
 * ARROWMETAL_BACKEND could not be honoured. */
int am_default_device_for(am_err *err, am_device **out);

/* Devices opened so far, for the batch calls that visit each of them. */
int am_opened_devices(am_device **devices, int capacity);

/* Imports a validated host array onto `device` (a no-op share on the CPU);
 * frees `host` in every case. */
int am_place(am_err *err, am_array *host, am_device *device, am_array **out);

/* A host array with the same slots as `array` (shared when it already is
 * one, downloaded otherwise). */
int am_to_host(am_err *err, const am_array *array, am_array **out);

/* type_rules.c: pyarrow's type rules from the op table (core/ops.h). */
typedef struct am_op_desc am_op_desc;
/* Whether the op takes elements of `type` (as its first input). */
int am_accepts(const am_op_desc *op, am_type type);
/* The type the operands are converted to before the kernel runs;
 * AM_TYPE_INVALID when the op has no kernel for them (`right` is ignored for
 * ops of one input). */
am_type am_operand_type(const am_op_desc *op, am_type left, am_type right);
/* The result type over operands of type `operand` (not for cast). */
am_type am_result_type(const am_op_desc *op, am_type operand);
/* AM_ETYPE in pyarrow's words: "function 'negate' has no kernel matching
 * input types (bool)". */
int am_no_kernel(am_err *err, const am_op_desc *op, am_type left, am_type right);

/* The null count, counted on the array's device when unknown (cached). */
int am_count_nulls(am_err *err, const am_array *array, int64_t *out);

/* import.c: gives a timestamp its time zone from its Arrow format ("tsu:UTC");
 * frees `array` on failure. */
int am_take_timezone(am_err *err, am_array *array, const char *format);

/* temporal_view.c: temporal arrays run on their storage type's kernels.
 * am_storage_begin replaces *array, when it is temporal, by a settled
 * handle over the same buffers typed as its storage integer (kept in *keep);
 * am_storage_end frees it and, when `out` is given and the call succeeded,
 * types the result as the original (type and time zone). Returns `status`. */
typedef struct am_storage_keep {
  const am_array *original; /* NULL when the array was not temporal */
  am_array *view;
} am_storage_keep;
int am_storage_begin(am_err *err, const am_array **array, am_storage_keep *keep);
int am_storage_end(int status, am_storage_keep *keep, am_array **out);
/* The same for calls with scalar results: between the two this thread's
 * scalar tag (core/runtime.h) holds the original type, so that results a
 * GPU batch writes later take it too; on success, results of the storage
 * type written already take the original's type and time zone. */
int am_storage_begin_scalars(am_err *err, const am_array **array, am_storage_keep *keep);
int am_storage_end_scalars(int status, am_storage_keep *keep, am_scalar *a, am_scalar *b);
/* A reduction of `array` on its own device whose value the caller reads
 * as soon as this returns (a check, not the caller's result): inside a
 * batch too, the scalar is written before it returns (reduce.c). */
int am_reduce_now(am_err *err, am_reduce_op op, const am_array *array, am_type type,
                  am_scalar *out);
/* AM_ETYPE in pyarrow's words for a function that takes no temporal type. */
int am_temporal_no_kernel(am_err *err, const char *function, const am_array *array);
/* `in`, a scalar going with temporal `array` (of its type, or a typeless
 * null), as a scalar of its storage type; copied as it is otherwise. */
int am_storage_scalar(am_err *err, const am_array *array, const am_scalar *in, am_scalar *out);
/* The temporal families (temporal_view.c), the nanoseconds a unit step of
 * temporal type `t` lasts (a day for date32), and pyarrow's text of a type
 * with its time zone (NULL: none), "timestamp[s, tz=UTC]". */
enum {
  AM_TEMPORAL_NONE,
  AM_TEMPORAL_TIMESTAMP,
  AM_TEMPORAL_DATE,
  AM_TEMPORAL_TIME,
  AM_TEMPORAL_DURATION
};
int am_temporal_family(am_type t);
int64_t am_temporal_tick_ns(am_type t);
const char *am_temporal_type_text(const char *tz, am_type t, char *text, size_t n);
/* temporal_cast.c: am_cast with a temporal type on either side. */
int am_temporal_cast(am_err *err, const am_array *array, am_type to, int flags, am_array **out);
/* temporal_arith.c: compare (family AM_FAMILY_COMPARE), am_arith's add and
 * subtract (AM_FAMILY_ARITH) and their checked variants (AM_FAMILY_BINARY)
 * where an input is temporal, with exactly one of right / scalar. */
int am_temporal_elementwise(am_err *err, int family, int op, const am_array *left,
                            const am_array *right, const am_scalar *scalar, am_array **out);
/* temporal_arith.c's pieces that duration_arith.c uses: `array` (temporal)
 * or a scalar of temporal type `t` as int64 in units of `tick` ns (a
 * checked multiply, AM_EINVAL past int64), and AM_ETYPE in pyarrow's words
 * for a pair it has no kernel for: the types as given (digits < 0), or each
 * temporal one as pyarrow's second look names it in unit `digits` (a date a
 * timestamp, a time time32 or time64). */
int am_temporal_scaled(am_err *err, const am_array *array, int64_t tick, am_array **out);
int am_temporal_scaled_scalar(am_err *err, const am_scalar *s, am_type t, int64_t tick,
                              am_scalar *out);
int am_temporal_no_kernel_pair(am_err *err, const char *function, const am_array *left, am_type lt,
                               const am_array *right, am_type rt, int digits);
/* duration_arith.c: multiply and divide (am_arith's, or am_binary's checked
 * ones: `family` and `op`) where an input is temporal, of types lt and rt
 * (the scalar's, if no `right`), both settled and of equal lengths. */
int am_duration_arith(am_err *err, int family, int op, const am_array *left, const am_array *right,
                      const am_scalar *scalar, am_type lt, am_type rt, am_array **out);
/* time_arith.c: time +- duration and duration + time on the host, as
 * pyarrow's AddTimeDuration / SubtractTimeDuration (see there); `result`
 * is the time type of the finer unit (am_time_of_unit); the scalar, if no
 * `right`, is of `scalar_type`. */
am_type am_time_of_unit(int digits);
int am_time_duration(am_err *err, int subtract, int checked, const am_array *left,
                     const am_array *right, const am_scalar *scalar, am_type scalar_type,
                     am_type result, am_array **out);
/* Whether a call of these inputs is temporal_arith.c's. */
static inline int am_temporal_inputs(const am_array *left, const am_array *right,
                                     const am_scalar *scalar) {
  return (left && am_type_is_temporal(left->type)) || (right && am_type_is_temporal(right->type)) ||
         (!right && scalar && am_type_is_temporal((am_type)scalar->type));
}
/* The values of one call that takes several (fill_null, if_else, coalesce):
 * when one is temporal and all are of its type, `active` is set and arrays
 * and scalar_ptrs are the values at their storage type (a NULL where the
 * caller gave none); `mixed` when the values' types differ. */
typedef struct am_storage_values_t {
  int active, mixed;
  am_type type;
  const char *tz;
  int64_t count;
  const am_array **arrays;
  am_array **views;
  am_scalar *scalars;
  const am_scalar **scalar_ptrs;
} am_storage_values_t;
int am_storage_values(am_err *err, const am_array *const *arrays, const am_scalar *const *scalars,
                      int64_t count, am_storage_values_t *v);
void am_storage_values_free(am_storage_values_t *v);
/* A list of arrays (sort keys, join keys) with each temporal one replaced
 * by a storage-typed view: `arrays` is the list to use (the caller's own
 * when none is temporal). */
typedef struct am_storage_list_t {
  const am_array *const *arrays;
  am_array **views;
  int64_t count;
} am_storage_list_t;
int am_storage_list(am_err *err, const am_array *const *arrays, int64_t count,
                    am_storage_list_t *list);
void am_storage_list_free(am_storage_list_t *list);
/* Types `array` (a storage-typed result) as `type` with time zone `tz`. */
void am_retype(am_array *array, am_type type, const char *tz);

#endif
