"""Functions whose options pyarrow requires, called with none: pyarrow's own
refusal (ArrowInvalid "Function 'x' cannot be called without options" for an
input it has a kernel for, its "no kernel" error for one it has not), never a
TypeError of arrowmetal's making, and no fallback counted."""

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

TEXT = pa.array(["a b", None])
NUMBERS = pa.array([1, 2])
STAMPS = pa.array([0, None], pa.timestamp("s"))

CALLS = [
    ("starts_with", TEXT),
    ("starts_with", NUMBERS),
    ("ends_with", TEXT),
    ("match_substring", TEXT),
    ("match_like", TEXT),
    ("find_substring", TEXT),
    ("count_substring", TEXT),
    ("split_pattern", TEXT),
    ("split_pattern", NUMBERS),
    ("utf8_trim", TEXT),
    ("ascii_ltrim", TEXT),
    ("utf8_slice_codeunits", TEXT),
    ("utf8_slice_codeunits", NUMBERS),
    ("strptime", TEXT),
    ("strptime", NUMBERS),
    ("assume_timezone", STAMPS),
    ("assume_timezone", NUMBERS),
    ("partition_nth_indices", NUMBERS),
    ("partition_nth_indices", pa.array([1.5], pa.float16())),
    ("select_k_unstable", NUMBERS),
]


@pytest.mark.parametrize("name, values", CALLS, ids=lambda x: str(getattr(x, "type", x)))
def test_no_options_is_pyarrows_refusal(name, values):
    with pytest.raises(pa.ArrowException) as want:
        getattr(pc, name)(values)
    before = am.fallbacks().get(name, 0)
    for given in (values, am.array(values)):
        with pytest.raises(type(want.value)) as got:
            getattr(am, name)(given)
        assert str(got.value) == str(want.value)
    assert am.fallbacks().get(name, 0) == before
