/* sort_indices on a GPU (core/backend.h's sort_indices): the
 * stable LSD radix sort of kernel_source_sort.c, the CPU's (cpu/sort.c)
 * algorithm on the device.
 *
 * The permutation is sorted stably by the last key column, then by each
 * earlier one. Per column: one op gathers the positions' order keys
 * (SORT_KEYS) and waits, and the host reads back five words: which bytes
 * vary among the numbers' keys (a byte the same in every number orders
 * nothing and its pass is skipped) and whether a NaN or null row exists
 * (then a class pass runs last). A second op then runs every pass of the
 * column, three launches each (COUNT, SCAN, SCATTER), under one commit:
 * the launches are ordered on the device, so nothing waits between them.
 * On CUDA, below 2^30 rows, a byte pass is one ONESWEEP launch instead:
 * SORT_KEYS counts every byte's digits as it gathers, and each pass finds
 * its blocks' places by a look-back (kernel_source_sort.c); the class pass
 * keeps its three launches. At the end WIDEN copies the u32 rows into the
 * u64 result, unless the sort's last pass was a ONESWEEP: that one writes
 * the rows as u64 into the key buffer it would have filled, the result.
 *
 * Memory: two key buffers of n u64, two row buffers of n u32, and the
 * counts (256 u32 a block of AM_SORT_TILE rows; for ONESWEEP the larger
 * of that and its status words, 2 * 256 u32 a tile of AM_GPU_BLOCK *
 * AM_SORT_ONESWEEP_KPT rows: the class pass's counts reuse the status words, which
 * the next column zeroes again), all device arrays of the
 * runtime, so counted in the device's memory statistics; the keys (but a
 * key buffer that holds the result) and counts are freed before the result
 * is made, and everything but the result is freed on every path. Rows and places are 32-bit on the
 * device: 2^32 - 1 rows or more are refused (AM_EUNSUPPORTED: the ABI sorts those on the host). */

#include "core/error.h"
#include "core/types.h"
#include "gpu/ops_shared.h"

static int read_words(am_err *err, am_gpu_device *gpu, void *host, uint64_t address,
                      int64_t bytes) {
  int token = gpu->hooks->enter(gpu);
  int status = gpu->hooks->read(err, gpu, host, address, bytes);
  gpu->hooks->leave(gpu, token);
  return status;
}

/* `count` launches, each with its own arguments, as one op under one commit;
 * with `wait` the op completes before this returns (inside a batch too). */
static int launch_all(am_err *err, am_gpu_device *gpu, const am_kernel_key *keys, am_gpu_args *args,
                      int count, int wait) {
  am_gpu_op op = am_gpu_ops_plain(err);
  op.immediate = op.immediate || wait;
  int token = 0;
  int status = am_gpu_op_begin(err, gpu, &token);
  if (status != AM_OK) return status;
  for (int i = 0; i < count && status == AM_OK; i++)
    status = am_gpu_launch(err, gpu, &keys[i], &args[i]);
  return am_gpu_op_end(err, gpu, token, status, &op);
}

static int key_bytes(am_type t) { return t == AM_BOOL ? 1 : am_type_bits(t) / 8; }

typedef struct sort_state {
  am_gpu_device *gpu;
  int64_t n;
  int onesweep;                /* byte passes in one launch each */
  int folded;                  /* the last pass left the result in keys[0] */
  am_array *keys[2], *rows[2]; /* [0]: the current buffer */
  am_array *counts;
} sort_state;

/* The sort's u32 scratch words (kernels.h: AM_KERNEL_SORT_*). */
static int64_t scratch_words(int64_t n, int onesweep) {
  const int64_t counts = 256 * am_sort_blocks(n), status = 2 * 256 * am_sort_tiles(n);
  return AM_SORT_HEAD + (onesweep && status > counts ? status : counts);
}

static void swap(am_array **pair) {
  am_array *t = pair[0];
  pair[0] = pair[1];
  pair[1] = t;
}

/* Sorts the permutation stably by `column` (`first`: the first sorted by,
 * `last`: the last). */
static int sort_by(am_err *err, sort_state *s, const am_array *column, int descending,
                   int nulls_first, int first, int last) {
  const uint64_t counts = am_gpu_ops_address(s->counts->data);
  /* the header, and ONESWEEP's status words of parity 0 */
  const int64_t zeroed = AM_SORT_HEAD + (s->onesweep ? 256 * am_sort_tiles(s->n) : 0);
  int status = am_gpu_ops_zero(err, s->gpu, s->counts->data, zeroed * 4);
  if (status != AM_OK) return status;
  /* the keys, and what varies among them. With ONESWEEP the first column's
   * gather writes no rows: its first byte pass takes the positions as its
   * rows (identity), which saves writing and reading 4 bytes a row. */
  const int identity = first && s->onesweep;
  am_gpu_args gather = {0};
  am_gpu_ops_bind(&gather, 0, column);
  gather.in1 = first ? 0 : am_gpu_ops_address(s->rows[0]->data);
  gather.out = am_gpu_ops_address(s->keys[0]->data);
  gather.out_valid = first && !identity ? am_gpu_ops_address(s->rows[0]->data) : 0;
  gather.scratch = counts;
  gather.n = s->n;
  am_kernel_key key = {
      AM_KERNEL_SORT_KEYS,
      (descending ? 1 : 0) | (first ? 2 : 0) | (s->onesweep ? 4 : 0) | (identity ? 8 : 0),
      column->type, AM_TYPE_INVALID};
  status = launch_all(err, s->gpu, &key, &gather, 1, 1);
  uint32_t head[5];
  if (status == AM_OK) status = read_words(err, s->gpu, head, counts, sizeof head);
  if (status != AM_OK) return status;
  const uint64_t varies = ((uint64_t)head[1] << 32 | head[0]) & ((uint64_t)head[3] << 32 | head[2]);
  int first_byte = -1;
  for (int byte = key_bytes(column->type) - 1; byte >= 0; byte--)
    if ((varies >> (8 * byte)) & 0xff) first_byte = byte;
  if (identity && first_byte < 0) {
    /* No byte varies, so no pass takes the positions: the rows are written
     * after all, by the gather again without its histograms (the same keys
     * and header words). */
    gather.out_valid = am_gpu_ops_address(s->rows[0]->data);
    key.op = (descending ? 1 : 0) | 2;
    if ((status = launch_all(err, s->gpu, &key, &gather, 1, 1)) != AM_OK) return status;
  }
  /* the passes: at most 8 bytes and the class pass, three launches each
   * (SCAN's op is the pass, whose digit totals it reads), or one a byte
   * with ONESWEEP (aux: the parity of its status words) */
  am_kernel_key keys[27];
  am_gpu_args args[27];
  int launches = 0, parity = 0;
  /* The sort's last pass, a byte's ONESWEEP, writes the rows as u64 in
   * place of the keys (the result, without a WIDEN). */
  int final_byte = -1;
  if (s->onesweep && last && head[4] == 0)
    for (int byte = 0; byte < key_bytes(column->type); byte++)
      if ((varies >> (8 * byte)) & 0xff) final_byte = byte;
  for (int byte = 0; byte <= key_bytes(column->type); byte++) {
    const int class_pass = byte == key_bytes(column->type);
    if (class_pass ? head[4] == 0 : ((varies >> (8 * byte)) & 0xff) == 0) continue;
    am_gpu_args a = {0};
    if (class_pass) {
      am_gpu_ops_bind(&a, 0, column);
    } else {
      a.in0 = am_gpu_ops_address(s->keys[0]->data);
      a.out = am_gpu_ops_address(s->keys[1]->data);
    }
    a.in1 = am_gpu_ops_address(s->rows[0]->data);
    a.out_valid = am_gpu_ops_address(s->rows[1]->data);
    a.scratch = counts;
    a.n = s->n;
    const int op = class_pass ? AM_SORT_CLASS_PASS + (nulls_first ? 1 : 0) : byte;
    const am_type t = class_pass ? column->type : AM_TYPE_INVALID;
    if (s->onesweep && !class_pass) {
      a.aux = parity;
      parity ^= 1;
      keys[launches] = (am_kernel_key){
          AM_KERNEL_SORT_ONESWEEP,
          byte | (byte == final_byte ? 8 : 0) | (identity && byte == first_byte ? 16 : 0),
          AM_TYPE_INVALID, AM_TYPE_INVALID};
      args[launches++] = a;
      s->folded = byte == final_byte;
      swap(s->keys);
      swap(s->rows);
      continue;
    }
    const am_kernel_kind kinds[3] = {AM_KERNEL_SORT_COUNT, AM_KERNEL_SORT_SCAN,
                                     AM_KERNEL_SORT_SCATTER};
    for (int i = 0; i < 3; i++) {
      keys[launches] = (am_kernel_key){kinds[i], i == 1 ? (class_pass ? 8 : byte) : op,
                                       i == 1 ? AM_TYPE_INVALID : t, AM_TYPE_INVALID};
      args[launches++] = a;
    }
    if (!class_pass) swap(s->keys);
    swap(s->rows);
  }
  return launches ? launch_all(err, s->gpu, keys, args, launches, 1) : AM_OK;
}

int am_gpu_sort_indices(am_err *err, const am_array *const *keys, int64_t n_keys,
                        const int *descending, const int *nulls_first, am_array **out) {
  const int64_t n = keys[0]->length;
  if (n >= ((int64_t)1 << 32) - 1)
    return am_fail(err, AM_EUNSUPPORTED, "the GPU's radix sort takes fewer than 2^32 - 1 rows");
  am_device *device = keys[0]->device;
  sort_state s = {.gpu = am_gpu_of(device), .n = n};
  s.onesweep = s.gpu->dialect == AM_DIALECT_CUDA && n < AM_SORT_ONESWEEP_MAX;
  int status = AM_OK;
  for (int i = 0; i < 2 && status == AM_OK && n > 0; i++)
    status = am_gpu_ops_result(err, device, AM_UINT32, n, 0, &s.rows[i]);
  for (int i = 0; i < 2 && status == AM_OK && n > 0; i++)
    status = am_gpu_ops_result(err, device, AM_UINT64, n, 0, &s.keys[i]);
  if (status == AM_OK && n > 0)
    status = am_gpu_ops_result(err, device, AM_UINT32, scratch_words(n, s.onesweep), 0, &s.counts);
  for (int64_t k = n_keys - 1; k >= 0 && status == AM_OK && n > 0; k--)
    status = sort_by(err, &s, keys[k], descending[k], nulls_first[k], k == n_keys - 1, k == 0);
  am_array *result = NULL;
  if (status == AM_OK && s.folded) {
    result = s.keys[0];
    s.keys[0] = NULL;
  }
  am_array_free(s.keys[0]);
  am_array_free(s.keys[1]);
  am_array_free(s.counts);
  am_array_free(s.rows[1]);
  if (status == AM_OK && !result) status = am_gpu_ops_result(err, device, AM_UINT64, n, 0, &result);
  if (status == AM_OK && n > 0 && !s.folded) {
    am_gpu_args widen = {0};
    widen.in1 = am_gpu_ops_address(s.rows[0]->data);
    widen.out = am_gpu_ops_address(result->data);
    widen.n = n;
    const am_kernel_key key = {AM_KERNEL_SORT_SCAN, AM_SORT_WIDEN, AM_TYPE_INVALID,
                               AM_TYPE_INVALID};
    status = launch_all(err, s.gpu, &key, &widen, 1, 1);
  }
  am_array_free(s.rows[0]);
  if (status == AM_OK) atomic_store(&result->null_count, 0);
  return am_gpu_ops_finish(status, result, out);
}
