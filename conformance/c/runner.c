/* The conformance cases through the C ABI, from C: every case of every family's
 * index (build/conformance-ipc/NAME/index.json, written by conformance/write_ipc.py)
 * on every backend that can run in this process, its inputs and expected arrays
 * read from Arrow IPC by Arrow C++ (arrow_bridge.h), calls through
 * include/arrowmetal.h only. The same checks as conformance/run_all.py.
 *
 *     conformance_runner [-k TEXT] [--backend NAME] [DIR]
 *
 * Prints per family and in all "N passed, N failed, N skipped" and the failing case
 * IDs (backend:id); exits 1 when a case failed. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calls.h"
#include "checks.h"
#include "inputs.h"
#include "json.h"

#define MAX_BACKENDS 8
#define MAX_FAMILIES 64

typedef struct {
  long passed, failed, skipped;
} counts;

static char *read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
    free(text);
    text = NULL;
  }
  fclose(f);
  if (text) text[n] = '\0';
  *size = (size_t)n;
  return text;
}

/* A type name this runner does not read (a type a newer case file brings), or NULL. */
static const char *unknown_type(const json *entry) {
  const char *name = json_string(entry, "type");
  if (name && !cr_type_named(name)) return name;
  const json *fields = json_get(entry, "fields");
  for (size_t i = 0; fields && i < fields->count; i++)
    if ((name = unknown_type(fields->items[i])) != NULL) return name;
  const json *dictionary = json_get(entry, "dictionary");
  return dictionary ? unknown_type(dictionary) : NULL;
}

/* Whether a case holds a dictionary array (amabi.not_on_backend's test). */
static int has_dictionary(const json *c) {
  const json *inputs = json_get(c, "inputs");
  const char *op = json_string(c, "op");
  if (op && strcmp(op, "dictionary_from_arrays") == 0) return 1;
  for (size_t i = 0; inputs && i < inputs->count; i++)
    if (json_get(inputs->items[i], "dictionary")) return 1;
  return 0;
}

/* An input's type: an array's, or a scalar's ({"scalar": {"type": ...}}). */
static const cr_type *input_type(const json *input) {
  const json *scalar = json_get(input, "scalar");
  return cr_type_named(json_string(scalar ? scalar : input, "type"));
}

/* The tz database the library reads zones from (core/timezone.h): $TZDIR, else
 * /usr/share/zoneinfo; whether it is here; whether a case names one of its zones
 * (an input's "tz" or assume_timezone's "timezone", other than UTC and fixed offsets). */
static const char *tz_database(void) {
  const char *dir = getenv("TZDIR");
  return dir && *dir ? dir : "/usr/share/zoneinfo";
}

static int tz_database_here(void) {
  char path[1200];
  snprintf(path, sizeof path, "%s/America/New_York", tz_database());
  return access(path, R_OK) == 0;
}

static int names_zone(const char *zone) {
  return zone && strcmp(zone, "UTC") != 0 && zone[0] != '+' && zone[0] != '-';
}

static int needs_tz_database(const json *c) {
  const json *inputs = json_get(c, "inputs");
  int needs = strcmp(json_string(c, "op"), "assume_timezone") == 0 &&
              names_zone(json_string(json_get(c, "params"), "timezone"));
  for (size_t i = 0; !needs && inputs && i < inputs->count; i++)
    needs = names_zone(json_string(inputs->items[i], "tz"));
  return needs;
}

/* Whether a case does not run on a backend (1, the reason in `why`): what
 * amabi.not_on_backend says (dictionary arrays and decimals live only in host memory so
 * far, issue #13), and types this runner cannot read yet (a newer case file's). */
static int skipped(const json *c, const char *backend, char *why, size_t size) {
  const json *inputs = json_get(c, "inputs");
  const char *unknown = unknown_type(json_get(c, "expected"));
  for (size_t i = 0; !unknown && inputs && i < inputs->count; i++)
    unknown = unknown_type(inputs->items[i]);
  const char *to = json_string(json_get(c, "params"), "to"); /* a cast's target */
  if (!unknown && to && !cr_type_named(to)) unknown = to;
  if (unknown) {
    snprintf(why, size, "type %s is not read by the C runner yet", unknown);
    return 1;
  }
  if (!cr_has_call(json_string(c, "op"))) {
    snprintf(why, size, "no C call for op %s yet", json_string(c, "op"));
    return 1;
  }
  if (needs_tz_database(c) && !tz_database_here()) {
    snprintf(why, size, "no tz database at %s (Debian: apt-get install tzdata)", tz_database());
    return 1;
  }
  if (strcmp(backend, "cpu") == 0) return 0;
  if (has_dictionary(c)) {
    snprintf(why, size, "dictionary arrays are not on GPUs");
    return 1;
  }
  /* The inputs' types and a cast's target. */
  int decimal = 0, views = 0;
  for (size_t i = 0; inputs && i <= inputs->count; i++) {
    const cr_type *t = i < inputs->count ? input_type(inputs->items[i]) : cr_type_named(to);
    decimal |= t && t->kind == CR_DECIMAL;
    views |= t && (t->type == AM_STRING_VIEW || t->type == AM_BINARY_VIEW);
  }
  if (views)
    snprintf(why, size, "string_view and binary_view are not on GPUs");
  else if (decimal)
    snprintf(why, size, "decimals are not on GPUs yet");
  return decimal || views;
}

/* The distinct reasons for skipping, with their counts, for the summary. */
typedef struct {
  char reason[16][160];
  long count[16];
  int n;
} skip_reasons;

static void note_skip(skip_reasons *s, const char *why) {
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->reason[i], why) == 0) {
      s->count[i]++;
      return;
    }
  if (s->n == 16) return;
  snprintf(s->reason[s->n], sizeof s->reason[0], "%s", why);
  s->count[s->n++] = 1;
}

static int memory_snapshot(am_device *const *devs, int n, int64_t *out) {
  for (int i = 0; i < n; i++) {
    am_memory_stats stats;
    if (am_memory_info(devs[i], &stats) != AM_OK) return -1;
    out[i] = stats.bytes_in_use;
  }
  return 0;
}

/* One case: 1 passed, 0 failed (the reason in msg). */
static int run_case(const json *c, cr_store *store, am_device *device, am_device *const *devs,
                    int n_devs, char *msg, size_t size) {
  int64_t before[2], after[2];
  if (memory_snapshot(devs, n_devs, before)) {
    snprintf(msg, size, "am_memory_info: %s", am_last_error());
    return 0;
  }
  cr_inputs in;
  if (cr_inputs_build(&in, json_get(c, "inputs"), store, device, msg, size)) return 0;
  const json *params = json_get(c, "params");
  static const json no_params = {JSON_OBJECT, 0, NULL, 0, 0, NULL, NULL};
  cr_call call = {
      c,    params ? params : &no_params, json_string(c, "op"), json_string(c, "form"), &in, device,
      store};
  cr_result result;
  int ok;
  if (!call.op || !call.form) {
    snprintf(msg, size, "a case without op or form");
    ok = 0;
  } else if (cr_run_call(&call, &result)) {
    snprintf(msg, size, "%s", result.problem);
    ok = 0;
  } else {
    ok = cr_check_result(&call, &result, msg, size);
  }
  if (call.op && call.form) cr_result_release(&result);
  cr_inputs_release(&in);
  if (ok && !cr_inputs_released_once(&in, msg, size)) ok = 0;
  if (ok && memory_snapshot(devs, n_devs, after) == 0) {
    for (int i = 0; i < n_devs; i++)
      if (after[i] != before[i]) {
        snprintf(msg, size,
                 "memory not given back after the case: %s: %lld bytes in use, baseline %lld",
                 am_device_name(devs[i]), (long long)after[i], (long long)before[i]);
        ok = 0;
      }
  }
  return ok;
}

static int compare_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The family folders of dir (those holding an index.json), sorted. */
static int list_families(const char *dir, char **names, int max) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL && n < max;) {
    if (e->d_name[0] == '.') continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s/index.json", dir, e->d_name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    fclose(f);
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, (size_t)n, sizeof *names, compare_names);
  return n;
}

static const char *available_backends(const char **names, int max, const char **only, int n_only) {
  static char wanted_env[256];
  const char *env = getenv("ARROWMETAL_TEST_BACKENDS");
  snprintf(wanted_env, sizeof wanted_env, ",%s,", env ? env : "");
  int n = 0;
  for (int i = 0; i < am_backend_count() && n < max; i++) {
    const char *name = am_backend_name(i);
    char key[80];
    if (!name) continue;
    snprintf(key, sizeof key, ",%s,", name);
    if (env && !strstr(wanted_env, key)) continue;
    int asked = n_only == 0;
    for (int k = 0; k < n_only; k++) asked |= strcmp(only[k], name) == 0;
    if (asked && am_backend_probe(name) == AM_OK) names[n++] = name;
  }
  names[n] = NULL;
  return n ? names[0] : NULL;
}

int main(int argc, char **argv) {
  const char *dir = "build/conformance-ipc", *contains = NULL, *only[MAX_BACKENDS];
  int n_only = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-k") == 0 && i + 1 < argc)
      contains = argv[++i];
    else if (strcmp(argv[i], "--backend") == 0 && i + 1 < argc && n_only < MAX_BACKENDS)
      only[n_only++] = argv[++i];
    else if (argv[i][0] != '-')
      dir = argv[i];
    else {
      fprintf(stderr, "usage: %s [-k TEXT] [--backend NAME] [DIR]\n", argv[0]);
      return 2;
    }
  }
  char err[512];
  if (cr_calls_init(err, sizeof err)) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  const char *backends[MAX_BACKENDS + 1];
  if (!available_backends(backends, MAX_BACKENDS, only, n_only)) {
    fprintf(stderr, "no backend to run\n");
    return 1;
  }
  char *families[MAX_FAMILIES];
  int n_families = list_families(dir, families, MAX_FAMILIES);
  if (n_families <= 0) {
    fprintf(stderr, "no case index under %s (make writes it: conformance/write_ipc.py)\n", dir);
    return 1;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  counts total = {0};
  skip_reasons reasons = {0};
  char **failed = NULL;
  size_t n_failed = 0;
  for (int b = 0; backends[b]; b++) {
    am_device *device = NULL, *devs[2];
    int n_devs = 0;
    if (am_device_open(backends[b], &device) != AM_OK) {
      fprintf(stderr, "am_device_open(%s): %s\n", backends[b], am_last_error());
      return 1;
    }
    devs[n_devs++] = device;
    if (strcmp(backends[b], "cpu") != 0 && am_device_open("cpu", &devs[n_devs]) == AM_OK) n_devs++;
    for (int f = 0; f < n_families; f++) {
      char path[2048], msg[1024];
      size_t size;
      snprintf(path, sizeof path, "%s/%s/index.json", dir, families[f]);
      char *text = read_file(path, &size);
      json *doc = text ? json_parse(text, size, err, sizeof err) : NULL;
      const json *cases = json_get(doc, "cases");
      if (!cases) {
        fprintf(stderr, "%s: %s\n", path, text ? err : "cannot read");
        return 1;
      }
      cr_store store;
      snprintf(path, sizeof path, "%s/%s", dir, families[f]);
      cr_store_init(&store, path);
      counts here = {0};
      for (size_t i = 0; i < cases->count; i++) {
        const json *c = cases->items[i];
        const char *id = json_string(c, "id");
        char name[1024];
        snprintf(name, sizeof name, "%s:%s", backends[b], id ? id : "?");
        if (contains && !strstr(name, contains)) continue;
        char why[160];
        if (skipped(c, backends[b], why, sizeof why)) {
          here.skipped++;
          note_skip(&reasons, why);
          continue;
        }
        msg[0] = '\0';
        if (run_case(c, &store, device, devs, n_devs, msg, sizeof msg)) {
          here.passed++;
          continue;
        }
        here.failed++;
        fprintf(stderr, "FAILED %s: %s\n", name, msg);
        char **grown = realloc(failed, (n_failed + 1) * sizeof *failed);
        if (grown) {
          failed = grown;
          failed[n_failed++] = strdup(name);
        }
      }
      cr_store_close(&store);
      json_free(doc);
      free(text);
      if (here.passed + here.failed + here.skipped)
        printf("  %-12s %-10s %6ld passed, %ld failed, %ld skipped\n", backends[b], families[f],
               here.passed, here.failed, here.skipped);
      total.passed += here.passed;
      total.failed += here.failed;
      total.skipped += here.skipped;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("conformance (C runner) on");
  for (int b = 0; backends[b]; b++) printf("%s %s", b ? "," : "", backends[b]);
  printf(": %ld passed, %ld failed, %ld skipped in %.1f s\n", total.passed, total.failed,
         total.skipped, seconds);
  for (int i = 0; i < reasons.n; i++)
    printf("  skipped: %ld, %s\n", reasons.count[i], reasons.reason[i]);
  for (size_t i = 0; i < n_failed; i++) printf("  failed: %s\n", failed[i]);
  return total.failed ? 1 : 0;
}
