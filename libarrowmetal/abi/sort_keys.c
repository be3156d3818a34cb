/* Argument checks of sorting and ranking (sort_keys.h). */
#include "sort_keys.h"

#include <stdio.h>
#include <stdlib.h>

int am_check_null_placement(am_err *err, const char *what, int placement) {
  if (placement != AM_NULLS_AT_END && placement != AM_NULLS_AT_START)
    return am_fail(err, AM_EINVAL, "%s %d is not AM_NULLS_AT_END (40) or AM_NULLS_AT_START (41)",
                   what, placement);
  return AM_OK;
}

int am_check_null_placements(am_err *err, const int *null_placement, int64_t n_keys) {
  int status;
  if (null_placement)
    for (int64_t i = 0; i < n_keys; i++) {
      char what[48];
      snprintf(what, sizeof what, "null_placement[%lld]", (long long)i);
      if ((status = am_check_null_placement(err, what, null_placement[i])) != AM_OK) return status;
    }
  return AM_OK;
}

int am_check_sort_keys(am_err *err, const am_array *const *keys, int64_t n_keys, const char *who,
                       int strings) {
  int status;
  for (int64_t i = 0; i < n_keys; i++) {
    if (!keys[i]) return am_fail(err, AM_EINVAL, "key %lld is NULL", (long long)i);
    /* a string key is a host array, never pending: settling would refuse it */
    const int string_key = strings && am_type_is_binary(keys[i]->type);
    if (!string_key && (status = am_settle(err, keys[i])) != AM_OK) return status;
    if (keys[i]->length != keys[0]->length)
      return am_fail(err, AM_EINVAL,
                     "key %lld has %lld rows, key 0 has %lld: sort keys must have equal lengths",
                     (long long)i, (long long)keys[i]->length, (long long)keys[0]->length);
    if (keys[i]->dictionary || keys[i]->type == AM_TYPE_INVALID ||
        (unsigned)keys[i]->type >= (unsigned)AM_TYPE_COUNT)
      return am_fail(err, AM_ETYPE, "key %lld: %s%sno kernel for its type (%s)", (long long)i,
                     who ? who : "", who ? " has " : "", am_type_name(keys[i]->type));
  }
  return AM_OK;
}

int *am_sort_key_flags(int64_t n_keys, const int *descending, const int *null_placement) {
  int *flags = calloc((size_t)n_keys * 2, sizeof *flags);
  if (!flags) return NULL;
  for (int64_t i = 0; i < n_keys; i++) {
    flags[i] = descending && descending[i] != 0;
    flags[n_keys + i] = null_placement && null_placement[i] == AM_NULLS_AT_START;
  }
  return flags;
}
