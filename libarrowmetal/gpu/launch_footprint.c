/* Launch footprints (launch_footprint.h). Only kinds whose every address is
 * one of the argument block's pointers, read or written from that pointer
 * over at most (offset + n) elements of at most 8 bytes, are described: the
 * element-wise kinds and the one-launch reductions. The cover is generous:
 * every value counted as 8 bytes, a bitmap (validity, booleans, the outputs
 * of compares, predicates and logic) as its bits, plus a 64-byte line for
 * word-wide loads and stores, which stays inside the buffer (every device
 * allocation has 64 bytes past its size: cuda/hooks.c). So a needless
 * conflict can occur, a missed one cannot. Bitmaps were once counted as 8
 * bytes a bit too: the covers of small compare results then reached the
 * next allocations, and a batch of compares and sums never ran side by side
 * (nor as one batch-interpreter launch). Everything else (strings, whose
 * offsets lead to bytes; hash tables, sorts, filters and scans with their
 * scratch words and several launches; kinds carrying an address in `aux`)
 * is undescribed. */
#include "gpu/launch_footprint.h"

#include "core/types.h"

/* Fixed-width values of at most 8 bytes (or no type). */
static int plain(am_type t) {
  return t == AM_TYPE_INVALID || t == AM_BOOL || am_type_is_numeric(t) || am_type_is_float16(t) ||
         am_type_is_temporal(t);
}

static int described(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_REDUCE:
    case AM_KERNEL_AGGREGATE:
    case AM_KERNEL_COMPARE:
    case AM_KERNEL_ARITH:
    case AM_KERNEL_CAST:
    case AM_KERNEL_LOGIC:
    case AM_KERNEL_UNARY:
    case AM_KERNEL_BINARY:
    case AM_KERNEL_PREDICATE:
    case AM_KERNEL_COALESCE:
    case AM_KERNEL_IF_ELSE:
      return plain(key->t0) && plain(key->t1);
    default:
      return 0;
  }
}

/* The nine address fields of am_gpu_args and the scratch area. */
_Static_assert(AM_GPU_FOOTPRINT_MAX >= 10, "a footprint has up to 10 ranges");

/* Bits (a bitmap) or at most 8 bytes a slot. */
enum { VALUES = 0, BITS = 1 };

static void add(am_gpu_range *ranges, int *count, uint64_t address, int64_t elements, int bits,
                int writes) {
  if (!address) return;
  int64_t slots = elements > 0 ? elements : 0;
  uint64_t bytes = (uint64_t)(bits ? (slots + 7) / 8 : slots * 8) + 64;
  ranges[(*count)++] = (am_gpu_range){address, address + bytes, writes};
}

/* How in0, in1 and out hold their slots (kernels.h's contract of each kind;
 * booleans are bitmaps wherever they are). */
static int in0_bits(const am_kernel_key *key) {
  return key->kind == AM_KERNEL_LOGIC || key->t0 == AM_BOOL;
}

static int in1_bits(const am_kernel_key *key) {
  return key->kind == AM_KERNEL_LOGIC || key->kind == AM_KERNEL_IF_ELSE || key->t0 == AM_BOOL;
}

static int out_bits(const am_kernel_key *key) {
  switch (key->kind) {
    case AM_KERNEL_COMPARE:
    case AM_KERNEL_PREDICATE:
    case AM_KERNEL_LOGIC:
      return BITS;
    case AM_KERNEL_CAST:
      return key->t1 == AM_BOOL;
    default:
      return key->t0 == AM_BOOL;
  }
}

int am_gpu_launch_footprint(const am_kernel_key *key, const am_gpu_args *args,
                            am_gpu_range *ranges) {
  if (!described(key) || args->n < 0 || args->off0 < 0 || args->off1 < 0 || args->off2 < 0)
    return -1;
  int count = 0;
  add(ranges, &count, args->in0, args->off0 + args->n, in0_bits(key), 0);
  add(ranges, &count, args->valid0, args->off0 + args->n, BITS, 0);
  add(ranges, &count, args->in1, args->off1 + args->n, in1_bits(key), 0);
  add(ranges, &count, args->valid1, args->off1 + args->n, BITS, 0);
  add(ranges, &count, args->in2, args->off2 + args->n, VALUES, 0);
  add(ranges, &count, args->valid2, args->off2 + args->n, BITS, 0);
  add(ranges, &count, args->out, args->n, out_bits(key), 1);
  add(ranges, &count, args->out_valid, args->n, BITS, 1);
  add(ranges, &count, args->status, 0, VALUES, 1); /* the status block: 64 bytes */
  /* The reductions' partials and finish counter; the other kinds leave the
   * scratch area alone. */
  if ((key->kind == AM_KERNEL_REDUCE || key->kind == AM_KERNEL_AGGREGATE) && args->scratch)
    ranges[count++] = (am_gpu_range){args->scratch, args->scratch + AM_GPU_SCRATCH_BYTES, 1};
  return count;
}

static int overlap(const am_gpu_range *x, const am_gpu_range *y) {
  return (x->writes || y->writes) && x->begin < y->end && y->begin < x->end;
}

int am_gpu_footprints_conflict(const am_gpu_range *a, int a_count, const am_gpu_range *b,
                               int b_count) {
  if (a_count < 0 || b_count < 0) return 1;
  for (int i = 0; i < a_count; i++)
    for (int j = 0; j < b_count; j++)
      if (overlap(&a[i], &b[j])) return 1;
  return 0;
}
