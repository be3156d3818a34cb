#!/usr/bin/env bash
# make fuzz's driver: bash fuzz/run.sh BUILD_DIR TARGET...
#
# 1. Replays every file of fuzz/corpus/<target>/ and fuzz/regressions/<target>/
#    through each target once (no fuzzing).
# 2. Runs the targets at once, each for FUZZ_SECONDS (default 60), from those
#    seeds, writing new inputs into a temporary directory (the repository is
#    never written). Any crash, leak, timeout or UBSan report fails the run,
#    naming the artifact, which is kept with the log; see fuzz/README.md for
#    turning it into a regression.
set -u
build=$1
shift
seconds=${FUZZ_SECONDS:-60}
here=$(cd "$(dirname "$0")" && pwd)
# The harnesses choose their own settings; nothing from the caller's shell.
for variable in $(env | sed -n 's/^\(ARROWMETAL_[A-Za-z0-9_]*\)=.*/\1/p'); do unset "$variable"; done
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
work=$(mktemp -d "${TMPDIR:-/tmp}/arrowmetal-fuzz.XXXXXX")
start=$(date +%s)

options() { # libFuzzer options of one target
  local target=$1
  echo "-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=25 -print_final_stats=1"
  if [ -f "$here/$target.dict" ]; then echo "-dict=$here/$target.dict"; fi
}

failed=0
for target in "$@"; do
  files=()
  for dir in "$here/corpus/$target" "$here/regressions/$target"; do
    [ -d "$dir" ] && for f in "$dir"/*; do [ -f "$f" ] && files+=("$f"); done
  done
  if ! "$build/$target" $(options "$target") "${files[@]}" >"$work/$target-replay.log" 2>&1; then
    echo "fuzz: $target: replaying its ${#files[@]} seeds and regressions FAILED:"
    grep -m1 -A30 'ERROR\|runtime error\|check failed' "$work/$target-replay.log" | head -50
    echo "fuzz: $target: the input: $(grep 'Running: ' "$work/$target-replay.log" | tail -1)"
    failed=1
  else
    echo "fuzz: $target: ${#files[@]} seeds and regressions replay clean"
  fi
done
if [ "$failed" != 0 ]; then
  echo "fuzz: logs in $work"
  exit 1
fi

pids=()
for target in "$@"; do
  mkdir -p "$work/$target-corpus"
  seeds=()
  for dir in "$here/corpus/$target" "$here/regressions/$target"; do [ -d "$dir" ] && seeds+=("$dir"); done
  "$build/$target" $(options "$target") -max_total_time="$seconds" \
    -artifact_prefix="$work/$target-" "$work/$target-corpus" "${seeds[@]}" \
    >"$work/$target.log" 2>&1 &
  pids+=($!)
done
i=0
for target in "$@"; do
  if wait "${pids[$i]}"; then
    echo "fuzz: $target: $(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$target.log" |
      grep -o '[0-9]*$') runs in ${seconds} s, nothing found"
  else
    failed=1
    echo "fuzz: $target FAILED:"
    grep -m1 -A30 'ERROR\|runtime error\|check failed' "$work/$target.log" | head -50
    artifact=$(sed -n "s/.*Test unit written to \(.*\)/\1/p" "$work/$target.log" | head -1)
    echo "fuzz: $target: artifact ${artifact:-(none written)}; log $work/$target.log"
  fi
  i=$((i + 1))
done
echo "fuzz: $(($(date +%s) - start)) s"
if [ "$failed" != 0 ]; then
  echo "fuzz: kept $work (see fuzz/README.md: a crash becomes a regression)"
  exit 1
fi
rm -rf "$work"
