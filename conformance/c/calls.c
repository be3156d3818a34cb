#include "calls.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_bridge.h"

/* ---- the library's function list ----------------------------------------------------- */

typedef struct {
  char name[64];
  char entry[64];
  int family, op;
} function_row;

static function_row *rows;
static int n_rows;

int cr_calls_init(char *err, size_t err_size) {
  n_rows = am_function_count();
  rows = calloc((size_t)(n_rows > 0 ? n_rows : 1), sizeof *rows);
  if (!rows) return -1;
  for (int i = 0; i < n_rows; i++) {
    am_function_info info;
    if (am_function_info_get(i, &info) != AM_OK) {
      snprintf(err, err_size, "am_function_info_get(%d): %s", i, am_last_error());
      return -1;
    }
    snprintf(rows[i].name, sizeof rows[i].name, "%s", info.name);
    snprintf(rows[i].entry, sizeof rows[i].entry, "%s", info.entry);
    rows[i].family = info.family;
    rows[i].op = info.op;
  }
  return 0;
}

static const function_row *function_named(const char *name) {
  for (int i = 0; name && i < n_rows; i++)
    if (strcmp(rows[i].name, name) == 0) return &rows[i];
  return NULL;
}

/* The op value of function `name` in `family`, or -1. */
static int op_of(const char *name, int family) {
  const function_row *row = function_named(name);
  return row && row->family == family ? row->op : -1;
}

/* ---- helpers ---------------------------------------------------------------------------- */

static int problem(cr_result *r, const char *fmt, const char *what) {
  snprintf(r->problem, sizeof r->problem, fmt, what ? what : "?");
  return -1;
}

/* A string parameter's index in a list of names, or -1. */
static int index_of(const char *value, const char *const *names, int n) {
  for (int i = 0; value && i < n; i++)
    if (strcmp(value, names[i]) == 0) return i;
  return -1;
}

static am_array *arg(const cr_call *c, int k) {
  return c->in->n_arrays > k ? c->in->arrays[k] : NULL;
}
static am_scalar *sarg(const cr_call *c, int k) {
  return c->in->n_scalars > k ? c->in->scalars[k] : NULL;
}
static int scalar_form(const cr_call *c) { return strcmp(c->form, "array-scalar") == 0; }
static const char *pstr(const cr_call *c, const char *key) { return json_string(c->params, key); }
static int64_t pint(const cr_call *c, const char *key, int64_t fallback) {
  return json_int(c->params, key, fallback);
}
static int pbool(const cr_call *c, const char *key, int fallback) {
  return json_bool(c->params, key, fallback);
}

static am_array **one_array(cr_result *r) {
  r->kind = CR_OUT_ARRAY;
  r->n = 1;
  return &r->arrays[0];
}

static am_scalar *scalars(cr_result *r, int n) {
  r->kind = CR_OUT_SCALARS;
  r->n = n;
  return r->scalars;
}

static am_array **arrays(cr_result *r, int n) {
  r->kind = CR_OUT_ARRAYS;
  r->n = n;
  return r->arrays;
}

static const char *const COUNT_MODES[] = {"only_valid", "only_null", "all"};

static int count_mode(const char *mode) {
  int m = index_of(mode ? mode : "only_valid", COUNT_MODES, 3);
  return m < 0 ? 0 : m;
}

static int placement(const char *p) {
  return p && strcmp(p, "at_start") == 0 ? AM_NULLS_AT_START : AM_NULLS_AT_END;
}

/* A parameter that is a string or a list of them: item k (or the string itself). */
static const char *pitem(const cr_call *c, const char *key, size_t k, const char *fallback) {
  const json *v = json_get(c->params, key);
  if (v && v->kind == JSON_STRING) return v->text;
  if (v && v->kind == JSON_ARRAY && k < v->count && v->items[k]->kind == JSON_STRING)
    return v->items[k]->text;
  return fallback;
}

/* ---- reductions and aggregates ------------------------------------------------------- */

static int call_reduce(const cr_call *c, cr_result *r, int op) {
  static int (*const fns[])(const am_array *, am_scalar *) = {am_sum, am_min, am_max, am_mean};
  static const char *const names[] = {"am_sum", "am_min", "am_max", "am_mean"};
  if (op < 0 || op > 3) return problem(r, "reduce op %s", c->op);
  r->fname = names[op];
  r->rc = fns[op](arg(c, 0), scalars(r, 1));
  return 0;
}

static int call_count(const cr_call *c, cr_result *r) {
  r->fname = "am_count";
  r->rc = am_count(arg(c, 0), (am_count_mode)count_mode(pstr(c, "mode")), scalars(r, 1));
  return 0;
}

static int call_aggregate(const cr_call *c, cr_result *r, int op) {
  if (op == AM_AGG_INDEX) {
    r->fname = "am_index";
    r->rc = am_index(arg(c, 0), sarg(c, 0), scalars(r, 1));
    return 0;
  }
  am_aggregate_options opts, *o = NULL;
  if (c->params->count) { /* the case's options over pyarrow's defaults; none: NULL */
    if (am_aggregate_options_default((am_aggregate_op)op, &opts) != AM_OK)
      return problem(r, "am_aggregate_options_default: %s", am_last_error());
    opts.skip_nulls = pbool(c, "skip_nulls", 1);
    opts.min_count = (uint32_t)pint(c, "min_count", opts.min_count);
    opts.ddof = (int32_t)pint(c, "ddof", 0);
    o = &opts;
  }
  am_scalar *out = scalars(r, op == AM_AGG_MIN_MAX || op == AM_AGG_FIRST_LAST ? 2 : 1);
  if (op == AM_AGG_MIN_MAX) {
    r->fname = "am_min_max";
    r->rc = am_min_max(arg(c, 0), o, &out[0], &out[1]);
  } else if (op == AM_AGG_FIRST_LAST) {
    r->fname = "am_first_last";
    r->rc = am_first_last(arg(c, 0), o, &out[0], &out[1]);
  } else {
    r->fname = "am_aggregate";
    r->rc = am_aggregate((am_aggregate_op)op, arg(c, 0), o, out);
  }
  return 0;
}

/* ---- element-wise ---------------------------------------------------------------------- */

static int call_compare(const cr_call *c, cr_result *r) {
  static const char *const cmps[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  int op = index_of(pstr(c, "cmp"), cmps, 6);
  if (op < 0) return problem(r, "compare cmp %s", pstr(c, "cmp"));
  if (scalar_form(c)) {
    r->fname = "am_compare_scalar";
    r->rc = am_compare_scalar((am_compare_op)op, arg(c, 0), sarg(c, 0), one_array(r));
  } else {
    r->fname = "am_compare";
    r->rc = am_compare((am_compare_op)op, arg(c, 0), arg(c, 1), one_array(r));
  }
  return 0;
}

static int call_arith(const cr_call *c, cr_result *r) {
  int op = op_of(pstr(c, "arith"), AM_FAMILY_ARITH);
  if (op < 0) return problem(r, "arith %s", pstr(c, "arith"));
  if (scalar_form(c)) {
    r->fname = "am_arith_scalar";
    r->rc = am_arith_scalar((am_arith_op)op, arg(c, 0), sarg(c, 0), one_array(r));
  } else {
    r->fname = "am_arith";
    r->rc = am_arith((am_arith_op)op, arg(c, 0), arg(c, 1), one_array(r));
  }
  return 0;
}

static int call_binary(const cr_call *c, cr_result *r, int op) {
  if (scalar_form(c)) {
    r->fname = "am_binary_scalar";
    r->rc = am_binary_scalar((am_binary_op)op, arg(c, 0), sarg(c, 0), one_array(r));
  } else {
    r->fname = "am_binary";
    r->rc = am_binary((am_binary_op)op, arg(c, 0), arg(c, 1), one_array(r));
  }
  return 0;
}

static int call_cast(const cr_call *c, cr_result *r) {
  const cr_type *to = cr_type_named(pstr(c, "to"));
  if (!to) return problem(r, "cast to %s", pstr(c, "to"));
  int flags = pbool(c, "safe", 0) ? AM_CAST_SAFE : 0;
  const json *allow = json_get(c->params, "allow");
  for (size_t i = 0; allow && allow->kind == JSON_ARRAY && i < allow->count; i++) {
    const char *name = allow->items[i]->text;
    if (strcmp(name, "int_overflow") == 0)
      flags |= AM_CAST_ALLOW_INT_OVERFLOW;
    else if (strcmp(name, "float_truncate") == 0)
      flags |= AM_CAST_ALLOW_FLOAT_TRUNCATE;
    else if (strcmp(name, "decimal_truncate") == 0)
      flags |= AM_CAST_ALLOW_DECIMAL_TRUNCATE;
    else if (strcmp(name, "time_truncate") == 0)
      flags |= AM_CAST_ALLOW_TIME_TRUNCATE;
    else if (strcmp(name, "time_overflow") == 0)
      flags |= AM_CAST_ALLOW_TIME_OVERFLOW;
    else
      return problem(r, "cast allow %s", name);
  }
  if (to->kind == CR_DECIMAL) { /* a decimal target's precision and scale beside its type */
    r->fname = "am_cast_decimal";
    r->rc = am_cast_decimal(arg(c, 0), to->type, to->precision, to->scale, flags, one_array(r));
    return 0;
  }
  r->fname = "am_cast";
  r->rc = am_cast(arg(c, 0), to->type, flags, one_array(r));
  return 0;
}

static int call_logic(const cr_call *c, cr_result *r, int op) {
  if (op == AM_LOGIC_AND || op == AM_LOGIC_OR) {
    r->fname = op == AM_LOGIC_AND ? "am_and" : "am_or";
    r->rc = (op == AM_LOGIC_AND ? am_and : am_or)(arg(c, 0), arg(c, 1), one_array(r));
  } else if (op == AM_LOGIC_NOT) {
    r->fname = "am_not";
    r->rc = am_not(arg(c, 0), one_array(r));
  } else if (scalar_form(c)) {
    r->fname = "am_logic_scalar";
    r->rc = am_logic_scalar((am_logic_op)op, arg(c, 0), sarg(c, 0), one_array(r));
  } else if (strcmp(c->form, "scalar-array") == 0) {
    r->fname = "am_logic_scalar_left";
    r->rc = am_logic_scalar_left((am_logic_op)op, sarg(c, 0), arg(c, 0), one_array(r));
  } else {
    r->fname = "am_logic";
    r->rc = am_logic((am_logic_op)op, arg(c, 0), arg(c, 1), one_array(r));
  }
  return 0;
}

static int call_filter(const cr_call *c, cr_result *r) {
  const char *rule = pstr(c, "null_selection");
  if (!rule) {
    r->fname = "am_filter";
    r->rc = am_filter(arg(c, 0), arg(c, 1), one_array(r));
    return 0;
  }
  static const char *const rules[] = {"drop", "emit_null"};
  int nulls = index_of(rule, rules, 2);
  if (nulls < 0) return problem(r, "null_selection %s", rule);
  r->fname = "am_filter_nulls";
  r->rc = am_filter_nulls(arg(c, 0), arg(c, 1), (am_null_selection)nulls, one_array(r));
  return 0;
}

/* ---- null handling ---------------------------------------------------------------------- */

static int call_coalesce(const cr_call *c, cr_result *r) {
  const am_array *list[CR_MAX_INPUTS] = {0};
  const am_scalar *slist[CR_MAX_INPUTS] = {0};
  int a = 0, s = 0;
  for (int k = 0; k < c->in->n; k++) { /* argument k: an array or a scalar, the other NULL */
    if (c->in->is_scalar[k])
      slist[k] = sarg(c, s++);
    else
      list[k] = arg(c, a++);
  }
  r->fname = "am_coalesce";
  r->rc = am_coalesce(list, slist, c->in->n, one_array(r));
  return 0;
}

static int call_if_else(const cr_call *c, cr_result *r) {
  const am_array *side[2] = {0};
  const am_scalar *sside[2] = {0};
  int a = 1, s = 0;
  for (int k = 1; k < 3 && k < c->in->n; k++) {
    if (c->in->is_scalar[k])
      sside[k - 1] = sarg(c, s++);
    else
      side[k - 1] = arg(c, a++);
  }
  r->fname = "am_if_else";
  r->rc = am_if_else(arg(c, 0), side[0], sside[0], side[1], sside[1], one_array(r));
  return 0;
}

/* ---- rounding, quantiles, scans --------------------------------------------------------- */

static const char *const ROUND_MODES[] = {
    "down",         "up",         "towards_zero",      "towards_infinity",
    "half_down",    "half_up",    "half_towards_zero", "half_towards_infinity",
    "half_to_even", "half_to_odd"};

static int call_round(const cr_call *c, cr_result *r, int op) {
  const char *name = pstr(c, "round_mode");
  int mode = index_of(name ? name : "half_to_even", ROUND_MODES, 10);
  if (mode < 0) return problem(r, "round_mode %s", name);
  if (op == 0) {
    r->fname = "am_round";
    r->rc = am_round(arg(c, 0), pint(c, "ndigits", 0), (am_round_mode)mode, one_array(r));
    return 0;
  }
  am_scalar unit;
  cr_value v = {0};
  v.f = 1.0;
  cr_make_scalar(cr_type_named("float64"), v, &unit);
  r->fname = "am_round_to_multiple";
  r->rc = am_round_to_multiple(arg(c, 0), sarg(c, 0) ? sarg(c, 0) : &unit, (am_round_mode)mode,
                               one_array(r));
  return 0;
}

/* The q list (numbers, or "nan" and the like as strings). */
static int quantiles(const cr_call *c, double *q, int64_t *nq, cr_result *r) {
  const json *list = json_get(c->params, "q");
  *nq = 0;
  for (size_t i = 0; list && list->kind == JSON_ARRAY && i < list->count; i++) {
    if (i == 64 || !json_to_f64(list->items[i], &q[i])) return problem(r, "q of %s", c->op);
    *nq = (int64_t)i + 1;
  }
  return 0;
}

static int call_quantile(const cr_call *c, cr_result *r) {
  static const char *const interpolations[] = {"linear", "lower", "higher", "nearest", "midpoint"};
  const char *name = pstr(c, "interpolation");
  int interp = index_of(name ? name : "linear", interpolations, 5);
  double q[64] = {0};
  int64_t nq;
  if (interp < 0) return problem(r, "interpolation %s", name);
  if (quantiles(c, q, &nq, r)) return -1;
  r->fname = "am_quantile";
  r->rc = am_quantile(arg(c, 0), q, nq, (am_quantile_interpolation)interp,
                      pbool(c, "skip_nulls", 1), pint(c, "min_count", 0), one_array(r));
  return 0;
}

static int call_tdigest(const cr_call *c, cr_result *r, int op) {
  double q[64] = {0.5};
  int64_t nq = 1;
  int64_t delta = 100, buffer = 500, min_count = 1;
  if (op == 0) { /* tdigest; op 1, approximate_median, is q = {0.5} of the defaults */
    if (quantiles(c, q, &nq, r)) return -1;
    delta = pint(c, "delta", 100);
    buffer = pint(c, "buffer_size", 500);
    min_count = pint(c, "min_count", 0);
  } else {
    min_count = pint(c, "min_count", 1);
  }
  r->fname = "am_tdigest";
  r->rc = am_tdigest(arg(c, 0), q, nq, (uint32_t)delta, (uint32_t)buffer, pbool(c, "skip_nulls", 1),
                     min_count, one_array(r));
  return 0;
}

/* ---- hash-based functions --------------------------------------------------------------- */

static int call_hash(const cr_call *c, cr_result *r, int family, int op) {
  switch (family) {
    case AM_FAMILY_SET_LOOKUP:
      r->fname = op == 0 ? "am_is_in" : "am_index_in";
      r->rc = (op == 0 ? am_is_in : am_index_in)(arg(c, 0), arg(c, 1), pbool(c, "skip_nulls", 0),
                                                 one_array(r));
      return 0;
    case AM_FAMILY_UNIQUE:
      r->fname = "am_unique";
      r->rc = am_unique(arg(c, 0), one_array(r));
      return 0;
    case AM_FAMILY_VALUE_COUNTS: {
      am_array **out = arrays(r, 2);
      r->fname = "am_value_counts";
      r->rc = am_value_counts(arg(c, 0), &out[0], &out[1]);
      return 0;
    }
    case AM_FAMILY_COUNT_DISTINCT:
      r->fname = "am_count_distinct";
      r->rc =
          am_count_distinct(arg(c, 0), (am_count_mode)count_mode(pstr(c, "mode")), scalars(r, 1));
      return 0;
    case AM_FAMILY_DICTIONARY_ENCODE: {
      const char *enc = pstr(c, "null_encoding");
      r->fname = "am_dictionary_encode";
      r->rc = am_dictionary_encode(
          arg(c, 0),
          enc && strcmp(enc, "encode") == 0 ? AM_NULL_ENCODING_ENCODE : AM_NULL_ENCODING_MASK,
          one_array(r));
      return 0;
    }
    default: { /* mode */
      am_array **out = arrays(r, 2);
      r->fname = "am_mode";
      r->rc = am_mode(arg(c, 0), pint(c, "n", 1), pbool(c, "skip_nulls", 1),
                      pint(c, "min_count", 0), &out[0], &out[1]);
      return 0;
    }
  }
}

/* ---- sorting and ranking ---------------------------------------------------------------- */

/* The keys, orders and null placements of a sorting call (amabi.sort_key_args). */
typedef struct {
  const am_array *keys[CR_MAX_INPUTS];
  int descending[CR_MAX_INPUTS];
  int at[CR_MAX_INPUTS];
} sort_args;

static void sort_key_args(const cr_call *c, int64_t n, sort_args *s) {
  for (int64_t k = 0; k < n && k < CR_MAX_INPUTS; k++) {
    s->keys[k] = arg(c, (int)k);
    const char *order = pitem(c, "order", (size_t)k, "ascending");
    s->descending[k] = strcmp(order, "descending") == 0;
    s->at[k] = placement(pitem(c, "null_placement", (size_t)k, "at_end"));
  }
}

static int call_sort(const cr_call *c, cr_result *r, int family, int op) {
  sort_args s;
  memset(&s, 0, sizeof s);
  if (family == AM_FAMILY_SORT_INDICES || family == AM_FAMILY_SELECT_K) {
    int64_t n =
        family == AM_FAMILY_SORT_INDICES && op == 1 ? 1 : pint(c, "n_keys", c->in->n_arrays);
    if (n > CR_MAX_INPUTS) return problem(r, "%s: too many keys", c->op);
    sort_key_args(c, n, &s);
    if (family == AM_FAMILY_SORT_INDICES) {
      r->fname = "am_sort_indices";
      r->rc = am_sort_indices(s.keys, n, s.descending, s.at, one_array(r));
    } else {
      r->fname = "am_select_k_unstable";
      r->rc = am_select_k_unstable(s.keys, n, s.descending, s.at, pint(c, "k", 0), one_array(r));
    }
    return 0;
  }
  const char *order = pstr(c, "order");
  int desc = order && strcmp(order, "descending") == 0;
  int at = placement(pstr(c, "null_placement"));
  if (family == AM_FAMILY_PARTITION_NTH) {
    r->fname = "am_partition_nth_indices";
    r->rc = am_partition_nth_indices(arg(c, 0), pint(c, "pivot", 0), at, one_array(r));
  } else if (op == 0) {
    static const char *const tiebreakers[] = {"min", "max", "first", "dense"};
    const char *name = pstr(c, "tiebreaker");
    int tb = index_of(name ? name : "first", tiebreakers, 4);
    if (tb < 0) return problem(r, "tiebreaker %s", name);
    r->fname = "am_rank";
    r->rc = am_rank(arg(c, 0), desc, at, tb, one_array(r));
  } else {
    r->fname = "am_rank_quantile";
    r->rc = am_rank_quantile(arg(c, 0), desc, at, op == 2, one_array(r));
  }
  return 0;
}

/* ---- tables: group_by and join ---------------------------------------------------------- */

static int call_group_by(const cr_call *c, cr_result *r) {
  const json *aggs = json_get(c->params, "aggregates");
  int64_t k = pint(c, "n_keys", 0);
  /* Room for every cell: the keys, and at most two per aggregate. */
  if (!aggs || aggs->kind != JSON_ARRAY || aggs->count > 24 || k < 1 || k > c->in->n_arrays ||
      k + 2 * (int64_t)aggs->count > CR_MAX_OUT)
    return problem(r, "%s: bad aggregates or n_keys", c->op);
  am_group_aggregate specs[24];
  am_group_result results[24];
  am_array *keys_out[CR_MAX_INPUTS] = {0};
  memset(results, 0, sizeof results);
  for (size_t i = 0; i < aggs->count; i++) {
    const json *a = aggs->items[i];
    if (a->kind != JSON_ARRAY || a->count != 3 || a->items[1]->kind != JSON_STRING)
      return problem(r, "%s: an aggregate not [column, name, options]", c->op);
    char name[80];
    snprintf(name, sizeof name, "hash_%s", a->items[1]->text);
    int op = op_of(name, AM_FAMILY_GROUP_BY);
    int64_t column = 0;
    json_to_i64(a->items[0], &column);
    if (op < 0 || am_group_aggregate_default((am_group_op)op, (int32_t)column, &specs[i]) != AM_OK)
      return problem(r, "group_by aggregate %s", a->items[1]->text);
    const json *opts = a->items[2];
    for (size_t j = 0; opts->kind == JSON_OBJECT && j < opts->count; j++) {
      const char *field = opts->keys[j];
      const json *v = opts->items[j];
      int64_t x = v->kind == JSON_BOOL ? v->boolean : 0;
      if (v->kind != JSON_BOOL && v->kind != JSON_STRING && !json_to_i64(v, &x))
        return problem(r, "group_by option %s", field);
      if (strcmp(field, "mode") == 0)
        specs[i].count_mode = count_mode(v->text);
      else if (strcmp(field, "skip_nulls") == 0)
        specs[i].skip_nulls = (int32_t)x;
      else if (strcmp(field, "min_count") == 0)
        specs[i].min_count = (uint32_t)x;
      else if (strcmp(field, "ddof") == 0)
        specs[i].ddof = (int32_t)x;
      else
        return problem(r, "group_by option %s", field);
    }
  }
  r->fname = "am_group_by";
  r->rc = am_group_by((const am_array *const *)c->in->arrays, k,
                      (const am_array *const *)c->in->arrays + k, c->in->n_arrays - k, specs,
                      (int64_t)aggs->count, keys_out, results);
  /* The cells in test_conformance.py's order: the keys, then per aggregate its values
   * (and max for min_max, offsets for list and distinct). */
  am_array **out = arrays(r, 0);
  for (int64_t i = 0; i < k; i++) out[r->n++] = keys_out[i];
  for (size_t i = 0; i < aggs->count; i++) {
    const char *name = aggs->items[i]->items[1]->text;
    out[r->n++] = results[i].values;
    if (strcmp(name, "min_max") == 0) out[r->n++] = results[i].max;
    if (strcmp(name, "list") == 0 || strcmp(name, "distinct") == 0)
      out[r->n++] = results[i].offsets;
  }
  return 0;
}

static int call_join(const cr_call *c, cr_result *r) {
  static const char *const types[] = {"inner",     "left outer", "right outer", "full outer",
                                      "left semi", "left anti",  "right semi",  "right anti"};
  int jt = index_of(pstr(c, "join_type"), types, 8);
  int64_t k = pint(c, "n_keys", 0);
  if (jt < 0 || k < 1 || 2 * k != c->in->n_arrays)
    return problem(r, "join %s", pstr(c, "join_type"));
  am_array **out = arrays(r, 2);
  r->fname = "am_join_indices";
  r->rc = am_join_indices((const am_array *const *)c->in->arrays,
                          (const am_array *const *)c->in->arrays + k, k, (am_join_type)jt, &out[0],
                          &out[1]);
  return 0;
}

/* ---- strings and temporal fields ------------------------------------------------------- */

static int call_string(const cr_call *c, cr_result *r, int family, int op) {
  if (family == AM_FAMILY_STRING_SLICE) {
    const json *stop = json_get(c->params, "stop");
    int64_t s = AM_SLICE_NO_STOP;
    if (stop && stop->kind != JSON_NULL && !json_to_i64(stop, &s))
      return problem(r, "stop %s", "?");
    r->fname = "am_utf8_slice_codeunits";
    r->rc = am_utf8_slice_codeunits(arg(c, 0), pint(c, "start", 0), s, pint(c, "step", 1),
                                    one_array(r));
    return 0;
  }
  const json *pattern = json_get(c->params, "pattern");
  if (!pattern) pattern = json_get(c->params, "characters");
  const char *hex = pstr(c, "pattern_hex"); /* bytes that are not UTF-8 */
  char bytes[64];
  size_t n = hex ? strlen(hex) / 2 : 0;
  if (hex && (strlen(hex) % 2 || n > sizeof bytes)) return problem(r, "pattern_hex %s", hex);
  for (size_t k = 0; k < n; k++) {
    unsigned byte;
    if (sscanf(hex + 2 * k, "%2x", &byte) != 1) return problem(r, "pattern_hex %s", hex);
    bytes[k] = (char)byte;
  }
  const int flags = pbool(c, "ignore_case", 0) ? AM_STRING_IGNORE_CASE : 0;
  r->fname = "am_string_function";
  r->rc = am_string_function((am_string_op)op, arg(c, 0),
                             hex       ? bytes
                             : pattern ? pattern->text
                                       : NULL,
                             hex       ? (int64_t)n
                             : pattern ? (int64_t)pattern->text_len
                                       : 0,
                             flags, one_array(r));
  return 0;
}

/* binary_join_element_wise: the inputs are the values, then the separator array
 * unless params.separator holds it (a text, or null for a null separator). */
static int call_string_join(const cr_call *c, cr_result *r) {
  static const char *const modes[] = {"emit_null", "skip", "replace"};
  const json *sep = json_get(c->params, "separator");
  const json *rep = json_get(c->params, "null_replacement");
  int n = c->in->n - (sep ? 0 : 1), mode = index_of(pstr(c, "null_handling"), modes, 3);
  if (mode < 0 || n < 0) return problem(r, "join %s", "params");
  const am_array *values[CR_MAX_INPUTS] = {0};
  for (int k = 0; k < n; k++) values[k] = arg(c, k);
  const int text = sep && sep->kind == JSON_STRING;
  r->fname = "am_binary_join_element_wise";
  r->rc = am_binary_join_element_wise(
      values, n, sep ? NULL : arg(c, n), text ? sep->text : NULL, text ? (int64_t)sep->text_len : 0,
      mode, rep ? rep->text : NULL, rep ? (int64_t)rep->text_len : 0, one_array(r));
  return 0;
}

/* split_pattern and the whitespace splits: params pattern (split_pattern's), max_splits
 * (null: none, -1) and reverse; the results are the lists' items and offsets. */
static int call_string_split(const cr_call *c, cr_result *r, int op) {
  const json *pattern = json_get(c->params, "pattern");
  const json *most = json_get(c->params, "max_splits");
  int64_t max_splits = -1;
  if (most && most->kind != JSON_NULL && !json_to_i64(most, &max_splits))
    return problem(r, "max_splits %s", "?");
  am_array **out = arrays(r, 2);
  r->fname = "am_string_split";
  r->rc = am_string_split((am_split_op)op, arg(c, 0), pattern ? pattern->text : NULL,
                          pattern ? (int64_t)pattern->text_len : 0, max_splits,
                          pbool(c, "reverse", 0), &out[0], &out[1]);
  return 0;
}

/* floor/ceil/round_temporal: params multiple, unit (a CalendarUnit name) and the three
 * flags, as RoundTemporalOptions (temporal_cases.round_params). */
static int call_round_temporal(const cr_call *c, cr_result *r, int op) {
  static const char *const units[] = {"nanosecond", "microsecond", "millisecond", "second",
                                      "minute",     "hour",        "day",         "week",
                                      "month",      "quarter",     "year"};
  am_round_temporal_options o = {
      .multiple = (int32_t)pint(c, "multiple", 1),
      .unit = index_of(pstr(c, "unit"), units, 11),
      .week_starts_monday = pbool(c, "week_starts_monday", 1),
      .ceil_is_strictly_greater = pbool(c, "ceil_is_strictly_greater", 0),
      .calendar_based_origin = pbool(c, "calendar_based_origin", 0),
  };
  if (o.unit < 0) return problem(r, "unit %s", pstr(c, "unit"));
  r->fname = "am_round_temporal";
  r->rc = am_round_temporal((am_round_temporal_op)op, arg(c, 0), &o, one_array(r));
  return 0;
}

/* strptime (params format, unit "s" ... "ns", error_is_null) and strftime (format, in
 * the "C" locale). */
static int call_strptime(const cr_call *c, cr_result *r) {
  static const char *const units[] = {"s", "ms", "us", "ns"};
  static const am_type types[] = {AM_TIMESTAMP_S, AM_TIMESTAMP_MS, AM_TIMESTAMP_US,
                                  AM_TIMESTAMP_NS};
  int u = index_of(pstr(c, "unit"), units, 4);
  if (u < 0 || !pstr(c, "format")) return problem(r, "strptime unit %s", pstr(c, "unit"));
  r->fname = "am_strptime";
  r->rc = am_strptime(arg(c, 0), pstr(c, "format"), types[u], pbool(c, "error_is_null", 0),
                      one_array(r));
  return 0;
}

static int call_strftime(const cr_call *c, cr_result *r) {
  if (!pstr(c, "format")) return problem(r, "strftime %s", "format");
  r->fname = "am_strftime";
  r->rc = am_strftime(arg(c, 0), pstr(c, "format"), "C", one_array(r));
  return 0;
}

/* ---- dictionary arrays (dictionary_cases.call) ------------------------------------------ */

/* concat (form "arrays"), and value_counts of form "chunked": the chunks joined by
 * am_concat, then am_value_counts (the library's answer, the divergence
 * chunked-dictionary-counts). */
static int call_concat(const cr_call *c, cr_result *r) {
  r->fname = "am_concat";
  r->rc = am_concat((const am_array *const *)c->in->arrays, c->in->n_arrays, NULL, one_array(r));
  if (r->rc != AM_OK || strcmp(c->op, "concat") == 0) return 0;
  am_array *joined = r->arrays[0];
  am_array **out = arrays(r, 2);
  out[0] = NULL;
  r->fname = "am_value_counts";
  r->rc = am_value_counts(joined, &out[0], &out[1]);
  am_release(joined);
  return 0;
}

/* dictionary_from_arrays: am_import of the dictionary array Arrow C++ assembles from
 * the case's two input entries (indices, then dictionary), whose index check is
 * am_import's. Indices that are not integers (pyarrow makes no such dictionary
 * array) are integers of their width, the format then written over, for am_import
 * to refuse by it (dictionary_cases.POSING_AS). */
static int call_from_arrays(const cr_call *c, cr_result *r) {
  const json *inputs = json_get(c->c, "inputs");
  const json *indices = inputs && inputs->count == 2 ? inputs->items[0] : NULL;
  const cr_type *t = cr_type_named(json_string(indices, "type"));
  if (!t) return problem(r, "%s: not an indices and a dictionary input", c->op);
  int posing = t->kind == CR_BOOL ? 1 : t->kind == CR_FLOAT ? t->width : 0;
  struct ArrowSchema schema;
  struct ArrowArray array;
  char err[256];
  if (cr_read_dictionary(indices, inputs->items[1], t, posing, pbool(c, "ordered", 0), c->store,
                         &schema, &array, err, sizeof err))
    return problem(r, "%s", err);
  /* Arrow C++'s release frees the format it exported, not this pointer: the type
   * table's literal outlives the struct. */
  if (posing) schema.format = t->format;
  cr_count_releases(&array, &r->import_counter);
  r->fname = "am_import";
  r->rc = am_import(&schema, &array, c->device, one_array(r));
  schema.release(&schema);
  if (array.release) {
    array.release(&array);
    return problem(r, "%s", "am_import did not mark the moved ArrowArray released");
  }
  if (r->rc != AM_OK && r->import_counter.count != 1)
    return problem(r, "%s", "a refused am_import did not release the array");
  return 0;
}

/* Whether the case expects a dictionary result as the fields indices and dictionary
 * (then counts, for value_counts). */
static int wants_dictionary_fields(const cr_call *c) {
  const json *fields = json_get(json_get(c->c, "expected"), "fields");
  return json_get(fields, "indices") && json_get(fields, "dictionary");
}

/* A dictionary result as its fields (dictionary_cases._split): its export is Arrow's
 * dictionary array, valid and of the expected ordered flag, whose indices are
 * imported back onto the device into out[0]; out[1] is am_dictionary's, the same
 * values as the export's dictionary. */
static int dictionary_fields(const cr_call *c, am_array *whole, am_array **out, cr_result *r) {
  struct ArrowSchema schema, is, ds, want_schema;
  struct ArrowArray array, ia, da, want;
  char err[256];
  if (am_export(whole, &schema, &array) != AM_OK)
    return problem(r, "am_export of the dictionary array: %s", am_last_error());
  if (cr_validate_full(&schema, &array, err, sizeof err)) {
    if (array.release) array.release(&array);
    if (schema.release) schema.release(&schema);
    return problem(r, "the exported dictionary array does not validate: %s", err);
  }
  int ordered = json_bool(json_get(json_get(json_get(c->c, "expected"), "fields"), "dictionary"),
                          "ordered", 0);
  int exported_ordered = (schema.flags & ARROW_FLAG_DICTIONARY_ORDERED) != 0;
  if (cr_split_dictionary(&schema, &array, &is, &ia, &ds, &da, err, sizeof err))
    return problem(r, "%s", err);
  int bad = 0;
  if (exported_ordered != ordered) {
    bad = problem(r, "exported ordered=%s", exported_ordered ? "true" : "false");
  } else if (am_dictionary(whole, &out[1]) != AM_OK) {
    bad = problem(r, "am_dictionary: %s", am_last_error());
  } else if (am_export(out[1], &want_schema, &want) != AM_OK) {
    bad = problem(r, "am_export of am_dictionary: %s", am_last_error());
  } else {
    const cr_type *t = cr_type_of_format(ds.format);
    cr_column got_col = {t, &da}, want_col = {t, &want};
    char a[65], b[65];
    if (!t || t != cr_type_of_format(want_schema.format)) {
      bad = problem(r, "the exported dictionary has format %s", ds.format);
    } else {
      cr_digest(&got_col, a);
      cr_digest(&want_col, b);
      if (strcmp(a, b) != 0) bad = problem(r, "%s", "exported dictionary differs");
    }
    want.release(&want);
    want_schema.release(&want_schema);
  }
  da.release(&da);
  ds.release(&ds);
  if (!bad && am_import(&is, &ia, c->device, &out[0]) != AM_OK)
    bad = problem(r, "am_import of the indices: %s", am_last_error());
  if (ia.release) ia.release(&ia);
  is.release(&is);
  return bad;
}

/* The call's dictionary result (and value_counts' counts) replaced by its fields. */
static int split_dictionary_result(const cr_call *c, cr_result *r) {
  am_array *whole = r->arrays[0], *counts = r->n == 2 ? r->arrays[1] : NULL;
  am_array **out = arrays(r, counts ? 3 : 2);
  out[0] = out[1] = NULL;
  out[2] = counts;
  int bad = whole ? dictionary_fields(c, whole, out, r) : problem(r, "%s", "no result handle");
  am_release(whole);
  return bad;
}

/* ---- time zones ---------------------------------------------------------------------------- */

/* AssumeTimezoneOptions' ambiguous / nonexistent name as am_assume_choice; -1 if none. */
static int assume_choice(const char *name) {
  static const char *const names[] = {"raise", "earliest", "latest"};
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, names[i]) == 0) return i;
  return -1;
}

static int call_assume_timezone(const cr_call *c, cr_result *r) {
  const char *zone = pstr(c, "timezone");
  int ambiguous = assume_choice(pstr(c, "ambiguous")),
      nonexistent = assume_choice(pstr(c, "nonexistent"));
  if (!zone || ambiguous < 0 || nonexistent < 0)
    return problem(r, "assume_timezone params %s", "timezone, ambiguous, nonexistent");
  r->fname = "am_assume_timezone";
  r->rc = am_assume_timezone(arg(c, 0), zone, (am_assume_choice)ambiguous,
                             (am_assume_choice)nonexistent, one_array(r));
  return 0;
}

/* ---- the table ---------------------------------------------------------------------------- */

int cr_case_is_scalar(const char *op) {
  const function_row *row = function_named(op);
  if (!row) return 0;
  return row->family == AM_FAMILY_REDUCE || row->family == AM_FAMILY_COUNT ||
         row->family == AM_FAMILY_AGGREGATE || row->family == AM_FAMILY_COUNT_DISTINCT;
}

/* The ops named by the case format rather than by a function of the list. */
static const char *const FORMAT_OPS[] = {"compare",           "arith",  "not",
                                         "group_by",          "join",   "slice",
                                         "dictionary_decode", "concat", "dictionary_from_arrays"};
#define N_FORMAT_OPS (int)(sizeof FORMAT_OPS / sizeof FORMAT_OPS[0])

/* The families cr_run_call has a call for (group_by's hash_* aggregates are not ops). */
static const int FAMILIES[] = {AM_FAMILY_REDUCE,
                               AM_FAMILY_COUNT,
                               AM_FAMILY_AGGREGATE,
                               AM_FAMILY_UNARY,
                               AM_FAMILY_BINARY,
                               AM_FAMILY_LOGIC,
                               AM_FAMILY_CAST,
                               AM_FAMILY_FILTER,
                               AM_FAMILY_TAKE,
                               AM_FAMILY_PREDICATE,
                               AM_FAMILY_FILL_NULL,
                               AM_FAMILY_COALESCE,
                               AM_FAMILY_IF_ELSE,
                               AM_FAMILY_DROP_NULL,
                               AM_FAMILY_FILL_NULL_DIRECTION,
                               AM_FAMILY_ROUND,
                               AM_FAMILY_PAIRWISE_DIFF,
                               AM_FAMILY_CUMULATIVE,
                               AM_FAMILY_SET_LOOKUP,
                               AM_FAMILY_UNIQUE,
                               AM_FAMILY_VALUE_COUNTS,
                               AM_FAMILY_COUNT_DISTINCT,
                               AM_FAMILY_DICTIONARY_ENCODE,
                               AM_FAMILY_MODE,
                               AM_FAMILY_QUANTILE,
                               AM_FAMILY_TDIGEST,
                               AM_FAMILY_SORT_INDICES,
                               AM_FAMILY_SELECT_K,
                               AM_FAMILY_RANK,
                               AM_FAMILY_PARTITION_NTH,
                               AM_FAMILY_TEMPORAL_FIELD,
                               AM_FAMILY_STRING,
                               AM_FAMILY_STRING_SLICE,
                               AM_FAMILY_STRING_JOIN,
                               AM_FAMILY_STRPTIME,
                               AM_FAMILY_STRFTIME,
                               AM_FAMILY_STRING_SPLIT,
                               AM_FAMILY_ASSUME_TIMEZONE,
                               AM_FAMILY_ROUND_TEMPORAL,
                               AM_FAMILY_ZONE};

int cr_has_call(const char *op) {
  if (index_of(op, FORMAT_OPS, N_FORMAT_OPS) >= 0) return 1;
  const function_row *row = function_named(op);
  for (size_t i = 0; row && i < sizeof FAMILIES / sizeof FAMILIES[0]; i++)
    if (FAMILIES[i] == row->family) return 1;
  return 0;
}

static int run_call(const cr_call *c, cr_result *r) {
  /* Ops named by the case format, not by a function of the list. */
  if (strcmp(c->op, "concat") == 0 || strcmp(c->form, "chunked") == 0) return call_concat(c, r);
  if (strcmp(c->op, "dictionary_from_arrays") == 0) return call_from_arrays(c, r);
  if (strcmp(c->op, "dictionary_decode") == 0) {
    r->fname = "am_dictionary_decode";
    r->rc = am_dictionary_decode(arg(c, 0), one_array(r));
    return 0;
  }
  if (strcmp(c->op, "compare") == 0) return call_compare(c, r);
  if (strcmp(c->op, "arith") == 0) return call_arith(c, r);
  if (strcmp(c->op, "not") == 0) return call_logic(c, r, AM_LOGIC_NOT);
  if (strcmp(c->op, "group_by") == 0) return call_group_by(c, r);
  if (strcmp(c->op, "join") == 0) return call_join(c, r);
  if (strcmp(c->op, "slice") == 0) {
    r->fname = "am_slice";
    r->rc = am_slice(arg(c, 0), pint(c, "offset", 0), pint(c, "length", 0), one_array(r));
    return 0;
  }
  const function_row *row = function_named(c->op);
  if (!row) return problem(r, "no call for op %s", c->op);
  int op = row->op;
  switch (row->family) {
    case AM_FAMILY_REDUCE:
      return call_reduce(c, r, op);
    case AM_FAMILY_COUNT:
      return call_count(c, r);
    case AM_FAMILY_AGGREGATE:
      return call_aggregate(c, r, op);
    case AM_FAMILY_UNARY:
      r->fname = "am_unary";
      r->rc = am_unary((am_unary_op)op, arg(c, 0), one_array(r));
      return 0;
    case AM_FAMILY_BINARY:
      return call_binary(c, r, op);
    case AM_FAMILY_LOGIC:
      return call_logic(c, r, op);
    case AM_FAMILY_CAST:
      return call_cast(c, r);
    case AM_FAMILY_FILTER:
      return call_filter(c, r);
    case AM_FAMILY_TAKE:
      r->fname = "am_take";
      r->rc = am_take(arg(c, 0), arg(c, 1), one_array(r));
      return 0;
    case AM_FAMILY_PREDICATE:
      r->fname = "am_is";
      r->rc = am_is((am_predicate)op, pbool(c, "nan_is_null", 0) ? AM_NAN_IS_NULL : 0, arg(c, 0),
                    one_array(r));
      return 0;
    case AM_FAMILY_FILL_NULL:
      r->fname = "am_fill_null";
      r->rc =
          am_fill_null(arg(c, 0), c->in->n_scalars ? NULL : arg(c, 1), sarg(c, 0), one_array(r));
      return 0;
    case AM_FAMILY_COALESCE:
      return call_coalesce(c, r);
    case AM_FAMILY_IF_ELSE:
      return call_if_else(c, r);
    case AM_FAMILY_DROP_NULL:
      r->fname = "am_drop_null";
      r->rc = am_drop_null(arg(c, 0), one_array(r));
      return 0;
    case AM_FAMILY_FILL_NULL_DIRECTION:
      r->fname = "am_fill_null_direction";
      r->rc = am_fill_null_direction((am_fill_direction)op, arg(c, 0), one_array(r));
      return 0;
    case AM_FAMILY_ROUND:
      return call_round(c, r, op);
    case AM_FAMILY_PAIRWISE_DIFF:
      r->fname = "am_pairwise_diff";
      r->rc = am_pairwise_diff((am_pairwise_op)op, arg(c, 0), pint(c, "period", 1), one_array(r));
      return 0;
    case AM_FAMILY_CUMULATIVE:
      r->fname = "am_cumulative";
      r->rc = am_cumulative((am_cumulative_op)op, arg(c, 0), sarg(c, 0), pbool(c, "skip_nulls", 0),
                            one_array(r));
      return 0;
    case AM_FAMILY_SET_LOOKUP:
    case AM_FAMILY_UNIQUE:
    case AM_FAMILY_VALUE_COUNTS:
    case AM_FAMILY_COUNT_DISTINCT:
    case AM_FAMILY_DICTIONARY_ENCODE:
    case AM_FAMILY_MODE:
      return call_hash(c, r, row->family, op);
    case AM_FAMILY_QUANTILE:
      return call_quantile(c, r);
    case AM_FAMILY_TDIGEST:
      return call_tdigest(c, r, op);
    case AM_FAMILY_SORT_INDICES:
    case AM_FAMILY_SELECT_K:
    case AM_FAMILY_RANK:
    case AM_FAMILY_PARTITION_NTH:
      return call_sort(c, r, row->family, op);
    case AM_FAMILY_TEMPORAL_FIELD:
      r->fname = "am_temporal_field";
      r->rc = am_temporal_field((am_temporal_field_op)op, arg(c, 0), (int)pint(c, "week_start", 1),
                                pbool(c, "count_from_zero", 1), one_array(r));
      return 0;
    case AM_FAMILY_STRING:
    case AM_FAMILY_STRING_SLICE:
      return call_string(c, r, row->family, op);
    case AM_FAMILY_STRING_JOIN:
      return call_string_join(c, r);
    case AM_FAMILY_STRPTIME:
      return call_strptime(c, r);
    case AM_FAMILY_STRFTIME:
      return call_strftime(c, r);
    case AM_FAMILY_STRING_SPLIT:
      return call_string_split(c, r, op);
    case AM_FAMILY_ASSUME_TIMEZONE:
      return call_assume_timezone(c, r);
    case AM_FAMILY_ROUND_TEMPORAL:
      return call_round_temporal(c, r, op);
    case AM_FAMILY_ZONE:
      r->fname = "am_zone_function";
      r->rc = am_zone_function((am_zone_op)op, arg(c, 0), one_array(r));
      return 0;
    default:
      return problem(r, "no call for op %s", c->op);
  }
}

int cr_run_call(const cr_call *c, cr_result *r) {
  memset(r, 0, sizeof *r);
  for (int i = 0; i < 2; i++) {
    r->scalars[i].type = CR_SENTINEL_TYPE;
    r->scalars[i].is_null = 77;
  }
  if (run_call(c, r)) return -1;
  return r->rc == AM_OK && wants_dictionary_fields(c) ? split_dictionary_result(c, r) : 0;
}

void cr_result_release(cr_result *r) {
  if (r->kind == CR_OUT_SCALARS) return;
  for (int i = 0; i < r->n; i++) am_release(r->arrays[i]);
  r->n = 0;
}
