#!/usr/bin/env bash
# Re-runs every row of the limits table (docs/benchmarks.md, "Limits") on the
# release build: each adversarial input, the command, its wall time, peak
# memory (maximum resident set size), exit code and the message it printed.
# Inputs are written by bench/limit_inputs.cpp (deterministic) into a
# temporary folder; nothing in the repository changes.
#
#   bench/run_limits.sh [BUILD_DIR] [ROWS...]      default build/release, all rows
#
# Prints a Markdown table on stdout; progress on stderr.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/release}
shift || true
rows=("$@")
shared=${DNNPLACE_SHARED:-$here/../shared}
dnnplace=$build/dnnplace
inputs=$build/bench/limit_inputs
for binary in "$dnnplace" "$inputs"; do
  [ -x "$binary" ] || { echo "run_limits.sh: $binary is missing (cmake --build $build)" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "run_limits.sh: /usr/bin/time is missing (Debian package time)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

wanted() { [ ${#rows[@]} -eq 0 ] || [[ " ${rows[*]} " == *" $1 "* ]]; }

echo "| row | command | wall s | peak RSS MB | exit | message |"
echo "|---|---|---|---|---|---|"

# run ROW LABEL COMMAND...: the command under /usr/bin/time, 600 s at most.
run() {
  local row=$1 label=$2
  shift 2
  echo "run_limits.sh: $row: $label" >&2
  local status=0
  /usr/bin/time -f "%e %M" -o "$work/time" timeout -s INT 600 "$@" >"$work/out" 2>"$work/err" || status=$?
  report "$row" "$label" "$status"
}

report() {  # row, label, exit status (reads $work/time and $work/err)
  local wall rss message
  read -r wall rss < <(grep -E '^[0-9.]+ [0-9]+$' "$work/time" | tail -1)
  # What a human reads: the summary and message (or the error) on stderr,
  # else the first two lines of the result (evaluate prints its summary there).
  message=$( (grep -v '^\s*$' "$work/err" || head -2 "$work/out" 2>/dev/null || true) | head -2 |
    tr -s ' \n' ' ' | cut -c1-300 | sed 's/|/\\|/g')
  printf '| %s | %s | %.1f | %d | %d | %s |\n' "$1" "$2" "$wall" "$((rss / 1024))" "$3" "$message"
}

d=$dnnplace
if wanted D1; then
  regression=$here/tests/fuzz/regressions/pipeline-dp-cost-1e16.json
  for method in dp dp-linear pipedream; do
    run D1 "3 nodes, costs 1e16 and 1: solve --method $method" "$d" solve "$regression" --method "$method"
  done
  run D1 "same: compare" "$d" compare "$regression" --time-limit 2
fi
if wanted D2; then
  "$inputs" chain 46340 46340 46340 "$work/d2.json"
  run D2 "chain 46,340, k = l = 46,340: dp --time-limit 10" "$d" solve "$work/d2.json" --method dp --time-limit 10
fi
if wanted D3; then
  "$inputs" chain 20000 20000 20000 "$work/d3.json"
  run D3 "chain 20,000, k = l = 20,000: dp --time-limit 2 --memory-limit 1e8" \
    "$d" solve "$work/d3.json" --method dp --time-limit 2 --memory-limit 100000000
fi
if wanted D4 || wanted D5 || wanted D6; then "$inputs" random-dag 2000 "$work/dag.json"; fi
if wanted D4; then
  run D4 "random DAG 2,000: milp --time-limit 5" "$d" solve "$work/dag.json" --method milp --time-limit 5
fi
if wanted D5; then
  run D5 "random DAG 2,000: milp latency --q 64 --time-limit 5" \
    "$d" solve "$work/dag.json" --method milp --objective latency --q 64 --time-limit 5
  run D5 "ResNet-50 operators: milp latency --q 64 --time-limit 2" \
    "$d" solve "$shared/workloads/latency/OperatorGraphs/resnet50_inference.json" --method milp \
    --objective latency --q 64 --time-limit 2
fi
if wanted D6; then
  # SIGINT 4 s after the start; the wall time minus 4 is the time to stop.
  echo "run_limits.sh: D6: milp --time-limit 120, SIGINT at 4 s" >&2
  status=0
  /usr/bin/time -f "%e %M" -o "$work/time" bash -c \
    '"$1" solve "$2" --method milp --time-limit 120 >/dev/null 2>"$3" & pid=$!; sleep 4; kill -INT $pid; wait $pid' \
    _ "$d" "$work/dag.json" "$work/err" || status=$?
  report D6 "random DAG 2,000: milp --time-limit 120, SIGINT at 4 s" "$status"
fi
if wanted D7 || wanted D12; then "$inputs" dense-dag 3000 2250000 "$work/dense.json"; fi
if wanted D7; then
  run D7 "dense DAG 3,000 nodes, 2.25 M edges: scotch --time-limit 2" \
    "$d" solve "$work/dense.json" --method scotch --time-limit 2
fi
if wanted D8; then
  "$inputs" chain 15000 1000000 0 "$work/d8a.json"
  "$inputs" chain 20000 20000 0 "$work/d8b.json"
  run D8 "chain 15,000, 10^6 accelerators: greedy latency --time-limit 2" \
    "$d" solve "$work/d8a.json" --method greedy --objective latency --time-limit 2
  run D8 "chain 20,000, 20,000 accelerators: greedy latency --time-limit 2" \
    "$d" solve "$work/d8b.json" --method greedy --objective latency --time-limit 2
fi
if wanted D9; then
  "$inputs" one-per-device 100000 "$work/d9.json"
  "$inputs" one-per-device-plan 100000 "$work/d9.plan.json"
  run D9 "chain 10^5, one node per accelerator: evaluate latency" \
    "$d" evaluate "$work/d9.json" "$work/d9.plan.json" --objective latency
fi
if wanted D10; then
  "$inputs" one-per-device 600000 "$work/d10.json"
  "$inputs" one-per-device-plan 600000 "$work/d10.plan.json"
  run D10 "plan of 600,000 devices, one node each: evaluate" \
    "$d" evaluate "$work/d10.json" "$work/d10.plan.json"
fi
if wanted D11; then
  echo "run_limits.sh: D11: an endless standard input" >&2
  status=0
  /usr/bin/time -f "%e %M" -o "$work/time" bash -c 'yes " " | timeout -s INT 600 "$1" info - 2>"$2" >/dev/null' \
    _ "$d" "$work/err" || status=$?
  report D11 "endless standard input: info -" "$status"
  mkfifo "$work/fifo"
  yes " " >"$work/fifo" 2>/dev/null &
  writer=$!
  run D11 "endless FIFO: info FIFO" "$d" info "$work/fifo"
  kill "$writer" 2>/dev/null || true
fi
if wanted D12; then
  run D12 "dense DAG: compare --time-limit 2" "$d" compare "$work/dense.json" --time-limit 2
fi
