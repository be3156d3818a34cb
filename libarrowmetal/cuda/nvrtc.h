/* NVRTC, the CUDA runtime compiler, loaded at run time. */
#ifndef AM_CUDA_NVRTC_H
#define AM_CUDA_NVRTC_H

#include <stddef.h>

#include "core/error.h"

/* Loads NVRTC once per process. Looks at ARROWMETAL_NVRTC (a path), then the
 * loader's search path (libnvrtc.so.13, .12, libnvrtc.so), then the CUDA
 * toolkit's /usr/local/cuda/lib64. AM_OK or AM_EUNSUPPORTED with the reason. */
int am_nvrtc_load(am_err *err);

/* "13.0" etc.; valid after a successful load. */
const char *am_nvrtc_version(void);

/* Compiles `source` to a CUBIN for sm_<arch> (e.g. 90). On success *image is
 * malloc'd (*size bytes); on failure the message carries the compile log. */
int am_nvrtc_compile(am_err *err, const char *source, const char *name, int arch, void **image,
                     size_t *size);

/* The options am_nvrtc_compile passes, for the cache key. */
const char *am_nvrtc_options(void);

#endif
