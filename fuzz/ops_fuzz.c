/* libFuzzer target: sequences of public C ABI calls over imported arrays.
 *
 * The input first makes one to three honest arrays (bool, int8 .. uint64,
 * float32, float64, float16; nulls, offsets, misaligned data, slices),
 * imported with am_import. The rest of it is a program: each step picks a
 * call of include/arrowmetal.h, its operands among the arrays and scalars
 * made so far (inputs and earlier results) and its options, all from the
 * input, valid or not. A step may also import an honest array of any other
 * type (fz_import: strings, binary, their views, fixed_size_binary,
 * decimals, temporal types, timestamps with a zone of fz_zones), and
 * scalars may be of those types too (string and decimal scalars point at
 * the harness's bytes).
 *
 * The decoding of the first 40 steps (op % 64 below 40) and of scalars whose
 * type bits are below 26 is that of the harness before the later calls
 * were added, so that fuzz/regressions/ops_fuzz keeps reproducing what it
 * found (those files were re-encoded once: each op byte b as b % 40).
 *
 * Checks: every failure comes with a message; every array result is
 * exported and read to its last promised byte, its null_count agreeing with
 * its bitmap (a dictionary's values too); element-wise results keep their
 * input's length; group-by results have one slot per group; join, sort and
 * rank indices lie within their rows (sort_indices, rank and
 * partition_nth_indices: a permutation); every handle and every struct is
 * released exactly once, and LeakSanitizer finds nothing left. The CPU
 * worker pool runs from 256 rows up (the default is 131,072), so that its
 * split of work is fuzzed too. */
#include <math.h>

#include "fuzz_common.h"

enum { MAX_ARRAYS = 12, MAX_SCALARS = 8, MAX_TICKETS = 8, MAX_STEPS = 48, OPS = 64 };
enum { SCALAR_BYTES = 8, SCALAR_BYTES_SIZE = 64 };

typedef struct state {
  fz in;
  am_array *arrays[MAX_ARRAYS];
  int n_arrays;
  am_scalar scalars[MAX_SCALARS]; /* outputs stay here until the input ends (batches) */
  int n_scalars;
  uint64_t tickets[MAX_TICKETS];
  int n_tickets;
  /* the bytes string and decimal scalars point at, taken in turn */
  uint8_t scalar_bytes[SCALAR_BYTES][SCALAR_BYTES_SIZE];
  int next_bytes;
} state;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  setenv("ARROWMETAL_PARALLEL_MIN", "256", 0);
  setenv("ARROWMETAL_THREADS", "2", 0);
  unsetenv("ARROWMETAL_BACKEND"); /* the CPU: no GPU here */
  return 0;
}

static const am_array *pick(state *s) {
  return s->n_arrays ? s->arrays[fz_u8(&s->in) % s->n_arrays] : NULL;
}

/* Keeps a result (checked) as an operand of later steps; released when the
 * input ends, or at once when there is no room. */
static void keep(state *s, am_array *out, const am_array *same_length_as) {
  if (!out) return;
  if (same_length_as)
    FZ_CHECK(am_length(out) == am_length(same_length_as), "result length %lld, input %lld",
             (long long)am_length(out), (long long)am_length(same_length_as));
  fz_check_export(out);
  if (s->n_arrays < MAX_ARRAYS)
    s->arrays[s->n_arrays++] = out;
  else
    am_release(out);
}

static int is_binary_type(int32_t type) { return type >= AM_UTF8 && type <= AM_BINARY_VIEW; }
static int is_decimal_type(int32_t type) { return type == AM_DECIMAL128 || type == AM_DECIMAL256; }

/* The next of the harness's scalar byte buffers (a call takes at most 4
 * scalars, so 8 in turn never overlap). */
static uint8_t *scalar_bytes(state *s) {
  uint8_t *bytes = s->scalar_bytes[s->next_bytes];
  s->next_bytes = (s->next_bytes + 1) % SCALAR_BYTES;
  return bytes;
}

/* A scalar of the input's choosing: any type (an invalid one too), null or
 * not, its value from the input. Also an earlier result: a string or
 * decimal one then points at the harness's bytes, never at the library's
 * storage, which its next call may have freed. */
static am_scalar make_scalar(state *s) {
  uint8_t how = fz_u8(&s->in);
  if ((how & 7) == 7 && s->n_scalars) {
    am_scalar v = s->scalars[fz_u8(&s->in) % s->n_scalars];
    if (is_binary_type(v.type) || is_decimal_type(v.type)) {
      v.u64 = (uint64_t)(uintptr_t)scalar_bytes(s); /* whatever bytes an earlier scalar left */
      if (is_binary_type(v.type) && (v.i64 < 0 || v.i64 > SCALAR_BYTES_SIZE)) v.i64 = 5;
    }
    return v;
  }
  am_scalar v;
  memset(&v, 0, sizeof v);
  const int kind = how >> 3; /* below 26: the first harness's types */
  v.type = kind < 26 ? (kind % 13 == 12 ? 99 : kind % 13) : 0;
  v.is_null = (how & 7) == 6;
  if (kind >= 26) { /* temporal, string, decimal, float16, or no type at all */
    static const int32_t others[] = {AM_FLOAT16, 15, 37, AM_STRUCT};
    const uint8_t t = fz_u8(&s->in);
    v.type = kind == 26 || kind == 31 ? AM_TIMESTAMP_S + t % 14
             : kind == 27             ? AM_UTF8 + t % 7
             : kind == 28             ? AM_DECIMAL128 + t % 2
                                      : others[t % 4];
    if (is_binary_type(v.type) || is_decimal_type(v.type)) {
      uint8_t *bytes = scalar_bytes(s);
      v.u64 = (uint64_t)(uintptr_t)bytes;
      if (is_decimal_type(v.type)) {
        const int64_t precision = fz_range(&s->in, -1, 78), scale = fz_range(&s->in, -40, 80);
        v.i64 = (int64_t)((uint64_t)scale << 32) | (int64_t)(uint32_t)precision;
        const int64_t small = (int64_t)(int8_t)fz_u8(&s->in);
        memset(bytes, small < 0 ? 0xff : 0, 32);
        memcpy(bytes, &small, sizeof small);
        if (small == 127) fz_bytes(&s->in, bytes, 32);
      } else {
        uint8_t n = fz_u8(&s->in);
        if (n >= 250) { /* a word of fz_words */
          v.i64 = (int64_t)strlen(fz_words[n - 249]);
          memcpy(bytes, fz_words[n - 249], (size_t)v.i64);
        } else {
          v.i64 = n % 14;
          fz_bytes(&s->in, bytes, (size_t)v.i64);
        }
      }
      return v;
    }
  }
  switch (fz_u8(&s->in) & 3) {
    case 0:
      v.i64 = (int64_t)(int8_t)fz_u8(&s->in);
      break;
    case 1:
      v.i64 = (int64_t)fz_u64(&s->in);
      break;
    case 2:
      v.i64 = (int64_t)fz_u16(&s->in) - 32768;
      break;
    default:
      v.i64 = (int64_t)((uint64_t)1 << (fz_u8(&s->in) % 64));
  }
  v.u64 = (uint64_t)v.i64;
  uint8_t f = fz_u8(&s->in);
  static const double specials[] = {0.0,   -0.0,    1.0,      -1.0,      0.5, 2.5,
                                    1e300, -1e-300, INFINITY, -INFINITY, NAN};
  if (f < 128)
    v.f64 = specials[f % 11];
  else if (f < 192)
    v.f64 = (double)v.i64 / 8;
  else
    fz_bytes(&s->in, &v.f64, sizeof v.f64);
  return v;
}

static am_scalar *scalar_out(state *s) {
  if (s->n_scalars < MAX_SCALARS) return &s->scalars[s->n_scalars++];
  return &s->scalars[fz_u8(&s->in) % MAX_SCALARS];
}

static void check_scalar(const am_scalar *v) {
  FZ_CHECK(am_type_format((am_type)v->type) != NULL || v->is_null, "a result scalar of type %d",
           v->type);
}

/* Texts of the input's choosing: one of `list`, NULL, or up to 8 raw bytes
 * (into `scratch`), with their length. */
static const char *pick_text(fz *in, const char *const *list, int n, char *scratch,
                             int64_t *length) {
  uint8_t c = fz_u8(in);
  if (c == 255) {
    *length = 0;
    return NULL;
  }
  if (c >= 240) {
    *length = fz_range(in, 0, 8);
    fz_bytes(in, scratch, (size_t)*length);
    scratch[*length] = '\0';
    return scratch;
  }
  *length = (int64_t)strlen(list[c % n]);
  return list[c % n];
}

/* Patterns of the matchers, trims and splits: case folds (k, K, the Kelvin
 * sign; ß, ẞ; İ), LIKE's wildcards and escapes, bytes that are not UTF-8. */
static const char *const patterns[] = {"",
                                       "a",
                                       "A",
                                       "k",
                                       "K",
                                       "\xe2\x84\xaa",
                                       "\xc3\x9f",
                                       "\xe1\xba\x9e",
                                       "\xc4\xb0",
                                       "%",
                                       "_",
                                       "a%",
                                       "%a",
                                       "%a%",
                                       "a_b",
                                       "\\",
                                       "a\\%",
                                       "%\\",
                                       ",",
                                       "ab,",
                                       " ",
                                       "\xff",
                                       "\xed\xa0\x80",
                                       "\xc3",
                                       "0",
                                       "nan",
                                       "\xf4\x90\x80\x80",
                                       "%\xff%"};
enum { PATTERN_COUNT = sizeof patterns / sizeof patterns[0] };

static const char *const strptime_formats[] = {"%Y-%m-%d",
                                               "%Y-%m-%dT%H:%M:%S",
                                               "%Y-%m-%d %H:%M:%S%z",
                                               "%d/%m/%y %I:%M %p",
                                               "%j %Y",
                                               "%b %e %Y %T %Z",
                                               "%C%y%m%d",
                                               "%s",
                                               "",
                                               "%",
                                               "%Ey",
                                               "%%%n%t%F",
                                               "%D %R",
                                               "%a %A %B %h"};
enum { STRPTIME_COUNT = sizeof strptime_formats / sizeof strptime_formats[0] };

static const char *const strftime_formats[] = {"%Y-%m-%dT%H:%M:%S",
                                               "%F %T%z %Z",
                                               "%a %A %b %B %j %u %w %y %C %e",
                                               "%D %R %I %p %h",
                                               "%c",
                                               "%",
                                               "",
                                               "%Q",
                                               "%Ey",
                                               "%%%n%t%s",
                                               "%S",
                                               "%Z",
                                               "%z"};
enum { STRFTIME_COUNT = sizeof strftime_formats / sizeof strftime_formats[0] };

/* Reads the integer indices `handle` holds (int64 or uint64) and checks
 * that each valid one is below `rows`; with `permutation`, that they are
 * every row once. */
static void check_indices(const am_array *handle, int64_t rows, int permutation) {
  if (!handle) return;
  const am_type type = am_array_type(handle);
  FZ_CHECK(type == AM_INT64 || type == AM_UINT64, "indices of type %d", type);
  struct ArrowArray array;
  if (fz_status(am_export(handle, NULL, &array), "am_export") != AM_OK) return;
  if (permutation)
    FZ_CHECK(array.length == rows && array.null_count == 0,
             "a permutation of %lld rows: %lld (%lld null)", (long long)rows,
             (long long)array.length, (long long)array.null_count);
  uint8_t *seen = permutation ? calloc((size_t)rows + 1, 1) : NULL;
  for (int64_t i = 0; i < array.length; i++) {
    const int64_t at = array.offset + i;
    if (array.buffers[0] && !fz_bit(array.buffers[0], at)) continue;
    const int64_t v = ((const int64_t *)array.buffers[1])[at];
    FZ_CHECK(v >= 0 && v < rows, "index %lld of %lld rows", (long long)v, (long long)rows);
    if (seen) {
      FZ_CHECK(!seen[v], "row %lld twice in a permutation", (long long)v);
      seen[v] = 1;
    }
  }
  free(seen);
  array.release(&array);
}

/* Up to `max` arrays of the input's choosing into `list`; their count. */
static int64_t pick_list(state *s, const am_array **list, int64_t max) {
  const int64_t n = fz_range(&s->in, 0, max);
  for (int64_t i = 0; i < n; i++) list[i] = pick(s);
  return n;
}

/* A status check that also keeps an array result, after `check` (which
 * reads `out` while it is surely alive: keep may release it). */
#define CALL_THEN(expr, like, check)         \
  do {                                       \
    out = NULL;                              \
    if (fz_status((expr), #expr) == AM_OK) { \
      check;                                 \
      keep(s, out, like);                    \
    }                                        \
  } while (0)
#define CALL(expr, like) CALL_THEN(expr, like, (void)0)

static void step(state *s) {
  fz *in = &s->in;
  uint8_t op = fz_u8(in);
  const am_array *a = pick(s);
  if (!a) return;
  am_array *out = NULL;
  switch (op % OPS) {
    case 0: { /* sum / min / max / mean / count */
      am_scalar *v = scalar_out(s);
      int which = fz_u8(in) % 5, status;
      if (which == 0)
        status = fz_status(am_sum(a, v), "am_sum");
      else if (which == 1)
        status = fz_status(am_min(a, v), "am_min");
      else if (which == 2)
        status = fz_status(am_max(a, v), "am_max");
      else if (which == 3)
        status = fz_status(am_mean(a, v), "am_mean");
      else
        status = fz_status(am_count(a, (am_count_mode)fz_range(in, -1, 3), v), "am_count");
      if (status == AM_OK) check_scalar(v);
      break;
    }
    case 1: { /* am_aggregate with options */
      am_aggregate_op agg = (am_aggregate_op)fz_range(in, -1, 14);
      am_aggregate_options o;
      if (fz_status(am_aggregate_options_default(agg, &o), "am_aggregate_options_default")) {
        memset(&o, 0, sizeof o);
      }
      uint8_t f = fz_u8(in);
      if (f & 1) o.skip_nulls = f & 2;
      if (f & 4) o.min_count = (uint32_t)fz_range(in, 0, 5) + ((f & 8) ? 0xfffffff0u : 0);
      if (f & 16) o.ddof = (int32_t)fz_range(in, -3, 3) + ((f & 32) ? INT32_MIN / 2 : 0);
      am_scalar *v = scalar_out(s);
      if (fz_status(am_aggregate(agg, a, (f & 64) ? NULL : &o, v), "am_aggregate") == AM_OK)
        check_scalar(v);
      break;
    }
    case 2: { /* min_max, first_last, index */
      am_aggregate_options o = {(int32_t)(fz_u8(in) & 1), (uint32_t)fz_range(in, 0, 3), 0};
      am_scalar *x = scalar_out(s);
      am_scalar y;
      uint8_t which = fz_u8(in) % 3;
      if (which == 0)
        fz_status(am_min_max(a, &o, x, &y), "am_min_max");
      else if (which == 1)
        fz_status(am_first_last(a, &o, x, &y), "am_first_last");
      else {
        am_scalar value = make_scalar(s);
        fz_status(am_index(a, &value, x), "am_index");
      }
      break;
    }
    case 3:
      CALL(am_compare((am_compare_op)fz_range(in, -1, 6), a, pick(s), &out), a);
      break;
    case 4: {
      am_scalar v = make_scalar(s);
      CALL(am_compare_scalar((am_compare_op)fz_range(in, -1, 6), a, &v, &out), a);
      break;
    }
    case 5:
      CALL(am_arith((am_arith_op)fz_range(in, -1, 4), a, pick(s), &out), a);
      break;
    case 6: {
      am_scalar v = make_scalar(s);
      CALL(am_arith_scalar((am_arith_op)fz_range(in, -1, 4), a, &v, &out), a);
      break;
    }
    case 7:
      CALL(am_binary((am_binary_op)fz_range(in, -1, 14), a, pick(s), &out), a);
      break;
    case 8: {
      am_scalar v = make_scalar(s);
      CALL(am_binary_scalar((am_binary_op)fz_range(in, -1, 14), a, &v, &out), a);
      break;
    }
    case 9:
      CALL(am_unary((am_unary_op)fz_range(in, -1, 28), a, &out), a);
      break;
    case 10: /* every type a target, temporal, strings and views too; an unknown flag bit */
      CALL(am_cast(a, (am_type)fz_range(in, -1, 37), (int)fz_range(in, 0, 64), &out), a);
      break;
    case 11: { /* logic, right NULL at times */
      am_logic_op lop = (am_logic_op)fz_range(in, -1, 8);
      const am_array *b = (fz_u8(in) & 3) ? pick(s) : NULL;
      CALL(am_logic(lop, a, b, &out), a);
      break;
    }
    case 12: {
      am_scalar v = make_scalar(s);
      am_logic_op lop = (am_logic_op)fz_range(in, -1, 8);
      if (fz_u8(in) & 1)
        CALL(am_logic_scalar(lop, a, &v, &out), a);
      else
        CALL(am_logic_scalar_left(lop, &v, a, &out), a);
      break;
    }
    case 13: {
      uint8_t which = fz_u8(in) % 3;
      const am_array *b = pick(s);
      if (which == 0)
        CALL(am_and(a, b, &out), a);
      else if (which == 1)
        CALL(am_or(a, b, &out), a);
      else
        CALL(am_not(a, &out), a);
      break;
    }
    case 14: {
      const am_array *mask = pick(s);
      if (fz_u8(in) & 1)
        CALL(am_filter(a, mask, &out), NULL);
      else
        CALL(am_filter_nulls(a, mask, (am_null_selection)fz_range(in, -1, 2), &out), NULL);
      break;
    }
    case 15:
      CALL(am_take(a, pick(s), &out), NULL);
      break;
    case 16: {
      int64_t offset = fz_range(in, -2, 300), length = fz_range(in, -2, 300);
      if (fz_u8(in) == 255) length = INT64_MAX - (int64_t)fz_u8(in);
      CALL(am_slice(a, offset, length, &out), NULL);
      break;
    }
    case 17:
      CALL(am_is((am_predicate)fz_range(in, -1, 5), (int)fz_range(in, 0, 2), a, &out), a);
      break;
    case 18: {
      uint8_t how = fz_u8(in);
      am_scalar v = make_scalar(s);
      const am_array *fill = (how & 1) ? pick(s) : NULL;
      CALL(am_fill_null(a, fill, (how & 2) ? &v : NULL, &out), NULL);
      break;
    }
    case 19: { /* coalesce: arrays and scalars mixed, NULL entries at times */
      const am_array *arrays[4] = {0};
      am_scalar values[4];
      const am_scalar *scalars[4] = {0};
      int64_t count = fz_range(in, 0, 4);
      for (int i = 0; i < count; i++) {
        uint8_t how = fz_u8(in) % 4;
        if (how < 2)
          arrays[i] = pick(s);
        else if (how == 2) {
          values[i] = make_scalar(s);
          scalars[i] = &values[i];
        }
      }
      CALL(am_coalesce(arrays, (fz_u8(in) & 1) ? scalars : NULL, count, &out), NULL);
      break;
    }
    case 20: {
      uint8_t how = fz_u8(in);
      am_scalar l = make_scalar(s), r = make_scalar(s);
      const am_array *left = (how & 1) ? pick(s) : NULL, *right = (how & 2) ? pick(s) : NULL;
      CALL(am_if_else(a, left, (how & 4) ? &l : NULL, right, (how & 8) ? &r : NULL, &out), NULL);
      break;
    }
    case 21:
      CALL(am_drop_null(a, &out), NULL);
      break;
    case 22:
      CALL(am_fill_null_direction((am_fill_direction)fz_range(in, -1, 2), a, &out), a);
      break;
    case 23: { /* round; an escape byte of 254: round_to_multiple, by a scalar of any type */
      int64_t digits = fz_range(in, -25, 25);
      uint8_t escape = fz_u8(in);
      if (escape == 255) digits = (fz_u8(in) & 1) ? INT64_MIN : INT64_MAX;
      if (escape == 254) {
        am_scalar multiple = make_scalar(s);
        CALL(am_round_to_multiple(a, &multiple, (am_round_mode)fz_range(in, -1, 10), &out), a);
      } else {
        CALL(am_round(a, digits, (am_round_mode)fz_range(in, -1, 10), &out), a);
      }
      break;
    }
    case 24: {
      int64_t period = fz_range(in, -5, 5);
      if (fz_u8(in) == 255) period = (fz_u8(in) & 1) ? INT64_MIN : INT64_MAX;
      CALL(am_pairwise_diff((am_pairwise_op)fz_range(in, -1, 2), a, period, &out), a);
      break;
    }
    case 25:
    case 26: { /* quantile, tdigest */
      double q[4];
      int64_t nq = fz_range(in, -1, 4);
      for (int i = 0; i < 4; i++) {
        uint8_t f = fz_u8(in);
        q[i] = f < 200 ? f / 199.0 : f < 250 ? (double)(f - 225) : NAN;
      }
      int skip = fz_u8(in) & 1;
      uint32_t min_count = (uint32_t)fz_range(in, 0, 4);
      if (op % OPS == 25)
        CALL(am_quantile(a, nq < 0 ? NULL : q, nq < 0 ? 1 : nq,
                         (am_quantile_interpolation)fz_range(in, -1, 5), skip, min_count, &out),
             NULL);
      else
        CALL(am_tdigest(a, q, nq < 0 ? 0 : nq, (uint32_t)fz_range(in, 0, 300),
                        (uint32_t)fz_range(in, 0, 1200), skip, min_count, &out),
             NULL);
      break;
    }
    case 27: {
      am_scalar v = make_scalar(s);
      uint8_t how = fz_u8(in);
      CALL(am_cumulative((am_cumulative_op)fz_range(in, -1, 7), a, (how & 1) ? &v : NULL, how & 2,
                         &out),
           a);
      break;
    }
    case 28: {
      int skip = fz_u8(in) & 1;
      if (fz_u8(in) & 1)
        CALL(am_is_in(a, pick(s), skip, &out), a);
      else
        CALL(am_index_in(a, pick(s), skip, &out), a);
      break;
    }
    case 29: {
      uint8_t which = fz_u8(in) % 3;
      if (which == 0) {
        CALL(am_unique(a, &out), NULL);
      } else if (which == 1) {
        am_array *values = NULL, *counts = NULL;
        if (fz_status(am_value_counts(a, &values, &counts), "am_value_counts") == AM_OK) {
          FZ_CHECK(am_length(values) == am_length(counts), "value_counts lengths differ");
          keep(s, values, NULL);
          keep(s, counts, NULL);
        }
      } else {
        am_scalar *v = scalar_out(s);
        fz_status(am_count_distinct(a, (am_count_mode)fz_range(in, -1, 3), v), "am_count_distinct");
      }
      break;
    }
    case 30:
      if (fz_u8(in) & 1)
        CALL(am_dictionary_encode(a, (am_null_encoding)fz_range(in, -1, 2), &out), a);
      else
        CALL(am_dictionary(a, &out), NULL);
      break;
    case 31: {
      am_array *modes = NULL, *counts = NULL;
      int64_t n = fz_range(in, -1, 5);
      if (fz_status(am_mode(a, n, fz_u8(in) & 1, fz_range(in, -1, 4), &modes, &counts),
                    "am_mode") == AM_OK) {
        FZ_CHECK(am_length(modes) == am_length(counts), "mode lengths differ");
        keep(s, modes, NULL);
        keep(s, counts, NULL);
      }
      break;
    }
    case 32: {
      const am_array *list[3] = {a, pick(s), pick(s)};
      CALL(am_concat(list, fz_range(in, 0, 3), NULL, &out), NULL);
      break;
    }
    case 33: { /* batches: begin, end (even unopened), commit then wait later */
      uint8_t which = fz_u8(in) % 4;
      if (which == 0) {
        if (am_batch_depth() < 4) fz_status(am_batch_begin(), "am_batch_begin");
      } else if (which == 1) {
        fz_status(am_batch_end(), "am_batch_end");
      } else if (which == 2) {
        uint64_t ticket = 0;
        if (fz_status(am_batch_commit(&ticket), "am_batch_commit") == AM_OK) {
          if (s->n_tickets < MAX_TICKETS)
            s->tickets[s->n_tickets++] = ticket;
          else
            fz_status(am_wait(ticket), "am_wait");
        }
      } else if (s->n_tickets) {
        fz_status(am_wait(s->tickets[--s->n_tickets]), "am_wait");
      }
      FZ_CHECK(am_batch_depth() >= 0, "batch depth %d", am_batch_depth());
      break;
    }
    case 34: { /* full: any scalar, any length (an escape byte of 255: past 2^52, negative) */
      static const int64_t far[] = {-5, ((int64_t)1 << 52) + 1, (int64_t)1 << 60, INT64_MAX};
      am_scalar v = make_scalar(s);
      int64_t length = fz_range(in, -1, 300);
      if (fz_u8(in) == 255) length = far[fz_u8(in) % 4];
      CALL(am_full(&v, length, NULL, &out), NULL);
      break;
    }
    case 35: { /* an export imported back */
      struct ArrowSchema schema;
      struct ArrowArray array;
      if (fz_status(am_export(a, &schema, &array), "am_export") == AM_OK) {
        if (fz_status(am_import(&schema, &array, NULL, &out), "am_import") == AM_OK) {
          FZ_CHECK(am_length(out) == am_length(a), "re-imported length differs");
          keep(s, out, a);
        }
        FZ_CHECK(!array.release, "am_import left the moved-in export unreleased");
        schema.release(&schema);
      }
      break;
    }
    case 36: {
      am_device *cpu = NULL;
      FZ_CHECK(am_device_open("cpu", &cpu) == AM_OK, "cpu: %s", am_last_error());
      CALL(am_to_device(a, cpu, &out), a);
      break;
    }
    case 37: { /* binary_join_element_wise: 0-3 values, a separator array or bytes */
      const am_array *values[3] = {a, pick(s), pick(s)};
      int n = (int)fz_range(in, 0, 3);
      const am_array *sep = (fz_u8(in) & 1) ? pick(s) : NULL;
      const char *text = (fz_u8(in) & 1) ? "-" : NULL;
      CALL(am_binary_join_element_wise(values, n, sep, text, text ? 1 : 0, (int)fz_range(in, -1, 3),
                                       "N", 1, &out),
           n ? a : sep);
      break;
    }
    case 38: { /* the splits: an op (a bad one too), a pattern of 0-2 bytes, any limit */
      am_array *offsets = NULL;
      const int64_t m = fz_range(in, 0, 2);
      const int status =
          fz_status(am_string_split((am_split_op)fz_range(in, -1, 3), a, m ? ",a" : NULL, m,
                                    fz_range(in, -2, 3), fz_u8(in) & 1, &out, &offsets),
                    "am_string_split");
      if (status != AM_OK) {
        FZ_CHECK(!out && !offsets, "am_string_split wrote its outputs on an error");
        break;
      }
      FZ_CHECK(am_length(offsets) == am_length(a) + 1 && am_null_count(offsets) == am_null_count(a),
               "list offsets of %lld slots (%lld null) for %lld rows (%lld null)",
               (long long)am_length(offsets), (long long)am_null_count(offsets),
               (long long)am_length(a), (long long)am_null_count(a));
      keep(s, out, NULL);
      keep(s, offsets, NULL);
      break;
    }
    case 39: { /* a new honest array of the input's type */
      am_type type = fz_types[fz_u8(in) % FZ_TYPE_COUNT];
      am_array *made = fz_import(in, type, (fz_u8(in) & 1) ? 600 : 40);
      if (made) keep(s, made, NULL);
      break;
    }
    case 40: /* is_dst, local_timestamp; a bad op too */
      CALL(am_zone_function((am_zone_op)fz_range(in, -1, 2), a, &out), a);
      break;
    case 41: { /* floor / ceil / round_temporal, with options of any value or none */
      static const int32_t multiples[] = {1, 2, 3, 7, 15, 60, 0, -1, INT32_MAX, 1 << 30, 306783379};
      am_round_temporal_options o;
      o.multiple = multiples[fz_u8(in) % 11];
      o.unit = (int32_t)fz_range(in, -1, 11);
      const uint8_t f = fz_u8(in);
      o.week_starts_monday = f & 1;
      o.ceil_is_strictly_greater = (f >> 1) & 1;
      o.calendar_based_origin = (f >> 2) & 1;
      CALL_THEN(am_round_temporal((am_round_temporal_op)fz_range(in, -1, 3), a, (f & 8) ? NULL : &o,
                                  &out),
                a, FZ_CHECK(am_array_type(out) == am_array_type(a), "rounding changed the type"));
      break;
    }
    case 42: { /* assume_timezone: any zone, any choice */
      const char *zone = fz_zone(in);
      const am_assume_choice ambiguous = (am_assume_choice)fz_range(in, -1, 3);
      CALL(am_assume_timezone(a, zone, ambiguous, (am_assume_choice)fz_range(in, -1, 3), &out), a);
      break;
    }
    case 43: { /* the field extractions; day_of_week's options of any value */
      const am_temporal_field_op field = (am_temporal_field_op)fz_range(in, -1, 14);
      const int week_start = (int)fz_range(in, -1, 8);
      CALL(am_temporal_field(field, a, week_start, fz_u8(in) & 1, &out), a);
      break;
    }
    case 44: /* another time zone over the same values */
      CALL(am_array_with_timezone(a, fz_zone(in), &out), a);
      break;
    case 45: { /* the string functions: any op, pattern and flags */
      char scratch[9];
      int64_t length;
      const am_string_op sop = (am_string_op)fz_range(in, -1, 24);
      const char *pattern = pick_text(in, patterns, PATTERN_COUNT, scratch, &length);
      CALL(am_string_function(sop, a, pattern, length, (int)fz_range(in, 0, 2), &out), a);
      break;
    }
    case 46: { /* utf8_slice_codeunits: small bounds, the ends, no stop */
      static const int64_t far[] = {INT64_MIN, INT64_MAX, AM_SLICE_NO_STOP, INT32_MIN, -1};
      int64_t bounds[3];
      for (int i = 0; i < 3; i++) {
        const uint8_t b = fz_u8(in);
        bounds[i] = b >= 250 ? far[b % 5] : (int64_t)(b % 25) - 12;
      }
      CALL(am_utf8_slice_codeunits(a, bounds[0], bounds[1], bounds[2], &out), a);
      break;
    }
    case 47: { /* strptime: any format, unit (a bad one too), error_is_null */
      char scratch[9];
      int64_t length;
      const char *format = pick_text(in, strptime_formats, STRPTIME_COUNT, scratch, &length);
      const am_type unit = (am_type)fz_range(in, 14, 21);
      CALL(am_strptime(a, format, unit, fz_u8(in) & 1, &out), a);
      break;
    }
    case 48: { /* strftime: any format and locale */
      static const char *const locales[] = {NULL, "C", "", "fr_FR.UTF-8"};
      char scratch[9];
      int64_t length;
      const char *format = pick_text(in, strftime_formats, STRFTIME_COUNT, scratch, &length);
      CALL(am_strftime(a, format, locales[fz_u8(in) % 4], &out), a);
      break;
    }
    case 49: { /* cast to a zoned timestamp (strings with offsets, any other type) */
      const am_type to = (am_type)fz_range(in, 14, 21);
      const char *zone = fz_zone(in);
      CALL(am_cast_timestamp(a, to, zone, (int)fz_range(in, 0, 64), &out), a);
      break;
    }
    case 50: { /* cast to a decimal of any precision and scale */
      const am_type to = (am_type)fz_range(in, 12, 15);
      const int32_t precision = (int32_t)fz_range(in, -1, 78);
      int32_t scale = (int32_t)fz_range(in, -40, 80);
      if (fz_u8(in) == 255) scale = (fz_u8(in) & 1) ? INT32_MIN : INT32_MAX;
      CALL(am_cast_decimal(a, to, precision, scale, (int)fz_range(in, 0, 64), &out), a);
      break;
    }
    case 51: { /* group_by: 0-3 keys and values, 0-3 aggregates of any op and options */
      const am_array *keys[3] = {a, NULL, NULL}, *values[3] = {NULL, NULL, NULL};
      const int64_t n_keys = fz_range(in, 0, 3);
      for (int64_t i = 1; i < n_keys; i++) keys[i] = pick(s);
      const int64_t n_values = pick_list(s, values, 3), n_aggs = fz_range(in, 0, 3);
      am_group_aggregate aggs[3];
      for (int64_t i = 0; i < n_aggs; i++) {
        const am_group_op gop = (am_group_op)fz_range(in, -1, 17);
        const int32_t column = (int32_t)fz_range(in, -1, 3);
        if (fz_status(am_group_aggregate_default(gop, column, &aggs[i]),
                      "am_group_aggregate_default"))
          memset(&aggs[i], 0, sizeof aggs[i]), aggs[i].op = gop, aggs[i].column = column;
        const uint8_t f = fz_u8(in);
        if (f & 1) aggs[i].skip_nulls = f & 2;
        if (f & 4) aggs[i].min_count = (uint32_t)fz_range(in, 0, 3) + ((f & 8) ? 0xfffffff0u : 0);
        if (f & 16) aggs[i].ddof = (int32_t)fz_range(in, -2, 3);
        if (f & 32) aggs[i].count_mode = (int32_t)fz_range(in, -1, 3);
      }
      am_array *keys_out[3] = {NULL, NULL, NULL};
      am_group_result results[3];
      memset(results, 0, sizeof results);
      const int status =
          fz_status(am_group_by(keys, n_keys, values, n_values, aggs, n_aggs, keys_out, results),
                    "am_group_by");
      if (status != AM_OK) {
        FZ_CHECK(!keys_out[0] && !results[0].values, "am_group_by wrote its outputs on an error");
        break;
      }
      const int64_t groups = am_length(keys_out[0]);
      FZ_CHECK(groups <= am_length(a), "%lld groups of %lld rows", (long long)groups,
               (long long)am_length(a));
      for (int64_t k = 0; k < n_keys; k++)
        FZ_CHECK(am_length(keys_out[k]) == groups, "key %lld of %lld groups", (long long)k,
                 (long long)groups);
      for (int64_t i = 0; i < n_aggs; i++) {
        const int listed = aggs[i].op == AM_GROUP_LIST || aggs[i].op == AM_GROUP_DISTINCT;
        FZ_CHECK(results[i].values && (aggs[i].op == AM_GROUP_MIN_MAX) == !!results[i].max &&
                     listed == !!results[i].offsets,
                 "aggregate %lld (op %d): outputs missing or extra", (long long)i, aggs[i].op);
        if (listed) {
          FZ_CHECK(am_length(results[i].offsets) == groups + 1,
                   "list offsets of %lld for %lld groups", (long long)am_length(results[i].offsets),
                   (long long)groups);
          keep(s, results[i].values, NULL);
          keep(s, results[i].offsets, NULL);
        } else {
          keep(s, results[i].values, keys_out[0]);
          keep(s, results[i].max, keys_out[0]);
        }
      }
      for (int64_t k = 0; k < n_keys; k++) keep(s, keys_out[k], NULL); /* keys_out[0] last read */
      break;
    }
    case 52: { /* join_indices: 0-2 key pairs, any join type */
      const am_array *left[2] = {a, NULL}, *right[2] = {NULL, NULL};
      const int64_t n_keys = fz_range(in, 0, 2);
      for (int64_t i = 0; i < n_keys; i++) {
        if (i) left[i] = pick(s);
        right[i] = pick(s);
      }
      const am_join_type join = (am_join_type)fz_range(in, -1, 8);
      /* a join of n equal keys has n * n rows: joins of joins grow past any
       * memory limit (an out-of-memory of the harness, not of the library) */
      if (right[0] && am_length(left[0]) * am_length(right[0]) > ((int64_t)1 << 20)) break;
      am_array *li = NULL, *ri = NULL;
      if (fz_status(am_join_indices(left, right, n_keys, join, &li, &ri), "am_join_indices") !=
          AM_OK) {
        FZ_CHECK(!li && !ri, "am_join_indices wrote its outputs on an error");
        break;
      }
      const int pairs = join <= AM_JOIN_FULL_OUTER;
      FZ_CHECK(
          pairs ? li && ri && am_length(li) == am_length(ri)
                : !!li == (join == AM_JOIN_LEFT_SEMI || join == AM_JOIN_LEFT_ANTI) && !li == !!ri,
          "join %d: outputs %p, %p", join, (void *)li, (void *)ri);
      check_indices(li, am_length(left[0]), 0);
      check_indices(ri, am_length(right[0]), 0);
      keep(s, li, NULL);
      keep(s, ri, NULL);
      break;
    }
    case 53: { /* sort_indices, select_k_unstable: 0-3 keys, orders and placements of any value */
      const am_array *keys[3] = {a, NULL, NULL};
      const int64_t n_keys = fz_range(in, 0, 3);
      for (int64_t i = 1; i < n_keys; i++) keys[i] = pick(s);
      int descending[3], placement[3];
      for (int i = 0; i < 3; i++) {
        descending[i] = fz_u8(in) & 1;
        placement[i] = (int)fz_range(in, 39, 42);
      }
      const uint8_t f = fz_u8(in);
      const int *d = (f & 1) ? descending : NULL, *np = (f & 2) ? placement : NULL;
      if (f & 4) {
        const int64_t k = fz_range(in, -1, 40);
        CALL_THEN(am_select_k_unstable(keys, n_keys, d, np, k, &out), NULL, {
          FZ_CHECK(am_length(out) == (k < am_length(a) ? k : am_length(a)), "select_k: %lld rows",
                   (long long)am_length(out));
          check_indices(out, am_length(a), 0);
        });
      } else {
        CALL_THEN(am_sort_indices(keys, n_keys, d, np, &out), NULL,
                  check_indices(out, am_length(a), 1));
      }
      break;
    }
    case 54: { /* rank, rank_quantile / rank_normal, partition_nth_indices */
      const uint8_t which = fz_u8(in) % 3;
      const int descending = fz_u8(in) & 1, placement = (int)fz_range(in, 39, 42);
      if (which == 0) {
        CALL(am_rank(a, descending, placement, (int)fz_range(in, -1, 4), &out), a);
      } else if (which == 1) {
        CALL(am_rank_quantile(a, descending, placement, fz_u8(in) & 1, &out), a);
      } else {
        CALL_THEN(am_partition_nth_indices(a, fz_range(in, -1, am_length(a) + 1), placement, &out),
                  a, check_indices(out, am_length(a), 1));
      }
      break;
    }
    case 55: { /* dictionary_decode, unify_dictionaries of 0-3 arrays */
      if (fz_u8(in) & 1) {
        CALL(am_dictionary_decode(a, &out), a);
        break;
      }
      const am_array *list[3] = {a, NULL, NULL};
      const int64_t n = fz_range(in, 0, 3);
      for (int64_t i = 1; i < n; i++) list[i] = pick(s);
      am_array *outs[3] = {NULL, NULL, NULL};
      if (fz_status(am_unify_dictionaries(list, n, outs), "am_unify_dictionaries") == AM_OK)
        for (int64_t i = 0; i < n; i++) keep(s, outs[i], list[i]);
      else
        FZ_CHECK(!outs[0], "am_unify_dictionaries wrote its outputs on an error");
      break;
    }
    case 56: { /* a split with a pattern of patterns[] or raw bytes */
      char scratch[9];
      int64_t length;
      am_array *offsets = NULL;
      const am_split_op sop = (am_split_op)fz_range(in, -1, 3);
      const char *pattern = pick_text(in, patterns, PATTERN_COUNT, scratch, &length);
      const int64_t max_splits = fz_u8(in) == 255 ? INT64_MAX - 1 : fz_range(in, -2, 3);
      if (fz_status(
              am_string_split(sop, a, pattern, length, max_splits, fz_u8(in) & 1, &out, &offsets),
              "am_string_split") != AM_OK) {
        FZ_CHECK(!out && !offsets, "am_string_split wrote its outputs on an error");
        break;
      }
      FZ_CHECK(am_length(offsets) == am_length(a) + 1, "split offsets of %lld slots for %lld rows",
               (long long)am_length(offsets), (long long)am_length(a));
      keep(s, out, NULL);
      keep(s, offsets, NULL);
      break;
    }
    case 57: { /* a struct of 0-3 columns, a field back out */
      static const char *const names[] = {"x", NULL, "y"};
      const am_array *columns[3] = {a, NULL, NULL};
      const int64_t n = fz_range(in, 0, 3);
      for (int64_t i = 1; i < n; i++) columns[i] = pick(s);
      am_array *made = NULL;
      if (fz_status(am_struct_make(names, columns, n, am_length(a), &made), "am_struct_make") !=
          AM_OK)
        break;
      FZ_CHECK(am_struct_num_fields(made) == n, "a struct of %lld fields for %lld",
               (long long)am_struct_num_fields(made), (long long)n);
      CALL(am_struct_field(made, fz_range(in, -1, 3), &out), a);
      am_release(made);
      break;
    }
    default: { /* a new honest array of any type (strings, views, decimals, temporal...) */
      am_array *made = fz_import(in, AM_TYPE_INVALID, (fz_u8(in) & 1) ? 600 : 40);
      if (made) keep(s, made, NULL);
      break;
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  state s;
  memset(&s, 0, sizeof s);
  s.in = (fz){data, size};
  int count = 1 + fz_u8(&s.in) % 3;
  for (int i = 0; i < count; i++) {
    uint8_t t = fz_u8(&s.in);
    am_type type = fz_types[t % FZ_TYPE_COUNT];
    /* Mostly short, at times past the pool's 256-row split. */
    am_array *made = fz_import(&s.in, type, (t & 0x80) ? 1500 : 64);
    if (made) keep(&s, made, NULL);
  }
  for (int i = 0; i < MAX_STEPS && s.in.n > 0; i++) step(&s);
  while (am_batch_depth() > 0) FZ_CHECK(am_batch_end() == AM_OK, "%s", am_last_error());
  while (s.n_tickets) fz_status(am_wait(s.tickets[--s.n_tickets]), "am_wait");
  for (int i = 0; i < s.n_arrays; i++) am_release(s.arrays[i]);
  fz_releases_check();
  return 0;
}
