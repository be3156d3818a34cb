/* The end of a group-by, shared by its callers (abi/groupby.c) and kernels
 * (cpu/groupby.c, gpu/ops_groupby.c): the key and aggregate results built in
 * work arrays either go to the caller's arrays or are freed. */
#ifndef AM_CORE_GROUP_RESULT_H
#define AM_CORE_GROUP_RESULT_H

#include <stdint.h>

#include "arrowmetal.h"

/* Moves keys[0..n_keys) to keys_out and got[0..n_aggregates) to results,
 * leaving the work arrays empty (so am_group_work_free frees nothing of
 * them). */
void am_group_hand_over(am_array **keys, int64_t n_keys, am_group_result *got, int64_t n_aggregates,
                        am_array **keys_out, am_group_result *results);

/* Frees what the work arrays still hold, then the arrays (either may be
 * NULL). */
void am_group_work_free(am_array **keys, int64_t n_keys, am_group_result *got,
                        int64_t n_aggregates);

#endif
