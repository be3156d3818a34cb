/* fill_null_forward / fill_null_backward (am_fill_null_direction): each null
 * slot takes the value of the nearest valid slot before it (forward) or
 * after it (backward).
 *
 * A scan, in two passes over the parts of the pool: the first finds each
 * part's first and last valid slot (whole validity words at a time, a count
 * of zeros to the bit); the slot a part starts from (its carry) is then the
 * last valid one of the parts before it (forward) or the first of those
 * after it (backward); the second fills each part from its carry, copying a
 * word's 64 values at once where all are valid. The result is valid from the
 * first valid slot on (forward) or up to the last (backward). Values move as
 * bits. */
#include <string.h>

#include "bitmap.h"
#include "core/error.h"
#include "core/types.h"
#include "cpu.h"
#include "pool.h"

/* Slots [begin, end) of out from x (validity v at bit `voff` + slot), with
 * `carry` the slot a null takes before any valid one of the range (-1:
 * none, and the slot stays null). Forward walks up, backward down. */
#define DEFINE_FILL(T)                                                                          \
  AM_CPU_CLONES static void fill_##T(void *out, const void *in, const uint8_t *v, int64_t voff, \
                                     int64_t begin, int64_t end, int64_t carry, int backward) { \
    T *o = out;                                                                                 \
    const T *x = in;                                                                            \
    int64_t cur = carry;                                                                        \
    if (!backward) {                                                                            \
      for (int64_t pos = begin; pos < end; pos += 64) {                                         \
        const int64_t m = end - pos < 64 ? end - pos : 64;                                      \
        const uint64_t w = am_bits_load(v, voff + pos, m);                                      \
        if (w == am_bits_mask(m)) {                                                             \
          memcpy(o + pos, x + pos, (size_t)m * sizeof(T));                                      \
          cur = pos + m - 1;                                                                    \
          continue;                                                                             \
        }                                                                                       \
        for (int64_t j = 0; j < m; j++) {                                                       \
          if ((w >> j) & 1) cur = pos + j;                                                      \
          o[pos + j] = cur >= 0 ? x[cur] : (T)0;                                                \
        }                                                                                       \
      }                                                                                         \
    } else {                                                                                    \
      for (int64_t stop = end; stop > begin;) {                                                 \
        const int64_t pos = stop - 64 > begin ? stop - 64 : begin, m = stop - pos;              \
        const uint64_t w = am_bits_load(v, voff + pos, m);                                      \
        if (w == am_bits_mask(m)) {                                                             \
          memcpy(o + pos, x + pos, (size_t)m * sizeof(T));                                      \
          cur = pos;                                                                            \
        } else {                                                                                \
          for (int64_t j = m - 1; j >= 0; j--) {                                                \
            if ((w >> j) & 1) cur = pos + j;                                                    \
            o[pos + j] = cur >= 0 ? x[cur] : (T)0;                                              \
          }                                                                                     \
        }                                                                                       \
        stop = pos;                                                                             \
      }                                                                                         \
    }                                                                                           \
  }
DEFINE_FILL(uint8_t)
DEFINE_FILL(uint16_t)
DEFINE_FILL(uint32_t)
DEFINE_FILL(uint64_t)

/* The same for booleans: bits of offset-0 `out`, from bits of x at `xoff`.
 * Ranges start on 64 slots (the pool's), so each output word is built whole. */
static void fill_bits(uint64_t *out, const uint8_t *x, int64_t xoff, const uint8_t *v, int64_t voff,
                      int64_t begin, int64_t end, int64_t carry, int backward) {
  int64_t cur = carry;
  int bit = cur >= 0 ? am_bit_get(x, xoff + cur) : 0;
  int64_t words = (end - begin + 63) / 64;
  for (int64_t k = 0; k < words; k++) {
    int64_t wk = backward ? words - 1 - k : k;
    int64_t pos = begin + wk * 64, m = end - pos < 64 ? end - pos : 64;
    uint64_t w = am_bits_load(v, voff + pos, m), xs = am_bits_load(x, xoff + pos, m), word = 0;
    for (int64_t s = 0; s < m; s++) {
      int64_t j = backward ? m - 1 - s : s;
      if ((w >> j) & 1) {
        bit = (int)((xs >> j) & 1);
        cur = pos + j;
      }
      if (cur >= 0 && bit) word |= (uint64_t)1 << j;
    }
    out[pos / 64] = word;
  }
}

typedef void (*fill_fn)(void *out, const void *in, const uint8_t *v, int64_t voff, int64_t begin,
                        int64_t end, int64_t carry, int backward);

typedef struct fill_job {
  const am_array *array;
  int backward;
  fill_fn fill; /* NULL for bool */
  int64_t width;
  char *out;
  int parts;
  int pass;          /* 1: find the valid ends of each part; 2: fill */
  int64_t first[64]; /* pass 1: the part's first valid slot, -1 if none */
  int64_t last[64];  /* and its last */
  int64_t carry[64]; /* pass 2: the slot a part's leading (trailing) nulls take */
} fill_job;

static int64_t first_valid(const uint8_t *v, int64_t voff, int64_t begin, int64_t end) {
  for (int64_t pos = begin; pos < end; pos += 64) {
    const int64_t m = end - pos < 64 ? end - pos : 64;
    const uint64_t w = am_bits_load(v, voff + pos, m);
    if (w) return pos + __builtin_ctzll(w);
  }
  return -1;
}

static int64_t last_valid(const uint8_t *v, int64_t voff, int64_t begin, int64_t end) {
  for (int64_t stop = end; stop > begin;) {
    const int64_t pos = stop - 64 > begin ? stop - 64 : begin;
    const uint64_t w = am_bits_load(v, voff + pos, stop - pos);
    if (w) return pos + 63 - __builtin_clzll(w);
    stop = pos;
  }
  return -1;
}

static void fill_part(void *ctx, int part) {
  fill_job *job = ctx;
  const am_array *a = job->array;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  if (job->pass == 1) {
    job->first[part] = end > begin ? first_valid(a->validity, a->offset, begin, end) : -1;
    job->last[part] = job->first[part] >= 0 ? last_valid(a->validity, a->offset, begin, end) : -1;
    return;
  }
  if (end <= begin) return;
  if (job->fill)
    job->fill(job->out, (const char *)a->data + a->offset * job->width, a->validity, a->offset,
              begin, end, job->carry[part], job->backward);
  else
    fill_bits((uint64_t *)job->out, a->data, a->offset, a->validity, a->offset, begin, end,
              job->carry[part], job->backward);
}

int am_cpu_fill_direction(am_err *err, am_fill_direction direction, const am_array *array,
                          am_array **out) {
  am_type t = array->type;
  int64_t n = array->length;
  static const fill_fn by_width[9] = {
      [1] = fill_uint8_t, [2] = fill_uint16_t, [4] = fill_uint32_t, [8] = fill_uint64_t};
  fill_job job = {.array = array,
                  .backward = direction == AM_FILL_BACKWARD,
                  .width = am_type_bits(t) / 8,
                  .parts = am_pool_parts(n)};
  job.fill = t == AM_BOOL ? NULL : by_width[job.width];
  if (!array->validity) { /* nothing to fill (the ABI shares such arrays) */
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  job.pass = 1;
  am_pool_run(job.parts, fill_part, &job);
  /* Each part's carry: the nearest valid slot before it (after it). */
  int64_t seen = -1, first = -1, last = -1;
  for (int k = 0; k < job.parts; k++) {
    int p = job.backward ? job.parts - 1 - k : k;
    job.carry[p] = seen;
    if (job.first[p] >= 0) seen = job.backward ? job.first[p] : job.last[p];
    if (job.first[p] >= 0 && (first < 0 || job.first[p] < first)) first = job.first[p];
    if (job.last[p] > last) last = job.last[p];
  }
  if (first < 0) return am_cpu_null_result(err, am_cpu_device(), t, n, out);
  am_array *result = NULL;
  int status = am_array_alloc_host(err, am_cpu_device(), t, n, 0, &result);
  if (status != AM_OK) return status;
  /* Valid from the first valid slot on (forward), or up to the last. */
  int64_t lo = job.backward ? 0 : first, hi = job.backward ? last + 1 : n;
  if (hi - lo == n) {
    atomic_store_explicit(&result->null_count, 0, memory_order_relaxed);
  } else {
    am_buffer *validity = am_buffer_alloc_host((n + 7) / 8);
    if (!validity) {
      am_array_free(result);
      return am_fail(err, AM_ENOMEM, "out of memory allocating a bitmap of %lld slots",
                     (long long)n);
    }
    uint64_t *bits = validity->ptr;
    am_bits_fill(bits, n, 0);
    for (int64_t w = lo / 64; w * 64 < hi; w++) {
      uint64_t word = ~(uint64_t)0;
      if (w * 64 < lo) word &= ~am_bits_mask(lo - w * 64);
      if (hi - w * 64 < 64) word &= am_bits_mask(hi - w * 64);
      bits[w] = word;
    }
    am_cpu_set_validity(result, validity, hi - lo);
  }
  job.out = result->data_buf->ptr;
  job.pass = 2;
  am_pool_run(job.parts, fill_part, &job);
  *out = result;
  return AM_OK;
}
