/* Device handles and the process-wide default device. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"

enum { AM_MAX_DEVICES = 64 };

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static am_device *opened[AM_MAX_DEVICES];
static int opened_count;

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static _Atomic(am_device *) default_device;

AM_EXPORT int am_backend_count(void) { return am_registry_count(); }

AM_EXPORT const char *am_backend_name(int index) {
  const am_backend *backend = am_registry_backend(index);
  return backend ? backend->name : NULL;
}

static int backend_probe(am_err *err, const char *name) {
  AM_REQUIRE(name, "name");
  const am_backend *backend = am_registry_find(name, strlen(name));
  if (!backend) return am_fail(err, AM_EINVAL, "unknown backend '%s'", name);
  return am_registry_probe(err, backend);
}

AM_EXPORT int am_backend_probe(const char *name) {
  AM_API_BEGIN;
  AM_API_RETURN(backend_probe(err, name));
}

/* Parses "cuda:1" into backend and ordinal; opens it under the registry lock. */
int am_open_device(am_err *err, const char *spec, am_device **out) {
  const char *colon = strchr(spec, ':');
  size_t name_length = colon ? (size_t)(colon - spec) : strlen(spec);
  int ordinal = 0;
  if (colon) {
    char *end = NULL;
    long parsed = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || parsed < 0 || parsed > 1024)
      return am_fail(err, AM_EINVAL, "bad device ordinal in '%s'", spec);
    ordinal = (int)parsed;
  }
  const am_backend *backend = am_registry_find(spec, name_length);
  if (!backend) return am_fail(err, AM_EINVAL, "unknown backend in '%s'", spec);
  if (backend == am_host_device()->backend && ordinal == 0) {
    *out = am_host_device();
    return AM_OK;
  }
  int status = am_registry_probe(err, backend);
  if (status != AM_OK) return status;
  if (ordinal >= backend->device_count())
    return am_fail(err, AM_EINVAL, "'%s': the %s backend has %d device(s)", spec, backend->name,
                   backend->device_count());
  pthread_mutex_lock(&registry_lock);
  for (int i = 0; i < opened_count; i++) {
    if (opened[i]->backend == backend && opened[i]->ordinal == ordinal) {
      *out = opened[i];
      pthread_mutex_unlock(&registry_lock);
      return AM_OK;
    }
  }
  am_device *device = calloc(1, sizeof *device);
  if (!device || opened_count == AM_MAX_DEVICES) {
    pthread_mutex_unlock(&registry_lock);
    free(device);
    return am_fail(err, AM_ENOMEM, "cannot open another device");
  }
  device->backend = backend;
  device->ordinal = ordinal;
  snprintf(device->name, sizeof device->name, "%s:%d", backend->name, ordinal);
  status = backend->open_device(err, device);
  if (status == AM_OK) {
    opened[opened_count++] = device;
    *out = device;
  } else {
    free(device);
  }
  pthread_mutex_unlock(&registry_lock);
  return status;
}

static int device_open(am_err *err, const char *spec, am_device **out) {
  AM_REQUIRE(spec, "spec");
  AM_REQUIRE(out, "out");
  return am_open_device(err, spec, out);
}

AM_EXPORT int am_device_open(const char *spec, am_device **out) {
  AM_API_BEGIN;
  AM_API_RETURN(device_open(err, spec, out));
}

/* Why ARROWMETAL_BACKEND could not be honoured (status AM_OK: it was, or it
 * is unset). Written once, under default_once. */
static int default_status = AM_OK;
static char default_message[1024];

/* ARROWMETAL_BACKEND picks the default device. When it names a device that
 * cannot be opened here, the setting is an error, not a quiet move to the
 * CPU: calls given no device fail with the reason (am_default_device_for),
 * and am_config_check reports it. am_default_device() still returns the CPU
 * then, as it never returns NULL. */
static void choose_default(void) {
  am_device *device = am_host_device();
  const char *spec = getenv("ARROWMETAL_BACKEND");
  if (spec && *spec) {
    am_err err;
    am_err_init(&err, "ARROWMETAL_BACKEND");
    am_device *chosen = NULL;
    int status = am_open_device(&err, spec, &chosen);
    if (status == AM_OK) {
      device = chosen;
    } else {
      default_status = status;
      snprintf(default_message, sizeof default_message,
               "ARROWMETAL_BACKEND=%.200s cannot be used: %.480s (unset it to compute on the CPU)",
               spec, err.message);
    }
  }
  atomic_store(&default_device, device);
}

int am_default_device_for(am_err *err, am_device **out) {
  pthread_once(&default_once, choose_default);
  *out = atomic_load_explicit(&default_device, memory_order_acquire);
  if (default_status != AM_OK) return am_fail(err, default_status, "%s", default_message);
  return AM_OK;
}

AM_EXPORT am_device *am_default_device(void) {
  pthread_once(&default_once, choose_default);
  return atomic_load_explicit(&default_device, memory_order_acquire);
}

static int set_default(am_err *err, am_device *device) {
  AM_REQUIRE(device, "device");
  pthread_once(&default_once, choose_default);
  atomic_store(&default_device, device);
  return AM_OK;
}

AM_EXPORT int am_set_default_device(am_device *device) {
  AM_API_BEGIN;
  AM_API_RETURN(set_default(err, device));
}

AM_EXPORT const char *am_device_name(const am_device *device) {
  return device ? device->name : NULL;
}

AM_EXPORT const char *am_device_backend(const am_device *device) {
  return device ? device->backend->name : NULL;
}

int am_same_device(am_err *err, const am_array *left, const am_array *right) {
  if (left->device == right->device) return AM_OK;
  return am_fail(err, AM_EINVAL, "arrays live on different devices (%s and %s)", left->device->name,
                 right->device->name);
}

int am_opened_devices(am_device **devices, int capacity) {
  pthread_mutex_lock(&registry_lock);
  int count = opened_count < capacity ? opened_count : capacity;
  memcpy(devices, opened, (size_t)count * sizeof *devices);
  pthread_mutex_unlock(&registry_lock);
  return count;
}

static int device_sync(am_err *err, am_device *device) {
  AM_REQUIRE(device, "device");
  return device->backend->queue.sync(err, device);
}

AM_EXPORT int am_device_sync(am_device *device) {
  AM_API_BEGIN;
  AM_API_RETURN(device_sync(err, device));
}

static int wait_stream(am_err *err, am_device *device, uintptr_t stream) {
  AM_REQUIRE(device, "device");
  return device->backend->queue.wait_stream(err, device, stream);
}

AM_EXPORT int am_device_wait_stream(am_device *device, uintptr_t stream) {
  AM_API_BEGIN;
  AM_API_RETURN(wait_stream(err, device, stream));
}
