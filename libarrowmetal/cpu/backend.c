/* The CPU backend's function table and its one device. Host memory is the
 * device's memory, so there is nothing to move, nothing queued and no device
 * state: the memory and queue entries are the trivial ones. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "cpu.h"

static int cpu_probe(am_err *err) {
  (void)err;
  return AM_OK;
}

static int cpu_device_count(void) { return 1; }

static int cpu_open_device(am_err *err, am_device *device) {
  (void)err;
  (void)device;
  return AM_OK;
}

/* Host memory is this device's memory: moving to or from it shares. */
static int cpu_upload(am_err *err, am_device *device, const am_array *host, am_array **out) {
  (void)device;
  *out = am_array_share(host);
  return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
}

static int cpu_download(am_err *err, const am_array *array, am_device *host, am_array **out) {
  return cpu_upload(err, host, array, out);
}

/* Device memory of another kind is imported through its own backend. */
static int cpu_import_device(am_err *err, am_device *device, am_type type,
                             struct ArrowDeviceArray *array, am_array **out) {
  (void)type;
  (void)out;
  array->array.release(&array->array);
  array->array.release = NULL;
  return am_fail(err, AM_EUNSUPPORTED, "device type %d cannot be imported onto %s",
                 (int)array->device_type, device->name);
}

static int cpu_export_device(am_err *err, const am_array *array, struct ArrowDeviceArray *out) {
  memset(out, 0, sizeof *out);
  int status = am_array_export(err, array, am_cpu_nulls(array), &out->array);
  out->device_type = ARROW_DEVICE_CPU;
  out->device_id = -1;
  return status;
}

/* Host memory has no sync events: everything was written before the call
 * that made it returned. */
static int cpu_wait_event(am_err *err, void *sync_event) {
  (void)err;
  (void)sync_event;
  return AM_OK;
}

/* Counts from the bitmap whatever null_count says: this is what fills it in. */
static int cpu_count_nulls(am_err *err, const am_array *array, int64_t *out) {
  (void)err;
  *out = array->validity
             ? array->length - am_bits_count(array->validity, array->offset, array->length)
             : 0;
  return AM_OK;
}

/* Every call finishes before it returns: no pending results, no batches to
 * submit, nothing to wait for. */
static int cpu_resolve(am_err *err, const am_array *array) {
  (void)err;
  (void)array;
  return AM_OK;
}

static int cpu_flush(am_err *err, am_device *device, int wait, uint64_t *ticket) {
  (void)err;
  (void)device;
  (void)wait;
  *ticket = 0;
  return AM_OK;
}

static int cpu_wait(am_err *err, am_device *device, uint64_t ticket) {
  (void)device;
  return am_fail(err, AM_EINVAL, "the cpu device issues no tickets (%llu)",
                 (unsigned long long)ticket);
}

static int cpu_sync(am_err *err, am_device *device) {
  (void)err;
  (void)device;
  return AM_OK;
}

static int cpu_wait_stream(am_err *err, am_device *device, uintptr_t stream) {
  (void)device;
  (void)stream;
  return am_fail(err, AM_EINVAL, "the cpu device has no streams to wait on");
}

static int cpu_resident(am_device *device, int on, const char **reason) {
  (void)device;
  (void)on;
  *reason =
      "the cpu backend has no resident worker: it runs every call on the calling thread, so "
      "there is no device round trip to hide";
  return 0;
}

/* The host's string work is the ABI's own (abi/string_*.c, over the array
 * model of core/string_array.h): these slots, for strings in device memory,
 * hand it back. */
static int cpu_strings(am_err *err) {
  return am_fail(err, AM_EUNSUPPORTED, "the host's string calls are the ABI's");
}

static int cpu_string_function(am_err *err, am_string_op op, const am_array *array,
                               const am_array *pattern, am_array **out) {
  (void)op, (void)array, (void)pattern, (void)out;
  return cpu_strings(err);
}

static int cpu_string_compare(am_err *err, am_compare_op op, const am_array *left,
                              const am_array *right, int broadcast, am_array **out) {
  (void)op, (void)left, (void)right, (void)broadcast, (void)out;
  return cpu_strings(err);
}

static int cpu_string_select(am_err *err, const am_array *values, const am_array *which,
                             am_array **out) {
  (void)values, (void)which, (void)out;
  return cpu_strings(err);
}

static int cpu_string_check(am_err *err, const am_array *array, int64_t *bytes_size) {
  (void)array, (void)bytes_size;
  return cpu_strings(err);
}

const am_backend am_cpu_backend = {
    .name = "cpu",
    .device_type = ARROW_DEVICE_CPU,
    .probe = cpu_probe,
    .device_count = cpu_device_count,
    .open_device = cpu_open_device,
    .memory =
        {
            .caps = AM_MEMORY_HOST | AM_MEMORY_HOST_VISIBLE,
            .upload = cpu_upload,
            .download = cpu_download,
            .import_device = cpu_import_device,
            .export_device = cpu_export_device,
            .wait_event = cpu_wait_event,
            .count_nulls = cpu_count_nulls,
            .copy_peer = am_no_copy_peer, /* one device */
        },
    .kernels =
        {
            .reduce = am_cpu_reduce,
            .compare = am_cpu_compare,
            .arith = am_cpu_arith,
            .cast = am_cpu_cast,
            .unary = am_cpu_unary,
            .binary = am_cpu_binary,
            .logic = am_cpu_logic,
            .filter = am_cpu_filter,
            .take = am_cpu_take,
            .fill = am_cpu_fill,
            .concat = am_cpu_concat,
            .aggregate = am_cpu_aggregate,
            .predicate = am_cpu_predicate, /* null handling */
            .coalesce = am_cpu_coalesce,
            .if_else = am_cpu_if_else,
            .fill_direction = am_cpu_fill_direction,
            .hash_group = am_cpu_hash_group, /* hash-based functions */
            .hash_lookup = am_cpu_hash_lookup,
            .round = am_cpu_round,
            .pairwise_diff = am_cpu_pairwise_diff,
            .quantile = am_cpu_quantile,
            .tdigest = am_cpu_tdigest,
            .cumulative = am_cpu_cumulative,
            .sort_indices = am_cpu_sort_indices,
            .group_by = am_cpu_group_by,
            .join_indices = am_cpu_join_indices,
            .select_k = am_cpu_select_k,
            .rank = am_cpu_rank,
            .partition_nth = am_cpu_partition_nth,
            .temporal_field = am_cpu_temporal_field,
            .round_temporal = am_cpu_round_temporal,
            .string_function = cpu_string_function,
            .string_compare = cpu_string_compare,
            .string_take = cpu_string_select,
            .string_filter = cpu_string_select,
            .string_check = cpu_string_check,
        },
    .queue =
        {
            .resolve = cpu_resolve,
            .flush = cpu_flush,
            .wait = cpu_wait,
            .sync = cpu_sync,
            .wait_stream = cpu_wait_stream,
            .resident = cpu_resident,
        },
};

/* Its memory counters are am_host_memory (am_device_memory): the embedded
 * ones stay zero. */
static am_device cpu_device = {.backend = &am_cpu_backend, .ordinal = 0, .name = "cpu"};

am_device *am_cpu_device(void) { return &cpu_device; }
