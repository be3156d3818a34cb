/* A stress program for ThreadSanitizer (make test-tsan): 8 threads, each a
 * random mix of imports and exports, element-wise ops, compares, casts,
 * reductions, filters and takes, hash functions, cumulative sums,
 * quantiles, string splits, batches (ended, committed and waited here,
 * committed and waited on by another thread, committed and never waited
 * on), handles and exported structs released by another thread,
 * runtime-control changes and device probes, all at once. Every result is checked against a plain
 * single-threaded recomputation here, so the program fails on a wrong
 * answer as well as on a race that TSan reports. It uses only the public
 * header, as an embedder would.
 *
 * Usage: stress_test [--seeded-wrong] [seconds] [seed], or stress_test
 * --seeded-race. Prints one summary line (ops done per kind, failures) and
 * exits 1 on any failure; a TSan report exits 66 (halt_on_error=1). */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrowmetal.h"

enum { THREADS = 8, MAILBOX = 32, TICKETS = 32 };

typedef enum kind {
  K_IMPORT,
  K_ARITH,
  K_COMPARE,
  K_CAST,
  K_REDUCE,
  K_SELECT,
  K_HASH,
  K_CUMULATIVE,
  K_QUANTILE,
  K_BATCH,
  K_COMMIT,
  K_HANDOFF,
  K_CONTROL,
  K_DEVICE,
  K_ERROR,
  K_GROUP, /* am_group_by, am_join_indices */
  K_ZONE,  /* time zones: am_temporal_field, am_cast, am_assume_timezone */
  K_TEXT,  /* values as text: am_cast to and from strings, am_strftime, am_strptime */
  K_SPLIT, /* am_string_split */
  KINDS
} kind;

static const char *kind_names[KINDS] = {"import", "arith",   "compare",    "cast",     "reduce",
                                        "select", "hash",    "cumulative", "quantile", "batch",
                                        "commit", "handoff", "control",    "device",   "error",
                                        "group",  "zone",    "text",       "split"};

static atomic_long done[KINDS], failed[KINDS];
static atomic_long structs_made, structs_released, log_messages;
static double deadline;
/* Self-tests of the harness (make test-tsan runs both, and both must fail):
 * --seeded-wrong makes every expected sum off by one, --seeded-race writes
 * one int from two threads without a lock. */
static int64_t seeded_wrong;
static int seeded_race_word;

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

/* Counts a failure and prints the first few. */
static void fail(kind k, const char *format, ...) {
  long n = atomic_fetch_add(&failed[k], 1);
  if (n >= 5) return;
  va_list args;
  va_start(args, format);
  fprintf(stderr, "stress_test: %s FAILED: ", kind_names[k]);
  vfprintf(stderr, format, args);
  fprintf(stderr, " (last error: %s)\n", am_last_error());
  va_end(args);
}

/* ---- A column: the host model of an array, one value per slot. Integers
 * and bools in i, floats in f; valid[k] is 0 for a null slot. */
typedef struct col {
  am_type type;
  int64_t n;
  int64_t *i;
  double *f;
  uint8_t *valid;
} col;

static void col_init(col *c, am_type type, int64_t n) {
  c->type = type;
  c->n = n;
  c->i = calloc((size_t)n + 1, sizeof *c->i);
  c->f = calloc((size_t)n + 1, sizeof *c->f);
  c->valid = calloc((size_t)n + 1, 1);
}

static void col_free(col *c) {
  free(c->i);
  free(c->f);
  free(c->valid);
  memset(c, 0, sizeof *c);
}

static uint64_t next(uint64_t *s) { /* xorshift64* */
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 2685821657736338717ULL;
}

static int64_t pick(uint64_t *s, int64_t below) { return (int64_t)(next(s) % (uint64_t)below); }

/* Mostly short arrays, sometimes long enough for the worker pool (the run
 * sets ARROWMETAL_PARALLEL_MIN low). */
static int64_t pick_length(uint64_t *s) {
  int64_t r = pick(s, 100);
  return r < 5 ? 0 : r < 95 ? pick(s, 2000) : 4096 + pick(s, 30000);
}

/* Random values: `range` 0 is wide (|v| < 2^40), else [-range, range]. */
static void col_random(col *c, uint64_t *s, am_type type, int64_t n, int64_t range, int nulls) {
  col_init(c, type, n);
  for (int64_t k = 0; k < n; k++) {
    c->valid[k] = !nulls || pick(s, 8) != 0;
    int64_t v =
        range ? pick(s, 2 * range + 1) - range : pick(s, (int64_t)1 << 41) - ((int64_t)1 << 40);
    if (type == AM_BOOL) v = (int64_t)(next(s) & 1);
    if (type == AM_INT32) v = (int32_t)v;
    c->i[k] = v;
    /* Quarters below 2^30: every sum of up to 2^21 of them is exact in a
     * double, so float sums have one right answer whatever the order. */
    c->f[k] = (double)(v / 1024) / 4;
  }
}

/* ---- Building Arrow C Data Interface structs and importing them. */
typedef struct owned {
  void *bitmap, *data;
  const void *buffers[2];
} owned;

static void release_array(struct ArrowArray *array) {
  owned *o = array->private_data;
  free(o->bitmap);
  free(o->data);
  free(o);
  array->release = NULL;
  atomic_fetch_add(&structs_released, 1);
}

static void release_schema(struct ArrowSchema *schema) { schema->release = NULL; }

static const char *format_of(am_type type) {
  switch (type) {
    case AM_BOOL:
      return "b";
    case AM_INT32:
      return "i";
    case AM_INT64:
      return "l";
    default:
      return "g";
  }
}

static int get_bit(const uint8_t *bits, int64_t k) { return (bits[k >> 3] >> (k & 7)) & 1; }
static void set_bit(uint8_t *bits, int64_t k) { bits[k >> 3] |= (uint8_t)(1 << (k & 7)); }

/* Imports `c` onto the default device, at a random offset into its
 * buffers. */
static int import_col(const col *c, uint64_t *s, am_array **out) {
  int64_t offset = pick(s, 3) == 0 ? pick(s, 70) : 0, slots = offset + c->n;
  owned *o = calloc(1, sizeof *o);
  int64_t width = c->type == AM_BOOL ? 0 : c->type == AM_INT32 ? 4 : 8;
  o->data = calloc(width ? (size_t)(slots * width) + 8 : (size_t)slots / 8 + 8, 1);
  int64_t nulls = 0;
  for (int64_t k = 0; k < c->n; k++) nulls += !c->valid[k];
  if (nulls) o->bitmap = calloc((size_t)slots / 8 + 8, 1);
  for (int64_t k = 0; k < c->n; k++) {
    int64_t at = offset + k;
    if (nulls && c->valid[k]) set_bit(o->bitmap, at);
    if (c->type == AM_BOOL && c->i[k]) set_bit(o->data, at);
    if (c->type == AM_INT32) ((int32_t *)o->data)[at] = (int32_t)c->i[k];
    if (c->type == AM_INT64) ((int64_t *)o->data)[at] = c->i[k];
    if (c->type == AM_FLOAT64) ((double *)o->data)[at] = c->f[k];
  }
  o->buffers[0] = o->bitmap;
  o->buffers[1] = o->data;
  struct ArrowSchema schema = {.format = format_of(c->type), .name = "", .release = release_schema};
  struct ArrowArray array = {.length = c->n,
                             .null_count = pick(s, 2) ? nulls : -1,
                             .offset = offset,
                             .n_buffers = 2,
                             .buffers = o->buffers,
                             .release = release_array,
                             .private_data = o};
  atomic_fetch_add(&structs_made, 1);
  int status = am_import(&schema, &array, NULL, out);
  if (array.release) { /* the library must have taken it, success or not */
    fail(K_IMPORT, "am_import left the struct unreleased");
    array.release(&array);
  }
  return status;
}

/* Reads an exported struct into a column; 0 on an unknown format. */
static int read_struct(const struct ArrowSchema *schema, const struct ArrowArray *array, col *c) {
  am_type type = strcmp(schema->format, "b") == 0   ? AM_BOOL
                 : strcmp(schema->format, "i") == 0 ? AM_INT32
                 : strcmp(schema->format, "l") == 0 ? AM_INT64
                 : strcmp(schema->format, "g") == 0 ? AM_FLOAT64
                                                    : AM_TYPE_INVALID;
  if (type == AM_TYPE_INVALID) return 0;
  col_init(c, type, array->length);
  const uint8_t *bitmap = array->buffers[0];
  const void *data = array->buffers[1];
  for (int64_t k = 0; k < array->length; k++) {
    int64_t at = array->offset + k;
    c->valid[k] = !bitmap || get_bit(bitmap, at);
    if (type == AM_BOOL) c->i[k] = get_bit(data, at);
    if (type == AM_INT32) c->i[k] = ((const int32_t *)data)[at];
    if (type == AM_INT64) c->i[k] = ((const int64_t *)data)[at];
    if (type == AM_FLOAT64) c->f[k] = ((const double *)data)[at];
  }
  return 1;
}

/* Exported structs waiting for another thread to release them (the header
 * allows any thread). */
static pthread_mutex_t exported_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ArrowArray exported[MAILBOX];
static int exported_count;

static void hand_over_export(struct ArrowArray *array) {
  pthread_mutex_lock(&exported_lock);
  struct ArrowArray old = {0};
  if (exported_count == MAILBOX) old = exported[--exported_count];
  exported[exported_count++] = *array;
  array->release = NULL;
  pthread_mutex_unlock(&exported_lock);
  if (old.release) old.release(&old);
}

static void release_one_export(void) {
  pthread_mutex_lock(&exported_lock);
  struct ArrowArray old = {0};
  if (exported_count) old = exported[--exported_count];
  pthread_mutex_unlock(&exported_lock);
  if (old.release) old.release(&old);
}

/* The array's values as a column (its export, released here or handed to
 * another thread); 0 when the export fails. */
static int read_array(const am_array *a, uint64_t *s, col *c) {
  struct ArrowSchema schema;
  struct ArrowArray array;
  if (pick(s, 4) == 0) { /* the C Device Data Interface's export, on the CPU */
    struct ArrowDeviceArray device_array;
    if (am_export_device(a, &schema, &device_array) != AM_OK) return 0;
    array = device_array.array;
    if (device_array.device_type != ARROW_DEVICE_CPU) {
      fail(K_IMPORT, "am_export_device gave device type %d", (int)device_array.device_type);
      array.release(&array);
      schema.release(&schema);
      return 0;
    }
  } else if (am_export(a, &schema, &array) != AM_OK) {
    return 0;
  }
  int ok = read_struct(&schema, &array, c);
  if (pick(s, 4) == 0)
    hand_over_export(&array);
  else
    array.release(&array);
  schema.release(&schema);
  return ok;
}

/* Compares an array with the expected column, slot by slot; values of null
 * slots are not compared. */
static int check_array(kind k, const char *what, const am_array *a, const col *want, uint64_t *s) {
  col got;
  if (!read_array(a, s, &got)) {
    fail(k, "%s: export failed", what);
    return 0;
  }
  int ok = got.type == want->type && got.n == want->n;
  if (!ok)
    fail(k, "%s: type %d length %lld, want %d %lld", what, got.type, (long long)got.n, want->type,
         (long long)want->n);
  for (int64_t j = 0; ok && j < got.n; j++) {
    int same = got.valid[j] == want->valid[j] &&
               (!got.valid[j] ||
                (got.type == AM_FLOAT64 ? got.f[j] == want->f[j] : got.i[j] == want->i[j]));
    if (!same) {
      fail(k, "%s: slot %lld of %lld is (%d, %lld, %g), want (%d, %lld, %g)", what, (long long)j,
           (long long)got.n, got.valid[j], (long long)got.i[j], got.f[j], want->valid[j],
           (long long)want->i[j], want->f[j]);
      ok = 0;
    }
  }
  int64_t nulls = 0;
  for (int64_t j = 0; j < want->n; j++) nulls += !want->valid[j];
  if (ok && (am_length(a) != want->n || am_null_count(a) != nulls)) {
    fail(k, "%s: am_length %lld am_null_count %lld, want %lld %lld", what, (long long)am_length(a),
         (long long)am_null_count(a), (long long)want->n, (long long)nulls);
    ok = 0;
  }
  col_free(&got);
  return ok;
}

/* Imports a fresh random column; the caller frees both. */
static am_array *fresh(kind k, col *c, uint64_t *s, am_type type, int64_t n, int64_t range) {
  col_random(c, s, type, n, range, (int)pick(s, 3));
  am_array *a = NULL;
  if (import_col(c, s, &a) != AM_OK) {
    fail(k, "am_import of %lld slots", (long long)n);
    return NULL;
  }
  return a;
}

/* ---- The ops. Each returns after checking its results. */

static void op_import(uint64_t *s) {
  col c;
  static const am_type types[] = {AM_BOOL, AM_INT32, AM_INT64, AM_FLOAT64};
  am_array *a = fresh(K_IMPORT, &c, s, types[pick(s, 4)], pick_length(s), 0);
  if (a) {
    check_array(K_IMPORT, "import/export", a, &c, s);
    am_array *slice = NULL;
    int64_t from = c.n ? pick(s, c.n) : 0, len = c.n ? pick(s, c.n) : 0;
    if (am_slice(a, from, len, &slice) != AM_OK) {
      fail(K_IMPORT, "am_slice");
    } else {
      col want;
      int64_t m = from + len > c.n ? c.n - from : len;
      col_init(&want, c.type, m);
      for (int64_t j = 0; j < m; j++) {
        want.i[j] = c.i[from + j];
        want.f[j] = c.f[from + j];
        want.valid[j] = c.valid[from + j];
      }
      check_array(K_IMPORT, "slice", slice, &want, s);
      /* The slice after the whole, as one array, moved to the CPU (a new
       * handle: it is there already). */
      const am_array *parts[2] = {a, slice};
      am_array *joined = NULL, *moved = NULL;
      if (am_concat(parts, 2, NULL, &joined) != AM_OK ||
          am_to_device(joined, am_default_device(), &moved) != AM_OK) {
        fail(K_IMPORT, "am_concat / am_to_device");
      } else {
        col both;
        col_init(&both, c.type, c.n + m);
        for (int64_t j = 0; j < c.n + m; j++) {
          int64_t from_at = j < c.n ? j : from + j - c.n;
          both.i[j] = c.i[from_at];
          both.f[j] = c.f[from_at];
          both.valid[j] = c.valid[from_at];
        }
        check_array(K_IMPORT, "concat", moved, &both, s);
        col_free(&both);
      }
      am_release(joined);
      am_release(moved);
      col_free(&want);
      am_release(slice);
    }
  }
  am_release(a);
  col_free(&c);
}

static void op_arith(uint64_t *s) {
  int64_t n = pick_length(s);
  int floats = (int)pick(s, 2);
  am_type type = floats ? AM_FLOAT64 : AM_INT64;
  col x, y, want;
  am_array *a = fresh(K_ARITH, &x, s, type, n, 0), *b = fresh(K_ARITH, &y, s, type, n, 0);
  am_array *out = NULL;
  am_arith_op op = (am_arith_op)pick(s, 3); /* add, subtract, multiply */
  col_init(&want, type, n);
  for (int64_t j = 0; j < n; j++) {
    uint64_t u = (uint64_t)x.i[j], v = (uint64_t)y.i[j];
    want.valid[j] = x.valid[j] && y.valid[j];
    want.i[j] = (int64_t)(op == AM_ADD ? u + v : op == AM_SUBTRACT ? u - v : u * v);
    want.f[j] = op == AM_ADD        ? x.f[j] + y.f[j]
                : op == AM_SUBTRACT ? x.f[j] - y.f[j]
                                    : x.f[j] * y.f[j];
  }
  if (a && b) {
    if (am_arith(op, a, b, &out) != AM_OK)
      fail(K_ARITH, "am_arith %d", op);
    else
      check_array(K_ARITH, "am_arith", out, &want, s);
    am_release(out);
    /* negate, on the result of nothing shared: x itself */
    if (am_unary(AM_NEGATE, a, &out) != AM_OK) {
      fail(K_ARITH, "am_unary negate");
    } else {
      for (int64_t j = 0; j < n; j++) {
        want.valid[j] = x.valid[j];
        want.i[j] = (int64_t)(0 - (uint64_t)x.i[j]);
        want.f[j] = -x.f[j];
      }
      check_array(K_ARITH, "am_unary negate", out, &want, s);
      am_release(out);
    }
  }
  am_release(a);
  am_release(b);
  col_free(&x);
  col_free(&y);
  col_free(&want);
}

static void op_compare(uint64_t *s) {
  int64_t n = pick_length(s);
  col x, y, want;
  am_array *a = fresh(K_COMPARE, &x, s, AM_INT64, n, 30),
           *b = fresh(K_COMPARE, &y, s, AM_INT64, n, 30);
  am_scalar v = {.type = AM_INT64, .i64 = pick(s, 61) - 30};
  col_init(&want, AM_BOOL, n);
  am_array *out = NULL;
  if (a && b) {
    for (int64_t j = 0; j < n; j++) {
      want.valid[j] = x.valid[j];
      want.i[j] = x.i[j] < v.i64;
    }
    if (am_compare_scalar(AM_LT, a, &v, &out) != AM_OK)
      fail(K_COMPARE, "am_compare_scalar");
    else
      check_array(K_COMPARE, "am_compare_scalar lt", out, &want, s);
    am_release(out);
    for (int64_t j = 0; j < n; j++) {
      want.valid[j] = x.valid[j] && y.valid[j];
      want.i[j] = x.i[j] == y.i[j];
    }
    if (am_compare(AM_EQ, a, b, &out) != AM_OK)
      fail(K_COMPARE, "am_compare");
    else
      check_array(K_COMPARE, "am_compare eq", out, &want, s);
    am_release(out);
  }
  am_release(a);
  am_release(b);
  col_free(&x);
  col_free(&y);
  col_free(&want);
}

static void op_cast(uint64_t *s) {
  int64_t n = pick_length(s);
  int which = (int)pick(s, 3);
  am_type from = which == 0 ? AM_INT64 : which == 1 ? AM_FLOAT64 : AM_INT32;
  am_type to = which == 0 ? AM_FLOAT64 : AM_INT64;
  col x, want;
  am_array *a = fresh(K_CAST, &x, s, from, n, 0), *out = NULL;
  col_init(&want, to, n);
  for (int64_t j = 0; j < n; j++) {
    want.valid[j] = x.valid[j];
    want.f[j] = (double)x.i[j];
    want.i[j] = which == 1 ? (int64_t)x.f[j] : x.i[j]; /* truncated toward zero */
  }
  int flags = AM_CAST_SAFE | (which == 1 ? AM_CAST_ALLOW_FLOAT_TRUNCATE : 0);
  if (a) {
    if (am_cast(a, to, flags, &out) != AM_OK)
      fail(K_CAST, "am_cast %d -> %d", from, to);
    else
      check_array(K_CAST, "am_cast", out, &want, s);
  }
  am_release(out);
  am_release(a);
  col_free(&x);
  col_free(&want);
}

/* The sums, extremes and count of a column's valid slots. */
typedef struct facts {
  int64_t valid, sum, min, max;
  double fsum, fmin, fmax;
} facts;

static facts facts_of(const col *c) {
  facts f = {0, 0, INT64_MAX, INT64_MIN, 0, INFINITY, -INFINITY};
  for (int64_t j = 0; j < c->n; j++) {
    if (!c->valid[j]) continue;
    f.valid++;
    f.sum = (int64_t)((uint64_t)f.sum + (uint64_t)c->i[j]);
    if (f.valid == 1) f.sum += seeded_wrong;
    f.fsum += c->f[j];
    if (c->i[j] < f.min) f.min = c->i[j];
    if (c->i[j] > f.max) f.max = c->i[j];
    f.fmin = fmin(f.fmin, c->f[j]);
    f.fmax = fmax(f.fmax, c->f[j]);
  }
  return f;
}

/* Checks am_sum, am_min, am_max, am_count and am_mean of an int64 array;
 * scalars given may be written later (inside a batch), so they are read only
 * by check_reduced. */
static void check_reduced(kind k, const char *what, const col *c, const am_scalar *sum,
                          const am_scalar *min, const am_scalar *max) {
  facts f = facts_of(c);
  int empty = f.valid == 0;
  if (sum && (sum->is_null != empty || (!empty && sum->i64 != f.sum)))
    fail(k, "%s: sum %lld (null %d), want %lld over %lld valid", what, (long long)sum->i64,
         sum->is_null, (long long)f.sum, (long long)f.valid);
  if (min && (min->is_null != empty || (!empty && min->i64 != f.min)))
    fail(k, "%s: min %lld, want %lld", what, (long long)min->i64, (long long)f.min);
  if (max && (max->is_null != empty || (!empty && max->i64 != f.max)))
    fail(k, "%s: max %lld, want %lld", what, (long long)max->i64, (long long)f.max);
}

static void op_reduce(uint64_t *s) {
  col x;
  am_array *a = fresh(K_REDUCE, &x, s, pick(s, 2) ? AM_INT64 : AM_FLOAT64, pick_length(s), 0);
  if (a) {
    am_scalar sum, min, max, count, mean;
    int floats = x.type == AM_FLOAT64;
    facts f = facts_of(&x);
    if (am_sum(a, &sum) || am_min(a, &min) || am_max(a, &max) ||
        am_count(a, AM_COUNT_VALID, &count) || am_mean(a, &mean)) {
      fail(K_REDUCE, "a reduction failed");
      goto done;
    }
    if (!floats)
      check_reduced(K_REDUCE, "int64", &x, &sum, &min, &max);
    else if (sum.is_null != !f.valid || min.is_null != !f.valid || max.is_null != !f.valid ||
             (f.valid && (sum.f64 != f.fsum || min.f64 != f.fmin || max.f64 != f.fmax)))
      fail(K_REDUCE, "float64 sum %g min %g max %g, want %g %g %g over %lld valid", sum.f64,
           min.f64, max.f64, f.fsum, f.fmin, f.fmax, (long long)f.valid);
    if (count.i64 != f.valid)
      fail(K_REDUCE, "count %lld, want %lld", (long long)count.i64, (long long)f.valid);
    double want_mean = floats ? f.fsum / (double)f.valid : (double)f.sum / (double)f.valid;
    if (mean.is_null != !f.valid ||
        (f.valid && fabs(mean.f64 - want_mean) > 1e-9 * fabs(want_mean) + 1e-9))
      fail(K_REDUCE, "mean %.17g, want %.17g", mean.f64, want_mean);
  }
done:
  am_release(a);
  col_free(&x);
}

static void op_select(uint64_t *s) {
  int64_t n = pick_length(s);
  col x, m, idx, want;
  am_array *a = fresh(K_SELECT, &x, s, AM_INT64, n, 0),
           *mask = fresh(K_SELECT, &m, s, AM_BOOL, n, 0);
  col_random(&idx, s, AM_INT32, n ? pick(s, 2 * n) : 0, 0, (int)pick(s, 2));
  for (int64_t j = 0; j < idx.n; j++) idx.i[j] = pick(s, n);
  am_array *indices = NULL, *out = NULL;
  if (import_col(&idx, s, &indices) != AM_OK) fail(K_SELECT, "am_import of indices");
  if (a && mask && indices) {
    col_init(&want, AM_INT64, n);
    int64_t kept = 0;
    for (int64_t j = 0; j < n; j++) {
      if (!m.valid[j] || !m.i[j]) continue;
      want.i[kept] = x.i[j];
      want.valid[kept++] = x.valid[j];
    }
    want.n = kept;
    if (am_filter(a, mask, &out) != AM_OK)
      fail(K_SELECT, "am_filter");
    else
      check_array(K_SELECT, "am_filter", out, &want, s);
    am_release(out);
    col_free(&want);
    col_init(&want, AM_INT64, idx.n);
    for (int64_t j = 0; j < idx.n; j++) {
      want.valid[j] = idx.valid[j] && x.valid[idx.i[j]];
      want.i[j] = x.i[idx.i[j]];
    }
    if (am_take(a, indices, &out) != AM_OK)
      fail(K_SELECT, "am_take");
    else
      check_array(K_SELECT, "am_take", out, &want, s);
    am_release(out);
    col_free(&want);
  }
  am_release(a);
  am_release(mask);
  am_release(indices);
  col_free(&x);
  col_free(&m);
  col_free(&idx);
}

/* Position of v's first occurrence among c's slots (null: the first null),
 * -1 if none. */
static int64_t first_of(const col *c, int64_t n, int valid, int64_t v) {
  for (int64_t j = 0; j < n; j++)
    if (c->valid[j] == valid && (!valid || c->i[j] == v)) return j;
  return -1;
}

static void op_hash(uint64_t *s) {
  int64_t n = pick_length(s) % 3000; /* the reference is quadratic */
  col x, set, want, counts;
  am_array *a = fresh(K_HASH, &x, s, AM_INT64, n, 20),
           *value_set = fresh(K_HASH, &set, s, AM_INT64, pick(s, 12), 20);
  am_array *values = NULL, *counted = NULL;
  if (a && value_set) {
    col_init(&want, AM_INT64, n);
    col_init(&counts, AM_INT64, n);
    int64_t distinct = 0;
    for (int64_t j = 0; j < n; j++) {
      int64_t first = first_of(&x, j + 1, x.valid[j], x.i[j]);
      if (first == j) {
        want.i[distinct] = x.i[j];
        want.valid[distinct] = x.valid[j];
        counts.valid[distinct++] = 1;
      }
      for (int64_t d = 0; d < distinct; d++)
        if (want.valid[d] == x.valid[j] && (!x.valid[j] || want.i[d] == x.i[j])) counts.i[d]++;
    }
    want.n = counts.n = distinct;
    if (am_unique(a, &values) != AM_OK)
      fail(K_HASH, "am_unique");
    else
      check_array(K_HASH, "am_unique", values, &want, s);
    am_release(values);
    values = NULL;
    if (am_value_counts(a, &values, &counted) != AM_OK) {
      fail(K_HASH, "am_value_counts");
    } else {
      check_array(K_HASH, "am_value_counts values", values, &want, s);
      check_array(K_HASH, "am_value_counts counts", counted, &counts, s);
    }
    am_release(values);
    am_release(counted);
    col_free(&want);
    col_free(&counts);
    int skip_nulls = (int)pick(s, 2);
    col_init(&want, AM_BOOL, n);
    for (int64_t j = 0; j < n; j++) {
      want.valid[j] = 1;
      want.i[j] = (!x.valid[j] && skip_nulls) ? 0 : first_of(&set, set.n, x.valid[j], x.i[j]) >= 0;
    }
    if (am_is_in(a, value_set, skip_nulls, &values) != AM_OK)
      fail(K_HASH, "am_is_in");
    else
      check_array(K_HASH, "am_is_in", values, &want, s);
    am_release(values);
    col_free(&want);
  }
  am_release(a);
  am_release(value_set);
  col_free(&x);
  col_free(&set);
}

static void op_cumulative(uint64_t *s) {
  int64_t n = pick_length(s);
  col x, want;
  am_array *a = fresh(K_CUMULATIVE, &x, s, AM_INT64, n, 0), *out = NULL;
  if (a) {
    col_init(&want, AM_INT64, n);
    uint64_t run = 0;
    for (int64_t j = 0; j < n; j++) {
      want.valid[j] = x.valid[j];
      if (x.valid[j]) run += (uint64_t)x.i[j];
      want.i[j] = (int64_t)run;
    }
    if (am_cumulative(AM_CUMULATIVE_SUM, a, NULL, 1, &out) != AM_OK)
      fail(K_CUMULATIVE, "am_cumulative");
    else
      check_array(K_CUMULATIVE, "am_cumulative sum", out, &want, s);
    am_release(out);
    col_free(&want);
  }
  am_release(a);
  col_free(&x);
}

static int by_value(const void *l, const void *r) {
  int64_t a = *(const int64_t *)l, b = *(const int64_t *)r;
  return (a > b) - (a < b);
}

static void op_quantile(uint64_t *s) {
  int64_t n = pick_length(s);
  col x, want;
  am_array *a = fresh(K_QUANTILE, &x, s, AM_INT64, n, 0), *out = NULL;
  if (a) {
    int64_t *sorted = malloc(sizeof *sorted * ((size_t)n + 1)), m = 0;
    for (int64_t j = 0; j < n; j++)
      if (x.valid[j]) sorted[m++] = x.i[j];
    qsort(sorted, (size_t)m, sizeof *sorted, by_value);
    static const double q[3] = {0, 0.5, 1};
    col_init(&want, AM_INT64, 3);
    for (int j = 0; j < 3; j++) {
      want.valid[j] = m > 0;
      if (m) want.i[j] = sorted[(int64_t)floor((double)(m - 1) * q[j])];
    }
    if (am_quantile(a, q, 3, AM_QUANTILE_LOWER, 1, 0, &out) != AM_OK)
      fail(K_QUANTILE, "am_quantile");
    else
      check_array(K_QUANTILE, "am_quantile lower", out, &want, s);
    am_release(out);
    col_free(&want);
    free(sorted);
  }
  am_release(a);
  col_free(&x);
}

/* group_by's count_all and sum per key, and an inner self-join's size, against
 * a quadratic recomputation. */
static void op_group(uint64_t *s) {
  int64_t n = pick_length(s) % 3000;
  col x, v, want_keys, want_sum, want_rows;
  am_array *k = fresh(K_GROUP, &x, s, AM_INT64, n, 20), *a = fresh(K_GROUP, &v, s, AM_INT64, n, 0);
  if (k && a) {
    col_init(&want_keys, AM_INT64, n);
    col_init(&want_sum, AM_INT64, n);
    col_init(&want_rows, AM_INT64, n);
    int64_t groups = 0, pairs = 0;
    for (int64_t j = 0; j < n; j++) {
      if (first_of(&x, j + 1, x.valid[j], x.i[j]) != j) continue;
      uint64_t sum = 0;
      int64_t rows = 0, valid = 0;
      for (int64_t r = j; r < n; r++) {
        if (x.valid[r] != x.valid[j] || (x.valid[j] && x.i[r] != x.i[j])) continue;
        rows++;
        if (v.valid[r]) sum += (uint64_t)v.i[r], valid++;
      }
      if (x.valid[j]) pairs += rows * rows; /* null keys never match */
      want_keys.i[groups] = x.i[j];
      want_keys.valid[groups] = x.valid[j];
      want_sum.i[groups] = (int64_t)sum + seeded_wrong;
      want_sum.valid[groups] = valid > 0;
      want_rows.i[groups] = rows;
      want_rows.valid[groups++] = 1;
    }
    want_keys.n = want_sum.n = want_rows.n = groups;
    am_group_aggregate aggs[2];
    am_group_aggregate_default(AM_GROUP_COUNT_ALL, 0, &aggs[0]);
    am_group_aggregate_default(AM_GROUP_SUM, 0, &aggs[1]);
    const am_array *keys[1] = {k}, *values[1] = {a};
    am_array *keys_out[1] = {NULL};
    am_group_result results[2] = {{0}};
    if (am_group_by(keys, 1, values, 1, aggs, 2, keys_out, results) != AM_OK) {
      fail(K_GROUP, "am_group_by: %s", am_last_error());
    } else {
      check_array(K_GROUP, "am_group_by keys", keys_out[0], &want_keys, s);
      check_array(K_GROUP, "am_group_by count_all", results[0].values, &want_rows, s);
      check_array(K_GROUP, "am_group_by sum", results[1].values, &want_sum, s);
    }
    am_release(keys_out[0]);
    am_release(results[0].values);
    am_release(results[1].values);
    am_array *li = NULL, *ri = NULL;
    if (am_join_indices(keys, keys, 1, AM_JOIN_INNER, &li, &ri) != AM_OK)
      fail(K_GROUP, "am_join_indices: %s", am_last_error());
    else if (am_length(li) != pairs || am_length(ri) != pairs)
      fail(K_GROUP, "am_join_indices: %lld rows, want %lld", (long long)am_length(li),
           (long long)pairs);
    am_release(li);
    am_release(ri);
    col_free(&want_keys);
    col_free(&want_sum);
    col_free(&want_rows);
  }
  am_release(k);
  am_release(a);
  col_free(&x);
  col_free(&v);
}

/* ---- Batches. */

static void op_batch(uint64_t *s) {
  col x, y;
  int64_t n = pick_length(s);
  am_array *a = fresh(K_BATCH, &x, s, AM_INT64, n, 0), *b = fresh(K_BATCH, &y, s, AM_INT64, n, 0);
  if (!a || !b) goto done;
  am_scalar sum = {0}, inner = {0};
  am_array *added = NULL;
  if (am_batch_begin() != AM_OK || am_batch_depth() != 1) fail(K_BATCH, "am_batch_begin");
  int nested = (int)pick(s, 2);
  if (nested) am_batch_begin();
  int status = am_arith(AM_ADD, a, b, &added);
  if (status == AM_OK) status = am_sum(added, &sum);
  if (status == AM_OK) status = am_sum(a, &inner);
  if (nested && am_batch_end() != AM_OK) fail(K_BATCH, "nested am_batch_end");
  if (am_batch_end() != AM_OK || am_batch_depth() != 0) fail(K_BATCH, "am_batch_end");
  if (status != AM_OK) {
    fail(K_BATCH, "an op in a batch failed");
  } else {
    col both;
    col_init(&both, AM_INT64, n);
    for (int64_t j = 0; j < n; j++) {
      both.valid[j] = x.valid[j] && y.valid[j];
      both.i[j] = (int64_t)((uint64_t)x.i[j] + (uint64_t)y.i[j]);
    }
    check_reduced(K_BATCH, "batched sum of a sum", &both, &sum, NULL, NULL);
    check_reduced(K_BATCH, "batched sum", &x, &inner, NULL, NULL);
    col_free(&both);
  }
  am_release(added);
done:
  am_release(a);
  am_release(b);
  col_free(&x);
  col_free(&y);
}

/* Tickets committed by one thread and waited on by another, with what the
 * waiter checks: the scalar the batch writes and the column it sums. */
typedef struct pending {
  uint64_t ticket;
  am_scalar sum;
  col c;
} pending;

static pthread_mutex_t tickets_lock = PTHREAD_MUTEX_INITIALIZER;
static pending *tickets[TICKETS];
static int ticket_count;

static void finish_pending(pending *p) {
  if (am_wait(p->ticket) != AM_OK)
    fail(K_COMMIT, "am_wait of ticket %llu", (unsigned long long)p->ticket);
  else
    check_reduced(K_COMMIT, "committed sum", &p->c, &p->sum, NULL, NULL);
  col_free(&p->c);
  free(p);
}

/* Waits on a ticket another thread committed, if any. */
static void wait_foreign(void) {
  pthread_mutex_lock(&tickets_lock);
  pending *p = ticket_count ? tickets[--ticket_count] : NULL;
  pthread_mutex_unlock(&tickets_lock);
  if (p) finish_pending(p);
}

static void op_commit(uint64_t *s) {
  pending *p = calloc(1, sizeof *p);
  am_array *a = fresh(K_COMMIT, &p->c, s, AM_INT64, pick_length(s), 0), *sliced = NULL;
  int how = (int)pick(s, 3); /* 0: wait here, 1: another thread waits, 2: never waited */
  int status = am_batch_begin();
  if (a && status == AM_OK) status = how == 2 ? am_slice(a, 0, 1, &sliced) : am_sum(a, &p->sum);
  if (am_batch_commit(&p->ticket) != AM_OK || am_batch_depth() != 0) {
    fail(K_COMMIT, "am_batch_commit");
    how = 2;
  }
  if (status != AM_OK) fail(K_COMMIT, "an op in a committed batch");
  am_release(a);
  am_release(sliced);
  if (how == 0 || (how == 1 && status != AM_OK)) {
    finish_pending(p);
    return;
  }
  if (how == 2) {
    col_free(&p->c);
    free(p);
    return;
  }
  pthread_mutex_lock(&tickets_lock);
  int queued = ticket_count < TICKETS;
  if (queued) tickets[ticket_count++] = p;
  pthread_mutex_unlock(&tickets_lock);
  if (!queued) finish_pending(p);
}

/* ---- Handles handed to another thread, which checks and releases them. */
typedef struct handed {
  am_array *array;
  col c;
} handed;

static pthread_mutex_t handles_lock = PTHREAD_MUTEX_INITIALIZER;
static handed *handles[MAILBOX];
static int handle_count;

static void check_handed(handed *h, uint64_t *s) {
  am_scalar sum;
  if (am_sum(h->array, &sum) != AM_OK)
    fail(K_HANDOFF, "am_sum of a handed-over array");
  else
    check_reduced(K_HANDOFF, "handed-over sum", &h->c, &sum, NULL, NULL);
  if (pick(s, 2)) check_array(K_HANDOFF, "handed-over array", h->array, &h->c, s);
  am_release(h->array);
  col_free(&h->c);
  free(h);
}

static void op_handoff(uint64_t *s) {
  pthread_mutex_lock(&handles_lock);
  handed *take = handle_count ? handles[--handle_count] : NULL;
  pthread_mutex_unlock(&handles_lock);
  if (take) check_handed(take, s);
  handed *h = calloc(1, sizeof *h);
  h->array = fresh(K_HANDOFF, &h->c, s, AM_INT64, pick_length(s), 0);
  if (!h->array) {
    col_free(&h->c);
    free(h);
    return;
  }
  /* A second handle on the same buffers goes over; this one is released. */
  am_array *copy = NULL;
  if (am_slice(h->array, 0, h->c.n, &copy) != AM_OK) fail(K_HANDOFF, "am_slice");
  am_release(h->array);
  h->array = copy;
  pthread_mutex_lock(&handles_lock);
  int queued = handle_count < MAILBOX;
  if (queued) handles[handle_count++] = h;
  pthread_mutex_unlock(&handles_lock);
  if (!queued) check_handed(h, s);
}

/* ---- Runtime controls and device probes, while others compute. */

static void count_log(int level, const char *message, void *user) {
  (void)level;
  (void)message;
  (void)user;
  atomic_fetch_add(&log_messages, 1);
}

static void op_control(uint64_t *s) {
  int64_t us = pick(s, 4) == 0 ? INT64_MAX : pick(s, 1000);
  int64_t in_force = am_spin_microseconds(us);
  if (in_force < 0 || in_force > AM_SPIN_MICROSECONDS_MAX)
    fail(K_CONTROL, "am_spin_microseconds(%lld) = %lld", (long long)us, (long long)in_force);
  int64_t read = am_spin_microseconds(-1);
  if (read < 0 || read > AM_SPIN_MICROSECONDS_MAX) fail(K_CONTROL, "am_spin_microseconds(-1)");
  int on = am_low_latency_wait((int)pick(s, 3) - 1);
  if (on != 0 && on != 1) fail(K_CONTROL, "am_low_latency_wait gave %d", on);
  int resident = am_resident_mode((int)pick(s, 3) - 1);
  const char *why = am_resident_status();
  if (resident < 0 || resident > 1 || !why) fail(K_CONTROL, "am_resident_mode / status");
  am_device *cpu = NULL;
  if (am_device_open("cpu", &cpu) != AM_OK || am_set_default_device(cpu) != AM_OK)
    fail(K_CONTROL, "am_set_default_device(cpu)");
  if (am_default_device() != cpu) fail(K_CONTROL, "am_default_device is not the CPU");
  if (am_set_default_device(NULL) == AM_OK)
    fail(K_CONTROL, "am_set_default_device(NULL) succeeded");
  am_set_log_handler(pick(s, 2) ? count_log : NULL, NULL);
  if (am_config_check() != AM_OK) fail(K_CONTROL, "am_config_check");
  const char *routes = am_routes();
  if (!routes || routes[0] != '#') fail(K_CONTROL, "am_routes");
  am_kernel_cache_stats stats;
  if (am_kernel_cache_info(&stats) != AM_OK || !am_kernel_cache_dir())
    fail(K_CONTROL, "am_kernel_cache_info");
}

static void op_device(uint64_t *s) {
  int count = am_backend_count();
  if (count < 1) fail(K_DEVICE, "am_backend_count %d", count);
  const char *name = am_backend_name((int)pick(s, count + 1));
  if (name) am_backend_probe(name); /* the result depends on the machine */
  if (am_backend_probe("cpu") != AM_OK) fail(K_DEVICE, "am_backend_probe(cpu)");
  am_device *cpu = NULL, *again = NULL, *gpu = NULL;
  if (am_device_open("cpu", &cpu) != AM_OK || am_device_open("cpu", &again) != AM_OK ||
      cpu != again)
    fail(K_DEVICE, "am_device_open(cpu) twice");
  if (cpu &&
      (strcmp(am_device_name(cpu), "cpu") != 0 || strcmp(am_device_backend(cpu), "cpu") != 0))
    fail(K_DEVICE, "the CPU's name");
  if (am_device_sync(cpu) != AM_OK) fail(K_DEVICE, "am_device_sync(cpu)");
  static const char *const specs[] = {"cuda", "cuda:1", "metal"};
  const char *spec = specs[pick(s, 3)];
  if (am_device_open(spec, &gpu) == AM_OK && strncmp(am_device_name(gpu), spec, 4) != 0)
    fail(K_DEVICE, "%s opened as %s", spec, am_device_name(gpu));
  /* A failure's message is this thread's, whatever the others do. */
  if (am_device_open("no-such-device", &gpu) == AM_OK || !strstr(am_last_error(), "am_device_open"))
    fail(K_DEVICE, "am_device_open(no-such-device)");
  if (am_array_device(NULL) != NULL) fail(K_DEVICE, "am_array_device(NULL)");
}

static void op_error(uint64_t *s) {
  col x, idx;
  am_array *a = fresh(K_ERROR, &x, s, AM_INT64, 1 + pick(s, 100), 0), *indices = NULL, *out = NULL;
  col_random(&idx, s, AM_INT32, 1, 0, 0);
  idx.i[0] = x.n + pick(s, 5);
  if (a && import_col(&idx, s, &indices) == AM_OK) {
    char want[64];
    snprintf(want, sizeof want, "index %lld", (long long)idx.i[0]);
    if (am_take(a, indices, &out) != AM_EINDEX || !strstr(am_last_error(), "am_take") ||
        !strstr(am_last_error(), want))
      fail(K_ERROR, "am_take out of bounds: want \"%s\"", want);
    am_release(out);
  }
  am_release(indices);
  am_release(a);
  col_free(&x);
  col_free(&idx);
}

/* Zones loaded on first use by whichever thread comes first (the cache's
 * lock), read by all: a timestamp[s] array of 1970-2038 in a zone drawn from
 * these. Checks: the hour and the day of the month (am_temporal_field, the
 * CPU's blocks) agree with the local time of day and date of am_cast (the
 * ABI's conversion) slot by slot; am_assume_timezone of those local times
 * (the earliest of two readings) gives the original instants back, or
 * earlier ones where the clocks went back over the wall time. A zone the
 * system's database lacks skips. */
static const char *const zone_names[] = {
    "America/New_York",  "Europe/London", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Chatham",
    "America/Sao_Paulo", "Europe/Dublin", "Africa/Cairo",        "Asia/Tehran",  "America/Santiago",
    "Pacific/Apia",      "Europe/Moscow", "Asia/Gaza",           "+05:30",       "UTC"};

/* Array `a`'s values as a column, through its storage integer. */
static int values_of(const am_array *a, am_type storage, uint64_t *s, col *c) {
  am_array *plain = NULL;
  int ok = am_cast(a, storage, 0, &plain) == AM_OK && read_array(plain, s, c);
  am_release(plain);
  return ok;
}

static void op_zone(uint64_t *s) {
  const char *zone = zone_names[pick(s, sizeof zone_names / sizeof zone_names[0])];
  int64_t n = pick_length(s);
  col x, hour, mday, tod, date, back;
  am_array *ints = NULL, *ts = NULL, *zoned = NULL;
  am_array *h = NULL, *d = NULL, *t = NULL, *days = NULL, *assumed = NULL;
  int read = 0;
  col_random(&x, s, AM_INT64, n, (int64_t)1 << 30, (int)pick(s, 3));
  for (int64_t j = 0; j < n; j++) x.i[j] += (int64_t)1 << 30; /* 1970-2038 */
  if (import_col(&x, s, &ints) != AM_OK || am_cast(ints, AM_TIMESTAMP_S, 0, &ts) != AM_OK ||
      am_array_with_timezone(ts, zone, &zoned) != AM_OK) {
    fail(K_ZONE, "a timestamp[s] array in %s", zone);
  } else if (am_temporal_field(AM_FIELD_HOUR, zoned, 1, 1, &h) != AM_OK) {
    if (!strstr(am_last_error(), "not found in timezone database"))
      fail(K_ZONE, "am_temporal_field in %s", zone);
  } else if (am_temporal_field(AM_FIELD_DAY, zoned, 1, 1, &d) != AM_OK ||
             am_cast(zoned, AM_TIME32_S, AM_CAST_SAFE, &t) != AM_OK ||
             am_cast(zoned, AM_DATE32, AM_CAST_SAFE, &days) != AM_OK) {
    fail(K_ZONE, "fields and casts in %s", zone);
  } else if (!read_array(h, s, &hour) || !read_array(d, s, &mday) ||
             !values_of(t, AM_INT32, s, &tod) || !values_of(days, AM_INT32, s, &date)) {
    fail(K_ZONE, "reading the results in %s", zone);
  } else {
    read = 1;
    for (int64_t j = 0; j < n; j++) {
      if (!x.valid[j]) continue;
      /* the day of the month of day number date.i[j] (days since 1970-01-01) */
      int64_t z = date.i[j] + 719468, era = z / 146097, doe = z - era * 146097;
      int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
      int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
      if (hour.i[j] != tod.i[j] / 3600 || mday.i[j] != doy - (153 * mp + 2) / 5 + 1) {
        fail(K_ZONE, "%s, %lld: hour %lld day %lld, local time %lld day number %lld", zone,
             (long long)x.i[j], (long long)hour.i[j], (long long)mday.i[j], (long long)tod.i[j],
             (long long)date.i[j]);
        break;
      }
    }
  }
  if (read) {
    /* the local wall times, as naive timestamps, read back in the zone */
    am_array *wall = NULL, *wall_ts = NULL;
    col walls;
    col_init(&walls, AM_INT64, n);
    for (int64_t j = 0; j < n; j++) {
      walls.valid[j] = x.valid[j];
      walls.i[j] = date.i[j] * 86400 + tod.i[j];
    }
    if (import_col(&walls, s, &wall) != AM_OK ||
        am_cast(wall, AM_TIMESTAMP_S, 0, &wall_ts) != AM_OK ||
        am_assume_timezone(wall_ts, zone, AM_ASSUME_EARLIEST, AM_ASSUME_LATEST, &assumed) !=
            AM_OK ||
        !values_of(assumed, AM_INT64, s, &back)) {
      fail(K_ZONE, "am_assume_timezone in %s", zone);
    } else {
      for (int64_t j = 0; j < n; j++)
        if (x.valid[j] && back.i[j] > x.i[j]) {
          fail(K_ZONE, "%s: %lld read as %lld and back as %lld", zone, (long long)x.i[j],
               (long long)walls.i[j], (long long)back.i[j]);
          break;
        }
      col_free(&back);
    }
    am_release(wall);
    am_release(wall_ts);
    col_free(&walls);
    col_free(&hour);
    col_free(&mday);
    col_free(&tod);
    col_free(&date);
  }
  am_release(ints);
  am_release(ts);
  am_release(zoned);
  am_release(h);
  am_release(d);
  am_release(t);
  am_release(days);
  am_release(assumed);
  col_free(&x);
}

/* Floats written as text and read back are the same values; timestamps
 * written by strftime and read back by strptime are the same instants (in a
 * zone too: UTC, whose %z strptime reads). */
static void op_text(uint64_t *s) {
  int64_t n = pick_length(s);
  col x, back;
  am_array *a = NULL, *text = NULL, *num = NULL, *ints = NULL, *ts = NULL, *zoned = NULL;
  am_array *written = NULL, *read = NULL;
  col_random(&x, s, AM_FLOAT64, n, 0, (int)pick(s, 3));
  for (int64_t j = 0; j < n; j++) x.f[j] = (double)x.i[j] / 3.0; /* all of a double's digits */
  if (import_col(&x, s, &a) != AM_OK || am_cast(a, AM_UTF8, AM_CAST_SAFE, &text) != AM_OK ||
      am_cast(text, AM_FLOAT64, AM_CAST_SAFE, &num) != AM_OK)
    fail(K_TEXT, "float64 -> string -> float64 (%s)", am_last_error());
  else
    check_array(K_TEXT, "float64 -> string -> float64", num, &x, s);
  col_free(&x);
  const int utc = (int)pick(s, 2);
  const char *format = utc ? "%Y-%m-%d %H:%M:%S%z" : "%d/%m/%Y %H:%M:%S";
  col_random(&x, s, AM_INT64, n, (int64_t)1 << 35, (int)pick(s, 3)); /* 881 to 3058 */
  if (import_col(&x, s, &ints) != AM_OK || am_cast(ints, AM_TIMESTAMP_S, 0, &ts) != AM_OK ||
      am_array_with_timezone(ts, utc ? "UTC" : NULL, &zoned) != AM_OK ||
      am_strftime(zoned, format, "C", &written) != AM_OK ||
      am_strptime(written, format, AM_TIMESTAMP_S, 0, &read) != AM_OK ||
      !values_of(read, AM_INT64, s, &back)) {
    fail(K_TEXT, "strftime then strptime with %s (%s)", format, am_last_error());
  } else {
    for (int64_t j = 0; j < n; j++)
      if (back.valid[j] != x.valid[j] || (x.valid[j] && back.i[j] != x.i[j])) {
        fail(K_TEXT, "%s: %lld read back as %lld", format, (long long)x.i[j], (long long)back.i[j]);
        break;
      }
    col_free(&back);
  }
  col_free(&x);
  am_release(a);
  am_release(text);
  am_release(num);
  am_release(ints);
  am_release(ts);
  am_release(zoned);
  am_release(written);
  am_release(read);
}

/* am_string_split of integers' decimal texts at the digit 1 (a limit of
 * splits or none, either direction): a valid row's list has its 1s (at
 * most the limit) plus one pieces, a null row's none, and is null. */
static void op_split(uint64_t *s) {
  const int64_t n = pick_length(s), most = pick(s, 3) == 0 ? pick(s, 3) : -1;
  const int reverse = (int)pick(s, 2);
  col x, want;
  am_array *a = NULL, *text = NULL, *items = NULL, *offsets = NULL;
  col_random(&x, s, AM_INT64, n, 0, (int)pick(s, 3));
  col_init(&want, AM_INT32, n + 1);
  want.valid[n] = 1;
  for (int64_t j = 0; j < n; j++) {
    char digits[32];
    int64_t ones = 0;
    snprintf(digits, sizeof digits, "%lld", (long long)x.i[j]);
    for (const char *c = digits; *c; c++) ones += *c == '1';
    want.valid[j] = x.valid[j];
    want.i[j + 1] = want.i[j] + (x.valid[j] ? (most >= 0 && ones > most ? most : ones) + 1 : 0);
  }
  if (import_col(&x, s, &a) != AM_OK || am_cast(a, AM_UTF8, AM_CAST_SAFE, &text) != AM_OK ||
      am_string_split(AM_SPLIT_PATTERN, text, "1", 1, most, reverse, &items, &offsets) != AM_OK) {
    fail(K_SPLIT, "integers as text split at '1' (%s)", am_last_error());
  } else if (check_array(K_SPLIT, "the list offsets of a split", offsets, &want, s) &&
             am_length(items) != want.i[n]) {
    fail(K_SPLIT, "%lld pieces, want %lld", (long long)am_length(items), (long long)want.i[n]);
  }
  col_free(&x);
  col_free(&want);
  am_release(a);
  am_release(text);
  am_release(items);
  am_release(offsets);
}

static void (*const ops[KINDS])(uint64_t *) = {
    op_import,     op_arith,    op_compare, op_cast,   op_reduce,  op_select,  op_hash,
    op_cumulative, op_quantile, op_batch,   op_commit, op_handoff, op_control, op_device,
    op_error,      op_group,    op_zone,    op_text,   op_split};

static uint64_t seed;
/* STRESS_ONLY=<kind>[,<kind>...] runs only those kinds (to narrow down a
 * failure by hand). */
static int only[KINDS], only_any;

static void *run(void *arg) {
  uint64_t s = seed ^ (0x9E3779B97F4A7C15ULL * (uint64_t)(intptr_t)(1 + (intptr_t)arg));
  while (now_s() < deadline) {
    kind k = (kind)pick(&s, KINDS);
    if (only_any && !only[k]) continue;
    ops[k](&s);
    atomic_fetch_add(&done[k], 1);
    if (pick(&s, 4) == 0) wait_foreign();
    if (pick(&s, 4) == 0) release_one_export();
  }
  return NULL;
}

static void *race(void *arg) {
  (void)arg;
  seeded_race_word++;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--seeded-race") == 0) {
    pthread_t other;
    pthread_create(&other, NULL, race, NULL);
    race(NULL);
    pthread_join(other, NULL);
    printf("stress_test: the seeded race ran (%d)\n", seeded_race_word);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--seeded-wrong") == 0) {
    seeded_wrong = 1;
    argv++;
    argc--;
  }
  double seconds = argc > 1 ? atof(argv[1]) : 10;
  seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
  const char *filter = getenv("STRESS_ONLY");
  for (int k = 0; filter && k < KINDS; k++) {
    const char *at = strstr(filter, kind_names[k]);
    size_t len = strlen(kind_names[k]);
    only[k] = at && (at == filter || at[-1] == ',') && (at[len] == ',' || at[len] == 0);
    only_any |= only[k];
  }
  deadline = now_s() + seconds;
  pthread_t threads[THREADS];
  for (int t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, run, (void *)(intptr_t)t);
  for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
  /* What the threads left for each other. */
  uint64_t s = seed;
  while (ticket_count) wait_foreign();
  while (handle_count) check_handed(handles[--handle_count], &s);
  while (exported_count) release_one_export(); /* last: the checks above export */
  am_set_log_handler(NULL, NULL);
  am_spin_microseconds(200);
  long total_failed = 0;
  printf("stress_test: %d threads, %.0f s, seed %llu:", THREADS, seconds, (unsigned long long)seed);
  for (int k = 0; k < KINDS; k++) {
    printf(" %s %ld", kind_names[k], atomic_load(&done[k]));
    if (atomic_load(&failed[k])) printf(" (%ld FAILED)", atomic_load(&failed[k]));
    total_failed += atomic_load(&failed[k]);
  }
  long made = atomic_load(&structs_made), released = atomic_load(&structs_released);
  printf("; imported structs %ld, released %ld; failures %ld\n", made, released, total_failed);
  if (made != released) {
    printf("stress_test: FAILED: %ld imported structs were never released\n", made - released);
    total_failed++;
  }
  return total_failed ? 1 : 0;
}
