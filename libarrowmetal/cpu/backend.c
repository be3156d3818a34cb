/* The CPU backend's function table and its one device. Host memory is the
 * device's memory, so there is nothing to move and no device state. */
#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"

static int cpu_probe(void) { return AM_OK; }
static int cpu_device_count(void) { return 1; }
static int cpu_open_device(am_device *device) {
  (void)device;
  return AM_OK;
}

/* Host memory is this device's memory: moving to or from it shares. */
static int cpu_share(am_device *device, const am_array *host, am_array **out) {
  (void)device;
  *out = am_array_share(host);
  return *out ? AM_OK : am_error(AM_ENOMEM, "out of memory");
}

static int cpu_download(const am_array *array, am_device *host, am_array **out) {
  return cpu_share(host, array, out);
}

/* Every call finishes before it returns. */
static int cpu_sync(am_device *device) {
  (void)device;
  return AM_OK;
}

static int cpu_wait_stream(am_device *device, uintptr_t stream) {
  (void)device;
  (void)stream;
  return am_error(AM_EINVAL, "the cpu device has no streams to wait on");
}

/* Counts from the bitmap whatever null_count says: this is what fills it in. */
static int cpu_count_nulls(const am_array *array, int64_t *out) {
  *out = array->validity
             ? array->length - am_bits_count(array->validity, array->offset, array->length)
             : 0;
  return AM_OK;
}

const am_backend am_cpu_backend = {
    .name = "cpu",
    .device_type = ARROW_DEVICE_CPU,
    .upload = cpu_share,
    .download = cpu_download,
    .sync = cpu_sync,
    .wait_stream = cpu_wait_stream,
    .probe = cpu_probe,
    .device_count = cpu_device_count,
    .open_device = cpu_open_device,
    .count_nulls = cpu_count_nulls,
    .reduce = am_cpu_reduce,
    .compare = am_cpu_compare,
    .arith = am_cpu_arith,
    .cast = am_cpu_cast,
    .logic = am_cpu_logic,
    .filter = am_cpu_filter,
    .take = am_cpu_take,
    .fill = am_cpu_fill,
    .concat = am_cpu_concat,
};

static am_device cpu_device = {&am_cpu_backend, 0, "cpu", NULL};

am_device *am_cpu_device(void) { return &cpu_device; }
