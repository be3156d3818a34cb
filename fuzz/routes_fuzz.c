/* libFuzzer target: the parser of ARROWMETAL_ROUTES files
 * (libarrowmetal/abi/route.c), reached through its internal entry
 * am_routes_parse_text, which parses a text without touching the active
 * table. The input is the file's text, cut as the file reader cuts it (at
 * 4,095 bytes; a NUL ends it).
 *
 * Checks: a refused text says why; an accepted one has at most 64 rules, and
 * its rules listed as am_routes() lists them parse again to the same rules
 * (the listing is a file the parser takes). */
#include "abi/route.h"
#include "fuzz_common.h"

enum { MAX_TEXT = 4096 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char text[MAX_TEXT], listed[MAX_TEXT], again[MAX_TEXT];
  size_t n = size < MAX_TEXT - 1 ? size : MAX_TEXT - 1;
  memcpy(text, data, n);
  text[n] = '\0';
  char why[200];
  int count = am_routes_parse_text(text, listed, sizeof listed, why, sizeof why);
  if (count < 0) {
    FZ_CHECK(*why && strlen(why) < sizeof why, "a refused route file without a reason");
    return 0;
  }
  FZ_CHECK(count <= 64, "%d rules", count);
  int lines = 0;
  for (const char *c = listed; *c; c++) lines += *c == '\n';
  FZ_CHECK(lines == count, "%d rules listed in %d lines", count, lines);
  int recount = am_routes_parse_text(listed, again, sizeof again, why, sizeof why);
  FZ_CHECK(recount == count, "the listing of %d rules parses to %d (%s):\n%s", count, recount, why,
           listed);
  FZ_CHECK(strcmp(listed, again) == 0, "the listing changed on a second parse:\n%s\n%s", listed,
           again);
  return 0;
}
