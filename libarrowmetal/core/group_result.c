/* The end of a group-by (group_result.h). */
#include "group_result.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"

void am_group_hand_over(am_array **keys, int64_t n_keys, am_group_result *got, int64_t n_aggregates,
                        am_array **keys_out, am_group_result *results) {
  for (int64_t k = 0; k < n_keys; k++) {
    keys_out[k] = keys[k];
    keys[k] = NULL;
  }
  for (int64_t a = 0; a < n_aggregates; a++) {
    results[a] = got[a];
    memset(&got[a], 0, sizeof got[a]);
  }
}

void am_group_work_free(am_array **keys, int64_t n_keys, am_group_result *got,
                        int64_t n_aggregates) {
  if (keys)
    for (int64_t k = 0; k < n_keys; k++) am_array_free(keys[k]);
  if (got)
    for (int64_t a = 0; a < n_aggregates; a++) {
      am_array_free(got[a].values);
      am_array_free(got[a].max);
      am_array_free(got[a].offsets);
    }
  free(keys);
  free(got);
}
