/* String results written slot by slot (the casts of numbers and temporal
 * values to strings, strftime): one pass writing each valid slot's text
 * straight into a data buffer sized for the longest text, or, when that
 * bound passes a 32-bit offset though the texts may not, two passes (the
 * lengths, then the texts). A value without a text (where pyarrow's
 * formatter fails) fails the call. */
#include <stdlib.h>
#include <string.h>

#include "core/string_array.h"
#include "string_calls.h"

static int64_t valid_slots(const am_array *a) {
  if (!a->validity) return a->length;
  int64_t n = 0;
  for (int64_t i = 0; i < a->length; i++) n += am_string_is_valid(a, i);
  return n;
}

static void set_offset(am_array *r, am_type to, int64_t i, int64_t at) {
  if (to == AM_LARGE_UTF8)
    ((int64_t *)r->data)[i + 1] = at;
  else
    ((int32_t *)r->data)[i + 1] = (int32_t)at;
}

int am_string_from_slots(am_err *err, const am_array *a, am_type to, int64_t most,
                         am_slot_text_fn write, const void *ctx, const char *no_text,
                         am_array **out) {
  const int64_t valid = valid_slots(a);
  const int64_t bound = valid * most;
  const int one_pass = to == AM_LARGE_UTF8 || bound <= INT32_MAX;
  char *scratch = NULL;
  int64_t total = bound;
  if (!one_pass) {
    if (!(scratch = malloc((size_t)most)))
      return am_fail(err, AM_ENOMEM, "out of memory formatting %s", am_type_name(to));
    total = 0;
    for (int64_t i = 0; i < a->length && total >= 0; i++) {
      const int64_t n = am_string_is_valid(a, i) ? write(ctx, a, i, scratch) : 0;
      total = n < 0 ? n : total + n;
    }
    if (total < 0) {
      free(scratch);
      return am_fail(err, AM_EINVAL, "%s", no_text);
    }
  }
  am_array *r = NULL;
  int status = am_string_alloc(err, a->device, to, 0, a->length, total, a->validity != NULL, &r);
  if (status != AM_OK) {
    free(scratch);
    return status;
  }
  uint8_t *bytes = (uint8_t *)r->bytes;
  int64_t at = 0;
  for (int64_t i = 0; i < a->length; i++) {
    if (am_string_is_valid(a, i)) {
      const int64_t n = write(ctx, a, i, one_pass ? (char *)bytes + at : scratch);
      if (n < 0) {
        am_array_free(r);
        return am_fail(err, AM_EINVAL, "%s", no_text);
      }
      if (!one_pass) memcpy(bytes + at, scratch, (size_t)n);
      at += n;
    }
    set_offset(r, to, i, at);
  }
  free(scratch);
  r->bytes_size = at;
  if (!a->validity) atomic_store(&r->null_count, 0);
  am_string_copy_validity(a, r);
  *out = r;
  return AM_OK;
}
