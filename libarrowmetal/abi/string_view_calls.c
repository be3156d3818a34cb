/* The string calls over view arrays (string_view, binary_view) whose
 * kernels read offsets, and the casts between view and flat string types.
 * The calls that read values one at a time (compare, the matching
 * functions, lengths, min/max, casts to numbers, sort and group-by keys)
 * and those that only move slots (take, filter, concat, the null
 * functions) take views as they are (core/string_view.h). */
#include "abi.h"
#include "core/string_array.h"
#include "string_calls.h"

int am_view_not_on(am_err *err, am_type type, const am_device *device) {
  return am_fail(err, AM_EUNSUPPORTED,
                 "%s arrays are not on GPUs yet (%s): they stay on the CPU (cast to %s first)",
                 am_type_name(type), device->name, type == AM_STRING_VIEW ? "string" : "binary");
}

int am_view_begin(am_err *err, const am_array **array, am_view_keep *keep) {
  keep->flat = NULL;
  if (!*array || !am_type_is_view((*array)->type)) return AM_OK;
  int status = am_view_flatten(err, *array, AM_TYPE_INVALID, &keep->flat);
  if (status == AM_OK) *array = keep->flat;
  return status;
}

int am_view_end(am_err *err, int status, am_view_keep *keep, am_array **out) {
  if (!keep->flat) return status;
  am_array_free(keep->flat);
  keep->flat = NULL;
  if (status != AM_OK || !out || !*out || !am_type_is_var_binary((*out)->type)) return status;
  am_array *views = NULL;
  status = am_view_from_flat(err, *out, am_view_type_of((*out)->type), &views);
  am_array_free(*out);
  *out = status == AM_OK ? views : NULL;
  return status;
}

int am_view_cast(am_err *err, const am_array *a, am_type to, am_array **out) {
  /* views to offsets: a copy (binary_view to a string type checks UTF-8 in
   * pyarrow: not here) */
  if (am_type_is_view(a->type) && am_type_is_var_binary(to) &&
      !(a->type == AM_BINARY_VIEW && am_type_is_utf8(to)))
    return am_view_flatten(err, a, to, out);
  /* string_view to binary_view: the same views and buffers */
  if (a->type == AM_STRING_VIEW && to == AM_BINARY_VIEW) {
    if (!(*out = am_array_share(a))) return am_fail(err, AM_ENOMEM, "out of memory");
    (*out)->type = to;
    return AM_OK;
  }
  /* offsets to views: views over the same bytes */
  if (am_type_is_var_binary(a->type) &&
      (to == AM_BINARY_VIEW || (to == AM_STRING_VIEW && am_type_is_utf8(a->type))))
    return am_view_from_flat(err, a, to, out);
  return am_fail(err, AM_ETYPE, "Unsupported cast from %s to %s", am_type_name(a->type),
                 am_type_name(to));
}
