/* libFuzzer target: the TZif reader (core/tzif.c, am_tzif_parse, internal)
 * and what a zone that reads answers (core/timezone.c): the period of an
 * instant, the reading of a local time, the bulk conversions of every unit
 * under every choice, and pyarrow's refusal message. The input is the
 * file's bytes; the instants are drawn from its last 64 bytes (and the
 * extremes), so the fuzzer steers them too.
 *
 * Checks: a refused file says why; a period holds its instant; a nonexistent
 * local time's gap ends where the later period begins; a refusal message is
 * written. Reads past the file's bytes, overflows and leaks are the
 * sanitizers'. */
#include "core/timezone.h"
#include "core/tzif.h"
#include "fuzz_common.h"

enum { N = 16 };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  am_err err;
  am_err_init(&err, "tzif_fuzz");
  struct am_tz *tz = NULL;
  char why[96] = "";
  int status = am_tzif_parse(&err, "fuzz", data, size, &tz, why, sizeof why);
  if (status != AM_OK) {
    FZ_CHECK(status == AM_ENOMEM || (status == AM_EINVAL && why[0]), "refused without a reason");
    return 0;
  }
  int64_t t[N] = {INT64_MIN, INT64_MAX, 0, -1};
  fz in = {size > 8 * (N - 4) ? data + size - 8 * (N - 4) : data, size};
  for (int i = 4; i < N; i++) {
    uint64_t v = 0;
    fz_bytes(&in, &v, sizeof v);
    t[i] = i % 2 ? (int64_t)v : (int64_t)(v % ((uint64_t)1 << 42)) - ((int64_t)1 << 41);
  }
  for (int i = 0; i < N; i++) {
    am_tz_period p;
    am_tz_period_at(tz, t[i], &p);
    FZ_CHECK(p.begin <= t[i] && (t[i] < p.end || p.end == INT64_MAX),
             "period of %lld: [%lld, %lld)", (long long)t[i], (long long)p.begin, (long long)p.end);
    am_tz_local l;
    am_tz_local_at(tz, t[i], &l);
    if (l.kind == AM_TZ_NONEXISTENT)
      FZ_CHECK(l.first.end == l.second.begin, "a gap between [.., %lld) and [%lld, ..)",
               (long long)l.first.end, (long long)l.second.begin);
  }
  static const int64_t units[] = {1, 1000, 1000000, 1000000000};
  int64_t out[N];
  for (int u = 0; u < 4; u++) {
    am_tz_localize(tz, units[u], t, N, out);
    for (int a = 0; a < 3; a++) {
      int64_t bad = am_tz_to_utc(tz, units[u], t, NULL, 0, N, (am_assume_choice)a,
                                 (am_assume_choice)(2 - a), out);
      if (bad >= 0) {
        am_err_init(&err, "tzif_fuzz");
        FZ_CHECK(am_tz_refuse_local(&err, tz, units[u], t[bad]) == AM_EINVAL && err.message[0],
                 "a refusal without a message");
      }
    }
  }
  am_tzif_free(tz);
  return 0;
}
