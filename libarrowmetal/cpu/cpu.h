/* The CPU backend's kernels and what their files share: the per-type
 * X-macros, the clone attribute of hot loops, and result allocation. */
#ifndef AM_CPU_CPU_H
#define AM_CPU_CPU_H

#include <stdint.h>

#include "core/array.h"
#include "core/backend.h"
#include "core/hash.h"

/* Hot loops are compiled for AVX-512 and AVX2 as well as the baseline and
 * picked at load time (ifunc), so one binary runs everywhere and still uses
 * wide vectors. ifunc needs ELF and glibc; clang's arch= clones differ, so
 * other toolchains get the baseline only. Defining AM_CPU_CLONES empty (with
 * -march=...) builds a single path, which is how each path gets tested. */
#ifndef AM_CPU_CLONES
#if defined(__x86_64__) && defined(__ELF__) && defined(__GLIBC__) && defined(__GNUC__) && \
    !defined(__clang__) && __GNUC__ >= 12
#define AM_CPU_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define AM_CPU_CLONES
#endif
#endif

/* One row per numeric type: enum, C type, unsigned C type of the same width,
 * short name, am_scalar field (i64, u64 or f64: also tells signed, unsigned
 * and float apart), lowest value, highest value. Integer arithmetic is done in
 * the unsigned type so that it wraps without undefined behaviour; floats have
 * no such type (the slot repeats the type) and their ends are the infinities
 * (users include math.h). */
#define AM_CPU_ROW_INT8 AM_INT8, int8_t, uint8_t, i8, i64, INT8_MIN, INT8_MAX
#define AM_CPU_ROW_INT16 AM_INT16, int16_t, uint16_t, i16, i64, INT16_MIN, INT16_MAX
#define AM_CPU_ROW_INT32 AM_INT32, int32_t, uint32_t, i32, i64, INT32_MIN, INT32_MAX
#define AM_CPU_ROW_INT64 AM_INT64, int64_t, uint64_t, i64, i64, INT64_MIN, INT64_MAX
#define AM_CPU_ROW_UINT8 AM_UINT8, uint8_t, uint8_t, u8, u64, 0, UINT8_MAX
#define AM_CPU_ROW_UINT16 AM_UINT16, uint16_t, uint16_t, u16, u64, 0, UINT16_MAX
#define AM_CPU_ROW_UINT32 AM_UINT32, uint32_t, uint32_t, u32, u64, 0, UINT32_MAX
#define AM_CPU_ROW_UINT64 AM_UINT64, uint64_t, uint64_t, u64, u64, 0, UINT64_MAX
#define AM_CPU_ROW_FLOAT32 AM_FLOAT32, float, float, f32, f64, -INFINITY, INFINITY
#define AM_CPU_ROW_FLOAT64 AM_FLOAT64, double, double, f64, f64, -INFINITY, INFINITY

/* X(row...) for each type of a group. */
#define AM_CPU_APPLY(X, ...) X(__VA_ARGS__)
#define AM_CPU_SIGNED_TYPES(X)      \
  AM_CPU_APPLY(X, AM_CPU_ROW_INT8)  \
  AM_CPU_APPLY(X, AM_CPU_ROW_INT16) \
  AM_CPU_APPLY(X, AM_CPU_ROW_INT32) AM_CPU_APPLY(X, AM_CPU_ROW_INT64)
#define AM_CPU_UNSIGNED_TYPES(X)     \
  AM_CPU_APPLY(X, AM_CPU_ROW_UINT8)  \
  AM_CPU_APPLY(X, AM_CPU_ROW_UINT16) \
  AM_CPU_APPLY(X, AM_CPU_ROW_UINT32) AM_CPU_APPLY(X, AM_CPU_ROW_UINT64)
#define AM_CPU_INTEGER_TYPES(X) AM_CPU_SIGNED_TYPES(X) AM_CPU_UNSIGNED_TYPES(X)
#define AM_CPU_FLOAT_TYPES(X) \
  AM_CPU_APPLY(X, AM_CPU_ROW_FLOAT32) AM_CPU_APPLY(X, AM_CPU_ROW_FLOAT64)
#define AM_CPU_NUMERIC_TYPES(X) AM_CPU_INTEGER_TYPES(X) AM_CPU_FLOAT_TYPES(X)

/* X(outer row..., row...) for each numeric type, for use inside an expansion
 * of AM_CPU_NUMERIC_TYPES (a macro cannot expand inside itself, hence the
 * second spelling). */
#define AM_CPU_APPLY_INNER(X, ...) X(__VA_ARGS__)
#define AM_CPU_NUMERIC_TYPES_AFTER(X, ...)               \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT8)    \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT16)   \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT32)   \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT64)   \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT8)   \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT16)  \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT32)  \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT64)  \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_FLOAT32) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_FLOAT64)

/* The CPU device, which always exists. */
am_device *am_cpu_device(void);

/* The same with the rows of one kind only. */
#define AM_CPU_SIGNED_TYPES_AFTER(X, ...)              \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT8)  \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT16) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT32) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_INT64)
#define AM_CPU_UNSIGNED_TYPES_AFTER(X, ...)             \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT8)  \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT16) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT32) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_UINT64)
#define AM_CPU_FLOAT_TYPES_AFTER(X, ...)                 \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_FLOAT32) \
  AM_CPU_APPLY_INNER(X, __VA_ARGS__, AM_CPU_ROW_FLOAT64)

/* The kernels of am_cpu_backend (see core/backend.h for their contracts). */
int am_cpu_reduce(am_err *err, am_reduce_op op, const am_array *array, am_type type,
                  am_scalar *out);
int am_cpu_compare(am_err *err, am_compare_op op, const am_array *left, const am_array *right,
                   const am_scalar *scalar, am_array **out);
int am_cpu_arith(am_err *err, am_arith_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, am_array **out);
int am_cpu_unary(am_err *err, am_unary_op op, const am_array *array, am_array **out);
int am_cpu_binary(am_err *err, am_binary_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, am_array **out);
int am_cpu_cast(am_err *err, const am_array *array, am_type to, int safe, am_array **out);
/* A cast kernel of cast.c's shape: converts n values of src into dst; with
 * `safe`, returns the first valid slot (validity bitmap `valid` from bit
 * vpos; NULL: all valid) that fails the cast's check, else -1. */
typedef int64_t (*am_cpu_cast_fn)(const void *src, void *dst, const uint8_t *valid, int64_t vpos,
                                  int64_t n, int safe);
/* cast_float16.c: the kernel of float16 -> float32 / float64 or back;
 * NULL for any other pair. */
am_cpu_cast_fn am_cpu_float16_cast(am_type from, am_type to);
int am_cpu_logic(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                 const am_scalar *scalar, int scalar_left, am_array **out);
/* A Kleene op (and_kleene, or_kleene, and_not_kleene) with its validity
 * computed from both operands' values and validity (kleene.c); operands as
 * am_cpu_logic's. */
int am_cpu_kleene(am_err *err, am_logic_op op, const am_array *left, const am_array *right,
                  const am_scalar *scalar, int scalar_left, am_array **out);
int am_cpu_filter(am_err *err, const am_array *array, const am_array *mask, am_null_selection nulls,
                  am_array **out);
int am_cpu_take(am_err *err, const am_array *array, const am_array *indices, am_array **out);
int am_cpu_fill(am_err *err, am_device *device, const am_scalar *value, int64_t length,
                am_array **out);
/* Host arrays of one type, count >= 1, total length checked by the caller. */
int am_cpu_concat(am_err *err, const am_array *const *arrays, int64_t count, am_array **out);
/* string_select.c: am_cpu_take and am_cpu_concat of string and binary
 * arrays (int32 or int64 indices, nulls giving nulls). */
int am_cpu_string_take(am_err *err, const am_array *array, const am_array *indices, am_array **out);
int am_cpu_string_concat(am_err *err, const am_array *const *arrays, int64_t count, am_array **out);
/* am_aggregate's kernel ops (cpu/aggregate.c; core/aggregate.h). */
int am_cpu_aggregate(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                     am_scalar *out2);
/* Null handling: predicate.c. */
int am_cpu_predicate(am_err *err, am_predicate op, int flags, const am_array *array,
                     am_array **out);
/* coalesce.c */
int am_cpu_coalesce(am_err *err, const am_array *left, const am_array *right,
                    const am_scalar *scalar, am_array **out);
/* if_else.c */
int am_cpu_if_else(am_err *err, const am_array *cond, const am_array *left,
                   const am_scalar *left_scalar, const am_array *right,
                   const am_scalar *right_scalar, am_array **out);
/* fill_direction.c */
int am_cpu_fill_direction(am_err *err, am_fill_direction direction, const am_array *array,
                          am_array **out);
/* Hash-based functions: hash.c. */
int am_cpu_hash_group(am_err *err, const am_array *array, int flags, am_hash_groups *out);
int am_cpu_hash_lookup(am_err *err, const am_array *values, const am_array *value_set,
                       int skip_nulls, int as_bool, am_array **out);
/* A one-key join's ids (cpu/join.c), without concatenating the keys: ids
 * (left->length + right->length slots: left's rows, then right's) gets each
 * right row's group (0 .. *groups - 1 in first-occurrence order; a null key
 * *groups + 1) and each left row its right group, or *groups where no right
 * row has its key (nulls included). Same types on both sides. */
int am_cpu_hash_join_ids(am_err *err, const am_array *left, const am_array *right, int32_t *ids,
                         int64_t *groups);
/* am_cpu_hash_group and am_cpu_hash_join_ids of string and binary arrays
 * (hash_bytes.c, by their bytes), and am_cpu_hash_lookup
 * (hash_bytes_lookup.c: the two arrays may be of different binary types,
 * compared by their bytes). */
int am_cpu_hash_group_bytes(am_err *err, const am_array *array, int flags, am_hash_groups *out);
int am_cpu_hash_lookup_bytes(am_err *err, const am_array *values, const am_array *value_set,
                             int skip_nulls, int as_bool, am_array **out);
int am_cpu_hash_join_ids_bytes(am_err *err, const am_array *left, const am_array *right,
                               int32_t *ids, int64_t *groups);
/* Rounding and pairwise differences: round.c, pairwise.c. */
int am_cpu_round(am_err *err, const am_array *array, const am_round_spec *spec, am_array **out);
int am_cpu_pairwise_diff(am_err *err, am_pairwise_op op, const am_array *array, int64_t period,
                         am_array **out);
/* quantile.c, tdigest.c */
int am_cpu_quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, am_device *host, am_array **out);
int am_cpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, am_device *host, am_array **out);
/* cumulative.c */
int am_cpu_cumulative(am_err *err, am_cumulative_op op, const am_array *array,
                      const am_scalar *start, int skip_nulls, am_array **out);

/* The null count as recorded (-1: unknown). */
static inline int64_t am_cpu_recorded_nulls(const am_array *array) {
  return atomic_load_explicit(&((am_array *)array)->null_count, memory_order_relaxed);
}

/* A valid scalar's value as the bits of one element of type `t` (the ABI
 * has cast it to t): float32 narrowed, bool 0 or 1, integers their low bytes
 * (little-endian) of the field of their kind. */
uint64_t am_cpu_scalar_bits(am_type t, const am_scalar *s);

/* Whether kernels must look at the array's validity bitmap. */
static inline int am_cpu_has_nulls(const am_array *array) {
  return array->validity && am_cpu_recorded_nulls(array) != 0;
}

/* The null count, counted when unknown (inputs are not written to). */
int64_t am_cpu_nulls(const am_array *array);

/* Allocates the result of an element-wise kernel: `length` slots of `type`,
 * valid where `a` and `b` (b may be NULL) both are, with null_count set and
 * no bitmap when nothing is null. The data buffer is uninitialised. */
int am_cpu_result(am_err *err, am_type type, int64_t length, const am_array *a, const am_array *b,
                  am_array **out);

/* A result of `length` null slots (zeroed data) on `device`. */
int am_cpu_null_result(am_err *err, am_device *device, am_type type, int64_t length,
                       am_array **out);

/* Sets the result's bitmap: `buffer` (offset 0) holding `valid` set bits, or
 * none, releasing `buffer`, when every slot is valid. */
void am_cpu_set_validity(am_array *array, am_buffer *buffer, int64_t valid);

/* sort.c: core/backend.h's sort_indices. */
int am_cpu_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *nulls_first, am_array **out);
/* sort_counting.c: the stable order of one integer key's rows into idx
 * (n slots) by a counting sort, when its numbers span a small range: 1
 * done, 0 declined (not an integer key, or too wide a range: the radix sort
 * runs), -1 out of memory. */
int am_cpu_counting_sort(const am_array *a, int descending, int nulls_first, uint64_t *idx);
/* sort_strings.c: stably reorders the rows idx[0, n) by string or binary
 * array a's values (pyarrow's order: bytewise, a prefix first; nulls first
 * or last); 0 done, -1 out of memory. */
int am_cpu_sort_strings(const am_array *a, int descending, int nulls_first, uint64_t *idx,
                        int64_t n);
/* rank.c: core/backend.h's select_k, rank, partition_nth. */
int am_cpu_select_k(am_err *err, const am_array *const *keys, int64_t n_keys, const int *descending,
                    const int *nulls_first, int64_t k, am_array **out);
int am_cpu_rank(am_err *err, const am_array *array, int descending, int nulls_first, int how,
                am_array **out);
int am_cpu_partition_nth(am_err *err, const am_array *array, int64_t pivot, int nulls_first,
                         am_array **out);

/* temporal.c: the temporal field extractions (core/temporal.h's calendar). */
int am_cpu_temporal_field(am_err *err, am_temporal_field_op op, const am_array *array,
                          int week_start, int count_from_zero, am_array **out);
/* round_temporal.c: core/backend.h's round_temporal (core/round_temporal.h). */
int am_cpu_round_temporal(am_err *err, int op, const am_array *array, int unit, int64_t multiple,
                          int flags, am_array **out);

/* groupby.c: core/backend.h's group_by. */
int am_cpu_group_by(am_err *err, const am_array *const *keys, int64_t n_keys,
                    const am_array *const *values, const am_group_aggregate *aggregates,
                    int64_t n_aggregates, am_array **keys_out, am_group_result *results);
/* The rows of n_keys >= 1 settled host arrays of one length grouped by all
 * their keys (core/hash.h, nulls a value of their own): out->ids (int32,
 * never null), out->first and out->groups, in first-occurrence order. */
int am_cpu_group_keys(am_err *err, const am_array *const *keys, int64_t n_keys,
                      am_hash_groups *out);
/* join.c: core/backend.h's join_indices. */
int am_cpu_join_indices(am_err *err, const am_array *const *left_keys,
                        const am_array *const *right_keys, int64_t n_keys, am_join_type join_type,
                        am_array **left_indices, am_array **right_indices);

#endif
