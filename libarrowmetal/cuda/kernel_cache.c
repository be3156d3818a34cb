/* Compiled kernels of one CUDA device: looked up without a lock once
 * loaded; on a miss the source is generated (only then), the disk cache is
 * asked, and NVRTC compiles what it does not have. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/disk_cache.h"
#include "core/error.h"
#include "core/kernel_stats.h"
#include "cuda.h"
#include "nvrtc.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int slot_of(const am_kernel_key *key) {
  return (((int)key->kind * 8 + key->op) * AM_TYPE_COUNT + (int)key->t0) * AM_TYPE_COUNT +
         (int)key->t1;
}

/* Loads the CUBIN for `key`, from disk or compiled; with the compile lock
 * and the context held. */
static int build(am_cuda_device *cuda, const am_kernel_key *key, CUfunction *out) {
  char *source = NULL;
  int status = am_kernel_source(AM_DIALECT_CUDA, key, &source);
  if (status != AM_OK) return status;
  char name[64], arch[16];
  am_kernel_name(key, name, sizeof name);
  snprintf(arch, sizeof arch, "sm_%d", cuda->arch);
  const char *parts[] = {source, am_nvrtc_options(), arch, am_nvrtc_version()};
  am_cache_key cache_key = am_cache_key_of(parts, 4);
  void *image = NULL;
  size_t size = 0;
  int64_t started = now_ns();
  int from_disk = am_disk_cache_get("cuda", cache_key, &image, &size);
  if (!from_disk) {
    status = am_nvrtc_compile(source, name, cuda->arch, &image, &size);
    if (status == AM_OK) {
      am_kernel_stats_compiled(now_ns() - started);
      am_disk_cache_put("cuda", cache_key, image, size);
    }
  }
  free(source);
  if (status != AM_OK) return status;
  int64_t load_started = now_ns();
  CUmodule module = NULL;
  CUresult result = cuda->cu->cuModuleLoadData(&module, image);
  free(image);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuModuleGetFunction(out, module, name);
  if (result != CUDA_SUCCESS) return am_cuda_fail(result, "cuModuleLoadData");
  am_kernel_stats_loaded(now_ns() - (from_disk ? started : load_started));
  return AM_OK;
}

int am_cuda_kernel(am_cuda_device *cuda, const am_kernel_key *key, CUfunction *out) {
  int slot = slot_of(key);
  CUfunction function = atomic_load_explicit(&cuda->kernels[slot], memory_order_acquire);
  if (function) {
    am_kernel_stats_memory_hit();
    *out = function;
    return AM_OK;
  }
  pthread_mutex_lock(&cuda->compile_lock);
  function = atomic_load_explicit(&cuda->kernels[slot], memory_order_acquire);
  int status = AM_OK;
  if (!function) {
    status = build(cuda, key, &function);
    if (status == AM_OK)
      atomic_store_explicit(&cuda->kernels[slot], function, memory_order_release);
  }
  pthread_mutex_unlock(&cuda->compile_lock);
  if (status == AM_OK) *out = function;
  return status;
}

int am_cuda_launch(am_cuda_device *cuda, const am_kernel_key *key, am_gpu_args *args) {
  CUfunction function = NULL;
  int status = am_cuda_kernel(cuda, key, &function);
  if (status != AM_OK) return status;
  unsigned blocks = (unsigned)am_kernel_blocks(key, args->n, cuda->multiprocessors);
  void *parameters[] = {args};
  CUresult result = cuda->cu->cuLaunchKernel(function, blocks, 1, 1, AM_GPU_BLOCK, 1, 1, 0,
                                             cuda->stream, parameters, NULL);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(result, "cuLaunchKernel");
}
