"""The optional peers a benchmark compares with (polars, duckdb, CuPy,
PyTorch): each module, or None where this machine lacks it, so its column
is left out of the table instead of failing the run."""

import importlib


def optional(name):
    """The module `name`, or None when it cannot be imported here."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return None
