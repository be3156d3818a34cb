/* A batch's launches sent as one CUDA graph.
 *
 * Why: inside a batch each op still cost its own cuLaunchKernel, most of a
 * small op's time on the host (issue #14: ten small ops in a batch took
 * 43-69 us from C, 60 of them in the ten calls; a graph of ten kernels
 * 11.7 us). Here the launches of a batch are held back and go out as one
 * graph, one node per launch. A node waits only for the earlier nodes whose
 * footprints (gpu/launch_footprint.h) conflict with its own, so independent
 * ops run side by side; a launch whose footprint is not described waits for
 * all before it, and all after it wait for it. The graph of each shape (its
 * length and which node waits for which) is instantiated once and kept (the
 * AM_CUDA_GRAPHS_KEPT most recently used); a later batch of that shape sets
 * the nodes whose function, grid or argument block changed
 * (cuGraphExecKernelNodeSetParams, which leaves launches already made
 * alone) and launches it.
 *
 * Order: whatever else goes on the stream or waits for it submits the
 * held-back launches first (hooks.c, memory.c, wait.c), and a free waits in
 * a list until they have gone out, since one of them may still read the
 * memory. The first batch of a new shape pays for building its graph
 * (measured in benchmarks/results).
 *
 * Failures: a graph the driver will not build or update turns graphs off for
 * the device (the launches go out one by one from then on). Launches that
 * cannot be sent at all are lost to ops that have already returned, whose
 * results would be wrong: that marks the device broken (sticky). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cuda.h"
#include "gpu/launch_footprint.h"

/* Launches per graph (a longer batch goes out as several graphs), and
 * graphs kept. */
enum { AM_CUDA_GRAPH_MAX = 32, AM_CUDA_GRAPHS_KEPT = 64 };

typedef struct held_launch {
  am_kernel_key key;
  CUfunction function;
  unsigned int blocks;
  am_gpu_args args;
  int range_count; /* -1: not described, ordered with everything */
  am_gpu_range ranges[AM_GPU_FOOTPRINT_MAX];
} held_launch;

/* Bit j of after[i]: node i waits for node j (j < i). */
typedef struct graph_shape {
  int length;
  uint32_t after[AM_CUDA_GRAPH_MAX];
} graph_shape;

/* A free waiting for the held-back launches, and the bytes it gives back to
 * the device's memory counters when it goes out. */
typedef struct waiting_free {
  CUdeviceptr pointer;
  int64_t bytes;
} waiting_free;

typedef struct kept_graph {
  graph_shape shape;
  CUgraph graph;
  CUgraphExec exec;
  uint64_t used; /* the clock at its last launch */
  CUgraphNode nodes[AM_CUDA_GRAPH_MAX];
  /* What each node was last given. */
  CUfunction function[AM_CUDA_GRAPH_MAX];
  unsigned int blocks[AM_CUDA_GRAPH_MAX];
  am_gpu_args args[AM_CUDA_GRAPH_MAX];
} kept_graph;

struct am_cuda_deferred {
  pthread_mutex_t lock;
  int enabled;      /* ARROWMETAL_BATCH_GRAPHS is not 0, the driver has graphs,
                       none has failed */
  atomic_int count; /* launches held back; written under the lock */
  held_launch held[AM_CUDA_GRAPH_MAX];
  graph_shape shape; /* of the held launches */
  kept_graph *kept[AM_CUDA_GRAPHS_KEPT];
  int kept_count;
  uint64_t clock;
  waiting_free *frees; /* waiting for the held-back launches */
  int free_count, free_capacity;
  am_cuda_interpreters *interpreters; /* batch_interpreter.c; NULL: off */
};

void am_cuda_deferred_init(am_cuda_device *cuda) {
  am_cuda_deferred *deferred = calloc(1, sizeof *deferred);
  if (!deferred) return;
  pthread_mutex_init(&deferred->lock, NULL);
  const char *setting = getenv("ARROWMETAL_BATCH_GRAPHS");
  const am_cuda_driver *cu = cuda->cu;
  deferred->enabled = !(setting && strcmp(setting, "0") == 0) && cu->cuGraphCreate &&
                      cu->cuGraphDestroy && cu->cuGraphAddKernelNode &&
                      cu->cuGraphInstantiateWithFlags && cu->cuGraphExecKernelNodeSetParams &&
                      cu->cuGraphLaunch && cu->cuGraphExecDestroy;
  deferred->interpreters = am_cuda_interpreters_new();
  cuda->deferred = deferred;
}

static am_cuda_kernel_node node_of(CUfunction function, unsigned int blocks, am_gpu_args *args,
                                   void **parameters) {
  *parameters = args;
  return (am_cuda_kernel_node){
      .func = function,
      .gridDimX = blocks,
      .gridDimY = 1,
      .gridDimZ = 1,
      .blockDimX = AM_GPU_BLOCK,
      .blockDimY = 1,
      .blockDimZ = 1,
      .kernelParams = parameters,
  };
}

int am_cuda_launch_now(am_err *err, am_cuda_device *cuda, void *kernel, int blocks,
                       const am_gpu_args *args) {
  void *parameters[] = {(void *)args};
  CUresult result = cuda->cu->cuLaunchKernel((CUfunction)kernel, (unsigned int)blocks, 1, 1,
                                             AM_GPU_BLOCK, 1, 1, 0, cuda->stream, parameters, NULL);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuLaunchKernel");
}

static void destroy_graph(const am_cuda_driver *cu, kept_graph *kept) {
  if (kept->exec) cu->cuGraphExecDestroy(kept->exec); /* freed once a launch in flight ends */
  if (kept->graph) cu->cuGraphDestroy(kept->graph);
  free(kept);
}

static kept_graph *find_graph(am_cuda_deferred *deferred) {
  const graph_shape *shape = &deferred->shape;
  size_t bytes = (size_t)shape->length * sizeof shape->after[0];
  for (int i = 0; i < deferred->kept_count; i++) {
    kept_graph *kept = deferred->kept[i];
    if (kept->shape.length == shape->length && memcmp(kept->shape.after, shape->after, bytes) == 0)
      return kept;
  }
  return NULL;
}

/* Keeps `kept`, in place of the least recently used graph when full. */
static void keep_graph(const am_cuda_driver *cu, am_cuda_deferred *deferred, kept_graph *kept) {
  if (deferred->kept_count < AM_CUDA_GRAPHS_KEPT) {
    deferred->kept[deferred->kept_count++] = kept;
    return;
  }
  int oldest = 0;
  for (int i = 1; i < deferred->kept_count; i++)
    if (deferred->kept[i]->used < deferred->kept[oldest]->used) oldest = i;
  destroy_graph(cu, deferred->kept[oldest]);
  deferred->kept[oldest] = kept;
}

/* The graph of the held launches' shape, built with their parameters, or
 * NULL when the driver would not build it (they then go out one by one). */
static kept_graph *build_graph(am_cuda_device *cuda, am_cuda_deferred *deferred) {
  const am_cuda_driver *cu = cuda->cu;
  kept_graph *kept = calloc(1, sizeof *kept);
  if (!kept) return NULL;
  kept->shape = deferred->shape;
  CUresult result = cu->cuGraphCreate(&kept->graph, 0);
  for (int i = 0; i < kept->shape.length && result == CUDA_SUCCESS; i++) {
    held_launch *launch = &deferred->held[i];
    CUgraphNode waits_for[AM_CUDA_GRAPH_MAX];
    int count = 0;
    for (int j = 0; j < i; j++)
      if (kept->shape.after[i] >> j & 1) waits_for[count++] = kept->nodes[j];
    void *parameters[1];
    am_cuda_kernel_node node = node_of(launch->function, launch->blocks, &launch->args, parameters);
    result = cu->cuGraphAddKernelNode(&kept->nodes[i], kept->graph, count ? waits_for : NULL,
                                      (size_t)count, &node);
    kept->function[i] = launch->function;
    kept->blocks[i] = launch->blocks;
    kept->args[i] = launch->args;
  }
  if (result == CUDA_SUCCESS) result = cu->cuGraphInstantiateWithFlags(&kept->exec, kept->graph, 0);
  if (result != CUDA_SUCCESS) {
    destroy_graph(cu, kept);
    return NULL;
  }
  keep_graph(cu, deferred, kept);
  return kept;
}

/* Gives the kept graph's nodes the held launches' parameters where they
 * differ from what the nodes have. */
static CUresult update_graph(const am_cuda_driver *cu, am_cuda_deferred *deferred,
                             kept_graph *kept) {
  for (int i = 0; i < kept->shape.length; i++) {
    held_launch *launch = &deferred->held[i];
    if (kept->function[i] == launch->function && kept->blocks[i] == launch->blocks &&
        memcmp(&kept->args[i], &launch->args, sizeof launch->args) == 0)
      continue;
    void *parameters[1];
    am_cuda_kernel_node node = node_of(launch->function, launch->blocks, &launch->args, parameters);
    CUresult result = cu->cuGraphExecKernelNodeSetParams(kept->exec, kept->nodes[i], &node);
    if (result != CUDA_SUCCESS) return result;
    kept->function[i] = launch->function;
    kept->blocks[i] = launch->blocks;
    kept->args[i] = launch->args;
  }
  return CUDA_SUCCESS;
}

/* Gives freed memory back in stream order (after what was sent before). */
static void free_now(am_cuda_device *cuda, CUdeviceptr pointer, int64_t bytes) {
  cuda->cu->cuMemFreeAsync(pointer, cuda->stream);
  am_mem_free(&cuda->gpu.device->memory, bytes);
}

/* The held-back launches as one graph: AM_OK, or AM_EUNSUPPORTED when the
 * driver would not build or update it (graphs are then off: the caller
 * sends them one by one), or the failure of cuGraphLaunch. */
static int send_graph(am_err *err, am_cuda_device *cuda, am_cuda_deferred *deferred, int length) {
  const am_cuda_driver *cu = cuda->cu;
  deferred->shape.length = length;
  kept_graph *kept = find_graph(deferred);
  if (kept ? update_graph(cu, deferred, kept) != CUDA_SUCCESS
           : !(kept = build_graph(cuda, deferred))) {
    deferred->enabled = 0;
    return AM_EUNSUPPORTED;
  }
  kept->used = ++deferred->clock;
  CUresult result = cu->cuGraphLaunch(kept->exec, cuda->stream);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuGraphLaunch");
}

/* The held-back launches as one launch of a batch interpreter, where each
 * is one block and none waits for another: AM_OK, or AM_EUNSUPPORTED with
 * nothing sent. */
static int send_interpreted(am_cuda_device *cuda, am_cuda_deferred *deferred, int length) {
  if (!deferred->interpreters || length > AM_BATCH_OPS) return AM_EUNSUPPORTED;
  am_kernel_key keys[AM_BATCH_OPS];
  am_batch_params params;
  for (int i = 0; i < length; i++) {
    const held_launch *launch = &deferred->held[i];
    if (launch->blocks != 1 || deferred->shape.after[i] != 0) return AM_EUNSUPPORTED;
    keys[i] = launch->key;
    params.op[i].pad = 0;
    params.op[i].args = launch->args;
  }
  return am_cuda_interpret(cuda, deferred->interpreters, keys, &params, length);
}

/* With the lock held: the held-back launches, as one interpreter launch or
 * a graph when there are several, then the frees that waited for them. On a
 * broken device they are dropped: nothing runs there any more. */
static int submit_locked(am_err *err, am_cuda_device *cuda, am_cuda_deferred *deferred) {
  int length = atomic_load_explicit(&deferred->count, memory_order_relaxed);
  int status = am_gpu_check_broken(err, &cuda->gpu);
  if (status == AM_OK && length > 1 && deferred->enabled) {
    status = send_interpreted(cuda, deferred, length);
    if (status == AM_EUNSUPPORTED) status = send_graph(err, cuda, deferred, length);
  } else if (status == AM_OK) {
    status = AM_EUNSUPPORTED;
  }
  if (status == AM_EUNSUPPORTED) { /* one launch, or no graph: one by one */
    status = AM_OK;
    for (int i = 0; i < length && status == AM_OK; i++) {
      held_launch *launch = &deferred->held[i];
      status = am_cuda_launch_now(err, cuda, launch->function, (int)launch->blocks, &launch->args);
    }
  }
  /* Launches that did not go out belong to ops that have returned: their
   * results cannot be right, and nothing later could tell. */
  if (status != AM_OK) am_gpu_mark_broken(&cuda->gpu, err->message);
  atomic_store_explicit(&deferred->count, 0, memory_order_relaxed);
  for (int i = 0; i < deferred->free_count; i++)
    free_now(cuda, deferred->frees[i].pointer, deferred->frees[i].bytes);
  deferred->free_count = 0;
  return status;
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

int am_cuda_defer_launch(am_err *err, am_cuda_device *cuda, const am_kernel_key *key, void *kernel,
                         int blocks, const am_gpu_args *args) {
  am_cuda_deferred *deferred = cuda->deferred;
  if (deferred) pthread_mutex_lock(&deferred->lock);
  if (!deferred || !deferred->enabled) { /* then nothing is held back */
    if (deferred) pthread_mutex_unlock(&deferred->lock);
    return am_cuda_launch_now(err, cuda, kernel, blocks, args);
  }
  int status = AM_OK;
  if (atomic_load_explicit(&deferred->count, memory_order_relaxed) == AM_CUDA_GRAPH_MAX)
    status = submit_locked(err, cuda, deferred);
  if (status == AM_OK) {
    int i = atomic_load_explicit(&deferred->count, memory_order_relaxed);
    held_launch *launch = &deferred->held[i];
    launch->key = *key;
    launch->function = kernel;
    launch->blocks = (unsigned int)blocks;
    launch->args = *args;
    launch->range_count = am_gpu_launch_footprint(key, args, launch->ranges);
    uint32_t after = 0;
    for (int j = 0; j < i; j++) {
      const held_launch *earlier = &deferred->held[j];
      if (am_gpu_footprints_conflict(earlier->ranges, earlier->range_count, launch->ranges,
                                     launch->range_count))
        after |= 1u << j;
    }
    deferred->shape.after[i] = after;
    atomic_store_explicit(&deferred->count, i + 1, memory_order_relaxed);
  }
  pthread_mutex_unlock(&deferred->lock);
  return status;
}

void am_cuda_free_after_launches(am_cuda_device *cuda, CUdeviceptr pointer, int64_t bytes) {
  am_cuda_deferred *deferred = cuda->deferred;
  if (deferred) {
    pthread_mutex_lock(&deferred->lock);
    int held = atomic_load_explicit(&deferred->count, memory_order_relaxed) > 0 &&
               !atomic_load(&cuda->gpu.broken); /* a broken device sends nothing */
    if (held && deferred->free_count == deferred->free_capacity) {
      int capacity = deferred->free_capacity ? deferred->free_capacity * 2 : 64;
      waiting_free *grown = realloc(deferred->frees, (size_t)capacity * sizeof *grown);
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
    if (held) deferred->frees[deferred->free_count++] = (waiting_free){pointer, bytes};
    pthread_mutex_unlock(&deferred->lock);
    if (held) return;
  }
  free_now(cuda, pointer, bytes);
}
