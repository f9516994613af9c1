#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, AddressSanitizer + UndefinedBehaviorSanitizer)
# and runs each: first once over its regression inputs (tests/fuzz/regressions/,
# named TARGET-*.json), then coverage-guided fuzzing for FUZZ_SECONDS seconds
# (default 60) from its seed corpus (tests/fuzz/corpus/TARGET/; the pipeline
# target's is the workload corpus) and its regression inputs, copied, so the
# repository is not written. A finding is saved in the build folder and fails the run.
#
# The onnx target starts from the model zoo (examples/models) and takes inputs
# of up to 256 KiB, the others up to 8 KiB.
#
#   scripts/fuzz.sh [TARGET...]     targets: workload plan pipeline onnx (default: all)
#   env FUZZ_SECONDS, FUZZ_BUILD (default build/fuzz)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"
seconds=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build/fuzz}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(workload plan pipeline onnx)

# A build folder already configured for fuzzing (dev.sh test's sanitizer build) is used as it is.
if ! grep -q '^DNNPLACE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
  CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDNNPLACE_FUZZ=ON \
    -DDNNPLACE_SANITIZE=ON -DDNNPLACE_BUILD_TESTS=OFF -DDNNPLACE_BUILD_BENCH=OFF -DDNNPLACE_WERROR=ON >/dev/null
fi
cmake --build "$build" -j"$(nproc 2>/dev/null || echo 2)" --target "${targets[@]/%/_fuzz}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for target in "${targets[@]}"; do
  binary="$build/tests/fuzz/${target}_fuzz"
  regressions=(tests/fuzz/regressions/"$target"-*)
  if [ -e "${regressions[0]}" ]; then
    echo "fuzz.sh: $target: ${#regressions[@]} regression inputs" >&2
    "$binary" "${regressions[@]}" 2>"$build/$target.regressions.log" ||
      { tail -30 "$build/$target.regressions.log" >&2; exit 1; }
  fi
  corpus=$(mktemp -d)
  # The pipeline target reads workloads: it starts from the workload corpus.
  seeds=tests/fuzz/corpus/"$target"
  [ "$target" = pipeline ] && seeds=tests/fuzz/corpus/workload
  [ "$target" = onnx ] && seeds=examples/models
  maxlen=8192
  [ "$target" = onnx ] && maxlen=262144
  cp "$seeds"/*.* "$corpus"/
  rm -f "$corpus"/README.md
  [ -e "${regressions[0]}" ] && cp "${regressions[@]}" "$corpus"/
  echo "fuzz.sh: $target: fuzzing for $seconds s" >&2
  if ! "$binary" "$corpus" -max_total_time="$seconds" -max_len="$maxlen" -rss_limit_mb=2048 -timeout=20 \
       -artifact_prefix="$build/$target-" -print_final_stats=1 >"$build/$target.log" 2>&1; then
    tail -40 "$build/$target.log" >&2
    rm -rf "$corpus"
    echo "fuzz.sh: $target: a finding, saved as $build/$target-*" >&2
    exit 1
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$build/$target.log" | sed "s/^/fuzz.sh: $target: /" >&2
  rm -rf "$corpus"
done
