"""Builds and runs the unit tests of core/ written in C: the completion timeline
(timeline_test.c), the backend table check (backend_test.c), the op table
(ops_test.c), the log (log_test.c), the memory counters (memstats_test.c),
the time zones (timezone_test.c) and the float texts (float_text_test.c)."""

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import cbuild


def run(binary, *args):
    result = subprocess.run(
        [str(binary), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith("ok")
    return result.stdout


def test_waiters_are_released_only_after_their_own_work(tmp_path):
    sources = [HERE / "timeline_test.c", HERE / "timeline.c", HERE / "error.c"]
    run(cbuild.build(tmp_path / "timeline_test", sources))


def test_backend_tables_are_checked_slot_by_slot(tmp_path):
    sources = [HERE / "backend_test.c", HERE / "backend.c", HERE / "error.c"]
    assert "49 slots checked" in run(
        cbuild.build(tmp_path / "backend_test", sources, optimize="-O1")
    )


def test_every_op_row_is_found_by_family_and_op(tmp_path):
    sources = [HERE / "ops_test.c", HERE / "ops.c", HERE / "types.c", HERE / "error.c"]
    run(cbuild.build(tmp_path / "ops_test", sources, optimize="-O1"))


def test_log_messages_reach_the_handler_or_stderr(tmp_path):
    run(cbuild.build(tmp_path / "log_test", [HERE / "log_test.c", HERE / "log.c"], optimize="-O1"))


def test_memory_counters_are_exact_under_threads(tmp_path):
    sources = [HERE / "memstats_test.c", HERE / "memstats.c", HERE / "buffer.c"]
    run(cbuild.build(tmp_path / "memstats_test", sources, optimize="-O1"))


def test_time_zones_read_files_and_refuse_bad_ones(tmp_path):
    sources = [
        HERE / n
        for n in ("timezone_test.c", "timezone.c", "tzif.c", "temporal.c", "types.c", "error.c")
    ]
    zones = tmp_path / "zones"
    zones.mkdir()
    out = run(cbuild.build(tmp_path / "timezone_test", sources, optimize="-O1"), str(zones))
    assert "20000 mutations" in out


def test_float_texts_read_as_the_c_library_and_write_the_shortest(tmp_path):
    sources = [HERE / "float_text_test.c", HERE / "float_format.c", HERE / "float_parse.c",
               HERE / "float_pow10.c"]  # fmt: skip
    run(cbuild.build(tmp_path / "float_text_test", sources))


def test_the_committed_float_powers_are_what_the_generator_writes():
    sys.path.insert(0, str(HERE))
    import gen_float_pow10

    assert (HERE / "float_pow10.c").read_text() == gen_float_pow10.generate(), (
        "core/float_pow10.c differs: run python libarrowmetal/core/gen_float_pow10.py"
    )
