"""string_view on the CPU (issue #13): the library's calls over a string_view array beside
the same calls over the same values as string (the library's and pyarrow.compute's), and
pyarrow's over the views where pyarrow 26 has a kernel for them. Medians in
milliseconds; nothing here passes or fails.

    python benchmarks/string_view_bench.py [--rows 1000000] [--repeats 5]

The values are string_bench.py's words (0 to 24 ASCII letters, a few multi-byte ones,
5% nulls): about half fit in a view (12 bytes or fewer), the others sit in its data
buffers. "import" is am.array of the pyarrow array (the C Data Interface import, checks
included: every view, or every offset). filter keeps about half the rows; take draws
random indices. The functions that read offsets (utf8_upper, ascii_upper) copy a view
array's values flat first, and their results are views over the result's bytes: that
copy is the gap between the two ArrowMetal columns there.
"""

import argparse
import warnings

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from breadth_bench import median_ms, table
from string_bench import words

import arrowmetal as am


def functions(rows):
    rng = np.random.default_rng(1)
    s = words(rows)
    v = s.cast(pa.string_view())
    keep = pa.array(rng.random(rows) < 0.5)
    idx = pa.array(rng.integers(0, rows, rows))
    av, as_ = am.array(v), am.array(s)
    k, i = am.array(keep), am.array(idx)
    # name, am over views, am over strings, pyarrow over strings, pyarrow over views or None
    return [
        ("import", lambda: am.array(v), lambda: am.array(s), None, None),
        ("filter", lambda: am.filter(av, k), lambda: am.filter(as_, k),
         lambda: pc.filter(s, keep), None),
        ("take", lambda: am.take(av, i), lambda: am.take(as_, i), lambda: pc.take(s, idx), None),
        ("equal (scalar)", lambda: am.equal(av, "hello"), lambda: am.equal(as_, "hello"),
         lambda: pc.equal(s, "hello"),
         lambda: pc.equal(v, pa.scalar("hello", pa.string_view()))),
        ("match_substring", lambda: am.match_substring(av, "ab"),
         lambda: am.match_substring(as_, "ab"), lambda: pc.match_substring(s, "ab"), None),
        ("utf8_length", lambda: am.utf8_length(av), lambda: am.utf8_length(as_),
         lambda: pc.utf8_length(s), None),
        ("utf8_upper", lambda: am.utf8_upper(av), lambda: am.utf8_upper(as_),
         lambda: pc.utf8_upper(s), None),
        ("ascii_upper", lambda: am.ascii_upper(av), lambda: am.ascii_upper(as_),
         lambda: pc.ascii_upper(s), None),
        ("unique", lambda: am.unique(av), lambda: am.unique(as_), lambda: pc.unique(s),
         lambda: pc.unique(v)),
        ("sort_indices", lambda: am.sort_indices(av), lambda: am.sort_indices(as_),
         lambda: pc.sort_indices(s), None),
        ("cast to string", lambda: am.cast(av, pa.string()), None, None,
         lambda: v.cast(pa.string())),
        ("cast string to view", None, lambda: am.cast(as_, pa.string_view()), None,
         lambda: s.cast(pa.string_view())),
    ]  # fmt: skip


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rows", default="1000000")
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    out = []

    def ms(f):
        return f"{median_ms(f, args.repeats):.2f}" if f else "-"

    for rows in (int(r) for r in args.rows.split(",")):
        for name, am_view, am_string, pa_string, pa_view in functions(rows):
            before = sum(am.fallbacks().values())
            with warnings.catch_warnings():
                warnings.simplefilter("error", am.ArrowMetalFallbackWarning)
                cells = [ms(am_view), ms(am_string)]
            assert sum(am.fallbacks().values()) == before  # the library ran every call
            out.append((f"{rows:,}", name, *cells, ms(pa_string), ms(pa_view)))
    table(out, ["rows", "function", "am view ms", "am string ms", "pyarrow string ms",
                "pyarrow view ms"])  # fmt: skip


if __name__ == "__main__":
    main()
