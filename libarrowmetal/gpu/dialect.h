/* The thin dialect layer under kernel_source.c: a growable string builder and
 * the few pieces of kernel text that differ between CUDA C++ (NVRTC) and the
 * Metal Shading Language.
 *
 * Kernel bodies are written once, in a C++ subset common to both languages,
 * against the tokens every preamble defines:
 *
 *   types       am_i8 am_i16 am_i32 am_i64 am_u8 am_u16 am_u32 am_u64 am_f32
 *               (am_f64 in CUDA only: Metal has no double)
 *   qualifiers  GLOBAL (device memory pointer), SMEM (threadgroup / shared
 *               variable), SPTR (pointer to such a variable), PRIV (pointer
 *               to a thread-private variable), DEVFN (helper function)
 *   sync        BARRIER() (block barrier, threadgroup memory), THREADFENCE()
 *               (device-scope fence; every thread of the block must reach it)
 *   SIMD        BALLOT(p) (32-bit mask of the warp / SIMD group), SHFL_DOWN,
 *               SHFL_UP, SHFL_XOR, SHFL_IDX (32-bit values; a lane whose
 *               source is outside the warp may get any value),
 *               am_shfl_down_u64(), POPC(x)
 *   atomics     ATOMIC_OR32, ATOMIC_ADD32 (return the old value),
 *               ATOMIC_LOAD32, ATOMIC_STORE32 on 32-bit words of device memory
 *   floats      F32_BITS, BITS_F32 (bit casts), AM_F32_TO_F64BITS (a float as
 *               the bits of the equal double), AM_F64BITS_TO_F32 (double bits
 *               rounded to float); F64_BITS, BITS_F64 in CUDA only
 *   status      am_report_error(status, slot) (error_index = min(., slot)),
 *               am_status_add_count(status, v) (count += v),
 *               am_partial_store/load(scratch, index, v) (64-bit words of the
 *               scratch partials, coherent across blocks of one launch)
 *   indices     am_tid, am_lane, am_warp, am_bid, am_nblocks (all am_u32),
 *               defined by the kernel prologue; am_tid == am_warp * 32 + am_lane
 *               in both dialects, so lane numbering is the SIMD lane order.
 *
 * Both dialects have a SIMD width of 32 (CUDA warps, Apple SIMD groups). */
#ifndef AM_GPU_DIALECT_H
#define AM_GPU_DIALECT_H

#include <stdarg.h>
#include <stddef.h>

#include "gpu/kernels.h"

/* A growable string. A failed allocation sets `failed`; later appends do
 * nothing and am_sb_finish() then returns NULL. */
typedef struct am_sb {
  char *data;
  size_t len;
  size_t cap;
  int failed;
} am_sb;

void am_sb_init(am_sb *sb);
void am_sb_puts(am_sb *sb, const char *text);
/* The first n bytes of `text`. */
void am_sb_putn(am_sb *sb, const char *text, size_t n);
void am_sb_printf(am_sb *sb, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The built string (malloc'd, the caller frees it), or NULL when an append
 * failed; the builder is reset either way. */
char *am_sb_finish(am_sb *sb);
void am_sb_free(am_sb *sb);

/* The math vocabulary of core/ops.h (am_sqrt, am_exp, am_log, ..., am_pow,
 * am_atan2, see there) for float type `t`, as #defines: CUDA's functions of
 * that precision (sqrtf or sqrt), Metal's metal::precise ones (float only;
 * log1p, which MSL lacks, written from log, and pow made C's for a negative
 * base). */
void am_dialect_math(am_sb *sb, am_dialect dialect, am_type t);
/* For float64 power kernels in the CUDA dialect, after am_dialect_math:
 * am_pow64(x, y), C's pow for doubles as a device function (dialect_pow64.c
 * says why and how), and am_pow redefined as it. */
void am_dialect_pow64(am_sb *sb);
/* For float64 in the CUDA dialect, inside am_dialect_math: the device
 * functions of dialect_unary64.c (am_log1p64, am_acos64, am_asin64), and whether C's
 * function `fn` ("log1p") is one of them, named am_<fn>64. */
void am_dialect_unary64(am_sb *sb);
int am_dialect_unary64_has(const char *fn);

/* "cuda" or "msl". */
const char *am_dialect_name(am_dialect dialect);
/* Whether the dialect has a 64-bit float type, and an element type (the
 * type table's spellings, core/types.c). */
int am_dialect_has_double(am_dialect dialect);
int am_dialect_has_type(am_dialect dialect, am_type t);
/* Headers, type names and the tokens listed above. */
void am_dialect_preamble(am_sb *sb, am_dialect dialect);
/* The kernel's signature (taking `const Args a` by value in CUDA, `constant
 * Args &a` at buffer 0 in Metal), the opening brace and the prologue that
 * defines the index variables. The caller writes the body and the closing
 * brace. */
void am_dialect_kernel_begin(am_sb *sb, am_dialect dialect, const char *name);
/* The same, with the blocks of AM_BLOCK threads that CUDA's launch bounds
 * ask to keep resident per multiprocessor (am_dialect_kernel_begin's 4
 * leaves 64 registers a thread; 3 leaves 80). Metal has no such bound: the
 * argument is ignored there. */
void am_dialect_kernel_begin_resident(am_sb *sb, am_dialect dialect, const char *name,
                                      int blocks_per_sm);
/* A CUDA kernel's source with its entry `name` turned into a device
 * function that one block of another kernel calls:
 *   __device__ __noinline__ void name(const Args a, am_u32 am_bid, am_u32 am_nblocks)
 * (the caller says which block of how many it plays). Returns a new string
 * (the caller frees it), or NULL when the source has no entry of that name
 * as am_dialect_kernel_begin writes it, or out of memory. */
char *am_dialect_kernel_as_function(const char *source, const char *name);

/* The integer-only float conversions Metal uses in place of double (valid C,
 * CUDA and MSL once DEVFN and the am_ integer types exist); exposed so the
 * tests can check them against the host's own conversions. */
const char *am_dialect_soft_float_source(void);

#endif
