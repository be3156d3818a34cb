/* Compiled kernels of one GPU device, by key.
 *
 * A hash table of immutable entries, read without a lock: a lookup loads the
 * table with acquire ordering and probes it. Misses build under the device's
 * compile lock: the source is generated (only then), the disk cache is asked,
 * the backend compiles what it does not have, and the entry is published.
 * The table doubles when half full, so no kind, op or type can overflow it;
 * a replaced table stays readable (threads may be probing it) and is kept
 * for the device's life, which is the process's. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/disk_cache.h"
#include "core/kernel_stats.h"
#include "gpu/dialect.h"
#include "gpu/runtime.h"

typedef struct kernel_entry {
  am_kernel_key key;
  void *kernel;
} kernel_entry;

struct am_gpu_kernel_table {
  size_t capacity; /* a power of two */
  size_t count;
  am_gpu_kernel_table *replaced; /* the smaller table this one replaced */
  _Atomic(kernel_entry *) slots[];
};

enum { INITIAL_CAPACITY = 256 };

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t key_hash(const am_kernel_key *key) {
  uint64_t x = ((uint64_t)(uint32_t)key->kind << 48) ^ ((uint64_t)(uint32_t)key->op << 32) ^
               ((uint64_t)(uint32_t)key->t0 << 16) ^ (uint64_t)(uint32_t)key->t1;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

static int key_equal(const am_kernel_key *a, const am_kernel_key *b) {
  return a->kind == b->kind && a->op == b->op && a->t0 == b->t0 && a->t1 == b->t1;
}

static void *find(const am_gpu_kernel_table *table, const am_kernel_key *key) {
  if (!table) return NULL;
  size_t mask = table->capacity - 1;
  for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask) {
    kernel_entry *entry =
        atomic_load_explicit(&((am_gpu_kernel_table *)table)->slots[i], memory_order_acquire);
    if (!entry) return NULL;
    if (key_equal(&entry->key, key)) return entry->kernel;
  }
}

static void place(am_gpu_kernel_table *table, kernel_entry *entry) {
  size_t mask = table->capacity - 1;
  size_t i = key_hash(&entry->key) & mask;
  while (atomic_load_explicit(&table->slots[i], memory_order_relaxed)) i = (i + 1) & mask;
  atomic_store_explicit(&table->slots[i], entry, memory_order_release);
  table->count++;
}

static am_gpu_kernel_table *new_table(size_t capacity) {
  am_gpu_kernel_table *table =
      calloc(1, sizeof *table + capacity * sizeof(_Atomic(kernel_entry *)));
  if (table) table->capacity = capacity;
  return table;
}

/* With the compile lock held: publishes `entry`, growing the table first
 * when it would be more than half full. */
static int publish(am_err *err, am_gpu_device *gpu, kernel_entry *entry) {
  am_gpu_kernel_table *table = atomic_load_explicit(&gpu->kernels, memory_order_relaxed);
  if (!table || 2 * (table->count + 1) > table->capacity) {
    am_gpu_kernel_table *grown = new_table(table ? 2 * table->capacity : INITIAL_CAPACITY);
    if (!grown) return am_fail(err, AM_ENOMEM, "out of memory growing the kernel table");
    for (size_t i = 0; table && i < table->capacity; i++) {
      kernel_entry *old = atomic_load_explicit(&table->slots[i], memory_order_relaxed);
      if (old) place(grown, old);
    }
    grown->replaced = table;
    atomic_store_explicit(&gpu->kernels, grown, memory_order_release);
    table = grown;
  }
  place(table, entry);
  return AM_OK;
}

/* Counts a compile in the process's statistics and in the call's burst
 * (reported when the exported call returns); `kept`: the next process will
 * not compile it again (the disk cache, or the driver's own cache, has it). */
static void compiled(am_err *err, int64_t nanoseconds, int kept) {
  am_kernel_stats_compiled(nanoseconds);
  err->kernels_compiled++;
  err->kernels_kept += kept;
  err->compile_ns += nanoseconds;
}

int am_gpu_kernel_of_source(am_err *err, am_gpu_device *gpu, char *source, const char *name,
                            void **out) {
  int status = AM_OK;
  int64_t started = now_ns();
  if (!gpu->hooks->compile) {
    /* The driver compiles from source and caches what it compiled. */
    status = gpu->hooks->load(err, gpu, source, strlen(source) + 1, name, out);
    free(source);
    if (status == AM_OK) compiled(err, now_ns() - started, 1);
    return status;
  }
  const char *compiler = gpu->hooks->compiler_id(gpu);
  const char *parts[] = {source, compiler};
  am_cache_key cache_key = am_cache_key_of(parts, 2);
  const char *kind = am_dialect_name(gpu->dialect);
  void *image = NULL;
  size_t size = 0;
  int from_disk = am_disk_cache_get(kind, cache_key, &image, &size);
  if (!from_disk) {
    status = gpu->hooks->compile(err, gpu, source, name, &image, &size);
    if (status == AM_OK) {
      compiled(err, now_ns() - started, am_disk_cache_dir()[0] != '\0');
      am_disk_cache_put(kind, cache_key, image, size);
    }
  }
  free(source);
  if (status != AM_OK) return status;
  int64_t load_started = now_ns();
  status = gpu->hooks->load(err, gpu, image, size, name, out);
  free(image);
  if (status == AM_OK) am_kernel_stats_loaded(now_ns() - (from_disk ? started : load_started));
  return status;
}

/* The kernel of `key`, from the disk cache or compiled; with the compile
 * lock and the context held. */
static int build(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, void **out) {
  char *source = NULL;
  int status = am_kernel_source(err, gpu->dialect, key, &source);
  if (status != AM_OK) return status;
  char name[64];
  am_kernel_name(key, name, sizeof name);
  return am_gpu_kernel_of_source(err, gpu, source, name, out);
}

int am_gpu_kernel(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, void **kernel) {
  void *found = find(atomic_load_explicit(&gpu->kernels, memory_order_acquire), key);
  if (found) {
    am_kernel_stats_memory_hit();
    *kernel = found;
    return AM_OK;
  }
  pthread_mutex_lock(&gpu->compile_lock);
  found = find(atomic_load_explicit(&gpu->kernels, memory_order_acquire), key);
  int status = AM_OK;
  if (!found) {
    kernel_entry *entry = malloc(sizeof *entry);
    status = entry ? build(err, gpu, key, &found) : am_fail(err, AM_ENOMEM, "out of memory");
    if (status == AM_OK) {
      entry->key = *key;
      entry->kernel = found;
      status = publish(err, gpu, entry);
    }
    if (status != AM_OK) free(entry);
  }
  pthread_mutex_unlock(&gpu->compile_lock);
  if (status == AM_OK) *kernel = found;
  return status;
}
