/* Unit test of am_backend_check: a table with every slot passes; each empty
 * slot, in turn, is refused with a message naming it. Exit status 0 = pass. */
#include <stdio.h>
#include <string.h>

#include "backend.h"

/* A stand-in for every slot: the check only looks at whether one is set. */
static int any(void) { return 0; }
#define FN(type) ((type)(void (*)(void))any)

int main(void) {
  am_backend full = {.name = "test", .device_type = ARROW_DEVICE_CPU};
  /* Every slot is a function pointer after the three header fields: fill
   * them all through the struct's layout, then empty one at a time. */
  full.probe = FN(int (*)(am_err *));
  full.device_count = FN(int (*)(void));
  full.open_device = FN(int (*)(am_err *, am_device *));
  void (**slots)(void) = (void (**)(void))(void *)&full.memory.upload;
  void (**end)(void) = (void (**)(void))(void *)((char *)&full + sizeof full);
  int count = 0;
  for (void (**slot)(void) = slots; slot < end; slot++, count++) *slot = (void (*)(void))any;
  am_err err;
  am_err_init(&err, "backend_test");
  int failures = am_backend_check(&err, &full) != AM_OK;
  for (void (**slot)(void) = slots; slot < end; slot++) {
    am_backend copy = full;
    void (**hole)(void) = (void (**)(void))((char *)&copy + ((char *)slot - (char *)&full));
    *hole = NULL;
    int status = am_backend_check(&err, &copy);
    if (status != AM_EUNSUPPORTED || !strstr(err.message, "the test backend is incomplete")) {
      printf("slot %d: status %d, message '%s'\n", (int)(slot - slots), status, err.message);
      failures++;
    }
  }
  am_backend no_type = full;
  no_type.device_type = 0;
  failures += am_backend_check(&err, &no_type) != AM_EUNSUPPORTED;
  printf("%d slots checked\n%s\n", count, failures ? "FAIL" : "ok");
  return failures != 0;
}
