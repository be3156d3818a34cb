"""core/unicode_fold_table.c is what gen_unicode_fold.py writes from the
pyarrow installed here: the library folds case as pyarrow's ignore_case
matches (about 40 s: the generator reads every code point's orbit from
pyarrow, and checks each against the whole range)."""

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

pa = pytest.importorskip("pyarrow")
pytest.importorskip("numpy")

import gen_unicode_fold


def test_the_committed_fold_is_pyarrows():
    committed = (HERE / "unicode_fold_table.c").read_text()
    source = gen_unicode_fold.source_pyarrow(committed)
    if not gen_unicode_fold.same_major(source):
        pytest.skip(
            f"the fold is pyarrow {source}'s; pyarrow {pa.__version__} here has another RE2"
        )
    # the first line names the version, which may differ within a major one
    generated = gen_unicode_fold.generate()
    assert committed.split("\n", 1)[1] == generated.split("\n", 1)[1], (
        "core/unicode_fold_table.c differs from pyarrow's folding: "
        "run python libarrowmetal/core/gen_unicode_fold.py"
    )
