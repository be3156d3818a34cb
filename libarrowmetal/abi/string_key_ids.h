/* String and binary keys of a group-by or a join on a GPU, as int32 ids on
 * that GPU, so that the device's numeric group-by and join kernels take
 * them instead of a round trip through the host (string_key_ids.c).
 *
 * A key is replaced when it is utf8, large_utf8, binary or large_binary on
 * a GPU and every other input of the call is on that device and no string:
 * - group-by: its rows' group ids by their bytes (the device's hash_group:
 *   gpu/ops_strings.c), in the order of each value's first row, null for a
 *   null row; the numeric group-by then forms the same groups in the same
 *   order (its groups follow their first rows), and each group's key is
 *   taken back from the string column at the row of its first occurrence;
 * - join: each side's rows as positions in the right side's key column
 *   (index_in over the right keys: the first right row with the same
 *   bytes), null for a null row or a left value the right side lacks (so it
 *   matches nothing, as a value the right side lacks).
 * Where the device declines (two values sharing a 64-bit hash, an empty
 * side, a backend without the kernels) the key stays a string and the
 * call runs on the host as before. */
#ifndef AM_ABI_STRING_KEY_IDS_H
#define AM_ABI_STRING_KEY_IDS_H

#include "abi.h"

typedef struct am_string_key_ids {
  const am_array **keys; /* what to run: the caller's keys, ids in place of
                            the replaced ones (NULL when none is) */
  am_array **ids;        /* owned, per key: its ids, NULL where kept */
  am_array **first;      /* group-by: owned, per replaced key: each id's
                            first row (int64) */
  int64_t n;
} am_string_key_ids;

/* Replaces the string keys of a group-by over `keys` and `values` (checked
 * already) by their group ids where it can. */
int am_string_key_ids_group(am_err *err, const am_array *const *keys, int64_t n_keys,
                            const am_array *const *values, int64_t n_values, am_string_key_ids *s);

/* The group-by's keys_out[k] of each replaced key k (its distinct ids,
 * null for the null group) replaced by the strings of the given key at
 * those groups' first rows, on the key's device. */
int am_string_key_ids_group_keys(am_err *err, const am_string_key_ids *s,
                                 const am_array *const *given, am_array **keys_out);

/* Replaces the string keys of a join (types checked equal, side by side)
 * by positions in the right side's key where it can: left and right get
 * the lists to run. */
int am_string_key_ids_join(am_err *err, const am_array *const *left_keys,
                           const am_array *const *right_keys, int64_t n_keys,
                           am_string_key_ids *left, am_string_key_ids *right);

void am_string_key_ids_free(am_string_key_ids *s);

#endif
