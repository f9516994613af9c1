#!/usr/bin/env bash
# dp --replicate against the pure DP where solving takes real time: generated
# graphs whose lattices have 10^4-10^5 ideals, k = 16 accelerators and one
# CPU core, syncBandwidth 10 GB/s (1e7 bytes per ms) and each node's size as
# its parameterSize. Wall seconds of `solve --method dp [--replicate]` with
# 1 and 2 threads, median of RUNS runs, and the blocks the DP examined.
# Prints a markdown table (docs/benchmarks.md, "Replication speed on larger
# lattices").
#
# Usage: bench/run_replication_large.sh [BUILD_DIR]     env RUNS (default 3)
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cli="${1:-$repo/build/release}/dnnplace"
[[ -x "$cli" ]] || { echo "error: $cli not found (build the dnnplace target first)" >&2; exit 2; }
CLI="$cli" RUNS="${RUNS:-3}" COMMIT="$(git -C "$repo" rev-parse --short HEAD)" /usr/bin/python3 - <<'PY'
import datetime, json, os, re, statistics, subprocess, tempfile, time
cli, runs = os.environ["CLI"], int(os.environ["RUNS"])
tmp = tempfile.mkdtemp(prefix="dnnplace-replication-large-")
graphs = [("transformer --blocks 4 --width 4", "transformer B=4 W=4"),
          ("transformer --blocks 6 --width 4", "transformer B=6 W=4"),
          ("transformer --blocks 8 --width 4", "transformer B=8 W=4"),
          ("series-parallel --blocks 1 --width 8 --chain-length 3", "series-parallel B=1 W=8 L=3")]
print(f"Commit {os.environ['COMMIT']}, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; "
      f"{os.cpu_count()} cores, 1-minute load average {os.getloadavg()[0]:.1f} at the start; "
      f"median of {runs} runs.\n")
print("| graph (k = 16) | ideals | dp s (1 / 2 threads) | dp --replicate s (1 / 2 threads) | ratio (2 threads) | blocks: dp / --replicate | dp | dp --replicate |")
print("|---|---|---|---|---|---|---|---|")
for spec, name in graphs:
    path = os.path.join(tmp, "w.json")
    subprocess.run([cli, "generate", *spec.split(), "--accelerators", "16", "--cpus", "1", "--seed", "1",
                    "--out", path], check=True)
    w = json.load(open(path))
    w["syncBandwidth"] = 1e7
    for n in w["nodes"]:
        n["parameterSize"] = n["size"]
    json.dump(w, open(path, "w"))
    row = {}
    for mode in ("", "--replicate"):
        for threads in (1, 2):
            times = []
            for _ in range(runs):
                start = time.monotonic()
                run = subprocess.run([cli, "solve", path, "--method", "dp", *mode.split(), "--threads",
                                      str(threads), "--time-limit", "600", "--out", os.path.join(tmp, "p.json")],
                                     capture_output=True, text=True, check=True)
                times.append(time.monotonic() - start)
            plan = json.load(open(os.path.join(tmp, "p.json")))
            blocks = re.findall(r"(\d+) blocks", plan["message"])
            ideals = re.findall(r"(\d+) ideals", plan["message"])
            row[(mode, threads)] = (statistics.median(times), plan["maxLoad"], plan["status"],
                                    blocks[-1] if blocks else "?", ideals[-1] if ideals else "?")
    p1, p2, r1, r2 = row[("", 1)], row[("", 2)], row[("--replicate", 1)], row[("--replicate", 2)]
    print(f"| {name} | {p1[4]} | {p1[0]:.2f} / {p2[0]:.2f} | {r1[0]:.2f} / {r2[0]:.2f} | {r2[0] / p2[0]:.1f} "
          f"| {int(p1[3]):,} / {int(r1[3]):,} | {p1[1]:.4f} | {r1[1]:.4f} ({r1[2]}) |")
PY
