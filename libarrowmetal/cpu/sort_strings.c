/* sort_indices' pass over one string or binary key (sort.c calls it in its
 * LSD loop over the keys): a stable reordering of the permutation by the
 * key's values in pyarrow's order -- bytes compared unsigned, a value before
 * every longer value it is a prefix of, nulls at the start or the end.
 *
 * Why an MSD radix sort over 8-byte chunks: a comparison sort of row
 * indices reads two values' bytes through two offsets per comparison,
 * n log n cache misses (20 per row at 1M rows); here each row's next 8
 * bytes are read once per level into a big-endian word, and a stable LSD
 * radix sort of that word (the byte passes where every row has the same
 * byte skipped, as sort.c skips them) orders a whole range at once, so a
 * level costs a few sequential passes. A ninth digit, the bytes left in the
 * value (0 .. 8, or 9 for "more than 8"), is sorted first: rows whose chunks
 * tie are then ordered shorter first, as a prefix sorts before a longer
 * value ("a" < "a\0", which zero padding alone would tie). Only runs of
 * equal chunks whose values go on (digit 9) are sorted again, 8 bytes
 * deeper, from a work list rather than by recursion (no stack depth grows
 * with the values' length). Ranges of a few rows take an insertion sort by
 * memcmp instead, cheaper than a radix pass of them. Descending inverts the
 * word and the digit: the exact reverse of the ascending order of distinct
 * values, ties still in permutation order. Everything is stable, so the
 * rows equal in this key keep the order the later keys gave them. */
#include <stdlib.h>
#include <string.h>

#include "core/memstats.h"
#include "core/string_array.h"
#include "cpu.h"

/* Ranges of at most this many rows are insertion sorted. */
#define SMALL_RANGE 24
/* The length digit of a value with more than 8 bytes left. */
#define GOES_ON 9

typedef struct range {
  int64_t begin, count, depth;
} range;

typedef struct string_sorter {
  const am_array *a;
  int descending;
  uint64_t *idx, *idx2; /* per position: the row */
  uint64_t *key, *key2; /* per position: 8 bytes of its value from `depth` */
  uint8_t *len, *len2;  /* per position: its length digit */
  range *todo;
  int64_t todo_count, todo_capacity;
} string_sorter;

/* Row r's value (the array's offset applied by am_string_value). */
static inline const uint8_t *value_of(const am_array *a, uint64_t r, int64_t *size) {
  return am_string_value(a, (int64_t)r, size);
}

/* Negative, zero or positive as row x's value (from byte `depth` on)
 * sorts before, with or after row y's, in the sort's direction. */
static int compare(const string_sorter *s, uint64_t x, uint64_t y, int64_t depth) {
  int64_t nx, ny;
  const uint8_t *px = value_of(s->a, x, &nx), *py = value_of(s->a, y, &ny);
  const int64_t common = (nx < ny ? nx : ny) - depth;
  int c = common > 0 ? memcmp(px + depth, py + depth, (size_t)common) : 0;
  if (c == 0) c = (nx > ny) - (nx < ny);
  return s->descending ? -c : c;
}

static void insertion_sort(const string_sorter *s, uint64_t *idx, int64_t count, int64_t depth) {
  for (int64_t i = 1; i < count; i++) {
    const uint64_t row = idx[i];
    int64_t j = i;
    for (; j > 0 && compare(s, idx[j - 1], row, depth) > 0; j--) idx[j] = idx[j - 1];
    idx[j] = row;
  }
}

static int push(string_sorter *s, int64_t begin, int64_t count, int64_t depth) {
  if (s->todo_count == s->todo_capacity) {
    const int64_t capacity = s->todo_capacity ? 2 * s->todo_capacity : 64;
    range *grown = realloc(s->todo, (size_t)capacity * sizeof *grown);
    if (!grown) return -1;
    s->todo = grown;
    s->todo_capacity = capacity;
  }
  s->todo[s->todo_count++] = (range){begin, count, depth};
  return 0;
}

/* The buffers of a range's passes: each pass reads one side and writes
 * the other, then the two swap. */
typedef struct sides {
  uint64_t *idx, *key;
  uint8_t *len;
  uint64_t *idx2, *key2;
  uint8_t *len2;
} sides;

/* One stable counting pass of positions [b, b + m) on a digit: the byte at
 * `shift` of the word, or (shift < 0) the length digit. */
static void pass(sides *w, int64_t b, int64_t m, int shift) {
  int64_t count[256] = {0};
  for (int64_t i = b; i < b + m; i++) count[shift < 0 ? w->len[i] : (w->key[i] >> shift) & 0xff]++;
  int64_t pos = b;
  for (int d = 0; d < 256; d++) {
    const int64_t c = count[d];
    count[d] = pos;
    pos += c;
  }
  for (int64_t i = b; i < b + m; i++) {
    const int64_t to = count[shift < 0 ? w->len[i] : (w->key[i] >> shift) & 0xff]++;
    w->key2[to] = w->key[i];
    w->len2[to] = w->len[i];
    w->idx2[to] = w->idx[i];
  }
  *w = (sides){w->idx2, w->key2, w->len2, w->idx, w->key, w->len};
}

/* Sorts positions [b, b + m) by their values from byte `depth` on (every
 * one has at least `depth` bytes), queuing the runs that tie on 8 more. */
static int sort_range(string_sorter *s, int64_t b, int64_t m, int64_t depth) {
  if (m <= SMALL_RANGE) {
    insertion_sort(s, s->idx + b, m, depth);
    return 0;
  }
  uint64_t all = ~(uint64_t)0, any = 0;
  uint8_t len_all = 0xff, len_any = 0;
  for (int64_t i = b; i < b + m; i++) {
    int64_t size;
    const uint8_t *p = value_of(s->a, s->idx[i], &size);
    const int64_t left = size - depth;
    uint64_t word = 0;
    if (left >= 8) {
      memcpy(&word, p + depth, 8);
      word = __builtin_bswap64(word);
    } else {
      for (int64_t k = 0; k < left; k++) word |= (uint64_t)p[depth + k] << (56 - 8 * k);
    }
    const int digit = left > 8 ? GOES_ON : (int)left;
    const uint8_t len = (uint8_t)(s->descending ? GOES_ON - digit : digit);
    s->key[i] = s->descending ? ~word : word;
    s->len[i] = len;
    all &= s->key[i];
    any |= s->key[i];
    len_all &= len;
    len_any |= len;
  }
  /* LSD: the length digit, then the word's bytes low to high; a digit the
   * same in every row orders nothing and is skipped */
  sides w = {s->idx, s->key, s->len, s->idx2, s->key2, s->len2};
  if (len_all != len_any) pass(&w, b, m, -1);
  const uint64_t varies = all ^ any;
  for (int shift = 0; shift < 64; shift += 8)
    if ((varies >> shift) & 0xff) pass(&w, b, m, shift);
  /* the range's rows end in s->idx: later ranges read and write there */
  if (w.idx != s->idx) memcpy(s->idx + b, w.idx + b, (size_t)m * sizeof *s->idx);
  const uint8_t goes_on = s->descending ? 0 : GOES_ON;
  for (int64_t i = b; i < b + m;) {
    int64_t j = i + 1;
    while (j < b + m && w.key[j] == w.key[i] && w.len[j] == w.len[i]) j++;
    if (j - i > 1 && w.len[i] == goes_on && push(s, i, j - i, depth + 8) != 0) return -1;
    i = j;
  }
  return 0;
}

/* Stably moves the null rows of idx[0, n) to the start or the end; the
 * valid rows' range is [*begin, *begin + *count). */
static void place_nulls(const am_array *a, int nulls_first, uint64_t *idx, uint64_t *tmp, int64_t n,
                        int64_t *begin, int64_t *count) {
  int64_t valid = 0;
  for (int64_t i = 0; i < n; i++) valid += am_string_is_valid(a, (int64_t)idx[i]);
  int64_t v = nulls_first ? n - valid : 0, z = nulls_first ? 0 : valid;
  for (int64_t i = 0; i < n; i++) {
    if (am_string_is_valid(a, (int64_t)idx[i]))
      tmp[v++] = idx[i];
    else
      tmp[z++] = idx[i];
  }
  memcpy(idx, tmp, (size_t)n * sizeof *idx);
  *begin = nulls_first ? n - valid : 0;
  *count = valid;
}

int am_cpu_sort_strings(const am_array *a, int descending, int nulls_first, uint64_t *idx,
                        int64_t n) {
  string_sorter s = {.a = a, .descending = descending, .idx = idx};
  const int64_t words = (n ? n : 1) * (int64_t)sizeof(uint64_t);
  s.idx2 = am_scratch_alloc(words);
  s.key = am_scratch_alloc(words);
  s.key2 = am_scratch_alloc(words);
  s.len = am_scratch_alloc(n ? n : 1);
  s.len2 = am_scratch_alloc(n ? n : 1);
  int status = s.idx2 && s.key && s.key2 && s.len && s.len2 ? 0 : -1;
  int64_t begin = 0, count = n;
  if (status == 0 && am_cpu_has_nulls(a))
    place_nulls(a, nulls_first, idx, s.idx2, n, &begin, &count);
  if (status == 0) status = push(&s, begin, count, 0);
  while (status == 0 && s.todo_count > 0) {
    const range r = s.todo[--s.todo_count];
    status = sort_range(&s, r.begin, r.count, r.depth);
  }
  free(s.todo);
  am_scratch_free(s.idx2);
  am_scratch_free(s.key);
  am_scratch_free(s.key2);
  am_scratch_free(s.len);
  am_scratch_free(s.len2);
  return status;
}
