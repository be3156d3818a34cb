/* The GPU kernels of strings and binary (kernels.h: AM_KERNEL_STRING_*),
 * written once for CUDA and MSL on the pieces of text of kernel_source.c
 * (kernel_source_emit.h).
 *
 * A string array on a device is what Arrow lays out (core/string_array.h):
 * offsets, data bytes and a validity bitmap. The row kinds give each thread
 * one row and walk it byte by byte, the warps over whole 32-row words so that
 * bool results and validity go out a word at a time by ballots (the results
 * start at slot 0). Values are mostly short, so a row a thread keeps every
 * lane busy; a long value holds up its warp, which the byte-parallel kinds
 * (STRING_CASE) and a warp-per-row gather would avoid: not done yet.
 *
 * The matching functions are the CPU's (abi/string_functions.c) written as
 * device functions: a plain left-to-right search for a pattern, and LIKE by
 * one pass that backs up to the last '%' (never exponential). The ABI has
 * already turned a LIKE pattern that is a prefix, a suffix or a substring
 * into that op (pyarrow's fast paths, where a backslash is a plain byte). */
#include <stdio.h>

#include "arrowmetal.h"
#include "core/types.h"
#include "gpu/kernel_source_emit.h"

int am_ks_strings_kind(am_kernel_kind kind) {
  switch (kind) {
    AM_KS_STRINGS_CASES
    return 1;
    default:
      return 0;
  }
}

static int function_op(int op) {
  switch (op) {
    case AM_UTF8_LENGTH:
    case AM_BINARY_LENGTH:
    case AM_STARTS_WITH:
    case AM_ENDS_WITH:
    case AM_MATCH_SUBSTRING:
    case AM_FIND_SUBSTRING:
    case AM_COUNT_SUBSTRING:
    case AM_MATCH_LIKE:
      return 1;
    default:
      return 0;
  }
}

static int bool_result(int op) {
  return op == AM_STARTS_WITH || op == AM_ENDS_WITH || op == AM_MATCH_SUBSTRING ||
         op == AM_MATCH_LIKE;
}

int am_ks_strings_key_ok(const am_kernel_key *k) {
  switch (k->kind) {
    case AM_KERNEL_STRING_FUNCTION:
      return function_op(k->op) && am_type_is_var_binary(k->t0) && k->t1 == AM_TYPE_INVALID;
    case AM_KERNEL_STRING_CASE:
      return (k->op == AM_ASCII_UPPER || k->op == AM_ASCII_LOWER) && k->t0 == AM_TYPE_INVALID &&
             k->t1 == AM_TYPE_INVALID;
    case AM_KERNEL_STRING_COMPARE:
      return (k->op & 7) <= AM_GE && (k->op & ~15) == 0 && am_type_is_var_binary(k->t0) &&
             k->t1 == AM_TYPE_INVALID;
    case AM_KERNEL_STRING_SIZES:
    case AM_KERNEL_STRING_GATHER:
      return k->op == 0 && am_type_is_var_binary(k->t0) && (k->t1 == AM_INT32 || k->t1 == AM_INT64);
    case AM_KERNEL_STRING_CHECK:
    case AM_KERNEL_STRING_HASH:
      return k->op == 0 && am_type_is_var_binary(k->t0) && k->t1 == AM_TYPE_INVALID;
    case AM_KERNEL_STRING_VERIFY:
      return k->op >= 0 && k->op <= 2 && am_type_is_var_binary(k->t0) && k->t1 == AM_TYPE_INVALID;
    default:
      return 0;
  }
}

static const char *names[] = {"equal",      "not_equal", "less",
                              "less_equal", "greater",   "greater_equal"};

/* The type's part of a kernel name ("large_string"). */
static const char *type_part(am_type t) { return am_type_label(t); }

void am_ks_strings_name(const am_kernel_key *k, char *name, size_t capacity) {
  static const char *function_names[] = {
      [AM_UTF8_LENGTH] = "utf8_length",         [AM_BINARY_LENGTH] = "binary_length",
      [AM_STARTS_WITH] = "starts_with",         [AM_ENDS_WITH] = "ends_with",
      [AM_MATCH_SUBSTRING] = "match_substring", [AM_FIND_SUBSTRING] = "find_substring",
      [AM_COUNT_SUBSTRING] = "count_substring", [AM_MATCH_LIKE] = "match_like"};
  switch (k->kind) {
    case AM_KERNEL_STRING_FUNCTION:
      snprintf(name, capacity, "am_%s_%s", function_names[k->op], type_part(k->t0));
      break;
    case AM_KERNEL_STRING_CASE:
      snprintf(name, capacity, "am_ascii_%s_bytes", k->op == AM_ASCII_UPPER ? "upper" : "lower");
      break;
    case AM_KERNEL_STRING_COMPARE:
      snprintf(name, capacity, "am_%s_%s%s", names[k->op & 7], type_part(k->t0),
               k->op & 8 ? "_scalar" : "");
      break;
    case AM_KERNEL_STRING_SIZES:
      snprintf(name, capacity, "am_take_sizes_%s_by_%s", type_part(k->t0), type_part(k->t1));
      break;
    case AM_KERNEL_STRING_GATHER:
      snprintf(name, capacity, "am_take_bytes_%s_by_%s", type_part(k->t0), type_part(k->t1));
      break;
    case AM_KERNEL_STRING_CHECK:
      snprintf(name, capacity, "am_check_offsets_%s", type_part(k->t0));
      break;
    case AM_KERNEL_STRING_HASH:
      snprintf(name, capacity, "am_hash_bytes_%s", type_part(k->t0));
      break;
    case AM_KERNEL_STRING_VERIFY:
      snprintf(name, capacity, "am_verify_%s_%s",
               k->op == 0   ? "groups"
               : k->op == 1 ? "index_in"
                            : "is_in",
               type_part(k->t0));
      break;
    default:
      break;
  }
}

int64_t am_ks_strings_blocks(const am_kernel_key *k, int64_t n, int multiprocessors) {
  (void)multiprocessors;
  /* STRING_CASE: n bytes, four a thread. The others: a row a thread. */
  int64_t per_thread = k->kind == AM_KERNEL_STRING_CASE ? 4 : 1;
  int64_t threads = (n + per_thread - 1) / per_thread;
  return (threads + AM_GPU_BLOCK - 1) / AM_GPU_BLOCK;
}

/* OT (the offsets' element), the row loop's head (n, stride) and
 * am_span(o, off, i, &start): row i's start and size. */
static void emit_offsets(am_sb *sb, am_type t) {
  am_sb_printf(sb,
               "typedef %s OT;\n"
               "DEVFN am_i64 am_span(GLOBAL const OT *o, am_i64 i, PRIV am_i64 *start) {\n"
               "  *start = (am_i64)o[i];\n"
               "  return (am_i64)o[i + 1] - *start;\n"
               "}\n",
               am_type_is_large_binary(t) ? "am_i64" : "am_i32");
}

/* Whole 32-row words a warp (every lane reaches the ballots). */
static const char row_loop[] =
    "  const am_i64 n = a.n;\n"
    "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
    "  for (am_i64 base = (am_i64)am_bid * AM_BLOCK + (am_i64)am_warp * 32; base < n;\n"
    "       base += stride) {\n"
    "    const am_i64 i = base + (am_i64)am_lane;\n";

/* ---- STRING_FUNCTION */

/* am_same(s, p, m): the m bytes at s and p are equal; am_find(s, n, p, m):
 * the first byte where p occurs in s[0, n), -1 when nowhere; am_like: the
 * CPU's LIKE matcher (abi/string_functions.c), utf8 telling whether '_'
 * takes a code point or a byte; in a string, a value that RE2's '.' does
 * not cover (am_re2_any_covers, core/unicode_fold.h) matches nothing. */
static const char matchers[] =
    "DEVFN bool am_same(GLOBAL const am_u8 *s, GLOBAL const am_u8 *p, am_i64 m) {\n"
    "  for (am_i64 k = 0; k < m; k++)\n"
    "    if (s[k] != p[k]) return false;\n"
    "  return true;\n"
    "}\n"
    "DEVFN am_i64 am_find(GLOBAL const am_u8 *s, am_i64 n, GLOBAL const am_u8 *p, am_i64 m) {\n"
    "  if (m == 0) return 0;\n"
    "  for (am_i64 at = 0; at + m <= n; at++)\n"
    "    if (s[at] == p[0] && am_same(s + at, p, m)) return at;\n"
    "  return -1;\n"
    "}\n"
    "DEVFN am_i64 am_next_char(GLOBAL const am_u8 *s, am_i64 n, am_i64 i, bool utf8) {\n"
    "  i++;\n"
    "  while (utf8 && i < n && (s[i] & 0xC0u) == 0x80u) i++;\n"
    "  return i;\n"
    "}\n"
    "DEVFN bool am_any_covers(GLOBAL const am_u8 *v, am_i64 n) {\n"
    "  for (am_i64 i = 0; i < n;) {\n"
    "    const am_u8 c = v[i];\n"
    "    const am_i64 len = c < 0x80u ? 1 : c < 0xC2u ? 0 : c < 0xE0u ? 2 : c < 0xF0u ? 3 :\n"
    "                       c < 0xF5u ? 4 : 0;\n"
    "    if (len == 0 || n - i < len) return false;\n"
    "    for (am_i64 k = 1; k < len; k++)\n"
    "      if ((v[i + k] & 0xC0u) != 0x80u) return false;\n"
    "    i += len;\n"
    "  }\n"
    "  return true;\n"
    "}\n"
    "DEVFN bool am_like(GLOBAL const am_u8 *v, am_i64 n, GLOBAL const am_u8 *p, am_i64 m,\n"
    "                   bool utf8) {\n"
    "  if (utf8 && !am_any_covers(v, n)) return false;\n"
    "  am_i64 i = 0, j = 0, star_j = -1, star_i = 0;\n"
    "  while (i < n) {\n"
    "    if (j < m && p[j] == (am_u8)'%') {\n"
    "      star_j = ++j;\n"
    "      star_i = i;\n"
    "      continue;\n"
    "    }\n"
    "    if (j < m && p[j] == (am_u8)'_') {\n"
    "      i = am_next_char(v, n, i, utf8);\n"
    "      j++;\n"
    "      continue;\n"
    "    }\n"
    "    if (j < m) {\n"
    "      am_i64 lit = j;\n"
    "      if (p[j] == (am_u8)'\\\\') lit = j + 1;\n"
    "      if (lit < m && p[lit] == v[i]) {\n"
    "        i++;\n"
    "        j = lit + 1;\n"
    "        continue;\n"
    "      }\n"
    "      if (lit == m) j = m;\n"
    "    }\n"
    "    if (star_j < 0) return false;\n"
    "    star_i = am_next_char(v, n, star_i, utf8);\n"
    "    i = star_i;\n"
    "    j = star_j;\n"
    "  }\n"
    "  while (j < m && (p[j] == (am_u8)'%' || (p[j] == (am_u8)'\\\\' && j + 1 == m))) j++;\n"
    "  return j == m;\n"
    "}\n";

/* The value of one valid row s[0, vn) against the pattern p[0, m). */
static const char *function_expr(int op) {
  switch (op) {
    case AM_UTF8_LENGTH:
      return "am_utf8_length(s, vn)";
    case AM_BINARY_LENGTH:
      return "vn";
    case AM_STARTS_WITH:
      return "(m <= vn && am_same(s, p, m)) ? 1 : 0";
    case AM_ENDS_WITH:
      return "(m <= vn && am_same(s + (vn - m), p, m)) ? 1 : 0";
    case AM_MATCH_SUBSTRING:
      return "am_find(s, vn, p, m) >= 0 ? 1 : 0";
    case AM_FIND_SUBSTRING:
      return "am_find(s, vn, p, m)";
    case AM_COUNT_SUBSTRING:
      return "am_count(s, vn, p, m)";
    default: /* AM_MATCH_LIKE */
      return "am_like(s, vn, p, m, AM_UTF8) ? 1 : 0";
  }
}

static void emit_function(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int bits = bool_result(k->op);
  const char *rt = am_type_is_large_binary(k->t0) ? "am_i64" : "am_i32";
  am_ks_args(sb, "am_u8", "am_u8", bits ? "am_u32" : rt);
  emit_offsets(sb, k->t0);
  am_sb_printf(sb, "typedef %s RT;\n#define AM_UTF8 %s\n", rt,
               am_type_is_utf8(k->t0) ? "true" : "false");
  am_sb_puts(sb, matchers);
  am_sb_puts(sb,
             "DEVFN am_i64 am_utf8_length(GLOBAL const am_u8 *s, am_i64 n) {\n"
             "  am_i64 c = 0;\n"
             "  for (am_i64 k = 0; k < n; k++) c += (s[k] & 0xC0u) != 0x80u ? 1 : 0;\n"
             "  return c;\n"
             "}\n"
             "// Non-overlapping occurrences; an empty pattern n + 1 times.\n"
             "DEVFN am_i64 am_count(GLOBAL const am_u8 *s, am_i64 n, GLOBAL const am_u8 *p,\n"
             "                      am_i64 m) {\n"
             "  if (m == 0) return n + 1;\n"
             "  am_i64 c = 0, at = 0, hit;\n"
             "  while ((hit = am_find(s + at, n - at, p, m)) >= 0) {\n"
             "    c++;\n"
             "    at += hit + m;\n"
             "  }\n"
             "  return c;\n"
             "}\n");
  /* Only what the op reads is declared (NVRTC warns of the rest). */
  const int pattern = k->op != AM_UTF8_LENGTH && k->op != AM_BINARY_LENGTH;
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  if (pattern)
    am_sb_puts(sb,
               "  GLOBAL const am_u8 *p = (GLOBAL const am_u8 *)a.in2;\n"
               "  const am_i64 m = a.aux;\n");
  am_sb_puts(sb, row_loop);
  am_sb_printf(sb,
               "    bool ok = false;\n"
               "    RT r = 0;\n"
               "    if (i < n) {\n"
               "      ok = !hv0 || am_bit(a.valid0, a.off0 + i) != 0u;\n"
               "      if (ok) {\n"
               "        am_i64 start;\n"
               "        const am_i64 vn = am_span(o, a.off0 + i, &start);\n"
               "%s"
               "        r = (RT)(%s);\n"
               "      }\n"
               "    }\n",
               k->op == AM_BINARY_LENGTH ? "" : "        GLOBAL const am_u8 *s = a.in1 + start;\n",
               function_expr(k->op));
  if (bits)
    am_sb_puts(sb,
               "    const am_u32 rw = BALLOT(ok && r != 0);\n"
               "    const am_u32 vw = BALLOT(ok);\n"
               "    if (am_lane == 0u) {\n"
               "      a.out[base >> 5] = rw;\n"
               "      if (a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
               "    }\n"
               "  }\n");
  else
    am_sb_puts(sb,
               "    if (i < n) a.out[i] = r;\n"
               "    const am_u32 vw = BALLOT(ok);\n"
               "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
               "  }\n");
}

/* ---- STRING_CASE
 * ASCII letters of one case flipped to the other, four bytes a thread: as a
 * word where both buffers start on 4-byte boundaries (a.pad), each byte's
 * high bit then telling, without a branch, whether it is a letter of the
 * range [lo, lo + 26) -- bytes of 0x80 and more are never letters. */
static void emit_case(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  const int upper = k->op == AM_ASCII_UPPER;
  am_ks_args(sb, "am_u8", "am_u8", "am_u8");
  am_sb_printf(sb,
               "#define AM_LO %uu\n"
               "DEVFN am_u8 am_flip(am_u8 b) {\n"
               "  return (am_u8)(b ^ ((am_u8)(b - AM_LO) < 26u ? 0x20u : 0u));\n"
               "}\n"
               "DEVFN am_u32 am_flip4(am_u32 w) {\n"
               "  const am_u32 h = w & 0x7f7f7f7fu;\n"
               "  const am_u32 ge = h + 0x01010101u * (0x80u - AM_LO);\n"
               "  const am_u32 gt = h + 0x01010101u * (0x80u - AM_LO - 26u);\n"
               "  return w ^ (((ge & ~gt & ~w) & 0x80808080u) >> 2);\n"
               "}\n",
               upper ? (unsigned)'a' : (unsigned)'A');
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(
      sb,
      "  const am_i64 n = a.n;\n"
      "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
      "  for (am_i64 t = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; t * 4 < n; t += stride) "
      "{\n"
      "    const am_i64 k = t * 4;\n"
      "    if (a.pad != 0 && k + 4 <= n) {\n"
      "      GLOBAL const am_u32 *from = (GLOBAL const am_u32 *)a.in1;\n"
      "      GLOBAL am_u32 *to = (GLOBAL am_u32 *)a.out;\n"
      "      to[t] = am_flip4(from[t]);\n"
      "    } else {\n"
      "      for (am_i64 b = k; b < n && b < k + 4; b++) a.out[b] = am_flip(a.in1[b]);\n"
      "    }\n"
      "  }\n");
}

/* ---- STRING_COMPARE: bytewise, a shorter prefix first (pyarrow's order). */
static void emit_compare(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  static const char *holds[] = {"c == 0", "c != 0", "c < 0", "c <= 0", "c > 0", "c >= 0"};
  am_ks_args(sb, "am_u8", "am_u8", "am_u32");
  emit_offsets(sb, k->t0);
  am_sb_printf(sb,
               "#define AM_BROADCAST %d\n"
               "DEVFN int am_order(GLOBAL const am_u8 *x, am_i64 nx, GLOBAL const am_u8 *y,\n"
               "                   am_i64 ny) {\n"
               "  const am_i64 m = nx < ny ? nx : ny;\n"
               "  for (am_i64 k = 0; k < m; k++)\n"
               "    if (x[k] != y[k]) return x[k] < y[k] ? -1 : 1;\n"
               "  return nx < ny ? -1 : nx > ny ? 1 : 0;\n"
               "}\n",
               (k->op & 8) != 0);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  GLOBAL const OT *ro = (GLOBAL const OT *)a.in2;\n"
             "  GLOBAL const am_u8 *rb = (GLOBAL const am_u8 *)a.scalar;\n"
             "  const bool hv0 = a.valid0 != 0, hv2 = a.valid2 != 0;\n");
  am_sb_puts(sb, row_loop);
  am_sb_printf(sb,
               "    bool ok = false, r = false;\n"
               "    if (i < n) {\n"
               "      const am_i64 j = AM_BROADCAST ? 0 : i;\n"
               "      ok = (!hv0 || am_bit(a.valid0, a.off0 + i) != 0u) &&\n"
               "           (!hv2 || am_bit(a.valid2, a.off2 + j) != 0u);\n"
               "      if (ok) {\n"
               "        am_i64 xs, ys;\n"
               "        const am_i64 nx = am_span(o, a.off0 + i, &xs);\n"
               "        const am_i64 ny = am_span(ro, a.off2 + j, &ys);\n"
               "        const int c = am_order(a.in1 + xs, nx, rb + ys, ny);\n"
               "        r = %s;\n"
               "      }\n"
               "    }\n"
               "    const am_u32 rw = BALLOT(ok && r);\n"
               "    const am_u32 vw = BALLOT(ok);\n"
               "    if (am_lane == 0u) {\n"
               "      a.out[base >> 5] = rw;\n"
               "      if (a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
               "    }\n"
               "  }\n",
               holds[k->op & 7]);
}

/* ---- STRING_SIZES and STRING_GATHER (take: the sizes, their running sum
 * on the device by the cumulative kernels, then the bytes) */
static void emit_sizes(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u8", "am_u8", "am_i64");
  emit_offsets(sb, k->t0);
  am_sb_printf(sb, "typedef %s IT;\n", am_type_kernel(k->t1));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  GLOBAL const IT *ix = (GLOBAL const IT *)a.in2;\n"
             "  const bool hv0 = a.valid0 != 0, hv2 = a.valid2 != 0;\n"
             "  const am_i64 rows = a.aux;\n");
  am_sb_puts(sb, row_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      am_i64 size = 0;\n"
             "      if (!hv2 || am_bit(a.valid2, a.off2 + i) != 0u) {\n"
             "        const am_i64 r = (am_i64)ix[a.off2 + i];\n"
             "        if (r < 0 || r >= rows) {\n"
             "          am_report_error(a.status, (am_u64)i);\n"
             "        } else if (!hv0 || am_bit(a.valid0, a.off0 + r) != 0u) {\n"
             "          am_i64 start;\n"
             "          size = am_span(o, a.off0 + r, &start);\n"
             "          ok = true;\n"
             "        }\n"
             "      }\n"
             "      a.out[i] = size;\n"
             "    }\n"
             "    const am_u32 vw = BALLOT(ok);\n"
             "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
             "  }\n");
}

static void emit_gather(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u8", "am_u8", "am_u8");
  emit_offsets(sb, k->t0);
  am_sb_printf(sb, "typedef %s IT;\n", am_type_kernel(k->t1));
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  GLOBAL const IT *ix = (GLOBAL const IT *)a.in2;\n"
             "  GLOBAL const am_i64 *ends = (GLOBAL const am_i64 *)a.scalar;\n"
             "  GLOBAL OT *to = (GLOBAL OT *)a.out_valid;\n"
             "  const am_i64 n = a.n;\n"
             "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) {\n"
             "    const am_i64 end = ends[i], begin = i == 0 ? 0 : ends[i - 1];\n"
             "    if (i == 0) to[0] = (OT)0;\n"
             "    to[i + 1] = (OT)end;\n"
             "    if (end == begin) continue;\n"
             "    am_i64 start;\n"
             "    (void)am_span(o, a.off0 + (am_i64)ix[a.off2 + i], &start);\n"
             "    for (am_i64 b = 0; b < end - begin; b++) a.out[begin + b] = a.in1[start + b];\n"
             "  }\n");
}

/* ---- STRING_CHECK: an import's offsets, checked where they are. */
static void emit_check(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u8", "am_u8", "am_u8");
  emit_offsets(sb, k->t0);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  const am_i64 n = a.n;\n"
             "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
             "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) {\n"
             "    const am_i64 prev = (am_i64)o[a.off0 + i], next = (am_i64)o[a.off0 + i + 1];\n"
             "    if (i == 0 && prev < 0) am_report_error(a.status, 0u);\n"
             "    else if (next < prev) am_report_error(a.status, (am_u64)(i + 1));\n"
             "  }\n");
}

/* ---- STRING_HASH: FNV-1a over the bytes, then a 64-bit finalizer, so
 * that every input bit reaches the low bits the hash table indexes by. */
static void emit_hash(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u8", "am_u8", "am_u64");
  emit_offsets(sb, k->t0);
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  am_sb_puts(sb, row_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      am_u64 h = 0;\n"
             "      ok = !hv0 || am_bit(a.valid0, a.off0 + i) != 0u;\n"
             "      if (ok) {\n"
             "        am_i64 start;\n"
             "        const am_i64 vn = am_span(o, a.off0 + i, &start);\n"
             "        h = 0xcbf29ce484222325ul ^ (am_u64)vn;\n"
             "        for (am_i64 b = 0; b < vn; b++) h = (h ^ (am_u64)a.in1[start + b]) * "
             "0x100000001b3ul;\n"
             "        h ^= h >> 33;\n"
             "        h *= 0xff51afd7ed558ccdul;\n"
             "        h ^= h >> 33;\n"
             "        h *= 0xc4ceb9fe1a85ec53ul;\n"
             "        h ^= h >> 33;\n"
             "      }\n"
             "      a.out[i] = h;\n"
             "    }\n"
             "    const am_u32 vw = BALLOT(ok);\n"
             "    if (am_lane == 0u && a.out_valid != 0) a.out_valid[base >> 5] = vw;\n"
             "  }\n");
}

/* ---- STRING_VERIFY: rows whose hashes matched, compared byte for byte. */
static void emit_verify(am_sb *sb, am_dialect d, const am_kernel_key *k, const char *name) {
  am_ks_args(sb, "am_u8", "am_u8", "am_u32");
  emit_offsets(sb, k->t0);
  am_sb_puts(sb,
             "DEVFN bool am_equal(GLOBAL const am_u8 *x, am_i64 nx, GLOBAL const am_u8 *y,\n"
             "                    am_i64 ny) {\n"
             "  if (nx != ny) return false;\n"
             "  for (am_i64 k = 0; k < nx; k++)\n"
             "    if (x[k] != y[k]) return false;\n"
             "  return true;\n"
             "}\n");
  am_dialect_kernel_begin(sb, d, name);
  am_sb_puts(sb,
             "  GLOBAL const OT *o = (GLOBAL const OT *)a.in0;\n"
             "  GLOBAL const am_i32 *row = (GLOBAL const am_i32 *)a.in2;\n"
             "  const bool hv0 = a.valid0 != 0;\n");
  if (k->op == 0) {
    am_sb_puts(sb,
               "  GLOBAL const am_i64 *first = (GLOBAL const am_i64 *)a.scalar;\n"
               "  const am_i64 n = a.n;\n"
               "  const am_i64 stride = (am_i64)am_nblocks * AM_BLOCK;\n"
               "  for (am_i64 i = (am_i64)am_bid * AM_BLOCK + (am_i64)am_tid; i < n; i += stride) "
               "{\n"
               "    if (hv0 && am_bit(a.valid0, a.off0 + i) == 0u) continue;\n"
               "    const am_i64 f = first[row[i]];\n"
               "    if (f == i) continue;\n"
               "    am_i64 xs, ys;\n"
               "    const am_i64 nx = am_span(o, a.off0 + i, &xs), ny = am_span(o, a.off0 + f, "
               "&ys);\n"
               "    if (!am_equal(a.in1 + xs, nx, a.in1 + ys, ny)) am_status_add_count(a.status, "
               "1u);\n"
               "  }\n");
    return;
  }
  am_sb_printf(sb,
               "#define AM_AS_BOOL %d\n"
               "  GLOBAL const OT *so = (GLOBAL const OT *)(GLOBAL const am_u8 *)a.valid1;\n"
               "  GLOBAL const am_u8 *sb = (GLOBAL const am_u8 *)a.scalar;\n"
               "  const bool hv2 = a.valid2 != 0;\n",
               k->op == 2);
  am_sb_puts(sb, row_loop);
  am_sb_puts(sb,
             "    bool ok = false;\n"
             "    if (i < n) {\n"
             "      ok = !hv2 || am_bit(a.valid2, i) != 0u;\n"
             "      const bool valid = !hv0 || am_bit(a.valid0, a.off0 + i) != 0u;\n"
             "      if (ok && valid) {\n"
             "        am_i64 xs, ys;\n"
             "        const am_i64 j = (am_i64)row[i];\n"
             "        const am_i64 nx = am_span(o, a.off0 + i, &xs);\n"
             "        const am_i64 ny = am_span(so, a.off1 + j, &ys);\n"
             "        ok = am_equal(a.in1 + xs, nx, sb + ys, ny);\n"
             "      }\n"
             "    }\n"
             "    const am_u32 w = BALLOT(ok);\n"
             "    if (am_lane == 0u) {\n"
             "      if (AM_AS_BOOL) a.out[base >> 5] = w;\n"
             "      else a.out_valid[base >> 5] = w;\n"
             "    }\n"
             "  }\n");
}

/* ---- The hooks of kernel_source.c */

int am_ks_strings_missing_type(am_dialect dialect, const am_kernel_key *k) {
  (void)k;
  return !am_dialect_has_type(dialect, AM_INT64);
}

void am_ks_strings_emit(am_sb *sb, am_dialect dialect, const am_kernel_key *k, const char *name) {
  switch (k->kind) {
    case AM_KERNEL_STRING_FUNCTION:
      emit_function(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_CASE:
      emit_case(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_COMPARE:
      emit_compare(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_SIZES:
      emit_sizes(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_GATHER:
      emit_gather(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_CHECK:
      emit_check(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_HASH:
      emit_hash(sb, dialect, k, name);
      break;
    case AM_KERNEL_STRING_VERIFY:
      emit_verify(sb, dialect, k, name);
      break;
    default:
      break;
  }
}
