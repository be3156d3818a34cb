#!/usr/bin/env bash
# One lease of the GPU machine does everything in one call: build, GPU tests,
# benchmarks. Logs go to $OUT (the device tool brings them back).
#   bash benchmarks/device_run.sh [tests] [strings] [latency] [batch] [bench] [limits] [cache] [crossover]
#                                 [resident] [twogpu] [faults] [memcheck] [racecheck] [synccheck]
# limits: issue #14's bandwidth and batch tables (benchmarks/gpu_limits_bench.py).
# batch: ten small ops in a batch, held back (as the batch interpreter or a graph) or
# not, in turn, and the batch tests.
# resident: the resident worker's tests, sums with it off and on from C and Python
# (beside PyTorch and CuPy), then the conformance cases in resident mode.
# twogpu: on a host of two GPUs, their tests and benchmarks/two_gpu_bench.py.
# faults: the GPU fault tests (out of memory, a faulting kernel, the watchdog).
# memcheck, racecheck, synccheck: compute-sanitizer's tool over the CUDA
# conformance cases (SANITIZER_SHARDS of SANITIZER_OF shards) and, for
# memcheck, the Python tests (see the stage).
set -u
OUT=${OUT:-/tmp/arrowmetal-out}
mkdir -p "$OUT"
stages=${*:-tests latency bench cache}
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
    --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
fi
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$PWD/python" PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/machine.txt"
if [ -z "${ARROWMETAL_NVRTC:-}" ]; then
  ARROWMETAL_NVRTC=$(python3 - <<'PY'
import glob, os, site
roots = site.getsitepackages() + ["/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib"]
for root in roots:
    for pattern in ("nvidia/cu13/lib/libnvrtc.so*", "nvidia/cuda_nvrtc/lib/libnvrtc.so*", "libnvrtc.so*"):
        hits = sorted(p for p in glob.glob(os.path.join(root, pattern)) if "builtins" not in p)
        if hits:
            print(hits[0]); raise SystemExit
PY
)
  export ARROWMETAL_NVRTC
fi
echo "NVRTC: $ARROWMETAL_NVRTC" | tee -a "$OUT/machine.txt"
export ARROWMETAL_CACHE_DIR=/tmp/arrowmetal-cache
make -s -j16 all > "$OUT/build.log" 2>&1 || { tail -50 "$OUT/build.log"; exit 1; }
# The cffi API-mode module; without a compiler or Python headers: ABI mode.
python3 python/arrowmetal/_build_ext.py build >> "$OUT/build.log" 2>&1 ||
  echo "arrowmetal._api not built (see build.log): cffi ABI mode" | tee -a "$OUT/machine.txt"
python3 -c "import arrowmetal as am; print('binding:', am.binding_mode())" | tee -a "$OUT/machine.txt"
cc -O2 -std=c11 -Iinclude benchmarks/latency.c -Lbuild -larrowmetal -Wl,-rpath,"$PWD/build" \
  -o build/latency >> "$OUT/build.log" 2>&1
# A failed stage does not stop the others (one lease does everything), but the
# script's exit status says which failed.
failed=""
record() { [ "$1" -eq 0 ] || failed="$failed $2"; }
for stage in $stages; do
  case $stage in
    tests)
      # The conformance cases through run_all.py in 8 shards side by side (pytest's
      # cost per case would be most of the stage), then the other tests; -v names
      # each result as it comes, so a run cut off by its timeout still says
      # which failed.
      status=0
      pids=""
      for i in 0 1 2 3 4 5 6 7; do
        timeout 300 python3 conformance/run_all.py --shard "$i/8" > "$OUT/conformance-$i.log" 2>&1 &
        pids="$pids $!"
      done
      for pid in $pids; do wait "$pid" || status=1; done
      grep -h "^conformance shard\|^FAILED" "$OUT"/conformance-*.log | cut -c1-200 | head -40
      timeout 400 python3 -m pytest -n 12 -v -rs -p no:cacheprovider --tb=short --durations=30 \
        conformance python libarrowmetal --ignore=conformance/test_conformance.py \
        > "$OUT/tests.log" 2>&1 || status=1
      record $status tests
      grep -aE "(^| )(FAILED|ERROR) " "$OUT/tests.log" | sed -E 's/.*(FAILED|ERROR) //; s/ - .*//' \
        | cut -d[ -f1 | sort | uniq -c | sort -rn | head -40
      tail -n 3 "$OUT/tests.log" ;;
    strings)
      # Strings on the GPU (issue #13): their Python tests beside every
      # conformance case on CUDA in 8 shards (one log: the device tool brings
      # back 8 files at most, and a run cut off by its limit still leaves the
      # lines so far), then the 50M-string benchmark.
      status=0
      timeout "${STRINGS_PYTEST_TIMEOUT:-150}" python3 -m pytest -n 4 -q -rs -p no:cacheprovider \
        --tb=short python/tests/test_strings_gpu.py python/tests/test_string_hash.py \
        > "$OUT/strings.log" 2>&1 &
      pids="$!"
      for i in 0 1 2 3 4 5 6 7; do
        timeout "${STRINGS_CONFORMANCE_TIMEOUT:-300}" python3 conformance/run_all.py --backend cuda \
          --shard "$i/8" >> "$OUT/conformance-cuda.log" 2>&1 &
        pids="$pids $!"
      done
      for pid in $pids; do wait "$pid" || status=1; done
      tail -n 3 "$OUT/strings.log"
      grep -h "^conformance shard\|^FAILED" "$OUT/conformance-cuda.log" | cut -c1-300 | head -60
      (cd benchmarks && timeout 100 python3 gpu_strings_bench.py) > "$OUT/gpu_strings_bench.txt" 2>&1 ||
        status=1
      tail -n 14 "$OUT/gpu_strings_bench.txt"
      record $status strings ;;
    latency)
      timeout 240 build/latency cuda 2>&1 | tee "$OUT/latency.txt"
      record "${PIPESTATUS[0]}" latency
      ARROWMETAL_LOW_LATENCY=0 timeout 120 build/latency cuda 10000000 2>&1 | head -12 \
        | tee "$OUT/latency_blocking.txt" ;;
    bench)
      timeout 400 python3 benchmarks/gpu_bench.py 2>&1 | tee "$OUT/gpu_bench.txt"
      record "${PIPESTATUS[0]}" bench ;;
    batch)
      # Batches (issue #14): the ten-op latency from C with launches held
      # back or not (ARROWMETAL_BATCH_GRAPHS) and, held back, sent as the
      # batch interpreter or as a graph (ARROWMETAL_BATCH_INTERPRETER), in
      # turn; the same from Python; and the batch tests on CUDA.
      status=0
      cc -O2 benchmarks/driver_costs.c -ldl -o build/driver_costs && timeout 20 build/driver_costs
      for mode in 0/1 1/1 1/0 0/1 1/1 1/0; do
        echo "ARROWMETAL_BATCH_GRAPHS=${mode%/*} ARROWMETAL_BATCH_INTERPRETER=${mode#*/}"
        ARROWMETAL_BATCH_GRAPHS=${mode%/*} ARROWMETAL_BATCH_INTERPRETER=${mode#*/} timeout 30 \
          build/latency cuda 1000 | sed -n '8,15p'
      done 2>&1 | tee "$OUT/batch.txt"
      for mode in 1/1 1/0 0/1; do
        echo "python, ARROWMETAL_BATCH_GRAPHS=${mode%/*} ARROWMETAL_BATCH_INTERPRETER=${mode#*/}"
        ARROWMETAL_BATCH_GRAPHS=${mode%/*} ARROWMETAL_BATCH_INTERPRETER=${mode#*/} timeout 60 \
          python3 benchmarks/gpu_limits_bench.py --rows "" 2>&1 | tail -6
      done 2>&1 | tee -a "$OUT/batch.txt"
      timeout 120 python3 -m pytest -q -p no:cacheprovider --tb=short python/tests/test_batch_graphs.py \
        2>&1 | tail -15 | tee -a "$OUT/batch.txt"
      grep -q " passed" "$OUT/batch.txt" && ! grep -q " failed" "$OUT/batch.txt" || status=1
      record $status batch ;;
    resident)
      # The resident CUDA worker (issue #14): its tests, small sums with it off
      # and on from C and from Python, then every conformance case with a
      # worker started in each shard's process (ARROWMETAL_TEST_RESIDENT=1).
      status=0
      timeout 180 python3 -m pytest -q -p no:cacheprovider --tb=short \
        python/tests/test_resident_cuda.py 2>&1 | tail -15 | tee "$OUT/resident.txt"
      grep -q " passed" "$OUT/resident.txt" && ! grep -q " failed" "$OUT/resident.txt" || status=1
      timeout 60 build/latency cuda resident 2>&1 | tee -a "$OUT/resident.txt"
      timeout 120 python3 benchmarks/resident_bench.py --calls 1000 --rounds 2 2>&1 | tee -a "$OUT/resident.txt"
      pids=""
      for i in 0 1 2 3 4 5 6 7; do
        ARROWMETAL_TEST_RESIDENT=1 ARROWMETAL_TEST_BACKENDS=cuda timeout 200 \
          python3 conformance/run_all.py --shard "$i/8" > "$OUT/resident-conformance-$i.log" 2>&1 &
        pids="$pids $!"
      done
      for pid in $pids; do wait "$pid" || status=1; done
      tail -n 3 "$OUT"/resident-conformance-*.log | tee -a "$OUT/resident.txt"
      record $status resident ;;
    twogpu)
      # Two GPUs of one host (issue #14): every GPU test with both present,
      # the two-device tests, and moves between them (peer against host).
      status=0
      timeout 300 python3 -m pytest -n 12 -q -rs -p no:cacheprovider --tb=short \
        python/tests/test_two_gpus.py python/tests/test_routing.py python/tests/test_cuda_interop.py \
        python/tests/test_batch_graphs.py > "$OUT/twogpu-tests.log" 2>&1 || status=1
      tail -n 15 "$OUT/twogpu-tests.log" | tee "$OUT/twogpu.txt"
      timeout 200 python3 benchmarks/two_gpu_bench.py 2>&1 | tee -a "$OUT/twogpu.txt"
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      record $status twogpu ;;
    limits)
      timeout 240 python3 benchmarks/gpu_limits_bench.py 2>&1 | tee "$OUT/limits.txt"
      record "${PIPESTATUS[0]}" limits ;;
    cache)
      timeout 200 python3 benchmarks/kernel_cache_bench.py cuda 2>&1 | tee "$OUT/kernel_cache.txt"
      record "${PIPESTATUS[0]}" cache ;;
    crossover)
      timeout 300 python3 benchmarks/crossover.py --write "$OUT/routes.txt" 2>&1 \
        | tee "$OUT/crossover.txt"
      record "${PIPESTATUS[0]}" crossover ;;
    faults)
      timeout 300 python3 -m pytest -q -rs -s -p no:cacheprovider python/tests/test_gpu_faults.py \
        > "$OUT/faults.log" 2>&1
      record $? faults
      tail -n 3 "$OUT/faults.log" ;;
    memcheck | racecheck | synccheck)
      # The CUDA conformance cases in SANITIZER_OF shards (by a hash of the
      # case ID), shards SANITIZER_FIRST .. SANITIZER_SHARDS-1 (all by default),
      # each in its own process under the tool, 16 at a time; then, for
      # memcheck, the Python tests (SANITIZER_PYTHON=0: not). --error-exitcode
      # makes any report fail the stage.
      of=${SANITIZER_OF:-16}
      shards=${SANITIZER_SHARDS:-$of}
      from=${SANITIZER_FIRST:-0}
      start=$(date +%s)
      status=0
      for first in $(seq "$from" 16 $((shards - 1))); do
        pids=""
        for i in $(seq "$first" $((first + 15 < shards - 1 ? first + 15 : shards - 1))); do
          timeout "${SANITIZER_TIMEOUT:-540}" compute-sanitizer --tool "$stage" --error-exitcode 99 --print-limit 20 \
            python3 conformance/run_all.py --backend cuda --shard "$i/$of" \
            > "$OUT/$stage-$i.log" 2>&1 &
          pids="$pids $!"
        done
        for pid in $pids; do wait "$pid" || status=1; done
      done
      if [ "$stage" = memcheck ] && [ "${SANITIZER_PYTHON:-1}" = 1 ]; then
        # The Python test files dealt round-robin to 16 plain pytest processes
        # (pytest-xdist's workers made no progress under the tool).
        groups=()
        pids_of=()
        i=0
        for f in python/tests/test_*.py; do
          case $f in */test_gpu_faults.py | */test_wheel.py) continue ;; esac
          groups[i % 16]="${groups[i % 16]:-} $f"
          i=$((i + 1))
        done
        for g in "${!groups[@]}"; do
          timeout "${SANITIZER_PYTHON_TIMEOUT:-400}" compute-sanitizer --tool memcheck \
            --error-exitcode 99 --print-limit 20 python3 -m pytest -q -p no:xdist \
            -p no:cacheprovider --tb=line ${groups[g]} > "$OUT/memcheck-python-$g.log" 2>&1 &
          pids_of[g]=$!
        done
        for g in "${!groups[@]}"; do
          # A group whose tests never call CUDA (CPU-only files) ends with the
          # tool's "terminated before first instrumented API call": nothing to
          # check there, so only its pytest result counts.
          log="$OUT/memcheck-python-$g.log"
          wait "${pids_of[g]}" && continue
          grep -q "before first instrumented API call" "$log" &&
            tail -n 3 "$log" | grep -E "^[0-9]+ passed" | grep -qvE "failed|error" && continue
          status=1
        done
      fi
      record $status "$stage"
      {
        echo "$stage: exit $status after $(($(date +%s) - start)) s, shards $from..$((shards - 1)) of $of"
        cat "$OUT/$stage"-*.log | grep -E "^conformance shard|SUMMARY" | sort | uniq -c
        [ "$stage" = memcheck ] && cat "$OUT"/memcheck-python-*.log 2>/dev/null |
          grep -E "ERROR SUMMARY|passed|failed|before first instrumented" | sort | uniq -c
      } | tee -a "$OUT/sanitizers.txt" ;;
    *)
      echo "unknown stage '$stage' (tests strings latency batch bench limits cache crossover resident twogpu faults memcheck racecheck synccheck)"
      record 1 "$stage" ;;
  esac
done
if [ -n "$failed" ]; then
  echo "failed stages:$failed" | tee -a "$OUT/machine.txt"
  exit 1
fi
