/* A row's place in pyarrow's sort order, one row at a time: its class (a
 * number, NaN or null) and, for numbers, an unsigned key whose order is the
 * values' ascending order (core/quantile.h's bits: the sign flip for signed
 * integers, the float bit flip; -0.0 read as 0.0 so the two tie). For the
 * CPU's row-at-a-time orderings (rank.c: select_k, rank, partition_nth);
 * sort.c's radix passes keep their own byte-narrow keys. */
#ifndef AM_CPU_ORDER_KEY_H
#define AM_CPU_ORDER_KEY_H

#include <math.h>
#include <string.h>

#include "bitmap.h"
#include "core/quantile.h"
#include "core/types.h"

enum { AM_ORDER_NUMBER = 0, AM_ORDER_NAN = 1, AM_ORDER_NULL = 2 };

/* Row r (before the array's offset) of `a`; `has_nulls`: whether to read
 * the validity bitmap. NaN and null rows get key 0. */
static inline int am_order_key(const am_array *a, int has_nulls, int64_t r, uint64_t *key) {
  const int64_t j = a->offset + r;
  *key = 0;
  if (has_nulls && !am_bit_get(a->validity, j)) return AM_ORDER_NULL;
  uint64_t bits;
  switch (a->type) {
    case AM_BOOL:
      *key = (uint64_t)am_bit_get(a->data, j);
      return AM_ORDER_NUMBER;
    case AM_INT8:
      bits = (uint64_t)(int64_t)((const int8_t *)a->data)[j];
      break;
    case AM_UINT8:
      bits = ((const uint8_t *)a->data)[j];
      break;
    case AM_INT16:
      bits = (uint64_t)(int64_t)((const int16_t *)a->data)[j];
      break;
    case AM_UINT16:
      bits = ((const uint16_t *)a->data)[j];
      break;
    case AM_INT32:
      bits = (uint64_t)(int64_t)((const int32_t *)a->data)[j];
      break;
    case AM_UINT32:
      bits = ((const uint32_t *)a->data)[j];
      break;
    case AM_FLOAT32: {
      const float f = ((const float *)a->data)[j];
      if (isnan(f)) return AM_ORDER_NAN;
      const double d = f; /* float64's order key orders float32 values too */
      bits = 0;
      if (d != 0) memcpy(&bits, &d, 8);
      *key = am_quantile_key(AM_FLOAT64, bits);
      return AM_ORDER_NUMBER;
    }
    case AM_FLOAT64: {
      const double f = ((const double *)a->data)[j];
      if (isnan(f)) return AM_ORDER_NAN;
      bits = 0;
      if (f != 0) memcpy(&bits, &f, 8);
      *key = am_quantile_key(AM_FLOAT64, bits);
      return AM_ORDER_NUMBER;
    }
    case AM_INT64:
      bits = ((const uint64_t *)a->data)[j];
      *key = bits ^ ((uint64_t)1 << 63);
      return AM_ORDER_NUMBER;
    default: /* uint64 */
      *key = ((const uint64_t *)a->data)[j];
      return AM_ORDER_NUMBER;
  }
  /* narrow integers: signed ones sign-extended above, then the sign flip */
  const int is_signed = a->type == AM_INT8 || a->type == AM_INT16 || a->type == AM_INT32;
  *key = is_signed ? bits ^ ((uint64_t)1 << 63) : bits;
  return AM_ORDER_NUMBER;
}

#endif
