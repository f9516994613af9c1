#!/usr/bin/env bash
# Makes docs/report.png, the README's picture of a report (docs/render.md): the
# DP plan of one of the paper's workloads (BERT-24 training, layer graph) as
# `solve --report` writes it, photographed by headless Chromium.
# Usage: scripts/screenshots.sh [SHARED_DIR]   (needs build/release and /usr/bin/chromium)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${1:-${DNNPLACE_SHARED:-$here/../shared}}
cli=$here/build/release/dnnplace
workload=$shared/workloads/throughput/LayerGraphs/bert24_training.json
for need in "$cli" /usr/bin/chromium "$workload"; do
  [ -e "$need" ] || { echo "screenshots.sh: $need is missing" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$cli" solve "$workload" --method dp --quiet --out "$work/plan.json" --report "$work/report.html"
/usr/bin/chromium --headless --disable-gpu --no-sandbox --hide-scrollbars --window-size=1280,2300 \
  --screenshot="$here/docs/report.png" "file://$work/report.html" 2>/dev/null
echo "screenshots.sh: wrote docs/report.png"
