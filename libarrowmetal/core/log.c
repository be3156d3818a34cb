#include "log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "arrowmetal.h"
#include "core/disk_cache.h"

/* A compile burst slower than this is worth a notice on stderr. */
#define NOTICE_AFTER_NS 1000000000LL

static pthread_mutex_t handler_lock = PTHREAD_MUTEX_INITIALIZER;
static am_log_handler handler;
static void *handler_user;

void am_log_set_handler(am_log_handler fn, void *user) {
  pthread_mutex_lock(&handler_lock);
  handler = fn;
  handler_user = user;
  pthread_mutex_unlock(&handler_lock);
}

void am_log(int level, const char *fmt, ...) {
  pthread_mutex_lock(&handler_lock);
  am_log_handler fn = handler;
  void *user = handler_user;
  pthread_mutex_unlock(&handler_lock);
  if (!fn && level < AM_LOG_NOTICE) return;
  char message[512];
  va_list args;
  va_start(args, fmt);
  vsnprintf(message, sizeof message, fmt, args);
  va_end(args);
  /* Called with no lock held: the handler may log, or set another handler. */
  if (fn)
    fn(level, message, user);
  else
    fprintf(stderr, "arrowmetal: %s\n", message);
}

void am_log_compile_burst(int kernels, int kept, int64_t nanoseconds) {
  const char *plural = kernels == 1 ? "" : "s";
  double seconds = (double)nanoseconds * 1e-9;
  const char *dir = am_disk_cache_dir();
  char where[400];
  if (kept == kernels && dir[0])
    snprintf(where, sizeof where, "cached on disk for next time (%s)", dir);
  else if (kept == kernels)
    snprintf(where, sizeof where, "the driver caches them for next time");
  else if (!dir[0])
    snprintf(where, sizeof where,
             "not cached: ARROWMETAL_KERNEL_CACHE=0, so every process compiles them again");
  else
    snprintf(where, sizeof where, "%d of them cached on disk for next time (%s)", kept, dir);
  am_log(nanoseconds > NOTICE_AFTER_NS ? AM_LOG_NOTICE : AM_LOG_INFO,
         "compiled %d GPU kernel%s in %.1f s (first use); %s", kernels, plural, seconds, where);
}
