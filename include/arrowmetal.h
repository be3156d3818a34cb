/*
 * ArrowMetal: Apache Arrow compute kernels on GPUs and CPUs behind one C ABI.
 *
 * This is the whole public interface. It is C99, it is parsed as it stands by
 * cffi (the Python package generates its cdef from this file), and every
 * exported symbol starts with `am_`.
 *
 * Conventions that hold for every call unless its comment says otherwise:
 *
 *  - Status. A call that can fail returns `int`: AM_OK (0) or one of the
 *    am_status codes. On failure am_last_error() returns a message, local to
 *    the calling thread, that names the function and the problem, e.g.
 *    "am_take: index 12 out of bounds for length 10". Nothing aborts, asserts
 *    or raises across this boundary on bad input. Calls that cannot fail
 *    (am_release, the property getters) leave the message alone, so it can be
 *    read after a failure even if handles were released in between.
 *  - Outputs. `out` pointers are written only on success.
 *  - Handles. am_array is an immutable, opaque handle. The caller owns every
 *    handle it receives and gives it back exactly once with am_release().
 *    Handles may be read from many threads at once; buffers are shared
 *    between handles (slices, exports) by reference counting.
 *  - Devices. am_device handles live for the whole process and are never
 *    freed. An array belongs to one device. A call runs where its inputs
 *    live and its result lives there too; inputs on two devices meet on the
 *    larger one's device (see "Routing" below).
 *  - Threads. Every call is safe to make from any thread at any time.
 *  - Semantics follow pyarrow.compute's defaults. The places where ArrowMetal
 *    chooses to differ are marked "Divergence:" below and in conformance/.
 */
#ifndef ARROWMETAL_H
#define ARROWMETAL_H

/* The version of this header, for compile-time checks (#if
 * ARROWMETAL_VERSION_MAJOR >= 1). am_version() gives the library's at run time;
 * the two agree when the header and the library come from one build.
 * Plain integers, so that cffi keeps them too. */
#define ARROWMETAL_VERSION_MAJOR 0
#define ARROWMETAL_VERSION_MINOR 1
#define ARROWMETAL_VERSION_PATCH 0
#define ARROWMETAL_VERSION_STRING "0.1.0"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Arrow C Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html) */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};
#endif /* ARROW_C_DATA_INTERFACE */

/* ---- Arrow C Device Data Interface (CDeviceDataInterface.html) */
#ifndef ARROW_C_DEVICE_DATA_INTERFACE
#define ARROW_C_DEVICE_DATA_INTERFACE
typedef int32_t ArrowDeviceType;
#define ARROW_DEVICE_CPU 1
#define ARROW_DEVICE_CUDA 2
#define ARROW_DEVICE_CUDA_HOST 3
#define ARROW_DEVICE_METAL 8

struct ArrowDeviceArray {
  struct ArrowArray array;
  int64_t device_id;
  ArrowDeviceType device_type;
  void *sync_event;
  int64_t reserved[3];
};
#endif /* ARROW_C_DEVICE_DATA_INTERFACE */

/* ---- Status codes */
typedef enum am_status {
  AM_OK = 0,
  AM_EINVAL = 1,       /* invalid argument (NULL, bad length, malformed struct), or a
                          value outside a checked function's domain (sqrt_checked(-1)) */
  AM_ETYPE = 2,        /* no kernel for these types, or an unknown format */
  AM_EINDEX = 3,       /* index out of bounds */
  AM_EOVERFLOW = 4,    /* value does not fit the target type (safe cast) */
  AM_EZERODIV = 5,     /* integer division by zero */
  AM_EUNSUPPORTED = 6, /* backend or feature not available here; message says why */
  AM_ENOMEM = 7,       /* host or device allocation failed */
  AM_EDEVICE = 8       /* the device reported an error; sticky for that device */
} am_status;

/* Thread-local message of the last failed call on this thread ("" if none).
 * Valid until the next ArrowMetal call on the same thread. Never NULL. */
const char *am_last_error(void);

/* "MAJOR.MINOR.PATCH". Static storage. */
const char *am_version(void);

/* ---- Element types */
typedef enum am_type {
  AM_TYPE_INVALID = 0,
  AM_BOOL = 1, /* bit-packed, Arrow format "b" */
  AM_INT8 = 2,
  AM_INT16 = 3,
  AM_INT32 = 4,
  AM_INT64 = 5,
  AM_UINT8 = 6,
  AM_UINT16 = 7,
  AM_UINT32 = 8,
  AM_UINT64 = 9,
  AM_FLOAT32 = 10,
  AM_FLOAT64 = 11,
  /* IEEE 754 binary16 (issue #13): 16-bit data that moves as any
   * fixed-width type, with the few functions pyarrow computes over it (see
   * "float16" at the end); every other call refuses it with AM_ETYPE. */
  AM_FLOAT16 = 12, /* "e" (pyarrow's halffloat) */
  /* Decimals (issue #13): a signed integer of 16 (decimal128) or 32
   * (decimal256) bytes, little-endian two's complement, worth value *
   * 10^-scale; precision (1-38, 1-76) and scale are parameters of the array
   * (am_array_decimal_precision, am_array_decimal_scale), carried by its
   * format ("d:10,2", "d:40,5,256") as a timestamp's time zone is. Host
   * arrays only: GPU devices refuse them (AM_EUNSUPPORTED). decimal32 and
   * decimal64 ("d:P,S,32" / ",64") are refused at import (AM_ETYPE). See
   * "Decimals" at the end for the calls that take them. */
  AM_DECIMAL128 = 13, /* "d:P,S" */
  AM_DECIMAL256 = 14, /* "d:P,S,256" */
  /* 15: reserved. */
  /* Temporal types (issue #13), stored as int64 except date32 and time32
   * (int32), with pyarrow's units. A timestamp may carry a time zone, a
   * parameter of the array (am_array_timezone), not of the type. Of the
   * numeric functions they take only what pyarrow gives them: compare
   * (equal units), filter, take, concat, null handling, min/max/count/
   * first/last, the hash functions, sorting, group-by and join keys, the
   * field extractions (am_temporal_field), rounding (am_round_temporal),
   * is_dst / local_timestamp (am_zone_function) and add/subtract (am_arith,
   * and am_binary's _checked variants) of the pairs pyarrow takes: a date
   * meeting a duration or a timestamp is a timestamp without a zone in the
   * finer unit (date32 counting as seconds); time +- duration is a time of
   * the finer unit (time32 to milliseconds), computed as pyarrow's kernel
   * (on the host: 32-bit sums for time32, every slot, null ones too,
   * AM_EINVAL outside the day naming the last such slot's value).
   * Durations also take multiply and divide (am_arith, am_binary's checked
   * variants) as pyarrow 26 does: duration x integer and integer x
   * duration (any integer type) a duration of its unit, duration / integer
   * a duration -- the integer cast to int64 first (a uint64 past int64 is
   * AM_EOVERFLOW), then int64 arithmetic: unchecked wraps, checked fails
   * with AM_EOVERFLOW, a zero divisor is AM_EZERODIV -- and duration /
   * duration float64 in the finer unit (a zero divisor inf or NaN,
   * AM_EZERODIV for divide_checked); integer / duration and duration x
   * duration are AM_ETYPE. am_unary takes negate, abs, sign (int8) and
   * their checked variants of durations; negate_checked of a duration
   * does not check, as pyarrow's kernel (the smallest value stays itself).
   * Divergence: a refused unit cast (date32 + duration[ns] past int64,
   * duration[s] / duration[ms]) does not name the value. Divergence: date32 - date32 is computed in
   * int64; pyarrow's unchecked kernel wraps the difference of days in 32 bits (days 2^31 apart). */
  AM_TIMESTAMP_S = 16, /* "tss:" (+ time zone) */
  AM_TIMESTAMP_MS = 17,
  AM_TIMESTAMP_US = 18,
  AM_TIMESTAMP_NS = 19,
  AM_DATE32 = 20,     /* "tdD": days since 1970-01-01, int32 */
  AM_DATE64 = 21,     /* "tdm": milliseconds since 1970-01-01, int64 */
  AM_TIME32_S = 22,   /* "tts", int32 */
  AM_TIME32_MS = 23,  /* "ttm", int32 */
  AM_TIME64_US = 24,  /* "ttu", int64 */
  AM_TIME64_NS = 25,  /* "ttn", int64 */
  AM_DURATION_S = 26, /* "tDs" */
  AM_DURATION_MS = 27,
  AM_DURATION_US = 28,
  AM_DURATION_NS = 29,
  /* Variable-length strings and binary (issue #13): an offsets buffer (int32,
   * or int64 for the large types) and a data buffer of bytes, as Arrow lays
   * them out; fixed_size_binary is one data buffer of `byte_width` bytes a
   * slot (am_array_byte_width), the width a parameter of the array like a
   * timestamp's time zone. Import and export are zero-copy on the CPU; the
   * import checks the offsets (first >= 0, never decreasing, the array's
   * offset and length within them) and, as pyarrow's C import, not the
   * UTF-8 of utf8 arrays: the utf8_* functions check it where they read it,
   * as pyarrow's do ("Invalid UTF8 sequence in input"). Calls that do not
   * take strings refuse them with AM_ETYPE; GPU devices do not hold them yet
   * (AM_EUNSUPPORTED "not yet on <device>"). See "Strings" at the end for
   * the calls that take them. */
  AM_UTF8 = 30,              /* "u" */
  AM_LARGE_UTF8 = 31,        /* "U" */
  AM_BINARY = 32,            /* "z" */
  AM_LARGE_BINARY = 33,      /* "Z" */
  AM_FIXED_SIZE_BINARY = 34, /* "w:N" */
  /* Views of strings and binary (issue #13): a 16-byte view a slot (its
   * length as int32; up to 12 bytes inline after it, or a 4-byte prefix, a
   * data buffer index and an offset into that buffer, all int32) and any
   * number of variadic data buffers, as Arrow lays them out. Import and
   * export are zero-copy on the CPU: the C Data Interface's buffers are the
   * validity bitmap, the views, the variadic data buffers and, last, their
   * sizes as int64 (n_buffers = 3 + the variadic buffers). The import checks
   * every valid slot's view (length >= 0; a length over 12 names a variadic
   * buffer that exists, an offset and length within that buffer's size, and
   * the prefix of the bytes there), as Arrow C++'s full validation does; a
   * null slot's view is never read (a view buffer whose null slots hold
   * views that would fail is copied once, those views zeroed: 16 bytes a
   * slot, never the data). UTF-8 is not checked at import (pyarrow's C
   * import does not check it). They take every call that takes strings
   * (see "Strings" at the end). */
  AM_STRING_VIEW = 35, /* "vu" */
  AM_BINARY_VIEW = 36, /* "vz" */
  /* 37-39: reserved. */
  /* A struct array or record batch (Arrow "+s"): a handle with named child
   * handles and no kernels of its own (see "Tables" at the end). */
  AM_STRUCT = 64
} am_type;

/* A typed scalar. Signed integers and booleans use `i64`, unsigned integers
 * `u64`, floats `f64` (float16 too: its value, exact in a double, NaN
 * payloads included; a value given that is not a float16 is rounded to the
 * nearest, ties to even, as am_cast rounds); the other two fields are
 * ignored. A scalar with
 * is_null != 0 is null whatever its value fields hold. Temporal types use
 * `i64` (their storage integer); a timestamp scalar the library writes
 * (min, max, first, last of a timestamp array) carries the array's time
 * zone in `u64`, as a `const char *` (interned, static; 0: none), which
 * the library never reads from scalars it is given. */
typedef struct am_scalar {
  int32_t type; /* am_type */
  int32_t is_null;
  int64_t i64;
  uint64_t u64;
  double f64;
} am_scalar;

/* ---- Backends and devices
 *
 * Backends are "cpu" (every machine), "cuda" (NVIDIA, loaded at run time) and
 * "metal" (Apple silicon, macOS 13 and a Metal 3 GPU). Every backend's symbols
 * exist on every platform; one that cannot run here answers AM_EUNSUPPORTED
 * with the reason. The default device is chosen once per process:
 * ARROWMETAL_BACKEND ("cpu", "cuda", "cuda:1", "metal") if set and usable,
 * else the CPU.
 *
 * Metal memory is the CPU's (unified memory): a page-aligned host buffer
 * becomes a Metal array without a copy, others are copied once, and a Metal
 * array reaches the CPU (am_export, the CPU's kernels) as a view of the same
 * memory once the work writing it has finished. MSL has no double: ops over
 * float64 on a Metal device run on the CPU over the same memory, and their
 * results go back to the Metal device. A virtual machine's "Apple Paravirtual
 * device" (hosted CI runners) fails pipeline creation at random and is not
 * used unless ARROWMETAL_METAL_PARAVIRTUAL=1. */
typedef struct am_device am_device;

/* Number of backends compiled into this library, and the name of the i-th
 * (static storage; NULL when i is out of range). */
int am_backend_count(void);
const char *am_backend_name(int index);

/* Checks every ARROWMETAL_* setting the library reads: AM_OK, or the first
 * problem with a message naming the variable and what it accepts
 * (AM_EINVAL), including an ARROWMETAL_ROUTES file that cannot be used (the
 * built-in table runs instead) and an ARROWMETAL_BACKEND device that cannot
 * be opened (its reason). Call it at start: the settings are read once.
 * Thread-safe. */
int am_config_check(void);

/* AM_OK if the named backend can run in this process, else AM_EUNSUPPORTED
 * with the reason in am_last_error(). Loads the backend on first use. */
int am_backend_probe(const char *name);

/* Opens "cpu", "cuda", "cuda:N" or "metal" ("cuda" = "cuda:0"). The handle
 * lives for the process; calling again returns the same handle. */
int am_device_open(const char *spec, am_device **out);

/* Device of every call that is given no device. Never NULL: when
 * ARROWMETAL_BACKEND names a device that cannot be used here, this is the
 * CPU, and calls given no device fail with the reason (AM_EUNSUPPORTED or
 * AM_EINVAL) instead of running there quietly. */
am_device *am_default_device(void);
int am_set_default_device(am_device *device);

/* "cpu", "cuda:0", ... and the backend's name. Static storage. */
const char *am_device_name(const am_device *device);
const char *am_device_backend(const am_device *device);

/* Memory the library has allocated on a device (issue #15, "Memory").
 *
 * bytes_in_use counts every allocation the library makes for array data and
 * bitmaps, for scalars' device storage and for scratch sized by the data,
 * from the moment it is made until it is freed, at the size asked of the
 * allocator after the library's own rounding (array buffers: a whole number
 * of 64-byte lines, one more than the data needs; host buffers of 2 MiB and
 * more: whole 2 MiB blocks). On the CPU device that is every host allocation of
 * the process's library: results, aligned copies made at import, buffers a
 * GPU download writes, and kernels' host scratch (hash tables, sort keys).
 * On a CUDA device it is the device buffers (cuMemAllocAsync); on Metal the
 * shared MTLBuffers the backend allocates. A buffer is freed when the last
 * handle and export sharing it is released (and, on a GPU, in stream order
 * after the work that reads it), so after every handle of a computation is
 * released bytes_in_use is back where it was before.
 *
 * reserved_bytes is memory kept on purpose, not in use by any array: the
 * host's cache of freed large blocks (at most 512 MiB); a GPU device's
 * scratch area; on CUDA the pinned staging buffers and the host-mapped
 * status block, both host memory counted on the CUDA device that keeps
 * them; Metal's pool of freed buffers. Not counted anywhere: memory the
 * CUDA driver's stream-ordered pool keeps after a free (the driver's;
 * cuMemPoolGetAttribute reports it), compiled kernels, and fixed-size
 * bookkeeping (array handles, tickets, batch records).
 *
 * Memory owned by the producer of an imported array (a zero-copy am_import,
 * am_import_device, a Metal upload that wraps page-aligned host memory) is
 * not counted: it is the producer's, freed by its release callback.
 *
 * peak_bytes is the largest bytes_in_use since the process started or since
 * the last am_memory_reset_peak. allocations counts the live counted
 * allocations, total_allocations every counted allocation ever made.
 * The counters are lock-free atomics updated where memory is allocated and
 * freed; each field is exact, and a read while other threads allocate gives
 * each field's value at some moment during the call. */
typedef struct am_memory_stats {
  int64_t bytes_in_use;
  int64_t peak_bytes;
  int64_t reserved_bytes;
  int64_t allocations;
  int64_t total_allocations;
} am_memory_stats;

/* Fills *out for `device` (NULL: the default device; it fails as calls
 * given no device do when ARROWMETAL_BACKEND names a device that cannot be
 * used). `out` is the caller's; AM_EINVAL when it is NULL. Thread-safe. */
int am_memory_info(const am_device *device, am_memory_stats *out);

/* Sets `device`'s peak_bytes (NULL: the default device) to its bytes in use
 * now. Thread-safe; an allocation racing with it may or may not be in the
 * new peak. */
int am_memory_reset_peak(const am_device *device);

/* ---- Arrays */
typedef struct am_array am_array;

/* Imports one Arrow array of a supported primitive type onto `device` (NULL:
 * the default device), or a struct array / record batch ("+s") as one
 * AM_STRUCT handle of child handles (see "Tables" at the end).
 * Ownership: `schema` is borrowed and only read. `array` is moved in: on
 * success AND on failure the caller's struct is marked released (its release
 * member set to NULL), and its release callback runs exactly once, when the
 * library no longer needs the buffers (at once on failure, or at once after an
 * upload to a GPU). On the CPU the import is zero-copy, except that a data
 * buffer not aligned to its element width (the C Data Interface asks for
 * alignment but cannot promise it) is copied once, here, into an aligned
 * one: kernels load elements with typed loads. Bitmaps may sit anywhere.
 * The struct is validated before any kernel can touch it: length, offset and
 * null_count ranges, n_buffers, n_children (negative: AM_EINVAL), dictionary,
 * format string, NULL buffers where data is required, already-released
 * structs. A null_count of -1 is computed from the bitmap. An empty array
 * may have NULL buffers and any offset. A string_view / binary_view array
 * ("vu", "vz") is zero-copy as well, its views and variadic data buffers
 * shared, after every valid slot's view is checked (AM_EINVAL naming the
 * slot: see AM_STRING_VIEW); only its views buffer (16 bytes a slot, never
 * the data) is copied, when it is not 4-byte aligned or when a null slot
 * holds a view that would fail the check (zeroed in the copy). */
int am_import(const struct ArrowSchema *schema, struct ArrowArray *array, am_device *device,
              am_array **out);

/* The same for an Arrow C Device Data Interface array. The data must live on
 * the device type `device` serves (ARROW_DEVICE_CPU for the CPU, or
 * ARROW_DEVICE_CUDA_HOST which is host memory too; ARROW_DEVICE_CUDA for the
 * CUDA backend, zero-copy, after waiting on `sync_event` if it is set;
 * ARROW_DEVICE_METAL for the Metal backend: buffers are CPU addresses of
 * shared memory, as nanoarrow makes them, and a non-NULL `sync_event` is
 * AM_EUNSUPPORTED, since the interface names no value to wait for).
 * A NULL `device` keeps device memory where it lives: the device numbered
 * `device_id` of the backend that serves `device_type` (AM_EUNSUPPORTED when
 * none here does); host memory (CPU, CUDA_HOST) goes to the default device.
 * `array->array` is moved in exactly as with am_import. A device data buffer
 * not aligned to its element width is refused (AM_EINVAL): it is not
 * copied. */
int am_import_device(const struct ArrowSchema *schema, struct ArrowDeviceArray *array,
                     am_device *device, am_array **out);

/* Writes a standard schema and array that the caller owns and releases with
 * their release callbacks (each exactly once, in any order, from any thread).
 * The buffers stay alive until both the exported array and every handle that
 * shares them are released. Zero-copy from the CPU; a GPU array is downloaded.
 * Either out pointer may be NULL to skip it. */
int am_export(const am_array *array, struct ArrowSchema *schema_out, struct ArrowArray *array_out);

/* Exports as an Arrow C Device Data Interface array on the array's own device,
 * without a copy. For CUDA, sync_event points to a CUevent that is recorded
 * after the producing work; the consumer waits on it. For Metal the buffers
 * are CPU addresses of shared memory, device_id is the MTLDevice's
 * registryID (as nanoarrow), and the export waits for the producing work
 * first, so sync_event is NULL. */
int am_export_device(const am_array *array, struct ArrowSchema *schema_out,
                     struct ArrowDeviceArray *array_out);

/* Gives the handle back. NULL is allowed. Must be called exactly once. */
void am_release(am_array *array);

/* Properties. These never fail on a valid handle; -1 / NULL / AM_TYPE_INVALID
 * on NULL. am_length and am_null_count wait for pending device work that
 * determines them (a filter inside a batch, for instance). */
int64_t am_length(const am_array *array);
int64_t am_null_count(const am_array *array);
am_type am_array_type(const am_array *array);
const char *am_format(const am_array *array); /* Arrow format string, static */
am_device *am_array_device(const am_array *array);

/* A timestamp array's time zone ("Europe/Paris", "UTC", "+02:00"), as its
 * Arrow format carried it at import; NULL when it has none or the array is
 * not a timestamp. Static storage (time zones are interned for the
 * process); thread-safe. am_format gives the whole format ("tsu:UTC"). */
const char *am_array_timezone(const am_array *array);
/* A new handle over the same buffers as timestamp `array` with time zone
 * `tz` (copied; NULL or "": none), as pyarrow's Array.cast to the same unit
 * with another tz keeps the values. AM_ETYPE for an array that is not a
 * timestamp. `array` is borrowed; thread-safe. */
int am_array_with_timezone(const am_array *array, const char *tz, am_array **out);

/* Arrow format string of a type ("l" for AM_INT64, ...), or NULL if invalid. */
const char *am_type_format(am_type type);

/* Facts about the element types, for bindings that build their type tables
 * from the library rather than copy them. The types are the am_type values
 * 1 .. am_type_count() - 1. Static storage; thread-safe. */
typedef enum am_type_kind {
  AM_KIND_BOOL = 0,
  AM_KIND_SIGNED = 1,
  AM_KIND_UNSIGNED = 2,
  AM_KIND_FLOAT = 3,
  AM_KIND_TEMPORAL = 4, /* timestamps, dates, times, durations: integers of a unit */
  AM_KIND_BINARY = 5,   /* strings and binary: bit_width is the offsets' (32, 64), 8 for
                           fixed_size_binary */
  AM_KIND_DECIMAL = 6,  /* decimal128, decimal256: bit_width 128, 256 */
  AM_KIND_FLOAT16 = 7   /* float16: a float of its own kind, which the functions of
                           floats do not take (pyarrow has no kernel for most) */
} am_type_kind;

typedef struct am_type_info {
  const char *name;       /* ArrowMetal's name: "int64", "float32" */
  const char *arrow_name; /* pyarrow's name: "int64", "float" */
  const char *format;     /* Arrow C Data Interface format: "l" */
  const char *numpy;      /* numpy dtype name: "int64", "float32" */
  int32_t bit_width;      /* 1 for AM_BOOL */
  int32_t kind;           /* am_type_kind */
} am_type_info;

int am_type_count(void);
/* AM_OK and the facts of `type`; AM_ETYPE (message set) for a value that
 * names no type, AM_EINVAL for a NULL out. */
int am_type_info_get(am_type type, am_type_info *out);

/* A new array of `length` copies of `value` (null if value->is_null) on
 * `device` (NULL: default). */
int am_full(const am_scalar *value, int64_t length, am_device *device, am_array **out);

/* Waits until every call made so far on `device`, from any thread, has
 * finished there (a no-op on the CPU). For handing device memory to a
 * consumer that cannot wait on a sync event, such as the CUDA Array
 * Interface. */
int am_device_sync(am_device *device);

/* Makes later reads on `device` wait for the work queued so far on a
 * foreign queue of the device's kind: a CUstream (as an integer) on CUDA.
 * For importing memory whose producer names a stream rather than an event
 * (the CUDA Array Interface's "stream"). AM_EINVAL on a device with no such
 * queues (the CPU). */
int am_device_wait_stream(am_device *device, uintptr_t stream);

/* A copy of `array` on another device (a new reference when it is already
 * there). */
int am_to_device(const am_array *array, am_device *device, am_array **out);

/* One array holding `count` (>= 1) arrays of one type in order, on `device`
 * (NULL: the first array's device). The inputs are borrowed. */
int am_concat(const am_array *const *arrays, int64_t count, am_device *device, am_array **out);

/* ---- Reductions: the result is written to `*out` (type and is_null set).
 * Nulls are skipped. sum of integers wraps in 64 bits (signed -> AM_INT64,
 * unsigned and booleans -> AM_UINT64, floats -> AM_FLOAT64); mean is
 * AM_FLOAT64; min and max keep the input type and skip NaN (all-NaN gives
 * NaN). Empty or all-null input gives a null scalar, except count.
 * Divergence: the sign of a zero returned by min/max over a mix of -0.0 and
 * 0.0 is unspecified. The mean of integers here is the exact (128-bit) sum
 * divided by the count, rounded once; pyarrow.compute adds the values as
 * float64, so once their magnitudes reach 2^53 the two differ by more than
 * the last bits: [2^63 - 1, -2^63, 5] gives 1.333... here and 1.666... in
 * pyarrow. Float sums (and means) are computed in an order of the library's
 * choosing, not pyarrow's pairwise one, so they differ in the last bits in
 * general and entirely under cancellation: [1e30, 1, -1e30, 2] sums to 3
 * here (exact, by this order) and to 2 in pyarrow, and neither order is
 * exact for every input. */
int am_sum(const am_array *array, am_scalar *out);
int am_min(const am_array *array, am_scalar *out);
int am_max(const am_array *array, am_scalar *out);
int am_mean(const am_array *array, am_scalar *out);

typedef enum am_count_mode {
  AM_COUNT_VALID = 0, /* pyarrow "only_valid", the default */
  AM_COUNT_NULL = 1,  /* "only_null" */
  AM_COUNT_ALL = 2    /* "all" */
} am_count_mode;
/* Result type AM_INT64, never null. */
int am_count(const am_array *array, am_count_mode mode, am_scalar *out);

/* ---- Aggregates with pyarrow's options (ScalarAggregateOptions,
 * VarianceOptions, IndexOptions): any, all, product, min_max, variance,
 * stddev, first, last, first_last, index, and sum/min/max/mean again with
 * their options. One grouped call, am_aggregate, for the functions of one
 * result; am_min_max and am_first_last write two; am_index takes a value.
 *
 * Types (pyarrow's): any and all take bool only and give bool; product gives
 * am_sum's types (int64, uint64 for unsigned integers and bool, float64) and
 * its integers wrap in 64 bits (product of int8 [100, 100, 100, 100] is
 * 100000000, of int64 [2^62, 4] is 0); variance and stddev take numbers (not
 * bool) and give float64; min_max, first, last and first_last keep the input
 * type; index gives int64. Another type is AM_ETYPE in pyarrow's words
 * ("function 'any' has no kernel matching input types (int8)").
 *
 * Nulls and options, in this order (valid = slots that are not null):
 *  - valid < min_count: the result is null (every output);
 *  - skip_nulls == 0 and a slot is null: the result is null, except that any
 *    and all follow Kleene logic (any of [true, null] is true, of [false,
 *    null] null; all of [false, null] is false, of [true, null] null) and
 *    first and last give the first and last slot, null or not;
 *  - variance and stddev: null when valid <= ddof, else M2 / (valid - ddof)
 *    (a negative ddof is allowed, as in pyarrow);
 *  - nothing valid left (min_count 0): product 1, sum 0, mean NaN, any
 *    false, all true, variance 0 / (-ddof) where ddof < 0; the others null.
 * Floats: min_max, min and max skip NaN (all NaN gives NaN); NaN or an
 * infinity makes product, variance and stddev NaN as IEEE arithmetic does;
 * index never finds NaN and finds 0.0 for -0.0.
 * Divergence: product of floats is exact to pyarrow's on the CPU (both
 * multiply in slot order) and may differ in the last bits on a GPU (block
 * order); variance and stddev are computed as per-block (count, mean, M2)
 * merged with Chan et al.'s formula, stable where the mean is large against
 * the spread, and agree with pyarrow's within the tolerance their
 * conformance cases store, not bit for bit. On Metal (no double) product of floats,
 * variance and stddev run on the CPU over the same memory. */
typedef enum am_aggregate_op {
  AM_AGG_ANY = 0,        /* "any" */
  AM_AGG_ALL = 1,        /* "all" */
  AM_AGG_PRODUCT = 2,    /* "product" */
  AM_AGG_MIN_MAX = 3,    /* "min_max": am_min_max */
  AM_AGG_VARIANCE = 4,   /* "variance" */
  AM_AGG_STDDEV = 5,     /* "stddev": the square root of variance */
  AM_AGG_FIRST = 6,      /* "first" */
  AM_AGG_LAST = 7,       /* "last" */
  AM_AGG_FIRST_LAST = 8, /* "first_last": am_first_last */
  AM_AGG_INDEX = 9,      /* "index": am_index */
  AM_AGG_SUM = 10,       /* am_sum, am_min, am_max, am_mean with options */
  AM_AGG_MIN = 11,
  AM_AGG_MAX = 12,
  AM_AGG_MEAN = 13
} am_aggregate_op;

/* pyarrow's ScalarAggregateOptions (skip_nulls, min_count) and
 * VarianceOptions (ddof too). A plain value struct: the library only reads
 * it during the call. */
typedef struct am_aggregate_options {
  int32_t skip_nulls; /* nonzero: nulls are left out (pyarrow's default) */
  uint32_t min_count; /* fewer valid slots than this: null */
  int32_t ddof;       /* variance, stddev: delta degrees of freedom */
} am_aggregate_options;

/* Writes pyarrow's defaults for `op` to *out: skip_nulls 1, min_count 1 (0
 * for variance and stddev), ddof 0. AM_EINVAL for an unknown op or NULL out.
 * Thread-safe. */
int am_aggregate_options_default(am_aggregate_op op, am_aggregate_options *out);

/* Aggregate `op` of `array` into *out. `options` is borrowed for the call;
 * NULL means the op's defaults. AM_EINVAL for an op of two results
 * (AM_AGG_MIN_MAX, AM_AGG_FIRST_LAST) or of a value (AM_AGG_INDEX): those
 * have their own calls below. Inside a batch a GPU writes *out when the batch
 * ends (am_batch_begin). Thread-safe; `array` is only read. */
int am_aggregate(am_aggregate_op op, const am_array *array, const am_aggregate_options *options,
                 am_scalar *out);

/* pyarrow's min_max: the smallest and the largest valid value, in one call
 * (one pass on a GPU). Both outputs are written, each null where pyarrow's
 * struct field is null; pyarrow's struct itself is never null. `min` and
 * `max` must be distinct. Ownership and threads as am_aggregate. */
int am_min_max(const am_array *array, const am_aggregate_options *options, am_scalar *min,
               am_scalar *max);

/* pyarrow's first_last: am_aggregate's AM_AGG_FIRST and AM_AGG_LAST in one
 * call. `first` and `last` must be distinct. Ownership and threads as
 * am_aggregate. */
int am_first_last(const am_array *array, const am_aggregate_options *options, am_scalar *first,
                  am_scalar *last);

/* pyarrow's index (IndexOptions value): the first slot holding `value`, -1
 * when none does (AM_INT64, never null). `value` must have the array's type
 * (AM_ETYPE otherwise, as pyarrow's kernel: convert it first, as
 * pyarrow.compute.index does in Python); an integer value outside the type's
 * range is AM_EINVAL, a float32 value is rounded to float32 (as
 * am_compare_scalar does), a bool is true when i64 is not 0. A null value is
 * found nowhere (-1). Both are borrowed for the call. Thread-safe. */
int am_index(const am_array *array, const am_scalar *value, am_scalar *out);

/* ---- Element-wise. Inputs of different numeric types are first converted to
 * their common type as pyarrow.compute does (a safe cast: a value that does
 * not fit is AM_EOVERFLOW). Arrays must have equal lengths. A result slot is
 * null where any input slot is null. */
typedef enum am_compare_op {
  AM_EQ = 0,
  AM_NE = 1,
  AM_LT = 2,
  AM_LE = 3,
  AM_GT = 4,
  AM_GE = 5
} am_compare_op;

/* Boolean result. NaN compares unequal to everything, itself included.
 * am_compare_scalar compares an integer array with an integer scalar whose
 * value fits the array's type in that type, without a widened copy of the
 * array (the answer is the common type's). */
int am_compare(am_compare_op op, const am_array *left, const am_array *right, am_array **out);
int am_compare_scalar(am_compare_op op, const am_array *left, const am_scalar *right,
                      am_array **out);

typedef enum am_arith_op {
  AM_ADD = 0,
  AM_SUBTRACT = 1,
  AM_MULTIPLY = 2,
  AM_DIVIDE = 3
} am_arith_op;

/* Result in the common type. Integer results wrap; integer division truncates
 * toward zero, a zero divisor in a slot where both inputs are valid is
 * AM_EZERODIV, and
 * INT_MIN / -1 gives 0 (as pyarrow.compute). Booleans are AM_ETYPE. */
int am_arith(am_arith_op op, const am_array *left, const am_array *right, am_array **out);
int am_arith_scalar(am_arith_op op, const am_array *left, const am_scalar *right, am_array **out);

/* Flags of am_cast, pyarrow's CastOptions. 0 is pyarrow's safe=False (no
 * check); AM_CAST_SAFE (1, pyarrow's default) checks every conversion, and
 * the ALLOW bits lift one check of a safe cast:
 *  - integer -> integer out of the target's range: allow_int_overflow (wraps);
 *  - float -> integer with a fraction, NaN, an infinity or out of range, and
 *    integer -> float beyond +-2^53 (float64) or +-2^24 (float32):
 *    allow_float_truncate (truncates toward zero, rounds to nearest).
 *  - decimal -> decimal or integer losing fraction digits, or decimal ->
 *    decimal beyond the target's precision: allow_decimal_truncate
 *    (truncates toward zero; keeps what the width holds);
 *  - decimal -> integer out of range: allow_int_overflow (the low bits);
 *  - float -> decimal of NaN, an infinity or beyond the precision:
 *    allow_decimal_truncate, as in pyarrow (gives 0);
 *  - a temporal unit change that drops a fraction (timestamp[ms] 1001 to
 *    timestamp[s]): allow_time_truncate (truncates toward zero);
 *  - one past int64 (date32 2^31-1 to timestamp[ns]): allow_time_overflow
 *    (wraps).
 * float64 -> float32 and conversions from and to bool are never checked, as in
 * pyarrow. pyarrow's allow_invalid_utf8 concerns a conversion am_cast does
 * not make. */
typedef enum am_cast_flag {
  AM_CAST_SAFE = 1,
  AM_CAST_ALLOW_INT_OVERFLOW = 2,
  AM_CAST_ALLOW_FLOAT_TRUNCATE = 4,
  AM_CAST_ALLOW_DECIMAL_TRUNCATE = 8,
  AM_CAST_ALLOW_TIME_TRUNCATE = 16,
  AM_CAST_ALLOW_TIME_OVERFLOW = 32
} am_cast_flag;

/* Conversion to `to` under `flags` (am_cast_flag bits; others are AM_EINVAL).
 * A value a checked conversion does not keep is AM_EOVERFLOW, naming the slot.
 * Strings (a string or binary array; computed on the host, a GPU array's
 * result moved back) cast to the integer types
 * and bool by pyarrow's parser: decimal digits with a '-' for the signed
 * types, "0x" and at most two hex digits a byte (the type's bits: "0x80" as
 * int8 is -128), "true"/"false" in any case and "1"/"0" for bool; a valid
 * value that does not parse or fit is AM_EINVAL (pyarrow's message, "Failed
 * to parse string: ... as a scalar of type int64") whatever the flags; when
 * several fail, the message names the last, as pyarrow's. Integers and bools
 * cast to string, large_string and string_view (decimal, "true"/"false").
 * Views cast to the flat string types (a copy, as pyarrow's; binary_view to
 * a string type only through pyarrow, which checks UTF-8: AM_ETYPE here),
 * string and large_string to string_view and binary_view, binary and
 * large_binary to binary_view (new views over the same bytes), string_view
 * to binary_view (the same views).
 * Strings (the four flat ones and the views) cast to float32 and float64 as
 * Arrow reads them: an optional sign, digits with one '.' and an exponent
 * ("1e3", ".5", "+1.5E-7"), "inf", "infinity", "nan" in any case; no spaces
 * ("Failed to parse string: ' 1' as a scalar of type double"); correctly
 * rounded to the target's width, overflow to an infinity. Floats cast to
 * string, large_string and string_view as Arrow writes them: the shortest
 * text that reads back as the same value of that width, decimal for
 * exponents -6 to 9 ("0.000001", "123456789"), else "1e+20", "1e-7",
 * "1.2345678901234568e+17"; "-0", "inf", "-inf", "nan".
 * string and large_string cast to timestamps, date32 and date64 as Arrow's
 * ISO-8601 reader takes them: "YYYY-MM-DD" (the dates: only that), then
 * ' ' or 'T', "hh", "hh:mm" or "hh:mm:ss" and up to the unit's fraction
 * digits ("2020-01-01T12:00:00.123" to timestamp[ms]); a timestamp target
 * here has no time zone and takes no offset ("...: expected no zone
 * offset."; am_cast_timestamp takes a zone). Timestamps, dates, times and
 * durations cast to string, large_string and string_view as pyarrow writes
 * them: "2020-01-01 00:00:00.000000", "2020-01-01", "12:00:00.000", a
 * duration's integer, "<value out of range: V>" past the years +-32767 (or
 * a time outside the day); a timestamp in UTC as "2020-01-01 00:00:00Z"
 * and in another time zone as its local time and offset, "2020-03-08
 * 03:00:00-0400" (pyarrow's `date` library formatting, its wraps of far
 * values included; the zone read as "Time zones" says, past 2037 with its
 * divergence). Casts to binary, and the pairs pyarrow has no cast for
 * (strings to times and durations, binary and views to temporal types),
 * are AM_ETYPE. float16 is not a type here (pyarrow casts it as a float32
 * then rounds). All of these run on the host: a GPU array's result is moved
 * back to its device.
 * Temporal types, on every device, as pyarrow casts them: to and from their
 * storage integer (int64: timestamps, durations, time64, date64; int32:
 * date32, time32) sharing the buffers; a change of unit among timestamps,
 * among durations, among times, among dates, or from a date to a timestamp,
 * multiplying or dividing toward zero, checked as the flags say
 * (AM_EINVAL "Casting from timestamp[ms] to timestamp[s] would lose data:
 * 1001", "... would result in out of bounds timestamp: V"); a timestamp to
 * a date its day, rounded down, unchecked, and to a time its time of day,
 * both local for a time zone other than UTC (see "Time zones": computed on
 * the host, a GPU array's result moved back; an unknown zone is AM_EINVAL).
 * A timestamp result keeps the input timestamp's time zone (none from a
 * date; am_array_with_timezone sets one). Other pairs are AM_ETYPE
 * ("Unsupported cast from int32 to timestamp[s]").
 * Decimals cast to the integer and float types here, to decimals by
 * am_cast_decimal (am_cast to a decimal type is AM_EINVAL: it has no
 * precision and scale).
 * Divergence: an unchecked float outside the target integer's range gives an
 * unspecified value (pyarrow gives whatever the CPU instruction does). */
int am_cast(const am_array *array, am_type to, int flags, am_array **out);

/* am_cast to decimal `to` (AM_DECIMAL128 / AM_DECIMAL256) of `precision`
 * and `scale`, from a decimal (any width and parameters), integer or float
 * array on the host, with pyarrow's rules and words (AM_EINVAL):
 * "Rescaling Decimal value would cause data loss", "Decimal value does not
 * fit in precision 5", "Cannot convert nan to Decimal128", "Cannot convert
 * 1e+10 to Decimal128(precision = 5, scale = 2): overflow", and, for an
 * integer type whose digits plus the scale pass the precision (whatever the
 * flags), "Precision is not great enough for the result. It should be at
 * least 12"; a negative scale from integers "Scale must be non-negative".
 * The digits are Arrow C++'s, which are not always the nearest: a float
 * at a scale near the width's digits may end one unit off (1/3 to
 * decimal128(38, 37) ends ...9930, the nearest being ...9929), and a checked
 * scale-up that wraps the width without changing sign passes, as in
 * pyarrow. Other types are AM_ETYPE ("Unsupported cast from bool to
 * decimal128(5, 2)"); a GPU array AM_EUNSUPPORTED. */
int am_cast_decimal(const am_array *array, am_type to, int32_t precision, int32_t scale, int flags,
                    am_array **out);

/* am_cast to timestamp type `to` (AM_TIMESTAMP_S ... _NS) with time zone
 * `timezone` (NULL or "" for none; copied), pyarrow's cast to
 * pa.timestamp(unit, tz): the result carries the zone. Strings read as
 * am_cast reads them, except that with a zone each text needs an offset
 * ("Z", "+01", "+0100", "+01:00": the instant converted to UTC), without one
 * none; the error names the target with its zone: "Failed to parse string:
 * '2020-01-01' as a scalar of type timestamp[s, tz=UTC]: expected a zone
 * offset. If these timestamps are in local time, cast to timestamp without
 * timezone, then call assume_timezone." Other inputs cast as am_cast does
 * (their messages name the target without its zone), then take the zone.
 * `to` not a timestamp type is AM_ETYPE. The input is borrowed; `*out` is a
 * new array. Thread-safe. */
int am_cast_timestamp(const am_array *array, am_type to, const char *timezone, int flags,
                      am_array **out);

/* Boolean logic on AM_BOOL arrays; null if either input is null (pyarrow's
 * and_, or_, not Kleene logic). The same as am_logic with AM_LOGIC_AND,
 * AM_LOGIC_OR and AM_LOGIC_NOT. */
int am_and(const am_array *left, const am_array *right, am_array **out);
int am_or(const am_array *left, const am_array *right, am_array **out);
int am_not(const am_array *array, am_array **out);

/* ---- Boolean logic, every function of pyarrow's family
 * Inputs are AM_BOOL (anything else is AM_ETYPE, as in pyarrow); arrays of
 * one call have equal lengths (AM_EINVAL otherwise). Two null rules:
 *  - propagating (and, or, xor, and_not, invert): a result slot is null
 *    where an input slot is;
 *  - Kleene (the _kleene ops): a null is an unknown truth value, so a slot
 *    whose result the known operand decides is valid: false AND null is
 *    false, true OR null is true, and and_not_kleene(x, y) is x AND NOT y in
 *    the same logic (null AND_NOT true is false). Others are null. */
typedef enum am_logic_op {
  AM_LOGIC_AND = 0,           /* "and" (am_and) */
  AM_LOGIC_OR = 1,            /* "or" (am_or) */
  AM_LOGIC_NOT = 2,           /* "invert" (am_not): one input, `right` NULL */
  AM_LOGIC_AND_KLEENE = 3,    /* "and_kleene" */
  AM_LOGIC_OR_KLEENE = 4,     /* "or_kleene" */
  AM_LOGIC_XOR = 5,           /* "xor" */
  AM_LOGIC_AND_NOT = 6,       /* "and_not": left AND NOT right */
  AM_LOGIC_AND_NOT_KLEENE = 7 /* "and_not_kleene" */
} am_logic_op;

/* out = left (op) right. AM_LOGIC_NOT takes `left` alone: `right` must be
 * NULL for it and non-NULL for every other op (AM_EINVAL). An unknown op is
 * AM_EINVAL. The inputs are borrowed; *out is the caller's. Thread-safe. */
int am_logic(am_logic_op op, const am_array *left, const am_array *right, am_array **out);

/* The same with one operand a scalar, in either position, as pyarrow takes
 * it: `left (op) scalar` and `scalar (op) right` (the order matters for
 * and_not). The scalar is AM_BOOL (another type is AM_ETYPE), true when
 * i64 != 0; a null scalar may also have no type (AM_TYPE_INVALID), as in
 * the other scalar calls: it is a null bool. A null scalar makes every slot
 * null under the propagating ops and is the unknown value under the Kleene
 * ones. AM_LOGIC_NOT is AM_EINVAL here. The scalar is read during the call
 * only; the array is borrowed; *out is the caller's. Thread-safe. */
int am_logic_scalar(am_logic_op op, const am_array *left, const am_scalar *right, am_array **out);
int am_logic_scalar_left(am_logic_op op, const am_scalar *left, const am_array *right,
                         am_array **out);

/* ---- Element-wise functions of one numeric array
 * The result is null where the input is null; its type is the input's
 * unless the op says otherwise below.
 * Integers wrap as pyarrow's unchecked functions do: the negation and the
 * absolute value of a type's smallest value are that value (abs(int8 -128)
 * is -128), and negate of an unsigned integer wraps (negate(uint8 1) is
 * 255). Floats follow IEEE: abs clears the sign (abs(-0.0) is 0.0), negate
 * flips it, NaN stays NaN. Booleans are AM_ETYPE. */
typedef enum am_unary_op {
  AM_NEGATE = 0,       /* pyarrow "negate" */
  AM_ABS = 1,          /* pyarrow "abs" */
  AM_BIT_WISE_NOT = 2, /* pyarrow "bit_wise_not": integers only */
  AM_SIGN = 3,         /* "sign": -1, 0 or 1 (int8 for integers); NaN stays NaN, -0.0 gives 0.0 */
  /* Functions of floats (integers are converted to float64 first, so their
   * result is float64), as C's math library computes them: outside the
   * domain they give NaN (sqrt(-1), ln(-1)) or an infinity (ln(0)), as
   * pyarrow's unchecked functions do. Divergence: GPU backends compute the
   * transcendental ones (all but sqrt, floor, ceil, trunc) to within a few
   * units in the last place of pyarrow's (CUDA's documented error bounds). */
  AM_SQRT = 4,  /* "sqrt" */
  AM_EXP = 5,   /* "exp" */
  AM_LN = 6,    /* "ln" */
  AM_LOG10 = 7, /* "log10" */
  AM_LOG2 = 8,  /* "log2" */
  AM_LOG1P = 9, /* "log1p": ln(1 + x), exact near 0 */
  AM_FLOOR = 10,
  AM_CEIL = 11,
  AM_TRUNC = 12,
  AM_SIN = 13,
  AM_COS = 14,
  AM_TAN = 15,
  AM_ASIN = 16,
  AM_ACOS = 17,
  AM_ATAN = 18,
  /* The checked variants fail (and write no result) at the first valid slot
   * pyarrow refuses, naming it and its value: AM_EOVERFLOW for the smallest
   * value of a signed integer type (negate_checked takes no unsigned
   * integers), AM_EINVAL outside the domain (sqrt_checked of a negative
   * number, the logarithms of zero or a negative number, log1p of -1 or
   * less, asin and acos beyond [-1, 1]). NaN is no failure: it gives NaN. */
  AM_NEGATE_CHECKED = 19,
  AM_ABS_CHECKED = 20,
  AM_SQRT_CHECKED = 21,
  AM_LN_CHECKED = 22,
  AM_LOG10_CHECKED = 23,
  AM_LOG2_CHECKED = 24,
  AM_LOG1P_CHECKED = 25,
  AM_ASIN_CHECKED = 26,
  AM_ACOS_CHECKED = 27
} am_unary_op;

int am_unary(am_unary_op op, const am_array *array, am_array **out);

/* ---- Element-wise functions of two numeric arrays, beyond am_arith
 * Inputs of different numeric types meet in their common type, as in
 * am_arith; the result has that type (atan2 converts each integer operand to
 * float64 first: int64 and float32 give float64), and is
 * null where either input is null. The checked variants fail, writing no
 * result, at the first slot pyarrow refuses, naming it and its values:
 * AM_EOVERFLOW when an integer result does not fit, AM_EZERODIV for a zero
 * divisor (divide_checked refuses one for floats too, as pyarrow does).
 * Where slots fail in two ways (a zero divisor and MIN / -1, a negative
 * exponent and an overflow), the last refused slot decides, as in pyarrow. */
typedef enum am_binary_op {
  AM_ADD_CHECKED = 0,      /* "add_checked": integers fail on overflow */
  AM_SUBTRACT_CHECKED = 1, /* "subtract_checked" */
  AM_MULTIPLY_CHECKED = 2, /* "multiply_checked" */
  AM_DIVIDE_CHECKED = 3,   /* "divide_checked": MIN / -1 fails (overflow), x / 0 fails */
  /* "power": integers wrap; a negative integer exponent is AM_EINVAL (as in
   * pyarrow, checked or not); floats as C's pow. */
  AM_POWER = 4,
  AM_POWER_CHECKED = 5, /* "power_checked": integers fail on overflow */
  AM_ATAN2 = 6,         /* "atan2"(y, x): the angle of the point (x, y) */
  AM_BIT_WISE_AND = 7,  /* integers only */
  AM_BIT_WISE_OR = 8,
  AM_BIT_WISE_XOR = 9,
  /* Shifts of integers by y bits. An amount outside [0, precision) -- the
   * type's bits, less the sign bit for signed types -- leaves x unchanged,
   * as pyarrow does; the checked variants refuse it (AM_EINVAL). shift_right
   * of a negative value is arithmetic. */
  AM_SHIFT_LEFT = 10,
  AM_SHIFT_LEFT_CHECKED = 11,
  AM_SHIFT_RIGHT = 12,
  AM_SHIFT_RIGHT_CHECKED = 13
} am_binary_op;

/* Arrays of equal length (AM_EINVAL otherwise), or an array and a scalar of
 * any numeric type (a null scalar gives an all-null result). Thread-safe;
 * the inputs are borrowed, *out is the caller's to release. */
int am_binary(am_binary_op op, const am_array *left, const am_array *right, am_array **out);
int am_binary_scalar(am_binary_op op, const am_array *left, const am_scalar *right, am_array **out);

/* ---- Selection */
/* Keeps the slots whose mask is true; a null mask slot drops the row. `mask`
 * must be AM_BOOL with the same length. */
int am_filter(const am_array *array, const am_array *mask, am_array **out);

/* What a filter does with a null mask slot: pyarrow's FilterOptions
 * null_selection_behavior. */
typedef enum am_null_selection {
  AM_NULL_DROP = 0, /* "drop": the row is left out (am_filter) */
  AM_NULL_EMIT = 1  /* "emit_null": the row is kept, as a null */
} am_null_selection;

/* am_filter with the null rule `nulls`. */
int am_filter_nulls(const am_array *array, const am_array *mask, am_null_selection nulls,
                    am_array **out);

/* out[i] = array[indices[i]]; a null index gives null. Indices are any
 * integer type (AM_INT32 and AM_INT64 natively, others are widened first);
 * the first out-of-range index is reported (AM_EINDEX). */
int am_take(const am_array *array, const am_array *indices, am_array **out);

/* Zero-copy view of `length` slots from `offset`, clamped to the array's end
 * as pyarrow's Array.slice does; negative offset or length is AM_EINVAL. */
int am_slice(const am_array *array, int64_t offset, int64_t length, am_array **out);

/* ---- Null handling: pyarrow's is_null, is_valid, is_nan,
 * is_finite, is_inf, fill_null, coalesce, if_else, drop_null, fill_null_forward
 * and fill_null_backward.
 * Ownership: inputs are borrowed and only read; `*out` is a new handle the
 * caller releases. Thread safety: as every call (any thread, any time). */

/* Predicates of one array: a boolean array of the same length. */
typedef enum am_predicate {
  AM_IS_NULL = 0,   /* "is_null": true where the slot is null; never null itself */
  AM_IS_VALID = 1,  /* "is_valid": true where the slot is valid; never null itself */
  AM_IS_NAN = 2,    /* "is_nan": true at NaN; null where the input is null */
  AM_IS_FINITE = 3, /* "is_finite": neither NaN nor an infinity; null where the input is */
  AM_IS_INF = 4     /* "is_inf": +inf or -inf; null where the input is null */
} am_predicate;

/* Flags of am_is: pyarrow's NullOptions. */
typedef enum am_predicate_flag {
  AM_NAN_IS_NULL = 1 /* is_null only (nan_is_null=True): a NaN slot counts as null too */
} am_predicate_flag;

/* `op` of `array` under `flags` (am_predicate_flag bits; unknown bits, or a
 * flag given to a predicate that has none, are AM_EINVAL). is_null and
 * is_valid take every type; is_nan, is_finite and is_inf take numbers,
 * decimals and durations (an integer, a decimal or a duration is never NaN
 * nor infinite: false, true and false where it is valid), and bool and the
 * other temporal types are AM_ETYPE, as in pyarrow. */
int am_is(am_predicate op, int flags, const am_array *array, am_array **out);

/* pyarrow's fill_null: the null slots of `values` replaced by the fill,
 * either `fill` (an array of the values' type and length) or `fill_scalar`;
 * exactly one of the two is given (else AM_EINVAL). The result has the
 * values' type and is null only where the fill is null too. As in pyarrow a
 * scalar of another type is converted as pyarrow converts a Python value to
 * the values' type (pa.scalar(value, type)): an integer must fit
 * (AM_EOVERFLOW); a float becomes an integer truncated toward zero, and must
 * fit then (NaN and infinities are AM_EOVERFLOW); an integer becomes a float
 * only within +-2^53 (float64) or +-2^24 (float32), else AM_EOVERFLOW;
 * float64 to float32 rounds; a bool becomes a float (1.0 or 0.0) but no
 * integer, and no number becomes a bool (AM_ETYPE). A
 * null scalar (of any type, or none) leaves the values as they are. An array
 * fill of another type is AM_ETYPE, as pyarrow.compute.fill_null fails on it:
 * am_coalesce promotes. */
int am_fill_null(const am_array *values, const am_array *fill, const am_scalar *fill_scalar,
                 am_array **out);

/* pyarrow's coalesce: slot i of the result is slot i of the first of the
 * `count` (>= 1) values that is valid there, null where none is. Value k is
 * arrays[k] or scalars[k]: exactly one of the two is non-NULL (either list
 * may itself be NULL when it holds none), and at least one is an array,
 * which gives the length (arrays of other lengths are AM_EINVAL). Every value
 * is first converted to the common type, as pyarrow.compute does: numbers to
 * their common numeric type by a safe cast (a value that does not fit is
 * AM_EOVERFLOW, whether or not the result needs it), bools only with bools
 * (AM_ETYPE otherwise). A null scalar needs a type, as in pyarrow (one with
 * AM_TYPE_INVALID is pyarrow's null type: AM_ETYPE). The result is on the
 * first array's device. */
int am_coalesce(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count,
                am_array **out);

/* pyarrow's if_else: slot i is left's where `cond` (an AM_BOOL array; else
 * AM_ETYPE) is true, right's where it is false, and null where cond is null.
 * Each side is an array (`left`, `right`) or a scalar (`left_scalar`,
 * `right_scalar`): exactly one of each pair is given (else AM_EINVAL), and
 * arrays have cond's length (AM_EINVAL). The sides are first converted to
 * their common type as pyarrow.compute does: numbers to their common numeric
 * type by a safe cast (AM_EOVERFLOW where a value does not fit, chosen or
 * not), bools only with bools (AM_ETYPE); a null scalar of no type
 * (AM_TYPE_INVALID) takes the other side's, and two are AM_ETYPE. The result
 * has cond's length; inputs on several devices meet as routing says. */
int am_if_else(const am_array *cond, const am_array *left, const am_scalar *left_scalar,
               const am_array *right, const am_scalar *right_scalar, am_array **out);

/* pyarrow's drop_null: the valid slots of `array` in order, every type (a
 * filter by the array's own validity). An array without nulls comes back as
 * a new handle on the same buffers. */
int am_drop_null(const am_array *array, am_array **out);

/* Which way am_fill_null_direction looks for a value. */
typedef enum am_fill_direction {
  AM_FILL_FORWARD = 0, /* pyarrow's fill_null_forward: the nearest valid slot before */
  AM_FILL_BACKWARD = 1 /* fill_null_backward: the nearest valid slot after */
} am_fill_direction;

/* pyarrow's fill_null_forward / fill_null_backward: each null slot of `values`
 * takes the value of the nearest valid slot before it (forward) or after it
 * (backward); one with none stays null. Every type; the result has the
 * values' type. An array without nulls comes back as a new handle on the
 * same buffers. Divergence: pyarrow 26 has no kernel for durations (it has
 * one for every other temporal type); here they fill as the others do. */
int am_fill_null_direction(am_fill_direction direction, const am_array *values, am_array **out);
/* ---- end of null handling */

/* ---- Rounding and pairwise differences */

/* pyarrow's RoundMode, in its order. The HALF_ modes round to the nearest
 * multiple and break ties as named; the others round every value that is
 * not already a multiple in their direction. */
typedef enum am_round_mode {
  AM_ROUND_DOWN = 0,                  /* "down": towards -infinity */
  AM_ROUND_UP = 1,                    /* "up": towards +infinity */
  AM_ROUND_TOWARDS_ZERO = 2,          /* "towards_zero" */
  AM_ROUND_TOWARDS_INFINITY = 3,      /* "towards_infinity": away from zero */
  AM_ROUND_HALF_DOWN = 4,             /* "half_down" */
  AM_ROUND_HALF_UP = 5,               /* "half_up" */
  AM_ROUND_HALF_TOWARDS_ZERO = 6,     /* "half_towards_zero" */
  AM_ROUND_HALF_TOWARDS_INFINITY = 7, /* "half_towards_infinity" */
  AM_ROUND_HALF_TO_EVEN = 8,          /* "half_to_even" (pyarrow's default) */
  AM_ROUND_HALF_TO_ODD = 9            /* "half_to_odd" */
} am_round_mode;

/* pyarrow's round with RoundOptions(ndigits, round_mode): every numeric type
 * (bool is AM_ETYPE), the result of the input's type, null where the input
 * is. Floats are computed as pyarrow computes them, in the float's own
 * precision: x * 10^ndigits (x / 10^-ndigits for ndigits < 0) rounded by
 * `mode`, then scaled back; NaN and the infinities pass through, and a value
 * whose scaled form is already whole is returned unchanged. 10^k is pyarrow's
 * (10^k for k <= 10; past that the float literal 1e11F .. 1e15F, times 10
 * for each further digit), so digits beyond a float32's precision round as
 * pyarrow's do. A result that is not finite is AM_EINVAL ("overflow occurred
 * during rounding"). Integers: ndigits >= 0 returns the values unchanged;
 * ndigits < 0 rounds to a multiple of 10^-ndigits, and a result outside the
 * type is AM_EINVAL ("Rounding 127 up to multiple of 10 would overflow");
 * -ndigits beyond the type's decimal digits (std::numeric_limits digits10:
 * 2 for int8 and uint8, 4, 9, 18 for int64) is AM_EINVAL ("Rounding to -3
 * digits is out of range for type int8"). A failure names the last refused
 * slot, as pyarrow's message does.
 * Divergence: pyarrow prints the int8 and uint8 values of that message as
 * characters; the library prints numbers. uint64 with ndigits -19 is refused
 * as out of range (pyarrow 26 accepts it and dies of SIGFPE). On a GPU the
 * message of an integer that leaves its type says which way it went but not
 * the value's words ("Rounding up to a multiple would overflow (round at
 * slot 2, left value 127)"). `array` is borrowed; *out is the
 * caller's. Thread-safe. */
int am_round(const am_array *array, int64_t ndigits, am_round_mode mode, am_array **out);

/* pyarrow's round_to_multiple with RoundToMultipleOptions(multiple,
 * round_mode): each value rounded to a multiple of `multiple` by `mode`,
 * computed as am_round computes ndigits < 0 with the multiple in place of
 * 10^-ndigits (floats: x / multiple rounded, times multiple, in the float's
 * precision; integers: the multiple's nearest multiples, exact). Every
 * numeric type (bool is AM_ETYPE); the result has the input's type and is
 * null where the input is. The multiple is checked as pyarrow checks it, in
 * its words: null is AM_EINVAL ("Rounding multiple must be non-null and
 * valid"); one not above 0 (0, negative, NaN; a bool, temporal or string
 * scalar, which is no number) is AM_EINVAL ("Rounding multiple must be
 * positive"); then it is cast safely to the array's type, its failure
 * AM_EOVERFLOW as am_cast's ("Integer value 300 not in range: -128 to 127",
 * "Float value 2.500000 was truncated converting to int8", "Integer value
 * 16777217 not in range: -16777216 to 16777216" for float32; float64 to
 * float32 rounds, 1e300 becoming an infinity that leaves every value as it
 * is). Failures as am_round's: a result outside an integer type is
 * AM_EINVAL ("Rounding 127 up to multiple of 10 would overflow"), a float
 * result that is not finite AM_EINVAL ("overflow occurred during rounding").
 * Divergence: pyarrow doubles an integer's remainder in the type itself, so
 * that with a multiple above 2^30 (int32), 2^31 (uint32) or 2^62 (int64) a
 * value past half of it can wrap and round down (int32 1100000000 to a
 * multiple of 2000000000 gives 0); the library doubles it in 64 bits and
 * rounds to the nearer multiple (2000000000). uint64's doubling wraps in both
 * alike. The messages' int8 and uint8 values are numbers, as am_round's.
 * `array` and `multiple` are borrowed; *out is the caller's. Thread-safe. */
int am_round_to_multiple(const am_array *array, const am_scalar *multiple, am_round_mode mode,
                         am_array **out);

typedef enum am_pairwise_op {
  AM_PAIRWISE_DIFF = 0,        /* "pairwise_diff": integers wrap */
  AM_PAIRWISE_DIFF_CHECKED = 1 /* "pairwise_diff_checked": integer overflow is AM_EOVERFLOW */
} am_pairwise_op;

/* pyarrow's pairwise_diff / pairwise_diff_checked with PairwiseOptions
 * (period): slot i is x[i] - x[i - period] (subtract's and subtract_checked's
 * arithmetic, in the input's type: unsigned integers stay unsigned and wrap),
 * null where either is null or i - period is outside the array (the first
 * `period` slots, or the last -period ones for a negative period; every slot
 * when |period| >= the length). Period 0 gives x - x. Every numeric type
 * (bool is AM_ETYPE). The checked op's overflow is AM_EOVERFLOW ("overflow"),
 * the whole call failing. `array` is borrowed; *out is the caller's.
 * Thread-safe. */
int am_pairwise_diff(am_pairwise_op op, const am_array *array, int64_t period, am_array **out);
/* ---- end of rounding and pairwise differences */
/* ---- Quantiles: pyarrow's quantile, tdigest and
 * approximate_median over int8..uint64, float32 and float64.
 * Ownership: `array` and `q` are borrowed and only read during the call;
 * `*out` is a new handle the caller releases (am_release). Thread safety: as
 * every call (any thread, any time; the inputs are never written).
 * Nulls and NaN: nulls are counted against `min_count` (fewer valid slots
 * than min_count, or any null with skip_nulls == 0: every output slot is
 * null); NaN values are then dropped (they count as valid for min_count, as
 * in pyarrow), and nothing left gives null slots. */

/* pyarrow's QuantileOptions.interpolation, in its order. */
typedef enum am_quantile_interpolation {
  AM_QUANTILE_LINEAR = 0,  /* float64: lower + fraction between the two ranks */
  AM_QUANTILE_LOWER = 1,   /* the input's type: the value at floor((n - 1) q) */
  AM_QUANTILE_HIGHER = 2,  /* the input's type: the value at ceil((n - 1) q) */
  AM_QUANTILE_NEAREST = 3, /* the input's type: the nearer rank, ties to the even one */
  AM_QUANTILE_MIDPOINT = 4 /* float64: lower / 2 + higher / 2 */
} am_quantile_interpolation;

/* pyarrow's quantile: the exact quantiles `q[0..nq)` (nq >= 1, AM_EINVAL
 * "Requires quantile argument" otherwise; each in [0, 1], AM_EINVAL
 * "Quantile must be between 0 and 1" otherwise, NaN too: pyarrow's result
 * for a NaN q is undefined) of the valid, non-NaN values, ranked as pyarrow
 * ranks them (rank (n - 1) q). The result has nq slots: float64 for LINEAR
 * and MIDPOINT, else the input's type. -0.0 ranks below 0.0 here (pyarrow
 * leaves their order to its selection). The CPU selects over a copy of the
 * values' order keys; a GPU runs a radix select of those keys on the device
 * (arrays of 2^32 slots or more are ranked on the host). The result is on
 * the array's device. */
int am_quantile(const am_array *array, const double *q, int64_t nq,
                am_quantile_interpolation interpolation, int skip_nulls, uint32_t min_count,
                am_array **out);

/* pyarrow's tdigest (TDigestOptions): approximate quantiles `q[0..nq)` from a
 * merging t-digest (Dunning and Ertl's, scale function k1 with compression
 * `delta`, below 10 acting as 10 as in pyarrow, values buffered
 * `buffer_size` at a time; 0 acts as 1), float64,
 * nq slots (nq may be 0: an empty array). A q outside [0, 1] (NaN too) gives
 * NaN, as pyarrow. On the CPU the digest is pyarrow's: the same buffers,
 * merges and interpolation, so the results are pyarrow's (the same digest
 * whatever the thread count); GPU-resident arrays are digested on the
 * host (no GPU kernel) and the result goes back to their device.
 * approximate_median is q = {0.5}. A ChunkedArray's chunks concatenated
 * give one digest here (pyarrow digests each chunk and merges them). `delta` above
 * 1 << 20 is AM_EINVAL (pyarrow reserves memory for that many centroids). */
int am_tdigest(const am_array *array, const double *q, int64_t nq, uint32_t delta,
               uint32_t buffer_size, int skip_nulls, uint32_t min_count, am_array **out);
/* ---- end of quantiles */
/* ---- Cumulative functions: pyarrow's cumulative_sum,
 * cumulative_sum_checked, cumulative_prod, cumulative_prod_checked,
 * cumulative_min, cumulative_max and cumulative_mean.
 * Ownership: inputs are borrowed and only read; `*out` is a new handle the
 * caller releases. Thread safety: as every call (any thread, any time). */
typedef enum am_cumulative_op {
  AM_CUMULATIVE_SUM = 0,         /* cumulative_sum: wraps around */
  AM_CUMULATIVE_SUM_CHECKED = 1, /* cumulative_sum_checked */
  AM_CUMULATIVE_PROD = 2,        /* cumulative_prod: wraps around */
  AM_CUMULATIVE_PROD_CHECKED = 3,
  AM_CUMULATIVE_MIN = 4,
  AM_CUMULATIVE_MAX = 5,
  AM_CUMULATIVE_MEAN = 6 /* float64 result */
} am_cumulative_op;

/* Slot i of `*out` is `op` over `start` and the slots of `array` up to i,
 * taken left to right (pyarrow's CumulativeOptions start and skip_nulls).
 * Integer and float arrays (AM_ETYPE for bool); the result has the array's
 * type, float64 for AM_CUMULATIVE_MEAN (the running float64 sum over the
 * count of values so far).
 * `start`: NULL for the op's default (0, 1, the type's highest / lowest
 * value, +inf / -inf for float min / max); else a scalar of the array's type
 * (AM_ETYPE otherwise). A null scalar starts from zero, as pyarrow does with
 * a null start. AM_CUMULATIVE_MEAN ignores it, as pyarrow does.
 * `skip_nulls` 0: every slot from the first null on is null; otherwise null
 * slots stay null and are passed over.
 * SUM and PROD wrap around; the _CHECKED ops fail with AM_EOVERFLOW
 * ("overflow") where a running value leaves the type (not after the first
 * null when skip_nulls is 0); in a batch on a GPU that may come from
 * am_batch_end. Floats: NaN carries through sums, products and means; MIN
 * and MAX pass over NaN (fmin / fmax). On the CPU float results are
 * pyarrow's exactly; a GPU's float sums, products and means are a parallel
 * scan and may differ from them by rounding. */
int am_cumulative(am_cumulative_op op, const am_array *array, const am_scalar *start,
                  int skip_nulls, am_array **out);
/* ---- end of cumulative functions */

/* ---- Sorting: pyarrow's sort_indices and array_sort_indices
 * (SortOptions / ArraySortOptions). */

/* Where nulls go (pyarrow's null_placement). */
typedef enum am_null_placement {
  AM_NULLS_AT_END = 40,  /* "at_end" (pyarrow's default) */
  AM_NULLS_AT_START = 41 /* "at_start" */
} am_null_placement;

/* The stable order of the rows of `n_keys` (>= 1) key arrays of one length
 * (a table's sort columns, the first key deciding first), as pyarrow's
 * sort_indices gives it: *out is AM_UINT64 row indices, never null, one per
 * row, on keys[0]'s device. descending[k] (nonzero: "descending") orders key
 * k; NULL means every key ascending. Every element type is taken (bool,
 * integers, floats, strings and binary bytewise, decimals by value); keys
 * may have different types. A dictionary array is taken as the only key
 * (pyarrow 26 sorts one alone: an array, a RecordBatch's only key), by its
 * values' dense ranks: a null index and an index of a null value are both
 * null, and NaN ranks after the numbers, so it comes first in a descending
 * sort and last at AM_NULLS_AT_START (unlike a float key's NaN, below);
 * beside other keys it is AM_ETYPE ("Unsupported type for RecordBatch
 * sorting: dictionary<...>"). -0.0 and 0.0 tie (rows
 * keep their order); NaN is after every number and nulls after NaN with
 * AM_NULLS_AT_END, and the reverse (nulls, NaN, numbers) with
 * AM_NULLS_AT_START, in either order. null_placement[k] (an
 * am_null_placement) places key k's nulls, as pyarrow 26's per-key
 * (name, order, null_placement) sort keys do; NULL means AM_NULLS_AT_END for
 * every key. Ties keep row order. AM_EINVAL: keys or out NULL, n_keys < 1, a
 * NULL key, keys of different lengths, a bad null_placement[k]. Keys may live on
 * different devices (then they are sorted on the host). Inputs are borrowed
 * (sliced arrays are fine); *out is the caller's, to release once with am_release. Thread-safe.
 * The CPU runs an LSD radix sort of order-preserving key bits (multi-key:
 * LSD over the keys, last key first), parallel on its worker pool above
 * ARROWMETAL_PARALLEL_MIN rows, with its work areas (32 bytes a row)
 * counted in am_memory_info and freed before it returns. The GPU sort (a
 * device radix sort) is not written yet: keys on a GPU are moved to the host,
 * sorted there, and the indices moved back to their device. */
int am_sort_indices(const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *null_placement, am_array **out);

/* ---- Selection and ranking (sorting's neighbours): select_k_unstable,
 * rank, rank_quantile, rank_normal, partition_nth_indices. Each orders as
 * am_sort_indices does (-0.0 ties 0.0; NaN after the numbers and nulls
 * after NaN with AM_NULLS_AT_END, nulls, NaN, numbers with
 * AM_NULLS_AT_START, in either order). Inputs are borrowed (sliced arrays
 * are fine); *out is the caller's, to release once with am_release, on the
 * input's device (keys[0]'s). Thread-safe. The CPU computes them; keys on a
 * GPU are moved to the host, computed there and the result moved back (no
 * GPU kernels yet). Decimal keys are ordered by value (by the dense ranks
 * of their values); a dictionary array is AM_ETYPE in pyarrow 26's words
 * (the type's name; partition_nth_indices: "Function
 * 'partition_nth_indices' has no kernel matching input types (...)"). */

/* pyarrow's select_k_unstable (SelectKOptions): the row indices (AM_UINT64,
 * never null) of the first min(k, rows) rows in the order am_sort_indices
 * gives over the same keys, descending[] and null_placement[] (either NULL:
 * ascending / at end for every key), in that order. Rows that tie on every
 * key come in row order here, but pyarrow gives ties in any order: compare
 * the key values at the indices, not the indices. The CPU keeps a bounded
 * heap of the best k rows when k is small beside the rows, and sorts
 * otherwise. AM_EINVAL: n_keys < 1 ("requires a non-empty `sort_keys`"),
 * k < 0 ("requires a nonnegative `k`"), keys or out NULL, a NULL key, keys
 * of different lengths, a bad null_placement[i]. */
int am_select_k_unstable(const am_array *const *keys, int64_t n_keys, const int *descending,
                         const int *null_placement, int64_t k, am_array **out);

/* rank's tiebreakers (RankOptions.tiebreaker), for the rows that tie. */
typedef enum am_rank_tiebreaker {
  AM_RANK_MIN = 0,   /* "min": the lowest rank of the group */
  AM_RANK_MAX = 1,   /* "max": the highest rank of the group */
  AM_RANK_FIRST = 2, /* "first": row order (pyarrow's default) */
  AM_RANK_DENSE = 3  /* "dense": 1 + the number of distinct groups before */
} am_rank_tiebreaker;

/* pyarrow's rank (RankOptions): per row, its 1-based rank (AM_UINT64,
 * never null) in the order of `descending` (nonzero: "descending") and
 * null_placement (an am_null_placement); tied rows (equal numbers, -0.0 and
 * 0.0, NaN with NaN, null with null) by `tiebreaker`. Any element type.
 * AM_EINVAL: array or out NULL, a bad null_placement or tiebreaker. */
int am_rank(const am_array *array, int descending, int null_placement, int tiebreaker,
            am_array **out);

/* pyarrow's rank_quantile (RankQuantileOptions) and rank_normal
 * (RankQuantileOptions too): per row, AM_FLOAT64 never null: (the rows
 * before its tie group + half its group's size) / rows, ordered as am_rank
 * orders; `normal` nonzero gives rank_normal instead: the standard normal
 * quantile of that (the inverse of the normal distribution function, within
 * a few ulps of pyarrow's). AM_EINVAL as am_rank's. */
int am_rank_quantile(const am_array *array, int descending, int null_placement, int normal,
                     am_array **out);

/* pyarrow's partition_nth_indices (PartitionNthOptions): a permutation of
 * the row indices (AM_UINT64, never null) with the row that sorts at
 * position `pivot` (0 <= pivot <= rows; pivot == rows leaves the order as
 * it is) at that position, every row before it sorting no later and every
 * row after it no earlier (ascending; nulls and NaN by null_placement). Any
 * such permutation is a right answer (pyarrow's differs): compare the
 * partition property, not the indices. AM_EINDEX: pivot > rows
 * ("NthToIndices index out of bound"); AM_EINVAL: pivot < 0, array or out
 * NULL, a bad null_placement. */
int am_partition_nth_indices(const am_array *array, int64_t pivot, int null_placement,
                             am_array **out);
/* ---- end of sorting */

/* ---- Batching
 * Between am_batch_begin() and am_batch_end() the calls this thread makes join
 * one submission per device, waited on once at the end. Array results can feed
 * later calls at once; scalar results (am_sum, ...) are written to the
 * caller's am_scalar when the batch ends, so it must stay valid until then.
 * Errors that depend on data (division by zero, an index out of bounds, a
 * safe cast that overflows) may be reported by am_batch_end rather than by the
 * call. Results equal the unbatched results exactly. Batches nest: only the
 * outermost end submits. On the CPU backend calls run as they are made. */
int am_batch_begin(void);
int am_batch_end(void);

/* This thread's batch nesting depth: 0 outside any batch. Cannot fail;
 * leaves the message alone. */
int am_batch_depth(void);

/* Ends the outermost batch without waiting: `*ticket` identifies the
 * submission for am_wait. Several batches may be in flight at once. Scalar
 * outputs of the batch are written when am_wait(ticket) returns AM_OK. */
int am_batch_commit(uint64_t *ticket);
/* Waits for a ticket from am_batch_commit, once per ticket; returns the first
 * error of that submission.
 * Tickets never waited on are bounded: at most 256 committed batches are
 * held in flight; a commit past that first waits for the oldest and keeps
 * only its outcome (status, and a failure's message), which a later
 * am_wait of its ticket returns. An outcome is dropped once the outcomes
 * of 4,096 later batches have been kept, so memory stays bounded; am_wait of
 * its ticket is then AM_EINVAL ("expired"), never a wrong answer.
 * Thread-safe: any thread may wait on any ticket. */
int am_wait(uint64_t ticket);

/* ---- The functions, described
 * One row per pyarrow.compute function the library implements, so that a
 * binding or a test generator builds on the library's own list instead of
 * copying it: its pyarrow name, the C entry point and the value of the
 * family's enum that selects it (am_unary with AM_NEGATE for "negate"), the
 * number of array inputs, the element kinds it accepts, and how its result
 * type and nulls follow from the inputs. Static storage; thread-safe. */
typedef enum am_function_family {
  AM_FAMILY_REDUCE = 0,  /* am_sum, am_min, am_max, am_mean: op = am_reduce_op order */
  AM_FAMILY_COUNT = 1,   /* am_count */
  AM_FAMILY_COMPARE = 2, /* am_compare, am_compare_scalar: op = am_compare_op */
  AM_FAMILY_ARITH = 3,   /* am_arith, am_arith_scalar: op = am_arith_op */
  AM_FAMILY_UNARY = 4,   /* am_unary: op = am_unary_op */
  AM_FAMILY_LOGIC = 5,   /* am_logic, am_logic_scalar, am_logic_scalar_left: op = am_logic_op
                            (also am_and, am_or, am_not: ops 0, 1, 2) */
  AM_FAMILY_CAST = 6,    /* am_cast */
  AM_FAMILY_FILTER = 7,  /* am_filter */
  AM_FAMILY_TAKE = 8,    /* am_take */
  AM_FAMILY_BINARY = 9,  /* am_binary, am_binary_scalar: op = am_binary_op */
  /* am_aggregate, am_min_max, am_first_last, am_index: op = am_aggregate_op
   * (AM_AGG_ANY .. AM_AGG_INDEX) */
  AM_FAMILY_AGGREGATE = 10,
  /* Null handling */
  AM_FAMILY_PREDICATE = 11,           /* am_is: op = am_predicate */
  AM_FAMILY_FILL_NULL = 12,           /* am_fill_null */
  AM_FAMILY_COALESCE = 13,            /* am_coalesce */
  AM_FAMILY_IF_ELSE = 14,             /* am_if_else */
  AM_FAMILY_DROP_NULL = 15,           /* am_drop_null */
  AM_FAMILY_FILL_NULL_DIRECTION = 16, /* am_fill_null_direction: op = am_fill_direction */
  /* Rounding and pairwise differences */
  AM_FAMILY_ROUND = 17,         /* am_round (op 0), am_round_to_multiple (op 1) */
  AM_FAMILY_PAIRWISE_DIFF = 18, /* am_pairwise_diff: op = am_pairwise_op */
  /* Cumulative functions */
  AM_FAMILY_CUMULATIVE = 20, /* am_cumulative: op = am_cumulative_op */
  /* Hash-based functions */
  AM_FAMILY_SET_LOOKUP = 24,        /* am_is_in (op 0), am_index_in (op 1) */
  AM_FAMILY_UNIQUE = 25,            /* am_unique */
  AM_FAMILY_VALUE_COUNTS = 26,      /* am_value_counts */
  AM_FAMILY_COUNT_DISTINCT = 27,    /* am_count_distinct */
  AM_FAMILY_DICTIONARY_ENCODE = 28, /* am_dictionary_encode */
  AM_FAMILY_MODE = 29,              /* am_mode */
  /* Quantiles */
  AM_FAMILY_QUANTILE = 32, /* am_quantile */
  AM_FAMILY_TDIGEST = 33,  /* am_tdigest: op 0 tdigest, op 1 approximate_median */
  /* Sorting */
  AM_FAMILY_SORT_INDICES = 40, /* am_sort_indices: op 0 sort_indices, op 1 array_sort_indices */
  /* Selection and ranking */
  AM_FAMILY_SELECT_K = 41, /* am_select_k_unstable */
  AM_FAMILY_RANK = 42, /* am_rank (op 0), am_rank_quantile: op 1 rank_quantile, op 2 rank_normal */
  AM_FAMILY_PARTITION_NTH = 43, /* am_partition_nth_indices */
  /* Group-by */
  AM_FAMILY_GROUP_BY = 48, /* am_group_by: op = am_group_op ("hash_sum" ...) */
  /* Temporal functions */
  AM_FAMILY_TEMPORAL_FIELD = 56, /* am_temporal_field: op = am_temporal_field_op */
  /* 57-63: strings (issue #13) */
  AM_FAMILY_STRING = 57,       /* am_string_function: op = am_string_op */
  AM_FAMILY_STRING_SLICE = 58, /* am_utf8_slice_codeunits */
  AM_FAMILY_STRING_JOIN = 59,  /* am_binary_join_element_wise */
  AM_FAMILY_STRPTIME = 60,     /* am_strptime */
  AM_FAMILY_STRFTIME = 61,     /* am_strftime */
  AM_FAMILY_STRING_SPLIT = 62, /* am_string_split: op = am_split_op */
  /* 64-: more temporal functions */
  AM_FAMILY_ASSUME_TIMEZONE = 64, /* am_assume_timezone */
  AM_FAMILY_ROUND_TEMPORAL = 65,  /* am_round_temporal: op = am_round_temporal_op */
  AM_FAMILY_ZONE = 66             /* am_zone_function: op = am_zone_op */
} am_function_family;

typedef enum am_type_rule {
  AM_RULE_SAME = 0,           /* the input's type (min, max, negate) */
  AM_RULE_SUM = 1,            /* signed -> int64; unsigned, bool -> uint64; floats -> float64 */
  AM_RULE_FLOAT64 = 2,        /* float64 (mean) */
  AM_RULE_INT64 = 3,          /* int64 (count) */
  AM_RULE_COMMON = 4,         /* both inputs become their common numeric type, the result's */
  AM_RULE_COMMON_TO_BOOL = 5, /* both inputs become their common type; bool result (compare) */
  AM_RULE_BOOL = 6,           /* bool inputs, bool result (logic) */
  AM_RULE_TARGET = 7,         /* the type asked for (cast) */
  AM_RULE_VALUES = 8,         /* the type of the values input (filter, take) */
  AM_RULE_MATH = 9,           /* integers -> float64; floats keep their type (sqrt, ln, sin) */
  AM_RULE_SIGN = 10,          /* integers -> int8; floats keep their type (sign) */
  /* Null handling */
  AM_RULE_PREDICATE = 11,   /* any input; bool result (is_null, is_nan) */
  AM_RULE_COMMON_ALL = 12,  /* every input becomes the inputs' common type, the result's
                             (coalesce: numbers' common numeric type, bools with bools) */
  AM_RULE_COMMON_REST = 13, /* the inputs after the first (a bool condition) become their
                              common type, the result's (if_else) */
  AM_RULE_UTF8 = 14,        /* a string (strftime) */
  /* Hash-based functions */
  AM_RULE_INT32 = 24, /* int32 (index_in's positions, dictionary_encode's indices) */
  /* Sorting */
  AM_RULE_UINT64 = 40 /* uint64 (sort_indices' row indices) */
} am_type_rule;

typedef enum am_null_rule {
  AM_NULLS_PROPAGATE = 0, /* a result slot is null where any input slot is */
  AM_NULLS_SKIP = 1,      /* nulls are left out (reductions) */
  AM_NULLS_COUNT = 2,     /* nulls are what is counted (count) */
  AM_NULLS_SELECT = 3,    /* as the function says: a null mask slot drops the row (filter), a
                             null index gives null (take) */
  AM_NULLS_KLEENE = 4,    /* a null is an unknown truth value: valid where the other input
                             decides the result (and_kleene, or_kleene, and_not_kleene) */
  /* Null handling */
  AM_NULLS_NEVER = 5, /* the result is never null (is_null, is_valid) */
  AM_NULLS_FILL = 6,  /* null only where no input gives a value (fill_null, coalesce; and
                         fill_null_forward / _backward: where no valid slot is before / after) */
  AM_NULLS_OPTION = 7 /* as the call's null handling option says (binary_join_element_wise;
                         strptime's error_is_null) */
} am_null_rule;

typedef struct am_function_info {
  const char *name;  /* pyarrow.compute's name: "negate" */
  const char *entry; /* the C entry point: "am_unary" */
  int32_t family;    /* am_function_family */
  int32_t op;        /* the family enum's value */
  int32_t arity;     /* array inputs; -1: any number, at least one (coalesce) */
  int32_t kinds;     /* accepted element kinds of the first input: bit (1 << am_type_kind) */
  int32_t type_rule; /* am_type_rule */
  int32_t null_rule; /* am_null_rule */
} am_function_info;

int am_function_count(void);
/* AM_OK and row `index` (0 .. am_function_count() - 1); AM_EINVAL when out
 * of range or out is NULL. */
int am_function_info_get(int index, am_function_info *out);

/* ---- Compiled-kernel cache of the GPU backends
 * GPU kernels are generated per (op, type) and compiled on first use; the
 * compiled code is kept in process and, on CUDA and unless
 * ARROWMETAL_KERNEL_CACHE=0, in one file per kernel under
 * ARROWMETAL_CACHE_DIR (default ~/.cache/arrowmetal), capped at
 * ARROWMETAL_CACHE_MAX_BYTES (256 MiB). Metal compiles from source and its
 * system shader cache keeps what it compiled; ARROWMETAL_METAL_ARCHIVE=path
 * adds one MTLBinaryArchive per process at that path (off by default: a warm
 * system cache is faster than an archive hit), serialized every 32 new
 * pipelines and at exit, with the working directories Metal leaks for it
 * swept. */
typedef struct am_kernel_cache_stats {
  int64_t memory_hits;    /* lookups answered by kernels already loaded */
  int64_t disk_hits;      /* kernels loaded from the disk cache */
  int64_t disk_misses;    /* lookups the disk cache could not answer */
  int64_t compiles;       /* kernels compiled in this process */
  int64_t disk_writes;    /* files written */
  int64_t disk_corrupt;   /* damaged files found (treated as misses, removed) */
  int64_t disk_evictions; /* files removed to stay under the cap */
  int64_t disk_errors;    /* files that could not be read or written */
  double compile_seconds; /* total time spent generating and compiling */
  double load_seconds;    /* total time spent loading compiled kernels */
  /* Metal binary archives (ARROWMETAL_METAL_ARCHIVE): pipelines added to
   * the archive, and the com.apple.gpuarchiver working directories Metal
   * leaves behind that were removed. */
  int64_t archive_harvests;
  int64_t archive_dirs_swept;
} am_kernel_cache_stats;

/* Counters since the process started (all zero where no GPU ran). */
int am_kernel_cache_info(am_kernel_cache_stats *out);
/* The disk cache's directory, "" when it is off. Static storage. */
const char *am_kernel_cache_dir(void);

/* ---- Log messages
 *
 * What the library has to say that is not an error: a line for each burst of
 * GPU kernel compiles (INFO), and a notice when such a burst took over a
 * second (NOTICE: "compiled 24 GPU kernels in 2.3 s; cached on disk for next
 * time"). Levels are Python logging's. Without a handler, NOTICE and above
 * are written to stderr as one line each, "arrowmetal: <message>"; a handler
 * receives every message instead (the Python package forwards them to its
 * `arrowmetal` logger). */
#define AM_LOG_DEBUG 10
#define AM_LOG_INFO 20
#define AM_LOG_NOTICE 25
#define AM_LOG_WARNING 30

/* Called with a message (valid only during the call) from the thread that
 * made it, with no library lock held; it may call any am_* function. */
typedef void (*am_log_handler)(int level, const char *message, void *user);

/* Sends the library's messages to `handler` (NULL: the stderr default).
 * Process-wide; thread-safe. `user` is passed back untouched. Returns AM_OK. */
int am_set_log_handler(am_log_handler handler, void *user);

/* ---- Routing
 *
 * An op runs on the device its inputs live on, unless the crossover table
 * says moving them is faster for that op and size; the result then goes back
 * to the inputs' device. Inputs on two devices meet on the device of the
 * larger one (a GPU when equal), where the result stays. The table is
 * measured per machine by benchmarks/crossover.py, which writes a file for
 * ARROWMETAL_ROUTES (read once; "off": no routing, and inputs on two devices
 * are refused; unset: the built-in table). Nothing is moved for speed inside
 * a batch. am_routes() gives the active table as text: a "# source" line,
 * then one "<op> <from backend> <below rows> <to backend>" line per rule.
 * Static storage; thread-safe. */
const char *am_routes(void);

/* ---- Runtime controls (process-wide, present on every backend) */

/* Spin budget of the GPU completion wait, in microseconds, before the waiter
 * blocks. us >= 0 sets it, clamped to AM_SPIN_MICROSECONDS_MAX (10 s: a
 * waiter spinning longer only burns a core); a negative value only reads.
 * Returns the value in force. Default 2000: a wait that outlasts the spin
 * blocks in the driver, whose wake-up cost 80-200 us on the H200, a fifth
 * to a third of a 10^8-row element-wise op; PyTorch's and CuPy's
 * synchronize spin. Thread-safe. */
#define AM_SPIN_MICROSECONDS_MAX 10000000
int64_t am_spin_microseconds(int64_t us);

/* Low-latency completion wait (spin on a completion counter, then block): on
 * by default, off at start when ARROWMETAL_LOW_LATENCY=0. on >= 0 sets it, a
 * negative value only reads; returns the value in force (0 or 1). Off, a GPU
 * backend uses its blocking wait. */
int am_low_latency_wait(int on);

/* Watchdog of GPU completion waits, in milliseconds. A wait (a result read,
 * am_wait, am_device_sync, a transfer) that has not completed after `ms`
 * returns AM_EDEVICE naming the wait and the limit, and marks the device
 * broken: its work may still be running, so every later call on that device
 * fails with the same sticky error. The CPU backend and other devices are
 * unaffected; a new process starts afresh. 0 turns it off (the default: a
 * long kernel is not a fault); at start ARROWMETAL_WAIT_TIMEOUT_MS sets it.
 * ms >= 0 sets it, clamped to AM_WAIT_TIMEOUT_MS_MAX (one day); a negative
 * value only reads. Returns the value in force. Thread-safe; a wait already
 * under way keeps the limit it started with. While it is on, a wait that
 * blocks polls the device every 0.5 ms at most instead of sleeping in the
 * driver, so it may return up to that much later. */
#define AM_WAIT_TIMEOUT_MS_MAX 86400000
int64_t am_wait_timeout_ms(int64_t ms);

/* Resident GPU worker of the default device. on > 0 asks to start it, on == 0
 * stops it (and waits for it to leave), a negative value only reads. Returns
 * 1 only while a resident worker really runs, else 0; am_resident_status()
 * then says why.
 *
 * CUDA (compute capability 7.0 and later): one warp of a kernel that stays on
 * the GPU and polls a request ring in host-mapped memory with system-scope
 * acquire loads. am_resident_mode(1) returns 1 only once a start-up probe has
 * come back right. While it runs, a synchronous reduction or aggregate of up
 * to 2,048 slots (sum, min, max, mean, min_max, product, variance, stddev,
 * first, last, index, any, all), outside a batch and with the device's
 * queue idle, is a request to the worker instead of a launch: its result is
 * the launch's bit for bit (the worker follows the launched kernel's
 * order). Other calls launch as always. The worker leaves after
 * ARROWMETAL_RESIDENT_IDLE_MS (default 50) without requests, freeing its
 * multiprocessor, or after 100 ms in all, busy or not (a context-wide
 * synchronize by another library waits until it leaves); the next such call
 * launches it again (am_resident_mode(-1) is 0 meanwhile). A worker that
 * faults or does not answer within 2 s (or am_wait_timeout_ms, if less)
 * breaks the device (AM_EDEVICE, sticky), never a hang. No worker where the
 * GPU limits kernel run time (a display's). The CPU backend has no resident
 * worker; Apple GPUs cannot keep one (no CPU/GPU coherence inside a
 * dispatch). Thread-safe. */
int am_resident_mode(int on);
/* Why no worker runs, or that one does (with how many requests it answered
 * and its own time per request). The text stays valid on the calling thread
 * until its next call here. */
const char *am_resident_status(void);

/* ---- Hash-based functions (pyarrow's is_in, index_in, unique, value_counts,
 * count_distinct, dictionary_encode, mode) over every element type.
 * Values are equal when their bits are, as in pyarrow's hash tables: a
 * float's 0.0 and -0.0 are two distinct values, and so are NaNs whose bits
 * differ (every NaN that Python or numpy makes has the same bits). Orders
 * are pyarrow's: a value's place is that of its first occurrence.
 * Inputs are borrowed; every array written is the caller's, to release once
 * with am_release. Thread-safe, as every call. Results live on the input's
 * device. On a GPU the grouping runs in device memory (hash tables built
 * with atomics), with no host round trip except mode's final ordering of the
 * distinct values, which runs on the host.
 * Strings and binary (AM_UTF8 ... AM_FIXED_SIZE_BINARY, the views): values
 * are equal when their bytes are; every function but am_mode takes them
 * (pyarrow's mode has no kernel for them: AM_ETYPE; nor has its is_in /
 * index_in for view values), grouped on the host by the CPU backend (an
 * array on a GPU is copied to the host, and the results go back to its
 * device); the values of unique, value_counts and a dictionary_encode's
 * dictionary are string arrays of the input's type. */

/* is_in / index_in with pyarrow's SetLookupOptions(value_set, skip_nulls).
 * `value_set` has the values' type (the Python package applies pyarrow's
 * casts first) and may live anywhere. is_in: bool, never null; index_in:
 * int32, the position of the value's first occurrence in value_set, null
 * where it has none. A null value matches the set's first null unless
 * skip_nulls (then is_in false, index_in null). String and binary values
 * take a value set of another string or binary type where pyarrow's casts
 * take it, compared by the bytes: any two of string, large_string, binary
 * and large_binary; binary or large_binary and fixed_size_binary either way;
 * fixed_size_binary values and a string or large_string set whose valid
 * values all have their width. Else AM_ETYPE ("Array type doesn't match type
 * of values set: string vs fixed_size_binary[3]", as pyarrow), and AM_EINVAL
 * for two fixed_size_binary widths when the set has slots ("Failed casting
 * from fixed_size_binary[3] to fixed_size_binary[4]: widths must match"). A
 * string value set with values of another kind (numbers, temporal types) is
 * AM_ETYPE: pyarrow parses such pairs, which the Python package leaves to
 * it. A string or large_string value with a view set is AM_ETYPE, as in
 * pyarrow; binary, large_binary and fixed_size_binary values take one.
 * Divergence: pyarrow 26 casts a view value set for fixed_size_binary
 * values without checking the widths and matches wrongly (every row as its
 * first value); here the set is looked up by its bytes. */
int am_is_in(const am_array *values, const am_array *value_set, int skip_nulls, am_array **out);
int am_index_in(const am_array *values, const am_array *value_set, int skip_nulls, am_array **out);

/* The distinct values in first-occurrence order; a null among them once,
 * at its first occurrence. */
int am_unique(const am_array *array, am_array **out);

/* pyarrow's value_counts as its struct's two fields: *values (as am_unique)
 * and *counts (AM_INT64, the rows of each). */
int am_value_counts(const am_array *array, am_array **values, am_array **counts);

/* The number of distinct values (mode AM_COUNT_VALID), 1 if there is a null
 * else 0 (AM_COUNT_NULL), or both (AM_COUNT_ALL). AM_INT64, never null. */
int am_count_distinct(const am_array *array, am_count_mode mode, am_scalar *out);

/* pyarrow's DictionaryEncodeOptions.null_encoding. */
typedef enum am_null_encoding {
  AM_NULL_ENCODING_MASK = 0,  /* "mask": a null row has a null index */
  AM_NULL_ENCODING_ENCODE = 1 /* "encode": null is a dictionary value */
} am_null_encoding;

/* dictionary_encode: *out is a dictionary array (see "Dictionary arrays"
 * below), its indices AM_INT32 (one per row) and its dictionary the values
 * as am_unique gives them, without the null under AM_NULL_ENCODING_MASK (a
 * null row then has a null index). A dictionary array given to it comes
 * back as it is (pyarrow's identity), under either encoding. */
int am_dictionary_encode(const am_array *array, am_null_encoding null_encoding, am_array **out);

/* ---- Dictionary arrays
 * A dictionary array is a handle whose type and buffers are its indices'
 * (any integer type: am_array_type names it, am_null_count counts null
 * indices) and which owns its dictionary (values of any other supported
 * type, nulls allowed) and Arrow's ordered flag. am_import takes Arrow's
 * dictionary arrays (schema->dictionary and array->dictionary set) zero-copy
 * on the CPU, after checking that every valid index is within the
 * dictionary (AM_EINDEX naming the first that is not); the dictionary's
 * struct is released with the parent's, exactly once. am_export writes
 * Arrow's dictionary array (schema->dictionary, array->dictionary, the
 * ordered flag), released by the parents' release callbacks;
 * am_export_device refuses it (AM_EUNSUPPORTED). They live on the host:
 * am_to_device, am_import_device and am_import onto a GPU refuse them
 * (AM_EUNSUPPORTED).
 * The calls that take them, with pyarrow's semantics: am_slice, am_take,
 * am_filter, am_filter_nulls and am_drop_null (indices selected, the
 * dictionary kept); am_is (is_null / is_valid: a null index or an index of
 * a null value is null); am_compare, am_compare_scalar (a bool of the
 * decoded values; against a scalar the dictionary is compared once and read
 * at every index); am_is_in, am_index_in (the value set looked up once per
 * dictionary value); am_unique, am_value_counts (the indices grouped: a
 * dictionary array of the same dictionary, an index of a null value and a
 * null index are two values); am_count (nulls as am_is sees them);
 * am_dictionary_encode (identity); am_cast (decodes, then casts); am_concat
 * (dictionaries unified unless they are all the first's);
 * am_dictionary_decode and am_unify_dictionaries; am_sort_indices (one
 * key), am_group_by (keys and count / count_distinct / distinct values, by
 * index) and am_join_indices (by value) as each says; am_rank,
 * am_rank_quantile, am_select_k_unstable and am_partition_nth_indices
 * refuse them in pyarrow's words. Every other call refuses a dictionary
 * array with AM_ETYPE naming its type (as pyarrow does for sum, min, max,
 * count_distinct...). */

/* Whether `array` is a dictionary array (0 for NULL). */
int am_array_is_dictionary(const am_array *array);

/* A new handle of a dictionary array's dictionary (AM_EINVAL for an array
 * without one). The caller releases it. */
int am_dictionary(const am_array *array, am_array **out);

/* pyarrow's dictionary_decode: the values at the indices (a null index is
 * a null), of the dictionary's type. Any other array comes back as it is
 * (a new handle), as in pyarrow. */
int am_dictionary_decode(const am_array *array, am_array **out);

/* pyarrow's unify_dictionaries over `count` dictionary arrays of one type:
 * outs[i] is arrays[i] over one shared dictionary (the first array's
 * distinct values in order, then each new value of the next arrays as it
 * first occurs), its indices rewritten, of the same index type. AM_EINVAL
 * when a dictionary holds a null ("Cannot yet unify dictionaries with
 * nulls", as pyarrow) or the unified dictionary needs a larger index type;
 * AM_ETYPE for arrays of different types. `outs` has room for `count`
 * handles, each the caller's (nothing is written on failure). */
int am_unify_dictionaries(const am_array *const *arrays, int64_t count, am_array **outs);

/* pyarrow's mode with ModeOptions(n, skip_nulls, min_count): the n most
 * common values (n >= 1) in *modes (the input's type) and their rows in
 * *counts (AM_INT64), by count descending then value ascending (NaN after
 * every number). Empty when !skip_nulls and a null is present, or when
 * fewer than min_count values are valid. */
int am_mode(const am_array *array, int64_t n, int skip_nulls, int64_t min_count, am_array **modes,
            am_array **counts);

/* ---- Group-by: pyarrow's TableGroupBy.aggregate (its hash_* kernels,
 * use_threads=False), one call over key columns, value columns and a list
 * of aggregate requests. */

/* The aggregates, by pyarrow's names without "hash_". */
typedef enum am_group_op {
  AM_GROUP_COUNT = 0,          /* "count" (CountOptions mode): int64 */
  AM_GROUP_COUNT_DISTINCT = 1, /* "count_distinct" (CountOptions mode): int64 */
  AM_GROUP_SUM = 2,            /* "sum": int64, uint64 (unsigned, bool), float64 */
  AM_GROUP_PRODUCT = 3,        /* "product": sum's types, integers wrap in 64 bits */
  AM_GROUP_MEAN = 4,           /* "mean": float64 */
  AM_GROUP_MIN = 5,            /* "min": the value type */
  AM_GROUP_MAX = 6,            /* "max": the value type */
  AM_GROUP_MIN_MAX = 7,        /* "min_max": two arrays of the value type (min, max) */
  AM_GROUP_FIRST = 8,          /* "first": the value type */
  AM_GROUP_LAST = 9,           /* "last": the value type */
  AM_GROUP_ANY = 10,           /* "any": bool values, bool */
  AM_GROUP_ALL = 11,           /* "all": bool values, bool */
  AM_GROUP_VARIANCE = 12,      /* "variance" (VarianceOptions): numbers, float64 */
  AM_GROUP_STDDEV = 13,        /* "stddev" (VarianceOptions): numbers, float64 */
  AM_GROUP_LIST = 14,          /* "list": every value of the group, nulls too, in row order */
  AM_GROUP_DISTINCT = 15,      /* "distinct" (CountOptions mode): the group's distinct values */
  AM_GROUP_COUNT_ALL = 16      /* "count_all": the group's rows (reads no column), int64 */
} am_group_op;

/* One aggregate request: a plain value struct, read during the call only.
 * Fields an op has no use for are ignored (am_group_aggregate_default
 * writes pyarrow's defaults for all of them). */
typedef struct am_group_aggregate {
  int32_t op;         /* am_group_op */
  int32_t column;     /* the value column read: an index into `values` (not read by COUNT_ALL) */
  int32_t skip_nulls; /* ScalarAggregateOptions / VarianceOptions: nonzero leaves nulls out */
  uint32_t min_count; /* fewer valid values in a group than this: that group's result is null */
  int32_t ddof;       /* VarianceOptions: delta degrees of freedom (variance, stddev) */
  int32_t count_mode; /* am_count_mode: COUNT, COUNT_DISTINCT, DISTINCT */
} am_group_aggregate;

/* Writes pyarrow's default options of `op` reading column `column` to *out:
 * skip_nulls 1, min_count 1 (0 for variance and stddev), ddof 0,
 * count_mode AM_COUNT_VALID. AM_EINVAL for an unknown op or NULL out.
 * Thread-safe. */
int am_group_aggregate_default(am_group_op op, int32_t column, am_group_aggregate *out);

/* One aggregate's result, one slot per group (the groups in the order of
 * *keys_out). The arrays are the caller's, each to release once with
 * am_release; the pointers not used by the op are set to NULL.
 *  - values: the result; MIN_MAX: the struct's "min" field; LIST and
 *    DISTINCT: the lists' items, every group's after the one before;
 *  - max: MIN_MAX's "max" field (pyarrow's struct itself is never null);
 *  - offsets: LIST and DISTINCT: AM_INT32, groups + 1 slots, never null:
 *    group g's items are values[offsets[g] .. offsets[g + 1]) (a pyarrow
 *    ListArray.from_arrays(offsets, values); the lists are never null). */
typedef struct am_group_result {
  am_array *values;
  am_array *max;
  am_array *offsets;
} am_group_result;

/* Groups the rows of `n_keys` (>= 1) key arrays of one length (a table's
 * key columns; any element types, mixed) and computes `n_aggregates`
 * aggregates per group over `n_values` value arrays of that length.
 *
 * Groups: rows are in one group when every key is equal, by its bits as
 * pyarrow's grouper compares them: a float's 0.0 and -0.0 are two groups,
 * every NaN of the same bits (every NaN Python and numpy make) one group;
 * a null key is a value of its own (nulls form their own group). Output
 * order: the order of each group's first row (pyarrow's with
 * use_threads=False, except that pyarrow sometimes places a float key's
 * null group last; compare after sorting by key). keys_out[k] (n_keys
 * slots) receives key k's value per group (its type, null for the null
 * group); results[a] (n_aggregates slots) the a-th aggregate (see
 * am_group_result).
 *
 * Aggregates follow pyarrow's hash_* kernels and their options:
 *  - count: the group's valid (AM_COUNT_VALID), null (AM_COUNT_NULL) or all
 *    (AM_COUNT_ALL) values; count_all its rows; count_distinct its distinct
 *    valid values, plus one for a null with AM_COUNT_ALL (AM_COUNT_NULL: 1
 *    when a null is present); distinct those values, in the order of their
 *    first row (pyarrow's order within a list is unspecified);
 *  - the others: a group with fewer than min_count valid values gives null
 *    (min, max and min_max ignore min_count, as pyarrow's hash_min_max);
 *    with skip_nulls == 0 a group holding a null gives null, except first
 *    and last (the first / last row's value, null or not) and any / all
 *    (Kleene logic: any of [true, null] is true, all of [false, null] false);
 *  - string and binary keys group by their bytes; over string and binary
 *    values count, count_distinct, min, max, min_max (bytewise, a prefix
 *    first), first, last, list and distinct (the others: AM_ETYPE);
 *  - decimal keys group by value (a key of the key's type, precision and
 *    scale per group); over decimal values count, count_distinct, distinct,
 *    list, min, max, min_max, sum (decimal128(38, s) / decimal256(76, s),
 *    wrapping at the width), mean and product (the value type; half away
 *    from zero, a product rescaled at every step, both as Arrow's: values
 *    past the precision are kept as they come), variance and stddev
 *    (float64, Arrow's: the mean from the wrapping sum as a double); a mean
 *    over a group without values reached at min_count 0 is AM_EINVAL
 *    ("Division by 0 in Decimal"); first, last, any and all AM_ETYPE;
 *  - dictionary keys group by index, as pyarrow's grouper does (a value
 *    twice in the dictionary is two groups; a null value's index is a group
 *    apart from the null index): keys_out[k] is a dictionary array of the
 *    groups' indices and the key's dictionary. Over dictionary values
 *    count, count_distinct and distinct, by index too (distinct's items a
 *    dictionary array of the column's dictionary; an index of a null value
 *    counts as a value, as in pyarrow); the others AM_ETYPE in pyarrow's
 *    words ("Function 'hash_sum' has no kernel matching input types
 *    (dictionary<...>, uint32)"); decimal and dictionary results are host
 *    arrays whatever keys[0]'s device (those types live on the host);
 *  - floats: min, max and min_max skip NaN (all NaN gives NaN) and take
 *    -0.0 and 0.0 as equal (the group's first of them is given); NaN carries
 *    through sum, product, mean, variance and stddev; sums and products
 *    accumulate in row order (float64; integers in 64 bits, wrapping), mean
 *    is the sum over the count; variance and stddev are two-pass (mean, then
 *    squared deviations), null where valid <= ddof;
 *  - list: every value in row order, nulls included (skip_nulls and
 *    min_count are ignored, as pyarrow's hash_list has no options).
 *
 * Errors (AM_EINVAL unless said): keys_out, results or keys NULL, n_keys <
 * 1, a NULL key or value array, arrays of different lengths ("key 1 has 3
 * rows, key 0 has 4"), values NULL with n_values > 0, aggregates NULL with
 * n_aggregates > 0, an unknown op, a column out of range, a count_mode out
 * of range; AM_ETYPE for a value type the aggregate refuses, in pyarrow's
 * words ("Function 'hash_any' has no kernel matching input types (int8,
 * uint32)"). Nothing is written on an error.
 *
 * Inputs are borrowed (sliced arrays are fine) and may live on any device;
 * results live on keys[0]'s device. The CPU groups with the hash tables of
 * the hash-based functions (one grouping per key column, the columns'
 * group ids combined pairwise into one id per row; parallel on its worker
 * pool), then runs each aggregate as one pass over the rows by group id
 * (the aggregates spread over the pool), its work areas counted in
 * am_memory_info and freed before it returns. On CUDA the grouping and
 * aggregates run in device memory (hash tables, a dense path for one
 * small-range integer key; same group order; float sums, products, means
 * and variances add in atomic order, so their last bits may differ); calls
 * with list, distinct or count_distinct, on Metal, or of empty inputs move
 * the inputs to the host, group there, and move the results back.
 * Thread-safe. */
int am_group_by(const am_array *const *keys, int64_t n_keys, const am_array *const *values,
                int64_t n_values, const am_group_aggregate *aggregates, int64_t n_aggregates,
                am_array **keys_out, am_group_result *results);
/* ---- end of group-by */

/* ---- Hash joins: the row pairs of pyarrow's Table.join. */
typedef enum am_join_type {
  AM_JOIN_INNER = 0,       /* "inner" */
  AM_JOIN_LEFT_OUTER = 1,  /* "left outer" */
  AM_JOIN_RIGHT_OUTER = 2, /* "right outer" */
  AM_JOIN_FULL_OUTER = 3,  /* "full outer" */
  AM_JOIN_LEFT_SEMI = 4,   /* "left semi" */
  AM_JOIN_LEFT_ANTI = 5,   /* "left anti" */
  AM_JOIN_RIGHT_SEMI = 6,  /* "right semi" */
  AM_JOIN_RIGHT_ANTI = 7   /* "right anti" */
} am_join_type;

/* The rows a join of a left and a right table pairs, by n_keys (>= 1) key
 * columns each: left_keys[k] is matched with right_keys[k], which must have
 * its element type; the left keys share one length, the right keys another.
 * Rows match when every key is equal by its bits (as am_group_by groups
 * them: 0.0 and -0.0 differ, NaN matches NaN of the same bits); a null key
 * never matches anything. A decimal key matches a decimal key of its type,
 * precision and scale, by value. A dictionary array matches by its values
 * (decoded: an index of a null value never matches) a dictionary array of
 * any index type or a plain array of its value type. Divergence: pyarrow
 * 26 refuses a join whose dictionary key holds NaN ("Unifying differing
 * dictionaries": such a dictionary never equals itself); the library joins
 * it by value.
 *
 * *left_indices and *right_indices are AM_INT64 row numbers of the output
 * rows, one pair per output row: for the inner and outer joins both are
 * written, null where the row has no partner (left outer: unmatched left
 * rows; right outer: unmatched right rows; full outer: both); for the semi
 * and anti joins only the side they return is written (left semi / anti:
 * *left_indices, each left row with / without a match once; right semi /
 * anti: *right_indices) and the other pointer is set to NULL. Output order:
 * left rows in row order, each with its matches in right row order, then
 * (right and full outer) the unmatched right rows in row order; semi / anti
 * in row order. pyarrow's order is unspecified: compare after sorting.
 *
 * Errors: AM_EINVAL for NULL pointers, n_keys < 1, keys of different
 * lengths on one side, an unknown join type; AM_ETYPE for a key pair of
 * different types ("Incompatible data types for corresponding join field
 * keys: int32 and int64"; decimals of other parameters, "decimal128(5, 2)
 * and decimal128(5, 1)"; a dictionary's value type and the other side's).
 * Nothing is written on an error. Inputs are borrowed and may live on any
 * device; results live on left_keys[0]'s. The CPU groups the left and right
 * keys together with am_group_by's hashing (one dense id per key tuple,
 * cpu/groupby.c), buckets the right rows by id and probes each left row,
 * its work areas counted in am_memory_info. On CUDA the build and probe run
 * in device memory (the same results and order; the pair joins' indices
 * carry validity bitmaps), and a build side that does not fit the device is
 * AM_ENOMEM with the sizes in the message; on Metal, or with an empty side,
 * the keys are joined on the host and the indices moved back.
 * Thread-safe. */
int am_join_indices(const am_array *const *left_keys, const am_array *const *right_keys,
                    int64_t n_keys, am_join_type join_type, am_array **left_indices,
                    am_array **right_indices);

/* ---- Temporal field extraction (issue #13): pyarrow's year, month, day,
 * day_of_week, day_of_year, hour, minute, second, millisecond, microsecond,
 * nanosecond, quarter, iso_week and iso_year. The date fields (year ...
 * day_of_year, quarter, iso_week, iso_year) take timestamps, date32 and
 * date64; the time fields (hour ... nanosecond) take timestamps, time32 and
 * time64; anything else is AM_ETYPE in pyarrow's words. The result is
 * int64, null where the input is (its validity bitmap shared). Dates are
 * the proleptic Gregorian calendar, before 1970 too (core/temporal.h).
 * A timestamp with a time zone other than UTC is read in local time, as
 * pyarrow reads it (see "Time zones" below): year ... minute, quarter,
 * iso_week and iso_year of the local wall time, second ... nanosecond of
 * the value itself, as pyarrow (which assumes offsets of whole minutes: a
 * zone's early local mean time, -4:56:02 in New York, keeps UTC's
 * seconds); an unknown zone is AM_EINVAL ("Cannot locate or parse timezone
 * 'X': X not found in timezone database"). A GPU array is computed on the
 * GPU without a time zone and on the host with one (a zone's offsets are
 * host data), the result moved back. `array` is borrowed; thread-safe. */
typedef enum am_temporal_field_op {
  AM_FIELD_YEAR = 0,
  AM_FIELD_MONTH = 1,
  AM_FIELD_DAY = 2,
  AM_FIELD_DAY_OF_WEEK = 3, /* DayOfWeekOptions: week_start 1 (Monday) .. 7, count_from_zero */
  AM_FIELD_DAY_OF_YEAR = 4,
  AM_FIELD_HOUR = 5,
  AM_FIELD_MINUTE = 6,
  AM_FIELD_SECOND = 7,
  AM_FIELD_MILLISECOND = 8,
  AM_FIELD_MICROSECOND = 9,
  AM_FIELD_NANOSECOND = 10,
  AM_FIELD_QUARTER = 11,
  AM_FIELD_ISO_WEEK = 12,
  AM_FIELD_ISO_YEAR = 13
} am_temporal_field_op;

/* `week_start` (1-7) and `count_from_zero` are read by AM_FIELD_DAY_OF_WEEK
 * only (pyarrow's defaults: 1 and 1); a week_start outside 1-7 is
 * AM_EINVAL with pyarrow's message. */
int am_temporal_field(am_temporal_field_op op, const am_array *array, int week_start,
                      int count_from_zero, am_array **out);

/* ---- Time zones (issue #13). A timestamp's time zone names an IANA zone of
 * the system's compiled tz database -- $TZDIR, else /usr/share/zoneinfo,
 * where pyarrow reads on Linux (Debian's tzdata package) -- or a fixed
 * offset "+HH:MM" / "+HHMM" (hours below 24), as Arrow accepts them; "UTC"
 * needs no database. A zone is read on first use and kept for the process
 * (thread-safe). Local times follow pyarrow's reading of the files (its
 * `date` library), in am_temporal_field, am_cast of a timestamp to a date
 * or a time of day, am_round_temporal and am_assume_timezone. An unknown
 * zone, or a file that
 * is not TZif, is AM_EINVAL ("Cannot locate or parse timezone 'X': X not
 * found in timezone database").
 * Divergence: past the last transition a TZif file lists (2037 in Debian's
 * files) the library applies the file's POSIX TZ rule (RFC 8536), so New
 * York keeps changing its clocks in 2038 and after; pyarrow's library
 * ignores the rule and keeps the last listed offset for ever (New York in
 * winter time), so such zones differ from pyarrow from then on.
 * Divergence: a timestamp[s] within an offset of the int64 ends has a
 * local time that wraps to the other end; pyarrow's library reads such a
 * local time back to UTC (am_assume_timezone, am_round_temporal) with
 * comparisons that wrap as well and land on a period of no meaning, the
 * library with comparisons that saturate: the two differ there. */

/* AssumeTimezoneOptions' `ambiguous` and `nonexistent`: what a local time
 * the clocks went back over (ambiguous: it happened twice) or skipped
 * (nonexistent) becomes. */
typedef enum am_assume_choice {
  AM_ASSUME_RAISE = 0,    /* AM_EINVAL with pyarrow's message */
  AM_ASSUME_EARLIEST = 1, /* ambiguous: the earlier instant; nonexistent: a tick before the gap */
  AM_ASSUME_LATEST = 2    /* ambiguous: the later instant; nonexistent: the gap's end */
} am_assume_choice;

/* pyarrow's assume_timezone: the local wall times of timestamp `array` (no
 * time zone) read in zone `timezone`, as UTC instants: a timestamp of the
 * same unit with that time zone, null where the input is (its validity
 * shared). AM_EINVAL in pyarrow's words for an array with a time zone
 * already ("Timestamps already have a timezone: 'UTC'. Cannot localize to
 * 'X'."), an unknown zone, a choice out of range, and a valid slot that is
 * ambiguous or nonexistent under AM_ASSUME_RAISE ("Timestamp doesn't exist
 * in timezone 'America/New_York': 2015-03-08 02:30:00 is in a gap between
 * ..." / "Timestamp is ambiguous in timezone ..."); other types are
 * AM_ETYPE ("Function 'assume_timezone' has no kernel matching input types
 * (int64)"). Computed on the host: a GPU array is read back and the result
 * moved to its device. `array` and `timezone` are borrowed; thread-safe. */
int am_assume_timezone(const am_array *array, const char *timezone, am_assume_choice ambiguous,
                       am_assume_choice nonexistent, am_array **out);

/* pyarrow's is_dst and local_timestamp: what a timestamp's time zone says
 * of each instant (am_tz_period_at's period of its second, floored, as
 * pyarrow's `date` library reads it). */
typedef enum am_zone_op {
  AM_ZONE_IS_DST = 0,         /* "is_dst": bool, whether the zone keeps daylight time then
                                 (the TZif type's flag; false in UTC and fixed offsets) */
  AM_ZONE_LOCAL_TIMESTAMP = 1 /* "local_timestamp": the local wall time as a timestamp of the
                                 same unit without a time zone (the sum wraps at the int64
                                 ends, as pyarrow's); a timestamp without one is returned as
                                 it is */
} am_zone_op;

/* `op` of timestamp `array` (any unit), null where the input is (its
 * validity shared). is_dst of a timestamp without a time zone is AM_EINVAL
 * ("Timestamps have no timezone. Cannot determine DST."); an unknown zone
 * AM_EINVAL in pyarrow's words; other types AM_ETYPE ("Function 'is_dst'
 * has no kernel matching input types (date32[day])"). An empty array
 * gives an empty result without reading its zone, as pyarrow (which never
 * runs a kernel on no rows). Past the last transition a TZif file lists,
 * the zone's POSIX rule (see "Time zones": Divergence). Computed on the
 * host: a GPU array is read back and the result moved to its device.
 * `array` is borrowed, *out owned by the caller; thread-safe. */
int am_zone_function(am_zone_op op, const am_array *array, am_array **out);

/* ---- Temporal rounding (issue #13): pyarrow's floor_temporal,
 * ceil_temporal and round_temporal with RoundTemporalOptions. */
typedef enum am_round_temporal_op {
  AM_FLOOR_TEMPORAL = 0, /* "floor_temporal" */
  AM_CEIL_TEMPORAL = 1,  /* "ceil_temporal" */
  AM_ROUND_TEMPORAL = 2  /* "round_temporal" */
} am_round_temporal_op;

/* RoundTemporalOptions' unit: Arrow's CalendarUnit, in its order. */
typedef enum am_calendar_unit {
  AM_UNIT_NANOSECOND = 0,
  AM_UNIT_MICROSECOND = 1,
  AM_UNIT_MILLISECOND = 2,
  AM_UNIT_SECOND = 3,
  AM_UNIT_MINUTE = 4,
  AM_UNIT_HOUR = 5,
  AM_UNIT_DAY = 6,
  AM_UNIT_WEEK = 7,
  AM_UNIT_MONTH = 8,
  AM_UNIT_QUARTER = 9,
  AM_UNIT_YEAR = 10
} am_calendar_unit;

/* pyarrow's RoundTemporalOptions; NULL options mean its defaults
 * (multiple 1, unit AM_UNIT_DAY, week_starts_monday 1, the others 0). A
 * plain value struct: the library only reads it during the call. */
typedef struct am_round_temporal_options {
  int32_t multiple;                 /* units to round to, >= 1 */
  int32_t unit;                     /* am_calendar_unit */
  int32_t week_starts_monday;       /* nonzero: weeks start on Monday, else Sunday */
  int32_t ceil_is_strictly_greater; /* nonzero: ceil (and round's ceil) of a value already
                                       on a boundary moves to the next one */
  int32_t calendar_based_origin;    /* nonzero: count from the start of the next larger
                                       unit, not from 1970-01-01 */
} am_round_temporal_options;

/* floor_temporal / ceil_temporal / round_temporal (`op`) of `array`:
 * timestamps (any unit), date32, date64, time32, time64 and durations, the
 * result of the input's type (a timestamp keeps its time zone), null where
 * the input is. The values are pyarrow 26's bit for bit, over the whole
 * range of every type: its arithmetic is date.h's chrono with 32-bit day
 * and week counts, 16-bit years and wrapping 64-bit products, and the
 * library computes with those same widths (core/round_temporal.h), so where
 * pyarrow's values wrap (a date32 rounded to nanoseconds, years past
 * 32767, multiples near 2^31) the library's wrap alike. As pyarrow:
 * ceil of months, quarters and years moves past a value already on a
 * boundary; round compares with that ceil (ceil_is_strictly_greater
 * included); times round as durations since midnight and may pass 24
 * hours; a duration counts from 0, weeks as 7 days, and takes no month,
 * quarter or year. Errors, for a non-empty array as pyarrow checks them:
 * a type other than those is AM_ETYPE ("function 'floor_temporal' has no
 * kernel matching input types (int64)"); a duration with
 * calendar_based_origin is AM_EINVAL ("calendar_based_origin is not
 * supported for duration inputs"), with weeks whose multiple times 7 leaves
 * 32 bits ("Duration week multiple would not fit in 32-bit integer"), with
 * a month, quarter or year ("Duration values can only be rounded using
 * units from nanoseconds through weeks"); an unknown op or unit is
 * AM_EINVAL. A timestamp with a time zone that reads as UTC ("UTC",
 * "Etc/UTC", "+00:00") rounds as one without; an unknown zone is AM_EINVAL
 * in pyarrow's words (see "Time zones" above). Any other zone rounds in
 * local time, as pyarrow: each value's local time is rounded with the
 * same arithmetic and taken back to UTC without a choice, so a rounded
 * local time that the clocks skipped or repeated fails the call with
 * AM_EINVAL in pyarrow's words, "Local time does not exist: 2021-03-14
 * 02:00:00 is in a gap between ..." or "Local time is ambiguous: ..."
 * (the last failing row's; rounding to the hour in a repeated hour, to
 * the day where midnight was skipped, even to the second inside a
 * repeated hour); null slots are not read. pyarrow's steps are kept where
 * they surprise (core/round_temporal_zoned.h): a week's offset is read 3
 * or 4 days after its start, and round to months, quarters and years
 * compares the local value with the two UTC candidates.
 * Divergence: a multiple below 1 is AM_EINVAL ("floor_temporal: the
 * multiple must be positive, got 0"); pyarrow 26 divides by it (0 kills
 * the process with SIGFPE, a negative multiple gives values of no
 * meaning). The zones' two divergences ("Time zones" above: past the last
 * listed transition, and timestamp[s] at the int64 ends) hold here too.
 * GPU arrays are rounded on their device (one element-wise kernel of the
 * same arithmetic), except in a zone other than UTC: those are rounded on
 * a host copy and the result moved back to the array's device. `array`
 * and `options` are borrowed; *out is the caller's. Thread-safe. */
int am_round_temporal(am_round_temporal_op op, const am_array *array,
                      const am_round_temporal_options *options, am_array **out);

/* strftime (pyarrow's StrftimeOptions: format, locale): each value of a
 * timestamp (any unit; a zoned one in its local time, the zone read as
 * "Time zones" says), date32, date64, time32 or time64 array as text under
 * `format`, in a string (utf8) array, null where the input is. The text is
 * what pyarrow's `date` library writes: %Y (at least 4 digits, "-0005"),
 * %m %d %H %M (2 digits), %S (2 digits, then the unit's fraction: "05.250"
 * in ms), %y %C %j %e %D %F %T %R %I %p %a %A %b %B %h %u %w %n %t %%, %z
 * the offset in minutes ("-0500", "+0000") and %Z the zone's abbreviation
 * ("EST"; a fixed offset's "+0100") -- a value without a time zone refuses
 * them: AM_EINVAL "Timezone not present, cannot convert to string with
 * timezone: %z"; other letters stay as written ("%s" is "%s"). A date32 is
 * its day at midnight in seconds, a date64 and a time a timestamp of their
 * unit (a time on 1970-01-01). Far values wrap as pyarrow's do (the day
 * count in 32 bits, the year in 16), and where pyarrow fails the value (a
 * year held as -32768) so does the call (AM_EINVAL "Failed formatting
 * timestamp: basic_ios::clear: iostream error"); an unknown zone is
 * AM_EINVAL. AM_EUNSUPPORTED (which the Python package answers with
 * pyarrow, counted): %c %x %X %r %g %G %U %V %W %Q %q and the E / O
 * modifiers; a `locale` other than NULL or "C". Other input types are
 * AM_ETYPE ("function 'strftime' has no kernel matching input types
 * (int64)"). Computed on the host: a GPU array's strings are moved back to
 * it. The input is borrowed; `*out` is a new array. Thread-safe. */
int am_strftime(const am_array *array, const char *format, const char *locale, am_array **out);

/* strptime (pyarrow's StrptimeOptions: format, unit, error_is_null): each
 * value of a string or large_string array read under `format` as a
 * timestamp of type `unit` (AM_TIMESTAMP_S ... _NS), as pyarrow reads it on
 * Linux (glibc's strptime, then Arrow's use of its fields): white space in
 * the format matches any run of white space; numbers skip leading white
 * space and take up to their width of digits ("%m" takes "1" of "1/2");
 * %Y (0-9999) %y (69-99: 19xx, else 20xx) %C %m %d %e %j %H %I %M %S (to
 * 61) %p %b %B %h %a %A (names in any case, weekdays read and ignored) %z
 * ("Z", "+hh", "+hhmm", "+hh:mm": the result converted to UTC) %Z (a word,
 * ignored) %n %t %F %T %D %R %%; the whole text must be read. Missing
 * fields are 1900-01-01 00:00:00; an unchecked day of the month runs on
 * ("2021-02-31" is March 3rd). A format with "%z" gives a timestamp in
 * "UTC". A value that does not read (or leaves int64 in the unit) fails the
 * call, the first one named (AM_EINVAL "Failed to parse string: 'x' as a
 * scalar of type timestamp[s]"), or is null when error_is_null is set.
 * AM_EUNSUPPORTED: %s %c %x %X %r %u %w %U %W %V %g %G and the E / O
 * modifiers. Divergence: an empty format is AM_EINVAL here (pyarrow reads
 * past its end). Other input types are AM_ETYPE. Computed on the host: a GPU
 * array's result is moved back to it. The input is borrowed; `*out` is a
 * new array. Thread-safe. */
int am_strptime(const am_array *strings, const char *format, am_type unit, int error_is_null,
                am_array **out);
/* ---- end of hash joins */

/* ---- Tables: struct arrays, record batches and streams of them (issue #12).
 *
 * A struct array (Arrow format "+s"; a record batch is one with no nulls of
 * its own) imports as ONE am_array handle of type AM_STRUCT whose children
 * are ordinary am_array handles, one per field, in field order. am_import and
 * am_import_device take it (any number of fields, of the supported element
 * types or of structs again); am_length gives its rows, am_null_count 0,
 * am_format "+s", am_array_device the device every child lives on. No other
 * call computes on a struct handle: each answers AM_ETYPE ("... is a struct
 * array (a table's rows): pass its columns") -- take the columns with
 * am_struct_field.
 *
 * Import (am_import, am_import_device of "+s"):
 *  - Zero-copy on the CPU and for device memory, as for a primitive array:
 *    each child handle views the child's buffers. The caller's parent struct
 *    is moved in whole and its release callback runs exactly once, when the
 *    last child handle (and every export and slice sharing its buffers) has
 *    gone; at once on failure, or when the struct has no fields, or after a
 *    GPU upload.
 *  - The struct's offset and length apply to its children (children may be
 *    longer than offset + length; shorter is AM_EINVAL naming the field).
 *    Each child handle therefore has the struct's length.
 *  - Field names (the child schemas' names; "" for NULL) and nullability
 *    (ARROW_FLAG_NULLABLE) come from the schema.
 *  - A struct's null rows of its own (a validity bitmap with nulls, at any
 *    depth), onto the CPU: the struct keeps them (am_null_count, export)
 *    and every field, at every depth, takes them as its own, as pyarrow's
 *    StructArray.flatten gives the fields (a field is null where its row
 *    is). Onto a GPU, or from device memory, they are AM_EUNSUPPORTED. A
 *    bitmap with no nulls (null_count 0, or -1 and none counted on the
 *    host) is ignored.
 *  - A field of an unsupported type is AM_ETYPE naming the field ("field
 *    'x': unsupported format 'u'"); every field is checked before any is
 *    imported. n_buffers must be 1 and n_children must match the schema's.
 *
 * Export (am_export, am_export_device of a struct handle): a "+s" array
 * and schema with one child per field, names and nullability kept; the
 * children are exported as the primitive calls export them (downloaded
 * by am_export, on their device by am_export_device: there the parent's
 * sync_event is the last child's, recorded after every child's work on the
 * device's one queue). Each struct is released exactly once by its own
 * release callback, which releases its children. */

/* The number of fields of a struct handle; -1 for NULL or a handle that is
 * not a struct. Never fails, never sets the message. Thread-safe. */
int64_t am_struct_num_fields(const am_array *array);

/* Field `index` of a struct handle as a new handle the caller releases (it
 * keeps the buffers alive on its own). AM_EINVAL for NULL pointers or an
 * index outside 0 .. num_fields - 1, AM_ETYPE when `array` is not a struct.
 * Thread-safe; `array` is only read. */
int am_struct_field(const am_array *array, int64_t index, am_array **out);

/* The name of field `index` (UTF-8, owned by the struct handle: valid until
 * it is released); NULL for a bad handle or index. Never sets the message.
 * Thread-safe. */
const char *am_struct_field_name(const am_array *array, int64_t index);

/* 1 when field `index` is nullable (ARROW_FLAG_NULLABLE in its schema),
 * 0 when not, -1 for a bad handle or index. Never sets the message.
 * Thread-safe. */
int am_struct_field_nullable(const am_array *array, int64_t index);

/* A struct handle of `n_fields` (>= 0) columns with these names (copied;
 * NULL names ""), every field nullable. The columns are borrowed (the struct
 * takes new references); they must be primitive or struct handles of one
 * device and of `length` rows each (AM_EINVAL otherwise; with no columns
 * `length` alone gives the rows). For building a result table from result
 * columns. Thread-safe. */
int am_struct_make(const char *const *names, const am_array *const *columns, int64_t n_fields,
                   int64_t length, am_array **out);

/* ---- Arrow C stream interface (CStreamInterface.html) */
#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE
struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};
#endif /* ARROW_C_STREAM_INTERFACE */

/* A table: a schema (named fields of element or struct types) and zero or
 * more record batches of it, each an AM_STRUCT handle. A pyarrow Table's
 * chunking is its batches: the library never joins them. Immutable, opaque,
 * read from any thread; released once with am_table_release. */
typedef struct am_table am_table;

/* Reads a whole ArrowArrayStream of record batches ("+s" schema), on the
 * calling thread (the stream's callbacks run there, one at a time), onto
 * `device` (NULL: the default device), each batch imported as am_import
 * does (zero-copy on the CPU).
 * Ownership: the stream is consumed. stream->release runs exactly once,
 * before this returns, on success and on every error (except a NULL
 * stream or one already released), and the caller's struct is marked
 * released. Each batch's ArrowArray is moved in and released as
 * am_import says.
 * Errors: AM_EINVAL for NULL pointers, a released stream or a stream
 * error (get_schema or get_next returning an errno: "ArrowArrayStream.
 * get_next failed (errno 5): <get_last_error's text>"; ENOMEM gives
 * AM_ENOMEM); AM_ETYPE for a schema that is not "+s" or a field of an
 * unsupported type. On any error the batches already read are freed.
 * An empty stream gives a table of zero batches that keeps its schema. */
int am_import_stream(struct ArrowArrayStream *stream, am_device *device, am_table **out);

/* A table of `n_batches` (>= 1) struct handles of one schema (field
 * count, names and types; AM_EINVAL otherwise), which are borrowed: the
 * table takes new references. Thread-safe. */
int am_table_make(const am_array *const *batches, int64_t n_batches, am_table **out);

/* Number of batches, total rows; -1 for NULL. Never set the message.
 * Thread-safe. */
int64_t am_table_num_batches(const am_table *table);
int64_t am_table_num_rows(const am_table *table);

/* Batch `index` as a new AM_STRUCT handle the caller releases. AM_EINVAL
 * for NULL pointers or an index out of range. Thread-safe. */
int am_table_batch(const am_table *table, int64_t index, am_array **out);

/* The table's schema as a "+s" ArrowSchema the caller releases (names and
 * nullability kept). Thread-safe. */
int am_table_schema(const am_table *table, struct ArrowSchema *out);

/* Gives the table back (its batches stay alive while other handles share
 * them). NULL is allowed. Must be called exactly once, after every other
 * thread's use of the table. */
void am_table_release(am_table *table);

/* Fills `out` with a stream of the table's batches, each exported as
 * am_export exports a struct handle (zero-copy from the CPU; GPU batches
 * are downloaded as they are read). The stream holds its own references:
 * the table may be released at once. The consumer calls out->release
 * exactly once; get_next after the last batch gives a released array (end
 * of stream); on a failure get_next returns an errno and get_last_error
 * the library's message. The stream's callbacks may be called from any
 * thread, one at a time (as the interface requires). */
int am_export_stream(const am_table *table, struct ArrowArrayStream *out);

/* ---- Arrow C device stream interface (CDeviceDataInterface.html) */
#ifndef ARROW_C_DEVICE_STREAM_INTERFACE
#define ARROW_C_DEVICE_STREAM_INTERFACE
struct ArrowDeviceArrayStream {
  ArrowDeviceType device_type;
  int (*get_schema)(struct ArrowDeviceArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowDeviceArrayStream *, struct ArrowDeviceArray *out);
  const char *(*get_last_error)(struct ArrowDeviceArrayStream *);
  void (*release)(struct ArrowDeviceArrayStream *);
  void *private_data;
};
#endif /* ARROW_C_DEVICE_STREAM_INTERFACE */

/* am_import_stream for an ArrowDeviceArrayStream: each batch imported as
 * am_import_device imports it (device memory of `device`'s kind zero-copy,
 * its sync event waited on; CPU memory as am_import; memory of another
 * device AM_EUNSUPPORTED), onto `device` (NULL: the default device).
 * Ownership, threads and errors as am_import_stream's; a batch whose
 * device_type is not the stream's is AM_EINVAL ("batch 2: ..."). */
int am_import_device_stream(struct ArrowDeviceArrayStream *stream, am_device *device,
                            am_table **out);

/* am_export_stream for an ArrowDeviceArrayStream: each batch exported as
 * am_export_device exports it, where it lives (zero-copy; GPU batches stay
 * in device memory). The stream's device_type is the batches' (the CPU's
 * for a table of no batches); a table whose batches are on devices of
 * different types is AM_EINVAL. Ownership and threads as
 * am_export_stream's. */
int am_export_device_stream(const am_table *table, struct ArrowDeviceArrayStream *out);
/* ---- end of tables */

/* ---- Strings and binary (issue #13; types AM_UTF8 ... AM_FIXED_SIZE_BINARY,
 * AM_STRING_VIEW, AM_BINARY_VIEW)
 * The calls that take string and binary arrays, all on the CPU (a GPU
 * device refuses them: AM_EUNSUPPORTED "strings and binary are not yet on
 * <device>"): am_import / am_import_device (CPU arrays; zero-copy, offsets
 * or views checked), am_export / am_export_device (zero-copy, 3 buffers; a
 * view array's 3 + its data buffers; released once), struct and table
 * children, the property getters, am_slice (zero-copy), am_to_device (to
 * the CPU), am_filter / am_filter_nulls, am_take, am_concat, am_is
 * (is_null, is_valid; the others AM_ETYPE), am_drop_null, am_fill_null,
 * am_coalesce, am_if_else, am_count, am_full, am_compare /
 * am_compare_scalar, am_min, am_max, am_min_max, am_first_last,
 * am_aggregate's AM_AGG_MIN/MAX/FIRST/LAST, the hash-based functions but
 * am_mode (values grouped by their bytes, in first-occurrence order: see
 * "Hash-based functions"), and the calls below.
 * Every other call refuses them with AM_ETYPE. Values of one call must be of
 * one string type (a utf8 array does not meet a large_utf8 one here; the
 * value set of am_is_in / am_index_in aside).
 * View arrays (string_view, binary_view) take every one of these calls.
 * Results that only move slots (take, filter, concat, the null functions)
 * copy views and share the inputs' data buffers, as Arrow C++ does; the
 * string functions with string results (case, trims, slices, joins, splits) copy a
 * view input's values into a flat array first, and give views over their
 * result's bytes. A string result of a view input is of the input's view
 * type; lengths and positions are int32. pyarrow 26 has kernels for views
 * in is_null, is_valid, count, compare, unique, value_counts,
 * dictionary_encode, group-by keys and casts only; the library's answers
 * there are pyarrow's over views, and elsewhere pyarrow's over the same
 * values as string / binary, in the view type.
 * Divergence: pyarrow 26's unique, value_counts and dictionary_encode of a
 * view array give a null slot as a valid empty value; here it stays null,
 * as pyarrow gives it over string.
 * A string scalar (fill_null, coalesce, if_else, am_full) is an am_scalar of
 * the string type whose `u64` is the address of its bytes (borrowed for the
 * call) and `i64` their count; any string or binary scalar goes with
 * variable-length values (its bytes taken as they are), and a
 * fixed_size_binary scalar's i64 must be the values' width. A string
 * scalar the library writes (compare's inputs aside: min, max, min_max,
 * first, last, first_last) points at a copy of the bytes in storage of the
 * calling thread, valid until that thread's next call that writes one; a
 * fixed_size_binary result's i64 is the width even when it is null.
 * Compare is bytewise (a prefix first), as pyarrow. UTF-8 is not
 * checked at import (pyarrow's C import does not check it either).
 * Thread safety and ownership: as every call. */

/* The byte width of a fixed_size_binary array; 0 for other arrays and NULL. */
int32_t am_array_byte_width(const am_array *array);
/* pyarrow's string functions of one array (and a pattern), on the CPU.
 * Types (pyarrow's): utf8_length, ascii_upper, ascii_lower, utf8_upper
 * and utf8_lower take string and large_string; binary_length, find_substring and count_substring
 * every string and binary type; starts_with, ends_with and match_substring string, large_string,
 * binary and large_binary (and the view types wherever their flat types go). Lengths and
 * positions are int32 (int64 for the large types; fixed_size_binary and the views: int32),
 * matches bool, upper/lower the input's type. match_like takes
 * match_substring's types; its pattern is SQL LIKE's, as pyarrow reads it:
 * '%' any run of characters, '_' one character (a UTF-8 code point in string
 * arrays, a byte in binary ones), a backslash makes the next character
 * literal (a trailing one is dropped), the whole value must match. Nulls
 * propagate. Where pyarrow runs a LIKE pattern as a regular expression
 * (RE2: every pattern with ignore_case; without it those that are not
 * %X%, X% or %Y, or whose bytes in a string array are not what RE2's '.'
 * takes) in a string array, its literal text must be UTF-8 as RE2 reads it
 * (surrogates allowed) or the call is AM_EINVAL ("Invalid regular
 * expression: invalid UTF-8") for an array of one slot or more, and a value
 * holding a byte that '.' does not take (one that is not a lead byte C2-F4
 * with its continuation bytes, or ASCII) matches nothing, '%' included.
 * Another type is AM_ETYPE in pyarrow's words ("Function 'utf8_length' has
 * no kernel matching input types (binary)"). */
typedef enum am_string_op {
  AM_UTF8_LENGTH = 0,     /* "utf8_length": code points (bytes that do not continue one) */
  AM_BINARY_LENGTH = 1,   /* "binary_length": bytes */
  AM_STARTS_WITH = 2,     /* "starts_with" (MatchSubstringOptions) */
  AM_ENDS_WITH = 3,       /* "ends_with" */
  AM_MATCH_SUBSTRING = 4, /* "match_substring": the pattern occurs */
  AM_FIND_SUBSTRING = 5,  /* "find_substring": the first occurrence's byte index, -1 */
  AM_COUNT_SUBSTRING = 6, /* "count_substring": non-overlapping occurrences */
  AM_ASCII_UPPER = 7,     /* "ascii_upper": a-z to A-Z, other bytes kept */
  AM_ASCII_LOWER = 8,     /* "ascii_lower" */
  AM_MATCH_LIKE = 9,      /* "match_like" (MatchSubstringOptions): a LIKE pattern */
  /* Trimming (strings only; results are strings of the input's type). The
   * whitespace of the ascii_ ones is the bytes \t \n \v \f \r and space; of
   * the utf8_ ones the code points of Unicode bidi classes WS, B and S, as
   * pyarrow's (U+0009-000D, U+001C-0020, U+0085, U+00A0, U+1680,
   * U+2000-200A, U+2028, U+2029, U+202F, U+205F, U+3000). The ops with a
   * pattern take pyarrow's TrimOptions characters as it: a set of bytes
   * (ascii_) or of code points (utf8_, AM_EINVAL when it is not UTF-8). A
   * utf8_ op meeting bytes that are not UTF-8 while it scans a value is
   * AM_EINVAL ("Invalid UTF8 sequence in input"), as pyarrow. */
  AM_ASCII_TRIM_WHITESPACE = 10,  /* "ascii_trim_whitespace": both ends */
  AM_ASCII_LTRIM_WHITESPACE = 11, /* "ascii_ltrim_whitespace": the start */
  AM_ASCII_RTRIM_WHITESPACE = 12, /* "ascii_rtrim_whitespace": the end */
  AM_UTF8_TRIM_WHITESPACE = 13,   /* "utf8_trim_whitespace" */
  AM_UTF8_LTRIM_WHITESPACE = 14,  /* "utf8_ltrim_whitespace" */
  AM_UTF8_RTRIM_WHITESPACE = 15,  /* "utf8_rtrim_whitespace" */
  AM_ASCII_TRIM = 16,             /* "ascii_trim" (TrimOptions characters: the pattern) */
  AM_ASCII_LTRIM = 17,            /* "ascii_ltrim" */
  AM_ASCII_RTRIM = 18,            /* "ascii_rtrim" */
  AM_UTF8_TRIM = 19,              /* "utf8_trim" */
  AM_UTF8_LTRIM = 20,             /* "utf8_ltrim" */
  AM_UTF8_RTRIM = 21,             /* "utf8_rtrim" */
  /* Unicode case (strings only; results of the input's type): each code
   * point mapped one to one as pyarrow 26 maps it (utf8proc's simple
   * mappings: 'ß' upper is U+1E9E, 'ǅ' upper 'Ǆ') and written in its
   * shortest form, so a value's bytes may change in number. Bytes that are
   * not UTF-8 in a valid slot are AM_EINVAL ("Invalid UTF8 sequence in
   * input"), as pyarrow. */
  AM_UTF8_UPPER = 22, /* "utf8_upper" */
  AM_UTF8_LOWER = 23  /* "utf8_lower" */
} am_string_op;

/* Flags of am_string_function: pyarrow's MatchSubstringOptions. */
typedef enum am_string_flag {
  /* ignore_case=True, as pyarrow's RE2 matches: in string arrays a code
   * point matches each one Unicode's simple case folding ties it to (k, K
   * and U+212A; ß and U+1E9E, never "ss"; İ and ı only themselves), the
   * folding of pyarrow 26's RE2 read from pyarrow (core/unicode_fold.h);
   * bytes that are not UTF-8 match nothing the pattern holds, and a pattern
   * that is not UTF-8 as RE2 reads it (surrogates allowed) is AM_EINVAL
   * ("Invalid regular expression: invalid UTF-8") for an array of one slot
   * or more. In binary arrays (RE2's Latin-1) only ASCII letters fold.
   * find_substring gives the byte index in the value as it is; match_like
   * takes no fast path (every pattern is its regular expression). */
  AM_STRING_IGNORE_CASE = 1
} am_string_flag;

/* `op` of `array` with `pattern` (its `pattern_length` bytes, borrowed for
 * the call; NULL with length 0 for the ops without one, which must be given
 * none: AM_EINVAL) under `flags` (am_string_flag, for the matching ops only;
 * unknown bits AM_EINVAL).
 * `*out` is a new host array. Thread-safe. */
int am_string_function(am_string_op op, const am_array *array, const char *pattern,
                       int64_t pattern_length, int flags, am_array **out);
/* stop of am_utf8_slice_codeunits meaning none (pyarrow's stop=None). */
#define AM_SLICE_NO_STOP 9223372036854775807LL

/* utf8_slice_codeunits (pyarrow's SliceOptions): each valid value's code
 * points from `start` to before `stop` by `step`, as Python slices a str:
 * a negative start or stop counts from the end, AM_SLICE_NO_STOP is no stop
 * (the end, or the beginning for a negative step), step 0 is AM_EINVAL
 * ("Slice step cannot be zero") for an array of any slots, as pyarrow. Strings only (utf8,
 * large_utf8; AM_ETYPE otherwise); the result has the input's type, null where it is null. A valid
 * value that is not UTF-8 (a lead byte without its continuation bytes, or a continuation byte
 * without its lead) is AM_EINVAL ("Invalid UTF8 sequence in input"): pyarrow checks only the bytes
 * its scan reaches, so a value broken past the part it takes can slice there and fail here.
 * Divergence: a step near INT64_MAX (or INT64_MIN) takes what Python's slice takes; pyarrow 26
 * overflows there and gives "\x00".
 * `*out` is a new host array. Thread-safe. */
int am_utf8_slice_codeunits(const am_array *array, int64_t start, int64_t stop, int64_t step,
                            am_array **out);

/* binary_join_element_wise's null handling (pyarrow's JoinOptions). */
typedef enum am_join_null_handling {
  AM_JOIN_EMIT_NULL = 0, /* "emit_null": a null value makes the row null */
  AM_JOIN_SKIP = 1,      /* "skip": null values are left out */
  AM_JOIN_REPLACE = 2    /* "replace": a null value joins as the replacement */
} am_join_null_handling;

/* binary_join_element_wise: row i is the valid slots i of the `n_values`
 * arrays `values` joined by the separator, which is either the array
 * `separator` (row i's slot) or, when `separator` is NULL, the
 * `separator_length` bytes at `separator_bytes` (NULL: a null separator).
 * A null separator makes the row null; a null value as `null_handling`
 * says (`replacement`, `replacement_length` bytes, for AM_JOIN_REPLACE;
 * NULL: empty). Every array (values and separator) is of one type among
 * string, large_string, binary and large_binary (AM_ETYPE in pyarrow's
 * words otherwise) and one length ("Array arguments must all be the same
 * length", AM_EINVAL); with no value arrays the separator must be an array
 * (each valid row then empty). The result has that type.
 * Divergence: pyarrow 26 with "skip" leaves a row whose values are all null
 * out of its result (a shorter array); here it is the empty string.
 * The inputs are borrowed; `*out` is a new host array. Thread-safe. */
int am_binary_join_element_wise(const am_array *const *values, int64_t n_values,
                                const am_array *separator, const char *separator_bytes,
                                int64_t separator_length, int null_handling,
                                const char *replacement, int64_t replacement_length,
                                am_array **out);

/* The splitting functions of am_string_split (pyarrow's): each valid row's
 * value cut at its separators into a list of pieces. */
typedef enum am_split_op {
  /* "split_pattern" (SplitPatternOptions): at each occurrence of the pattern
   * (bytes; non-overlapping, found from the start, or from the end under
   * reverse). string, large_string, binary, large_binary and the views. */
  AM_SPLIT_PATTERN = 0,
  /* "ascii_split_whitespace" (SplitOptions): at each run of the bytes \t \n
   * \v \f \r and space. string, large_string, string_view. */
  AM_ASCII_SPLIT_WHITESPACE = 1,
  /* "utf8_split_whitespace" (SplitOptions): at each run of the code points
   * of the utf8_ trims' whitespace (am_string_op). string, large_string,
   * string_view. */
  AM_UTF8_SPLIT_WHITESPACE = 2
} am_split_op;

/* `op` of `array` as pyarrow 26 computes it, with the pattern's
 * `pattern_length` bytes (split_pattern; borrowed for the call; the
 * whitespace ops must be given none: AM_EINVAL): row i's list is its
 * value's pieces, in order, with at most `max_splits` separators cut
 * (negative: no limit, pyarrow's None; 0: the whole value) and, when
 * `reverse` is nonzero, the separators found from the value's end (the
 * pieces stay in order: "a,b,c" split once in reverse is "a,b", "c"). A
 * value with no separator, the empty value too, is one piece; a separator
 * at either end gives an empty piece there. A run of utf8 whitespace that
 * reaches the value's end (its start, in reverse) is cut before its last
 * (after its first) code point, as pyarrow 26 scans it: "a  " gives "a",
 * "", "" (ascii: "a", ""). Bytes that are not UTF-8 stop the utf8 scan:
 * the rest of the value is one piece, as pyarrow (no error).
 *
 * The result is pyarrow's ListArray in two arrays, the caller's to release
 * with am_release: `*items`, every row's pieces one after the other, of the
 * input's type (never null), and `*offsets`, AM_INT32 of length + 1 slots:
 * row i's pieces are items[offsets[i] .. offsets[i + 1]), and offsets slot
 * i is null where row i is (its list null, empty in items; slot `length` is
 * valid). pyarrow's result type is list<input type> (list, not large_list,
 * for the large types too): pyarrow.ListArray.from_arrays(offsets, items),
 * or from_buffers over the offsets array's two buffers without a copy.
 *
 * Errors: an empty pattern with a row to split, AM_EINVAL ("Empty
 * separator", pyarrow's; an empty array takes any); more than 2^31 - 1
 * pieces, AM_EOVERFLOW ("List offset does not fit into 32 bit"); another
 * type, AM_ETYPE in pyarrow's words ("Function 'split_pattern' has no
 * kernel matching input types (int64)"); nothing is written on an error.
 * Divergence: pyarrow 26 aborts the process under reverse with a
 * max_splits near 2^62 (it reserves that many pieces); here any positive
 * max_splits is a limit. And where a utf8 whitespace run reaches a value's
 * end (start), pyarrow reads a code point past the value and finds no
 * separator there when those bytes are not UTF-8 (past a buffer's last
 * value: its padding, which may hold anything); the library reads nothing
 * past the value and cuts as pyarrow does when they are UTF-8.
 * Inputs are borrowed; the split runs on the host (an array on a GPU is
 * copied there) and both results live on the input's device. Thread-safe. */
int am_string_split(am_split_op op, const am_array *array, const char *pattern,
                    int64_t pattern_length, int64_t max_splits, int reverse, am_array **items,
                    am_array **offsets);
/* ---- end of strings */

/* ---- Decimals (issue #13; types AM_DECIMAL128, AM_DECIMAL256)
 * Host arrays of 16- or 32-byte values with a precision and a scale (see
 * am_type). The calls that take them, on the CPU, in pyarrow.compute's
 * semantics and words: am_import / am_export (zero-copy), struct and table
 * children, the property getters, am_slice, am_to_device (to the CPU),
 * am_take, am_filter, am_concat (one type, precision and scale),
 * am_drop_null, am_is (is_null, is_valid), am_fill_null, am_coalesce,
 * am_if_else (values of one type, precision and scale), am_full, am_count;
 * am_compare / am_compare_scalar (at the common scale; a decimal or integer
 * scalar), am_sum (decimal128(38, s) / decimal256(76, s), wrapping at the
 * width as pyarrow), am_mean (the input's type, half away from zero),
 * am_min, am_max, am_min_max and am_aggregate's SUM/MEAN/MIN/MAX, am_unique,
 * am_value_counts, am_count_distinct, am_is_in / am_index_in (a decimal
 * value set of any parameters), am_arith / am_arith_scalar and am_binary's
 * add/subtract/multiply/divide_checked (Arrow's precision and scale rules;
 * "Decimal precision out of range [1, 38]: 39", "Divide by zero"); am_cast
 * to integers and floats and am_cast_decimal (to decimals, from decimals,
 * integers and floats); keys and values of the sorting, ranking, group-by
 * and join calls (see each).
 * Every other call refuses them with AM_ETYPE; a GPU device refuses them
 * with AM_EUNSUPPORTED ("decimals are not yet on <device>").
 *
 * A decimal scalar is an am_scalar of the decimal type whose `u64` is the
 * address of its 16 or 32 value bytes (borrowed for the call) and whose
 * `i64` holds its precision in the low 32 bits and its scale (signed) in
 * the high 32: i64 = ((int64_t)scale << 32) | (uint32_t)precision. A
 * decimal scalar the library writes points at a copy of the bytes in
 * storage of the calling thread, valid until that thread's next call that
 * writes one. Thread safety and ownership: as every call. */

/* A decimal array's precision and scale; 0 for other arrays and NULL. */
int32_t am_array_decimal_precision(const am_array *array);
int32_t am_array_decimal_scale(const am_array *array);
/* ---- end of decimals */

/* ---- float16 (issue #13; type AM_FLOAT16, Arrow format "e", pyarrow's
 * halffloat)
 *
 * float16 arrays import and export zero-copy (am_import / am_export, the C
 * Device Data Interface, struct and table columns) and move to and from GPU
 * devices as any 16-bit data. The calls that take them, each as pyarrow 26
 * computes it:
 *   am_take, am_filter, am_filter_nulls, am_slice, am_concat, am_drop_null,
 *   am_fill_null_direction, am_count, am_full (a float16 scalar);
 *   am_fill_null (a float16 fill array, or a fill scalar of any number type
 *   converted as pyarrow's fill_null converts it: rounded to the nearest
 *   float16, ties to even, past 65519 an infinity; an integer past 2^53
 *   refused with AM_EOVERFLOW, "... is outside of the range exactly
 *   representable by a IEEE 754 double precision value");
 *   am_coalesce, am_if_else (float16 values and scalars only: pyarrow has no
 *   kernel for a mix, AM_ETYPE "function 'coalesce' has no kernel matching
 *   input types (halffloat, float)");
 *   am_is: is_null (nan_is_null too), is_valid, is_nan, is_finite, is_inf;
 *   am_unary: negate and negate_checked (the sign bit flipped, a NaN's too),
 *   sign (1.0 or -1.0, 0.0 for either zero, a NaN as it is);
 *   am_unique, am_value_counts, am_dictionary_encode: values told apart by
 *   their bits (0.0 and -0.0, NaNs of other payloads or signs, are distinct);
 *   am_count_distinct: pyarrow 26's count, which keys each value by its
 *   storage integer rounded to a float16 (0x3c00 ... 0x3c04 count as one):
 *   the library counts the same keys;
 *   am_cast: to and from float32 and float64 (widening exact, NaN payloads
 *   kept; narrowing rounds once to the nearest float16, ties to even, to an
 *   infinity past 65519.99..., a NaN keeps its sign and the top ten bits of
 *   its payload, or payload 1: never an error); to the integer types through
 *   float32, with float32's checks and flags (a refusal names the float16's
 *   storage integer, as pyarrow does: "Float value 15872 was truncated
 *   converting to int8" for 1.5); from the integer types through float32 (8-
 *   to 32-bit) or float64 (64-bit) with those casts' checks ("Integer value
 *   2147483647 not in range: -16777216 to 16777216"), then rounded. bool,
 *   temporal, decimal and binary pairs are pyarrow's refusals (AM_ETYPE,
 *   "Unsupported cast from halffloat to bool using function cast_boolean");
 *   casts between float16 and strings, which pyarrow formats and parses, are
 *   refused here (AM_ETYPE "Unsupported cast from halffloat to string"; the
 *   Python package runs pyarrow). An unsafe cast of a value outside an
 *   integer type's range gives an unspecified value, as float32's does.
 * Every other call refuses float16 with AM_ETYPE, in pyarrow's words where
 * pyarrow's function is known ("function 'sum' has no kernel matching input
 * types (halffloat)"; min and max: 'min_max'). A float16 scalar holds its
 * value in `f64` (see am_scalar). Thread safety and ownership: as every
 * call. */

#ifdef __cplusplus
}
#endif
#endif /* ARROWMETAL_H */
