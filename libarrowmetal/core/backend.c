#include "backend.h"

#include <stddef.h>

/* Each slot with its name, for the message. */
#define SLOT(group, member) {(const void *)(uintptr_t)backend->group.member, #group "." #member}
#define TOP(member) {(const void *)(uintptr_t)backend->member, #member}

int am_backend_check(am_err *err, const am_backend *backend) {
  const struct {
    const void *fn;
    const char *name;
  } slots[] = {
      TOP(probe),
      TOP(device_count),
      TOP(open_device),
      SLOT(memory, upload),
      SLOT(memory, download),
      SLOT(memory, import_device),
      SLOT(memory, export_device),
      SLOT(memory, wait_event),
      SLOT(memory, count_nulls),
      SLOT(memory, copy_peer),
      SLOT(kernels, reduce),
      SLOT(kernels, compare),
      SLOT(kernels, arith),
      SLOT(kernels, cast),
      SLOT(kernels, unary),
      SLOT(kernels, binary),
      SLOT(kernels, logic),
      SLOT(kernels, filter),
      SLOT(kernels, take),
      SLOT(kernels, fill),
      SLOT(kernels, concat),
      SLOT(kernels, aggregate),
      SLOT(kernels, predicate), /* null handling */
      SLOT(kernels, coalesce),
      SLOT(kernels, if_else),
      SLOT(kernels, fill_direction),
      SLOT(kernels, hash_group), /* hash-based functions */
      SLOT(kernels, hash_lookup),
      SLOT(kernels, round), /* rounding and pairwise differences */
      SLOT(kernels, pairwise_diff),
      SLOT(kernels, quantile),
      SLOT(kernels, tdigest),
      SLOT(kernels, cumulative),
      SLOT(kernels, sort_indices),
      SLOT(kernels, group_by),
      SLOT(kernels, join_indices),
      SLOT(kernels, select_k),
      SLOT(kernels, rank),
      SLOT(kernels, partition_nth),
      SLOT(kernels, temporal_field), /* temporal */
      SLOT(kernels, round_temporal),
      SLOT(kernels, string_function), /* strings */
      SLOT(kernels, string_compare),
      SLOT(kernels, string_take),
      SLOT(kernels, string_filter),
      SLOT(kernels, string_check),
      SLOT(queue, resolve),
      SLOT(queue, flush),
      SLOT(queue, wait),
      SLOT(queue, sync),
      SLOT(queue, wait_stream),
      SLOT(queue, resident),
  };
  for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
    if (!slots[i].fn)
      return am_fail(err, AM_EUNSUPPORTED, "the %s backend is incomplete: it has no %s",
                     backend->name, slots[i].name);
  if (backend->device_type == 0)
    return am_fail(err, AM_EUNSUPPORTED, "the %s backend names no device type", backend->name);
  return AM_OK;
}

int am_no_copy_peer(am_err *err, const am_array *array, am_device *to, am_array **out) {
  (void)array;
  (void)out;
  return am_fail(err, AM_EUNSUPPORTED, "no device-to-device copy to %s", to->name);
}
