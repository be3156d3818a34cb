#!/usr/bin/env bash
# A/B of the C round trips (benchmarks/latency.c): this tree's library against
# a baseline tree's (a checkout of an earlier commit), each built with its own
# latency.c, run in turn -- new, base, base, new, new, base, ... -- so that
# both see the same machine. Prints one table of medians with the ratio new / base.
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
  # Which side goes first alternates, so a drift of the machine within a
  # round does not always favour one side.
  if [ $((round % 2)) -eq 1 ]; then order="new base"; else order="base new"; fi
  for side in $order; do
    "build/latency_$side" "$device" "$big" >"$OUT/ab_${side}_$round.txt"
  done
done
python3 benchmarks/ab_table.py "$OUT"/ab_new_*.txt -- "$OUT"/ab_base_*.txt
