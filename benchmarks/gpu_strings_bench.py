"""Strings on a CUDA device (issue #13's GPU speed rows): filter, take, compare,
match_substring, starts_with, utf8_length, binary_length and ascii_upper over
50M strings that live on the device, each beside the same work written with
PyTorch on the offsets and data buffers, and beside the device-to-device copy
of the bytes the function must read and write at least (the floor), in one
run. Medians in ms, each call followed by a device sync; "torch/am" above 1
means ArrowMetal is faster, "floor %" is the copy's time over ArrowMetal's.
Nothing here passes or fails.

    python benchmarks/gpu_strings_bench.py [--rows 50000000] [--repeats 5]

The strings are 0 to 24 lowercase ASCII letters (12.5 bytes on average), no
nulls; filter keeps about half the rows, take draws random row numbers.
"""

import argparse

import numpy as np
import pyarrow as pa
from breadth_bench import median_ms, table
from peers import optional

import arrowmetal as am

torch = optional("torch")
cp = optional("cupy")


def strings(rows, seed=0):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 25, rows, dtype=np.int32)
    offsets = np.zeros(rows + 1, np.int32)
    np.cumsum(lengths, out=offsets[1:])
    data = rng.integers(ord("a"), ord("z") + 1, int(offsets[-1]), dtype=np.uint8)
    return pa.Array.from_buffers(
        pa.string(), rows, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    )


COPY = {}


def copy_ms(nbytes, repeats):
    """A CuPy copy that reads and writes nbytes in all (call, then sync)."""
    if nbytes not in COPY:
        src = cp.zeros(max(int(nbytes // 2), 1), dtype=cp.uint8)
        dst = cp.empty_like(src)
        COPY[nbytes] = median_ms(lambda: dst.__setitem__(slice(None), src), repeats,
                                 cp.cuda.runtime.deviceSynchronize)  # fmt: skip
    return COPY[nbytes]


def torch_peers(offsets, data, mask, idx):
    """The same work on the buffers, the way PyTorch spells it."""
    starts, ends = offsets[:-1], offsets[1:]
    lengths = ends - starts

    def utf8_length():
        ok = ((data & 0xC0) != 0x80).to(torch.int32)
        c = torch.cat([torch.zeros(1, dtype=torch.int64, device=data.device), torch.cumsum(ok, 0)])
        return c[ends.long()] - c[starts.long()]

    def pair_hits(a, b):
        pair = ((data[:-1] == a) & (data[1:] == b)).to(torch.int32)
        return torch.cat(
            [torch.zeros(1, dtype=torch.int64, device=data.device), torch.cumsum(pair, 0)]
        )

    def match_substring():
        c = pair_hits(ord("a"), ord("b"))
        last = torch.maximum(ends.long() - 1, starts.long())
        return (c[last] - c[starts.long()]) > 0

    def starts_with():
        s = starts.long().clamp(max=data.numel() - 2)
        return (lengths >= 2) & (data[s] == ord("a")) & (data[s + 1] == ord("b"))

    def equal():
        s = starts.long().clamp(max=data.numel() - 5)
        hit = lengths == 5
        for k, ch in enumerate(b"hello"):
            hit &= data[s + k] == ch
        return hit

    def gather(rows):
        lens = lengths[rows].long()
        out_offsets = torch.cumsum(lens, 0)
        shift = torch.repeat_interleave(starts[rows].long() - (out_offsets - lens), lens)
        return out_offsets, data[torch.arange(shift.numel(), device=data.device) + shift]

    return {
        "binary_length": lambda: lengths,
        "utf8_length": utf8_length,
        "ascii_upper": lambda: torch.where((data >= 97) & (data <= 122), data - 32, data),
        "match_substring 'ab'": match_substring,
        "starts_with 'ab'": starts_with,
        "equal 'hello'": equal,
        "filter (half)": lambda: gather(torch.nonzero(mask).squeeze(1)),
        "take (random)": lambda: gather(idx),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.rows
    host = strings(n)
    rng = np.random.default_rng(1)
    keep = rng.random(n) < 0.5
    idx = rng.integers(0, n, n)
    cuda = am._devices.device_ptr("cuda")

    def sync():
        am.lib.am_device_sync(cuda)

    s = am.array(host, device="cuda")
    m = am.array(pa.array(keep), device="cuda")
    i = am.array(pa.array(idx), device="cuda")
    ours = {
        "binary_length": lambda: am.binary_length(s),
        "utf8_length": lambda: am.utf8_length(s),
        "ascii_upper": lambda: am.ascii_upper(s),
        "match_substring 'ab'": lambda: am.match_substring(s, "ab"),
        "starts_with 'ab'": lambda: am.starts_with(s, "ab"),
        "equal 'hello'": lambda: am.equal(s, "hello"),
        "filter (half)": lambda: am.filter(s, m),
        "take (random)": lambda: am.take(s, i),
    }
    data_bytes = len(host.buffers()[2])
    kept_bytes = int(np.diff(np.frombuffer(host.buffers()[1], np.int32))[keep].sum())
    # bytes read + written at least: offsets 4(n + 1), data, results
    floor = {
        "binary_length": 8 * n,
        "utf8_length": 8 * n + data_bytes,
        "ascii_upper": 2 * data_bytes,
        "match_substring 'ab'": 4 * n + data_bytes + n // 8,
        "starts_with 'ab'": 4 * n + n // 8,
        "equal 'hello'": 4 * n + n // 8,
        "filter (half)": 4 * n + n // 8 + data_bytes + kept_bytes + 2 * n,
        "take (random)": 8 * n + 4 * n + 2 * data_bytes + 4 * n,
    }
    peers = {}
    if torch is not None:
        t_off = torch.as_tensor(np.frombuffer(host.buffers()[1], np.int32), device="cuda")
        t_data = torch.as_tensor(np.frombuffer(host.buffers()[2], np.uint8), device="cuda")
        peers = torch_peers(t_off, t_data, torch.as_tensor(keep, device="cuda"),
                            torch.as_tensor(idx, device="cuda"))  # fmt: skip
    rows = []
    for name, fn in ours.items():
        t_am = median_ms(fn, args.repeats, sync)
        row = [f"{n:,}", name, f"{t_am:.3f}"]
        if name in peers:
            t_t = median_ms(peers[name], args.repeats, torch.cuda.synchronize)
            row += [f"{t_t:.3f}", f"{t_t / t_am:.2f}"]
        else:
            row += ["-", "-"]
        if cp is not None:
            t_c = copy_ms(floor[name], args.repeats)
            row += [f"{t_c:.3f}", f"{100 * t_c / t_am:.0f}%"]
        rows.append(row)
    print(f"CUDA, {n:,} strings ({data_bytes / n:.1f} bytes each), medians of {args.repeats} (ms)")
    table(rows, ["rows", "function", "arrowmetal", "torch", "torch/am", "copy floor", "floor %"])


if __name__ == "__main__":
    main()
