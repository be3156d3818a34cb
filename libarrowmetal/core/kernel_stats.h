/* Process-wide counters of the GPU kernel caches, behind
 * am_kernel_cache_info() (abi/). The disk counters live in disk_cache.c. */
#ifndef AM_CORE_KERNEL_STATS_H
#define AM_CORE_KERNEL_STATS_H

#include <stdint.h>

#include "arrowmetal.h"

void am_kernel_stats_memory_hit(void);
void am_kernel_stats_compiled(int64_t nanoseconds);
void am_kernel_stats_loaded(int64_t nanoseconds);
void am_kernel_stats_archive(int64_t harvests, int64_t dirs_swept);

/* The counters, the disk cache's included. */
void am_kernel_stats_read(am_kernel_cache_stats *out);

#endif
