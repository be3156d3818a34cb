/* A struct array's null rows of its own (struct_import.c), in host memory.
 * The struct handle keeps a copy of its validity at bit 0 (length / 8
 * bytes), and every field, at every depth, takes the struct's nulls as its
 * own: a field is null where its row is, as pyarrow's StructArray.flatten
 * and RecordBatch.from_struct_array give the fields. So a struct's field
 * (am_struct_field) or a record batch's column never shows a value under a
 * null row, and every call that reads fields needs nothing of its own.
 * (pyarrow's StructArray.field gives the values under null rows as they
 * are: those slots are the one difference, and Arrow leaves them
 * unspecified.) */
#include <string.h>

#include "core/bits.h"
#include "tables.h"

/* ORs the 64 bits `w` into `out` from bit `pos` (out has a spare 8 bytes
 * past its last bit). */
static void or_bits_at(uint8_t *out, int64_t pos, uint64_t w) {
  uint8_t *p = out + (pos >> 3);
  const unsigned shift = (unsigned)(pos & 7);
  uint64_t lo;
  memcpy(&lo, p, 8);
  lo |= w << shift;
  memcpy(p, &lo, 8);
  if (shift) p[8] |= (uint8_t)(w >> (64 - shift));
}

/* A new bitmap of `array`'s slots: bit array->offset + i set where its slot
 * i is valid and row i of `rows` (a bitmap at bit 0) is. */
static am_buffer *and_bitmap(const am_array *array, const uint8_t *rows) {
  const int64_t n = array->length, from = array->offset;
  am_buffer *out = am_buffer_alloc_host((from + n + 7) / 8 + 8);
  if (!out) return NULL;
  uint8_t *bits = out->ptr;
  memset(bits, 0, (size_t)((from + n + 7) / 8 + 8));
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t k = n - i < 64 ? n - i : 64;
    or_bits_at(bits, from + i,
               am_load_bits(rows, i, k) & am_load_bits(array->validity, from + i, k));
  }
  return out;
}

/* `array` (a field) null where `rows` says its row is. */
static int take_rows_nulls(am_err *err, am_array *array, const uint8_t *rows) {
  am_buffer *bits = and_bitmap(array, rows);
  if (!bits) return am_fail(err, AM_ENOMEM, "out of memory");
  am_buffer_release(array->validity_buf);
  array->validity_buf = bits;
  array->validity = bits->ptr;
  atomic_store(&array->null_count, -1); /* counted when asked */
  if (array->type != AM_STRUCT) return AM_OK;
  for (int64_t i = 0; i < array->fields->count; i++) {
    int status = take_rows_nulls(err, array->fields->children[i], rows);
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

int am_struct_take_nulls(am_err *err, am_array *array, const uint8_t *validity, int64_t offset) {
  const int64_t n = array->length;
  am_buffer *own = am_buffer_alloc_host((n + 7) / 8 + 8);
  if (!own) return am_fail(err, AM_ENOMEM, "out of memory");
  uint8_t *bits = own->ptr;
  memset(bits, 0, (size_t)((n + 7) / 8 + 8));
  int64_t valid = 0;
  for (int64_t i = 0; i < n; i += 64) {
    const int64_t k = n - i < 64 ? n - i : 64;
    const uint64_t w = am_load_bits(validity, offset + i, k);
    or_bits_at(bits, i, w);
    valid += am_popcount64(w);
  }
  array->validity_buf = own;
  array->validity = bits;
  atomic_store(&array->null_count, n - valid);
  for (int64_t i = 0; i < array->fields->count; i++) {
    int status = take_rows_nulls(err, array->fields->children[i], bits);
    if (status != AM_OK) return status;
  }
  return AM_OK;
}

int64_t am_struct_null_count(const am_array *array) {
  if (!array->validity) return 0;
  int64_t count = atomic_load(&array->null_count);
  if (count >= 0) return count;
  int64_t valid = 0;
  for (int64_t i = 0; i < array->length; i += 64)
    valid += am_popcount64(
        am_load_bits(array->validity, i, array->length - i < 64 ? array->length - i : 64));
  return array->length - valid;
}
