/* What the CUDA driver's own calls cost on this GPU, beside which the
 * library's batch and resident paths are measured (issue #14): an idle
 * cuStreamQuery (the resident path's gate), cuCtxGetCurrent, one launch
 * with and without its wait, ten launches, and a graph of ten empty kernels
 * launched as it is and with every node given new parameters
 * (cuGraphExecKernelNodeSetParams, what a batch's graph pays when its
 * results are new buffers). Medians of 2,000, ns. No ArrowMetal code.
 *
 *   cc -O2 benchmarks/driver_costs.c -ldl -o build/driver_costs && build/driver_costs */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef struct {
  void *func;
  unsigned gx, gy, gz, bx, by, bz, shared;
  void **params, **extra;
  void *kern, *ctx;
} node_t;
#define F(name, ...) static int (*name)(__VA_ARGS__)
F(cuInit, unsigned);
F(cuDeviceGet, int *, int);
F(cuDevicePrimaryCtxRetain, void **, int);
F(cuCtxSetCurrent, void *);
F(cuCtxGetCurrent, void **);
F(cuStreamCreate, void **, unsigned);
F(cuStreamQuery, void *);
F(cuStreamSynchronize, void *);
F(cuModuleLoadData, void **, const void *);
F(cuModuleGetFunction, void **, void *, const char *);
F(cuLaunchKernel, void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
  void *, void **, void **);
F(cuGraphCreate, void **, unsigned);
F(cuGraphAddKernelNode, void **, void *, void **, size_t, node_t *);
F(cuGraphInstantiateWithFlags, void **, void *, unsigned long long);
F(cuGraphExecKernelNodeSetParams, void *, void *, node_t *);
F(cuGraphLaunch, void *, void *);
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static const char ptx[] =
    ".version 7.0\n.target sm_70\n.address_size 64\n"
    ".visible .entry k(.param .align 8 .b8 a[144]) { ret; }\n";
enum { REPS = 2000 };
static double t[REPS];
#define TIME(label, body)                                            \
  do {                                                               \
    for (int r = 0; r < REPS; r++) {                                 \
      double s = now();                                              \
      body;                                                          \
      t[r] = now() - s;                                              \
    }                                                                \
    qsort(t, REPS, sizeof t[0], cmp);                                \
    printf("%-44s %8.0f ns (min %.0f)\n", label, t[REPS / 2], t[0]); \
  } while (0)
int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW);
  if (!h) {
    printf("no CUDA driver: %s\n", dlerror());
    return 0;
  }
#define R(name) *(void **)&name = dlsym(h, #name)
  R(cuInit);
  R(cuDeviceGet);
  R(cuDevicePrimaryCtxRetain);
  R(cuCtxSetCurrent);
  R(cuCtxGetCurrent);
  R(cuStreamCreate);
  R(cuStreamQuery);
  R(cuStreamSynchronize);
  R(cuModuleLoadData);
  R(cuModuleGetFunction);
  R(cuLaunchKernel);
  R(cuGraphCreate);
  R(cuGraphInstantiateWithFlags);
  R(cuGraphLaunch);
  *(void **)&cuGraphAddKernelNode = dlsym(h, "cuGraphAddKernelNode_v2");
  *(void **)&cuGraphExecKernelNodeSetParams = dlsym(h, "cuGraphExecKernelNodeSetParams_v2");
  if (!cuGraphAddKernelNode || !cuGraphExecKernelNodeSetParams || !cuGraphInstantiateWithFlags) {
    printf("the driver has no graph entry points used here (CUDA 12 and later)\n");
    return 0;
  }
  int dev;
  void *ctx, *stream, *cur, *mod, *fn, *graph, *exec, *nodes[10];
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuDevicePrimaryCtxRetain(&ctx, dev);
  cuCtxSetCurrent(ctx);
  cuStreamCreate(&stream, 1);
  if (cuModuleLoadData(&mod, ptx) || cuModuleGetFunction(&fn, mod, "k")) {
    printf("module failed\n");
    return 1;
  }
  unsigned char args[10][144];
  memset(args, 0, sizeof args);
  void *params[10][1];
  node_t node[10];
  cuGraphCreate(&graph, 0);
  for (int i = 0; i < 10; i++) {
    params[i][0] = args[i];
    node[i] = (node_t){fn, 1, 1, 1, 256, 1, 1, 0, params[i], NULL, NULL, NULL};
    cuGraphAddKernelNode(&nodes[i], graph, NULL, 0, &node[i]);
  }
  if (cuGraphInstantiateWithFlags(&exec, graph, 0)) {
    printf("instantiate failed\n");
    return 1;
  }
  TIME("cuStreamQuery (idle)", cuStreamQuery(stream));
  TIME("cuCtxGetCurrent", cuCtxGetCurrent(&cur));
  TIME("1 launch + sync", (cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, stream, params[0], NULL),
                           cuStreamSynchronize(stream)));
  TIME("1 launch (no sync)", cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, stream, params[0], NULL));
  cuStreamSynchronize(stream);
  TIME(
      "10 launches + sync", do {
        for (int i = 0; i < 10; i++)
          cuLaunchKernel(fn, 1, 1, 1, 256, 1, 1, 0, stream, params[i], NULL);
        cuStreamSynchronize(stream);
      } while (0));
  TIME("graph of 10, unchanged: launch + sync",
       (cuGraphLaunch(exec, stream), cuStreamSynchronize(stream)));
  TIME("graph of 10, unchanged: launch only", cuGraphLaunch(exec, stream));
  cuStreamSynchronize(stream);
  TIME(
      "10 SetParams (changed args)", do {
        for (int i = 0; i < 10; i++) {
          args[i][0]++;
          cuGraphExecKernelNodeSetParams(exec, nodes[i], &node[i]);
        }
      } while (0));
  TIME(
      "graph of 10, 10 SetParams + launch + sync", do {
        for (int i = 0; i < 10; i++) {
          args[i][0]++;
          cuGraphExecKernelNodeSetParams(exec, nodes[i], &node[i]);
        }
        cuGraphLaunch(exec, stream);
        cuStreamSynchronize(stream);
      } while (0));
  return 0;
}
