/* What kernel_source.c shares with the kernel sources of other families
 * (kernel_source_nulls.c): the pieces of kernel text every kind is built
 * from, and the hooks by which kernel_source.c hands those families' keys to
 * their own file. Private to gpu/. */
#ifndef AM_GPU_KERNEL_SOURCE_EMIT_H
#define AM_GPU_KERNEL_SOURCE_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "gpu/dialect.h"
#include "gpu/kernels.h"

/* ---- From kernel_source.c (see there) */

/* The element's type in kernels ("am_i64"; bool: a 0/1 am_u32), the pointer
 * element of a value operand (bool: bitmap bytes), and the same-width
 * unsigned type for bit-exact copies (bool: bitmap bytes). */
const char *am_ks_ctype(am_type t);
const char *am_ks_ptype(am_type t);
const char *am_ks_store(am_type t);
/* The argument block with typed pointers (layout of am_gpu_args). */
void am_ks_args(am_sb *sb, const char *in0, const char *in1, const char *out);
/* SMEM_ADD32(p, v): a relaxed atomic add to a u32 of shared memory. */
void am_ks_smem_add(am_sb *sb, am_dialect d);
/* typedef T<idx> and AM_LOAD<idx>(i) for operand `idx` of type t. */
void am_ks_operand(am_sb *sb, int idx, am_type t);
/* AM_SCALAR: the scalar operand as a T0. */
void am_ks_scalar(am_sb *sb, am_type t);
/* `tmpl` with every '#' replaced by the digit k. */
void am_ks_k(am_sb *sb, const char *tmpl, int k);
/* Words per warp and pass of the element-wise loop. */
int am_ks_unroll(am_type in, int bits_out);
/* The warp-by-warp element-wise loop (see emit_warp_loop). */
void am_ks_warp_loop(am_sb *sb, int unroll, const char *load, const char *gather,
                     const char *compute, int bits_out);
/* The same with emit_lean_warp_loop's passes first (every slot valid and
 * below n, where `lean_if` holds), for a kind with one value operand and a
 * value result. */
void am_ks_lean_warp_loop(am_sb *sb, int unroll, const char *load, const char *compute,
                          const char *lean_if, const char *lean_load, const char *lean_compute);
/* 32-slot words a thread takes per pass of the kinds that read bitmaps a
 * word at a time (LOGIC, and PREDICATE of the validity), loads first: one
 * word (8 bytes of loads in flight a thread) held and_kleene to about 30%
 * of the copy floor at 10^8 rows on the H200, and is_null, a byte at a time,
 * ran 12.5 us against 13.2 for and_kleene's three bitmaps at 4. */
#define AM_KS_BITMAP_WORDS 4

/* The head of the whole-word kinds: n, nw (32-slot words), stride, last0
 * (the last byte of in0 / valid0 to read) and hv0. */
extern const char *const am_ks_word_loop;

/* ---- From kernel_source_nulls.c (null handling) */

/* The case labels of that file's kinds, for kernel_source.c's switches. */
#define AM_KS_NULLS_CASES     \
  case AM_KERNEL_PREDICATE:   \
  case AM_KERNEL_COALESCE:    \
  case AM_KERNEL_IF_ELSE:     \
  case AM_KERNEL_FILL_BLOCKS: \
  case AM_KERNEL_FILL_CARRY:  \
  case AM_KERNEL_FILL_GATHER:

/* Whether `kind` is one of that file's kinds; for those, the same questions
 * kernel_source.c answers for its own. */
int am_ks_nulls_kind(am_kernel_kind kind);
int am_ks_nulls_key_ok(const am_kernel_key *key);
int am_ks_nulls_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_nulls_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_nulls_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_nulls_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);

/* ---- Rounding and pairwise differences:
 * kernel_source_round.c, as the null-handling hooks above */
#define AM_KS_ROUND_CASES \
  case AM_KERNEL_ROUND:   \
  case AM_KERNEL_PAIRWISE_DIFF:

int am_ks_round_key_ok(const am_kernel_key *key);
int am_ks_round_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_round_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_round_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_round_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);
/* From kernel_source.c: BINARY's integer vocabulary of core/ops.h for am_t
 * = T0 (am_lowest, am_highest, AM_WRAP_SUB, am_sub_overflows, ...). */
void am_ks_integer_vocabulary(am_sb *sb, am_type t);
/* ---- From kernel_source_select.c (quantile's radix select) */

#define AM_KS_SELECT_CASES    \
  case AM_KERNEL_SELECT_HIST: \
  case AM_KERNEL_SELECT_PICK:

int am_ks_select_kind(am_kernel_kind kind);
int am_ks_select_key_ok(const am_kernel_key *key);
void am_ks_select_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_select_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_select_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);
/* ---- From kernel_source_cumulative.c (cumulative functions) */

#define AM_KS_CUMULATIVE_CASES \
  case AM_KERNEL_CUM_BLOCKS:   \
  case AM_KERNEL_CUM_CARRY:    \
  case AM_KERNEL_CUM_SCAN:

int am_ks_cumulative_kind(am_kernel_kind kind);
int am_ks_cumulative_key_ok(const am_kernel_key *key);
int am_ks_cumulative_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_cumulative_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_cumulative_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_cumulative_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key,
                           const char *name);
/* ---- From kernel_source_hash.c (hash-based functions) */

#define AM_KS_HASH_CASES           \
  case AM_KERNEL_HASH_BUILD:       \
  case AM_KERNEL_HASH_FIRSTS:      \
  case AM_KERNEL_HASH_GROUP_SLOTS: \
  case AM_KERNEL_HASH_IDS:         \
  case AM_KERNEL_HASH_PROBE:

int am_ks_hash_kind(am_kernel_kind kind);
int am_ks_hash_key_ok(const am_kernel_key *key);
int am_ks_hash_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_hash_name(const am_kernel_key *key, char *name, size_t capacity);
void am_ks_hash_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);

/* ---- From kernel_source_sort.c (sort_indices' radix sort) */

#define AM_KS_SORT_CASES       \
  case AM_KERNEL_SORT_KEYS:    \
  case AM_KERNEL_SORT_COUNT:   \
  case AM_KERNEL_SORT_SCAN:    \
  case AM_KERNEL_SORT_SCATTER: \
  case AM_KERNEL_SORT_ONESWEEP:

int am_ks_sort_kind(am_kernel_kind kind);
int am_ks_sort_missing_type(am_dialect dialect, const am_kernel_key *key);
int am_ks_sort_key_ok(const am_kernel_key *key);
void am_ks_sort_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_sort_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_sort_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);

/* ---- From kernel_source_groupby.c (group-by and hash joins) */

#define AM_KS_GROUPBY_CASES    \
  case AM_KERNEL_GROUP_PACK:   \
  case AM_KERNEL_GROUP_DENSE:  \
  case AM_KERNEL_GROUP_ACCUM:  \
  case AM_KERNEL_GROUP_FINISH: \
  case AM_KERNEL_JOIN_MARK:    \
  case AM_KERNEL_JOIN_WRITE:

int am_ks_groupby_kind(am_kernel_kind kind);
int am_ks_groupby_key_ok(const am_kernel_key *key);
int am_ks_groupby_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_groupby_name(const am_kernel_key *key, char *name, size_t capacity);
void am_ks_groupby_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);
/* ---- From kernel_source_temporal.c (temporal field extractions and
 * rounding) */

#define AM_KS_TEMPORAL_CASES     \
  case AM_KERNEL_TEMPORAL_FIELD: \
  case AM_KERNEL_ROUND_TEMPORAL:

int am_ks_temporal_kind(am_kernel_kind kind);
int am_ks_temporal_key_ok(const am_kernel_key *key);
int am_ks_temporal_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_temporal_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_temporal_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_temporal_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);

/* ---- From kernel_source_strings.c (strings and binary) */

#define AM_KS_STRINGS_CASES       \
  case AM_KERNEL_STRING_FUNCTION: \
  case AM_KERNEL_STRING_CASE:     \
  case AM_KERNEL_STRING_COMPARE:  \
  case AM_KERNEL_STRING_SIZES:    \
  case AM_KERNEL_STRING_GATHER:   \
  case AM_KERNEL_STRING_CHECK:    \
  case AM_KERNEL_STRING_HASH:     \
  case AM_KERNEL_STRING_VERIFY:

int am_ks_strings_kind(am_kernel_kind kind);
int am_ks_strings_key_ok(const am_kernel_key *key);
int am_ks_strings_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_strings_name(const am_kernel_key *key, char *name, size_t capacity);
int64_t am_ks_strings_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);
void am_ks_strings_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);

/* ---- From kernel_source_resident.c (the resident worker, CUDA only) */

int am_ks_resident_key_ok(const am_kernel_key *key);
int am_ks_resident_missing_type(am_dialect dialect, const am_kernel_key *key);
void am_ks_resident_name(const am_kernel_key *key, char *name, size_t capacity);
void am_ks_resident_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *key, const char *name);
/* Whether the worker answers requests of this REDUCE or AGGREGATE key (it
 * has that kernel's class): the host sends no others. */
int am_ks_resident_answers(const am_kernel_key *key);

#endif
