/* quantile and tdigest (am_quantile, am_tdigest): the
 * checks and options that do not depend on the values (q, delta, skip_nulls,
 * min_count, the result type), then the kernel of the array's device (a
 * GPU's radix select for quantile, its radix sort for tdigest); where that
 * device refuses (2^32 rows or more on a GPU) the values move to the host
 * and are ranked there. The small result
 * is made on the host and goes to the array's device. */
#include <math.h>

#include "abi.h"
#include "core/quantile.h"
#include "route.h"

/* The largest delta taken: pyarrow reserves delta centroids up front (and
 * fails to allocate past about 2^31); the digest here grows as it needs. */
#define AM_TDIGEST_MAX_DELTA ((uint32_t)1 << 20)

typedef struct call {
  int tdigest;
  const double *q;
  int64_t nq;
  am_quantile_interpolation interpolation;
  uint32_t delta, buffer_size;
} call;

static int run_kernel(am_err *err, const call *c, const am_array *input, am_array **result) {
  const am_kernel_ops *k = &input->device->backend->kernels;
  am_device *host = am_host_device();
  return c->tdigest ? k->tdigest(err, input, c->q, c->nq, c->delta, c->buffer_size, host, result)
                    : k->quantile(err, input, c->q, c->nq, c->interpolation, host, result);
}

static int rank(am_err *err, const call *c, const am_array *array, int skip_nulls,
                uint32_t min_count, am_array **out) {
  AM_REQUIRE(array, "array");
  AM_REQUIRE(out, "out");
  if (c->nq > 0) AM_REQUIRE(c->q, "q");
  int status = array->type == AM_FLOAT16 ? AM_OK : am_settle(err, array);
  if (status != AM_OK) return status;
  if (!am_type_is_numeric(array->type))
    return am_fail(err, AM_ETYPE, "Function '%s' has no kernel matching input types (%s)",
                   c->tdigest ? "tdigest" : "quantile", am_type_name(array->type));
  const am_type out_type =
      c->tdigest ? AM_FLOAT64 : am_quantile_out_type(array->type, c->interpolation);
  int64_t nulls = 0;
  if ((status = am_count_nulls(err, array, &nulls)) != AM_OK) return status;
  const int64_t valid = array->length - nulls;
  am_device *host = am_host_device();
  am_array *on_host = NULL, *ranked = NULL;
  if (valid < (int64_t)min_count || (!skip_nulls && nulls > 0) || valid == 0) {
    /* every slot null */
    am_scalar none = {.type = out_type, .is_null = 1};
    status = host->backend->kernels.fill(err, host, &none, c->nq, &ranked);
  } else {
    /* the array's own device first; one that cannot (2^32 slots or more on
     * a GPU) has the values moved to the host and ranked there */
    am_err tried;
    am_err_init(&tried, err->entry);
    status = run_kernel(&tried, c, array, &ranked);
    if (status == AM_EUNSUPPORTED && array->device != host) {
      am_err_merge(err, &tried, 0); /* what it compiled, not its refusal */
      status = am_move(err, array, host, &on_host);
      if (status == AM_OK) status = run_kernel(err, c, on_host, &ranked);
    } else {
      am_err_merge(err, &tried, 1);
    }
  }
  if (status == AM_OK && ranked->device == array->device) {
    *out = ranked;
    ranked = NULL;
  } else if (status == AM_OK) {
    status = am_move(err, ranked, array->device, out);
  }
  am_array_free(ranked);
  am_array_free(on_host);
  return status;
}

static int quantile(am_err *err, const am_array *array, const double *q, int64_t nq,
                    am_quantile_interpolation interpolation, int skip_nulls, uint32_t min_count,
                    am_array **out) {
  if ((unsigned)interpolation > AM_QUANTILE_MIDPOINT)
    return am_fail(err, AM_EINVAL,
                   "interpolation %d is not one of AM_QUANTILE_LINEAR (0) .. "
                   "AM_QUANTILE_MIDPOINT (4)",
                   (int)interpolation);
  if (nq <= 0) return am_fail(err, AM_EINVAL, "Requires quantile argument");
  AM_REQUIRE(q, "q");
  for (int64_t i = 0; i < nq; i++) {
    /* NaN too: pyarrow's index of a NaN q is undefined (it can crash) */
    if (!(q[i] >= 0 && q[i] <= 1))
      return am_fail(err, AM_EINVAL, "Quantile must be between 0 and 1");
  }
  call c = {.q = q, .nq = nq, .interpolation = interpolation};
  return rank(err, &c, array, skip_nulls, min_count, out);
}

static int tdigest(am_err *err, const am_array *array, const double *q, int64_t nq, uint32_t delta,
                   uint32_t buffer_size, int skip_nulls, uint32_t min_count, am_array **out) {
  if (nq < 0) return am_fail(err, AM_EINVAL, "nq is negative (%lld)", (long long)nq);
  if (delta > AM_TDIGEST_MAX_DELTA)
    return am_fail(err, AM_EINVAL, "delta %u is above %u", delta, AM_TDIGEST_MAX_DELTA);
  call c = {.tdigest = 1, .q = q, .nq = nq, .delta = delta, .buffer_size = buffer_size};
  return rank(err, &c, array, skip_nulls, min_count, out);
}

AM_EXPORT int am_quantile(const am_array *array, const double *q, int64_t nq,
                          am_quantile_interpolation interpolation, int skip_nulls,
                          uint32_t min_count, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(quantile(err, array, q, nq, interpolation, skip_nulls, min_count, out));
}

AM_EXPORT int am_tdigest(const am_array *array, const double *q, int64_t nq, uint32_t delta,
                         uint32_t buffer_size, int skip_nulls, uint32_t min_count, am_array **out) {
  AM_API_BEGIN;
  AM_API_RETURN(tdigest(err, array, q, nq, delta, buffer_size, skip_nulls, min_count, out));
}
