/* Compiling and matching a LIKE pattern under ignore_case (like_fold.h). */
#include "like_fold.h"

#include <stdlib.h>
#include <string.h>

#include "unicode_fold.h"
#include "utf8.h"

/* Runs between '%'s that get a table of their literal (8 KiB each); any
 * further ones try each character, as like() does. */
enum { TABLES = 64 };

/* The byte after the character at s[i]: the next byte, past any UTF-8
 * continuation bytes when `utf8` (like()'s step). */
static inline int64_t next_char(const uint8_t *s, int64_t n, int64_t i, int utf8) {
  i++;
  while (utf8 && i < n && (s[i] & 0xC0) == 0x80) i++;
  return i;
}

/* The start of the character that ends at e, not before `from`: in UTF-8 the
 * nearest byte back that does not continue one. */
static inline int64_t char_before(const uint8_t *s, int64_t from, int64_t e, int utf8) {
  int64_t k = e - 1;
  while (utf8 && k > from && (s[k] & 0xC0) == 0x80) k--;
  return k;
}

/* The encodings of a literal for the 16-byte scan: their first two bytes
 * (a one-byte one's second taken as any byte); count -1 past 4. */
typedef struct encodings {
  int count;
  uint8_t lead[4], second[4], one[4];
} encodings;

/* Bytes of a run's table: the pair bits, `last`, then the scan's vectors. */
enum { PAIRS = 8192, VECTORS = 8192 + 256, TABLE = VECTORS + 12 * 16 };

/* Marks encoding e[0, len) in r's tables if a value's character there
 * matches the literal c (the test matching itself makes). */
static void mark(am_like_run *r, encodings *in, const am_like_char *c, const uint8_t *e, int len,
                 int utf8) {
  if (am_fold_char_at(e, len, 0, c->p, c->len, utf8) != len) return;
  uint8_t *last = r->pairs + PAIRS;
  const unsigned w = (unsigned)e[0] << 8 | (len > 1 ? e[1] : 0);
  if (len == 1) {
    if (last[e[0]]) return;
    last[e[0]] = 1;
    memset(r->pairs + e[0] * 32, 0xFF, 32);
  } else {
    if (r->pairs[w >> 3] >> (w & 7) & 1) return;
    r->pairs[w >> 3] |= (uint8_t)(1u << (w & 7));
  }
  if (in->count < 0) return;
  if (in->count == 4) {
    in->count = -1;
    return;
  }
  in->lead[in->count] = e[0], in->second[in->count] = (uint8_t)w;
  in->one[in->count++] = len == 1 ? 0xFF : 0;
}

/* r's tables for literal c: every encoding of a character that folds to it
 * (those outside the fold blocks fold to themselves). */
static int tabulate(am_like_run *r, const am_like_char *c, int utf8) {
  uint8_t *table = calloc(TABLE, 1);
  if (!table) return 0;
  r->pairs = table, r->last = table + PAIRS;
  encodings in = {0};
  uint8_t e[4];
  if (!utf8) {
    for (int b = 0; b < 256; b++) e[0] = (uint8_t)b, mark(r, &in, c, e, 1, 0);
  } else {
    uint32_t f = c->p[0];
    if (c->len > 1) am_re2_rune(c->p, c->p + c->len, &f);
    mark(r, &in, c, e, am_utf8_encode(f, e), 1);
    for (uint32_t b = 0; b < AM_FOLD_BLOCKS; b++) {
      if (!am_fold_block[b]) continue;
      for (uint32_t x = b << 8; x < ((b + 1) << 8); x++)
        if (x < 0x80 || am_unicode_fold(x) == f) mark(r, &in, c, e, am_utf8_encode(x, e), 1);
    }
  }
  if (in.count <= 0) return 1; /* none (a binary literal's class is at most 2) */
  /* 16 copies of each byte, the first encoding again past the last */
  uint8_t *v = table + VECTORS;
  for (int k = 0; k < 4; k++) {
    const int from = k < in.count ? k : 0;
    memset(v + 16 * k, in.lead[from], 16);
    memset(v + 16 * (4 + k), in.second[from], 16);
    memset(v + 16 * (8 + k), in.one[from], 16);
  }
  r->vectors = v;
  return 1;
}

int am_like_fold_compile(am_err *err, am_like_fold *lf, const uint8_t *p, int64_t m, int utf8) {
  memset(lf, 0, sizeof *lf);
  lf->utf8 = utf8;
  int64_t stars = 0;
  for (int64_t j = 0; j < m; j++) {
    if (p[j] == '\\')
      j++;
    else
      stars += p[j] == '%';
  }
  lf->chars = malloc((size_t)(m + 1) * sizeof *lf->chars);
  lf->runs = calloc((size_t)(stars + 1), sizeof *lf->runs);
  if (!lf->chars || !lf->runs) return am_fail(err, AM_ENOMEM, "out of memory compiling a pattern");
  am_like_run *r = lf->runs;
  int64_t count = 0;
  for (int64_t j = 0; j <= m; j++) {
    if (j == m || p[j] == '%') { /* the run ends */
      r->count = count - r->first;
      r->before = r->count;
      for (int64_t k = 0; k < r->count; k++)
        if (lf->chars[r->first + k].len) {
          r->before = k;
          break;
        }
      if (j == m) break;
      (++r)->first = count;
      continue;
    }
    am_like_char *c = &lf->chars[count++];
    if (p[j] == '_') {
      c->len = 0;
      continue;
    }
    if (p[j] == '\\' && ++j == m) { /* a trailing backslash: dropped */
      count--;
      j--;
      continue;
    }
    c->len = (uint8_t)am_fold_char_length(p[j], utf8);
    if (j + c->len > m) c->len = (uint8_t)(m - j); /* like_pattern writes whole runes */
    memcpy(c->p, p + j, c->len);
    j += c->len - 1;
  }
  lf->n_runs = stars + 1;
  int tables = 0;
  for (int64_t k = 1; k + 1 < lf->n_runs && tables < TABLES; k++) {
    am_like_run *f = &lf->runs[k];
    if (f->before == f->count) continue;
    if (!tabulate(f, &lf->chars[f->first + f->before], utf8))
      return am_fail(err, AM_ENOMEM, "out of memory compiling a pattern");
    tables++;
  }
  return AM_OK;
}

void am_like_fold_free(am_like_fold *lf) {
  for (int64_t k = 0; lf->runs && k < lf->n_runs; k++) free(lf->runs[k].pairs);
  free(lf->chars);
  free(lf->runs);
  memset(lf, 0, sizeof *lf);
}

/* Where run r matched from s[i] ends; -1 where it does not match there. */
static int64_t run_at(const am_like_fold *lf, const am_like_run *r, const uint8_t *s, int64_t n,
                      int64_t i) {
  const am_like_char *c = lf->chars + r->first;
  for (int64_t k = 0; k < r->count; k++) {
    if (i >= n) return -1;
    if (!c[k].len) {
      i = next_char(s, n, i, lf->utf8);
      continue;
    }
    const int taken = am_fold_char_at(s, n, i, c[k].p, c[k].len, lf->utf8);
    if (!taken) return -1;
    i += taken;
  }
  return i;
}

typedef uint8_t bytes16 __attribute__((vector_size(16)));
typedef uint64_t words2 __attribute__((vector_size(16)));

/* The first byte at or after x where r's literal can begin; -1 where none:
 * 16 bytes at a time while 17 are readable (each byte with the next), then
 * the pair table. A hit whose encoding runs past n fails in run_at, which
 * reads no further than n. */
static inline int64_t scan(const am_like_run *r, const uint8_t *s, int64_t n, int64_t room,
                           int64_t x) {
  if (r->vectors && x < n && x + 17 <= room) {
    bytes16 lead[4], second[4], one[4];
    memcpy(lead, r->vectors, sizeof lead);
    memcpy(second, r->vectors + sizeof lead, sizeof second);
    memcpy(one, r->vectors + 2 * sizeof lead, sizeof one);
    for (; x < n && x + 17 <= room; x += 16) {
      bytes16 v0, v1, hit = {0};
      memcpy(&v0, s + x, 16);
      memcpy(&v1, s + x + 1, 16);
      for (int k = 0; k < 4; k++)
        hit |= (bytes16)(v0 == lead[k]) & ((bytes16)(v1 == second[k]) | one[k]);
      const words2 w = (words2)hit;
      if (w[0] | w[1]) {
        const int64_t at = x + (w[0] ? __builtin_ctzll(w[0]) : 64 + __builtin_ctzll(w[1])) / 8;
        return at < n ? at : -1;
      }
    }
  }
  const uint8_t *pairs = r->pairs;
  for (; x + 1 < n; x++) {
    const unsigned w = (unsigned)s[x] << 8 | s[x + 1];
    if (pairs[w >> 3] >> (w & 7) & 1) return x;
  }
  return x + 1 == n && r->last[s[x]] ? x : -1;
}

/* The leftmost match of run r (between '%'s) at or after i: its start, *end
 * its end; -1 where none. */
static int64_t run_find(const am_like_fold *lf, const am_like_run *r, const uint8_t *s, int64_t n,
                        int64_t room, int64_t i, int64_t *end) {
  const int utf8 = lf->utf8;
  if (!r->pairs) { /* each character in turn; with no literal the first or none */
    for (int64_t y = i; y < n || r->count == 0; y = next_char(s, n, y, utf8)) {
      if ((*end = run_at(lf, r, s, n, y)) >= 0) return y;
      if (r->before == r->count) return -1;
    }
    return -1;
  }
  int64_t x = i; /* the literal's earliest place: past the '_'s before it */
  for (int64_t k = 0; k < r->before; k++) {
    if (x >= n) return -1;
    x = next_char(s, n, x, utf8);
  }
  for (; (x = scan(r, s, n, room, x)) >= 0; x++) {
    int64_t y = x;
    for (int64_t k = 0; k < r->before; k++) y = char_before(s, i, y, utf8);
    if ((*end = run_at(lf, r, s, n, y)) >= 0) return y;
  }
  return -1;
}

int am_like_fold_match(const am_like_fold *lf, const uint8_t *s, int64_t n, int64_t room) {
  const am_like_run *r = lf->runs;
  int64_t i = run_at(lf, r, s, n, 0);
  if (lf->n_runs == 1 || i < 0) return i == n;
  for (int64_t k = 1; k + 1 < lf->n_runs; k++) {
    if (run_find(lf, &lf->runs[k], s, n, room, i, &i) < 0) return 0;
  }
  /* the last run ends the value: it begins as many characters back */
  const am_like_run *tail = &lf->runs[lf->n_runs - 1];
  int64_t start = n;
  for (int64_t k = 0; k < tail->count; k++) {
    if (start <= i) return 0;
    start = char_before(s, i, start, lf->utf8);
  }
  return run_at(lf, tail, s, n, start) == n;
}
