/* The device memory one launch reads and writes, where its kind's contract
 * (kernels.h) pins it down: for a backend that lets held-back launches with
 * no conflict run side by side (CUDA graphs: cuda/batch_graph.c). */
#ifndef AM_GPU_LAUNCH_FOOTPRINT_H
#define AM_GPU_LAUNCH_FOOTPRINT_H

#include <stdint.h>

#include "gpu/kernels.h"

enum { AM_GPU_FOOTPRINT_MAX = 10 };

/* Bytes [begin, end) of device (or host-mapped) memory, written or only
 * read. */
typedef struct am_gpu_range {
  uint64_t begin, end;
  int writes;
} am_gpu_range;

/* Fills `ranges` (AM_GPU_FOOTPRINT_MAX at most) with a cover of what the
 * launch of `key` with `args` touches and returns their count, or -1 where
 * the kind's footprint is not described here: such a launch must be ordered
 * after every earlier one and before every later one. */
int am_gpu_launch_footprint(const am_kernel_key *key, const am_gpu_args *args,
                            am_gpu_range *ranges);

/* Whether two footprints conflict: one writes bytes the other reads or
 * writes. A footprint of -1 conflicts with everything. */
int am_gpu_footprints_conflict(const am_gpu_range *a, int a_count, const am_gpu_range *b,
                               int b_count);

#endif
