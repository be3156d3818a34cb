/* Handle lifetime, properties, and the calls that make arrays without a
 * kernel over an input: full, to_device, slice. */
#include "abi.h"
#include "core/decimal.h"
#include "core/string_array.h"
#include "decimal_calls.h"
#include "dictionary.h"
#include "float16.h"
#include "route.h"
#include "string_calls.h"
#include "string_device.h"
#include "tables.h"

AM_EXPORT void am_release(am_array *array) { am_array_free(array); }

int am_count_nulls(am_err *err, const am_array *array, int64_t *out) {
  /* A string or dictionary array is never pending (GPUs do not hold them
   * yet); a dictionary array's nulls are its indices'. */
  int status =
      am_type_is_host_only(array->type) || array->dictionary ? AM_OK : am_settle_data(err, array);
  if (status != AM_OK) return status;
  am_array *mutable_array = (am_array *)array;
  int64_t count = atomic_load_explicit(&mutable_array->null_count, memory_order_relaxed);
  if (count < 0) {
    status = array->device->backend->memory.count_nulls(err, array, &count);
    if (status != AM_OK) return status;
    /* Counting is idempotent, so racing threads store the same value. */
    atomic_store_explicit(&mutable_array->null_count, count, memory_order_relaxed);
  }
  *out = count;
  return AM_OK;
}

/* The getters never publish a message: a device failure that keeps them
 * from answering gives -1, and the caller's last error is left alone. */
AM_EXPORT int64_t am_length(const am_array *array) {
  if (!array) return -1;
  if (array->type == AM_STRUCT || am_type_is_host_only(array->type) || array->dictionary)
    return array->length; /* rows; never pending */
  am_err err;
  am_err_init(&err, "am_length");
  if (am_settle_data(&err, array) != AM_OK) return -1;
  return array->length;
}

AM_EXPORT int64_t am_null_count(const am_array *array) {
  if (!array) return -1;
  if (array->type == AM_STRUCT) return am_struct_null_count(array);
  am_err err;
  am_err_init(&err, "am_null_count");
  int64_t count = -1;
  return am_count_nulls(&err, array, &count) == AM_OK ? count : -1;
}

AM_EXPORT am_type am_array_type(const am_array *array) {
  return array ? array->type : AM_TYPE_INVALID;
}

AM_EXPORT const char *am_format(const am_array *array) {
  if (array && array->type == AM_STRUCT) return "+s";
  if (array && array->type == AM_FIXED_SIZE_BINARY)
    return am_string_format(array->type, array->byte_width);
  if (array && am_type_is_decimal(array->type))
    return am_decimal_format(array->type, array->precision, array->scale);
  return array ? am_format_with_timezone(array->type, array->timezone) : NULL;
}

AM_EXPORT am_device *am_array_device(const am_array *array) { return array ? array->device : NULL; }

static int full(am_err *err, const am_scalar *value, int64_t length, am_device *device,
                am_array **out) {
  AM_REQUIRE(value, "value");
  AM_REQUIRE(out, "out");
  if (!am_type_valid(value->type))
    return am_fail(err, AM_ETYPE, "invalid scalar type %d", value->type);
  if (length < 0 || length > AM_MAX_LENGTH)
    return am_fail(err, AM_EINVAL, "length %lld is outside 0 to 2^52", (long long)length);
  if (am_type_is_decimal((am_type)value->type))
    return am_decimal_full(err, value, length, device, out);
  if (am_type_is_binary((am_type)value->type)) {
    const int32_t width =
        value->type == AM_FIXED_SIZE_BINARY && !value->is_null ? (int32_t)value->i64 : 0;
    if (!device || device == am_host_device())
      return am_string_full(err, value, width, length, out);
    am_array *host = NULL;
    int status = am_string_full(err, value, width, length, &host);
    return status == AM_OK ? am_string_place(err, host, device, out) : status;
  }
  int status;
  if (!device && (status = am_default_device_for(err, &device)) != AM_OK) return status;
  if (am_has_kernels(device, AM_TYPE_BIT(value->type)))
    return device->backend->kernels.fill(err, device, value, length, out);
  /* No kernels for the type (float64 on Metal): filled on the CPU, then
   * placed (host-visible memory takes it without a copy where it can). */
  am_array *host = NULL;
  am_device *cpu = am_host_device();
  status = cpu->backend->kernels.fill(err, cpu, value, length, &host);
  return status == AM_OK ? am_place(err, host, device, out) : status;
}

AM_EXPORT int am_full(const am_scalar *value, int64_t length, am_device *device, am_array **out) {
  AM_API_BEGIN;
  /* A temporal value fills as its storage integer; the result takes its type. */
  if (value && am_type_is_temporal((am_type)value->type)) {
    am_scalar storage = *value;
    storage.type = am_type_storage((am_type)value->type);
    int status = full(err, &storage, length, device, out);
    if (status == AM_OK) am_retype(*out, (am_type)value->type, NULL);
    AM_API_RETURN(status);
  }
  /* A float16 value fills as its bits (a uint16). */
  if (value && value->type == AM_FLOAT16) {
    am_scalar bits;
    am_float16_scalar_bits(value, &bits);
    int status = full(err, &bits, length, device, out);
    if (status == AM_OK) am_retype(*out, AM_FLOAT16, NULL);
    AM_API_RETURN(status);
  }
  AM_API_RETURN(full(err, value, length, device, out));
}

static int to_device(am_err *err, const am_array *array, am_device *device, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(device, "device");
  AM_REQUIRE(out, "out");
  if (am_type_is_binary(array->type) && !array->dictionary) return am_move(err, array, device, out);
  if (am_type_is_host_only(array->type) || array->dictionary) {
    if (device == array->device) {
      *out = am_array_share(array);
      return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
    }
    return array->dictionary ? am_dictionary_not_on(err, device) : am_decimal_not_on(err, device);
  }
  int status = am_settle_data(err, array);
  if (status != AM_OK) return status;
  return am_move(err, array, device, out);
}

AM_EXPORT int am_to_device(const am_array *array, am_device *device, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(to_device(err, array, device, out));
}

static int slice(am_err *err, const am_array *array, int64_t offset, int64_t length,
                 am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (offset < 0 || length < 0)
    return am_fail(err, AM_EINVAL, "negative offset %lld or length %lld", (long long)offset,
                   (long long)length);
  int status =
      am_type_is_host_only(array->type) || array->dictionary ? AM_OK : am_settle_data(err, array);
  if (status != AM_OK) return status;
  if (offset > array->length) offset = array->length;
  if (length > array->length - offset) length = array->length - offset;
  am_array *view = am_array_share(array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  view->offset += offset;
  view->length = length;
  int64_t parent_nulls = atomic_load(&view->null_count);
  atomic_store(&view->null_count, parent_nulls == 0 || length == 0 ? 0 : -1);
  *out = view;
  return AM_OK;
}

AM_EXPORT int am_slice(const am_array *array, int64_t offset, int64_t length, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(slice(err, array, offset, length, out));
}

AM_EXPORT int32_t am_array_byte_width(const am_array *array) {
  return array && array->type == AM_FIXED_SIZE_BINARY ? array->byte_width : 0;
}

AM_EXPORT int32_t am_array_decimal_precision(const am_array *array) {
  return array && am_type_is_decimal(array->type) ? array->precision : 0;
}

AM_EXPORT int32_t am_array_decimal_scale(const am_array *array) {
  return array && am_type_is_decimal(array->type) ? array->scale : 0;
}
