"""The loop runner (run_all.py) that make test-asan uses: it runs the cases
it selects and reports a failing case by its ID with exit status 1."""

import run_all


def test_runs_selected_cases_and_passes(capsys):
    assert run_all.main(["-k", "sum/", "--shard", "0/4"]) == 0
    out = capsys.readouterr().out
    assert " passed, 0 failed" in out
    assert int(out.split("passed")[0].split(":")[-1]) > 0


def test_a_failing_case_is_named_and_fails_the_run(monkeypatch, capsys):
    def broken(case, device):
        if case["id"].startswith("sum/"):
            raise AssertionError("wrong on purpose")

    monkeypatch.setattr(run_all, "run_case", broken)
    assert run_all.main(["-k", "sum/"]) == 1
    captured = capsys.readouterr()
    assert "  failed: cpu:sum/" in captured.out
    assert "wrong on purpose" in captured.err


def test_a_bad_shard_is_refused(capsys):
    try:
        run_all.main(["--shard", "3/2"])
    except SystemExit as e:
        assert e.code == 2
    else:
        raise AssertionError("--shard 3/2 was accepted")
