/* What the hash-based functions' backends share (core/hash.h). */
#include "hash.h"

#include <string.h>

void am_hash_groups_free(am_hash_groups *groups) {
  if (!groups) return;
  am_array_free(groups->first);
  am_array_free(groups->counts);
  am_array_free(groups->ids);
  memset(groups, 0, sizeof *groups);
  groups->null_group = -1;
}
