/* A case's inputs, from the index entry to ArrowMetal: arrays read from the IPC
 * files (or drawn by the README's splitmix64 generator for the longest ones),
 * sliced as the case says and moved in with am_import, their release callbacks
 * counted; scalars as am_scalar. */
#ifndef CONFORMANCE_INPUTS_H
#define CONFORMANCE_INPUTS_H

#include <arrowmetal.h>

#include "arrow_bridge.h"
#include "json.h"
#include "values.h"

#define CR_MAX_INPUTS 16
#define CR_MAX_FILES 64

/* The IPC files of one family's folder, opened on first use. */
typedef struct {
  char dir[1024];
  int n;
  struct {
    char name[96];
    cr_ipc_file *file;
  } files[CR_MAX_FILES];
} cr_store;

void cr_store_init(cr_store *store, const char *dir);
void cr_store_close(cr_store *store);
/* The array a reference ({"file", "batch"}) names; 0, or -1 with err. */
int cr_store_read(cr_store *store, const json *ref, struct ArrowSchema *schema,
                  struct ArrowArray *array, char *err, size_t err_size);

/* An array read for the runner's own use (an expected result, a scalar's bytes). */
typedef struct {
  struct ArrowSchema schema;
  struct ArrowArray array;
  cr_column col;
} cr_held;

int cr_hold(cr_store *store, const json *ref, const cr_type *type, cr_held *out, char *err,
            size_t err_size);
void cr_held_release(cr_held *held);

/* Counts the calls of a moved ArrowArray's release callback. */
typedef struct {
  void (*release)(struct ArrowArray *);
  void *private_data;
  int count;
} cr_counter;

/* Interposes `counter` as the moved array's release callback. */
void cr_count_releases(struct ArrowArray *array, cr_counter *counter);

typedef struct {
  int n; /* inputs, in the case's order */
  int is_scalar[CR_MAX_INPUTS];
  const cr_type *types[CR_MAX_INPUTS];
  am_array *arrays[CR_MAX_INPUTS]; /* the array inputs, in order */
  int n_arrays;
  am_scalar *scalars[CR_MAX_INPUTS]; /* the scalar inputs, in order */
  int n_scalars;
  am_scalar scalar_storage[CR_MAX_INPUTS];
  cr_held scalar_arrays[CR_MAX_INPUTS]; /* where a string scalar's bytes live */
  cr_counter counters[CR_MAX_INPUTS];
  int n_moved; /* arrays moved into am_import, each counter one */
} cr_inputs;

/* Builds every input of `inputs` (the index entry's list) onto `device`. On failure
 * whatever was built is released (cr_inputs_release) and err says why. */
int cr_inputs_build(cr_inputs *in, const json *inputs, cr_store *store, am_device *device,
                    char *err, size_t err_size);
void cr_inputs_release(cr_inputs *in);
/* Whether every moved array's release callback ran exactly once; err lists the counts. */
int cr_inputs_released_once(const cr_inputs *in, char *err, size_t err_size);

/* An array input (an index entry of type t, without its "dictionary"): read from the
 * IPC files or drawn, sliced as the entry says, its null count set (-1 where the entry
 * says "unknown_null_count"). 0, or -1 with err. */
int cr_read_input(const json *entry, const cr_type *t, cr_store *store, struct ArrowSchema *schema,
                  struct ArrowArray *array, char *err, size_t err_size);

/* The dictionary array of two input entries, its indices (of index_type; bool or
 * float ones turned into integers of posing_width bytes when that is not 0,
 * cr_as_integers) and its dictionary, assembled by Arrow C++ (cr_make_dictionary).
 * 0, or -1 with err. */
int cr_read_dictionary(const json *indices, const json *dictionary, const cr_type *index_type,
                       int posing_width, int ordered, cr_store *store, struct ArrowSchema *schema,
                       struct ArrowArray *array, char *err, size_t err_size);

/* am_scalar from a value (the Python runner's amabi.make_scalar: poison in the fields
 * the type does not use). */
void cr_make_scalar(const cr_type *t, cr_value v, am_scalar *out);

/* The full (unsliced) array a generator spec draws: README.md, "Generated inputs". */
int cr_generate(const cr_type *t, const json *spec, cr_store *store, struct ArrowSchema *schema,
                struct ArrowArray *array, char *err, size_t err_size);

#endif
