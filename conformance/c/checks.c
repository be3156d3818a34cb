#include "checks.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_bridge.h"

static const char *const STATUS[] = {"AM_OK",           "AM_EINVAL",    "AM_ETYPE",
                                     "AM_EINDEX",       "AM_EOVERFLOW", "AM_EZERODIV",
                                     "AM_EUNSUPPORTED", "AM_ENOMEM",    "AM_EDEVICE"};

const char *cr_status_name(int rc) {
  return rc >= 0 && rc < (int)(sizeof STATUS / sizeof STATUS[0]) ? STATUS[rc] : "status ?";
}

int cr_status_of(const char *name) {
  for (int i = 0; name && i < (int)(sizeof STATUS / sizeof STATUS[0]); i++)
    if (strcmp(STATUS[i], name) == 0) return i;
  return -1;
}

int cr_fail(char *msg, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, size, fmt, ap);
  va_end(ap);
  return 0;
}

/* An exported result: the structs, validated, read as a column. */
typedef struct {
  struct ArrowSchema schema;
  struct ArrowArray array;
  cr_column col;
} exported;

static void exported_release(exported *e) {
  if (e->array.release) e->array.release(&e->array);
  if (e->schema.release) e->schema.release(&e->schema);
}

/* am_export of a handle, Arrow C++'s full validation, and its type. */
static int export_checked(const am_array *h, exported *e, char *msg, size_t size) {
  char err[256];
  memset(e, 0, sizeof *e);
  if (am_export(h, &e->schema, &e->array) != AM_OK)
    return cr_fail(msg, size, "am_export: %s", am_last_error());
  if (cr_validate_full(&e->schema, &e->array, err, sizeof err)) {
    exported_release(e);
    return cr_fail(msg, size, "the exported array does not validate: %s", err);
  }
  e->col.type = cr_type_of_format(e->schema.format);
  e->col.array = &e->array;
  if (!e->col.type) {
    exported_release(e);
    return cr_fail(msg, size, "exported with format %s", e->schema.format);
  }
  return 1;
}

static void show(const cr_type *t, cr_value v, char *buf, size_t size) { cr_show(t, v, buf, size); }

/* Slot i of got against slot j of want, by `same`; the first differences listed. */
typedef struct {
  int64_t bad;
  char text[400];
  size_t used;
} diffs;

static void note(diffs *d, const cr_type *t, int64_t i, cr_value got, cr_value want) {
  if (d->bad++ >= 6 || d->used >= sizeof d->text - 100) return;
  char a[80], b[80];
  show(t, got, a, sizeof a);
  show(t, want, b, sizeof b);
  d->used += (size_t)snprintf(d->text + d->used, sizeof d->text - d->used,
                              "%s[%lld] got %s want %s", d->used ? ", " : "", (long long)i, a, b);
}

/* Values compared as the case's tolerance says: {"rel", "abs"} within, {"ulps"}, or
 * exactly. `every`: compare got[i * every] with want[i] (a hashed result's sample). */
static int compare_values(const cr_type *t, const cr_column *got, const cr_column *want,
                          int64_t every, const json *tol, char *msg, size_t size) {
  diffs d = {0};
  int within = tol && json_get(tol, "rel") && t->kind == CR_FLOAT;
  double rel = json_number(tol, "rel", 0), abs_tol = json_number(tol, "abs", 0);
  int64_t ulps = json_int(tol, "ulps", 0);
  int64_t n = cr_length(want);
  for (int64_t i = 0; i < n; i++) {
    cr_value g = cr_get(got, i * every), w = cr_get(want, i);
    int ok = within ? cr_within(t, g, w, abs_tol, rel) : cr_same(t, g, w, 1, ulps);
    if (!ok) note(&d, t, i * every, g, w);
  }
  if (d.bad)
    return cr_fail(msg, size, "%lld of %lld values differ: %s", (long long)d.bad, (long long)n,
                   d.text);
  return 1;
}

/* ---- arrays --------------------------------------------------------------------------- */

static int check_rank(const cr_call *c, const json *exp, const am_array *h, char *msg, size_t size);

static int check_array(const cr_call *c, const json *exp, const am_array *h, char *msg,
                       size_t size) {
  if (json_get(exp, "check")) return check_rank(c, exp, h, msg, size);
  const cr_type *t = cr_type_named(json_string(exp, "type"));
  if (!t) return cr_fail(msg, size, "expected type %s unknown here", json_string(exp, "type"));
  cr_held want = {0};
  char err[256];
  const json *values = json_get(exp, "array");
  int64_t n, nulls;
  if (values) {
    if (cr_hold(c->store, values, t, &want, err, sizeof err)) return cr_fail(msg, size, "%s", err);
    n = cr_length(&want.col);
    nulls = cr_null_count(&want.col);
  } else {
    n = json_int(exp, "length", -1);
    nulls = json_int(exp, "null_count", -1);
  }
  int ok = 1;
  exported e = {0};
  const cr_type *got_type = cr_type_of_array(h);
  const char *fmt = am_format(h), *tz = json_string(exp, "tz");
  char want_fmt[320]; /* a timestamp's zone ("tz") ends its format */
  snprintf(want_fmt, sizeof want_fmt, "%s%s", t->format, tz ? tz : "");
  if (got_type != t)
    ok = cr_fail(msg, size, "am_array_type %s, expected %s", got_type ? got_type->name : "?",
                 t->name);
  else if (!fmt || strcmp(fmt, want_fmt) != 0)
    ok = cr_fail(msg, size, "am_format %s, expected %s", fmt ? fmt : "NULL", want_fmt);
  else if (am_array_device(h) != c->device)
    ok = cr_fail(msg, size, "am_array_device is not the input's device");
  else if (am_length(h) != n)
    ok = cr_fail(msg, size, "am_length %lld, expected %lld", (long long)am_length(h), (long long)n);
  else if (am_null_count(h) != nulls)
    ok = cr_fail(msg, size, "am_null_count %lld, expected %lld", (long long)am_null_count(h),
                 (long long)nulls);
  else if (!export_checked(h, &e, msg, size))
    ok = 0;
  else if (e.col.type != t || strcmp(e.schema.format, want_fmt) != 0 || cr_length(&e.col) != n ||
           cr_null_count(&e.col) != nulls)
    ok = cr_fail(msg, size, "exported format, length or null_count");
  if (!ok) {
    exported_release(&e);
    cr_held_release(&want);
    return 0;
  }
  const json *tol = json_get(c->c, "tolerance");
  if (values) {
    ok = compare_values(t, &e.col, &want.col, 1, tol, msg, size);
  } else {
    char sha[65];
    cr_digest(&e.col, sha);
    const char *expect = json_string(exp, "sha256");
    if (!expect || strcmp(sha, expect) != 0) {
      /* Rounding allowed (the case's tolerance): the kept sample, within it. */
      const json *sample = json_get(exp, "sample");
      const json *head = json_get(exp, "head");
      int64_t every = json_int(exp, "sample_every", 0);
      cr_held part = {0};
      if ((sample && every > 0) || head) {
        if (cr_hold(c->store, sample && every > 0 ? sample : head, t, &part, err, sizeof err))
          ok = cr_fail(msg, size, "%s", err);
        else if (sample && every > 0)
          ok = compare_values(t, &e.col, &part.col, every, tol, msg, size);
        else if (compare_values(t, &e.col, &part.col, 1, NULL, msg, size))
          ok = cr_fail(msg, size, "sha256 of the %lld values differs (first %lld agree)",
                       (long long)n, (long long)cr_length(&part.col));
        else
          ok = 0;
        cr_held_release(&part);
      } else {
        ok = cr_fail(msg, size, "sha256 of the %lld values differs", (long long)n);
      }
    }
  }
  exported_release(&e);
  cr_held_release(&want);
  return ok;
}

/* ---- rank_cases.py's property checks ---------------------------------------------------- */

/* rank_cases._sort_key: (place, number), nulls and NaN placed by at_start, -0.0 as 0.0. */
static int sort_key_cmp(const cr_type *t, cr_value a, cr_value b, int at_start) {
  int ca = a.null ? 2 : (t->kind == CR_FLOAT && isnan(a.f)) ? 1 : 0;
  int cb = b.null ? 2 : (t->kind == CR_FLOAT && isnan(b.f)) ? 1 : 0;
  int pa = at_start ? 2 - ca : ca, pb = at_start ? 2 - cb : cb;
  if (pa != pb) return (pa > pb) - (pa < pb);
  if (ca != 0) return 0;
  if (t->kind == CR_FLOAT) return (a.f > b.f) - (a.f < b.f);
  return cr_order(t, a, b);
}

static int check_rank(const cr_call *c, const json *exp, const am_array *h, char *msg,
                      size_t size) {
  int64_t n_out = json_int(exp, "length", -1);
  const cr_type *u64 = cr_type_named("uint64");
  if (cr_type_of_am(am_array_type(h)) != u64) return cr_fail(msg, size, "result type");
  if (am_array_device(h) != c->device)
    return cr_fail(msg, size, "am_array_device is not the input's device");
  if (am_length(h) != n_out)
    return cr_fail(msg, size, "am_length %lld, expected %lld", (long long)am_length(h),
                   (long long)n_out);
  if (am_null_count(h) != 0) return cr_fail(msg, size, "null indices");
  exported e, inputs[CR_MAX_INPUTS];
  int n_inputs = 0, ok = 1;
  if (!export_checked(h, &e, msg, size)) return 0;
  for (; n_inputs < c->in->n_arrays && ok; n_inputs++)
    ok = export_checked(c->in->arrays[n_inputs], &inputs[n_inputs], msg, size);
  if (!ok) n_inputs--;
  int64_t n = ok && n_inputs ? cr_length(&inputs[0].col) : 0;
  uint8_t *seen = ok ? calloc((size_t)n + 1, 1) : NULL;
  int64_t *idx = ok ? malloc(sizeof(int64_t) * (size_t)(n_out + 1)) : NULL;
  if (ok && (!seen || !idx)) ok = cr_fail(msg, size, "out of memory");
  for (int64_t j = 0; ok && j < n_out; j++) {
    uint64_t i = cr_get(&e.col, j).u;
    if (i >= (uint64_t)n)
      ok = cr_fail(msg, size, "an index out of range");
    else if (seen[i]++)
      ok = cr_fail(msg, size, "an index repeated");
    else
      idx[j] = (int64_t)i;
  }
  const char *check = json_string(exp, "check") ? json_string(exp, "check") : "";
  if (ok && strcmp(check, "key_values") == 0) {
    const json *kvs = json_get(exp, "key_values");
    for (size_t k = 0; ok && kvs && k < kvs->count && (int)k < n_inputs; k++) {
      const cr_type *t = cr_type_named(json_string(kvs->items[k], "type"));
      cr_held want;
      char err[256];
      if (cr_hold(c->store, json_get(kvs->items[k], "array"), t, &want, err, sizeof err)) {
        ok = cr_fail(msg, size, "%s", err);
        break;
      }
      diffs d = {0};
      for (int64_t j = 0; j < cr_length(&want.col) && j < n_out; j++) {
        cr_value g = cr_get(&inputs[k].col, idx[j]), w = cr_get(&want.col, j);
        if (!cr_same(t, g, w, 0, 0)) note(&d, t, j, g, w);
      }
      if (d.bad)
        ok = cr_fail(msg, size, "key %zu: %lld values at the indices differ: %s", k,
                     (long long)d.bad, d.text);
      cr_held_release(&want);
    }
  } else if (ok && strcmp(check, "partition") == 0) {
    const cr_type *t = inputs[0].col.type;
    int at_start =
        strcmp(json_string(c->params, "null_placement") ? json_string(c->params, "null_placement")
                                                        : "at_end",
               "at_start") == 0;
    int64_t p = json_int(exp, "pivot", 0);
    cr_held want;
    char err[256];
    if (n_out != n) {
      ok = cr_fail(msg, size, "not a permutation");
    } else if (p < n) {
      if (cr_hold(c->store, json_get(exp, "pivot_value"), t, &want, err, sizeof err)) {
        ok = cr_fail(msg, size, "%s", err);
      } else {
        cr_value pv = cr_get(&inputs[0].col, idx[p]);
        if (!cr_same(t, pv, cr_get(&want.col, 0), 0, 0))
          ok = cr_fail(msg, size, "element at the pivot differs");
        for (int64_t j = 0; ok && j < n; j++) {
          int cmp = sort_key_cmp(t, cr_get(&inputs[0].col, idx[j]), pv, at_start);
          if ((j < p && cmp > 0) || (j > p && cmp < 0))
            ok = cr_fail(msg, size, "not partitioned at %lld", (long long)p);
        }
        cr_held_release(&want);
      }
    }
  } else if (ok) {
    ok = cr_fail(msg, size, "unknown check %s", check);
  }
  free(seen);
  free(idx);
  exported_release(&e);
  for (int i = 0; i < n_inputs; i++) exported_release(&inputs[i]);
  return ok;
}

/* ---- scalars ---------------------------------------------------------------------------- */

static int scalar_value(const am_scalar *s, const cr_type **t, cr_value *v, char *msg,
                        size_t size) {
  memset(v, 0, sizeof *v);
  if (s->type == AM_DECIMAL128 || s->type == AM_DECIMAL256) /* i64: scale << 32 | precision */
    *t = cr_type_decimal(s->type == AM_DECIMAL128 ? 128 : 256, (int32_t)(uint32_t)s->i64,
                         (int32_t)(s->i64 >> 32));
  else
    *t = cr_type_of_am(s->type);
  if (!*t) return cr_fail(msg, size, "scalar has type code %d", s->type);
  if (s->is_null) {
    v->null = 1;
    return 1;
  }
  switch ((*t)->kind) {
    case CR_UTF8:
    case CR_BINARY:
      v->bytes = (const uint8_t *)(uintptr_t)s->u64;
      v->len = s->i64;
      break;
    case CR_DECIMAL: /* u64: the address of its bytes */
      v->bytes = (const uint8_t *)(uintptr_t)s->u64;
      v->len = (*t)->width;
      break;
    case CR_BOOL:
      if (s->i64 != 0 && s->i64 != 1)
        return cr_fail(msg, size, "bool scalar holds i64 = %lld", (long long)s->i64);
      v->i = s->i64;
      break;
    case CR_SIGNED:
      v->i = s->i64;
      break;
    case CR_UNSIGNED:
      v->u = s->u64;
      break;
    case CR_FLOAT:
      v->f = s->f64;
      break;
  }
  return 1;
}

static int check_scalar(const cr_call *c, const json *exp, const am_scalar *s, char *msg,
                        size_t size) {
  const cr_type *t;
  cr_value got;
  if (!scalar_value(s, &t, &got, msg, size)) return 0;
  if (strcmp(t->name, json_string(exp, "type") ? json_string(exp, "type") : "") != 0)
    return cr_fail(msg, size, "result type %s, expected %s", t->name, json_string(exp, "type"));
  cr_held want;
  char err[256], a[80], b[80];
  if (cr_hold(c->store, json_get(exp, "scalar"), t, &want, err, sizeof err))
    return cr_fail(msg, size, "%s", err);
  cr_value w = cr_get(&want.col, 0);
  const json *tol = json_get(c->c, "tolerance");
  const char *divergence = json_string(c->c, "divergence");
  int ok;
  show(t, got, a, sizeof a);
  show(t, w, b, sizeof b);
  if (tol && !w.null && !got.null && t->kind == CR_FLOAT && isfinite(w.f)) {
    double bound = json_number(tol, "abs", 0) + json_number(tol, "rel", 0) * fabs(w.f);
    ok = fabs(got.f - w.f) <= bound ||
         cr_fail(msg, size, "got %s, expected %s within %g", a, b, bound);
  } else {
    int zero_sign = !(divergence && strcmp(divergence, "zero-sign") == 0);
    ok = cr_same(t, got, w, zero_sign, 0) || cr_fail(msg, size, "got %s, expected %s", a, b);
  }
  cr_held_release(&want);
  return ok;
}

/* ---- errors ---------------------------------------------------------------------------- */

static int check_error(const cr_call *c, const cr_result *r, const char *want, char *msg,
                       size_t size) {
  const char *text = am_last_error();
  size_t n = strlen(r->fname);
  (void)c;
  if (r->rc != cr_status_of(want))
    return cr_fail(msg, size, "%s returned %s, expected %s: %s", r->fname, cr_status_name(r->rc),
                   want, text);
  char next = text ? text[n] : 0;
  if (!text || strncmp(text, r->fname, n) != 0 || (next >= 'a' && next <= 'z') ||
      (next >= 'A' && next <= 'Z') || (next >= '0' && next <= '9') || next == '_')
    return cr_fail(msg, size, "am_last_error() = '%s' does not start with %s", text ? text : "",
                   r->fname);
  for (int i = 0; i < r->n; i++) {
    if (r->kind == CR_OUT_SCALARS && r->scalars[i].type != CR_SENTINEL_TYPE)
      return cr_fail(msg, size, "scalar output written on failure");
    if (r->kind != CR_OUT_SCALARS && r->arrays[i] != NULL)
      return cr_fail(msg, size, "output handle written on failure");
  }
  return 1;
}

/* ---- the case ------------------------------------------------------------------------- */

int cr_check_result(const cr_call *c, const cr_result *r, char *msg, size_t size) {
  const json *exp = json_get(c->c, "expected");
  const char *error = json_string(exp, "error");
  if (error) return check_error(c, r, error, msg, size);
  if (r->rc != AM_OK)
    return cr_fail(msg, size, "%s returned %s: %s", r->fname, cr_status_name(r->rc),
                   am_last_error());
  const json *fields = json_get(exp, "fields");
  if (r->kind == CR_OUT_SCALARS) {
    if (!fields) return check_scalar(c, exp, &r->scalars[0], msg, size);
    for (size_t k = 0; k < fields->count && (int)k < r->n; k++) {
      if (!check_scalar(c, fields->items[k], &r->scalars[k], msg, size)) {
        char inner[400];
        snprintf(inner, sizeof inner, "%s", msg);
        return cr_fail(msg, size, "field '%s': %s", fields->keys[k], inner);
      }
    }
    return (int)fields->count == r->n ||
           cr_fail(msg, size, "%d results, %zu fields", r->n, fields->count);
  }
  if (r->kind == CR_OUT_ARRAY) {
    if (!r->arrays[0]) return cr_fail(msg, size, "%s returned AM_OK and no handle", r->fname);
    return check_array(c, exp, r->arrays[0], msg, size);
  }
  if (json_get(exp, "columns")) return cr_check_groups(c, r, exp, msg, size);
  if (json_get(exp, "pairs_sorted")) return cr_check_pairs(c, r, exp, msg, size);
  if (!fields || (int)fields->count != r->n)
    return cr_fail(msg, size, "%d results and no fields for them", r->n);
  for (size_t k = 0; k < fields->count; k++) {
    if (!r->arrays[k]) return cr_fail(msg, size, "field '%s': no handle", fields->keys[k]);
    if (!check_array(c, fields->items[k], r->arrays[k], msg, size)) {
      char inner[400];
      snprintf(inner, sizeof inner, "%s", msg);
      return cr_fail(msg, size, "field '%s': %s", fields->keys[k], inner);
    }
  }
  return 1;
}
