#!/usr/bin/env bash
# The render benchmark (issue #25, docs/render.md): `dnnplace render` of a
# generated operator graph of about 4,000 nodes (a training transformer) in the
# default view (one box per device block), as an HTML report and as the graph
# SVG; median wall time of ROUNDS runs (default 5). The full view (every node
# laid out by Graphviz) is timed once, for information. Writes the section
# "render" of docs/benchmarks.md.
# Usage: bench/run_render_benchmark.sh [ROUNDS]   (needs build/release)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cli=$here/build/release/dnnplace
rounds=${1:-5}
[ -x "$cli" ] || { echo "run_render_benchmark.sh: build/release/dnnplace is needed" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

workload=$work/transformer.json plan=$work/plan.json
"$cli" generate transformer --blocks 48 --width 4 --training --accelerators 8 --cpus 2 --out "$workload"
nodes=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["nodes"]))' "$workload")
"$cli" solve "$workload" --method dp-linear --quiet --out "$plan"

seconds() {  # command... : wall seconds of one run
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null
  end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
median() { printf '%s\n' "$@" | sort -g | sed -n "$(($# / 2 + 1))p"; }

html=() svg=()
for ((r = 0; r < rounds; ++r)); do
  html+=("$(seconds "$cli" render "$workload" "$plan" --out "$work/report.html")")
  svg+=("$(seconds "$cli" render "$workload" "$plan" --out "$work/graph.svg")")
done
full=$(seconds timeout 600 "$cli" render "$workload" "$plan" --detail full --out "$work/full.svg" || echo "")
mh=$(median "${html[@]}") ms=$(median "${svg[@]}")
if [ -n "$full" ]; then full=$(printf '%.1f' "$full"); else full="over 600"; fi
commit=$(git -C "$here" rev-parse --short HEAD)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
graphviz=$(dot -V 2>&1 | sed 's/.*version \([0-9.]*\).*/\1/')
section=$(cat <<TABLE
## Rendering (render)

Commit $commit, $(date -u '+%Y-%m-%d %H:%M UTC'); $cpu, $(nproc) cores (shared with other work); Graphviz $graphviz as a library (\`bench/run_render_benchmark.sh\`). A generated training transformer (\`generate transformer --blocks 48 --width 4 --training\`, $nodes nodes) placed by \`dp-linear\` on 8 accelerators; wall time of \`dnnplace render\` including loading the workload and plan, median of $rounds runs. Target: under 5 s in the default view.

| view | output | median s | runs (s) |
|---|---|---|---|
| default (one box per device block) | report .html | $(printf '%.3f' "$mh") | $(printf '%.3f ' "${html[@]}") |
| default (one box per device block) | graph .svg | $(printf '%.3f' "$ms") | $(printf '%.3f ' "${svg[@]}") |
| --detail full (every node) | graph .svg | $full | one run |
TABLE
)
/usr/bin/python3 - "$here/docs/benchmarks.md" "$section" <<'PY'
import sys
path, section = sys.argv[1], sys.argv[2]
text = open(path).read()
begin, end = "<!-- BEGIN render -->", "<!-- END render -->"
block = begin + "\n" + section + "\n" + end
if begin in text:
    text = text[:text.index(begin)] + block + text[text.index(end) + len(end):]
else:
    text = text.rstrip("\n") + "\n\n" + block + "\n"
open(path, "w").write(text)
PY
echo "$section"
