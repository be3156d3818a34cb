/* Launch footprints (launch_footprint.c): which held-back launches may run
 * side by side in a batch's graph. Prints "ok" when every check holds. */
#include <stdio.h>
#include <string.h>

#include "gpu/launch_footprint.h"

static int failures;

static void expect(int got, int want, const char *what) {
  if (got != want) {
    printf("FAIL %s: got %d, want %d\n", what, got, want);
    failures++;
  }
}

typedef struct launch {
  int count;
  am_gpu_range ranges[AM_GPU_FOOTPRINT_MAX];
} launch;

static launch footprint(am_kernel_kind kind, am_type t0, am_type t1, am_gpu_args args) {
  am_kernel_key key = {kind, 0, t0, t1};
  launch l;
  l.count = am_gpu_launch_footprint(&key, &args, l.ranges);
  return l;
}

static int conflict(launch a, launch b) {
  return am_gpu_footprints_conflict(a.ranges, a.count, b.ranges, b.count);
}

enum { MB = 1 << 20 };
static const uint64_t A = 1ull << 32, B = A + 16 * MB, X = A + 32 * MB, Y = A + 48 * MB;
static const uint64_t SCRATCH = A + 64 * MB, STATUS = 1ull << 40;

int main(void) {
  am_gpu_args compare_a = {.in0 = A, .out = X, .n = 1000};
  am_gpu_args compare_a_again = {.in0 = A, .out = Y, .n = 1000};
  launch c1 = footprint(AM_KERNEL_COMPARE, AM_INT64, AM_TYPE_INVALID, compare_a);
  launch c2 = footprint(AM_KERNEL_COMPARE, AM_INT64, AM_TYPE_INVALID, compare_a_again);
  expect(c1.count > 0, 1, "a compare is described");
  expect(conflict(c1, c2), 0, "two readers of one input, two outputs");

  am_gpu_args add = {.in0 = A, .in1 = B, .out = X, .out_valid = Y, .n = 1000};
  am_gpu_args sum_x = {.in0 = X, .scratch = SCRATCH, .status = STATUS, .n = 1000};
  am_gpu_args sum_b = {.in0 = B, .scratch = SCRATCH, .status = STATUS + 64, .n = 1000};
  launch a1 = footprint(AM_KERNEL_ARITH, AM_INT64, AM_TYPE_INVALID, add);
  launch s1 = footprint(AM_KERNEL_REDUCE, AM_INT64, AM_TYPE_INVALID, sum_x);
  launch s2 = footprint(AM_KERNEL_REDUCE, AM_INT64, AM_TYPE_INVALID, sum_b);
  expect(conflict(a1, s1), 1, "a reader of a result waits for its writer");
  expect(conflict(s1, s2), 1, "reductions share the scratch area");
  expect(conflict(a1, s2), 0, "an add and a sum of its input");
  am_gpu_args sum_other_area = sum_b;
  sum_other_area.scratch = SCRATCH + AM_GPU_SCRATCH_BYTES;
  sum_other_area.status = STATUS + 128;
  expect(conflict(s2, footprint(AM_KERNEL_REDUCE, AM_INT64, AM_TYPE_INVALID, sum_other_area)), 0,
         "reductions in two scratch areas");

  /* Bitmaps count their bits: compare results of 1,000 slots (125 bytes;
   * 192 allocated, cuda/hooks.c) in allocations side by side do not meet,
   * a reader of one meets it, and so does a bitmap read at a bit offset
   * that reaches into it. */
  am_gpu_args compare_next = {.in0 = A, .out = X + 192, .n = 1000};
  launch c3 = footprint(AM_KERNEL_COMPARE, AM_INT64, AM_TYPE_INVALID, compare_next);
  expect(conflict(c1, c3), 0, "compare results side by side");
  am_gpu_args and_results = {.in0 = X, .in1 = X + 192, .out = X + 384, .n = 1000};
  launch and1 = footprint(AM_KERNEL_LOGIC, AM_BOOL, AM_TYPE_INVALID, and_results);
  expect(conflict(c1, and1), 1, "a logic op reading a compare's result");
  expect(conflict(c3, and1), 1, "... and the other's");
  am_gpu_args bits_before = {.in0 = X - 192, .off0 = 1536, .out = Y, .n = 8};
  expect(conflict(c1, footprint(AM_KERNEL_CAST, AM_BOOL, AM_INT64, bits_before)), 1,
         "a bitmap read whose bit offset reaches the result");
  bits_before.off0 = 0;
  expect(conflict(c1, footprint(AM_KERNEL_CAST, AM_BOOL, AM_INT64, bits_before)), 0,
         "the same bitmap read from its start");
  am_gpu_args cast_to_bool = {.in0 = B, .out = X - 4096, .n = 1000};
  expect(conflict(c1, footprint(AM_KERNEL_CAST, AM_INT64, AM_BOOL, cast_to_bool)), 0,
         "a cast to bool writes bits");
  expect(conflict(c1, footprint(AM_KERNEL_ARITH, AM_INT64, AM_TYPE_INVALID, cast_to_bool)), 1,
         "an add writes 8 bytes a slot");

  /* An interior pointer into a written buffer (a slice imported as its own
   * address) and a read at an element offset both meet the write. */
  am_gpu_args interior = {.in0 = X + 4096, .out = Y, .n = 10};
  am_gpu_args offset = {.in0 = X, .off0 = 900, .out = Y + MB, .n = 10};
  expect(conflict(a1, footprint(AM_KERNEL_UNARY, AM_FLOAT64, AM_TYPE_INVALID, interior)), 1,
         "an interior pointer");
  expect(conflict(a1, footprint(AM_KERNEL_CAST, AM_INT64, AM_FLOAT64, offset)), 1,
         "an element offset");
  am_gpu_args far = {.in0 = X + 8 * 1000 + 64, .out = Y + 2 * MB, .n = 10};
  expect(conflict(a1, footprint(AM_KERNEL_UNARY, AM_FLOAT64, AM_TYPE_INVALID, far)), 0,
         "past the written range");

  /* Two launches writing one output (if_else's two passes). */
  am_gpu_args left = {.in0 = A, .in1 = B, .out = X, .n = 1000};
  am_gpu_args right = {.in0 = A + MB, .in1 = B, .out = X, .n = 1000};
  expect(conflict(footprint(AM_KERNEL_IF_ELSE, AM_INT64, AM_TYPE_INVALID, left),
                  footprint(AM_KERNEL_IF_ELSE, AM_INT64, AM_TYPE_INVALID, right)),
         1, "two writers of one output");

  /* Undescribed: kinds with more launches, scratch words or addresses in
   * other fields, and string types. They conflict with everything. */
  launch filter = footprint(AM_KERNEL_FILTER_COUNT, AM_INT64, AM_TYPE_INVALID, compare_a);
  launch strings = footprint(AM_KERNEL_STRING_COMPARE, AM_UTF8, AM_TYPE_INVALID, compare_a);
  launch cast_text = footprint(AM_KERNEL_CAST, AM_INT64, AM_UTF8, compare_a);
  expect(filter.count, -1, "filter");
  expect(strings.count, -1, "string compare");
  expect(cast_text.count, -1, "a cast to text");
  am_gpu_args elsewhere = {.in0 = Y + 8 * MB, .out = Y + 9 * MB, .n = 1};
  launch apart = footprint(AM_KERNEL_COMPARE, AM_INT32, AM_TYPE_INVALID, elsewhere);
  expect(conflict(filter, apart), 1, "undescribed before");
  expect(conflict(apart, filter), 1, "undescribed after");
  am_gpu_args negative = {.in0 = A, .out = X, .n = -1};
  expect(footprint(AM_KERNEL_COMPARE, AM_INT64, AM_TYPE_INVALID, negative).count, -1,
         "a negative length");

  if (failures) return 1;
  printf("ok\n");
  return 0;
}
