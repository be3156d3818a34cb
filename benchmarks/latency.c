/* Round-trip latency and bandwidth of ArrowMetal calls from C, on one
 * device (argv[1], default "cuda"). Prints a table of medians; no pass/fail.
 * `latency cuda resident` measures sums with the resident worker off and on
 * instead (interleaved rounds, each sum checked).
 *
 *   cc -O2 -std=c11 -Iinclude benchmarks/latency.c -Lbuild -larrowmetal \
 *      -Wl,-rpath,$PWD/build -o build/latency && build/latency cuda */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "arrowmetal.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static double cpu_us(void) {
  struct rusage usage;
  getrusage(RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e6 + usage.ru_utime.tv_usec +
         usage.ru_stime.tv_usec;
}

static int compare_doubles(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void release_buffers(struct ArrowArray *array) {
  free((void *)array->buffers[1]);
  free(array->buffers);
  array->release = NULL;
}

static void no_release(struct ArrowSchema *schema) { schema->release = NULL; }

static am_array *make_int64(am_device *device, int64_t n) {
  int64_t *values = malloc((size_t)n * sizeof *values);
  for (int64_t i = 0; i < n; i++) values[i] = (i * 7919) % 1000 - 500;
  const void **buffers = malloc(2 * sizeof *buffers);
  buffers[0] = NULL;
  buffers[1] = values;
  struct ArrowArray array = {n, 0, 0, 2, 0, buffers, NULL, NULL, release_buffers, NULL};
  struct ArrowSchema schema = {"l", "", NULL, 0, 0, NULL, NULL, no_release, NULL};
  am_array *out = NULL;
  if (am_import(&schema, &array, device, &out) != AM_OK) {
    fprintf(stderr, "import: %s\n", am_last_error());
    exit(1);
  }
  return out;
}

typedef int (*op_fn)(am_array *a, am_array *b);

static int op_sum(am_array *a, am_array *b) {
  (void)b;
  am_scalar s;
  return am_sum(a, &s);
}

static int op_compare(am_array *a, am_array *b) {
  (void)b;
  am_scalar five = {AM_INT64, 0, 5, 0, 0};
  am_array *out = NULL;
  int status = am_compare_scalar(AM_GT, a, &five, &out);
  am_release(out);
  return status;
}

static int op_filter(am_array *a, am_array *mask) {
  am_array *out = NULL;
  int status = am_filter(a, mask, &out);
  if (status == AM_OK && am_length(out) < 0) status = AM_EDEVICE;
  am_release(out);
  return status;
}

static int op_multiply(am_array *a, am_array *b) {
  (void)b;
  am_scalar three = {AM_INT64, 0, 3, 0, 0};
  am_array *out = NULL;
  int status = am_arith_scalar(AM_MULTIPLY, a, &three, &out);
  am_release(out);
  return status;
}

static int op_add(am_array *a, am_array *b) {
  am_array *out = NULL;
  int status = am_arith(AM_ADD, a, b, &out);
  am_release(out);
  return status;
}

/* The sums of the arrays the ten ops read (set before they are measured),
 * and the time the last batched call spent before am_batch_end (the host's
 * part: every call's checks, allocations and launches or their recording). */
static int64_t sum_of_a, sum_of_b;
static double last_enqueue_us;

/* Ten ops: five sums and five compares, unbatched or in one batch, each
 * sum checked (a wrong one fails the row). */
static int ten_ops(am_array *a, am_array *b, int batched) {
  am_scalar sums[5];
  am_array *outs[5] = {0};
  am_scalar zero = {AM_INT64, 0, 0, 0, 0};
  double start = now_us();
  int status = batched ? am_batch_begin() : AM_OK;
  for (int i = 0; i < 5 && status == AM_OK; i++) {
    status = am_sum(i % 2 ? a : b, &sums[i]);
    if (status == AM_OK) status = am_compare_scalar(AM_LT, a, &zero, &outs[i]);
  }
  last_enqueue_us = now_us() - start;
  if (batched) {
    int ended = am_batch_end();
    if (status == AM_OK) status = ended;
  }
  for (int i = 0; i < 5 && status == AM_OK; i++)
    if (sums[i].i64 != (i % 2 ? sum_of_a : sum_of_b)) {
      fprintf(stderr, "ten ops: sum %d is %lld, not %lld\n", i, (long long)sums[i].i64,
              (long long)(i % 2 ? sum_of_a : sum_of_b));
      status = AM_EDEVICE;
    }
  for (int i = 0; i < 5; i++) am_release(outs[i]);
  return status;
}

static int op_ten_unbatched(am_array *a, am_array *b) { return ten_ops(a, b, 0); }
static int op_ten_batched(am_array *a, am_array *b) { return ten_ops(a, b, 1); }

/* The batched ten ops' time split: before am_batch_end and the whole. */
static void measure_split(int64_t rows, am_array *a, am_array *b, int reps) {
  double *enqueue = malloc((size_t)reps * sizeof *enqueue);
  double *whole = malloc((size_t)reps * sizeof *whole);
  for (int i = 0; i < 20; i++) ten_ops(a, b, 1);
  for (int i = 0; i < reps; i++) {
    double start = now_us();
    if (ten_ops(a, b, 1) != AM_OK) {
      printf("10 ops batched split: error: %s\n", am_last_error());
      break;
    }
    whole[i] = now_us() - start;
    enqueue[i] = last_enqueue_us;
  }
  qsort(enqueue, (size_t)reps, sizeof *enqueue, compare_doubles);
  qsort(whole, (size_t)reps, sizeof *whole, compare_doubles);
  printf("%-22s %12lld %10.1f %10.1f   (of which the ten calls before am_batch_end)\n",
         "  batched: calls", (long long)rows, enqueue[reps / 2], enqueue[0]);
  printf("%-22s %12lld %10.1f %10.1f   (am_batch_end: submission and wait)\n", "  batched: end",
         (long long)rows, whole[reps / 2] - enqueue[reps / 2], whole[0] - enqueue[0]);
  free(enqueue);
  free(whole);
}

/* A batch of `count` sums of a length no batch had before (its graph is
 * built then), against the median of the same batch run again; on CUDA the
 * 16th compiles its batch interpreter, or loads it from the disk cache: the
 * slowest of the rest. */
static void measure_first_batch(am_array *a, int count) {
  double first = 0, second = 0, times[101];
  am_scalar s;
  for (int r = 0; r <= 100; r++) {
    double start = now_us();
    am_batch_begin();
    for (int i = 0; i < count; i++) am_sum(a, &s);
    int status = am_batch_end();
    times[r] = now_us() - start;
    if (status != AM_OK || s.i64 != sum_of_a) {
      printf("first batch of %d: error: %s\n", count, am_last_error());
      return;
    }
    if (r == 0) first = times[0];
    if (r == 1) second = times[1];
  }
  qsort(times + 2, 99, sizeof *times, compare_doubles);
  printf("batch of %2d sums: first %.1f us, second %.1f us, then median %.1f us, slowest %.1f us\n",
         count, first, second, times[51], times[100]);
}

static void measure(const char *name, int64_t rows, op_fn op, am_array *a, am_array *b, int reps) {
  double *times = malloc((size_t)reps * sizeof *times);
  for (int i = 0; i < 20; i++) op(a, b);
  double cpu_start = cpu_us();
  for (int i = 0; i < reps; i++) {
    double start = now_us();
    if (op(a, b) != AM_OK) {
      printf("%-22s %12lld  error: %s\n", name, (long long)rows, am_last_error());
      free(times);
      return;
    }
    times[i] = now_us() - start;
  }
  double cpu = (cpu_us() - cpu_start) / reps;
  qsort(times, (size_t)reps, sizeof *times, compare_doubles);
  printf("%-22s %12lld %10.1f %10.1f %10.1f\n", name, (long long)rows, times[reps / 2], times[0],
         cpu);
  free(times);
}

static int op_sum_checked(am_array *a, am_array *b) {
  (void)b;
  am_scalar s;
  int status = am_sum(a, &s);
  return status == AM_OK && s.i64 != sum_of_a ? AM_EDEVICE : status;
}

/* The worker's own time so far: requests answered and their microseconds,
 * from am_resident_status()'s text; 0 while no worker runs. */
static int worker_time(double *served, double *busy_us) {
  const char *text = strstr(am_resident_status(), "; ");
  unsigned long long count = 0;
  double each = 0.0;
  while (text && sscanf(text, "; %llu requests answered, %lf us", &count, &each) != 2)
    text = strstr(text + 2, "; ");
  if (!text) return 0;
  *served = (double)count;
  *busy_us = (double)count * each;
  return 1;
}

/* Sums through the resident worker against launches: rounds of each in
 * turn (the machine's noise falls on both), then the medians, and the
 * worker's own time per request over each resident round (from seeing the
 * ticket to publishing `served`): the rest is the host's and the bus's. */
static void measure_resident(am_device *device) {
  am_set_default_device(device); /* am_resident_mode acts on the default device */
  int on = am_resident_mode(1);
  printf("resident worker: %s\n", am_resident_status());
  if (!on) return;
  printf("%-22s %12s %10s %10s %10s\n", "sum", "rows", "median us", "min us", "cpu us/op");
  int64_t sizes[] = {0, 1, 100, 1000, 2048, 4096};
  for (int s = 0; s < 6; s++) {
    am_array *a = make_int64(device, sizes[s]);
    am_scalar total;
    am_sum(a, &total);
    sum_of_a = total.i64;
    for (int round = 0; round < 3; round++) {
      am_resident_mode(0);
      measure("  launched", sizes[s], op_sum_checked, a, NULL, 1000);
      am_resident_mode(1);
      double served0 = 0, busy0 = 0, served1 = 0, busy1 = 0;
      int before = worker_time(&served0, &busy0);
      measure("  resident", sizes[s], op_sum_checked, a, NULL, 1000);
      if (before && worker_time(&served1, &busy1) && served1 > served0)
        printf("  %-20s %12lld %10.2f (%.0f requests)\n", "worker us/request", (long long)sizes[s],
               (busy1 - busy0) / (served1 - served0), served1 - served0);
    }
    am_release(a);
  }
  printf("resident worker: %s\n", am_resident_status());
  am_resident_mode(0);
}

int main(int argc, char **argv) {
  const char *spec = argc > 1 ? argv[1] : "cuda";
  am_device *device = NULL;
  if (am_device_open(spec, &device) != AM_OK) {
    printf("%s unavailable: %s\n", spec, am_last_error());
    return 0;
  }
  if (argc > 2 && strcmp(argv[2], "resident") == 0) {
    measure_resident(device);
    return 0;
  }
  printf("device %s, spin %lld us, low latency %d\n", am_device_name(device),
         (long long)am_spin_microseconds(-1), am_low_latency_wait(-1));
  printf("%-22s %12s %10s %10s %10s\n", "op", "rows", "median us", "min us", "cpu us/op");
  int64_t sizes[] = {1000, 10000, 100000, 1000000};
  for (int s = 0; s < 4; s++) {
    int64_t n = sizes[s];
    am_array *a = make_int64(device, n), *b = make_int64(device, n);
    am_array *mask = NULL;
    am_scalar zero = {AM_INT64, 0, 0, 0, 0};
    am_compare_scalar(AM_GT, a, &zero, &mask);
    int reps = n <= 100000 ? 2000 : 500;
    am_scalar total;
    am_sum(a, &total);
    sum_of_a = total.i64;
    am_sum(b, &total);
    sum_of_b = total.i64;
    measure("sum", n, op_sum, a, b, reps);
    measure("compare (a > 5)", n, op_compare, a, b, reps);
    measure("filter", n, op_filter, a, mask, reps);
    measure("multiply (scalar)", n, op_multiply, a, b, reps);
    measure("add (array)", n, op_add, a, b, reps);
    measure("10 ops unbatched", n, op_ten_unbatched, a, b, reps / 4);
    measure("10 ops batched", n, op_ten_batched, a, b, reps / 4);
    measure_split(n, a, b, reps / 4);
    if (s == 0)
      for (int count = 3; count <= 33; count += 10) measure_first_batch(a, count);
    am_release(a);
    am_release(b);
    am_release(mask);
  }
  int64_t big = argc > 2 ? atoll(argv[2]) : 100000000;
  am_array *huge = make_int64(device, big);
  double times[20];
  am_scalar s;
  am_sum(huge, &s);
  for (int i = 0; i < 20; i++) {
    double start = now_us();
    am_sum(huge, &s);
    times[i] = now_us() - start;
  }
  qsort(times, 20, sizeof *times, compare_doubles);
  printf("sum of %lld int64: median %.1f us = %.2f TB/s (min %.1f us = %.2f TB/s)\n",
         (long long)big, times[10], big * 8.0 / times[10] * 1e-6, times[0],
         big * 8.0 / times[0] * 1e-6);
  am_release(huge);
  return 0;
}
