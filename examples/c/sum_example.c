/*
 * The smallest embedding of ArrowMetal: one header, one library.
 *
 * Builds an int64 Arrow array by hand (a validity bitmap, a slice offset and a
 * release callback that counts its calls), moves it into the library with
 * am_import, sums it with am_sum, and checks that the release callback ran
 * exactly once after am_release. Prints "ok" and exits 0 on success.
 *
 *   cc -std=c99 -Wall -Wextra -Werror -I include examples/c/sum_example.c \
 *      -L build -larrowmetal -Wl,-rpath,$PWD/build -o sum_example
 */
#include <stdio.h>

#include "arrowmetal.h"

static int array_releases = 0;
static int schema_releases = 0;

static void release_array(struct ArrowArray *array) {
  array_releases++;
  array->release = NULL;
}

static void release_schema(struct ArrowSchema *schema) {
  schema_releases++;
  schema->release = NULL;
}

static int fail(const char *what) {
  fprintf(stderr, "sum_example: %s (am_last_error: %s)\n", what, am_last_error());
  return 1;
}

int main(void) {
  /* Six slots; the array starts at slot 1. Slot 0 is padding the library must
   * not read, slot 3 is null (its value 1000 must be skipped). */
  static const int64_t values[6] = {-7777, 1, 2, 1000, 4, 5};
  static const uint8_t validity[1] = {0x36}; /* bits 1, 2, 4, 5 set */
  const void *buffers[2] = {validity, values};

  struct ArrowSchema schema = {0};
  schema.format = "l";
  schema.flags = ARROW_FLAG_NULLABLE;
  schema.release = release_schema;

  struct ArrowArray array = {0};
  array.length = 5;
  array.null_count = 1;
  array.offset = 1;
  array.n_buffers = 2;
  array.buffers = buffers;
  array.release = release_array;

  am_array *handle = NULL;
  if (am_import(&schema, &array, NULL, &handle) != AM_OK) return fail("am_import failed");
  if (array.release != NULL) return fail("am_import did not take the array");
  if (array_releases > 1 || schema_releases != 0) return fail("release ran too early");
  if (am_length(handle) != 5 || am_null_count(handle) != 1) return fail("length / null count");

  am_scalar sum;
  if (am_sum(handle, &sum) != AM_OK) return fail("am_sum failed");
  if (sum.type != AM_INT64 || sum.is_null || sum.i64 != 12) return fail("wrong sum");

  am_scalar unused;
  if (am_sum(NULL, &unused) != AM_EINVAL) return fail("am_sum(NULL) is not AM_EINVAL");

  am_release(handle);
  if (array_releases != 1) return fail("the array's release callback did not run exactly once");

  schema.release(&schema); /* the schema was only borrowed */
  if (schema_releases != 1) return fail("schema release");

  printf("ok\n");
  return 0;
}
