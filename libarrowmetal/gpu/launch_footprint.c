/* Launch footprints (launch_footprint.h). Only kinds whose every address is
 * one of the argument block's pointers, read or written from that pointer
 * over at most (offset + n) elements of at most 8 bytes, are described: the
 * element-wise kinds and the one-launch reductions. The cover is generous
 * (every element counted as 8 bytes, bitmaps too, plus a 64-byte line for
 * word-wide loads and stores), so a needless conflict can occur, a missed
 * one cannot. Everything else (strings, whose offsets lead to bytes; hash
 * tables, sorts, filters and scans with their scratch words and several
 * launches; kinds carrying an address in `aux`) is undescribed. */
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

static void add(am_gpu_range *ranges, int *count, uint64_t address, int64_t elements, int writes) {
  if (!address) return;
  uint64_t bytes = (uint64_t)(elements > 0 ? elements : 0) * 8 + 64;
  ranges[(*count)++] = (am_gpu_range){address, address + bytes, writes};
}

int am_gpu_launch_footprint(const am_kernel_key *key, const am_gpu_args *args,
                            am_gpu_range *ranges) {
  if (!described(key) || args->n < 0 || args->off0 < 0 || args->off1 < 0 || args->off2 < 0)
    return -1;
  int count = 0;
  add(ranges, &count, args->in0, args->off0 + args->n, 0);
  add(ranges, &count, args->valid0, args->off0 + args->n, 0);
  add(ranges, &count, args->in1, args->off1 + args->n, 0);
  add(ranges, &count, args->valid1, args->off1 + args->n, 0);
  add(ranges, &count, args->in2, args->off2 + args->n, 0);
  add(ranges, &count, args->valid2, args->off2 + args->n, 0);
  add(ranges, &count, args->out, args->n, 1);
  add(ranges, &count, args->out_valid, args->n, 1);
  add(ranges, &count, args->status, 0, 1); /* the status block: 64 bytes */
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
