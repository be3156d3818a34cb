#include "kernel_stats.h"

#include <stdatomic.h>
#include <string.h>

#include "disk_cache.h"

static atomic_llong memory_hits, compiles, compile_ns, load_ns, harvests, dirs_swept;

void am_kernel_stats_memory_hit(void) {
  atomic_fetch_add_explicit(&memory_hits, 1, memory_order_relaxed);
}

void am_kernel_stats_compiled(int64_t nanoseconds) {
  atomic_fetch_add(&compiles, 1);
  atomic_fetch_add(&compile_ns, nanoseconds);
}

void am_kernel_stats_loaded(int64_t nanoseconds) { atomic_fetch_add(&load_ns, nanoseconds); }

void am_kernel_stats_archive(int64_t harvested, int64_t swept) {
  atomic_fetch_add(&harvests, harvested);
  atomic_fetch_add(&dirs_swept, swept);
}

void am_kernel_stats_read(am_kernel_cache_stats *out) {
  am_disk_cache_counters disk;
  am_disk_cache_counters_read(&disk);
  memset(out, 0, sizeof *out);
  out->memory_hits = atomic_load(&memory_hits);
  out->compiles = atomic_load(&compiles);
  out->disk_hits = disk.hits;
  out->disk_misses = disk.misses;
  out->disk_writes = disk.writes;
  out->disk_corrupt = disk.corrupt;
  out->disk_evictions = disk.evictions;
  out->disk_errors = disk.errors;
  out->compile_seconds = (double)atomic_load(&compile_ns) * 1e-9;
  out->load_seconds = (double)atomic_load(&load_ns) * 1e-9;
  out->archive_harvests = atomic_load(&harvests);
  out->archive_dirs_swept = atomic_load(&dirs_swept);
}
