/* float16 arrays and scalars as their uint16 storage (float16.h), for the
 * calls that only move, select or group values by their bits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "float16.h"

int am_bits_begin(am_err *err, const am_array **array, am_storage_keep *keep) {
  if (!*array || (*array)->type != AM_FLOAT16 || (*array)->dictionary)
    return am_storage_begin(err, array, keep);
  keep->original = NULL;
  keep->view = NULL;
  int status = am_settle_data(err, *array);
  if (status != AM_OK) return status;
  am_array *view = am_array_share(*array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  am_retype(view, AM_UINT16, NULL);
  keep->original = *array;
  keep->view = view;
  *array = view;
  return AM_OK;
}

void am_float16_scalar_bits(const am_scalar *in, am_scalar *out) {
  *out = *in;
  if (in->type != AM_FLOAT16) return;
  out->type = AM_UINT16;
  out->i64 = 0;
  out->f64 = 0;
  out->u64 = in->is_null ? 0 : am_float16_of(in->f64);
}

int am_any_float16(const am_array *const *arrays, const am_scalar *const *scalars, int64_t count) {
  for (int64_t i = 0; i < count; i++)
    if ((arrays && arrays[i] && arrays[i]->type == AM_FLOAT16 && !arrays[i]->dictionary) ||
        (scalars && scalars[i] && scalars[i]->type == AM_FLOAT16))
      return 1;
  return 0;
}

/* pyarrow's refusal of values of other types beside float16: every type in
 * argument order, a typeless null scalar as "null". */
static int mixed(am_err *err, const char *function, am_type cond, const am_array *const *arrays,
                 const am_scalar *const *scalars, int64_t count) {
  char types[400] = "";
  size_t used = 0;
  if (cond != AM_TYPE_INVALID)
    used += (size_t)snprintf(types, sizeof types, "%s", am_type_name(cond));
  for (int64_t i = 0; i < count && used < sizeof types - 8; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    int t = a ? (int)a->type : s ? s->type : AM_TYPE_INVALID;
    used += (size_t)snprintf(types + used, sizeof types - used, "%s%s", used ? ", " : "",
                             am_type_valid(t) ? am_type_name((am_type)t) : "null");
  }
  return am_fail(err, AM_ETYPE, "function '%s' has no kernel matching input types (%s)", function,
                 types);
}

int am_float16_values(am_err *err, const char *function, am_type cond,
                      const am_array *const *arrays, const am_scalar *const *scalars, int64_t count,
                      am_storage_values_t *v) {
  memset(v, 0, sizeof *v);
  v->type = AM_TYPE_INVALID;
  if (!am_any_float16(arrays, scalars, count)) return AM_OK;
  if (cond != AM_TYPE_INVALID && cond != AM_BOOL) /* if_else's condition */
    return mixed(err, function, cond, arrays, scalars, count);
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    /* coalesce takes no null of no type (pyarrow's null type) beside them */
    int typeless = !a && s && !am_type_valid(s->type) && strcmp(function, "coalesce") == 0;
    if ((a && (a->type != AM_FLOAT16 || a->dictionary)) ||
        (!a && s && am_type_valid(s->type) && s->type != AM_FLOAT16) || typeless)
      return mixed(err, function, cond, arrays, scalars, count);
  }
  v->type = AM_FLOAT16;
  v->count = count;
  v->arrays = calloc((size_t)count, sizeof *v->arrays);
  v->views = calloc((size_t)count, sizeof *v->views);
  v->scalars = calloc((size_t)count, sizeof *v->scalars);
  v->scalar_ptrs = calloc((size_t)count, sizeof *v->scalar_ptrs);
  if (!v->arrays || !v->views || !v->scalars || !v->scalar_ptrs) {
    am_storage_values_free(v);
    return am_fail(err, AM_ENOMEM, "out of memory");
  }
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays ? arrays[i] : NULL;
    const am_scalar *s = scalars ? scalars[i] : NULL;
    if (a) {
      int status = am_settle_data(err, a);
      if (status == AM_OK && !(v->views[i] = am_array_share(a)))
        status = am_fail(err, AM_ENOMEM, "out of memory");
      if (status != AM_OK) {
        am_storage_values_free(v);
        return status;
      }
      am_retype(v->views[i], AM_UINT16, NULL);
      v->arrays[i] = v->views[i];
    } else if (s) {
      am_float16_scalar_bits(s, &v->scalars[i]);
      v->scalar_ptrs[i] = &v->scalars[i];
    }
  }
  v->active = 1;
  return AM_OK;
}

int am_float16_list(am_err *err, const am_array *const *arrays, int64_t count,
                    am_storage_list_t *list) {
  list->arrays = arrays;
  list->views = NULL;
  list->count = count;
  if (!am_any_float16(arrays, NULL, count)) return AM_OK;
  if (!(list->views = calloc((size_t)count, sizeof *list->views)))
    return am_fail(err, AM_ENOMEM, "out of memory");
  for (int64_t i = 0; i < count; i++) {
    const am_array *a = arrays[i];
    /* the float16 ones settle here; the others are their caller's (a
     * string or decimal beside a float16 key settles on its own terms) */
    int status = a && a->type == AM_FLOAT16 && !a->dictionary ? am_settle_data(err, a) : AM_OK;
    if (status == AM_OK && a && !(list->views[i] = am_array_share(a)))
      status = am_fail(err, AM_ENOMEM, "out of memory");
    if (status != AM_OK) {
      am_storage_list_free(list);
      return status;
    }
    if (a && a->type == AM_FLOAT16 && !a->dictionary) am_retype(list->views[i], AM_UINT16, NULL);
  }
  list->arrays = (const am_array *const *)list->views;
  return AM_OK;
}
