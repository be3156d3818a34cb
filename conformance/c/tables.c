/* The checks of the two table ops (groupby_cases.check, join_cases.check): their
 * results come in an order of the library's choosing, so rows are sorted before
 * they are compared. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow_bridge.h"
#include "checks.h"

/* One column of group rows: a plain array, a (min, max) pair of arrays, or lists
 * (items and offsets). */
typedef struct {
  const cr_type *type;
  int kind; /* 0 plain, 1 struct, 2 list */
  cr_column parts[2];
  const int32_t *offsets; /* list: groups + 1 of them */
  int tolerant;
} group_column;

/* Arrays kept alive while the columns are read. */
typedef struct {
  struct ArrowSchema schema[2 * CR_MAX_OUT];
  struct ArrowArray array[2 * CR_MAX_OUT];
  int n;
} keeper;

static void keeper_release(keeper *k) {
  for (int i = 0; i < k->n; i++) {
    if (k->array[i].release) k->array[i].release(&k->array[i]);
    if (k->schema[i].release) k->schema[i].release(&k->schema[i]);
  }
  k->n = 0;
}

static int export_kept(keeper *k, const am_array *h, cr_column *col, char *msg, size_t size) {
  char err[256];
  if (k->n == 2 * CR_MAX_OUT) return cr_fail(msg, size, "too many arrays");
  struct ArrowSchema *s = &k->schema[k->n];
  struct ArrowArray *a = &k->array[k->n];
  memset(s, 0, sizeof *s);
  memset(a, 0, sizeof *a);
  k->n++;
  if (am_export(h, s, a) != AM_OK) return cr_fail(msg, size, "am_export: %s", am_last_error());
  if (cr_validate_full(s, a, err, sizeof err))
    return cr_fail(msg, size, "does not validate: %s", err);
  col->type = cr_type_of_format(s->format);
  col->array = a;
  return col->type != NULL || cr_fail(msg, size, "exported with format %s", s->format);
}

static int read_kept(keeper *k, cr_store *store, const json *ref, cr_column *col, int list,
                     char *msg, size_t size) {
  char err[256];
  if (k->n == 2 * CR_MAX_OUT) return cr_fail(msg, size, "too many arrays");
  struct ArrowSchema *s = &k->schema[k->n];
  struct ArrowArray *a = &k->array[k->n];
  memset(s, 0, sizeof *s);
  memset(a, 0, sizeof *a);
  k->n++;
  if (cr_store_read(store, ref, s, a, err, sizeof err)) return cr_fail(msg, size, "%s", err);
  if (list) { /* a list array: its child holds the items */
    if (strcmp(s->format, "+l") != 0 || a->n_children != 1)
      return cr_fail(msg, size, "not a list array");
    col->type = cr_type_of_format(s->children[0]->format);
    col->array = a->children[0];
    return col->type != NULL || cr_fail(msg, size, "list of format %s", s->children[0]->format);
  }
  col->type = cr_type_of_format(s->format);
  col->array = a;
  return col->type != NULL || cr_fail(msg, size, "array of format %s", s->format);
}

/* A dictionary column's check (groupby_cases: its cells are indices): the export
 * kept at `at` has a dictionary of the values `ref` (an index entry {"type",
 * "array"}) names. */
static int same_dictionary(keeper *k, int at, cr_store *store, const json *ref, const char *name,
                           char *msg, size_t size) {
  const struct ArrowSchema *s = &k->schema[at];
  const struct ArrowArray *a = &k->array[at];
  if (!s->dictionary || !a->dictionary)
    return cr_fail(msg, size, "%s: exported without a dictionary", name);
  cr_column got = {cr_type_of_format(s->dictionary->format), a->dictionary}, want;
  if (!read_kept(k, store, json_get(ref, "array"), &want, 0, msg, size)) return 0;
  if (got.type != want.type)
    return cr_fail(msg, size, "%s: dictionary of format %s", name, s->dictionary->format);
  if (cr_length(&got) != cr_length(&want))
    return cr_fail(msg, size, "%s: a dictionary of %lld values, expected %lld", name,
                   (long long)cr_length(&got), (long long)cr_length(&want));
  for (int64_t i = 0; i < cr_length(&got); i++)
    if (!cr_same(got.type, cr_get(&got, i), cr_get(&want, i), 1, 0))
      return cr_fail(msg, size, "%s: dictionary value %lld differs", name, (long long)i);
  return 1;
}

static int64_t group_count(const group_column *g) {
  return g->kind == 2 ? cr_length(&g->parts[1]) - 1 : cr_length(&g->parts[0]);
}

/* Sorting rows by their keys (the first n_keys columns) with the runner's total
 * order; ties keep their order. */
typedef struct {
  const group_column *cols;
  int n_keys;
} row_order;

static _Thread_local row_order sorting;

static int compare_rows(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  for (int k = 0; k < sorting.n_keys; k++) {
    const cr_column *col = &sorting.cols[k].parts[0];
    int c = cr_order(col->type, cr_get(col, a), cr_get(col, b));
    if (c) return c;
  }
  return (a > b) - (a < b);
}

static int64_t *sorted_rows(const group_column *cols, int n_keys, int64_t groups) {
  int64_t *rows = malloc(sizeof(int64_t) * (size_t)(groups + 1));
  if (!rows) return NULL;
  for (int64_t g = 0; g < groups; g++) rows[g] = g;
  sorting.cols = cols;
  sorting.n_keys = n_keys;
  qsort(rows, (size_t)groups, sizeof *rows, compare_rows);
  return rows;
}

static _Thread_local const cr_column *item_column;

static int compare_items(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  int c = cr_order(item_column->type, cr_get(item_column, a), cr_get(item_column, b));
  return c ? c : (a > b) - (a < b);
}

/* A group's list items as slot numbers; sorted for distinct (its order is free). */
static int64_t list_items(const group_column *g, int64_t row, int sort, int64_t *out) {
  int64_t base = g->parts[1].array->offset, lo = g->offsets[base + row],
          hi = g->offsets[base + row + 1];
  for (int64_t i = lo; i < hi; i++) out[i - lo] = i;
  if (sort) {
    item_column = &g->parts[0];
    qsort(out, (size_t)(hi - lo), sizeof *out, compare_items);
  }
  return hi - lo;
}

static int close_enough(const cr_type *t, cr_value a, cr_value b, double rel, int tolerant) {
  if (cr_same(t, a, b, 1, 0)) return 1;
  if (!tolerant || t->kind != CR_FLOAT || a.null || b.null) return 0;
  return fabs(a.f - b.f) <= rel * fmax(fabs(a.f), fabs(b.f));
}

static int same_cell(const group_column *got, int64_t gr, const group_column *want, int64_t wr,
                     double rel, int distinct, int64_t *scratch) {
  const cr_type *t = want->type;
  if (want->kind == 0)
    return close_enough(t, cr_get(&got->parts[0], gr), cr_get(&want->parts[0], wr), rel,
                        want->tolerant);
  if (want->kind == 1) {
    for (int p = 0; p < 2; p++)
      if (!cr_same(t, cr_get(&got->parts[p], gr), cr_get(&want->parts[p], wr), 1, 0)) return 0;
    return 1;
  }
  int64_t n = list_items(got, gr, distinct, scratch);
  int64_t m = list_items(want, wr, distinct, scratch + n);
  if (n != m) return 0;
  for (int64_t i = 0; i < n; i++)
    if (!cr_same(t, cr_get(&got->parts[0], scratch[i]), cr_get(&want->parts[0], scratch[n + i]), 1,
                 0))
      return 0;
  return 1;
}

static int is_tolerant(const char *name) {
  static const char *const names[] = {"sum", "product", "mean", "variance", "stddev"};
  for (size_t i = 0; name && i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i]) == 0) return 1;
  return 0;
}

int cr_check_groups(const cr_call *c, const cr_result *r, const json *exp, char *msg, size_t size) {
  const json *columns = json_get(exp, "columns");
  const json *aggs = json_get(c->params, "aggregates");
  int n_keys = (int)json_int(exp, "sorted_by_keys", 0);
  int n = (int)columns->count, next = 0, ok = 1;
  if (n > CR_MAX_OUT || !aggs || (size_t)n != (size_t)n_keys + aggs->count)
    return cr_fail(msg, size, "columns do not match the keys and aggregates");
  group_column got[CR_MAX_OUT], want[CR_MAX_OUT];
  keeper kept = {0};
  memset(got, 0, sizeof got);
  memset(want, 0, sizeof want);
  int64_t groups = json_int(exp, "groups", -1), max_items = 0;
  for (int i = 0; i < n && ok; i++) {
    const json *col = columns->items[i];
    const char *kind = json_string(col, "kind") ? json_string(col, "kind") : "";
    const cr_type *t = cr_type_named(json_string(col, "type"));
    if (!t) {
      ok = cr_fail(msg, size, "column %d: unknown type", i);
      break;
    }
    int k = strcmp(kind, "plain") == 0 ? 0 : strcmp(kind, "struct") == 0 ? 1 : 2;
    const char *agg = i < n_keys ? NULL : aggs->items[i - n_keys]->items[1]->text;
    want[i].type = got[i].type = t;
    want[i].kind = got[i].kind = k;
    want[i].tolerant = got[i].tolerant = is_tolerant(agg);
    int parts = k == 0 ? 1 : 2;
    if (next + parts > r->n) return cr_fail(msg, size, "fewer results than columns");
    if (r->arrays[next] == NULL || am_array_device(r->arrays[next]) != c->device)
      ok =
          cr_fail(msg, size, "%s: no result, or not on the keys' device", json_string(col, "name"));
    const int first_export = kept.n;
    for (int p = 0; ok && p < parts; p++)
      ok = r->arrays[next + p] &&
           export_kept(&kept, r->arrays[next + p], &got[i].parts[p], msg, size);
    next += parts;
    if (ok && groups > 0 && json_get(col, "dictionary")) /* no groups: any dictionary */
      ok = same_dictionary(&kept, first_export, c->store, json_get(col, "dictionary"),
                           json_string(col, "name"), msg, size);
    if (!ok) break;
    if (k != 1 && got[i].parts[0].type != t)
      ok = cr_fail(msg, size, "%s: type %s", json_string(col, "name"), got[i].parts[0].type->name);
    if (k == 2) {
      const cr_column *off = &got[i].parts[1];
      if (off->type->type != AM_INT32 || cr_null_count(off) != 0 || cr_length(off) < 1 ||
          ((const int32_t *)off->array->buffers[1])[off->array->offset] != 0)
        ok = cr_fail(msg, size, "%s: offsets", json_string(col, "name"));
      else
        got[i].offsets = off->array->buffers[1];
      if (ok &&
          read_kept(&kept, c->store, json_get(col, "array"), &want[i].parts[0], 1, msg, size)) {
        const struct ArrowArray *lists = &kept.array[kept.n - 1];
        want[i].offsets = lists->buffers[1];
        want[i].parts[1].type = cr_type_named("int32");
        want[i].parts[1].array = lists; /* offset and length: the lists' */
        max_items += cr_length(&got[i].parts[0]) + cr_length(&want[i].parts[0]);
      } else {
        ok = 0;
      }
    } else if (k == 1) {
      const json *refs = json_get(col, "arrays");
      for (int p = 0; ok && p < 2; p++)
        ok = read_kept(&kept, c->store, refs ? refs->items[p] : NULL, &want[i].parts[p], 0, msg,
                       size);
    } else {
      ok = read_kept(&kept, c->store, json_get(col, "array"), &want[i].parts[0], 0, msg, size);
    }
  }
  for (int i = 0; ok && i < n; i++) {
    if (group_count(&got[i]) != group_count(&got[0]))
      ok = cr_fail(msg, size, "result columns of different lengths");
  }
  if (ok && group_count(&got[0]) != groups)
    ok = cr_fail(msg, size, "%lld groups, expected %lld", (long long)group_count(&got[0]),
                 (long long)groups);
  int64_t *got_rows = ok ? sorted_rows(got, n_keys, groups) : NULL;
  int64_t *want_rows = ok ? sorted_rows(want, n_keys, groups) : NULL;
  int64_t *scratch = ok ? malloc(sizeof(int64_t) * (size_t)(max_items + 1)) : NULL;
  double rel = json_number(json_get(c->c, "tolerance"), "rel", 0);
  if (ok && (!got_rows || !want_rows || !scratch)) ok = cr_fail(msg, size, "out of memory");
  for (int64_t g = 0; ok && g < groups; g++) {
    for (int i = 0; ok && i < n; i++) {
      const char *agg = i < n_keys ? NULL : aggs->items[i - n_keys]->items[1]->text;
      int distinct = agg && strcmp(agg, "distinct") == 0;
      if (!same_cell(&got[i], got_rows[g], &want[i], want_rows[g], rel, distinct, scratch))
        ok = cr_fail(msg, size, "group %lld: %s differs", (long long)g,
                     json_string(columns->items[i], "name"));
    }
  }
  free(got_rows);
  free(want_rows);
  free(scratch);
  keeper_release(&kept);
  return ok;
}

/* ---- join ----------------------------------------------------------------------------- */

static _Thread_local const cr_column *pair_columns;
static _Thread_local int pair_sides;

/* join_cases._key: per side, null first, then the index. */
static int compare_pairs(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  for (int s = 0; s < pair_sides; s++) {
    int c =
        cr_order(pair_columns[s].type, cr_get(&pair_columns[s], a), cr_get(&pair_columns[s], b));
    if (c) return c;
  }
  return (a > b) - (a < b);
}

int cr_check_pairs(const cr_call *c, const cr_result *r, const json *exp, char *msg, size_t size) {
  const json *sides = json_get(exp, "sides");
  static const char *const names[] = {"left", "right"};
  cr_column cols[2], want[2];
  int n_sides = 0, ok = 1;
  keeper kept = {0};
  for (int s = 0; s < 2 && ok; s++) {
    int present = 0;
    for (size_t i = 0; sides && i < sides->count; i++)
      present |=
          sides->items[i]->kind == JSON_STRING && strcmp(sides->items[i]->text, names[s]) == 0;
    const am_array *h = r->arrays[s];
    if (!present) {
      ok =
          h == NULL || cr_fail(msg, size, "%s indices written by a join that gives none", names[s]);
      continue;
    }
    if (!h)
      ok = cr_fail(msg, size, "no %s indices", names[s]);
    else if (am_array_device(h) != c->device)
      ok = cr_fail(msg, size, "%s indices not on the keys' device", names[s]);
    else if (!export_kept(&kept, h, &cols[n_sides], msg, size))
      ok = 0;
    else if (cols[n_sides].type->type != AM_INT64)
      ok = cr_fail(msg, size, "%s indices of type %s", names[s], cols[n_sides].type->name);
    n_sides += ok;
  }
  int64_t count = ok && n_sides ? cr_length(&cols[0]) : 0;
  if (ok && n_sides == 2 && cr_length(&cols[1]) != count)
    ok = cr_fail(msg, size, "sides of different lengths");
  if (ok && count != json_int(exp, "count", -1))
    ok = cr_fail(msg, size, "%lld rows, expected %lld", (long long)count,
                 (long long)json_int(exp, "count", -1));
  int64_t *order = ok ? malloc(sizeof(int64_t) * (size_t)(count + 1)) : NULL;
  if (ok && !order) ok = cr_fail(msg, size, "out of memory");
  if (ok) {
    for (int64_t i = 0; i < count; i++) order[i] = i;
    pair_columns = cols;
    pair_sides = n_sides;
    qsort(order, (size_t)count, sizeof *order, compare_pairs);
  }
  const json *pairs = json_get(exp, "pairs");
  if (ok && pairs) {
    for (int s = 0; ok && s < n_sides; s++)
      ok = read_kept(&kept, c->store, (size_t)s < pairs->count ? pairs->items[s] : NULL, &want[s],
                     0, msg, size);
    for (int64_t i = 0; ok && i < count; i++)
      for (int s = 0; ok && s < n_sides; s++)
        if (!cr_same(cols[s].type, cr_get(&cols[s], order[i]), cr_get(&want[s], i), 1, 0))
          ok = cr_fail(msg, size, "pair %lld differs", (long long)i);
  } else if (ok) { /* sha256 of json.dumps(pairs), the sorted [[l, r], ...] */
    sha256_ctx ctx;
    char digest[65], buf[48];
    sha256_init(&ctx);
    sha256_update(&ctx, "[", 1);
    for (int64_t i = 0; i < count; i++) {
      sha256_update(&ctx, i ? ",[" : "[", i ? 2 : 1);
      for (int s = 0; s < n_sides; s++) {
        cr_value v = cr_get(&cols[s], order[i]);
        int len = v.null ? snprintf(buf, sizeof buf, "%snull", s ? "," : "")
                         : snprintf(buf, sizeof buf, "%s%lld", s ? "," : "", (long long)v.i);
        sha256_update(&ctx, buf, (size_t)len);
      }
      sha256_update(&ctx, "]", 1);
    }
    sha256_update(&ctx, "]", 1);
    sha256_hex(&ctx, digest);
    const char *want_sha = json_string(exp, "sha256");
    if (!want_sha || strcmp(digest, want_sha) != 0)
      ok = cr_fail(msg, size, "sha256 of the sorted pairs differs");
  }
  free(order);
  keeper_release(&kept);
  return ok;
}
