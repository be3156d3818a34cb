"""sum, mean, min and max with skip_nulls / min_count over every kind of input,
against pyarrow.compute: a type the function has no kernel for is refused
whatever the options (they were once applied first, giving a null), and a
null result has the exact type pyarrow's has (a timestamp keeps its zone)."""

import decimal

import pyarrow as pa
import pyarrow.compute as pc
import pytest

import arrowmetal as am

INPUTS = {
    "int64": pa.array([3, None, -2], pa.int64()),
    "float64": pa.array([1.5, None, float("nan")]),
    "zoned": pa.array([0, None, 86_400], pa.timestamp("s", "Europe/Paris")),
    "date32": pa.array([0, None, 19000], pa.date32()),
    "duration": pa.array([5, None, -3], pa.duration("s")),
    "string": pa.array(["a", None, "b"]),
    "decimal": pa.array([decimal.Decimal("1.25"), None], pa.decimal128(5, 2)),
    "dictionary": pa.array(["x", None, "y"]).dictionary_encode(),
}
OPTIONS = [
    {"skip_nulls": False},
    {"min_count": 0},
    {"min_count": 5},
    {"skip_nulls": False, "min_count": 0},
]


def _outcome(fn, values, kwargs):
    try:
        r = fn(values, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
        return e
    return ("ok", str(r.type), r.as_py())


@pytest.mark.parametrize("kwargs", OPTIONS, ids=str)
@pytest.mark.parametrize("name", ["sum", "mean", "min", "max"])
@pytest.mark.parametrize("kind", INPUTS)
def test_options_after_the_kernel_check(kind, name, kwargs):
    for values in (INPUTS[kind], INPUTS[kind].slice(1, 1), INPUTS[kind].slice(0, 0)):
        want = _outcome(getattr(pc, name), values, kwargs)
        got = _outcome(getattr(am, name), values, kwargs)
        if isinstance(want, Exception):
            assert isinstance(got, type(want)), (got, want)
        else:
            assert got == want or str(got) == str(want), (got, want)  # NaN equal to NaN


def test_inside_a_batch():
    zoned = INPUTS["zoned"]
    with am.batch():
        pending = am.max(zoned, skip_nulls=False)
    assert pending.value.type == zoned.type and pending.value.as_py() is None
