/* The exported counters and directory of the GPU kernel caches. */
#include "abi.h"
#include "core/disk_cache.h"
#include "core/kernel_stats.h"

static int cache_info(am_err *err, am_kernel_cache_stats *out) {
  AM_REQUIRE(out, "out");
  am_kernel_stats_read(out);
  return AM_OK;
}

AM_EXPORT int am_kernel_cache_info(am_kernel_cache_stats *out) {
  AM_API_BEGIN;
  AM_API_RETURN(cache_info(err, out));
}

AM_EXPORT const char *am_kernel_cache_dir(void) { return am_disk_cache_dir(); }
