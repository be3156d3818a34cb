/* The import of a dictionary array (schema->dictionary and array->dictionary
 * set): the indices through import.c as any integer array, the dictionary
 * as any array of its own format, both zero-copy; then every valid index is
 * checked against the dictionary's length, so that no kernel reads past it. */
#include <stdlib.h>

#include "core/dictionary_array.h"
#include "dictionary.h"

/* The caller's struct, moved into a buffer whose last reference releases
 * it. The indices and the dictionary are imported from copies of their
 * structs, each of which holds a reference (a copy's release drops it), so
 * the caller's release callback runs once, after both are done with. */
typedef struct parent_keeper {
  am_buffer *buffer; /* context: this block */
  struct ArrowArray moved;
} parent_keeper;

static void release_parent(am_buffer *buffer) {
  parent_keeper *keeper = buffer->context;
  if (keeper->moved.release) keeper->moved.release(&keeper->moved);
  free(keeper);
  am_buffer_free_shell(buffer);
}

static void release_copy(struct ArrowArray *copy) {
  am_buffer_release(copy->private_data);
  copy->release = NULL;
}

/* A copy of `from` sharing the keeper. */
static struct ArrowArray copy_of(const struct ArrowArray *from, am_buffer *keeper) {
  struct ArrowArray copy = *from;
  copy.release = release_copy;
  copy.private_data = am_buffer_retain(keeper);
  return copy;
}

static int check_structs(am_err *err, const struct ArrowSchema *schema,
                         const struct ArrowArray *array) {
  const struct ArrowSchema *values = schema->dictionary;
  if (!values->release)
    return am_fail(err, AM_EINVAL, "the dictionary's schema struct is already released");
  if (values->dictionary)
    return am_fail(err, AM_ETYPE, "a dictionary of dictionary-encoded values is not supported");
  if (!array->dictionary)
    return am_fail(err, AM_EINVAL, "the schema has a dictionary, the array has none");
  if (!array->dictionary->release)
    return am_fail(err, AM_EINVAL, "the dictionary's array struct is already released");
  return AM_OK;
}

int am_import_dictionary(am_err *err, const struct ArrowSchema *schema, struct ArrowArray *array,
                         am_array **out) {
  int status = check_structs(err, schema, array);
  parent_keeper *keeper = status == AM_OK ? malloc(sizeof *keeper) : NULL;
  am_buffer *buffer = keeper ? am_buffer_wrap(NULL, 0, keeper, release_parent) : NULL;
  if (status == AM_OK && !buffer) status = am_fail(err, AM_ENOMEM, "out of memory");
  if (status != AM_OK) {
    free(keeper);
    array->release(array);
    array->release = NULL;
    return status;
  }
  keeper->buffer = buffer;
  keeper->moved = *array;
  array->release = NULL;
  struct ArrowArray indices_copy = copy_of(&keeper->moved, buffer);
  struct ArrowArray values_copy = copy_of(keeper->moved.dictionary, buffer);
  am_buffer_release(buffer); /* the copies hold it from here */
  am_array *indices = NULL, *values = NULL;
  status = am_import_host(err, schema, &indices_copy, 1, &indices);
  if (status != AM_OK) {
    values_copy.release(&values_copy);
    return status;
  }
  status = am_import_host(err, schema->dictionary, &values_copy, 0, &values);
  if (status == AM_OK) status = am_dictionary_check_indices(err, indices, values->length);
  if (status != AM_OK) {
    am_array_free(values);
    am_array_free(indices);
    return status;
  }
  indices->dictionary = values;
  indices->dictionary_ordered = (schema->flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0;
  *out = indices;
  return AM_OK;
}
