#include "nvrtc.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "core/error.h"

typedef struct _nvrtcProgram *nvrtcProgram;

static struct {
  int (*nvrtcVersion)(int *major, int *minor);
  const char *(*nvrtcGetErrorString)(int result);
  int (*nvrtcCreateProgram)(nvrtcProgram *program, const char *source, const char *name,
                            int header_count, const char *const *headers,
                            const char *const *include_names);
  int (*nvrtcCompileProgram)(nvrtcProgram program, int option_count, const char *const *options);
  int (*nvrtcGetCUBINSize)(nvrtcProgram program, size_t *size);
  int (*nvrtcGetCUBIN)(nvrtcProgram program, char *cubin);
  int (*nvrtcGetProgramLogSize)(nvrtcProgram program, size_t *size);
  int (*nvrtcGetProgramLog)(nvrtcProgram program, char *log);
  int (*nvrtcDestroyProgram)(nvrtcProgram *program);
} api;

static int load_status = -1;
static char load_reason[512];
static char version_text[32];
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Options that change the generated code are part of the cache key. */
#define OPTIONS_TEXT "-std=c++17 -default-device"
static const char *const base_options[] = {"-std=c++17", "-default-device"};

static void *open_library(void) {
  const char *explicit_path = getenv("ARROWMETAL_NVRTC");
  if (explicit_path && *explicit_path) return dlopen(explicit_path, RTLD_NOW | RTLD_LOCAL);
  static const char *const candidates[] = {"libnvrtc.so.13",
                                           "libnvrtc.so.12",
                                           "libnvrtc.so",
                                           "/usr/local/cuda/lib64/libnvrtc.so.13",
                                           "/usr/local/cuda/lib64/libnvrtc.so.12",
                                           "/usr/local/cuda/lib64/libnvrtc.so",
                                           NULL};
  for (const char *const *name = candidates; *name; name++) {
    void *library = dlopen(*name, RTLD_NOW | RTLD_LOCAL);
    if (library) return library;
  }
  return NULL;
}

static void load(void) {
  load_status = AM_EUNSUPPORTED;
  void *library = open_library();
  if (!library) {
    snprintf(load_reason, sizeof load_reason,
             "NVRTC not found: set ARROWMETAL_NVRTC to libnvrtc.so, install the CUDA toolkit, or "
             "pip install nvidia-cuda-nvrtc (%s)",
             dlerror());
    return;
  }
#define RESOLVE(name)                                                                              \
  if (!(*(void **)&api.name = dlsym(library, #name))) {                                            \
    snprintf(load_reason, sizeof load_reason, "NVRTC lacks %s (too old for CUBIN output)", #name); \
    return;                                                                                        \
  }
  RESOLVE(nvrtcVersion);
  RESOLVE(nvrtcGetErrorString);
  RESOLVE(nvrtcCreateProgram);
  RESOLVE(nvrtcCompileProgram);
  RESOLVE(nvrtcGetCUBINSize);
  RESOLVE(nvrtcGetCUBIN);
  RESOLVE(nvrtcGetProgramLogSize);
  RESOLVE(nvrtcGetProgramLog);
  RESOLVE(nvrtcDestroyProgram);
#undef RESOLVE
  int major = 0, minor = 0;
  api.nvrtcVersion(&major, &minor);
  snprintf(version_text, sizeof version_text, "%d.%d", major, minor);
  load_status = AM_OK;
}

int am_nvrtc_load(am_err *err) {
  pthread_once(&load_once, load);
  if (load_status != AM_OK) return am_fail(err, AM_EUNSUPPORTED, "%s", load_reason);
  return AM_OK;
}

const char *am_nvrtc_version(void) { return version_text; }

const char *am_nvrtc_options(void) { return OPTIONS_TEXT; }

int am_nvrtc_compile(am_err *err, const char *source, const char *name, int arch, void **image,
                     size_t *size) {
  int status = am_nvrtc_load(err);
  if (status != AM_OK) return status;
  nvrtcProgram program = NULL;
  int result = api.nvrtcCreateProgram(&program, source, name, 0, NULL, NULL);
  if (result != 0)
    return am_fail(err, AM_EDEVICE, "nvrtcCreateProgram: %s", api.nvrtcGetErrorString(result));
  char arch_option[32];
  snprintf(arch_option, sizeof arch_option, "-arch=sm_%d", arch);
  const char *options[3] = {arch_option, base_options[0], base_options[1]};
  result = api.nvrtcCompileProgram(program, 3, options);
  if (result != 0) {
    size_t log_size = 0;
    api.nvrtcGetProgramLogSize(program, &log_size);
    char *log = malloc(log_size + 1);
    if (log) {
      api.nvrtcGetProgramLog(program, log);
      log[log_size] = '\0';
    }
    status = am_fail(err, AM_EDEVICE, "NVRTC could not compile %s: %s", name, log ? log : "");
    free(log);
    api.nvrtcDestroyProgram(&program);
    return status;
  }
  size_t cubin_size = 0;
  api.nvrtcGetCUBINSize(program, &cubin_size);
  void *cubin = malloc(cubin_size ? cubin_size : 1);
  if (!cubin) {
    api.nvrtcDestroyProgram(&program);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  api.nvrtcGetCUBIN(program, cubin);
  api.nvrtcDestroyProgram(&program);
  *image = cubin;
  *size = cubin_size;
  return AM_OK;
}
