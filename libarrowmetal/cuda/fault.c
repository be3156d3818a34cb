/* A device fault on purpose, for the tests of what follows one (issue #15):
 * ARROWMETAL_TEST_FAULT=<kind>[:<n>] makes the CUDA backend launch, in place
 * of the (n+1)-th kernel of the process (n = 0 by default), a kernel that
 *   illegal-address  writes to an address no allocation covers, so the
 *                    context faults (CUDA error 700, sticky);
 *   hang             never returns, so only the wait watchdog
 *                    (ARROWMETAL_WAIT_TIMEOUT_MS) ends the wait on it.
 * Read once; anything else is ignored with a warning. It exists only to be
 * set by tests: a user never has a reason to. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "cuda.h"
#include "nvrtc.h"

enum { FAULT_NONE, FAULT_ILLEGAL_ADDRESS, FAULT_HANG };

static pthread_once_t read_once = PTHREAD_ONCE_INIT;
static int fault_kind = FAULT_NONE;
static long long fault_after;
static atomic_llong launches;

static void read_setting(void) {
  const char *value = getenv("ARROWMETAL_TEST_FAULT");
  if (!value || !*value) return;
  const char *colon = strchr(value, ':');
  size_t length = colon ? (size_t)(colon - value) : strlen(value);
  char *end = NULL;
  long long after = colon ? strtoll(colon + 1, &end, 10) : 0;
  int kind = FAULT_NONE;
  if (length == strlen("illegal-address") && strncmp(value, "illegal-address", length) == 0)
    kind = FAULT_ILLEGAL_ADDRESS;
  else if (length == strlen("hang") && strncmp(value, "hang", length) == 0)
    kind = FAULT_HANG;
  if (kind == FAULT_NONE || after < 0 || (colon && (end == colon + 1 || *end != '\0'))) {
    am_log(AM_LOG_WARNING,
           "ARROWMETAL_TEST_FAULT=%s is not illegal-address[:n] or hang[:n]; no fault is made",
           value);
    return;
  }
  fault_kind = kind;
  fault_after = after;
  am_log(AM_LOG_WARNING,
         "ARROWMETAL_TEST_FAULT=%s: CUDA kernel launch %lld will %s (a test setting)", value,
         after + 1, kind == FAULT_HANG ? "never end" : "fault");
}

int am_cuda_fault_due(void) {
  pthread_once(&read_once, read_setting);
  if (fault_kind == FAULT_NONE) return 0;
  return atomic_fetch_add(&launches, 1) == fault_after;
}

/* clock64() never goes negative, but the compiler cannot know it, so the
 * loop stays; the write goes to page zero, which no allocation covers. */
static const char fault_source[] =
    "extern \"C\" __global__ void am_test_fault(int hang) {\n"
    "  if (hang) {\n"
    "    while (clock64() >= 0) __nanosleep(1000);\n"
    "  } else {\n"
    "    *(volatile int *)16 = 1;\n"
    "  }\n"
    "}\n";

int am_cuda_launch_fault(am_err *err, am_cuda_device *cuda) {
  void *image = NULL;
  size_t size = 0;
  int status = am_nvrtc_compile(err, fault_source, "am_test_fault", cuda->arch, &image, &size);
  if (status != AM_OK) return status;
  const am_cuda_driver *cu = cuda->cu;
  CUmodule module = NULL;
  CUfunction function = NULL;
  CUresult result = cu->cuModuleLoadData(&module, image);
  free(image);
  if (result == CUDA_SUCCESS) result = cu->cuModuleGetFunction(&function, module, "am_test_fault");
  int hang = fault_kind == FAULT_HANG;
  void *parameters[] = {&hang};
  if (result == CUDA_SUCCESS)
    result = cu->cuLaunchKernel(function, 1, 1, 1, 1, 1, 1, 0, cuda->stream, parameters, NULL);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(err, result, "cuLaunchKernel");
}
