/* Dictionary arrays (an am_array whose `dictionary` is set, core/array.h):
 * the host loops over their indices that no backend kernel does -- the
 * range check of an import, the read of a per-dictionary-value result at
 * every row's index, the rewrite of indices into a unified dictionary.
 * Dictionary arrays live on the host (GPUs refuse them), so these read and
 * write host memory. Indices are any Arrow integer type. */
#ifndef AM_CORE_DICTIONARY_ARRAY_H
#define AM_CORE_DICTIONARY_ARRAY_H

#include <stdint.h>

#include "array.h"

/* AM_EINDEX naming the first valid index outside [0, dictionary_length)
 * (a null slot's index is never read: Arrow leaves it undefined). */
int am_dictionary_check_indices(am_err *err, const am_array *indices, int64_t dictionary_length);

/* A new host array of `map`'s type (AM_BOOL or AM_INT32) with one slot a
 * row of `indices`: map's slot at the row's index (null where that slot is
 * null), or, where the index is null, `fill` (null when fill_is_null). */
int am_dictionary_gather(am_err *err, const am_array *indices, const am_array *map,
                         int fill_is_null, int64_t fill, am_array **out);

/* A new host array of the indices' type and validity with every valid index
 * i replaced by map[i] (every map[i] fits the type: the caller checked). */
int am_dictionary_transpose(am_err *err, const am_array *indices, const int64_t *map,
                            am_array **out);

/* The true slots of a host bool array (its nulls counted as false). */
int64_t am_bool_count_true(const am_array *array);

#endif
