/* One core's floor for a memory-bound element-wise op on this machine: the
 * time memcpy takes to read and write the bytes the op moves (issue #11's
 * 10^6-row rows move 8 MB in and 8 MB out), on one thread and split over
 * two (the caller and a spinning helper a half each), beside which
 * pyarrow.compute's single-threaded kernels and the CPU backend's two
 * threads are measured (elementwise_sweep_bench.py). Medians of 41, ms. No
 * ArrowMetal code.
 *
 *   cc -O2 -pthread benchmarks/cpu_copy_floor.c -o build/cpu_copy_floor
 *   build/cpu_copy_floor [bytes each way, default 8000000] */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { REPS = 41 };

typedef struct half {
  char *to;
  const char *from;
  size_t bytes;
} half;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* A helper thread that spins for its next half (as the CPU backend's
 * workers spin between kernels): generation g asks it to copy `job`. */
static half job;
static atomic_int asked, done;

static void *helper(void *arg) {
  (void)arg;
  for (int seen = 0;;) {
    int g;
    while ((g = atomic_load_explicit(&asked, memory_order_acquire)) == seen) {
    }
    if (g < 0) return NULL;
    memcpy(job.to, job.from, job.bytes);
    seen = g;
    atomic_store_explicit(&done, g, memory_order_release);
  }
}

/* Copies `bytes` on `threads` (1, or 2: the caller and the helper a half
 * each). */
static double median_copy(char *to, const char *from, size_t bytes, int threads) {
  double t[REPS];
  static int generation;
  for (int r = 0; r < REPS; r++) {
    size_t mine = threads == 1 ? bytes : bytes / 2;
    double start = now_ms();
    if (threads == 2) {
      job = (half){to + mine, from + mine, bytes - mine};
      atomic_store_explicit(&asked, ++generation, memory_order_release);
    }
    memcpy(to, from, mine);
    if (threads == 2)
      while (atomic_load_explicit(&done, memory_order_acquire) != generation) {
      }
    t[r] = now_ms() - start;
  }
  qsort(t, REPS, sizeof t[0], compare);
  return t[REPS / 2];
}

int main(int argc, char **argv) {
  size_t bytes = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 8000000;
  char *from = malloc(bytes), *to = malloc(bytes);
  if (!from || !to) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  memset(from, 1, bytes);
  memset(to, 2, bytes); /* both touched: no page faults in the timed copies */
  printf("memcpy of %zu bytes (as many read and written), medians of %d:\n", bytes, REPS);
  pthread_t other;
  if (pthread_create(&other, NULL, helper, NULL) != 0) return 1;
  printf("  one thread  %.3f ms\n", median_copy(to, from, bytes, 1));
  printf("  two threads %.3f ms\n", median_copy(to, from, bytes, 2));
  atomic_store_explicit(&asked, -1, memory_order_release);
  pthread_join(other, NULL);
  free(from);
  free(to);
  return 0;
}
