#!/usr/bin/env bash
# The model zoo (examples/models) imported and placed: for each model, trained
# at batch 32 (transformers: 8 sequences of 128 tokens) on 8 A100s with the
# catalog's CPU core, the import time, the graph, and what dp, scotch,
# local-search and milp find (milp and local-search under a time limit).
# Wall times are medians of RUNS runs (default 3).
#
#   bench/run_zoo.sh [BUILD_DIR]      default build/release
#
# Prints a Markdown table on stdout; progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${1:-$here/build/release}
dnnplace=$build/dnnplace
runs=${RUNS:-3}
limit=${LIMIT:-30}
[ -x "$dnnplace" ] || { echo "run_zoo.sh: $dnnplace is missing (cmake --build $build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# seconds COMMAND...: the median wall time of the command over $runs runs.
seconds() {
  for _ in $(seq "$runs"); do
    local start end
    start=$(date +%s.%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s.%N)
    echo "$end - $start" | bc
  done | median
}
# objective PLAN: the plan's objective, as solve wrote it.
objective() { grep -m1 '"objective"' "$1" | sed 's/.*: *//; s/,$//'; }

echo "| model | operators | nodes | ideals | import s | dp max-load (ms) | dp s | scotch | local-search ($limit s) | milp ($limit s): plan / bound |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for model in resnet50 inception_v3 vgg16 mobilenet_v2 vit_b_16 bert_base gpt2_small; do
  echo "run_zoo.sh: $model" >&2
  dims=(--dim batch=32)
  case $model in bert_base | gpt2_small) dims=(--dim batch=8 --dim seq=128) ;; esac
  import=("$dnnplace" import onnx "$here/examples/models/$model.onnx" --device a100 --accelerators 8
          --cpus 1 --training "${dims[@]}" --out "$work/w.json")
  summary=$("${import[@]}" 2>&1)
  operators=$(echo "$summary" | sed -n 's/^import onnx: \([0-9]*\) operators.*/\1/p')
  info=$("$dnnplace" info "$work/w.json")
  nodes=$(echo "$info" | sed -n 's/^nodes: *\([0-9]*\).*/\1/p')
  ideals=$(echo "$info" | sed -n 's/^ideals (contracted): *//p')
  import_s=$(seconds "${import[@]}")
  "$dnnplace" solve "$work/w.json" --method dp --out "$work/dp.json" --quiet
  dp_s=$(seconds "$dnnplace" solve "$work/w.json" --method dp --out /dev/null --quiet)
  "$dnnplace" solve "$work/w.json" --method scotch --out "$work/scotch.json" --quiet
  "$dnnplace" solve "$work/w.json" --method local-search --time-limit "$limit" --out "$work/ls.json" --quiet
  "$dnnplace" solve "$work/w.json" --method milp --time-limit "$limit" --out "$work/milp.json" --quiet
  bound=$(grep -m1 '"lowerBound"' "$work/milp.json" | sed 's/.*: *//; s/,$//')
  printf '| %s | %s | %s | %s | %.3f | %.4f | %.3f | %.4f | %.4f | %.4f / %.4f |\n' "$model" "$operators" \
    "$nodes" "$ideals" "$import_s" "$(objective "$work/dp.json")" "$dp_s" "$(objective "$work/scotch.json")" \
    "$(objective "$work/ls.json")" "$(objective "$work/milp.json")" "$bound"
done
