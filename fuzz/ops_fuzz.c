/* libFuzzer target: sequences of public C ABI calls over imported arrays.
 *
 * The input first makes one to three honest arrays (bool, int8 .. uint64,
 * float32, float64; nulls, offsets, misaligned data, slices), imported with
 * am_import. The rest of it is a program: each step picks a call of
 * include/arrowmetal.h, its operands among the arrays and scalars made so
 * far (inputs and earlier results) and its options, all from the input,
 * valid or not.
 *
 * Checks: every failure comes with a message; every array result is
 * exported and read to its last promised byte, its null_count agreeing with
 * its bitmap; element-wise results keep their input's length; every handle
 * and every struct is released exactly once, and LeakSanitizer finds
 * nothing left. The CPU worker pool runs from 256 rows up (the default is
 * 131,072), so that its split of work is fuzzed too. */
#include <math.h>

#include "fuzz_common.h"

enum { MAX_ARRAYS = 12, MAX_SCALARS = 8, MAX_TICKETS = 8, MAX_STEPS = 48 };

typedef struct state {
  fz in;
  am_array *arrays[MAX_ARRAYS];
  int n_arrays;
  am_scalar scalars[MAX_SCALARS]; /* outputs stay here until the input ends (batches) */
  int n_scalars;
  uint64_t tickets[MAX_TICKETS];
  int n_tickets;
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

/* A scalar of the input's choosing: any type (an invalid one too), null or
 * not, its value from the input. Also an earlier result. */
static am_scalar make_scalar(state *s) {
  uint8_t how = fz_u8(&s->in);
  if ((how & 7) == 7 && s->n_scalars) return s->scalars[fz_u8(&s->in) % s->n_scalars];
  am_scalar v;
  memset(&v, 0, sizeof v);
  v.type = (how >> 3) % 13 == 12 ? 99 : (int32_t)((how >> 3) % 13);
  v.is_null = (how & 7) == 6;
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

/* A status check that also keeps an array result. */
#define CALL(expr, like)                                       \
  do {                                                         \
    out = NULL;                                                \
    if (fz_status((expr), #expr) == AM_OK) keep(s, out, like); \
  } while (0)

static void step(state *s) {
  fz *in = &s->in;
  uint8_t op = fz_u8(in);
  const am_array *a = pick(s);
  if (!a) return;
  am_array *out = NULL;
  switch (op % 40) {
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
      if (op % 38 == 25)
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
    case 34: {
      am_scalar v = make_scalar(s);
      CALL(am_full(&v, fz_range(in, -1, 300), NULL, &out), NULL);
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
    default: { /* a new honest array of the input's type */
      am_type type = fz_types[fz_u8(in) % FZ_TYPE_COUNT];
      am_array *made = fz_import(in, type, (fz_u8(in) & 1) ? 600 : 40);
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
