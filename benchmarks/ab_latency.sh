#!/usr/bin/env bash
# A/B of the C round trips (benchmarks/latency.c): this tree's library against
# a baseline tree's (a checkout of an earlier commit), each built with its own
# latency.c, run in turn -- new, base, new, base, ... -- so that both see the
# same machine. Prints one table of medians with the ratio new / base.
#   bash benchmarks/ab_latency.sh BASE_DIR [device] [rounds] [big rows]
set -eu
base=$(cd "$1" && pwd)
device=${2:-cuda}
rounds=${3:-3}
big=${4:-10000000}
OUT=${OUT:-/tmp/arrowmetal-out}
mkdir -p "$OUT"
make -s -C "$base" lib >/dev/null
make -s lib >/dev/null
cc -O2 -std=c11 -I"$base/include" "$base/benchmarks/latency.c" -L"$base/build" -larrowmetal \
  -Wl,-rpath,"$base/build" -o build/latency_base
cc -O2 -std=c11 -Iinclude benchmarks/latency.c -Lbuild -larrowmetal -Wl,-rpath,"$PWD/build" \
  -o build/latency_new
for round in $(seq 1 "$rounds"); do
  build/latency_new "$device" "$big" >"$OUT/ab_new_$round.txt"
  build/latency_base "$device" "$big" >"$OUT/ab_base_$round.txt"
done
python3 benchmarks/ab_table.py "$OUT"/ab_new_*.txt -- "$OUT"/ab_base_*.txt
