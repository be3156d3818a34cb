/* The GPU kernels shared by the CUDA and Metal backends: what each kernel
 * computes, how it is launched, and the argument block it reads.
 *
 * One kernel source (kernel_source.c) emits every kernel either as CUDA C++
 * (compiled at run time by NVRTC) or as Metal Shading Language, through a thin
 * dialect layer (dialect.c). A kernel is identified by an am_kernel_key; its
 * source text is built only when the compiled kernel is not cached yet.
 *
 * Every kernel takes exactly one argument: an am_gpu_args block (by value in
 * CUDA, `constant` buffer 0 in Metal) whose pointer members are device
 * addresses filled by the host. In the generated source the pointers are
 * typed per kernel; the host sees them as uint64_t, so the layout below is the
 * contract between host and device and must not change without both.
 *
 * Launch geometry, for every kernel: one-dimensional, AM_GPU_BLOCK threads
 * per block (threadgroup), `blocks` blocks as returned by am_kernel_blocks(),
 * with a grid-stride loop so any block count is correct. Warp / SIMD-group
 * width is 32 in both dialects.
 *
 * Bitmaps (validity, AM_BOOL data, masks) follow Arrow: bit i of the bitmap
 * is (byte[i / 8] >> (i % 8)) & 1. Input bitmaps are read a byte at a time
 * (imported device memory is only byte-aligned), starting at bit `off*`.
 * Output bitmaps always start at bit 0 and are written a 32-bit word at a
 * time (a warp ballot), so output bitmaps are allocated rounded up to 4 bytes
 * and the kernels cover ceil(n / 32) * 32 slots, lanes past n voting 0.
 *
 * Errors found by a kernel (a zero divisor, an index out of bounds, a value
 * that does not fit) are reported through the status block: the kernel does
 * atomic_min(status->error_index, slot) and writes nothing else about it; the
 * host, after completion, reads error_index (UINT64_MAX = no error) and
 * re-derives the message from the input slot. Only non-null slots can fail.
 * Metal has no portable 64-bit atomic min: there the kernel does a 32-bit
 * atomic min of min(slot, 0xFFFFFFFE) on the low word and stores 0 into the
 * high word, so error_index is exact below 0xFFFFFFFE and 0xFFFFFFFE means
 * "at or after 0xFFFFFFFE": the Metal host scans the input from there.
 *
 * Data buffers hold naturally aligned elements (element i of in0 at in0 +
 * (off0 + i) * size). Slots where a result is null get zero data (bits 0 in
 * a bitmap result). Key fields that a kind does not use are ignored; LOGIC,
 * FILTER_COUNT, FILTER_SCAN and COUNT_NULLS ignore t0 and t1 (one source
 * each; AM_TYPE_INVALID is canonical). am_kernel_name() writes "" for a key
 * that names no kernel. */
#ifndef AM_GPU_KERNELS_H
#define AM_GPU_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "arrowmetal.h"
#include "core/error.h"

#define AM_GPU_BLOCK 256
#define AM_GPU_MAX_BLOCKS 1024 /* also the size of the partials area in scratch */
/* FILTER_SCATTER's op for the kept slots' positions (after AM_NULL_DROP and
 * AM_NULL_EMIT). */
#define AM_FILTER_POSITIONS 2

typedef enum am_kernel_kind {
  /* out: status->value (and status->count, status->value_hi); t0 = input
   * type. op: am_reduce_op (core/backend.h). in0/valid0/off0, n. scratch:
   * AM_GPU_MAX_BLOCKS partial records + a uint32 counter at scratch_counter,
   * zero before the launch and left zero after it. The last block to finish
   * combines the partials in block order (deterministic: no float atomics).
   *   SUM:  integers -> value = wrapping 64-bit sum (signed as int64 bits,
   *         unsigned as uint64); bool -> number of true valid slots; floats
   *         -> value = bits of the double sum (float32 summed in double where
   *         the dialect has double, else in float with Kahan compensation).
   *   MEAN: same as SUM but integers are summed exactly in 128 bits: value =
   *         low 64 bits, value_hi = high 64 bits (two's complement); floats
   *         as SUM. The host divides by count.
   *   MIN/MAX: value = bits of the extreme in the input type's own
   *         representation (integers sign/zero-extended to 64 bits, float32
   *         widened to double bits, bool 0/1), skipping nulls and NaN.
   *   count = number of valid slots, NaN slots included (every op);
   *   nan_count = number of valid NaN slots (MIN/MAX of floats; else 0).
   *   The host makes the result null when count == 0 and NaN when
   *   count == nan_count > 0. */
  AM_KERNEL_REDUCE = 1,
  /* out (AM_BOOL bitmap) and out_valid: compare op (am_compare_op) of in0
   * with in1, or with `scalar` when in1 == 0; t0 = operand type. */
  AM_KERNEL_COMPARE = 2,
  /* out (t0 values) and out_valid: arith op (am_arith_op); in1 or scalar as
   * above. Integers wrap, integer DIVIDE truncates toward zero, INT_MIN / -1
   * is 0, a zero divisor in a slot where both operands are valid sets
   * error_index; floats are plain IEEE. No AM_BOOL. */
  AM_KERNEL_ARITH = 3,
  /* out (t1 values) and out_valid from in0 of type t0; op = 1 for a safe
   * cast (a value that does not fit, a float with a fraction, NaN or inf to an
   * integer, an integer beyond 2^53 / 2^24 to float64 / float32 sets
   * error_index), 0 for an unsafe one (integers wrap, floats truncate,
   * out-of-range floats give an unspecified value without trapping). Rules
   * as the CPU backend's cast. */
  AM_KERNEL_CAST = 4,
  /* out bitmap and out_valid: op = am_logic_op; in0/in1 AM_BOOL bitmaps at
   * bit offsets off0/off1 (in1 unused by AM_LOGIC_NOT). aux = 1 makes the
   * left operand, aux = 2 the right one, the bool scalar `scalar` (null when
   * scalar_null != 0) instead of in0 / in1. Null rule of the op: the
   * propagating ops are null where an operand is, the Kleene ops where no
   * valid operand decides the result (include/arrowmetal.h). */
  AM_KERNEL_LOGIC = 5,
  /* Filter, three launches with the same args (t0 = value type):
   *   FILTER_COUNT:   per block, the number of slots i where mask (in1 bitmap
   *                   at off1, validity valid1 at off1) is valid and true ->
   *                   scratch partial[block].count.
   *                   Block b owns the slots [b * per, (b + 1) * per), per =
   *                   ceil(ceil(n / blocks) / AM_GPU_BLOCK) * AM_GPU_BLOCK.
   *                   It also stores `blocks` as a uint32 at scratch +
   *                   AM_GPU_SCRATCH_COUNTER + 4 (the host leaves it alone).
   *   FILTER_SCAN:    one block: exclusive scan of the block counts in
   *                   place (as many as that uint32 says); total ->
   *                   status->count.
   *   FILTER_SCATTER: every block re-derives its slots' output positions
   *                   (block scan of the same predicate, same block/slot
   *                   assignment as FILTER_COUNT, so `blocks` must be equal)
   *                   and writes in0 values (bits for AM_BOOL, with atomic
   *                   OR on 32-bit words of out) and valid0 bits to
   *                   out_valid (atomic OR) at those positions. out and
   *                   out_valid are zeroed by the host first. Op
   *                   AM_FILTER_POSITIONS (t0 AM_INT64, with FILTER_COUNT's
   *                   AM_NULL_DROP): the kept slots' positions instead of
   *                   in0's values. */
  AM_KERNEL_FILTER_COUNT = 6,
  AM_KERNEL_FILTER_SCAN = 7,
  AM_KERNEL_FILTER_SCATTER = 8,
  /* out[i] = in0[in1[i]] (t0 = value type, t1 = AM_INT32 or AM_INT64 index
   * type); null where the index (valid1/off1) or the source slot is null;
   * a non-null index < 0 or >= aux (source length) sets error_index = i. */
  AM_KERNEL_TAKE = 9,
  /* out = n copies of `scalar` (t0); out_valid all set (host passes 0 for a
   * non-null scalar and handles null scalars itself). */
  AM_KERNEL_FILL = 10,
  /* status->count += number of null slots of the bitmap valid0 in
   * [off0, off0 + n) (integer atomics only). */
  AM_KERNEL_COUNT_NULLS = 11,
  /* Concatenation, one launch per input: slots [off0, off0 + n) of in0 (t0
   * values, bits for AM_BOOL) go to slots [aux, aux + n) of out, and their
   * validity (valid0, all valid when 0) to bits [aux, aux + n) of out_valid
   * when it is given. Bits are ORed in with 32-bit atomics, so the host
   * zeroes bitmap outputs (out for AM_BOOL, out_valid) before the first
   * launch. Values are moved as bits: float64 runs in every dialect. */
  AM_KERNEL_COPY = 12,
  /* out (t0 values) and out_valid from in0 of type t0: op = am_unary_op, the
   * expression of its row in AM_UNARY_OPS (core/ops.h); null where in0 is. */
  AM_KERNEL_UNARY = 13,
  /* out (t0 values) and out_valid from in0 and in1 (or the scalar when in1
   * is 0) of type t0: op = am_binary_op, the expression of its row in
   * AM_BINARY_OPS (core/ops.h); null where either is. A checked op reports
   * (n - 1 - slot) * 2 + (failure - 1) of its last refused slot as the error
   * index. */
  AM_KERNEL_BINARY = 14,
  /* The aggregates of am_aggregate (kernel_source_aggregate.c): op =
   * am_aggregate_op, t0 = input type; in0/valid0/off0, n; scratch and the
   * last-block combine as REDUCE. Status words (count = valid slots seen):
   *   PRODUCT:  value = the wrapping 64-bit product (integers) or the bits of
   *             the double product (floats; CUDA only: it needs double).
   *   MIN_MAX:  value = min, value_hi = max, in MIN/MAX's representation;
   *             nan_count as MIN/MAX.
   *   VARIANCE: value = bits of the mean, value_hi = bits of M2 (double;
   *             CUDA only): per-thread Welford, merged with Chan et al.'s
   *             formula. (STDDEV has no kernel of its own.)
   *   FIRST, LAST: value = the first (last) valid slot's value as MIN/MAX
   *             represent values, value_hi = its slot.
   *   INDEX:    value_hi = the first valid slot equal to `scalar` (the
   *             value's 64-bit form, as COMPARE's), UINT64_MAX for none.
   * any, all and product of bool run REDUCE SUM of bool (the number of true
   * valid slots). */
  AM_KERNEL_AGGREGATE = 15,
  /* ---- Null handling: kernel_source_nulls.c. Numbered from
   * 32, apart from the kinds above. */
  /* out (AM_BOOL bitmap) from in0 (t0 values) and valid0: op = am_predicate
   * | AM_NAN_IS_NULL << 8. t0 is read only where the predicate reads values
   * (a float with is_nan, is_finite, is_inf, or is_null with AM_NAN_IS_NULL);
   * elsewhere it is ignored (canonically AM_TYPE_INVALID) and the kernel reads
   * the validity alone: is_null / is_valid its inverse or copy, is_nan /
   * is_finite / is_inf of integers the constants false / true / false. out_valid,
   * when given, is the input's validity (the host gives none for is_null and
   * is_valid, which are never null). */
  AM_KERNEL_PREDICATE = 32,
  /* out (t0 values, bits for AM_BOOL) and out_valid: slot i of in0 where
   * valid0 says it is valid, else of in1 (valid1), or `scalar` (never null)
   * when in1 == 0; null where both are (out_valid only when both may be).
   * Values are moved as bits: float64 runs in every dialect. */
  AM_KERNEL_COALESCE = 33,
  /* if_else, two launches writing one output (t0 values, bits for AM_BOOL,
   * and out_valid when given): op 0 takes the left side where the condition
   * (in1, an AM_BOOL bitmap at off1, validity valid1) is true and writes
   * every word (zero, and invalid, elsewhere); op 1 then ORs in (bits) or
   * stores (values) the right side where it is false. A side is in0 (with
   * valid0), or the scalar when in0 is 0 (null when scalar_null != 0). A null
   * condition slot is null. Values move as bits: every type in every dialect. */
  AM_KERNEL_IF_ELSE = 34,
  /* fill_null_forward (op AM_FILL_FORWARD) / _backward (AM_FILL_BACKWARD),
   * three launches with the same args, over positions j (slot j forward,
   * slot n - 1 - j backward), block b owning positions [b * per, (b + 1) *
   * per) as FILTER_COUNT's blocks own slots:
   *   FILL_BLOCKS: 1 + the last position whose slot is valid (valid0 at
   *                off0), 0 if none, -> scratch partial[block] word 2; the
   *                block count after the finish counter (t0 ignored).
   *   FILL_CARRY:  one block: each partial becomes the largest of those
   *                before it (an exclusive max scan; op and t0 ignored).
   *   FILL_GATHER: out (t0 values, bits for AM_BOOL) at each slot: in0 at
   *                the slot of the last valid position at or before its own,
   *                null (out_valid) where there is none. Bit outputs (out for
   *                AM_BOOL, out_valid) are ORed in: the host zeroes them.
   * Values move as bits: every type in every dialect. */
  AM_KERNEL_FILL_BLOCKS = 35,
  AM_KERNEL_FILL_CARRY = 36,
  AM_KERNEL_FILL_GATHER = 37,
  /* ---- Rounding and pairwise differences:
   * kernel_source_round.c. Numbered from 40. */
  /* out (t0 values) and out_valid (the input's validity) from in0 of type
   * t0: op = am_round_mode, aux = am_round_spec's scale (1: ndigits > 0, 0:
   * whole numbers, -1: ndigits < 0 or round_to_multiple); scalar = p as
   * double bits (floats: 10^|ndigits|, pyarrow's power am_round_pow10, or
   * the multiple; narrowed to float32 in the kernel for float32) or the
   * integer multiple (10^-ndigits, or round_to_multiple's).
   * core/round.h's element function; a refused valid slot is reported as
   * BINARY's, (n - 1 - slot) * 2 + (0 up or float overflow, 1 down). */
  AM_KERNEL_ROUND = 40,
  /* out (t0 values) and out_valid: slot i is in0[i] - in0[i - aux] (aux =
   * the period, |aux| <= n), subtract_checked's expression; null where
   * either slot is null (valid0) or i - aux is outside [0, n). op =
   * am_pairwise_op: the checked op reports its last overflowing slot as
   * (n - 1 - slot) * 2. */
  AM_KERNEL_PAIRWISE_DIFF = 41,
  /* ---- Quantiles: kernel_source_select.c, numbered from
   * 80. A radix select of rank `scalar` (rank record `aux`) over the order
   * keys of in0 (t0; valid0/off0, n; NaN and null slots left out), eight bits
   * a pass (op = pass, 0 to 7, from the top). out: the state words (am_u32)
   * that file describes, zeroed by the host before pass 0.
   *   SELECT_HIST: the counts of each digit of pass `op` among the slots
   *                whose key has the rank's prefix (pass 0: every slot, into
   *                the shared counts), added into device memory.
   *   SELECT_PICK: one block: the digit whose bucket holds the rank, into
   *                the rank's prefix and remaining rank; clears the counts.
   * After SELECT_PICK of pass 7 the rank's prefix is its key. Keys are bits:
   * every dialect. Counts are 32-bit: fewer than 2^32 slots. */
  AM_KERNEL_SELECT_HIST = 80,
  AM_KERNEL_SELECT_PICK = 81,
  /* Cumulative functions (kernel_source_cumulative.c):
   * op = am_cumulative_op | skip_nulls << 3, t0 the values' type (in0 with
   * valid0 at off0); three launches with the same args (a scan):
   *   CUM_BLOCKS: each block's total (in position order) -> scratch
   *               partial[block] words 0, 1; without skip_nulls 1 + its first
   *               null slot (0: none) -> word 2; the block count after the
   *               finish counter.
   *   CUM_CARRY:  one block: each partial becomes the block's carry (the
   *               start, `scalar` in its 64-bit form, and the totals before),
   *               word 2 the array's first null slot (n: none or skip_nulls).
   *   CUM_SCAN:   out (t0, float64 for MEAN) from each block's carry;
   *               out_valid ORed in (the host zeroes it; 0: none); the
   *               checked integer ops report the first slot out of range. */
  AM_KERNEL_CUM_BLOCKS = 48,
  AM_KERNEL_CUM_CARRY = 49,
  AM_KERNEL_CUM_SCAN = 50,
  /* ---- Hash-based functions: kernel_source_hash.c.
   * Numbered from 64. One open-addressing table in device memory, of u32
   * words, zeroed by the host: cap + 2 slots (cap = aux, a power of two >=
   * twice the rows inserted), slot cap for the key 0 (0 is the empty key),
   * slot cap + 1 for nulls. Keys (1 word a slot for types of <= 32 bits, 2
   * for 64-bit ones) from word 0; from word `scalar` (the host's) each
   * slot's ~(first row) (0: no row, set by a 32-bit atomic max), then each
   * slot's row count (32-bit atomic add), then one word: the keys inserted
   * (bounded builds).
   * Keys are the values' bits (0.0 and -0.0 differ, NaNs by payload), as
   * the CPU's. Rows < 2^31. */
  /* Per row of in0 (t0 values, valid0/off0): its slot, inserting its key by
   * atomic CAS of the empty key (linear probing), then first and count.
   * out = the table. Op bit 0 counts the rows of each slot (else the counts
   * stay 0). Op bit 1 (bounded): more keys than cap / 2 make the warps stop
   * inserting and status->count nonzero (the table is then useless); the
   * grid's threads must be under cap / 2. */
  AM_KERNEL_HASH_BUILD = 64,
  /* Per slot s < n (n = cap + 2): bit ~first of out (bitmap words over the
   * rows, zeroed) set where the slot has a first row (in0: the table); op 1:
   * never for the null slot. */
  AM_KERNEL_HASH_FIRSTS = 65,
  /* Per group g < n: the slot s of its first row in1[g] (int64) by the key
   * of that row of in0 (t0 values, valid0/off0) in the table out_valid;
   * out (int64, when given) = s's count; s's first-row word becomes ~g; the
   * null slot's g + 1 is added to status->count. Op 1 (dense, integer t0):
   * GROUP_DENSE's table, s = key - scalar (first rows from word 0). */
  AM_KERNEL_HASH_GROUP_SLOTS = 66,
  /* out (int32) per row of in0 (t0, valid0/off0): its group, the word
   * HASH_GROUP_SLOTS left in its slot of the table in1; op bit 0: null
   * (out_valid bit 0) for null rows; op bit 1: dense, as GROUP_SLOTS. */
  AM_KERNEL_HASH_IDS = 68,
  /* is_in (op bit 0 set: out a bitmap) / index_in (op bit 0 clear: out
   * int32 and out_valid) of in0 (t0 values, valid0/off0) in the table in1
   * built from the value set: the slot's first row; op bit 1 (skip_nulls):
   * a null row finds nothing, else the set's first null. */
  AM_KERNEL_HASH_PROBE = 69,
  /* ---- sort_indices: kernel_source_sort.c, numbered from 96. A stable LSD
   * radix sort of (order key, row) pairs, eight bits a pass, as that file
   * describes. scratch: the sort's own u32 words (not the runtime's scratch
   * area): AM_SORT_HEAD header words (5 flags, then from AM_SORT_TOTALS 256
   * digit totals per pass 0-8, zeroed per column), then 256 counts per block
   * of am_sort_blocks(n), digit-major. Rows (in1, out_valid) are u32;
   * n < 2^32 - 1.
   *   SORT_KEYS:    op = descending | first << 1 | histograms << 2 | no rows
   *                 << 3, t0 the column (in0, valid0, off0): out[i] = the order
   *                 key of row in1[i] (first: row i, and out_valid[i] = i
   *                 unless no rows: the first pass's identity); header words
   *                 0-1 |= the numbers' keys, 2-3 |= their complements, 4 |= 1
   *                 for a NaN or null; with histograms, the digit totals of
   *                 every byte of the keys (passes 0 .. width - 1) += the
   *                 counts of its digits over every position.
   *   SORT_COUNT:   op = byte 0..7 of the keys in in0 (t0 AM_TYPE_INVALID), or
   *                 AM_SORT_CLASS_PASS (+ 1: nulls first) with t0 the column:
   *                 each block's digit counts of its tile, and the totals.
   *   SORT_SCAN:    op = the pass (0-7 a byte, 8 the class pass), 256 blocks:
   *                 the counts become first places (exclusive); op =
   *                 AM_SORT_WIDEN: out (u64)[i] = in1 (u32)[i].
   *   SORT_SCATTER: op and t0 as SORT_COUNT: out_valid[place] = in1[i] and,
   *                 for a byte, out[place] = in0[i]; stable.
   *   SORT_ONESWEEP: op = byte 0..7 | final << 3 | identity << 4 (t0
   *                 AM_TYPE_INVALID; identity: the rows in are the positions,
   *                 not read from in1), aux =
   *                 the parity of the pass (0 or 1): a byte pass in one launch, as SCATTER
   *                 with no COUNT and SCAN before it, n < 2^30 (CUDA only:
   *                 blocks wait on earlier blocks, which Metal does not
   *                 promise to run). Block places from a decoupled look-back
   *                 over the status words of the pass's parity (after the
   *                 header, am_sort_tiles(n) * 256 a parity; that parity's
   *                 zeroed by the host or the pass before), the digit totals
   *                 from SORT_KEYS' histograms, its tile from the pass's
   *                 ticket word; zeroes the other parity's words of its tile.
   *                 final: the sort's last pass writes no keys, only the rows
   *                 as u64 in out (the sort's result, no WIDEN after it). */
  AM_KERNEL_SORT_KEYS = 96,
  AM_KERNEL_SORT_COUNT = 97,
  AM_KERNEL_SORT_SCAN = 98,
  AM_KERNEL_SORT_SCATTER = 99,
  AM_KERNEL_SORT_ONESWEEP = 100,
  /* ---- Group-by and hash joins: kernel_source_groupby.c, numbered from 104
   * (to 127). CUDA only: they use 64-bit atomics (Metal answers
   * unsupported and the host groups / joins). Ids are int32 (the hash
   * kinds' HASH_IDS out), rows < 2^31.
   *   GROUP_PACK:   out (u64)[i] = (u32)in0[i] << 32 | (u32)in1[i]: two id
   *                 columns as one key, grouped again by HASH_BUILD.
   *   GROUP_DENSE:  HASH_BUILD's table for one integer key (t0: in0,
   *                 valid0, off0) of a small range: slot = key - scalar (the
   *                 minimum in the key's 64-bit form), nulls slot aux + 1
   *                 (aux = cap = the range); out = the table (no key words:
   *                 first rows from word 0, as ~row by atomic max).
   *   GROUP_ACCUM:  per row of in0 (t0 values, valid0/off0; t0 invalid:
   *                 count_all) by its group in1 (int32): out = the groups'
   *                 state, AM_GROUP_STATE_WORDS u64 words each (zeroed by the
   *                 host): w0 valid rows, w1 null rows, then by op & 15 (an
   *                 AM_ACC_* class; op bit 4: first / last take null rows
   *                 too): SUM w2 += value (64-bit wrapping, or double),
   *                 PRODUCT w2 *= value (ACC_INIT, n = groups, writes scalar
   *                 to w2 first), DSUM w2 += value as double, M2 (after
   *                 DSUM) w3 += (value - w2 / w0)^2, ANY / ALL w2 = 1 on a
   *                 true / false value, MINMAX w2 = ~(least order key), w3 =
   *                 the greatest (NaN skipped, -0.0 as 0.0), w7 NaN rows,
   *                 then PICK (no counts) w4 / w5 = ~(first row) of the
   *                 least / greatest, w6 ~(first NaN row); FIRST w4 =
   *                 ~(first row), w5 = last row + 1; COUNT only the counts.
   *   GROUP_FINISH: per group g < n of the state in0: op = am_group_op |
   *                 skip_nulls << 5 | count_mode << 6 | (min_max: the max)
   *                 << 8, t0 the value type; scalar = min_count, aux =
   *                 ddof. out: count (int64), sum / product (the 64-bit
   *                 result bits), mean / variance / stddev (double), any /
   *                 all (bitmap), min ... last (int64 rows for a take);
   *                 out_valid the validity (0: none, count).
   *   JOIN_MARK:    rows of one side, in1 its int32 group ids (over the
   *                 left rows then the right ones), in0 two u32 flags a
   *                 group ([2g] a left row has it, [2g + 1] its key holds
   *                 a null). op 16: per row of both sides (aux = left
   *                 rows) out (int64 per group) += 1 for a right row, else
   *                 [2g] = 1; op 17: [2g + 1] = 1 for rows null in the key
   *                 column valid0/off0; op = am_join_type | side << 3 (1:
   *                 right): out (int64) per row its output rows (left:
   *                 inner its matches, outer at least 1, semi / anti 0 or
   *                 1; right: 1 where unmatched (outer, anti) / matched
   *                 (semi)), valid1 = the groups' right rows (int64).
   *   JOIN_WRITE:   op = side << 3 | pairs << 4: per row i of the side
   *                 (in1 its ids, valid1 the inclusive scan of MARK's
   *                 counts): out[aux + k] = i for its slots k, out_valid
   *                 (0: none) bits set there; with pairs, a left row with
   *                 matches also writes the other side's indices
   *                 (valid0, int64) from the right rows sorted by group
   *                 (scalar: their device address), the group's run ending
   *                 at off0's (a device address: the groups' inclusive
   *                 scan of right rows) [g], and sets their validity bits
   *                 (off1: the address of those u32 words). */
  AM_KERNEL_GROUP_PACK = 104,
  AM_KERNEL_GROUP_DENSE = 105,
  AM_KERNEL_GROUP_ACCUM = 106,
  AM_KERNEL_GROUP_FINISH = 107,
  AM_KERNEL_JOIN_MARK = 108,
  AM_KERNEL_JOIN_WRITE = 109,
  /* Temporal functions (kinds 128-143; kernel_source_temporal.c):
   *   TEMPORAL_FIELD: op = am_temporal_field_op, t0 the temporal type: out
   *                   (int64)[i] = the field of in0[i] (its storage integer),
   *                   valid where in0 is; aux = week_start | count_from_zero
   *                   << 8 (DayOfWeekOptions).
   *   ROUND_TEMPORAL: op = am_calendar_unit, t0 the temporal type: out (t0's
   *                   storage)[i] = floor/ceil/round_temporal of in0[i]
   *                   (core/round_temporal.h), valid where in0 is; aux =
   *                   the multiple | flags (AM_RT_*) << 32 | the
   *                   am_round_temporal_op << 40. */
  AM_KERNEL_TEMPORAL_FIELD = 128,
  AM_KERNEL_ROUND_TEMPORAL = 129,
  /* Strings and binary (kinds 144-159; kernel_source_strings.c). t0 is the
   * var-binary type (its offsets int32, or int64 for the large types); a
   * string operand is its offsets (in0, with valid0 / off0) and its data
   * bytes (in1). Rows go one a thread, warps over whole 32-row words, so
   * bool results and validity are written a word at a time by ballots.
   *   STRING_FUNCTION: op = am_string_op (the lengths, starts_with,
   *                    ends_with, match_substring, find_substring,
   *                    count_substring, match_like): out[i] (bits for the
   *                    matches; int32, or int64 for the large types,
   *                    otherwise), valid where in0 is; the pattern's bytes
   *                    at in2, aux of them.
   *   STRING_CASE:     op = AM_ASCII_UPPER / AM_ASCII_LOWER: out[k] =
   *                    in1[k] mapped, k < n bytes; pad = 1 when both start
   *                    on 4-byte boundaries (whole words then).
   *   STRING_COMPARE:  op = am_compare_op, | 8 when the right operand is
   *                    one slot for every row: bits of in0/in1 op (right
   *                    offsets in2 with valid2 / off2, its bytes at the
   *                    address `scalar`), valid where both are.
   *   STRING_SIZES:    t1 = the index type (int32 / int64): out (int64)[j]
   *                    = the bytes of row in2[j] (0 where the index or the
   *                    row is null), out_valid (u32 words) its validity;
   *                    an index outside [0, aux) is reported (error_index).
   *   STRING_GATHER:   t1 as SIZES: row in2[j]'s bytes copied to out at the
   *                    end of the earlier rows (the inclusive scan of the
   *                    sizes at the address `scalar`), whose ends are the
   *                    result's offsets (t0's width) at out_valid[1..n],
   *                    out_valid[0] = 0.
   *   STRING_CHECK:    the offsets in0[off0 .. off0 + n] of an imported
   *                    array: the first slot that is negative (slot 0) or
   *                    below the one before it is reported (error_index).
   *   STRING_HASH:     out (u64)[i] = a 64-bit hash of row i's bytes (0 for a
   *                    null row), out_valid (u32 words) its validity.
   *   STRING_VERIFY:   op 0: each valid row's bytes against those of the
   *                    first row of its group (in2: int32 group ids, the
   *                    address `scalar`: int64 first rows), a mismatch (two
   *                    values of one hash) counted in the status count;
   *                    op 1 (2: is_in): a lookup's hits (in2: int32 rows of
   *                    the value set, valid2 where one was found, a null row
   *                    found by the set's null) kept where the bytes equal
   *                    the set row's (the set: offsets `aux`, bytes
   *                    `scalar`), written as the result's words (out_valid
   *                    for index_in, out for is_in). */
  AM_KERNEL_STRING_FUNCTION = 144,
  AM_KERNEL_STRING_CASE = 145,
  AM_KERNEL_STRING_COMPARE = 146,
  AM_KERNEL_STRING_SIZES = 147,
  AM_KERNEL_STRING_GATHER = 148,
  AM_KERNEL_STRING_CHECK = 149,
  AM_KERNEL_STRING_HASH = 150,
  AM_KERNEL_STRING_VERIFY = 151,
  /* The resident worker (kernel_source_resident.c; CUDA only, op 0, no
   * types): one block of 32 threads, launched on a queue of its own, that
   * answers the requests of the ring at in0 (gpu/resident_ring.h) until it
   * has been idle for n nanoseconds or is told to stop. */
  AM_KERNEL_RESIDENT_WORKER = 160
} am_kernel_kind;

/* GROUP_ACCUM's classes (op & 15) and state words per group. */
enum {
  AM_ACC_INIT = 0,
  AM_ACC_COUNT = 1,
  AM_ACC_SUM = 2,
  AM_ACC_PRODUCT = 3,
  AM_ACC_MINMAX = 4,
  AM_ACC_PICK = 5,
  AM_ACC_FIRST = 6,
  AM_ACC_ANY = 7,
  AM_ACC_ALL = 8,
  AM_ACC_DSUM = 9,
  AM_ACC_M2 = 10
};
#define AM_GROUP_STATE_WORDS 8

typedef struct am_kernel_key {
  am_kernel_kind kind;
  int op;     /* the kind's sub-operation, 0 where none */
  am_type t0; /* first operand's (or value) type */
  am_type t1; /* second type: cast target, take index type; else AM_TYPE_INVALID */
} am_kernel_key;

/* Written by kernels into host-mapped memory; one per submission slot. */
typedef struct am_gpu_status {
  uint64_t error_index; /* UINT64_MAX: no error; host initialises it */
  uint64_t count;
  uint64_t nan_count;
  uint64_t value;
  uint64_t value_hi;
  uint64_t reserved[3];
} am_gpu_status;

/* One partial record per block in the scratch area. */
typedef struct am_gpu_partial {
  uint64_t value;
  uint64_t value_hi;
  uint64_t count;
  uint64_t nan_count;
} am_gpu_partial;

/* The argument block. Every address is a device address (0 = absent). */
typedef struct am_gpu_args {
  uint64_t in0;        /* first operand's data */
  uint64_t in1;        /* second operand's data, mask, or indices */
  uint64_t valid0;     /* validity of in0, 0 = all valid */
  uint64_t valid1;     /* validity of in1, 0 = all valid */
  uint64_t out;        /* result data */
  uint64_t out_valid;  /* result validity bitmap, 0 = don't write one */
  uint64_t scratch;    /* AM_GPU_MAX_BLOCKS am_gpu_partial, then a uint32 counter */
  uint64_t status;     /* am_gpu_status (host-mapped) */
  int64_t n;           /* slots */
  int64_t off0;        /* element (bit) offset of in0 and valid0 */
  int64_t off1;        /* element (bit) offset of in1 and valid1 */
  int64_t aux;         /* TAKE: source length; COPY: first output slot */
  uint64_t scalar;     /* scalar operand's bits in the operand type's 64-bit form:
                          int64 for signed, uint64 for unsigned, double bits for
                          floats (float32 too), 0/1 for bool */
  int32_t scalar_null; /* LOGIC, IF_ELSE: the scalar operand is null; otherwise reserved
                          (the host handles null scalars) */
  int32_t pad;         /* LOGIC, PREDICATE of the validity: 1 where every operand
                          bitmap's 32-slot words are 4-byte aligned, so they load
                          whole; 2 where they and the results' are 16-byte
                          aligned, so four load at once (ops.c words_aligned) */
  uint64_t in2;        /* IF_ELSE op 2: the right side's data (in0's type) */
  uint64_t valid2;     /* validity of in2, 0 = all valid */
  int64_t off2;        /* element (bit) offset of in2 and valid2 */
} am_gpu_args;

/* Offset of the uint32 finish counter in the scratch area. */
#define AM_GPU_SCRATCH_COUNTER (AM_GPU_MAX_BLOCKS * sizeof(am_gpu_partial))
#define AM_GPU_SCRATCH_BYTES (AM_GPU_SCRATCH_COUNTER + 64)
/* The device keeps this many scratch areas of AM_GPU_SCRATCH_BYTES, one
 * after another: area 0 for every kind that uses one, and areas 1.. taken in
 * turn by the one-launch reductions (REDUCE, AGGREGATE), so that reductions
 * held back in one batch need not wait for each other (their footprints
 * differ: gpu/launch_footprint.h). */
#define AM_GPU_SCRATCH_AREAS 8

/* sort_indices' kernels (AM_KERNEL_SORT_*): positions a COUNT / SCATTER block
 * owns, header words before the counts (the digit totals of passes 0-8,
 * then ONESWEEP's ticket word a pass), the class pass's op, the COUNT /
 * SCATTER blocks for n rows (their tiles), ONESWEEP's tiles (one sub-tile
 * each), and the rows it takes (kernel_source_sort.c). */
#define AM_SORT_TILE 8192
#define AM_SORT_KPT 8 /* SCATTER: keys a thread of a sub-tile (AM_GPU_BLOCK * this) */
/* ONESWEEP's keys a thread, its tile AM_GPU_BLOCK times that: 12 took 50M
 * int64 from 7.4 to 6.5 ms on the H200 (8: runs of 8 keys a digit; 12 fits
 * CUDA's 48 KB of static shared memory, 16 does not) */
#define AM_SORT_ONESWEEP_KPT 12
#define AM_SORT_TOTALS 8
#define AM_SORT_TICKETS (AM_SORT_TOTALS + 9 * 256)
#define AM_SORT_HEAD (AM_SORT_TICKETS + 8)
#define AM_SORT_CLASS_PASS 8
#define AM_SORT_WIDEN 9
#define AM_SORT_ONESWEEP_MAX ((int64_t)1 << 30)
int64_t am_sort_blocks(int64_t n);
int64_t am_sort_tiles(int64_t n);

typedef enum am_dialect { AM_DIALECT_CUDA = 0, AM_DIALECT_MSL = 1 } am_dialect;

/* Whether `dialect` can run kernel `key` (Metal has no double: no float64
 * operand or result there). */
int am_kernel_supported(am_dialect dialect, const am_kernel_key *key);

/* Entry-point name of the kernel, e.g. "am_compare_lt_int64"; written into
 * `name` (capacity >= 64). */
void am_kernel_name(const am_kernel_key *key, char *name, size_t capacity);

/* The full source of one kernel (with its own preamble) in `dialect`,
 * malloc'd; the caller frees it. AM_ETYPE for a key that names no kernel,
 * AM_EUNSUPPORTED where the dialect cannot run it, AM_ENOMEM. Deterministic:
 * the same key gives the same bytes. */
int am_kernel_source(am_err *err, am_dialect dialect, const am_kernel_key *key, char **source);

/* Blocks to launch for `n` slots: at least 1; FILTER_SCAN always 1; the
 * element-wise loops (compare, arith, unary, binary, cast, take) one pass of
 * their threads' words, and sort_indices its tiles, uncapped; every other
 * kind at most AM_GPU_MAX_BLOCKS. */
int am_kernel_blocks(const am_kernel_key *key, int64_t n, int multiprocessors);

#endif
