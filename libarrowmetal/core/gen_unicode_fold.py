"""Writes core/unicode_fold_table.c: the case folding of the matching
functions under MatchSubstringOptions(ignore_case=True), read from pyarrow
itself, so that the library folds every code point as pyarrow does.

    python libarrowmetal/core/gen_unicode_fold.py [OUT]   (default: the file beside)

pyarrow runs ignore_case through RE2 in case-insensitive mode (UTF-8 for
string types, Latin-1 for binary ones), which compares a value's code point
with a pattern's by their orbits: the sets of code points that Unicode's
simple case folding ties together (k, K and the Kelvin sign U+212A; s, S and
U+017F; ß and U+1E9E). Two code points match when they share an orbit, so
each one folds here to its orbit's smallest member (never a longer UTF-8
form than its own). How the orbits are read, all from pyarrow:

1. Latin-1 (binary types): match_substring of every byte against every byte.
2. Candidates (string types): for each bit k of a code point, classes
   "[...]" of the code points whose bit k is 0 (then 1), within aligned
   groups, under match_substring_regex(ignore_case=True); a code point that
   matches the class of the other bit has an orbit partner differing there.
   A partner differs from it in some bit, so every code point with one is a
   candidate.
3. Orbits: match_substring(ignore_case=True) of each candidate, as the
   pattern, over every candidate (a check that they are an equivalence
   relation, and that starts_with, ends_with, find_substring,
   count_substring and match_like agree).
4. Completeness: each candidate as a pattern over every code point (the
   whole range in chunks), and every 4,096th other code point likewise: the
   hits are its orbit and nothing else.

test_unicode_fold.py checks that the committed file is what this writes
with the pyarrow installed (when its major version is the file's).
"""

import importlib.util
import pathlib
import re
import sys

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

HERE = pathlib.Path(__file__).resolve().parent


def _case_module():
    """gen_unicode_case.py beside this file, loaded by its path: this script
    is run, imported from core/ and loaded by path from python/tests alike."""
    spec = importlib.util.spec_from_file_location("gen_unicode_case", HERE / "gen_unicode_case.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


table = _case_module().table  # the block index and delta blocks of case mapping, 'fold' named
LIMIT = 0x110000
BITS = 21  # LIMIT <= 2^21
GROUP = 4096  # the smallest group of the candidate classes
CHUNK = 1024  # code points a value in the full scans


def encode(c):
    return chr(c).encode("utf-8", "surrogatepass")  # surrogates are RE2 runes too


def string_array(values):
    """A string array of `values` (bytes) without UTF-8 checks."""
    offsets = np.zeros(len(values) + 1, np.int64)
    offsets[1:] = np.cumsum([len(v) for v in values])
    buffers = [None, pa.py_buffer(offsets.tobytes()), pa.py_buffer(b"".join(values))]
    return pa.Array.from_buffers(pa.large_string(), len(values), buffers)


def hits(result):
    return np.asarray(result.to_numpy(zero_copy_only=False), bool)


def latin1_fold():
    """The binary types' fold: byte -> its class's smallest byte."""
    values = pa.array([bytes([b]) for b in range(256)], pa.binary())
    classes = []
    for b in range(256):
        found = hits(pc.match_substring(values, bytes([b]), ignore_case=True))
        matched = set(np.flatnonzero(found).tolist())
        for f in ("starts_with", "ends_with"):
            same = getattr(pc, f)(values, bytes([b]), ignore_case=True)
            assert set(np.flatnonzero(hits(same)).tolist()) == matched, (f, b)
        classes.append(matched)
    for b, matched in enumerate(classes):
        assert b in matched and all(classes[d] == matched for d in matched), f"byte {b}"
    return [min(matched) for matched in classes]


def candidates(points):
    """Code points with an orbit partner (a superset: each is checked after)."""
    flagged = np.zeros(LIMIT, bool)
    for k in range(BITS):
        size = 1 << k
        group = max(2 * size, GROUP)
        for lo in range(0, LIMIT, group):
            hi = min(lo + group, LIMIT)
            bit = (np.arange(lo, hi) >> k) & 1
            for side in (0, 1):
                ranges = [(a, min(a + size, hi) - 1) for a in range(lo + side * size, hi, 2 * size)]
                if not ranges:
                    continue
                cls = "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in ranges)
                some = points.slice(lo, hi - lo)
                found = hits(pc.match_substring_regex(some, f"[{cls}]", ignore_case=True))
                flagged[lo:hi] |= found & (bit != side)
    return np.flatnonzero(flagged)


def like_literal(p):
    """A LIKE pattern that matches the text p alone."""
    return p.replace(b"\\", b"\\\\").replace(b"%", b"\\%").replace(b"_", b"\\_")


def orbits(cands):
    """{code point: its orbit} over the candidates, by the literal matchers."""
    values = string_array([encode(c) for c in cands])
    orbit = {}
    for c in cands.tolist():
        p = encode(c)
        found = set(cands[hits(pc.match_substring(values, p, ignore_case=True))].tolist())
        checks = {
            "starts_with": hits(pc.starts_with(values, p, ignore_case=True)),
            "ends_with": hits(pc.ends_with(values, p, ignore_case=True)),
            "find_substring": pc.find_substring(values, p, ignore_case=True).to_numpy() == 0,
            "count_substring": pc.count_substring(values, p, ignore_case=True).to_numpy() == 1,
            "match_like": hits(pc.match_like(values, like_literal(p), ignore_case=True)),
        }
        for name, got in checks.items():
            assert set(cands[got].tolist()) == found, f"{name} of U+{c:04X} differs"
        assert c in found and len(found) > 1, f"U+{c:04X}: a candidate without a partner"
        orbit[c] = frozenset(found)
    for c, o in orbit.items():
        assert all(orbit[d] == o for d in o), f"U+{c:04X}: not an equivalence"
    return orbit


def full_scan(points, patterns, orbit):
    """Each pattern over every code point (chunks of CHUNK, then the chunks
    hit one by one): what it matches is its orbit, or itself alone."""
    chunks = string_array([b"".join(encode(c) for c in range(lo, min(lo + CHUNK, LIMIT)))
                           for lo in range(0, LIMIT, CHUNK)])  # fmt: skip
    for c in patterns:
        want = orbit.get(c, frozenset([c]))
        count = pc.count_substring(chunks, encode(c), ignore_case=True).to_numpy()
        found = set()
        for chunk in np.flatnonzero(count).tolist():
            lo = chunk * CHUNK
            one = points.slice(lo, CHUNK)
            found |= {lo + d for d in np.flatnonzero(hits(pc.match_substring(
                one, encode(c), ignore_case=True))).tolist()}  # fmt: skip
        assert found == want and count.sum() == len(want), f"U+{c:04X} matches {sorted(found)}"


def unicode_fold():
    """{code point: its fold} for those that fold to another code point."""
    points = string_array([encode(c) for c in range(LIMIT)])
    cands = candidates(points)
    orbit = orbits(cands)
    others = [c for c in range(0, LIMIT, GROUP) if c not in orbit]
    full_scan(points, sorted(orbit) + others, orbit)
    return {c: min(o) for c, o in orbit.items() if min(o) != c}


def generate():
    latin1 = latin1_fold()
    folded = unicode_fold()
    ascii_ = [folded.get(c, c) for c in range(128)]
    assert latin1[:128] == ascii_, "RE2's Latin-1 and UTF-8 folds differ on ASCII"
    text, blocks = table("fold", folded)  # gen_unicode_case's block layout
    lines = ["const uint8_t am_fold_latin1[256] = {"]
    for i in range(0, 256, 16):
        lines.append("    " + ", ".join(str(v) for v in latin1[i : i + 16]) + ",")
    lines.append("};")
    return (
        f"/* Generated by core/gen_unicode_fold.py from pyarrow {pa.__version__}'s ignore_case\n"
        f" * matching ({len(folded)} code points fold to another); do not edit (see\n"
        " * unicode_fold.h). */\n"
        '#include "unicode_fold.h"\n\n'
        f"#if AM_FOLD_BLOCKS != {blocks}\n"
        '#error "unicode_fold.h block count differs from the generated table"\n'
        "#endif\n\n"
        "/* clang-format off */\n" + "\n".join(lines) + f"\n\n{text}\n/* clang-format on */\n"
    )


def source_pyarrow(text=None):
    """The pyarrow version a generated table names as its source: the orbits
    follow the Unicode version of pyarrow's RE2, so a table is compared only
    with a pyarrow of the same major version."""
    text = (HERE / "unicode_fold_table.c").read_text() if text is None else text
    return re.search(r"from pyarrow (\S+)'s ignore_case", text).group(1)


def same_major(version):
    return version.split(".")[0] == pa.__version__.split(".")[0]


if __name__ == "__main__":
    out = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "unicode_fold_table.c"
    out.write_text(generate())
