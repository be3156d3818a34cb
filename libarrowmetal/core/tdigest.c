/* The merging t-digest of tdigest.h. */
#include "tdigest.h"

#include <math.h>
#include <stdlib.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

int am_tdigest_init(am_err *err, am_digest *td, uint32_t delta, uint32_t buffer_size) {
  *td = (am_digest){0};
  /* pyarrow takes a compression below 10 as 10 (its digests for delta 0 to 9
   * are delta 10's, on every input tried), and so does this one */
  if (delta < 10) delta = 10;
  td->delta_norm = delta / (2.0 * M_PI);
  td->buffer_size = buffer_size ? buffer_size : 1;
  td->min = INFINITY;
  td->max = -INFINITY;
  td->buffer = malloc((size_t)td->buffer_size * sizeof(double));
  if (!td->buffer) return am_fail(err, AM_ENOMEM, "out of memory for the t-digest's buffer");
  return AM_OK;
}

void am_tdigest_free(am_digest *td) {
  free(td->buffer);
  free(td->mean);
  free(td->weight);
  free(td->mean2);
  free(td->weight2);
  *td = (am_digest){0};
}

/* k1 and its inverse: the weight limit of a centroid starting at quantile q
 * is the quantile one unit of k further on. A delta of 0 makes it NaN, and
 * then no centroid takes another (as in pyarrow). */
static double next_quantile(const am_digest *td, double q) {
  const double k = td->delta_norm * asin(2 * q - 1);
  return (sin((k + 1) / td->delta_norm) + 1) / 2;
}

/* The merge pass: centroids arrive by increasing mean. */
typedef struct merger {
  am_digest *td;
  int64_t count;
  double so_far, limit;
} merger;

static void merger_add(merger *mg, double mean, double weight) {
  am_digest *td = mg->td;
  const double reached = mg->so_far + weight;
  if (mg->count > 0 && reached <= mg->limit) {
    /* into the last centroid: its weighted mean, updated in place */
    double *m = &td->mean2[mg->count - 1], *w = &td->weight2[mg->count - 1];
    *w += weight;
    *m += (mean - *m) * weight / *w;
  } else {
    const double next = td->total * next_quantile(td, mg->so_far / td->total);
    /* limits grow until the last centroid; one that would not closes the
     * digest with everything left */
    mg->limit = next <= mg->limit ? td->total : next;
    td->mean2[mg->count] = mean;
    td->weight2[mg->count] = weight;
    mg->count++;
  }
  mg->so_far = reached;
}

static int reserve(am_err *err, am_digest *td, int64_t need) {
  if (need <= td->capacity) return AM_OK;
  int64_t cap = td->capacity ? td->capacity : 64;
  while (cap < need) cap *= 2;
  double *arrays[4] = {td->mean, td->weight, td->mean2, td->weight2};
  for (int i = 0; i < 4; i++) {
    double *grown = realloc(arrays[i], (size_t)cap * sizeof(double));
    if (!grown) {
      td->mean = arrays[0], td->weight = arrays[1], td->mean2 = arrays[2], td->weight2 = arrays[3];
      return am_fail(err, AM_ENOMEM, "out of memory for the t-digest's centroids");
    }
    arrays[i] = grown;
  }
  td->mean = arrays[0], td->weight = arrays[1], td->mean2 = arrays[2], td->weight2 = arrays[3];
  td->capacity = cap;
  return AM_OK;
}

int am_tdigest_merge_sorted(am_err *err, am_digest *td, const double *values, int64_t n) {
  if (n <= 0) return AM_OK;
  int status = reserve(err, td, td->count + n);
  if (status != AM_OK) return status;
  td->total += (double)n;
  if (values[0] < td->min) td->min = values[0];
  if (values[n - 1] > td->max) td->max = values[n - 1];
  /* a first limit below any weight: the first centroid starts the digest */
  merger mg = {.td = td, .count = 0, .so_far = 0, .limit = -1};
  int64_t c = 0, v = 0;
  while (c < td->count && v < n) {
    /* a centroid goes first only when its mean is below the value */
    if (td->mean[c] < values[v]) {
      merger_add(&mg, td->mean[c], td->weight[c]);
      c++;
    } else {
      merger_add(&mg, values[v++], 1);
    }
  }
  for (; c < td->count; c++) merger_add(&mg, td->mean[c], td->weight[c]);
  for (; v < n; v++) merger_add(&mg, values[v], 1);
  double *t = td->mean;
  td->mean = td->mean2, td->mean2 = t;
  t = td->weight;
  td->weight = td->weight2, td->weight2 = t;
  td->count = mg.count;
  return AM_OK;
}

/* Sorts a buffer of values (no NaN): quicksort with a median of three,
 * insertion sort below 16, the smaller side first so the stack stays
 * shallow. A comparison inlined here is about twice as fast as qsort's
 * callback on buffers of pyarrow's 500. Equal values are interchangeable
 * (only -0.0 and 0.0 could tell an order apart). */
static void sort_values(double *a, int64_t n) {
  while (n > 16) {
    const int64_t mid = n / 2;
    double t;
#define SWAP(i, j) (t = a[i], a[i] = a[j], a[j] = t)
    if (a[mid] < a[0]) SWAP(mid, 0);
    if (a[n - 1] < a[0]) SWAP(n - 1, 0);
    if (a[n - 1] < a[mid]) SWAP(n - 1, mid);
    const double p = a[mid];
    int64_t i = -1, j = n;
    for (;;) {
      do i++;
      while (a[i] < p);
      do j--;
      while (a[j] > p);
      if (i >= j) break;
      SWAP(i, j);
    }
#undef SWAP
    /* [0, j] <= p <= [j + 1, n) */
    if (j + 1 < n - (j + 1)) {
      sort_values(a, j + 1);
      a += j + 1;
      n -= j + 1;
    } else {
      sort_values(a + j + 1, n - (j + 1));
      n = j + 1;
    }
  }
  for (int64_t i = 1; i < n; i++) {
    const double v = a[i];
    int64_t k = i;
    for (; k > 0 && a[k - 1] > v; k--) a[k] = a[k - 1];
    a[k] = v;
  }
}

int am_tdigest_flush(am_err *err, am_digest *td) {
  if (td->buffered == 0) return AM_OK;
  sort_values(td->buffer, td->buffered);
  int status = am_tdigest_merge_sorted(err, td, td->buffer, td->buffered);
  td->buffered = 0;
  return status;
}

int am_tdigest_add(am_err *err, am_digest *td, double value) {
  if (td->buffered == td->buffer_size) {
    int status = am_tdigest_flush(err, td);
    if (status != AM_OK) return status;
  }
  td->buffer[td->buffered++] = value;
  return AM_OK;
}

static double lerp(double a, double b, double t) { return a + t * (b - a); }

double am_tdigest_quantile(const am_digest *td, double q) {
  if (!(q >= 0 && q <= 1) || td->count == 0) return NAN;
  const double rank = q * td->total;
  if (rank <= 1) return td->min;
  if (rank >= td->total - 1) return td->max;
  /* the centroid whose weight reaches the rank */
  int64_t i = 0;
  double reached = 0;
  for (; i < td->count; i++) {
    reached += td->weight[i];
    if (rank <= reached) break;
  }
  if (i == td->count) i = td->count - 1; /* rounding past the total */
  /* how far the rank is past the centroid's centre */
  double past = rank + td->weight[i] / 2 - reached;
  if (td->weight[i] == 1 && fabs(past) < 0.5) return td->mean[i];
  int64_t left = i, right = i;
  if (past > 0) {
    if (right == td->count - 1)
      return lerp(td->mean[right], td->max, past / (td->weight[right] / 2));
    right++;
  } else {
    if (left == 0) return lerp(td->min, td->mean[0], rank / (td->weight[0] / 2));
    left--;
    past += td->weight[left] / 2 + td->weight[right] / 2;
  }
  past /= td->weight[left] / 2 + td->weight[right] / 2;
  return lerp(td->mean[left], td->mean[right], past);
}
