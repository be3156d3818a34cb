/* Unit test of the GPU kernel source generator (kernel_source.c, dialect.c).
 * Needs no GPU and no GPU compiler. Driven by test_kernel_source.py.
 *
 *   kernel_source_test check GOLDEN_DIR   every key, both dialects: sources
 *                                         build twice byte-identical, names,
 *                                         errors, block counts; the MSL of a
 *                                         few keys equals GOLDEN_DIR/NAME.metal
 *   kernel_source_test update GOLDEN_DIR  rewrites those golden files
 *   kernel_source_test dump cuda|msl DIR  writes every kernel's source to
 *                                         DIR/NAME.cu or DIR/NAME.metal
 *   kernel_source_test batch FILE KEY...  writes the batch interpreter of the
 *                                         keys (each "kind,op,t0,t1")
 *   kernel_source_test softfloat FILE     writes the soft-float helpers */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/backend.h"
#include "core/ops.h"
#include "core/types.h"
#include "gpu/batch_interpreter.h"
#include "gpu/dialect.h"
#include "gpu/kernel_source_emit.h"
#include "gpu/kernels.h"

static int failures;
static am_err test_err = {.entry = "kernel_source_test", .message = ""};

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (!(cond)) {                                                             \
      failures++;                                                              \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                            \
      fputc('\n', stderr);                                                     \
    }                                                                          \
  } while (0)

typedef void (*key_fn)(const am_kernel_key *key, void *ctx);

/* Every key that names a kernel, in canonical form (unused fields 0 /
 * AM_TYPE_INVALID). */
static int each_key(key_fn fn, void *ctx) {
  int count = 0;
  am_kernel_key k;
#define VISIT(kind_, op_, t0_, t1_) \
  do {                              \
    k.kind = (kind_);               \
    k.op = (op_);                   \
    k.t0 = (am_type)(t0_);          \
    k.t1 = (am_type)(t1_);          \
    fn(&k, ctx);                    \
    count++;                        \
  } while (0)
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    for (int op = 0; op < 4; op++) VISIT(AM_KERNEL_REDUCE, op, t, AM_TYPE_INVALID);
    for (int op = 0; op < 6; op++) VISIT(AM_KERNEL_COMPARE, op, t, AM_TYPE_INVALID);
    if (t != AM_BOOL)
      for (int op = 0; op < 4; op++) VISIT(AM_KERNEL_ARITH, op, t, AM_TYPE_INVALID);
    for (int to = AM_BOOL; to <= AM_FLOAT64; to++)
      for (int safe = 0; safe < 2; safe++) VISIT(AM_KERNEL_CAST, safe, t, to);
    for (int nulls = AM_NULL_DROP; nulls <= AM_NULL_EMIT; nulls++)
      VISIT(AM_KERNEL_FILTER_SCATTER, nulls, t, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_TAKE, 0, t, AM_INT32);
    VISIT(AM_KERNEL_TAKE, 0, t, AM_INT64);
    VISIT(AM_KERNEL_FILL, 0, t, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_COPY, 0, t, AM_TYPE_INVALID);
    /* Every unary op over the element types its kernels compute. */
    for (int op = 0; op < AM_UNARY_COUNT; op++)
      if (am_unary_computes(op, (am_type)t)) VISIT(AM_KERNEL_UNARY, op, t, AM_TYPE_INVALID);
    /* And every binary op over the operand types its kernels compute. */
    for (int op = 0; op < AM_BINARY_COUNT; op++)
      if (am_binary_computes(op, (am_type)t)) VISIT(AM_KERNEL_BINARY, op, t, AM_TYPE_INVALID);
    /* The aggregates with kernels of their own (stddev measures as variance;
     * any, all and the product of bool run REDUCE SUM of bool). */
    static const int agg_ops[] = {AM_AGG_PRODUCT, AM_AGG_MIN_MAX, AM_AGG_VARIANCE,
                                  AM_AGG_FIRST,   AM_AGG_LAST,    AM_AGG_INDEX};
    for (size_t i = 0; i < sizeof agg_ops / sizeof agg_ops[0]; i++)
      if (t != AM_BOOL || (agg_ops[i] != AM_AGG_PRODUCT && agg_ops[i] != AM_AGG_VARIANCE))
        VISIT(AM_KERNEL_AGGREGATE, agg_ops[i], t, AM_TYPE_INVALID);
  }
  /* float16's casts: to and from float32 and float64 (its bits converted;
   * the other kinds see it as uint16). */
  for (int t = AM_FLOAT32; t <= AM_FLOAT64; t++) {
    VISIT(AM_KERNEL_CAST, 0, AM_FLOAT16, t);
    VISIT(AM_KERNEL_CAST, 0, t, AM_FLOAT16);
  }
  for (int op = 0; op <= AM_LOGIC_AND_NOT_KLEENE; op++)
    VISIT(AM_KERNEL_LOGIC, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
  for (int nulls = AM_NULL_DROP; nulls <= AM_NULL_EMIT; nulls++)
    VISIT(AM_KERNEL_FILTER_COUNT, nulls, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_FILTER_SCAN, 0, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_COUNT_NULLS, 0, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* Null handling: the predicates of the validity alone, and
   * those of float values (is_null with and without nan_is_null). */
  for (int p = AM_IS_NULL; p <= AM_IS_INF; p++) {
    VISIT(AM_KERNEL_PREDICATE, p, AM_TYPE_INVALID, AM_TYPE_INVALID);
    for (int t = AM_FLOAT32; t <= AM_FLOAT64; t++) {
      if (p != AM_IS_NULL && p != AM_IS_VALID) VISIT(AM_KERNEL_PREDICATE, p, t, AM_TYPE_INVALID);
      if (p == AM_IS_NULL) VISIT(AM_KERNEL_PREDICATE, p | AM_NAN_IS_NULL << 8, t, AM_TYPE_INVALID);
    }
  }
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    VISIT(AM_KERNEL_COALESCE, 0, t, AM_TYPE_INVALID);
    for (int side = 0; side < 3; side++) VISIT(AM_KERNEL_IF_ELSE, side, t, AM_TYPE_INVALID);
    for (int dir = AM_FILL_FORWARD; dir <= AM_FILL_BACKWARD; dir++)
      VISIT(AM_KERNEL_FILL_GATHER, dir, t, AM_TYPE_INVALID);
  }
  for (int dir = AM_FILL_FORWARD; dir <= AM_FILL_BACKWARD; dir++)
    VISIT(AM_KERNEL_FILL_BLOCKS, dir, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_FILL_CARRY, 0, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* Rounding and pairwise differences: every mode and the
   * two pairwise ops over every numeric type. */
  for (int t = AM_INT8; t <= AM_FLOAT64; t++) {
    for (int mode = AM_ROUND_DOWN; mode <= AM_ROUND_HALF_TO_ODD; mode++)
      VISIT(AM_KERNEL_ROUND, mode, t, AM_TYPE_INVALID);
    for (int op = AM_PAIRWISE_DIFF; op <= AM_PAIRWISE_DIFF_CHECKED; op++)
      VISIT(AM_KERNEL_PAIRWISE_DIFF, op, t, AM_TYPE_INVALID);
  }
  /* Quantiles: every pass of the radix select. */
  for (int pass = 0; pass < 8; pass++) {
    for (int t = AM_INT8; t <= AM_FLOAT64; t++)
      VISIT(AM_KERNEL_SELECT_HIST, pass, t, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_SELECT_PICK, pass, AM_TYPE_INVALID, AM_TYPE_INVALID);
  }
  /* Cumulative functions: every op, both skip_nulls,
   * every numeric type, the three kinds. */
  for (int t = AM_INT8; t <= AM_FLOAT64; t++)
    for (int op = AM_CUMULATIVE_SUM; op <= AM_CUMULATIVE_MEAN; op++)
      for (int skip = 0; skip < 2; skip++)
        for (int kind = AM_KERNEL_CUM_BLOCKS; kind <= AM_KERNEL_CUM_SCAN; kind++)
          VISIT(kind, op | skip << 3, t, AM_TYPE_INVALID);
  /* Hash-based functions. */
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    int dense = am_type_kind_of(t) == AM_KIND_SIGNED || am_type_kind_of(t) == AM_KIND_UNSIGNED;
    for (int op = 0; op < 4; op++) {
      VISIT(AM_KERNEL_HASH_BUILD, op, t, AM_TYPE_INVALID);
      VISIT(AM_KERNEL_HASH_PROBE, op, t, AM_TYPE_INVALID);
      if (op < 2 || dense) VISIT(AM_KERNEL_HASH_IDS, op, t, AM_TYPE_INVALID);
    }
    for (int op = 0; op < 1 + dense; op++)
      VISIT(AM_KERNEL_HASH_GROUP_SLOTS, op, t, AM_TYPE_INVALID);
  }
  for (int op = 0; op < 2; op++) VISIT(AM_KERNEL_HASH_FIRSTS, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* sort_indices: the key gather of every type and direction, every byte
   * pass, the scan, the class passes of every type. */
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    for (int op = 0; op < 16; op++)
      if (!(op & 8) || (op & 2)) VISIT(AM_KERNEL_SORT_KEYS, op, t, AM_TYPE_INVALID);
    for (int op = AM_SORT_CLASS_PASS; op <= AM_SORT_CLASS_PASS + 1; op++) {
      VISIT(AM_KERNEL_SORT_COUNT, op, t, AM_TYPE_INVALID);
      VISIT(AM_KERNEL_SORT_SCATTER, op, t, AM_TYPE_INVALID);
    }
  }
  for (int op = 0; op < 8; op++) {
    VISIT(AM_KERNEL_SORT_COUNT, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_SORT_SCATTER, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
    for (int flags = 0; flags < 32; flags += 8)
      VISIT(AM_KERNEL_SORT_ONESWEEP, op | flags, AM_TYPE_INVALID, AM_TYPE_INVALID);
  }
  for (int op = 0; op <= AM_SORT_WIDEN; op++)
    VISIT(AM_KERNEL_SORT_SCAN, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* Group-by and joins: every accumulator class of every type, the finish
   * of every aggregate the GPU runs, the join passes. */
  VISIT(AM_KERNEL_GROUP_PACK, 0, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_GROUP_ACCUM, AM_ACC_INIT, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_GROUP_ACCUM, AM_ACC_COUNT, AM_TYPE_INVALID, AM_TYPE_INVALID);
  for (int t = AM_BOOL; t <= AM_FLOAT64; t++) {
    if (t >= AM_INT8 && t <= AM_UINT64) VISIT(AM_KERNEL_GROUP_DENSE, 0, t, AM_TYPE_INVALID);
    for (int cls = AM_ACC_COUNT; cls <= AM_ACC_M2; cls++)
      VISIT(AM_KERNEL_GROUP_ACCUM, cls, t, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_GROUP_ACCUM, AM_ACC_FIRST | 16, t, AM_TYPE_INVALID);
    for (int gop = AM_GROUP_SUM; gop <= AM_GROUP_STDDEV; gop++)
      for (int skip = 0; skip < 2; skip++)
        VISIT(AM_KERNEL_GROUP_FINISH, gop | skip << 5, t, AM_TYPE_INVALID);
    for (int skip = 0; skip < 2; skip++)
      VISIT(AM_KERNEL_GROUP_FINISH, AM_GROUP_MIN_MAX | skip << 5 | 1 << 8, t, AM_TYPE_INVALID);
  }
  for (int mode = 0; mode < 3; mode++)
    VISIT(AM_KERNEL_GROUP_FINISH, AM_GROUP_COUNT | mode << 6, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_GROUP_FINISH, AM_GROUP_COUNT_ALL, AM_TYPE_INVALID, AM_TYPE_INVALID);
  for (int op = 0; op <= AM_JOIN_RIGHT_ANTI; op++) {
    VISIT(AM_KERNEL_JOIN_MARK, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_JOIN_MARK, op | 8, AM_TYPE_INVALID, AM_TYPE_INVALID);
  }
  VISIT(AM_KERNEL_JOIN_MARK, 16, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_JOIN_MARK, 17, AM_TYPE_INVALID, AM_TYPE_INVALID);
  for (int op = 0; op < 32; op += 8)
    VISIT(AM_KERNEL_JOIN_WRITE, op, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* Temporal field extraction: every field over every type it takes. */
  for (int op = AM_FIELD_YEAR; op <= AM_FIELD_ISO_YEAR; op++)
    for (int t = AM_TIMESTAMP_S; t <= AM_DURATION_NS; t++) {
      am_kernel_key key = {AM_KERNEL_TEMPORAL_FIELD, op, (am_type)t, AM_TYPE_INVALID};
      if (am_ks_temporal_key_ok(&key)) VISIT(AM_KERNEL_TEMPORAL_FIELD, op, t, AM_TYPE_INVALID);
    }
  /* Strings: every function, compare and take kernel of each var-binary
   * type, and the two case maps. */
  for (int t = AM_UTF8; t <= AM_LARGE_BINARY; t++) {
    for (int op = 0; op <= AM_MATCH_LIKE; op++) {
      am_kernel_key key = {AM_KERNEL_STRING_FUNCTION, op, (am_type)t, AM_TYPE_INVALID};
      if (am_ks_strings_key_ok(&key)) VISIT(AM_KERNEL_STRING_FUNCTION, op, t, AM_TYPE_INVALID);
    }
    for (int op = 0; op < 16; op++) {
      am_kernel_key key = {AM_KERNEL_STRING_COMPARE, op, (am_type)t, AM_TYPE_INVALID};
      if (am_ks_strings_key_ok(&key)) VISIT(AM_KERNEL_STRING_COMPARE, op, t, AM_TYPE_INVALID);
    }
    VISIT(AM_KERNEL_STRING_CHECK, 0, t, AM_TYPE_INVALID);
    VISIT(AM_KERNEL_STRING_HASH, 0, t, AM_TYPE_INVALID);
    for (int op = 0; op <= 2; op++) VISIT(AM_KERNEL_STRING_VERIFY, op, t, AM_TYPE_INVALID);
    for (int ix = AM_INT32; ix <= AM_INT64; ix += AM_INT64 - AM_INT32) {
      VISIT(AM_KERNEL_STRING_SIZES, 0, t, ix);
      VISIT(AM_KERNEL_STRING_GATHER, 0, t, ix);
    }
  }
  VISIT(AM_KERNEL_STRING_CASE, AM_ASCII_UPPER, AM_TYPE_INVALID, AM_TYPE_INVALID);
  VISIT(AM_KERNEL_STRING_CASE, AM_ASCII_LOWER, AM_TYPE_INVALID, AM_TYPE_INVALID);
  /* Temporal rounding: every unit over every type that takes it. */
  for (int unit = AM_UNIT_NANOSECOND; unit <= AM_UNIT_YEAR; unit++)
    for (int t = AM_TIMESTAMP_S; t <= AM_DURATION_NS; t++) {
      am_kernel_key key = {AM_KERNEL_ROUND_TEMPORAL, unit, (am_type)t, AM_TYPE_INVALID};
      if (am_ks_temporal_key_ok(&key)) VISIT(AM_KERNEL_ROUND_TEMPORAL, unit, t, AM_TYPE_INVALID);
    }
  VISIT(AM_KERNEL_RESIDENT_WORKER, 0, AM_TYPE_INVALID, AM_TYPE_INVALID);
#undef VISIT
  return count;
}

static int uses_double(const am_kernel_key *k) {
  if (k->kind == AM_KERNEL_LOGIC || k->kind == AM_KERNEL_FILTER_COUNT ||
      k->kind == AM_KERNEL_FILTER_SCAN || k->kind == AM_KERNEL_COUNT_NULLS ||
      k->kind == AM_KERNEL_COPY)
    return 0;
  /* Cumulative means accumulate (and return) double. */
  if (k->kind >= AM_KERNEL_CUM_BLOCKS && k->kind <= AM_KERNEL_CUM_SCAN &&
      (k->op & 7) == AM_CUMULATIVE_MEAN)
    return 1;
  /* Variance and the product of floats accumulate in double. */
  if (k->kind == AM_KERNEL_AGGREGATE &&
      (k->op == AM_AGG_VARIANCE || (k->op == AM_AGG_PRODUCT && am_type_is_float(k->t0))))
    return 1;
  /* Null handling: the predicates of the validity alone take
   * any type (the keys visited give them none); COALESCE moves bits. */
  if (k->kind == AM_KERNEL_COALESCE || k->kind == AM_KERNEL_IF_ELSE ||
      k->kind == AM_KERNEL_FILL_BLOCKS || k->kind == AM_KERNEL_FILL_CARRY ||
      k->kind == AM_KERNEL_FILL_GATHER || k->kind == AM_KERNEL_SELECT_HIST ||
      k->kind == AM_KERNEL_SELECT_PICK) /* quantile's keys are bits */
    return 0;
  /* Group-by and joins: 64-bit atomics, CUDA only; ONESWEEP's blocks wait on
   * other blocks, CUDA only too. */
  if (k->kind >= AM_KERNEL_GROUP_PACK && k->kind <= AM_KERNEL_JOIN_WRITE) return 1;
  if (k->kind == AM_KERNEL_SORT_ONESWEEP) return 1;
  /* The resident worker: CUDA only (no coherence inside a Metal dispatch). */
  if (k->kind == AM_KERNEL_RESIDENT_WORKER) return 1;
  /* sort_indices' keys are bits. */
  if (k->kind >= AM_KERNEL_SORT_KEYS && k->kind <= AM_KERNEL_SORT_ONESWEEP) return 0;
  /* The hash kernels move keys as bits; Metal has no
   * 64-bit compare-and-swap, so no 64-bit keys there. */
  if (k->kind >= AM_KERNEL_HASH_BUILD && k->kind <= AM_KERNEL_HASH_PROBE)
    return k->kind != AM_KERNEL_HASH_FIRSTS && am_type_bits(k->t0) == 64;
  return k->t0 == AM_FLOAT64 || (k->kind == AM_KERNEL_CAST && k->t1 == AM_FLOAT64);
}

typedef struct {
  am_dialect dialect;
  int generated;
  int unsupported;
  char (*names)[64];
  int nnames;
  const char *dump_dir;
} check_ctx;

static void check_key(const am_kernel_key *key, void *arg) {
  check_ctx *c = arg;
  char name[64];
  am_kernel_name(key, name, sizeof name);
  CHECK(strncmp(name, "am_", 3) == 0 && strlen(name) < 48, "name '%s'", name);
  for (int i = 0; i < c->nnames; i++)
    CHECK(strcmp(c->names[i], name) != 0, "duplicate kernel name %s", name);
  snprintf(c->names[c->nnames++], 64, "%s", name);

  int supported = am_kernel_supported(c->dialect, key);
  CHECK(supported == !(c->dialect == AM_DIALECT_MSL && uses_double(key)), "supported(%s)", name);
  char *a = NULL, *b = NULL;
  int rc = am_kernel_source(&test_err, c->dialect, key, &a);
  if (!supported) {
    CHECK(rc == AM_EUNSUPPORTED && a == NULL, "%s: rc %d", name, rc);
    c->unsupported++;
    return;
  }
  CHECK(rc == AM_OK && a, "%s: rc %d", name, rc);
  rc = am_kernel_source(&test_err, c->dialect, key, &b);
  CHECK(rc == AM_OK && b, "%s: second rc %d", name, rc);
  if (a && b) {
    CHECK(strcmp(a, b) == 0, "%s: not deterministic", name);
    /* The entry point is defined under its name. */
    char sig[96];
    snprintf(sig, sizeof sig, " %s(", name);
    CHECK(strstr(a, sig) != NULL, "%s: entry point missing", name);
    if (c->dialect == AM_DIALECT_MSL) {
      static const char *const cuda_only[] = {
          "double",    "am_f64",    "__global__", "__syncthreads", "__shfl",   "__ballot",
          "threadIdx", "atomicMin", "__device__", "__shared__",    "long long"};
      for (size_t j = 0; j < sizeof cuda_only / sizeof cuda_only[0]; j++)
        CHECK(strstr(a, cuda_only[j]) == NULL, "%s: '%s' in MSL", name, cuda_only[j]);
    } else {
      static const char *const msl_only[] = {"#include", "device ", "threadgroup", "simd_",
                                             "metal_stdlib"};
      for (size_t j = 0; j < sizeof msl_only / sizeof msl_only[0]; j++)
        CHECK(strstr(a, msl_only[j]) == NULL, "%s: '%s' in CUDA", name, msl_only[j]);
      /* Every launched kernel can run in a batch interpreter. */
      char *function = am_dialect_kernel_as_function(a, name);
      CHECK((function != NULL) == (key->kind != AM_KERNEL_RESIDENT_WORKER),
            "%s: entry as a device function", name);
      CHECK(!function || strstr(function, "__global__") == NULL, "%s: still an entry", name);
      free(function);
    }
    c->generated++;
    if (c->dump_dir) {
      char path[512];
      snprintf(path, sizeof path, "%s/%s.%s", c->dump_dir, name,
               c->dialect == AM_DIALECT_MSL ? "metal" : "cu");
      FILE *f = fopen(path, "wb");
      CHECK(f != NULL, "cannot write %s", path);
      if (f) {
        fputs(a, f);
        fclose(f);
      }
    }
  }
  free(a);
  free(b);
}

static int run_keys(am_dialect dialect, const char *dump_dir, int *generated) {
  check_ctx c = {.dialect = dialect, .dump_dir = dump_dir};
  c.names = calloc(4096, 64);
  if (!c.names) return 1;
  int total = each_key(check_key, &c);
  CHECK(c.generated + c.unsupported == total, "counts");
  free(c.names);
  *generated = c.generated;
  printf("%s: %d keys, %d kernels generated, %d unsupported\n", am_dialect_name(dialect), total,
         c.generated, c.unsupported);
  return 0;
}

static void check_errors(void) {
  char *src = (char *)0x1;
  am_kernel_key bad[] = {
      {AM_KERNEL_REDUCE, 4, AM_INT64, AM_TYPE_INVALID},
      {AM_KERNEL_REDUCE, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_COMPARE, 6, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_ARITH, 0, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_ARITH, -1, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_CAST, 2, AM_INT32, AM_INT64},
      {AM_KERNEL_CAST, 1, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_LOGIC, AM_LOGIC_AND_NOT_KLEENE + 1, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_LOGIC, -1, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_TAKE, 0, AM_INT32, AM_INT16},
      {AM_KERNEL_TAKE, 0, AM_INT32, AM_UINT32},
      {AM_KERNEL_FILL, 0, (am_type)12, AM_TYPE_INVALID},
      {AM_KERNEL_FILTER_SCATTER, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILTER_SCATTER, 2, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_FILTER_COUNT, 2, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {(am_kernel_kind)0, 0, AM_INT32, AM_TYPE_INVALID},
      {(am_kernel_kind)(AM_KERNEL_AGGREGATE + 1), 0, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_ANY, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_STDDEV, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_FIRST_LAST, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_SUM, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_PRODUCT, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_VARIANCE, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, AM_AGG_MIN_MAX, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, -1, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_AGGREGATE, 99, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_COPY, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_SELECT_HIST, 8, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_SELECT_HIST, 0, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_SELECT_PICK, -1, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_UNARY, AM_UNARY_COUNT, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_UNARY, AM_NEGATE, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_BINARY, AM_BINARY_COUNT, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_BINARY, AM_BIT_WISE_AND, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_BINARY, AM_ATAN2, AM_INT32, AM_TYPE_INVALID},
      /* Null handling. */
      {AM_KERNEL_PREDICATE, AM_IS_INF + 1, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_PREDICATE, -1, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_PREDICATE, AM_IS_NAN | AM_NAN_IS_NULL << 8, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_PREDICATE, AM_IS_NULL | AM_NAN_IS_NULL << 8, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_PREDICATE, AM_IS_NULL | 2 << 8, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_COALESCE, 1, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_COALESCE, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_IF_ELSE, 3, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_IF_ELSE, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILL_BLOCKS, 2, AM_TYPE_INVALID, AM_TYPE_INVALID},
      {AM_KERNEL_FILL_GATHER, 2, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_FILL_GATHER, 0, AM_TYPE_INVALID, AM_TYPE_INVALID},
      /* Branch round. */
      {AM_KERNEL_ROUND, AM_ROUND_HALF_TO_ODD + 1, AM_FLOAT32, AM_TYPE_INVALID},
      {AM_KERNEL_ROUND, AM_ROUND_DOWN, AM_BOOL, AM_TYPE_INVALID},
      {AM_KERNEL_PAIRWISE_DIFF, 2, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_PAIRWISE_DIFF, AM_PAIRWISE_DIFF, AM_BOOL, AM_TYPE_INVALID},
      /* Temporal: a field of a type it does not take, a number, a bad op. */
      {AM_KERNEL_TEMPORAL_FIELD, AM_FIELD_HOUR, AM_DATE32, AM_TYPE_INVALID},
      {AM_KERNEL_TEMPORAL_FIELD, AM_FIELD_YEAR, AM_TIME32_S, AM_TYPE_INVALID},
      {AM_KERNEL_TEMPORAL_FIELD, AM_FIELD_YEAR, AM_DURATION_S, AM_TYPE_INVALID},
      {AM_KERNEL_TEMPORAL_FIELD, AM_FIELD_YEAR, AM_INT64, AM_TYPE_INVALID},
      {AM_KERNEL_TEMPORAL_FIELD, AM_FIELD_ISO_YEAR + 1, AM_TIMESTAMP_S, AM_TYPE_INVALID},
      /* Strings: an op without a kernel, a fixed-width type, a bad compare, an
       * index type of another width, a typed case map. */
      {AM_KERNEL_STRING_FUNCTION, AM_ASCII_UPPER, AM_UTF8, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_FUNCTION, AM_UTF8_LENGTH, AM_FIXED_SIZE_BINARY, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_FUNCTION, AM_UTF8_LENGTH, AM_INT32, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_COMPARE, AM_GE + 1, AM_UTF8, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_COMPARE, 16, AM_UTF8, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_SIZES, 0, AM_UTF8, AM_INT16},
      {AM_KERNEL_STRING_GATHER, 0, AM_INT64, AM_INT64},
      {AM_KERNEL_STRING_CASE, AM_ASCII_UPPER, AM_UTF8, AM_TYPE_INVALID},
      {AM_KERNEL_STRING_CHECK, 0, AM_FIXED_SIZE_BINARY, AM_TYPE_INVALID},
      /* Temporal rounding: a unit past year, a duration's week (the ABI's days),
       * a number. */
      {AM_KERNEL_ROUND_TEMPORAL, AM_UNIT_YEAR + 1, AM_DATE32, AM_TYPE_INVALID},
      {AM_KERNEL_ROUND_TEMPORAL, AM_UNIT_WEEK, AM_DURATION_MS, AM_TYPE_INVALID},
      {AM_KERNEL_ROUND_TEMPORAL, AM_UNIT_DAY, AM_INT64, AM_TYPE_INVALID},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    for (int d = 0; d < 2; d++) {
      CHECK(am_kernel_source(&test_err, (am_dialect)d, &bad[i], &src) == AM_ETYPE, "bad key %zu",
            i);
      CHECK(!am_kernel_supported((am_dialect)d, &bad[i]), "bad key %zu supported", i);
    }
    char name[64] = "x";
    am_kernel_name(&bad[i], name, sizeof name);
    CHECK(name[0] == '\0', "bad key %zu has name %s", i, name);
  }
  CHECK(src == (char *)0x1, "source written on failure");
  am_kernel_key k = {AM_KERNEL_COMPARE, AM_LT, AM_FLOAT64, AM_TYPE_INVALID};
  CHECK(am_kernel_source(&test_err, AM_DIALECT_MSL, &k, &src) == AM_EUNSUPPORTED, "float64 in MSL");
  CHECK(am_kernel_source(&test_err, AM_DIALECT_CUDA, NULL, &src) == AM_EINVAL, "NULL key");
  CHECK(am_kernel_source(&test_err, AM_DIALECT_CUDA, &k, NULL) == AM_EINVAL, "NULL out");
  CHECK(am_kernel_source(&test_err, (am_dialect)7, &k, &src) == AM_EINVAL, "bad dialect");

  /* Ignored fields: same name and source. */
  am_kernel_key c1 = {AM_KERNEL_FILTER_COUNT, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
  am_kernel_key c2 = {AM_KERNEL_FILTER_COUNT, 0, AM_FLOAT64, AM_INT8};
  char *s1 = NULL, *s2 = NULL;
  CHECK(am_kernel_source(&test_err, AM_DIALECT_MSL, &c1, &s1) == AM_OK, "count");
  CHECK(am_kernel_source(&test_err, AM_DIALECT_MSL, &c2, &s2) == AM_OK, "count, ignored fields");
  CHECK(s1 && s2 && strcmp(s1, s2) == 0, "ignored fields change the source");
  free(s1);
  free(s2);

  /* Names, and a small capacity truncates. */
  char name[64];
  am_kernel_key t = {AM_KERNEL_TAKE, 0, AM_INT64, AM_INT32};
  am_kernel_name(&t, name, sizeof name);
  CHECK(strcmp(name, "am_take_int64_by_int32") == 0, "%s", name);
  am_kernel_key cmp = {AM_KERNEL_COMPARE, AM_LT, AM_INT64, AM_TYPE_INVALID};
  am_kernel_name(&cmp, name, sizeof name);
  CHECK(strcmp(name, "am_compare_lt_int64") == 0, "%s", name);
  am_kernel_name(&cmp, name, 6);
  CHECK(strcmp(name, "am_co") == 0, "%s", name);
}

static void check_blocks(void) {
  const am_kernel_kind kinds[] = {
      AM_KERNEL_REDUCE, AM_KERNEL_COMPARE,      AM_KERNEL_ARITH,       AM_KERNEL_CAST,
      AM_KERNEL_LOGIC,  AM_KERNEL_FILTER_COUNT, AM_KERNEL_FILTER_SCAN, AM_KERNEL_FILTER_SCATTER,
      AM_KERNEL_TAKE,   AM_KERNEL_FILL,         AM_KERNEL_COUNT_NULLS, AM_KERNEL_AGGREGATE};
  const int64_t ns[] = {-5,  0,   1,    31,   32,      33,        255,
                        256, 257, 2048, 4097, 1 << 20, 100000007, (int64_t)1 << 40};
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    for (int t = AM_BOOL; t <= AM_INT32; t += 3) {
      am_kernel_key k = {kinds[i], 0, (am_type)t, AM_INT32};
      for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
        for (int mp = 0; mp <= 132; mp += 66) {
          int b = am_kernel_blocks(&k, ns[j], mp);
          /* The element-wise loops are uncapped: one pass of words a thread. */
          const int loop = kinds[i] == AM_KERNEL_COMPARE || kinds[i] == AM_KERNEL_ARITH ||
                           kinds[i] == AM_KERNEL_CAST || kinds[i] == AM_KERNEL_TAKE;
          CHECK(b >= 1 && (loop || b <= AM_GPU_MAX_BLOCKS), "kind %d n %lld blocks %d", kinds[i],
                (long long)ns[j], b);
          if (loop && ns[j] > 0)
            CHECK((int64_t)b * AM_GPU_BLOCK * 4 >= ns[j], "kind %d n %lld: %d blocks, a pass short",
                  kinds[i], (long long)ns[j], b);
          if (kinds[i] == AM_KERNEL_FILTER_SCAN) CHECK(b == 1, "scan blocks %d", b);
          /* Every thread has at least one slot (or word) to do. */
          if (ns[j] > 0 && kinds[i] != AM_KERNEL_FILTER_SCAN)
            CHECK((int64_t)(b - 1) * AM_GPU_BLOCK < ns[j], "kind %d n %lld: %d blocks", kinds[i],
                  (long long)ns[j], b);
        }
      }
    }
  }
  am_kernel_key r = {AM_KERNEL_REDUCE, 0, AM_INT64, AM_TYPE_INVALID};
  CHECK(am_kernel_blocks(&r, (int64_t)1 << 30, 132) == 528, "reduce 4 per SM");
  CHECK(am_kernel_blocks(&r, 4096, 132) == 2, "reduce small");
  am_kernel_key g = {AM_KERNEL_AGGREGATE, AM_AGG_VARIANCE, AM_FLOAT64, AM_TYPE_INVALID};
  CHECK(am_kernel_blocks(&g, (int64_t)1 << 30, 132) == 528, "aggregates launch as reduce");
  am_kernel_key e = {AM_KERNEL_ARITH, 0, AM_INT64, AM_TYPE_INVALID};
  CHECK(am_kernel_blocks(&e, 1000, 132) == 4, "elementwise");
  CHECK(am_kernel_blocks(&e, (int64_t)1 << 30, 132) == (1 << 30) / AM_GPU_BLOCK,
        "int64 arithmetic: a word a thread, one pass");
  am_kernel_key u = {AM_KERNEL_UNARY, AM_SIN, AM_FLOAT64, AM_TYPE_INVALID};
  CHECK(am_kernel_blocks(&u, 100000000, 132) == 97657, "float64 sin: 4 words a thread");
  am_kernel_key fl = {AM_KERNEL_UNARY, AM_FLOOR, AM_FLOAT64, AM_TYPE_INVALID};
  CHECK(am_kernel_blocks(&fl, 100000000, 132) == 195313, "float64 floor: 2 words a thread");
  CHECK(am_kernel_blocks(&r, (int64_t)1 << 40, 132) <= AM_GPU_MAX_BLOCKS, "reduce stays capped");
  am_kernel_key f1 = {AM_KERNEL_FILTER_COUNT, 0, AM_TYPE_INVALID, AM_TYPE_INVALID};
  am_kernel_key f2 = {AM_KERNEL_FILTER_SCATTER, 0, AM_FLOAT32, AM_TYPE_INVALID};
  for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
    CHECK(am_kernel_blocks(&f1, ns[j], 132) == am_kernel_blocks(&f2, ns[j], 132),
          "filter blocks differ");
}

/* The keys with golden MSL files. */
static const am_kernel_key golden_keys[] = {
    {AM_KERNEL_REDUCE, AM_REDUCE_SUM, AM_INT64, AM_TYPE_INVALID},
    {AM_KERNEL_COMPARE, AM_LT, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_FILTER_SCATTER, 0, AM_INT32, AM_TYPE_INVALID},
    {AM_KERNEL_TAKE, 0, AM_INT64, AM_INT32},
    {AM_KERNEL_CAST, 1, AM_FLOAT32, AM_INT16},
    {AM_KERNEL_UNARY, AM_ABS, AM_INT32, AM_TYPE_INVALID},
    {AM_KERNEL_UNARY, AM_LOG1P_CHECKED, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_BINARY, AM_POWER_CHECKED, AM_INT16, AM_TYPE_INVALID},
    {AM_KERNEL_BINARY, AM_POWER, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_LOGIC, AM_LOGIC_AND_KLEENE, AM_TYPE_INVALID, AM_TYPE_INVALID},
    {AM_KERNEL_AGGREGATE, AM_AGG_MIN_MAX, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_AGGREGATE, AM_AGG_INDEX, AM_INT16, AM_TYPE_INVALID},
    /* Null handling. */
    {AM_KERNEL_PREDICATE, AM_IS_NULL | AM_NAN_IS_NULL << 8, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_PREDICATE, AM_IS_VALID, AM_TYPE_INVALID, AM_TYPE_INVALID},
    {AM_KERNEL_COALESCE, 0, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_IF_ELSE, 1, AM_BOOL, AM_TYPE_INVALID},
    {AM_KERNEL_FILL_GATHER, AM_FILL_BACKWARD, AM_INT16, AM_TYPE_INVALID},
    /* Branch round. */
    {AM_KERNEL_ROUND, AM_ROUND_HALF_TO_EVEN, AM_FLOAT32, AM_TYPE_INVALID},
    {AM_KERNEL_ROUND, AM_ROUND_HALF_TO_ODD, AM_INT16, AM_TYPE_INVALID},
    {AM_KERNEL_PAIRWISE_DIFF, AM_PAIRWISE_DIFF_CHECKED, AM_INT16, AM_TYPE_INVALID},
    /* Quantiles. */
    {AM_KERNEL_SELECT_HIST, 3, AM_FLOAT64, AM_TYPE_INVALID},
    {AM_KERNEL_SELECT_PICK, 1, AM_TYPE_INVALID, AM_TYPE_INVALID},
};

static char *read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *data = malloc((size_t)size + 1);
  if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
    free(data);
    data = NULL;
  }
  if (data) data[size] = '\0';
  fclose(f);
  return data;
}

static void golden(const char *dir, int update) {
  for (size_t i = 0; i < sizeof golden_keys / sizeof golden_keys[0]; i++) {
    char name[64], path[512];
    char *src = NULL;
    am_kernel_name(&golden_keys[i], name, sizeof name);
    snprintf(path, sizeof path, "%s/%s.metal", dir, name);
    CHECK(am_kernel_source(&test_err, AM_DIALECT_MSL, &golden_keys[i], &src) == AM_OK, "%s", name);
    if (!src) continue;
    if (update) {
      FILE *f = fopen(path, "wb");
      CHECK(f != NULL, "cannot write %s", path);
      if (f) {
        fputs(src, f);
        fclose(f);
        printf("wrote %s\n", path);
      }
    } else {
      char *want = read_file(path);
      CHECK(want != NULL, "missing golden file %s (AM_UPDATE_GOLDEN=1 writes it)", path);
      if (want) CHECK(strcmp(want, src) == 0, "%s differs from the generated MSL", path);
      free(want);
    }
    free(src);
  }
}

int main(int argc, char **argv) {
  int generated;
  if (argc == 3 && strcmp(argv[1], "check") == 0) {
    run_keys(AM_DIALECT_CUDA, NULL, &generated);
    run_keys(AM_DIALECT_MSL, NULL, &generated);
    check_errors();
    check_blocks();
    golden(argv[2], 0);
  } else if (argc == 3 && strcmp(argv[1], "update") == 0) {
    golden(argv[2], 1);
  } else if (argc == 4 && strcmp(argv[1], "dump") == 0) {
    am_dialect d = strcmp(argv[2], "msl") == 0 ? AM_DIALECT_MSL : AM_DIALECT_CUDA;
    run_keys(d, argv[3], &generated);
  } else if (argc >= 4 && strcmp(argv[1], "batch") == 0) {
    /* batch FILE KIND,OP,T0,T1 ...: the interpreter of those kernels. */
    am_kernel_key keys[AM_BATCH_OPS];
    int count = 0;
    for (int i = 3; i < argc && count < AM_BATCH_OPS; i++, count++) {
      int kind, op, t0, t1;
      if (sscanf(argv[i], "%d,%d,%d,%d", &kind, &op, &t0, &t1) != 4) return 2;
      keys[count] = (am_kernel_key){kind, op, (am_type)t0, (am_type)t1};
    }
    char *source = NULL;
    if (am_batch_source(&test_err, keys, count, &source) != AM_OK) {
      fprintf(stderr, "%s\n", test_err.message);
      return 1;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f) return 2;
    fputs(source, f);
    fclose(f);
    free(source);
  } else if (argc == 3 && strcmp(argv[1], "softfloat") == 0) {
    FILE *f = fopen(argv[2], "wb");
    if (!f) return 2;
    fputs(am_dialect_soft_float_source(), f);
    fclose(f);
  } else {
    fprintf(stderr,
            "usage: %s check|update GOLDEN_DIR | dump cuda|msl DIR | batch FILE KEY... | "
            "softfloat FILE\n",
            argv[0]);
    return 2;
  }
  if (failures) {
    printf("%d failures\n", failures);
    return 1;
  }
  printf("ok\n");
  return 0;
}
