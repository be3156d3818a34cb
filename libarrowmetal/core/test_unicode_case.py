"""core/unicode_case_table.c is what gen_unicode_case.py writes from the
pyarrow installed here: the library's case mappings stay pyarrow's."""

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

pa = pytest.importorskip("pyarrow")
pytest.importorskip("numpy")

import gen_unicode_case


def test_the_committed_tables_are_pyarrows():
    committed = (HERE / "unicode_case_table.c").read_text()
    source = gen_unicode_case.source_pyarrow(committed)
    if not gen_unicode_case.same_major(source):
        pytest.skip(
            f"the tables are pyarrow {source}'s; pyarrow {pa.__version__} here has another utf8proc"
        )
    # the first line names the version, which may differ within a major one
    generated = gen_unicode_case.generate()
    assert committed.split("\n", 1)[1] == generated.split("\n", 1)[1], (
        "core/unicode_case_table.c differs from pyarrow's mappings: "
        "run python libarrowmetal/core/gen_unicode_case.py"
    )
