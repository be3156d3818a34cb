/* The batch interpreter: one launch that runs a batch's small ops, each as
 * the one block its own launch would be.
 *
 * Why: ten small ops in a batch sent as a CUDA graph spent 20-24 us in
 * am_batch_end on an H100 (issue #14), most of it giving the graph's nodes
 * their new argument blocks (each batch's results are new buffers) and
 * launching ten nodes. Here the kernels of a batch's distinct keys are
 * compiled once into one module as device functions
 * (am_dialect_kernel_as_function) beside an entry that takes the batch's
 * argument blocks as its one parameter: block i runs op i. So a batch is one
 * launch with its arguments in the launch itself.
 *
 * It runs a batch only where that is the launches' own result: every
 * launch is one block (so op i's kernel, called as block 0 of 1, is its
 * launch), and no launch waits for another (their footprints do not
 * conflict, gpu/launch_footprint.h): ops in different blocks run side by
 * side, in no order. The entry is CUDA only. */
#ifndef AM_GPU_BATCH_INTERPRETER_H
#define AM_GPU_BATCH_INTERPRETER_H

#include <stdint.h>

#include "core/error.h"
#include "gpu/kernels.h"

/* Ops in one interpreter launch (its parameter, 16 x 144 bytes, is within
 * the 4 KB that every CUDA device takes). */
enum { AM_BATCH_OPS = 16 };

/* Op i of a launch: which of the module's kernels (its index in the keys
 * the module was built from) and its argument block. */
typedef struct am_batch_op {
  uint32_t kernel;
  uint32_t pad;
  am_gpu_args args;
} am_batch_op;

typedef struct am_batch_params {
  am_batch_op op[AM_BATCH_OPS];
} am_batch_params;

#define AM_BATCH_ENTRY "am_batch_interpreter"

/* The CUDA source of the interpreter over `count` (1..AM_BATCH_OPS) kernel
 * keys: AM_EUNSUPPORTED when a key's kernel has no entry that can be
 * called as a function. The caller frees *source. */
int am_batch_source(am_err *err, const am_kernel_key *keys, int count, char **source);

#endif
