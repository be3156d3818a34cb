/* strptime as pyarrow runs it on Linux (temporal_text.h): glibc's strptime
 * in the C locale fills a zeroed struct tm, the whole text must have been
 * read, and Arrow makes the time from the struct's year / month / day (a
 * day of 0 taken as 1), hours, minutes and seconds, less tm_gmtoff.
 *
 * The reading follows glibc's steps: white space in the format skips any
 * white space in the text; numbers skip leading white space and take up to
 * their width of digits while the value can still grow within its range
 * ("%m" takes "1" of "1/"); names match in any case, the longest of the
 * full and abbreviated ones; strftime's flags and widths after '%' are
 * skipped; %I with %p adds 12 to a PM hour; %j gives the month and day when
 * the format has a date field but no month and day (glibc's table walk
 * included: day 366 of a common year lands in a 25th month, which Arrow's
 * date arithmetic carries into a later year). A text ends at a NUL byte. */
#include <string.h>

#include "temporal_text.h"

static const int64_t ticks_per_second[10] = {1, 0, 0, 1000, 0, 0, 1000000, 0, 0, 1000000000};

static const char *const weekday_names[7] = {"Sunday",   "Monday", "Tuesday", "Wednesday",
                                             "Thursday", "Friday", "Saturday"};
static const char *const month_names[12] = {"January",   "February", "March",    "April",
                                            "May",       "June",     "July",     "August",
                                            "September", "October",  "November", "December"};

/* glibc's struct tm and parser state, the fields Arrow reads */
typedef struct {
  int year, mon, mday, hour, min, sec, yday; /* tm_year: years since 1900 */
  long gmtoff;
  int have_I, is_pm, want_century, century, want_xday, have_wday, have_yday, have_mon, have_mday;
} state;

/* The text being read: bytes past its end read as NUL. */
typedef struct {
  const uint8_t *s;
  int64_t n, at;
} input;

static uint8_t peek(const input *in) { return in->at < in->n ? in->s[in->at] : 0; }

static int is_space(uint8_t c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static void skip_space(input *in) {
  while (is_space(peek(in))) in->at++;
}

static int is_digit(uint8_t c) { return c >= '0' && c <= '9'; }

/* glibc's get_number: white space, then up to `width` digits while the
 * value times ten stays within `to` */
static int number(input *in, int from, int to, int width, int *out) {
  skip_space(in);
  if (!is_digit(peek(in))) return 0;
  int v = 0;
  do v = v * 10 + (in->s[in->at++] - '0');
  while (--width > 0 && v * 10 <= to && is_digit(peek(in)));
  if (v < from || v > to) return 0;
  *out = v;
  return 1;
}

/* the rest of the text starts with `word`, in any case */
static int match_word(input *in, const char *word) {
  const int64_t n = (int64_t)strlen(word);
  if (in->n - in->at < n) return 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t c = in->s[in->at + i];
    if (c >= 'A' && c <= 'Z') c = (uint8_t)(c + 32);
    uint8_t w = (uint8_t)word[i];
    if (w >= 'A' && w <= 'Z') w = (uint8_t)(w + 32);
    if (c != w) return 0;
  }
  return 1;
}

/* the longest of the names (full or first three letters) the text starts
 * with: its index, or -1 */
static int match_name(input *in, const char *const *names, int count) {
  int best = -1;
  int64_t best_length = 0;
  for (int i = 0; i < count; i++) {
    char abbreviated[4] = {names[i][0], names[i][1], names[i][2], 0};
    const char *forms[2] = {names[i], abbreviated};
    for (int f = 0; f < 2; f++) {
      const int64_t length = (int64_t)strlen(forms[f]);
      if (length > best_length && match_word(in, forms[f])) best = i, best_length = length;
    }
  }
  in->at += best_length;
  return best;
}

static int offset(input *in, state *st) {
  skip_space(in);
  if (peek(in) == 'Z') {
    in->at++;
    st->gmtoff = 0;
    return 1;
  }
  const uint8_t sign = peek(in);
  if (sign != '+' && sign != '-') return 0;
  in->at++;
  int v = 0, n = 0;
  while (n < 4 && is_digit(peek(in))) {
    v = v * 10 + (in->s[in->at++] - '0');
    n++;
    if (peek(in) == ':' && n == 2 && in->at + 1 < in->n && is_digit(in->s[in->at + 1])) in->at++;
  }
  if (n == 2)
    v *= 100;
  else if (n != 4 || v % 100 >= 60)
    return 0;
  st->gmtoff = (v / 100) * 3600L + (v % 100) * 60L;
  if (sign == '-') st->gmtoff = -st->gmtoff;
  return 1;
}

static int conversion(char c, input *in, state *st);

/* glibc's __strptime_internal over `format`, sharing the state */
static int run(const char *format, input *in, state *st) {
  for (const char *f = format; *f; f++) {
    if (is_space((uint8_t)*f)) {
      skip_space(in);
      continue;
    }
    if (*f != '%') {
      if (peek(in) != (uint8_t)*f) return 0;
      in->at++;
      continue;
    }
    f++;
    while (*f && strchr("-_0^#", *f)) f++; /* strftime's flags, */
    while (is_digit((uint8_t)*f)) f++;     /* and its widths: skipped */
    if (!conversion(*f, in, st)) return 0;
  }
  return 1;
}

static int conversion(char c, input *in, state *st) {
  int v;
  switch (c) {
    case '%':
      if (peek(in) != '%') return 0;
      in->at++;
      return 1;
    case 'a':
    case 'A':
      if (match_name(in, weekday_names, 7) < 0) return 0;
      st->have_wday = 1;
      return 1;
    case 'b':
    case 'B':
    case 'h':
      if ((v = match_name(in, month_names, 12)) < 0) return 0;
      st->mon = v;
      st->have_mon = st->want_xday = 1;
      return 1;
    case 'C':
      if (!number(in, 0, 99, 2, &v)) return 0;
      st->century = v;
      st->want_xday = 1;
      return 1;
    case 'd':
    case 'e':
      if (!number(in, 1, 31, 2, &v)) return 0;
      st->mday = v;
      st->have_mday = st->want_xday = 1;
      return 1;
    case 'D':
      if (!run("%m/%d/%y", in, st)) return 0;
      st->want_xday = 1;
      return 1;
    case 'F':
      if (!run("%Y-%m-%d", in, st)) return 0;
      st->want_xday = 1;
      return 1;
    case 'H':
      if (!number(in, 0, 23, 2, &v)) return 0;
      st->hour = v;
      st->have_I = 0;
      return 1;
    case 'I':
      if (!number(in, 1, 12, 2, &v)) return 0;
      st->hour = v % 12;
      st->have_I = 1;
      return 1;
    case 'j':
      if (!number(in, 1, 366, 3, &v)) return 0;
      st->yday = v - 1;
      st->have_yday = 1;
      return 1;
    case 'm':
      if (!number(in, 1, 12, 2, &v)) return 0;
      st->mon = v - 1;
      st->have_mon = st->want_xday = 1;
      return 1;
    case 'M':
      if (!number(in, 0, 59, 2, &v)) return 0;
      st->min = v;
      return 1;
    case 'n':
    case 't':
      skip_space(in);
      return 1;
    case 'p':
      if (match_word(in, "AM")) {
        st->is_pm = 0;
      } else if (match_word(in, "PM")) {
        st->is_pm = 1;
      } else {
        return 0;
      }
      in->at += 2;
      return 1;
    case 'R':
      return run("%H:%M", in, st);
    case 'S':
      if (!number(in, 0, 61, 2, &v)) return 0;
      st->sec = v;
      return 1;
    case 'T':
      return run("%H:%M:%S", in, st);
    case 'y':
      if (!number(in, 0, 99, 2, &v)) return 0;
      st->year = v >= 69 ? v : v + 100;
      st->want_century = st->want_xday = 1;
      return 1;
    case 'Y':
      if (!number(in, 0, 9999, 4, &v)) return 0;
      st->year = v - 1900;
      st->want_century = 0;
      st->want_xday = 1;
      return 1;
    case 'z':
      return offset(in, st);
    case 'Z': /* a zone name, read and ignored */
      skip_space(in);
      while (peek(in) && !is_space(peek(in))) in->at++;
      return 1;
    default:
      return 0;
  }
}

/* What `conversion` reads after '%' (after its flags and width). */
static const char *const directives = "%aAbBhCdeDFHIjmMntpRSTyYzZ";

int am_strptime_supported(const char *format) {
  for (const char *f = format; *f; f++) {
    if (*f != '%') continue;
    f++;
    while (*f && strchr("-_0^#", *f)) f++;
    while (is_digit((uint8_t)*f)) f++;
    if (!*f || !strchr(directives, *f)) return 0;
  }
  return 1;
}

int am_strptime_zoned(const char *format) {
  const size_t n = strlen(format);
  for (size_t i = 0; i + 1 < n; i++) {
    if (format[i] != '%') continue;
    if (format[i + 1] == 'z') return 1;
    i++; /* "%%z" is a '%' and a 'z' */
  }
  return 0;
}

/* glibc's first days of the months, common and leap years, one after the
 * other as in memory: its walk for %j can run from the first into the second */
static const int month_starts[26] = {0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365,
                                     0, 31, 60, 91, 121, 152, 182, 213, 244, 274, 305, 335, 366};

static void finish(state *st) {
  if (st->have_I && st->is_pm) st->hour += 12;
  if (st->century != -1)
    st->year =
        st->want_century ? st->year % 100 + (st->century - 19) * 100 : (st->century - 19) * 100;
  if (st->want_xday && !st->have_wday && !(st->have_mon && st->have_mday) && st->have_yday) {
    const int y = 1900 + st->year;
    const int *starts = month_starts + ((y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)) ? 13 : 0);
    int m = 0;
    while (starts[m] <= st->yday) m++;
    if (!st->have_mon) st->mon = m - 1;
    if (!st->have_mday) st->mday = st->yday - starts[m - 1] + 1;
  }
}

int am_strptime_parse(const char *format, const uint8_t *s, int64_t n, int digits, int64_t *out) {
  state st;
  memset(&st, 0, sizeof st);
  st.century = -1;
  input in = {s, n, 0};
  if (!run(format, &in, &st) || in.at != n) return 0;
  finish(&st);
  /* Arrow: year / (tm_mon + 1) / max(tm_mday, 1), as the `date` library's
   * unsigned char month and day hold them */
  const int64_t days = am_days_from_civil(1900 + st.year, (unsigned)(unsigned char)(st.mon + 1),
                                          (unsigned)(unsigned char)(st.mday > 1 ? st.mday : 1));
  const int64_t seconds = days * 86400 + st.hour * 3600 + st.min * 60 + st.sec - st.gmtoff;
  return !__builtin_mul_overflow(seconds, ticks_per_second[digits], out);
}
