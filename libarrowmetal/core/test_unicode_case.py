"""core/unicode_case_table.c is what gen_unicode_case.py writes from the
pyarrow installed here: the library's case mappings stay pyarrow's."""

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

pytest.importorskip("pyarrow")
pytest.importorskip("numpy")

import gen_unicode_case


def test_the_committed_tables_are_pyarrows():
    committed = (HERE / "unicode_case_table.c").read_text()
    assert committed == gen_unicode_case.generate(), (
        "core/unicode_case_table.c differs from pyarrow's mappings: "
        "run python libarrowmetal/core/gen_unicode_case.py"
    )
