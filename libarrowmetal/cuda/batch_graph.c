/* A batch's launches sent as one CUDA graph.
 *
 * Why: inside a batch each op still cost its own cuLaunchKernel, the larger
 * part of a small op's time on the host (issue #14: ten small ops in a batch
 * took 43-60 us from C on an H200, a graph of ten kernels 11.7 us). Here the
 * launches of a batch are held back and go out as one graph: a chain of k
 * kernel nodes, instantiated once for each k and kept for the device's life,
 * whose nodes get the new launches' parameters (function, grid and argument
 * block may all change, cuGraphExecKernelNodeSetParams) before the one
 * cuGraphLaunch. Changing parameters only affects later launches of the
 * instance, so one still running is unharmed.
 *
 * Order: the nodes run one after another, as the launches would have on the
 * stream (ops share the scratch area and read each other's results).
 * Whatever else goes on the stream or waits for it submits the held-back
 * launches first (hooks.c, memory.c, wait.c), and a free waits in a list
 * until they have gone out, since one of them may still read the memory.
 * The first batch of each length pays for building its graph (measured in
 * benchmarks/results). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"

/* Launches per graph: a longer batch goes out as several graphs. */
enum { AM_CUDA_GRAPH_MAX = 32 };

typedef struct graph_chain {
  CUgraph graph;
  CUgraphExec exec;
  CUgraphNode nodes[AM_CUDA_GRAPH_MAX];
} graph_chain;

struct am_cuda_deferred {
  pthread_mutex_t lock;
  int enabled;      /* ARROWMETAL_BATCH_GRAPHS is not 0 */
  atomic_int count; /* launches held back; written under the lock */
  CUfunction function[AM_CUDA_GRAPH_MAX];
  unsigned int blocks[AM_CUDA_GRAPH_MAX];
  am_gpu_args args[AM_CUDA_GRAPH_MAX];
  graph_chain *chains[AM_CUDA_GRAPH_MAX + 1]; /* by length, built on first use */
  CUdeviceptr *frees;                         /* waiting for the launches */
  int free_count, free_capacity;
};

void am_cuda_deferred_init(am_cuda_device *cuda) {
  am_cuda_deferred *deferred = calloc(1, sizeof *deferred);
  if (!deferred) return;
  pthread_mutex_init(&deferred->lock, NULL);
  const char *setting = getenv("ARROWMETAL_BATCH_GRAPHS");
  deferred->enabled = !(setting && strcmp(setting, "0") == 0);
  cuda->deferred = deferred;
}

static am_cuda_kernel_node node_of(const am_cuda_deferred *deferred, int i, void **parameters) {
  *parameters = (void *)&deferred->args[i];
  return (am_cuda_kernel_node){
      .func = deferred->function[i],
      .gridDimX = deferred->blocks[i],
      .gridDimY = 1,
      .gridDimZ = 1,
      .blockDimX = AM_GPU_BLOCK,
      .blockDimY = 1,
      .blockDimZ = 1,
      .kernelParams = parameters,
  };
}

static CUresult launch_one(am_cuda_device *cuda, CUfunction function, unsigned int blocks,
                           am_gpu_args *args) {
  void *parameters[] = {args};
  return cuda->cu->cuLaunchKernel(function, blocks, 1, 1, AM_GPU_BLOCK, 1, 1, 0, cuda->stream,
                                  parameters, NULL);
}

static void destroy_chain(const am_cuda_driver *cu, graph_chain *chain) {
  if (chain->exec) cu->cuGraphExecDestroy(chain->exec);
  if (chain->graph) cu->cuGraphDestroy(chain->graph);
  free(chain);
}

/* The chain of the held-back launches' length, built from their parameters
 * (so a new one needs no update), or NULL when the driver would not build
 * it (the launches then go out one by one). */
static graph_chain *build_chain(am_cuda_device *cuda, am_cuda_deferred *deferred, int length) {
  const am_cuda_driver *cu = cuda->cu;
  graph_chain *chain = calloc(1, sizeof *chain);
  if (!chain) return NULL;
  CUresult result = cu->cuGraphCreate(&chain->graph, 0);
  for (int i = 0; i < length && result == CUDA_SUCCESS; i++) {
    void *parameters[1];
    am_cuda_kernel_node node = node_of(deferred, i, parameters);
    result = cu->cuGraphAddKernelNode(&chain->nodes[i], chain->graph,
                                      i ? &chain->nodes[i - 1] : NULL, i ? 1 : 0, &node);
  }
  if (result == CUDA_SUCCESS)
    result = cu->cuGraphInstantiateWithFlags(&chain->exec, chain->graph, 0);
  if (result != CUDA_SUCCESS) {
    destroy_chain(cu, chain);
    return NULL;
  }
  deferred->chains[length] = chain;
  return chain;
}

/* With the lock held: the held-back launches, as a graph when there are
 * several, then the frees that waited for them. */
static int submit_locked(am_err *err, am_cuda_device *cuda, am_cuda_deferred *deferred) {
  const am_cuda_driver *cu = cuda->cu;
  int length = atomic_load_explicit(&deferred->count, memory_order_relaxed);
  CUresult result = CUDA_SUCCESS;
  int sent = 0;
  if (length > 1) {
    graph_chain *chain = deferred->chains[length];
    if (chain) {
      for (int i = 0; i < length && result == CUDA_SUCCESS; i++) {
        void *parameters[1];
        am_cuda_kernel_node node = node_of(deferred, i, parameters);
        result = cu->cuGraphExecKernelNodeSetParams(chain->exec, chain->nodes[i], &node);
      }
    } else {
      chain = build_chain(cuda, deferred, length);
    }
    if (chain && result == CUDA_SUCCESS) {
      result = cu->cuGraphLaunch(chain->exec, cuda->stream);
      sent = result == CUDA_SUCCESS;
    }
  }
  /* One launch, or a graph the driver would not take: one by one. */
  if (!sent) {
    result = CUDA_SUCCESS;
    for (int i = 0; i < length && result == CUDA_SUCCESS; i++)
      result = launch_one(cuda, deferred->function[i], deferred->blocks[i], &deferred->args[i]);
  }
  atomic_store_explicit(&deferred->count, 0, memory_order_relaxed);
  for (int i = 0; i < deferred->free_count; i++)
    cu->cuMemFreeAsync(deferred->frees[i], cuda->stream);
  deferred->free_count = 0;
  return result == CUDA_SUCCESS
             ? AM_OK
             : am_cuda_fail(err, result, sent ? "cuGraphLaunch" : "cuLaunchKernel");
}

int am_cuda_submit(am_err *err, am_cuda_device *cuda) {
  am_cuda_deferred *deferred = cuda->deferred;
  if (!am_cuda_deferred_pending(cuda)) return AM_OK;
  int pushed = am_cuda_enter(cuda);
  pthread_mutex_lock(&deferred->lock);
  int status = submit_locked(err, cuda, deferred);
  pthread_mutex_unlock(&deferred->lock);
  am_cuda_leave(cuda, pushed);
  return status;
}

int am_cuda_deferred_pending(am_cuda_device *cuda) {
  return cuda->deferred && atomic_load_explicit(&cuda->deferred->count, memory_order_relaxed) > 0;
}

int am_cuda_defer_launch(am_err *err, am_cuda_device *cuda, void *kernel, int blocks,
                         const am_gpu_args *args) {
  am_cuda_deferred *deferred = cuda->deferred;
  if (!deferred || !deferred->enabled) {
    CUresult result = launch_one(cuda, kernel, (unsigned int)blocks, (am_gpu_args *)args);
    return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuLaunchKernel");
  }
  pthread_mutex_lock(&deferred->lock);
  int status = AM_OK;
  if (atomic_load_explicit(&deferred->count, memory_order_relaxed) == AM_CUDA_GRAPH_MAX)
    status = submit_locked(err, cuda, deferred);
  if (status == AM_OK) {
    int i = atomic_load_explicit(&deferred->count, memory_order_relaxed);
    deferred->function[i] = kernel;
    deferred->blocks[i] = (unsigned int)blocks;
    deferred->args[i] = *args;
    atomic_store_explicit(&deferred->count, i + 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&deferred->lock);
  return status;
}

void am_cuda_free_after_launches(am_cuda_device *cuda, CUdeviceptr pointer) {
  am_cuda_deferred *deferred = cuda->deferred;
  if (deferred) {
    pthread_mutex_lock(&deferred->lock);
    int held = atomic_load_explicit(&deferred->count, memory_order_relaxed) > 0;
    if (held && deferred->free_count == deferred->free_capacity) {
      int capacity = deferred->free_capacity ? deferred->free_capacity * 2 : 64;
      CUdeviceptr *grown = realloc(deferred->frees, (size_t)capacity * sizeof *grown);
      if (grown) {
        deferred->frees = grown;
        deferred->free_capacity = capacity;
      } else { /* no room to wait: send the launches now, then free */
        am_err ignored;
        am_err_init(&ignored, "am_release");
        submit_locked(&ignored, cuda, deferred);
        held = 0;
      }
    }
    if (held) deferred->frees[deferred->free_count++] = pointer;
    pthread_mutex_unlock(&deferred->lock);
    if (held) return;
  }
  cuda->cu->cuMemFreeAsync(pointer, cuda->stream);
}
