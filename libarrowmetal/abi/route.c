/* The crossover table (ARROWMETAL_ROUTES) and the moves of routed calls. */
#include "route.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Measured on the H200 machine by benchmarks/crossover.py
 * (benchmarks/results/h200-2026-11-30-run3.md and -run4.md): with the result moved back,
 * moving inputs never beat running where they live, in either direction, for
 * any op class from 1,000 to 10,000,000 rows. So the built-in table has no
 * rules; a machine with other transfer costs writes its own. */
static const char builtin_table[] = "";

enum { MAX_RULES = 64, MAX_TEXT = 4096, MAX_LINE = 1024 };

typedef struct rule {
  am_op_class op;
  char from[16]; /* backend name */
  int64_t below_rows;
  char to[16];
  /* The device the rule sends work to, opened on first use; `unusable` once
   * it failed to open (the rule then never applies). */
  _Atomic(am_device *) target;
  atomic_int unusable;
} rule;

static const char *const op_names[AM_ROUTE_CLASSES] = {
    "reduce", "compare", "arith", "cast",  "logic",
    "filter", "take",    "unary", "nulls", /* null handling */
};

static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static rule rules[MAX_RULES];
static int rule_count;
static int routing_off;
static char table_text[MAX_TEXT];

static int known_backend(const char *name) {
  for (int i = 0; i < am_backend_count(); i++)
    if (strcmp(am_backend_name(i), name) == 0) return 1;
  return 0;
}

/* Splits `line` (NUL-terminated, comment removed) into at most `max`
 * whitespace-separated fields; returns how many there were (max + 1 when
 * there were more). */
static int split(char *line, char **fields, int max) {
  int count = 0;
  char *rest = NULL;
  for (char *token = strtok_r(line, " \t\r", &rest); token;
       token = strtok_r(NULL, " \t\r", &rest)) {
    if (count == max) return max + 1;
    fields[count++] = token;
  }
  return count;
}

static int parse_rows(const char *text, int64_t *rows) {
  if (*text < '0' || *text > '9') return 0;
  errno = 0;
  char *end = NULL;
  long long value = strtoll(text, &end, 10);
  if (errno || *end) return 0;
  *rows = value;
  return 1;
}

/* Parses `text` into `table` (MAX_RULES entries) and *count; on a bad line
 * returns 0 with `why` filled. */
static int parse_into(const char *text, rule *table, int *count_out, char *why, size_t why_size) {
  int made = 0;
  *count_out = 0;
  int line_number = 0;
  const char *line = text;
  while (*line) {
    const char *end = line + strcspn(line, "\n");
    size_t length = (size_t)(end - line);
    const char *next = *end ? end + 1 : end;
    line_number++;
    char content[MAX_LINE];
    if (length >= sizeof content) {
      snprintf(why, why_size, "line %d is over %d characters", line_number, MAX_LINE - 1);
      return 0;
    }
    memcpy(content, line, length);
    content[length] = '\0';
    line = next;
    char *hash = strchr(content, '#');
    if (hash) *hash = '\0';
    char *fields[4];
    int count = split(content, fields, 4);
    if (count == 0) continue; /* blank or comment */
    int op_index = -1;
    for (int i = 0; i < AM_ROUTE_CLASSES; i++)
      if (strcmp(fields[0], op_names[i]) == 0) op_index = i;
    int64_t below = 0;
    if (count != 4 || op_index < 0 || !parse_rows(fields[2], &below) ||
        strlen(fields[1]) >= sizeof rules[0].from || strlen(fields[3]) >= sizeof rules[0].to ||
        !known_backend(fields[1]) || !known_backend(fields[3]) ||
        strcmp(fields[1], fields[3]) == 0) {
      snprintf(why, why_size,
               "line %d: expected '<op> <backend> <below rows> <other backend>' with op one of "
               "reduce compare arith cast logic filter take unary nulls",
               line_number);
      return 0;
    }
    if (made == MAX_RULES) {
      snprintf(why, why_size, "more than %d rules", MAX_RULES);
      return 0;
    }
    rule *r = &table[made++];
    *count_out = made;
    r->op = (am_op_class)op_index;
    snprintf(r->from, sizeof r->from, "%s", fields[1]);
    r->below_rows = below;
    snprintf(r->to, sizeof r->to, "%s", fields[3]);
    atomic_init(&r->target, NULL);
    atomic_init(&r->unusable, 0);
  }
  return 1;
}

/* Parses `text` into the active table. */
static int parse(const char *text, char *why, size_t why_size) {
  return parse_into(text, rules, &rule_count, why, why_size);
}

/* The file's text, or NULL when it cannot be read whole (a directory, a
 * read error, over MAX_TEXT - 1 bytes, or a NUL byte inside). */
static char *read_file(const char *path) {
  FILE *file = fopen(path, "rb");
  if (!file) return NULL;
  char *text = calloc(1, MAX_TEXT);
  size_t got = text ? fread(text, 1, MAX_TEXT - 1, file) : 0;
  int bad =
      !text || ferror(file) || (got == MAX_TEXT - 1 && fgetc(file) != EOF) || strlen(text) != got;
  fclose(file);
  if (bad) {
    free(text);
    return NULL;
  }
  return text;
}

/* Appends one "<op> <from> <below rows> <to>" line per rule to `text`
 * (`size` bytes, `used` of them taken), as much as fits. */
static void write_rules(const rule *table, int count, char *text, size_t size, size_t used) {
  for (int i = 0; i < count && used < size; i++)
    used += (size_t)snprintf(text + used, size - used, "%s %s %lld %s\n", op_names[table[i].op],
                             table[i].from, (long long)table[i].below_rows, table[i].to);
}

/* The active table as text, with where it came from, for am_routes(). */
static void describe(const char *source) {
  size_t used = (size_t)snprintf(table_text, sizeof table_text, "# %s\n", source);
  if (routing_off) return;
  write_rules(rules, rule_count, table_text, sizeof table_text, used);
}

int am_routes_parse_text(const char *text, char *rules_text, size_t rules_size, char *why,
                         size_t why_size) {
  rule table[MAX_RULES];
  int count = 0;
  if (why_size) *why = '\0';
  if (!parse_into(text, table, &count, why, why_size)) return -1;
  if (rules_size) {
    *rules_text = '\0';
    write_rules(table, count, rules_text, rules_size, 0);
  }
  return count;
}

/* Why an ARROWMETAL_ROUTES file was not used ("" when it was, or none was
 * named). Written once, under table_once. */
static char table_refused[900];

static void load_table(void) {
  const char *setting = getenv("ARROWMETAL_ROUTES");
  char why[200] = "";
  char source[600];
  if (setting && strcmp(setting, "off") == 0) {
    routing_off = 1;
    describe(
        "ARROWMETAL_ROUTES=off: every op runs where its inputs live; inputs on two devices "
        "are refused");
    return;
  }
  if (setting && *setting && strcmp(setting, "builtin") != 0) {
    char *text = read_file(setting);
    if (text && parse(text, why, sizeof why)) {
      free(text);
      snprintf(source, sizeof source, "ARROWMETAL_ROUTES=%s", setting);
      describe(source);
      return;
    }
    free(text);
    snprintf(source, sizeof source,
             "ARROWMETAL_ROUTES=%.300s not used (%.190s); the built-in table", setting,
             *why ? why
                  : "cannot read it whole: missing, a directory, over 4 KiB or holding a NUL byte");
    snprintf(table_refused, sizeof table_refused, "%s", source);
  } else {
    snprintf(source, sizeof source, "the built-in table (H200 measurement: no move paid)");
  }
  parse(builtin_table, why, sizeof why);
  describe(source);
}

AM_EXPORT const char *am_routes(void) {
  pthread_once(&table_once, load_table);
  return table_text;
}

int am_routes_check(am_err *err) {
  pthread_once(&table_once, load_table);
  return *table_refused ? am_fail(err, AM_EINVAL, "%s", table_refused) : AM_OK;
}

int am_move(am_err *err, const am_array *array, am_device *device, am_array **out) {
  if (array->device == device) {
    *out = am_array_share(array);
    return *out ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory");
  }
  /* Between two devices of one backend (two GPUs), device to device where
   * the backend can; through the host where it cannot. */
  const am_backend *backend = array->device->backend;
  if (backend == device->backend && !array->dictionary && array->type != AM_STRUCT &&
      !am_type_is_host_only(array->type)) {
    int status = backend->memory.copy_peer(err, array, device, out);
    if (status != AM_EUNSUPPORTED) return status;
  }
  am_array *host = NULL;
  int status = am_to_host(err, array, &host);
  if (status != AM_OK) return status;
  return am_place(err, host, device, out);
}

/* The device a rule sends work to: the CPU, or device 0 of a GPU backend;
 * NULL when that cannot be opened here. Opened once per rule; a failure to
 * open is not the caller's error, so it goes to an error object of its own. */
static am_device *rule_target(rule *r) {
  am_device *device = atomic_load_explicit(&r->target, memory_order_acquire);
  if (device || atomic_load_explicit(&r->unusable, memory_order_relaxed)) return device;
  char spec[32];
  snprintf(spec, sizeof spec, "%s:0", r->to);
  am_err ignored;
  am_err_init(&ignored, "routing");
  if (am_open_device(&ignored, spec, &device) == AM_OK)
    atomic_store_explicit(&r->target, device, memory_order_release);
  else
    atomic_store_explicit(&r->unusable, 1, memory_order_relaxed);
  return device;
}

static am_device *table_choice(am_op_class op, am_device *from, int64_t rows) {
  const char *backend = from->backend->name;
  for (int i = 0; i < rule_count; i++)
    if (rules[i].op == op && rows < rules[i].below_rows && strcmp(rules[i].from, backend) == 0)
      return rule_target(&rules[i]);
  return NULL;
}

int am_has_kernels(const am_device *device, uint64_t types) {
  uint64_t own = device->backend->kernel_types ? device->backend->kernel_types : am_type_all();
  return (own & types) == types;
}

int am_route_inputs(am_err *err, am_op_class op, uint64_t types, const am_array *const *inputs,
                    int count, am_route *route) {
  pthread_once(&table_once, load_table);
  memset(route, 0, sizeof *route);
  for (int i = 0; i < count; i++) route->use[i] = inputs[i];
  am_device *here = inputs[0]->device;
  am_device *target = here;
  int elsewhere = 0; /* an input on another device than the first one's */
  for (int i = 1; i < count && !elsewhere; i++)
    if (inputs[i]->device != here) elsewhere = i;
  if (elsewhere) {
    if (routing_off) return am_same_device(err, inputs[0], inputs[elsewhere]);
    /* Move the fewest bytes: run where the largest input lives, among the
     * devices with kernels for the call; on a tie a GPU, the faster kernel. */
    int best = -1;
    int64_t best_bytes = 0;
    for (int i = 0; i < count; i++) {
      if (!am_has_kernels(inputs[i]->device, types)) continue;
      int64_t bytes = am_type_bytes(inputs[i]->type, inputs[i]->length);
      if (best < 0 || bytes > best_bytes ||
          (bytes == best_bytes && inputs[best]->device == am_host_device() &&
           inputs[i]->device != am_host_device())) {
        best = i;
        best_bytes = bytes;
      }
    }
    target = best < 0 ? here : inputs[best]->device;
  } else if (!am_has_kernels(here, types)) {
    /* Host-visible memory (Metal's) is the CPU's too: the CPU runs the op
     * over it without a copy, and the result goes back. */
    if (!(here->backend->memory.caps & AM_MEMORY_HOST_VISIBLE))
      return am_fail(err, AM_EUNSUPPORTED, "%s has no kernels for these element types", here->name);
    target = am_host_device();
    route->home = here;
  } else {
    if (routing_off || rule_count == 0 || am_runtime_batch_depth() > 0) return AM_OK;
    am_device *chosen = table_choice(op, here, inputs[0]->length);
    if (!chosen || chosen == here || !am_has_kernels(chosen, types)) return AM_OK;
    target = chosen;
    route->home = here;
  }
  if (!am_has_kernels(target, types))
    return am_fail(err, AM_EUNSUPPORTED, "%s has no kernels for these element types", target->name);
  for (int i = 0; i < count; i++) {
    if (inputs[i]->device == target) continue;
    int status = am_move(err, inputs[i], target, &route->moved[i]);
    if (status != AM_OK) {
      am_route_done(route);
      return status;
    }
    route->use[i] = route->moved[i];
  }
  return AM_OK;
}

int am_route_finish(am_err *err, const am_route *route, int status, am_array *result,
                    am_array **out) {
  if (status == AM_OK && route->home && result->device != route->home) {
    am_array *back = NULL;
    status = am_move(err, result, route->home, &back);
    am_array_free(result);
    result = back;
  }
  if (status == AM_OK) *out = result;
  return status;
}

void am_route_done(am_route *route) {
  for (int i = 0; i < AM_ROUTE_MAX_INPUTS; i++) {
    am_array_free(route->moved[i]);
    route->moved[i] = NULL;
  }
}
