/* The runner's only door to an Arrow library: Apache Arrow C++ (the library and
 * headers the pyarrow wheel ships), behind a C interface of the Arrow C Data
 * Interface. It reads arrays out of Arrow IPC files and validates arrays the way
 * pyarrow's Array.validate(full=True) does. Nothing here parses IPC by hand. */
#ifndef CONFORMANCE_ARROW_BRIDGE_H
#define CONFORMANCE_ARROW_BRIDGE_H

#include <arrowmetal.h> /* the C Data Interface structs, one definition */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An open IPC file (the file format: record batches by index). */
typedef struct cr_ipc_file cr_ipc_file;

/* Opens `path`; NULL with the reason in err (err_size bytes) on failure. */
cr_ipc_file *cr_ipc_open(const char *path, char *err, size_t err_size);
void cr_ipc_close(cr_ipc_file *file);

/* Exports column 0 of record batch `batch` into *schema and *array, which the
 * caller releases. Returns 0, or -1 with the reason in err. */
int cr_ipc_read(cr_ipc_file *file, int64_t batch, struct ArrowSchema *schema,
                struct ArrowArray *array, char *err, size_t err_size);

/* Full validation (Arrow C++ ValidateFull) of an exported array: the structs are
 * moved into Arrow C++ and exported back into the same places, so the caller
 * still owns them afterwards (on failure too). Returns 0, or -1 with the
 * problem in err. */
int cr_validate_full(struct ArrowSchema *schema, struct ArrowArray *array, char *err,
                     size_t err_size);

/* A dictionary array (schema->dictionary set) split into its indices and its
 * dictionary, each exported on its own; the input structs are consumed. */
int cr_split_dictionary(struct ArrowSchema *schema, struct ArrowArray *array,
                        struct ArrowSchema *indices_schema, struct ArrowArray *indices,
                        struct ArrowSchema *dictionary_schema, struct ArrowArray *dictionary,
                        char *err, size_t err_size);

/* A dictionary array assembled by Arrow C++ from its indices (an integer array) and
 * its dictionary, without checking the indices against the dictionary (pyarrow's
 * DictionaryArray.from_arrays(safe=False)): the cases put out-of-range indices under
 * nulls and in the padding before a slice on purpose, and am_import is the check.
 * The four input structs are consumed (on failure too); *schema and *array are the
 * caller's to release. Returns 0, or -1 with the reason in err. */
int cr_make_dictionary(struct ArrowSchema *indices_schema, struct ArrowArray *indices,
                       struct ArrowSchema *dictionary_schema, struct ArrowArray *dictionary,
                       int ordered, struct ArrowSchema *schema, struct ArrowArray *array, char *err,
                       size_t err_size);

/* A bool or float array's values as signed integers of `width` bytes (1, 4 or 8),
 * nulls kept: indices posing as integers, whose format the runner then writes over
 * for am_import to refuse by it (dictionary_cases.POSING_AS). The structs are
 * replaced in place (the old ones released). Returns 0, or -1 with err. */
int cr_as_integers(struct ArrowSchema *schema, struct ArrowArray *array, int width, char *err,
                   size_t err_size);

#ifdef __cplusplus
}
#endif

#endif
