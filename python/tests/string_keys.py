"""String and binary key columns for the sort, group-by and join tests: empty
strings, a value and its NUL-extended twin, values past 8 bytes sharing
prefixes, non-ASCII UTF-8, nulls, and `card` plain words beside them."""

import numpy as np
import pyarrow as pa

WORDS = ["", "a", "a\x00", "ab", "abcdefgh", "abcdefghi", "é", "日本語", None]


def string_column(n, seed, t=None, card=30):
    """n values of type t (pa.string() when None) drawn from WORDS and `card`
    words more; the binary types get the values' UTF-8 bytes."""
    t = pa.string() if t is None else t
    rng = np.random.default_rng(seed)
    vals = [WORDS[i] if i < len(WORDS) else f"w{i}" for i in rng.integers(0, len(WORDS) + card, n)]
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        vals = [None if v is None else v.encode() for v in vals]
    return pa.array(vals, t)
