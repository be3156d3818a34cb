/* float_text.h against the C library (run by test_core.py): the reader must
 * round every text as strtod / strtof do (correctly, in glibc), on each of
 * its roads (Clinger's, Eisel-Lemire's, strtod's); the writer's shortest
 * text must read back as the same bits, and be no longer than the C
 * library's shortest "%.*g" that reads back. Random values by splitmix64;
 * "all" as the argument walks every float32 (a minute or more).
 * (That the texts are byte for byte pyarrow's is
 * python/tests/test_string_cast_float.py's.) */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "float_text.h"

static uint64_t state = 0x9e3779b97f4a7c15u;

static uint64_t next(void) {
  uint64_t z = (state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static int failures;

static void fail(const char *what, const char *text) {
  if (failures++ < 20) printf("FAIL %s: '%s'\n", what, text);
}

/* the text's reading against strtod and strtof */
static void check_text(const char *text) {
  double d;
  float f;
  const int64_t n = (int64_t)strlen(text);
  const double want_d = strtod(text, NULL);
  const float want_f = strtof(text, NULL);
  if (!am_parse_double((const uint8_t *)text, n, &d) || memcmp(&d, &want_d, 8) != 0)
    fail("double", text);
  if (!am_parse_float((const uint8_t *)text, n, &f) || memcmp(&f, &want_f, 4) != 0)
    fail("float", text);
}

/* a double's text reads back; no C text of fewer digits does */
static void check_double(double v) {
  if (isnan(v)) return;
  char text[AM_FLOAT_TEXT_MAX + 1], c[64];
  const int n = am_format_double(v, text);
  text[n] = 0;
  double back;
  if (!am_parse_double((const uint8_t *)text, n, &back) || memcmp(&back, &v, 8) != 0)
    fail("double round trip", text);
  /* its significant digits: from the first non-zero one to the last non-zero one */
  char digits[32];
  int count = 0;
  for (const char *p = text; *p && *p != 'e'; p++)
    if (*p >= '0' && *p <= '9' && (count || *p != '0')) digits[count++] = *p;
  while (count > 1 && digits[count - 1] == '0') count--;
  /* the nearest text of one digit fewer must not read back */
  if (count > 1 && isfinite(v) && v != 0) {
    snprintf(c, sizeof c, "%.*e", count - 2, v);
    if (strtod(c, NULL) == v) fail("double not shortest", text);
  }
}

static void check_float(float v) {
  if (isnan(v)) return;
  char text[AM_FLOAT_TEXT_MAX + 1];
  const int n = am_format_float(v, text);
  text[n] = 0;
  float back;
  if (!am_parse_float((const uint8_t *)text, n, &back) || memcmp(&back, &v, 4) != 0)
    fail("float round trip", text);
}

int main(int argc, char **argv) {
  char text[96];
  /* random digits (1 to 19, and 20-25: the strtod road) at every exponent */
  for (int i = 0; i < 1000000; i++) {
    const int digits = 1 + (int)(next() % 25), exponent = (int)(next() % 700) - 350;
    int at = 0;
    if (next() % 4 == 0) text[at++] = '-';
    for (int k = 0; k < digits; k++) text[at++] = (char)('0' + next() % 10);
    at += snprintf(text + at, 16, "e%d", exponent);
    text[at] = 0;
    check_text(text);
  }
  /* ties of the 53- and 24-bit significands, within 19 digits: 2^53 + odd,
   * 2^24 + odd (to even), scaled by powers of two as exact decimals */
  for (uint64_t k = 0; k < 200000; k++) {
    snprintf(text, sizeof text, "%" PRIu64, ((uint64_t)1 << 53) + 2 * k + 1);
    check_text(text);
    snprintf(text, sizeof text, "%" PRIu64, ((uint64_t)1 << 24) + 2 * k + 1);
    check_text(text);
    snprintf(text, sizeof text, "%" PRIu64 "e0", (((uint64_t)1 << 24) + 2 * (k % 4096) + 1) << 20);
    check_text(text);
    snprintf(text, sizeof text, "%.17g", (double)(((uint64_t)1 << 53) + 2 * k) * 0.5);
    check_text(text);
  }
  /* random bit patterns: written, read back, shortest; their %.17g read */
  for (int i = 0; i < 1000000; i++) {
    const uint64_t b = next();
    double d;
    memcpy(&d, &b, 8);
    check_double(d);
    const uint32_t b32 = (uint32_t)b;
    float f;
    memcpy(&f, &b32, 4);
    check_float(f);
    if (isfinite(d)) {
      snprintf(text, sizeof text, "%.17g", d);
      check_text(text);
      snprintf(text, sizeof text, "%.9g", (double)f);
      check_text(text);
    }
  }
  if (argc > 1 && strcmp(argv[1], "all") == 0)
    for (uint64_t b = 0; b < ((uint64_t)1 << 32); b++) {
      const uint32_t b32 = (uint32_t)b;
      float f;
      memcpy(&f, &b32, 4);
      check_float(f);
    }
  printf("%d failures\n", failures);
  if (failures) return 1;
  printf("ok\n");
  return 0;
}
