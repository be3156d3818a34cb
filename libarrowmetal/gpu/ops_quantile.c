/* quantile and tdigest on a GPU.
 *
 * quantile: the radix select of kernel_source_select.c. One op counts the
 * digits of pass 0 over every valid non-NaN slot and waits; their sum is
 * the number of values ranked, from which the host finds pyarrow's ranks
 * (core/quantile.h: double arithmetic, which Metal lacks, so it stays on the
 * host). Each distinct rank then runs its fifteen launches (PICK 0, then
 * HIST and PICK of passes 1 to 7) in one op, choosing each digit on the
 * device; the host reads back two words per rank (its key) and makes the
 * nq results on the host device it is given, which the ABI moves to the
 * array's device. The state (4 KiB per rank) is allocated for the call and
 * released with it. Counts are 32-bit: arrays of 2^32 slots or more are
 * refused (the ABI ranks those on the host).
 *
 * tdigest has no GPU kernel: the ABI digests GPU arrays on the host. */
#include <stdlib.h>

#include "core/error.h"
#include "core/quantile.h"
#include "core/types.h"
#include "gpu/ops_shared.h"

enum { RECORD_WORDS = 260, SHARED_WORDS = 256, PASSES = 8 };

static int read_words(am_err *err, am_gpu_device *gpu, void *host, uint64_t address,
                      int64_t bytes) {
  int token = gpu->hooks->enter(gpu);
  int status = gpu->hooks->read(err, gpu, host, address, bytes);
  gpu->hooks->leave(gpu, token);
  return status;
}

static int by_rank(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The index of `rank` in ranks[0..count) (sorted, distinct). */
static int64_t find_rank(const int64_t *ranks, int64_t count, int64_t rank) {
  int64_t lo = 0, hi = count - 1;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    if (ranks[mid] < rank)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* The keys of ranks[0..count) into keys[], over the `m` values counted. */
static int select_keys(am_err *err, const am_array *array, am_array *state, const int64_t *ranks,
                       int64_t count, uint64_t *keys) {
  am_gpu_device *gpu = am_gpu_of(array->device);
  int status = AM_OK;
  for (int64_t r = 0; r < count && status == AM_OK; r++) {
    am_gpu_args args = {0};
    am_gpu_ops_bind(&args, 0, array);
    args.out = am_gpu_ops_address(state->data);
    args.n = array->length;
    args.aux = r;
    args.scalar = (uint64_t)ranks[r];
    am_kernel_key chain[2 * PASSES - 1];
    int launches = 0;
    for (int pass = 0; pass < PASSES; pass++) {
      if (pass > 0)
        chain[launches++] =
            (am_kernel_key){AM_KERNEL_SELECT_HIST, pass, array->type, AM_TYPE_INVALID};
      chain[launches++] =
          (am_kernel_key){AM_KERNEL_SELECT_PICK, pass, AM_TYPE_INVALID, AM_TYPE_INVALID};
    }
    am_gpu_op op = am_gpu_ops_plain(err);
    op.immediate = r + 1 == count; /* the last one waits, inside a batch too */
    status = am_gpu_ops_run(err, gpu, &op, 0, chain, &args, launches);
  }
  for (int64_t r = 0; r < count && status == AM_OK; r++) {
    uint32_t words[2];
    status = read_words(
        err, gpu, words,
        am_gpu_ops_address(state->data) + (uint64_t)(SHARED_WORDS + r * RECORD_WORDS) * 4u,
        sizeof words);
    keys[r] = (uint64_t)words[1] << 32 | words[0];
  }
  return status;
}

int am_gpu_quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, am_device *host, am_array **out) {
  if (array->length >= ((int64_t)1 << 32) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "the GPU's radix select counts fewer than 2^32 slots");
  am_gpu_device *gpu = am_gpu_of(array->device);
  const am_type out_type = am_quantile_out_type(array->type, interpolation);
  int64_t *ranks = malloc((size_t)nq * 2 * sizeof *ranks);
  uint64_t *keys = malloc((size_t)nq * 2 * sizeof *keys);
  am_array *state = NULL, *result = NULL;
  int status = ranks && keys ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  /* room for every rank's record; zeroed: pass 0 adds into the counts */
  const int64_t words = SHARED_WORDS + 2 * nq * RECORD_WORDS;
  if (status == AM_OK) status = am_gpu_ops_result(err, array->device, AM_UINT32, words, 0, &state);
  if (status == AM_OK) status = am_gpu_ops_zero(err, gpu, state->data, words * 4);
  /* pass 0's counts, which also count the values */
  if (status == AM_OK) {
    am_gpu_args args = {0};
    am_gpu_ops_bind(&args, 0, array);
    args.out = am_gpu_ops_address(state->data);
    args.n = array->length;
    am_kernel_key key = {AM_KERNEL_SELECT_HIST, 0, array->type, AM_TYPE_INVALID};
    am_gpu_op op = am_gpu_ops_plain(err);
    op.immediate = 1;
    status = am_gpu_ops_run(err, gpu, &op, 0, &key, &args, 1);
  }
  int64_t m = 0;
  if (status == AM_OK) {
    uint32_t counts[SHARED_WORDS];
    status = read_words(err, gpu, counts, am_gpu_ops_address(state->data), sizeof counts);
    for (int i = 0; i < SHARED_WORDS; i++) m += counts[i];
  }
  if (status == AM_OK && m == 0) {
    /* only NaN: null slots, made on the host like the rest */
    status = am_array_alloc_host(err, host, out_type, nq, 1, &result);
    if (status == AM_OK) {
      memset((void *)result->data, 0, (size_t)am_type_bytes(out_type, nq));
      memset((void *)result->validity, 0, (size_t)((nq + 7) / 8));
      atomic_store(&result->null_count, nq);
    }
  } else if (status == AM_OK) {
    int64_t count = 0;
    for (int64_t i = 0; i < nq; i++) {
      int64_t lo, hi;
      double f;
      am_quantile_ranks(m, q[i], interpolation, &lo, &hi, &f);
      ranks[count++] = lo;
      if (hi != lo) ranks[count++] = hi;
    }
    qsort(ranks, (size_t)count, sizeof *ranks, by_rank);
    int64_t distinct = 0;
    for (int64_t i = 0; i < count; i++)
      if (distinct == 0 || ranks[distinct - 1] != ranks[i]) ranks[distinct++] = ranks[i];
    status = select_keys(err, array, state, ranks, distinct, keys);
    if (status == AM_OK) status = am_array_alloc_host(err, host, out_type, nq, 0, &result);
    if (status == AM_OK) {
      const int width = am_type_bits(out_type) / 8;
      uint8_t *o = (uint8_t *)result->data;
      for (int64_t i = 0; i < nq; i++) {
        int64_t lo, hi;
        double f;
        am_quantile_ranks(m, q[i], interpolation, &lo, &hi, &f);
        const uint64_t lo_bits =
            am_quantile_unkey(array->type, keys[find_rank(ranks, distinct, lo)]);
        const uint64_t hi_bits =
            am_quantile_unkey(array->type, keys[find_rank(ranks, distinct, hi)]);
        const uint64_t bits = am_quantile_value(array->type, interpolation, f, lo_bits, hi_bits);
        memcpy(o + i * width, &bits, (size_t)width); /* little-endian: the low bytes */
      }
      atomic_store(&result->null_count, 0);
    }
  }
  am_array_free(state);
  free(ranks);
  free(keys);
  if (status != AM_OK) {
    am_array_free(result);
    return status;
  }
  *out = result;
  return AM_OK;
}

int am_gpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, am_device *host, am_array **out) {
  (void)array, (void)q, (void)nq, (void)delta, (void)buffer_size, (void)host, (void)out;
  return am_fail(err, AM_EUNSUPPORTED,
                 "tdigest has no GPU kernel: GPU arrays are digested on the host");
}
