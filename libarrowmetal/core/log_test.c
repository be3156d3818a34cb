/* Unit test of the log: a handler receives every message at its level; the
 * compile-burst report is INFO under a second and NOTICE over it, and says
 * where the kernels were kept; without a handler, only NOTICE and above reach
 * stderr, one "arrowmetal: " line each. The disk cache's directory is this
 * test's own (am_disk_cache_dir below), so each wording can be reached.
 * Exit status 0 = pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static const char *cache_dir = "/cache";
const char *am_disk_cache_dir(void) { return cache_dir; }

static int last_level, calls;
static char last_message[600];

static void record(int level, const char *message, void *user) {
  last_level = level;
  calls += user == (void *)&calls;
  snprintf(last_message, sizeof last_message, "%s", message);
}

static int expect(int level, const char *part) {
  if (last_level == level && strstr(last_message, part)) return 0;
  printf("expected level %d with \"%s\", got %d: %s\n", level, part, last_level, last_message);
  return 1;
}

int main(void) {
  int failures = 0;
  am_log_set_handler(record, &calls);
  am_log(AM_LOG_DEBUG, "x=%d", 7);
  failures += expect(AM_LOG_DEBUG, "x=7");
  am_log_compile_burst(3, 3, 400000000);
  failures += expect(AM_LOG_INFO,
                     "compiled 3 GPU kernels in 0.4 s (first use); cached on disk "
                     "for next time (/cache)");
  am_log_compile_burst(24, 24, 2300000000LL);
  failures += expect(AM_LOG_NOTICE, "compiled 24 GPU kernels in 2.3 s");
  am_log_compile_burst(1, 1, 10);
  failures += expect(AM_LOG_INFO, "compiled 1 GPU kernel in");
  am_log_compile_burst(4, 1, 10);
  failures += expect(AM_LOG_INFO, "1 of them cached on disk");
  cache_dir = "";
  am_log_compile_burst(2, 0, 10);
  failures += expect(AM_LOG_INFO, "ARROWMETAL_KERNEL_CACHE=0");
  am_log_compile_burst(2, 2, 10);
  failures += expect(AM_LOG_INFO, "the driver caches them");
  if (calls != 7) printf("handler called %d times, expected 7\n", calls), failures++;

  /* No handler: stderr, NOTICE and above only. */
  am_log_set_handler(NULL, NULL);
  char path[] = "/tmp/arrowmetal-log-test-XXXXXX";
  int fd = mkstemp(path);
  int saved = dup(2);
  dup2(fd, 2);
  am_log(AM_LOG_INFO, "quiet");
  am_log(AM_LOG_NOTICE, "loud %s", "notice");
  am_log(AM_LOG_WARNING, "warned");
  fflush(stderr);
  dup2(saved, 2);
  char text[256] = {0};
  lseek(fd, 0, SEEK_SET);
  ssize_t got = read(fd, text, sizeof text - 1);
  close(fd);
  unlink(path);
  if (got < 0 || strcmp(text, "arrowmetal: loud notice\narrowmetal: warned\n") != 0)
    printf("stderr was \"%s\"\n", text), failures++;
  printf("%s\n", failures ? "FAIL" : "ok");
  return failures != 0;
}
