"""A commit past the 256 batches held in flight settles the oldest ticket (waits
for it, keeps its outcome) outside the lock, while another thread may be
waiting on that ticket (issue #15; found while writing `make test-tsan`).
Before the fix, such a wait was told the ticket was unknown. The window is the
device wait of the oldest batch, so only a GPU makes it wide enough to hit on
purpose; libarrowmetal/abi/stress_test.c runs the same mix on the CPU."""

import threading
import time

import pytest

import arrowmetal as am
from arrowmetal._capi import ffi, lib

CUDA = {n: ok for n, ok, _ in am.backends()}["cuda"]


def _commit(array, sums, repeat=1):
    """Commits a batch of `repeat` sums of `array`; returns its ticket."""
    assert lib.am_batch_begin() == lib.AM_OK
    for _ in range(repeat):
        sums.append(ffi.new("am_scalar *"))
        assert lib.am_sum(array._ptr, sums[-1]) == lib.AM_OK
    ticket = ffi.new("uint64_t *")
    assert lib.am_batch_commit(ticket) == lib.AM_OK
    return ticket[0]


@pytest.mark.skipif(not CUDA, reason="needs a CUDA device: on the CPU the window is too short")
def test_a_wait_during_the_settling_of_its_ticket_gets_its_outcome():
    big = am.full(1.0, 50_000_000, type="float64", device="cuda")
    small = am.full(1, 1_000, type="int64", device="cuda")
    sums = []
    # The first batch keeps the device busy for a while (thousands of passes
    # over 400 MB); 255 light ones follow, so that the next commit makes the
    # heavy one the oldest past the bound and settles it, waiting on the device.
    heavy = _commit(big, sums, repeat=2000)
    light = [_commit(small, sums) for _ in range(255)]
    about_to_commit = threading.Event()
    extra = []

    def commit_one_more():
        about_to_commit.set()
        extra.append(_commit(small, sums))

    thread = threading.Thread(target=commit_one_more)
    thread.start()
    about_to_commit.wait()
    time.sleep(0.005)  # the commit has unlinked the heavy batch and waits on it
    status = lib.am_wait(heavy)
    message = ffi.string(lib.am_last_error()).decode()
    thread.join()
    assert status == lib.AM_OK, message
    assert all(s.f64 == 50_000_000.0 for s in sums[:2000])
    for ticket in light + extra:
        assert lib.am_wait(ticket) == lib.AM_OK
    assert all(s.i64 == 1_000 for s in sums[2000:])  # written by the waits
