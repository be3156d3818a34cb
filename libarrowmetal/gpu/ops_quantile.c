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
 * tdigest: the device compacts and sorts, the host merges (below). */
#include <stdlib.h>

#include "core/error.h"
#include "core/quantile.h"
#include "core/tdigest.h"
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
    op.immediate = op.immediate || r + 1 == count; /* the last waits, inside a batch too */
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

/* ---- tdigest: pyarrow's digest is a chain of merges, each sorted buffer of
 * `buffer_size` values (in slot order, nulls and NaNs left out) merged into
 * what the earlier ones left, so only the sorting can run in parallel. The
 * device compacts the valid non-NaN values as float64 (x == x is false for
 * NaN and null for a null, and a null mask slot drops the row), sorts them
 * by (position / buffer_size, value) with the radix sort, and the host reads
 * the sorted values once and merges the buffers in order (core/tdigest.h):
 * the same digest as the CPU's, without the host's sorts. */

/* A view of `array` without its validity (its null slots' data unread). */
static int without_validity(am_err *err, const am_array *array, am_array **out) {
  am_array *view = am_array_share(array);
  if (!view) return am_fail(err, AM_ENOMEM, "out of memory");
  am_buffer_release(view->validity_buf);
  view->validity_buf = NULL;
  view->validity = NULL;
  atomic_store(&view->null_count, 0);
  *out = view;
  return AM_OK;
}

/* The valid non-NaN values of `array` as float64, in slot order. */
static int digestible(am_err *err, const am_array *array, am_array **out) {
  am_array *wide = NULL, *mask = NULL, *bare = NULL;
  int status = AM_OK;
  if (array->type != AM_FLOAT64) status = am_gpu_cast(err, array, AM_FLOAT64, 0, &wide);
  if (status == AM_OK) status = am_gpu_compare(err, AM_EQ, array, array, NULL, &mask);
  if (status == AM_OK) status = without_validity(err, wide ? wide : array, &bare);
  if (status == AM_OK) status = am_gpu_filter(err, bare, mask, AM_NULL_DROP, out);
  if (status == AM_OK && am_array_pending(*out) && (status = am_gpu_resolve(err, *out)) != AM_OK)
    am_array_free(*out);
  am_array_free(bare);
  am_array_free(mask);
  am_array_free(wide);
  return status;
}

/* `values` (float64, no nulls) sorted within each run of `run` slots. */
static int sort_runs(am_err *err, am_array *values, int64_t run, am_array **out) {
  am_device *device = values->device;
  const int64_t m = values->length;
  am_array *all = NULL, *positions = NULL, *runs = NULL, *order = NULL;
  const int no[2] = {0, 0};
  int status = AM_OK;
  if (m > run) {
    /* the run of each slot: position / run */
    const am_scalar yes = {.type = AM_BOOL, .i64 = 1};
    const am_scalar width = {.type = AM_INT64, .i64 = run};
    if ((status = am_gpu_fill(err, device, &yes, m, &all)) == AM_OK &&
        (status = am_gpu_positions(err, all, &positions)) == AM_OK &&
        (!am_array_pending(positions) || (status = am_gpu_resolve(err, positions)) == AM_OK))
      status = am_gpu_arith(err, AM_DIVIDE, positions, NULL, &width, &runs);
    am_array_free(all);
    am_array_free(positions);
    const am_array *keys[2] = {runs, values};
    if (status == AM_OK) status = am_gpu_sort_indices(err, keys, 2, no, no, &order);
  } else {
    const am_array *keys[1] = {values};
    status = am_gpu_sort_indices(err, keys, 1, no, no, &order);
  }
  am_array_free(runs);
  if (status == AM_OK) {
    order->type = AM_INT64; /* rows below 2^32: the same bits, as take reads them */
    status = am_gpu_take(err, values, order, out);
  }
  am_array_free(order);
  return status;
}

int am_gpu_tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, am_device *host, am_array **out) {
  if (array->length >= ((int64_t)1 << 32) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "the GPU's radix sort takes fewer than 2^32 - 1 rows");
  const int64_t run = buffer_size ? buffer_size : 1; /* pyarrow takes 0 as 1 */
  am_array *values = NULL, *sorted = NULL, *home = NULL, *result = NULL;
  am_digest td;
  int status = am_tdigest_init(err, &td, delta, buffer_size);
  if (status != AM_OK) return status;
  if ((status = digestible(err, array, &values)) == AM_OK && values->length > 0 &&
      (status = sort_runs(err, values, run, &sorted)) == AM_OK &&
      (status = array->device->backend->memory.download(err, sorted, host, &home)) == AM_OK) {
    const double *v = (const double *)home->data + home->offset;
    for (int64_t at = 0; at < home->length && status == AM_OK; at += run) {
      const int64_t left = home->length - at;
      status = am_tdigest_merge_sorted(err, &td, v + at, left < run ? left : run);
    }
  }
  if (status == AM_OK) {
    const int empty = am_tdigest_empty(&td);
    status = am_array_alloc_host(err, host, AM_FLOAT64, nq, empty, &result);
    if (status == AM_OK) {
      double *o = (double *)result->data;
      for (int64_t i = 0; i < nq; i++) o[i] = empty ? 0 : am_tdigest_quantile(&td, q[i]);
      /* only NaN: null slots, as on the CPU */
      if (empty) memset((void *)result->validity, 0, (size_t)((nq + 7) / 8));
      atomic_store(&result->null_count, empty ? nq : 0);
    }
  }
  am_tdigest_free(&td);
  am_array_free(home);
  am_array_free(sorted);
  am_array_free(values);
  return am_gpu_ops_finish(status, result, out);
}
