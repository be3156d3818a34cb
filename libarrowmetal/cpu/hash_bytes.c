/* Grouping string and binary rows by their bytes, for group-by keys and
 * values (count_distinct, distinct), join keys and the hash-based functions
 * (unique, value_counts, ...: abi/string_hash.c); am_cpu_hash_group and
 * am_cpu_hash_join_ids send such arrays here (decimal keys too, as
 * fixed_size_binary views of their bytes). Groups come out in
 * first-occurrence order as hash.c's do; nulls are one group of their own
 * (or none, masked).
 *
 * One pass over the rows, over the pool: each part hashes a row's bytes
 * (bytes_key.h) and probes a table of its own, whose slots hold a group's
 * hash and id; on an equal hash the row's bytes are compared with the
 * group's first value's, so a row lands in its group exactly, and two values
 * of one hash are two groups. The parts' groups are then merged in part
 * order (pyarrow's first-occurrence order, since the parts' ranges are in
 * row order) and their ids rewritten. No per-row hash is kept and no second
 * pass checks the rows: an earlier design hashed every row into an array,
 * grouped those words on hash.c's numeric table and then compared each row
 * with its group's first in a pass of its own -- three passes over the rows
 * where pyarrow's grouper makes one, 0.7x its speed by 1,000 string keys.
 *
 * A table too large for the caches (many distinct values) is probed with a
 * look ahead: each row's slot is prefetched AHEAD rows early, and the
 * group's first value a few rows later, once the slot says which group. */
#include <stdlib.h>
#include <string.h>

#include "bitmap.h"
#include "bytes_key.h"
#include "core/error.h"
#include "core/hash.h"
#include "core/memstats.h"
#include "core/string_array.h"
#include "cpu.h"
#include "pool.h"

/* A value's bytes. */
typedef struct value_ref {
  const uint8_t *p;
  int64_t n;
} value_ref;

/* A part's groups (local ids in first-occurrence order within the part's
 * rows) and the table that finds them: slot s holds a value's key word
 * (bytes_key.h), its group (-1: empty) and, for a value of 8 bytes or more,
 * where its bytes are (one load from the slot to the bytes: the slot's
 * arrays are read at one index, not through the group). Values of 16 or 32
 * bytes each (fixed_size_binary: a decimal's key view) are instead kept
 * whole in the slot, as 2 or 4 words (`words`), compared there with no
 * load of their bytes, as hash.c keeps numbers. At most half the slots are
 * used. */
typedef struct part_groups {
  int words;     /* 0: key words and refs; 2 or 4: whole values */
  uint64_t *key; /* per slot, words (at least 1) a slot */
  int32_t *slot;
  value_ref *ref;
  uint64_t mask;           /* slots - 1 */
  int64_t used;            /* slots taken */
  int64_t *first, *counts; /* per group: first row, rows */
  int64_t groups, room;    /* groups, and the room of the per-group arrays */
  int64_t null_group;      /* -1: none */
  int64_t masked;          /* null rows left out (AM_HASH_MASK_NULLS) */
  int32_t *map;            /* local id -> global id (merging) */
  int status;
} part_groups;

static void part_free(part_groups *pg) {
  am_scratch_free(pg->key);
  am_scratch_free(pg->slot);
  am_scratch_free(pg->ref);
  am_scratch_free(pg->first);
  am_scratch_free(pg->counts);
  am_scratch_free(pg->map);
}

/* A whole value of `words` words: its hash, and whether two are equal (the
 * loops unrolled where `words` is a constant). */
static inline uint64_t words_hash(const uint64_t *w, int words) {
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < words; i++) {
    h = (h ^ w[i]) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  return am_key_hash(h);
}

static inline int same_words(const uint64_t *x, const uint64_t *y, int words) {
  uint64_t diff = 0;
  for (int i = 0; i < words; i++) diff |= x[i] ^ y[i];
  return diff == 0;
}

/* The table moved to `slots` slots (a power of two), rehashed from the key
 * words it keeps (no value read again). */
static int table_resize(part_groups *pg, uint64_t slots) {
  const int words = pg->words ? pg->words : 1;
  uint64_t *key = am_scratch_alloc((int64_t)(slots * words * sizeof *key));
  int32_t *slot = am_scratch_alloc((int64_t)(slots * sizeof *slot));
  value_ref *ref = pg->words ? NULL : am_scratch_alloc((int64_t)(slots * sizeof *ref));
  if (!key || !slot || (!pg->words && !ref)) {
    am_scratch_free(key);
    am_scratch_free(slot);
    am_scratch_free(ref);
    return AM_ENOMEM;
  }
  memset(slot, 0xff, slots * sizeof *slot);
  for (uint64_t s = 0; pg->slot && s <= pg->mask; s++) {
    if (pg->slot[s] < 0) continue;
    const uint64_t *k = &pg->key[s * words];
    uint64_t at = (pg->words ? words_hash(k, words) : am_key_hash(*k)) & (slots - 1);
    while (slot[at] >= 0) at = (at + 1) & (slots - 1);
    memcpy(&key[at * words], k, (size_t)words * sizeof *k);
    slot[at] = pg->slot[s];
    if (!pg->words && !am_key_is_exact(*k)) ref[at] = pg->ref[s];
  }
  am_scratch_free(pg->key);
  am_scratch_free(pg->slot);
  am_scratch_free(pg->ref);
  pg->key = key;
  pg->slot = slot;
  pg->ref = ref;
  pg->mask = slots - 1;
  return AM_OK;
}

/* A new group of first row `row`: its local id, or a negative status. */
static int64_t add_group(part_groups *pg, int64_t row) {
  if (pg->groups >= INT32_MAX) return -AM_EINVAL;
  if (pg->groups == pg->room) {
    const int64_t room = pg->room ? pg->room * 2 : 256;
    int64_t *first = am_scratch_realloc(pg->first, room * 8);
    if (first) pg->first = first;
    int64_t *counts = am_scratch_realloc(pg->counts, room * 8);
    if (counts) pg->counts = counts;
    if (!first || !counts) return -AM_ENOMEM;
    pg->room = room;
  }
  const int64_t g = pg->groups++;
  pg->first[g] = row;
  pg->counts[g] = 0;
  return g;
}

/* A new group for value p[0, n) of key word k, into empty slot `at`. */
static int64_t add_value(part_groups *pg, int64_t row, const uint8_t *p, int64_t n, uint64_t k,
                         uint64_t at) {
  const int64_t g = add_group(pg, row);
  if (g < 0) return g;
  pg->key[at] = k;
  pg->slot[at] = (int32_t)g;
  if (!am_key_is_exact(k)) pg->ref[at] = (value_ref){p, n};
  if (++pg->used * 2 > (int64_t)pg->mask + 1 && table_resize(pg, (pg->mask + 1) * 2) != AM_OK)
    return -AM_ENOMEM;
  return g;
}

/* The slot of value p[0, n) (key word k, hash h) in pg's table: its
 * group's, or the empty one where it would go. A short value's word is the
 * value; a longer one's bytes are compared on an equal word. */
static inline __attribute__((always_inline)) uint64_t find_slot(const part_groups *pg,
                                                                const uint8_t *p, int64_t n,
                                                                uint64_t k, uint64_t h) {
  const uint64_t mask = pg->mask;
  uint64_t at = h & mask;
  if (am_key_is_exact(k)) {
    while (pg->slot[at] >= 0 && pg->key[at] != k) at = (at + 1) & mask;
    return at;
  }
  while (pg->slot[at] >= 0 &&
         (pg->key[at] != k || pg->ref[at].n != n || !am_same_run(pg->ref[at].p, p, n)))
    at = (at + 1) & mask;
  return at;
}

/* The slot of whole value w (hash h): its group's, or the empty one where
 * it would go. */
static inline __attribute__((always_inline)) uint64_t find_words(const part_groups *pg,
                                                                 const uint64_t *w, int words,
                                                                 uint64_t h) {
  const uint64_t mask = pg->mask;
  uint64_t at = h & mask;
  while (pg->slot[at] >= 0 && !same_words(&pg->key[at * words], w, words)) at = (at + 1) & mask;
  return at;
}

/* A new group for whole value w, into empty slot `at`. */
static int64_t add_words(part_groups *pg, int64_t row, const uint64_t *w, uint64_t at) {
  const int64_t g = add_group(pg, row);
  if (g < 0) return g;
  /* a size known here: as a call, memcpy took 7% of a group-by's time by
   * 100,000 decimal keys */
  if (pg->words == 2)
    memcpy(&pg->key[at * 2], w, 2 * sizeof *w);
  else
    memcpy(&pg->key[at * 4], w, 4 * sizeof *w);
  pg->slot[at] = (int32_t)g;
  if (++pg->used * 2 > (int64_t)pg->mask + 1 && table_resize(pg, (pg->mask + 1) * 2) != AM_OK)
    return -AM_ENOMEM;
  return g;
}

/* About how many distinct values rows [begin, end) hold, from SAMPLE rows
 * spread over them (hash.c's estimate, on the bytes' hashes): k rows drawn
 * from D values repeat one another in about k^2 / 2D pairs. */
static int64_t distinct_estimate(const am_array *a, int64_t begin, int64_t end) {
  enum { SAMPLE = 2048, CAP = 4096 };
  uint64_t hashes[CAP];
  uint8_t taken[CAP] = {0};
  const int64_t rows = end - begin, step = rows / SAMPLE;
  int64_t pairs = 0;
  for (int k = 0; k < SAMPLE; k++) {
    if (!am_string_is_valid(a, begin + k * step)) continue;
    int64_t n;
    const uint8_t *p = am_string_value(a, begin + k * step, &n);
    const uint64_t h = am_bytes_hash(p, n);
    uint64_t at = h & (CAP - 1);
    while (taken[at] && hashes[at] != h) at = (at + 1) & (CAP - 1);
    if (taken[at]) {
      pairs += taken[at]; /* a value seen m times before adds m pairs */
      if (taken[at] < 255) taken[at]++;
    } else {
      taken[at] = 1;
      hashes[at] = h;
    }
  }
  const int64_t estimate = (int64_t)SAMPLE * SAMPLE / 2 / (pairs ? pairs : 1);
  return estimate < rows ? estimate : rows;
}

/* The number of words a slot keeps of `a`'s values whole (0: none). */
static int whole_words(const am_array *a) {
  if (a->type != AM_FIXED_SIZE_BINARY) return 0;
  return a->byte_width == 16 ? 2 : a->byte_width == 32 ? 4 : 0;
}

typedef struct group_job {
  const am_array *a;
  int flags, parts;
  int words;         /* whole_words(a), or 0 where a join's left side is not alike */
  int32_t *ids;      /* per row, NULL: not asked for */
  uint8_t *id_valid; /* cleared for masked null rows, NULL: none masked */
  part_groups *part;
} group_job;

/* Tables of up to this many slots (a few hundred KB) stay in the caches and
 * are probed row by row; larger ones with a look ahead: a row's slot is
 * prefetched AHEAD rows before the row, and a long value's bytes, which
 * the slot points to, AHEAD / 2 rows before (100,000 distinct strings in
 * 1M rows: the bytes of a group's first value are a cache miss each). */
enum { AHEAD = 16, PREFETCH_SLOTS = 1 << 15 };

static inline void prefetch_slot(const part_groups *t, uint64_t k, uint64_t h) {
  const uint64_t at = h & t->mask;
  __builtin_prefetch(&t->slot[at]);
  __builtin_prefetch(&t->key[at]);
  if (!am_key_is_exact(k)) __builtin_prefetch(&t->ref[at]);
}

static inline void prefetch_value(const part_groups *t, uint64_t k, uint64_t h) {
  const uint64_t at = h & t->mask;
  if (!am_key_is_exact(k) && t->slot[at] >= 0) __builtin_prefetch(t->ref[at].p);
}

/* Runs `body` over rows [begin, end) of `a` (as AM_FOR_EACH_VALUE, with k
 * and h the row's key word and hash) against table t: row by row for a
 * small table, with the look ahead for a large one (whose rows' words and
 * hashes wait in a ring of AHEAD). */
#define FOR_EACH_KEY(a, t, begin, end, i, p, n, k, h, ...)                                   \
  do {                                                                                       \
    if ((t)->mask + 1 < PREFETCH_SLOTS) {                                                    \
      AM_FOR_EACH_VALUE(a, begin, end, i, p, n, {                                            \
        const uint64_t k = am_bytes_key(p, n), h = am_key_hash(k);                           \
        __VA_ARGS__;                                                                         \
      });                                                                                    \
      break;                                                                                 \
    }                                                                                        \
    uint64_t ring_k[AHEAD], ring_h[AHEAD];                                                   \
    const int64_t primed = (begin) + AHEAD < (end) ? (begin) + AHEAD : (end);                \
    AM_FOR_EACH_VALUE(a, begin, primed, j, q, m, {                                           \
      ring_k[j % AHEAD] = am_bytes_key(q, m);                                                \
      ring_h[j % AHEAD] = am_key_hash(ring_k[j % AHEAD]);                                    \
      prefetch_slot(t, ring_k[j % AHEAD], ring_h[j % AHEAD]);                                \
    });                                                                                      \
    AM_FOR_EACH_VALUE(a, begin, end, i, p, n, {                                              \
      const uint64_t k = ring_k[i % AHEAD], h = ring_h[i % AHEAD];                           \
      if (i + AHEAD < (end)) {                                                               \
        int64_t m;                                                                           \
        const uint8_t *q = am_string_value(a, i + AHEAD, &m);                                \
        ring_k[i % AHEAD] = am_bytes_key(q, m);                                              \
        ring_h[i % AHEAD] = am_key_hash(ring_k[i % AHEAD]);                                  \
        prefetch_slot(t, ring_k[i % AHEAD], ring_h[i % AHEAD]);                              \
      }                                                                                      \
      if (i + AHEAD / 2 < (end))                                                             \
        prefetch_value(t, ring_k[(i + AHEAD / 2) % AHEAD], ring_h[(i + AHEAD / 2) % AHEAD]); \
      __VA_ARGS__;                                                                           \
    });                                                                                      \
  } while (0)

/* Whole values: 16 or 32 bytes (2 or 4 words: WORDS a constant, so that the
 * hash and the comparison unroll). Runs the variadic body over rows [begin,
 * end) of fixed_size_binary `a` with w (the row's words) and h (their
 * hash), with the look ahead for a large table as FOR_EACH_KEY. */
static inline void prefetch_words(const part_groups *t, uint64_t h) {
  const uint64_t at = h & t->mask;
  __builtin_prefetch(&t->slot[at]);
  /* a slot's first and last word: 32 bytes at 16 past a line's start
   * (the scratch's header) straddle two lines every other slot, and the
   * second line's miss was a third of the grouping by 100,000 decimal256
   * keys */
  __builtin_prefetch(&t->key[at * t->words]);
  __builtin_prefetch(&t->key[at * t->words + t->words - 1]);
}

#define FOR_EACH_WORDS(a, t, WORDS, begin, end, i, w, h, ...)                      \
  do {                                                                             \
    const uint8_t *base_ = (const uint8_t *)(a)->data + (a)->offset * (WORDS) * 8; \
    const int ahead_ = (t)->mask + 1 >= PREFETCH_SLOTS;                            \
    uint64_t ring_h[AHEAD];                                                        \
    for (int64_t j = (begin); ahead_ && j < (end) && j < (begin) + AHEAD; j++) {   \
      uint64_t v[WORDS];                                                           \
      memcpy(v, base_ + j * (WORDS) * 8, sizeof v);                                \
      prefetch_words(t, ring_h[j % AHEAD] = words_hash(v, WORDS));                 \
    }                                                                              \
    for (int64_t i = (begin); i < (end); i++) {                                    \
      uint64_t w[WORDS];                                                           \
      memcpy(w, base_ + i * (WORDS) * 8, sizeof w);                                \
      const uint64_t h = ahead_ ? ring_h[i % AHEAD] : words_hash(w, WORDS);        \
      if (ahead_ && i + AHEAD < (end)) {                                           \
        uint64_t v[WORDS];                                                         \
        memcpy(v, base_ + (i + AHEAD) * (WORDS) * 8, sizeof v);                    \
        prefetch_words(t, ring_h[i % AHEAD] = words_hash(v, WORDS));               \
      }                                                                            \
      __VA_ARGS__;                                                                 \
    }                                                                              \
  } while (0)

/* Groups rows [begin, end) of part `part` into its table; local ids into
 * job->ids. */
static void group_part(void *ctx, int part) {
  group_job *job = ctx;
  part_groups *pg = &job->part[part];
  const am_array *a = job->a;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  pg->null_group = -1;
  pg->words = job->words;
  uint64_t slots = 1024;
  if (end - begin >= 16384) {
    const int64_t expected = distinct_estimate(a, begin, end);
    while ((int64_t)slots < 2 * expected) slots *= 2;
  }
  if (table_resize(pg, slots) != AM_OK) {
    pg->status = AM_ENOMEM;
    return;
  }
  const int nullable = am_cpu_has_nulls(a), mask_nulls = (job->flags & AM_HASH_MASK_NULLS) != 0;
  const int with_counts = (job->flags & AM_HASH_COUNTS) != 0;
  const uint8_t *validity = a->validity;
  const int64_t voff = a->offset;
  int32_t *ids = job->ids;
  uint8_t *id_valid = job->id_valid;
  int64_t status = AM_OK;
  /* Row i into its group g: the null group, a group found (FIND sets `at`),
   * or a new one (ADD); a block, not a statement: a masked null row's
   * `continue` is the row loop's. */
#define GROUP_ROW(FIND, ADD)                                               \
  {                                                                        \
    int64_t g;                                                             \
    if (nullable && !am_bit_get(validity, voff + i)) {                     \
      if (mask_nulls) {                                                    \
        if (ids) {                                                         \
          id_valid[i >> 3] &= (uint8_t)~(1u << (i & 7));                   \
          ids[i] = 0;                                                      \
        }                                                                  \
        pg->masked++;                                                      \
        continue;                                                          \
      }                                                                    \
      if (pg->null_group < 0 && (pg->null_group = add_group(pg, i)) < 0) { \
        status = -pg->null_group;                                          \
        goto out;                                                          \
      }                                                                    \
      g = pg->null_group;                                                  \
    } else {                                                               \
      const uint64_t at = FIND;                                            \
      if ((g = pg->slot[at]) < 0 && (g = ADD) < 0) {                       \
        status = -g;                                                       \
        goto out;                                                          \
      }                                                                    \
    }                                                                      \
    if (with_counts) pg->counts[g]++;                                      \
    if (ids) ids[i] = (int32_t)g;                                          \
  }
  if (pg->words == 2)
    FOR_EACH_WORDS(a, pg, 2, begin, end, i, w, h,
                   GROUP_ROW(find_words(pg, w, 2, h), add_words(pg, i, w, at)));
  else if (pg->words == 4)
    FOR_EACH_WORDS(a, pg, 4, begin, end, i, w, h,
                   GROUP_ROW(find_words(pg, w, 4, h), add_words(pg, i, w, at)));
  else
    FOR_EACH_KEY(a, pg, begin, end, i, p, n, k, h,
                 GROUP_ROW(find_slot(pg, p, n, k, h), add_value(pg, i, p, n, k, at)));
#undef GROUP_ROW
out:
  pg->status = (int)status;
}

/* Rewrites part `part`'s local ids through its map (part 0's are global
 * already: no map). */
static void remap_part(void *ctx, int part) {
  group_job *job = ctx;
  const part_groups *pg = &job->part[part];
  if (!pg->map) return;
  int64_t begin, end;
  am_pool_range(job->a->length, job->parts, part, &begin, &end);
  const int32_t *map = pg->map;
  int32_t *ids = job->ids;
  if (!job->id_valid) {
    for (int64_t i = begin; i < end; i++) ids[i] = map[ids[i]];
    return;
  }
  for (int64_t i = begin; i < end; i++)
    if (am_bit_get(job->id_valid, i)) ids[i] = map[ids[i]];
}

/* Merges the later parts' groups into part 0's (whose groups are the first
 * global ones with the same ids), in part order, filling each later part's
 * map. */
static int merge_parts(group_job *job) {
  part_groups *head = &job->part[0];
  for (int p = 1; p < job->parts; p++) {
    part_groups *pg = &job->part[p];
    pg->map = am_scratch_alloc((pg->groups ? pg->groups : 1) * (int64_t)sizeof *pg->map);
    if (!pg->map) return AM_ENOMEM;
    /* room for all of the part's groups at once (at most that many are new),
     * not a doubling at a time, each rehashing the table */
    uint64_t slots = head->mask + 1;
    while ((int64_t)slots < 2 * (head->used + pg->groups)) slots *= 2;
    if (slots != head->mask + 1 && table_resize(head, slots) != AM_OK) return AM_ENOMEM;
    for (int64_t g = 0; g < pg->groups; g++) {
      int64_t global;
      if (g == pg->null_group) {
        if (head->null_group < 0 && (head->null_group = add_group(head, pg->first[g])) < 0)
          return (int)-head->null_group;
        global = head->null_group;
      } else {
        int64_t n;
        const uint8_t *v = am_string_value(job->a, pg->first[g], &n);
        if (head->words) {
          uint64_t w[4];
          memcpy(w, v, (size_t)n);
          const uint64_t at = find_words(head, w, head->words, words_hash(w, head->words));
          if ((global = head->slot[at]) < 0 && (global = add_words(head, pg->first[g], w, at)) < 0)
            return (int)-global;
        } else {
          const uint64_t k = am_bytes_key(v, n), at = find_slot(head, v, n, k, am_key_hash(k));
          if ((global = head->slot[at]) < 0 &&
              (global = add_value(head, pg->first[g], v, n, k, at)) < 0)
            return (int)-global;
        }
      }
      head->counts[global] += pg->counts[g];
      pg->map[g] = (int32_t)global;
    }
  }
  return AM_OK;
}

/* Whole values group on one part where rows / distinct values is below
 * this (group_rows). */
enum { WHOLE_ONE_PART_RATIO = 16 };

/* Groups the rows of `a` (core/hash.h's flags; ids and id_valid as in
 * group_job): the groups end up in job->part[0], the caller frees every
 * part (job->part set, even on failure); *masked gets the null rows left
 * out. */
static int group_rows(am_err *err, group_job *job, int64_t *masked) {
  const int64_t n = job->a->length;
  job->parts = am_pool_parts(n);
  /* Mostly distinct values group on one thread: merging the parts' groups
   * is a probe of one table per group, serial, with a miss for each group's
   * bytes -- 1M rows of about 630,000 distinct strings took 165 ms on two
   * parts against 80 on one. Whole values (decimals) are cheaper to group
   * than to merge and group twice: each part of 1M rows of 100,000 distinct
   * values holds nearly all of them, so two parts made two tables of
   * 100,000 and merged 100,000 more (a group-by sum of those rows, 45 ms
   * on two parts, takes 22 on one). */
  const int64_t ratio = job->words ? WHOLE_ONE_PART_RATIO : 4;
  if (job->parts < 1 || (job->parts > 1 && distinct_estimate(job->a, 0, n) * ratio > n))
    job->parts = 1;
  if (!(job->part = calloc((size_t)job->parts, sizeof *job->part)))
    return am_fail(err, AM_ENOMEM, "out of memory for a hash table");
  if (job->parts > 1)
    am_pool_run(job->parts, group_part, job);
  else
    group_part(job, 0);
  int status = AM_OK;
  *masked = 0;
  for (int p = 0; p < job->parts; p++) {
    if (job->part[p].status != AM_OK && status != AM_EINVAL) status = job->part[p].status;
    *masked += job->part[p].masked;
  }
  if (status == AM_OK && job->parts > 1 && (status = merge_parts(job)) == AM_OK && job->ids)
    am_pool_run(job->parts, remap_part, job);
  if (status == AM_EINVAL) return am_fail(err, AM_EINVAL, "more than 2^31 - 1 distinct values");
  if (status != AM_OK) return am_fail(err, AM_ENOMEM, "out of memory for a hash table");
  return AM_OK;
}

static void job_free(group_job *job) {
  for (int p = 0; job->part && p < job->parts; p++) part_free(&job->part[p]);
  free(job->part);
}

/* A host int64 array of v[0, n). */
static int int64_array(am_err *err, const int64_t *v, int64_t n, am_array **out) {
  int status = am_array_alloc_host(err, am_cpu_device(), AM_INT64, n, 0, out);
  if (status != AM_OK) return status;
  if (n) memcpy((void *)(*out)->data, v, (size_t)n * sizeof *v);
  am_cpu_set_validity(*out, NULL, n);
  return AM_OK;
}

int am_cpu_hash_group_bytes(am_err *err, const am_array *array, int flags, am_hash_groups *out) {
  const int64_t n = array->length;
  const int mask_nulls = (flags & AM_HASH_MASK_NULLS) != 0;
  am_hash_groups result = {.null_group = -1};
  group_job job = {.a = array, .flags = flags, .words = whole_words(array)};
  int64_t masked = 0;
  int status = AM_OK;
  if (flags & AM_HASH_IDS) {
    status = am_array_alloc_host(err, am_cpu_device(), AM_INT32, n, mask_nulls, &result.ids);
    if (status != AM_OK) return status;
    job.ids = (int32_t *)result.ids->data;
    job.id_valid = (uint8_t *)result.ids->validity;
    if (job.id_valid) memset(job.id_valid, 0xff, (size_t)(n + 7) / 8);
  }
  if ((status = group_rows(err, &job, &masked)) == AM_OK) {
    const part_groups *head = &job.part[0];
    result.groups = head->groups;
    result.null_group = head->null_group;
    if ((status = int64_array(err, head->first, head->groups, &result.first)) == AM_OK &&
        (flags & AM_HASH_COUNTS))
      status = int64_array(err, head->counts, head->groups, &result.counts);
  }
  if (status == AM_OK && result.ids) {
    /* the bitmap of a masked grouping stays, with its count (hash.c's way) */
    am_buffer *bitmap = result.ids->validity_buf;
    result.ids->validity_buf = NULL;
    result.ids->validity = NULL;
    am_cpu_set_validity(result.ids, bitmap, n - masked);
  }
  job_free(&job);
  if (status != AM_OK) {
    am_hash_groups_free(&result);
    return status;
  }
  *out = result;
  return AM_OK;
}

/* The probe of a join's left rows: each row's right group, else `none`. */
typedef struct probe_job {
  const am_array *left;
  const part_groups *right;
  int32_t *ids;
  int32_t none;
  int parts;
} probe_job;

static void probe_part(void *ctx, int part) {
  const probe_job *job = ctx;
  const am_array *a = job->left;
  const part_groups *t = job->right;
  int64_t begin, end;
  am_pool_range(a->length, job->parts, part, &begin, &end);
  const int nullable = am_cpu_has_nulls(a);
  int32_t *ids = job->ids;
  const int32_t none = job->none;
#define PROBE_ROW(FIND)                                           \
  {                                                               \
    int32_t g = -1;                                               \
    if (!nullable || am_string_is_valid(a, i)) g = t->slot[FIND]; \
    ids[i] = g < 0 ? none : g;                                    \
  }
  /* the right side's table keeps whole values where the left's are of one
   * type, width and so layout (a join's two sides are) */
  if (t->words == 2)
    FOR_EACH_WORDS(a, t, 2, begin, end, i, w, h, PROBE_ROW(find_words(t, w, 2, h)));
  else if (t->words == 4)
    FOR_EACH_WORDS(a, t, 4, begin, end, i, w, h, PROBE_ROW(find_words(t, w, 4, h)));
  else
    FOR_EACH_KEY(a, t, begin, end, i, p, n, k, h, PROBE_ROW(find_slot(t, p, n, k, h)));
#undef PROBE_ROW
}

int am_cpu_hash_join_ids_bytes(am_err *err, const am_array *left, const am_array *right,
                               int32_t *ids, int64_t *groups) {
  const int64_t nl = left->length, nr = right->length;
  /* the right rows' groups (nulls masked), then the left rows probed */
  uint8_t *masked_bits = am_scratch_alloc((nr + 7) / 8 + 1);
  const int words = whole_words(left) == whole_words(right) ? whole_words(right) : 0;
  group_job job = {.a = right,
                   .flags = AM_HASH_MASK_NULLS,
                   .words = words,
                   .ids = ids + nl,
                   .id_valid = masked_bits};
  int64_t masked = 0;
  int status = masked_bits ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  if (status == AM_OK) {
    memset(masked_bits, 0xff, (size_t)(nr + 7) / 8 + 1);
    status = group_rows(err, &job, &masked);
  }
  if (status == AM_OK && job.part[0].groups > INT32_MAX - 2)
    status = am_fail(err, AM_EINVAL, "more than 2^31 - 3 distinct keys");
  if (status == AM_OK) {
    const int64_t g = job.part[0].groups;
    const int32_t none = (int32_t)g, null_key = (int32_t)g + 1;
    for (int64_t r = 0; masked && r < nr; r++)
      if (!am_bit_get(masked_bits, r)) ids[nl + r] = null_key;
    probe_job probe = {
        .left = left, .right = &job.part[0], .ids = ids, .none = none, .parts = am_pool_parts(nl)};
    if (probe.parts > 1)
      am_pool_run(probe.parts, probe_part, &probe);
    else
      probe_part(&probe, 0);
    *groups = g;
  }
  job_free(&job);
  am_scratch_free(masked_bits);
  return status;
}
