/* A batch's launches sent as one launch of a batch interpreter
 * (gpu/batch_interpreter.h): each launch one block of the interpreter's
 * grid, its argument block in the launch's parameter. No graph node to give
 * new arguments, one launch for the batch.
 *
 * An interpreter is a module compiled for a set of kernel keys (sorted, so
 * that batches of the same kernels in any order share it). It is compiled
 * the AM_CUDA_INTERPRETER_AFTER-th time a batch of that set comes: until
 * then the set keeps to graphs: a compile (120-170 ms on an H100, then in
 * the disk cache) costs a thousand times a graph's first launch, so only a
 * set that recurs (a loop) should pay it. It is then kept for the device's life
 * (AM_CUDA_INTERPRETERS sets at most; later sets keep to graphs). One whose
 * source, compile or launch fails is not asked for again (a launch that
 * fails leaves the batch to the graph, which reports a fault of the device
 * itself). A batch of fewer than AM_CUDA_INTERPRETER_FROM launches keeps to
 * its graph, which is faster there. On unless ARROWMETAL_BATCH_INTERPRETER=0
 * (benchmarks/results/gpu-batch-resident-h100-2026-12-06.md). */
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "gpu/batch_interpreter.h"

/* Sets kept; the batch of a set that compiles its interpreter; the fewest
 * launches a batch sends through it: on an H100 a batch of 3 one-block sums
 * took 12.9-15.2 us as an interpreter launch against 11.0-12.8 as a graph
 * of 3 nodes, ten ops 15.5-19.4 us in am_batch_end against 18.8-24.4, in
 * turns in one session (between the two: unmeasured). */
enum { AM_CUDA_INTERPRETERS = 64, AM_CUDA_INTERPRETER_AFTER = 16, AM_CUDA_INTERPRETER_FROM = 6 };

typedef struct interpreter {
  int count; /* keys */
  am_kernel_key keys[AM_BATCH_OPS];
  int seen;           /* batches of this set so far */
  CUfunction entry;   /* once compiled */
  int cannot_compile; /* its source, compile or launch failed: not asked for again */
} interpreter;

struct am_cuda_interpreters {
  int count;
  interpreter set[AM_CUDA_INTERPRETERS];
};

am_cuda_interpreters *am_cuda_interpreters_new(void) {
  const char *setting = getenv("ARROWMETAL_BATCH_INTERPRETER");
  if (setting && strcmp(setting, "0") == 0) return NULL;
  return calloc(1, sizeof(am_cuda_interpreters));
}

static int key_order(const void *a, const void *b) {
  const am_kernel_key *x = a, *y = b;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  if (x->op != y->op) return x->op < y->op ? -1 : 1;
  if (x->t0 != y->t0) return x->t0 < y->t0 ? -1 : 1;
  if (x->t1 != y->t1) return x->t1 < y->t1 ? -1 : 1;
  return 0;
}

/* The interpreter of the set (made on its first batch), or NULL when the
 * table is full. */
static interpreter *find(am_cuda_interpreters *all, const am_kernel_key *keys, int count) {
  interpreter *it = NULL;
  for (int i = 0; i < all->count && !it; i++)
    if (all->set[i].count == count && memcmp(all->set[i].keys, keys, count * sizeof *keys) == 0)
      it = &all->set[i];
  if (!it) {
    if (all->count == AM_CUDA_INTERPRETERS) return NULL;
    it = &all->set[all->count++];
    it->count = count;
    memcpy(it->keys, keys, count * sizeof *keys);
  }
  return it;
}

/* The interpreter's entry, compiling it on the set's
 * AM_CUDA_INTERPRETER_AFTER-th batch; NULL while the set keeps to graphs. */
static CUfunction entry_of(am_cuda_device *cuda, interpreter *it, const am_kernel_key *keys,
                           int count) {
  if (it->entry || it->cannot_compile || ++it->seen < AM_CUDA_INTERPRETER_AFTER) return it->entry;
  am_err ignored;
  am_err_init(&ignored, "am_batch_end");
  char *source = NULL;
  void *entry = NULL;
  int status = am_batch_source(&ignored, keys, count, &source);
  if (status == AM_OK) {
    pthread_mutex_lock(&cuda->gpu.compile_lock);
    status = am_gpu_kernel_of_source(&ignored, &cuda->gpu, source, AM_BATCH_ENTRY, &entry);
    pthread_mutex_unlock(&cuda->gpu.compile_lock);
  }
  if (status != AM_OK) it->cannot_compile = 1;
  it->entry = entry;
  return it->entry;
}

int am_cuda_interpret(am_cuda_device *cuda, am_cuda_interpreters *all, const am_kernel_key *keys,
                      am_batch_params *params, int count) {
  if (!all || count < AM_CUDA_INTERPRETER_FROM || count > AM_BATCH_OPS) return AM_EUNSUPPORTED;
  am_kernel_key set[AM_BATCH_OPS];
  memcpy(set, keys, count * sizeof *keys);
  qsort(set, (size_t)count, sizeof set[0], key_order);
  int distinct = 0;
  for (int i = 0; i < count; i++)
    if (distinct == 0 || key_order(&set[distinct - 1], &set[i]) != 0) set[distinct++] = set[i];
  interpreter *it = find(all, set, distinct);
  CUfunction entry = it ? entry_of(cuda, it, set, distinct) : NULL;
  if (!entry) return AM_EUNSUPPORTED;
  for (int i = 0; i < count; i++) {
    const am_kernel_key *found = bsearch(&keys[i], set, (size_t)distinct, sizeof set[0], key_order);
    params->op[i].kernel = (uint32_t)(found - set);
  }
  void *parameters[] = {params};
  CUresult result = cuda->cu->cuLaunchKernel(entry, (unsigned int)count, 1, 1, AM_GPU_BLOCK, 1, 1,
                                             0, cuda->stream, parameters, NULL);
  if (result == CUDA_SUCCESS) return AM_OK;
  /* Not launched (resources, say): this set keeps to graphs, which report a
   * failure of the device itself. */
  it->cannot_compile = 1;
  it->entry = NULL;
  return AM_EUNSUPPORTED;
}
