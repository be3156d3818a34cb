/* am_memory_info and am_memory_reset_peak: the counters of core/memstats.h,
 * read for one device (issue #15, "Memory"). */
#include "abi.h"

static int resolve(am_err *err, const am_device *device, const am_device **out) {
  if (device) {
    *out = device;
    return AM_OK;
  }
  am_device *chosen = NULL;
  int status = am_default_device_for(err, &chosen);
  *out = chosen;
  return status;
}

static int memory_info(am_err *err, const am_device *device, am_memory_stats *out) {
  AM_REQUIRE(out, "out");
  int status = resolve(err, device, &device);
  if (status != AM_OK) return status;
  am_mem_counters *counters = am_device_memory(device);
  /* Each field is read once, relaxed: a snapshot of each counter, not of
   * all five at one instant while other threads allocate. */
  out->bytes_in_use = atomic_load_explicit(&counters->in_use, memory_order_relaxed);
  out->peak_bytes = atomic_load_explicit(&counters->peak, memory_order_relaxed);
  out->reserved_bytes = atomic_load_explicit(&counters->reserved, memory_order_relaxed);
  out->allocations = atomic_load_explicit(&counters->live, memory_order_relaxed);
  out->total_allocations = atomic_load_explicit(&counters->total, memory_order_relaxed);
  return AM_OK;
}

AM_EXPORT int am_memory_info(const am_device *device, am_memory_stats *out) {
  AM_API_BEGIN;
  AM_API_RETURN(memory_info(err, device, out));
}

static int reset_peak(am_err *err, const am_device *device) {
  int status = resolve(err, device, &device);
  if (status != AM_OK) return status;
  am_mem_reset_peak(am_device_memory(device));
  return AM_OK;
}

AM_EXPORT int am_memory_reset_peak(const am_device *device) {
  AM_API_BEGIN;
  AM_API_RETURN(reset_peak(err, device));
}
