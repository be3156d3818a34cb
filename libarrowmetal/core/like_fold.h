/* match_like under ignore_case with its pattern compiled once.
 *
 * pyarrow turns a LIKE pattern into an anchored RE2 expression ('%' is .*,
 * '_' is .) and, with ignore_case, runs it case-insensitively: a DFA over
 * the value's bytes. Here the pattern (in the syntax abi/string_functions.c's
 * like() reads: '%', '_', a backslash before a literal '%', '_' or
 * backslash, each literal character already folded) is cut at its '%'s into
 * runs of characters: the first run must match at the value's start, the
 * last at its end, and each run between is taken at its leftmost match after
 * the one before (a run is as many of the value's characters as it has
 * characters, so its leftmost match leaves the most room for the rest).
 * A run between '%'s that holds a literal looks for the first byte pairs
 * of its fold orbit's encodings (Σ σ ς: CE A3, CF 83, CF 82), 16 bytes at a
 * time where 17 are readable, then in a table of byte pairs, so only where
 * one of them begins is a rune decoded, folded and compared; a run that
 * begins with '_'s finds its literal past them and walks back to its start.
 *
 * This is like()'s answer wherever RE2's '.'s cover the value (which the
 * caller checks, as for like(): elsewhere nothing matches), since there a
 * character begins at every byte that is not a continuation byte; on other
 * values it reads only the value's bytes and may answer either way. */
#ifndef AM_CORE_LIKE_FOLD_H
#define AM_CORE_LIKE_FOLD_H

#include <stdint.h>

#include "error.h"

/* A character of the pattern: '_' (len 0, any character) or a folded
 * literal (a rune in UTF-8, else a byte: len bytes of p). */
typedef struct am_like_char {
  uint8_t len, p[4];
} am_like_char;

/* The characters between two '%'s (or an end of the pattern). */
typedef struct am_like_run {
  int64_t first, count; /* am_like_fold.chars[first, first + count) */
  int64_t before;       /* the '_'s before its first literal (count where it has none) */
  /* Where the run floats and has a literal (in the pattern's first 64 such
   * runs; the others try each character), the encodings that literal can
   * have in a value: bit (a << 8 | b) of `pairs` where one begins with bytes
   * a, b (every b for a one-byte encoding), `last` for a one-byte encoding
   * (at a value's last byte); NULL otherwise. */
  uint8_t *pairs;
  const uint8_t *last;
  /* The same encodings for the 16-byte scan, where they are at most 4
   * (every orbit's are): 16 copies of each one's first byte, of its second,
   * and of 0xFF where it is one byte (any second byte), 4 of each; NULL:
   * the scan reads a byte at a time. */
  const uint8_t *vectors;
} am_like_run;

typedef struct am_like_fold {
  am_like_char *chars;
  am_like_run *runs; /* one more than the pattern's '%'s */
  int64_t n_runs;
  int utf8;
} am_like_fold;

/* Compiles the folded pattern p[0, m) (like()'s syntax) of a UTF-8 (utf8)
 * or binary type into lf, which am_like_fold_free releases (also where this
 * fails: AM_ENOMEM). */
int am_like_fold_compile(am_err *err, am_like_fold *lf, const uint8_t *p, int64_t m, int utf8);

void am_like_fold_free(am_like_fold *lf);

/* Whether s[0, n) matches lf (see above for values RE2's '.'s do not
 * cover). s[0, room) is readable (room >= n): the scan looks ahead 16 bytes
 * at a time where it may, past n too, and never counts what it sees there. */
int am_like_fold_match(const am_like_fold *lf, const uint8_t *s, int64_t n, int64_t room);

#endif
