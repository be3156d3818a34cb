/* Temporal arrays (timestamps, dates, times, durations) on the kernels of
 * their storage integers: the functions that only move, compare or group
 * values (filter, take, concat, compare, null handling, min/max, hashing,
 * sorting) run on a handle typed as int32/int64 over the same buffers, and
 * their value-typed results take the temporal type back. Functions whose
 * meaning differs (sum, mean, sqrt ...) never see the view: their op rows
 * do not accept the temporal kind, and they fail in pyarrow's words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"

void am_retype(am_array *array, am_type type, const char *tz) {
  array->type = type;
  array->timezone = am_type_is_timestamp(type) ? tz : NULL;
}

int am_storage_begin(am_err *err, const am_array **array, am_storage_keep *keep) {
  keep->original = NULL;
  keep->view = NULL;
  if (!*array || !am_type_is_temporal((*array)->type)) return AM_OK;
  int status = am_settle(err, *array);
  if (status != AM_OK) return status;
  am_array *view = am_array_share(*array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  am_retype(view, am_type_storage((*array)->type), NULL);
  keep->original = *array;
  keep->view = view;
  *array = view;
  return AM_OK;
}

int am_storage_end(int status, am_storage_keep *keep, am_array **out) {
  if (keep->view) {
    if (status == AM_OK && out && *out)
      am_retype(*out, keep->original->type, keep->original->timezone);
    am_array_free(keep->view);
    keep->view = NULL;
  }
  return status;
}

int am_temporal_family(am_type t) {
  if (am_type_is_timestamp(t)) return AM_TEMPORAL_TIMESTAMP;
  if (am_type_is_duration(t)) return AM_TEMPORAL_DURATION;
  if (t == AM_DATE32 || t == AM_DATE64) return AM_TEMPORAL_DATE;
  if (t >= AM_TIME32_S && t <= AM_TIME64_NS) return AM_TEMPORAL_TIME;
  return AM_TEMPORAL_NONE;
}

int64_t am_temporal_tick_ns(am_type t) {
  if (t == AM_DATE32) return 86400 * (int64_t)1000000000;
  static const int64_t of_digits[10] = {1000000000, 0, 0, 1000000, 0, 0, 1000, 0, 0, 1};
  return of_digits[am_type_unit_digits(t)];
}

const char *am_temporal_type_text(const char *tz, am_type t, char *text, size_t n) {
  if (tz && am_type_is_timestamp(t)) {
    const char *name = am_type_name(t);
    snprintf(text, n, "%.*s, tz=%s]", (int)(strlen(name) - 1), name, tz);
  } else {
    snprintf(text, n, "%s", am_type_name(t));
  }
  return text;
}

AM_EXPORT const char *am_array_timezone(const am_array *array) {
  return array ? array->timezone : NULL;
}

static int with_timezone(am_err *err, const am_array *array, const char *tz, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (!am_type_is_timestamp(array->type))
    return am_fail(err, AM_ETYPE, "only a timestamp has a time zone, not %s",
                   am_type_name(array->type));
  const char *interned = NULL;
  if (tz && *tz && !(interned = am_intern(tz))) return am_fail(err, AM_ENOMEM, "out of memory");
  int status = am_settle(err, array);
  if (status != AM_OK) return status;
  am_array *shared = am_array_share(array);
  if (!shared) return am_fail(err, AM_ENOMEM, "out of memory");
  shared->timezone = interned;
  *out = shared;
  return AM_OK;
}

AM_EXPORT int am_array_with_timezone(const am_array *array, const char *tz, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(with_timezone(err, array, tz, out));
}

int am_storage_begin_scalars(am_err *err, const am_array **array, am_storage_keep *keep) {
  int status = am_storage_begin(err, array, keep);
  if (status == AM_OK && keep->view) {
    /* A timestamp's time zone rides in the unused u64 (arrowmetal.h). */
    am_scalar_tag tag = {keep->view->type, keep->original->type,
                         (uint64_t)(uintptr_t)keep->original->timezone};
    am_runtime_set_scalar_tag(tag);
  }
  return status;
}

int am_storage_end_scalars(int status, am_storage_keep *keep, am_scalar *a, am_scalar *b) {
  if (keep->view) {
    am_scalar_tag tag = am_runtime_scalar_tag();
    am_scalar_tag none = {AM_TYPE_INVALID, AM_TYPE_INVALID, 0};
    am_runtime_set_scalar_tag(none);
    if (status == AM_OK) {
      am_scalar_tag_apply(&tag, a);
      am_scalar_tag_apply(&tag, b);
    }
  }
  return am_storage_end(status, keep, NULL);
}

int am_temporal_no_kernel(am_err *err, const char *function, const am_array *array) {
  return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s)", function,
                 am_type_name(array->type));
}

int am_storage_scalar(am_err *err, const am_array *array, const am_scalar *in, am_scalar *out) {
  *out = *in;
  if (!am_type_is_temporal(array->type)) return AM_OK;
  if (in->type != (int32_t)array->type && !(in->is_null && in->type == AM_TYPE_INVALID))
    return am_fail(err, AM_ETYPE, "a %s scalar does not go with a %s array",
                   am_type_name((am_type)in->type), am_type_name(array->type));
  out->type = am_type_storage(array->type);
  return AM_OK;
}

int am_storage_values(am_err *err, const am_array *const *arrays, const am_scalar *const *scalars,
                      int64_t count, am_storage_values_t *v) {
  memset(v, 0, sizeof *v);
  v->type = AM_TYPE_INVALID;
  int temporal = 0;
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    am_type t = a ? a->type : s && am_type_valid(s->type) ? (am_type)s->type : AM_TYPE_INVALID;
    if (t == AM_TYPE_INVALID) continue;
    temporal |= am_type_is_temporal(t);
    if (v->type == AM_TYPE_INVALID) v->type = t;
    if (a && !v->tz) v->tz = a->timezone;
    if (t != v->type) v->mixed = 1;
  }
  if (!temporal) return AM_OK;
  if (v->mixed) return AM_OK; /* the caller refuses in its words */
  v->arrays = calloc((size_t)count, sizeof *v->arrays);
  v->views = calloc((size_t)count, sizeof *v->views);
  v->scalars = calloc((size_t)count, sizeof *v->scalars);
  v->scalar_ptrs = calloc((size_t)count, sizeof *v->scalar_ptrs);
  v->count = count;
  if (!v->arrays || !v->views || !v->scalars || !v->scalar_ptrs) {
    am_storage_values_free(v);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    if (a) {
      int status = am_settle(err, a);
      if (status == AM_OK && !(v->views[i] = am_array_share(a)))
        status = am_fail(err, AM_ENOMEM, "out of memory");
      if (status != AM_OK) {
        am_storage_values_free(v);
        return status;
      }
      am_retype(v->views[i], am_type_storage(a->type), NULL);
      v->arrays[i] = v->views[i];
    } else if (s) {
      v->scalars[i] = *s;
      if (am_type_valid(s->type) || s->is_null) v->scalars[i].type = am_type_storage(v->type);
      v->scalar_ptrs[i] = &v->scalars[i];
    }
  }
  v->active = 1;
  return AM_OK;
}

void am_storage_values_free(am_storage_values_t *v) {
  for (int64_t i = 0; v->views && i < v->count; i++) am_array_free(v->views[i]);
  free(v->arrays);
  free(v->views);
  free(v->scalars);
  free(v->scalar_ptrs);
  memset(v, 0, sizeof *v);
}

int am_storage_list(am_err *err, const am_array *const *arrays, int64_t count,
                    am_storage_list_t *list) {
  list->arrays = arrays;
  list->views = NULL;
  list->count = count;
  int any = 0;
  for (int64_t i = 0; arrays && i < count; i++)
    any |= arrays[i] && am_type_is_temporal(arrays[i]->type);
  if (!any) return AM_OK;
  if (!(list->views = calloc((size_t)count, sizeof *list->views)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays[i];
    int status = AM_OK;
    if (a && am_type_is_temporal(a->type)) {
      if ((status = am_settle(err, a)) == AM_OK && !(list->views[i] = am_array_share(a)))
        status = am_fail(err, AM_ENOMEM, "out of memory");
      if (status == AM_OK) am_retype(list->views[i], am_type_storage(a->type), NULL);
    } else if (a && !(list->views[i] = am_array_share(a))) {
      status = am_fail(err, AM_ENOMEM, "out of memory");
    }
    if (status != AM_OK) {
      am_storage_list_free(list);
      return status;
    }
  }
  list->arrays = (const am_array *const *)list->views;
  return AM_OK;
}

void am_storage_list_free(am_storage_list_t *list) {
  for (int64_t i = 0; list->views && i < list->count; i++) am_array_free(list->views[i]);
  free(list->views);
  list->views = NULL;
}
