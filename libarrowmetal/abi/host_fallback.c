/* The host fallback of host_fallback.h. */
#include "host_fallback.h"

#include <stdlib.h>

#include "route.h"

static int same_device(const am_array *const *inputs, int64_t n) {
  const am_device *device = NULL;
  for (int64_t i = 0; i < n; i++) {
    if (!inputs[i]) continue;
    if (device && inputs[i]->device != device) return 0;
    device = inputs[i]->device;
  }
  return 1;
}

static int on_host(am_err *err, const am_array *const *inputs, int64_t n, am_fallback_kernel kernel,
                   void *call) {
  am_array **host = calloc((size_t)(n ? n : 1), sizeof *host);
  if (!host) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = AM_OK;
  for (int64_t i = 0; i < n && status == AM_OK; i++)
    if (inputs[i]) status = am_to_host(err, inputs[i], &host[i]);
  if (status == AM_OK) status = kernel(err, (const am_array *const *)host, call);
  for (int64_t i = 0; i < n; i++) am_array_free(host[i]);
  free(host);
  return status;
}

/* Whether a string input lives on a GPU: no GPU kernel of these calls takes
 * strings yet, so they run on the host. */
static int gpu_strings(const am_array *const *inputs, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (inputs[i] && am_type_is_binary(inputs[i]->type) &&
        !(inputs[i]->device->backend->memory.caps & AM_MEMORY_HOST))
      return 1;
  return 0;
}

int am_run_here_or_on_host(am_err *err, const am_array *const *inputs, int64_t n,
                           am_fallback_kernel kernel, void *call) {
  if (!same_device(inputs, n) || gpu_strings(inputs, n))
    return on_host(err, inputs, n, kernel, call);
  am_err tried;
  am_err_init(&tried, err->entry);
  int status = kernel(&tried, inputs, call);
  if (status != AM_EUNSUPPORTED) {
    am_err_merge(err, &tried, 1);
    return status;
  }
  am_err_merge(err, &tried, 0);
  return on_host(err, inputs, n, kernel, call);
}

int am_move_home(am_err *err, am_array **a, am_device *device) {
  if (!*a || (*a)->device == device) return AM_OK;
  am_array *moved = NULL;
  int status = am_move(err, *a, device, &moved);
  if (status != AM_OK) return status;
  am_array_free(*a);
  *a = moved;
  return AM_OK;
}

int am_deliver_home(am_err *err, int status, am_array **result, am_device *home, am_array **out) {
  if (status == AM_OK) status = am_move_home(err, result, home);
  if (status == AM_OK) {
    *out = *result;
    *result = NULL;
  }
  am_array_free(*result);
  *result = NULL;
  return status;
}
