/* On-disk cache of compiled GPU kernels, one file per kernel.
 *
 * Learned from Metal binary archives leaking a working directory per archive
 * object (shared/seeds): the cache owns plain files only, never a driver's
 * archive object. Each file is keyed by a 128-bit hash of everything that
 * determines the compiled bytes (source, options, GPU architecture, compiler
 * version); it is written to a temporary file and renamed into place, so a
 * reader sees a whole file or none; a file that is short, corrupt or for
 * another key is a miss (and removed); a size cap evicts the least recently
 * used files; temporary files of processes that died are swept.
 *
 * Location: ARROWMETAL_CACHE_DIR, else $XDG_CACHE_HOME/arrowmetal, else
 * ~/.cache/arrowmetal; ARROWMETAL_KERNEL_CACHE=0 turns the disk cache off;
 * ARROWMETAL_CACHE_MAX_BYTES caps it (default 256 MiB). */
#ifndef AM_CORE_DISK_CACHE_H
#define AM_CORE_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct am_cache_key {
  uint64_t hash[2];
} am_cache_key;

/* Hashes `count` NUL-terminated parts, each with its length, so that no two
 * different part lists collide by concatenation. */
am_cache_key am_cache_key_of(const char *const *parts, int count);

/* 1 and a malloc'd copy of the payload on a hit, 0 on a miss. `kind` names a
 * subdirectory ("cuda"). */
int am_disk_cache_get(const char *kind, am_cache_key key, void **data, size_t *size);

/* Stores a payload; failures only count as disk errors (the cache is an
 * optimisation, never a reason to fail a call). */
void am_disk_cache_put(const char *kind, am_cache_key key, const void *data, size_t size);

/* Counters since the process started. */
typedef struct am_disk_cache_counters {
  int64_t hits, misses, writes, corrupt, evictions, errors;
} am_disk_cache_counters;
void am_disk_cache_counters_read(am_disk_cache_counters *out);

/* The directory in use ("" when the disk cache is off). */
const char *am_disk_cache_dir(void);

#endif
