#!/usr/bin/env bash
# The exact throughput DP on wide lattices (issue 26, item 4): generated
# series-parallel graphs with 0.5–1.6 million ideals and 10^9–10^11 (ideal,
# sub-ideal) pairs, 6 accelerators and 1 CPU core, solved with 1 and 2
# threads by this build and by a build to compare with (BEFORE, e.g. main's),
# the two run back to back for each graph. Writes the wide-lattice table to
# the dp-wide section of docs/benchmarks.md (medians of RUNS runs, the plan's
# own `seconds`, the process's CPU seconds from GNU time, the DP's blocks
# examined, blocks and lattice pairs per second).
#
# Usage: bench/run_wide_dp.sh [BUILD_DIR] [BEFORE_CLI]
#   BUILD_DIR   holds the dnnplace executable (env DNNPLACE_BUILD, default ./build)
#   BEFORE_CLI  a dnnplace executable to compare with (env BEFORE; none: only this build)
#   env RUNS (default 3), TIME_LIMIT (seconds per solve, default 300),
#   GRAPHS (default "1,10,3 1,12,2 2,6,7 1,13,2": blocks,width,chain-length each),
#   RESULTS (a file of the JSON lines an earlier run printed: write its table again, solving nothing).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${DNNPLACE_BUILD:-$repo/build}}"
before="${2:-${BEFORE:-}}"
cli="$build/dnnplace"
[[ -x "$cli" ]] || { echo "error: $cli not found (build the dnnplace target first)" >&2; exit 2; }
[[ -z "$before" || -x "$before" ]] || { echo "error: $before is not an executable" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time is required (Debian package time; scripts/dev.sh installs it)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 is required" >&2; exit 2; }

commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo uncommitted)"
if [[ "$commit" != uncommitted ]] && [[ -n "$(git -C "$repo" status --porcelain -- . ":(exclude)docs" 2>/dev/null)" ]]; then
  commit="$commit (+ uncommitted changes)"
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

CLI="$cli" BEFORE_CLI="$before" RUNS="${RUNS:-3}" TIME_LIMIT="${TIME_LIMIT:-300}" TMPDIR_BENCH="$tmp" \
GRAPHS="${GRAPHS:-1,10,3 1,12,2 2,6,7 1,13,2}" COMMIT="$commit" DOC="$repo/docs/benchmarks.md" \
CPU="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown)" \
CORES="$(nproc 2>/dev/null || echo '?')" python3 - <<'PY'
import datetime, json, os, re, statistics, subprocess
from math import comb

cli, before = os.environ["CLI"], os.environ["BEFORE_CLI"]
runs, limit, tmp = int(os.environ["RUNS"]), os.environ["TIME_LIMIT"], os.environ["TMPDIR_BENCH"]
loads = [os.getloadavg()[0]]  # the machine is shared: say how busy it was

def lattice_counts(blocks, width, length):
    """Ideals and (ideal, sub-ideal) pairs of the generated graph: the
    monotone maps of its order onto a chain of 2 (ideals) or 3 (pairs J ⊆ I:
    in J, in I only, outside I) values. The spine (input layer, each block's
    join) fixes a value; between two spine values a..b each of the width
    chains is a non-decreasing sequence of `length` values in a..b."""
    def maps(k):
        spine = [1] * k
        for _ in range(blocks):
            nxt = [0] * k
            for a in range(k):
                for b in range(a, k):
                    nxt[b] += spine[a] * comb(length + b - a, length) ** width
            spine = nxt
        return sum(spine)
    return maps(2), maps(3)

def solve(binary, path, threads):
    times = os.path.join(tmp, "time")
    child = subprocess.run(["/usr/bin/time", "-f", "%U %S", "-o", times, binary, "solve", path,
                            "--method", "dp", "--quiet", "--threads", str(threads),
                            "--time-limit", limit], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    user, system = map(float, open(times).read().split()[-2:])
    if child.returncode != 0:
        return dict(status=f"exit {child.returncode}", seconds=None, cpu=user + system, blocks=None)
    plan = json.loads(child.stdout)
    blocks = re.search(r"(\d+) blocks examined", plan.get("message", ""))
    return dict(status=plan.get("status"), seconds=plan.get("seconds"), cpu=user + system,
                blocks=int(blocks.group(1)) if blocks else None, objective=plan.get("maxLoad"))

def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None

rows = []
# RESULTS: a file of the JSON lines an earlier run printed, to write its table again without solving.
saved = [json.loads(line) for line in open(os.environ["RESULTS"]) if line.startswith("{")] \
    if os.environ.get("RESULTS") else None
for entry in saved or []:
    rows.append(dict(spec=tuple(map(int, entry["graph"].split(","))), ideals=entry["ideals"], pairs=entry["pairs"],
                     results={(k.split()[0], int(k.split()[1])): v for k, v in entry["results"].items()}))
    loads = entry.get("loads", loads)
for spec in ([] if saved else os.environ["GRAPHS"].split()):
    blocks, width, length = map(int, spec.split(","))
    path = os.path.join(tmp, f"sp_{blocks}_{width}_{length}.json")
    subprocess.run([cli, "generate", "series-parallel", "--blocks", str(blocks), "--width", str(width),
                    "--chain-length", str(length), "--accelerators", "6", "--cpus", "1", "--seed", "1",
                    "--out", path], check=True)
    ideals, pairs = lattice_counts(blocks, width, length)
    row = dict(spec=(blocks, width, length), ideals=ideals, pairs=pairs, results={})
    binaries = [("after", cli)] + ([("before", before)] if before else [])
    samples = {(name, t): [] for name, _ in binaries for t in (1, 2)}
    for _ in range(runs):  # the builds and thread counts back to back, round after round
        for name, binary in binaries:
            for threads in (1, 2):
                samples[(name, threads)].append(solve(binary, path, threads))
                loads.append(os.getloadavg()[0])
    for key, results in samples.items():
        row["results"][key] = dict(
            seconds=median([r["seconds"] for r in results]), cpu=median([r["cpu"] for r in results]),
            blocks=median([r["blocks"] for r in results]),
            statuses=sorted({str(r["status"]) for r in results}),
            objectives={r.get("objective") for r in results if r.get("objective") is not None})
    rows.append(row)
    print(json.dumps({"graph": spec, "ideals": ideals, "pairs": pairs, "loads": [min(loads), max(loads)],
                      "results": {f"{k[0]} {k[1]}": v for k, v in row["results"].items()}}, default=list),
          flush=True)

def fmt(x, digits=1):
    return "—" if x is None else f"{x:.{digits}f}"

def sci(x):
    if x is None:
        return "—"
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa}·10^{int(exponent)}"

now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
has_before = bool(before)
lines = ["## Exact throughput DP on wide lattices (dp)", "",
         f"Commit {os.environ['COMMIT']}, {now}; {os.environ['CPU']}, {os.environ['CORES']} cores, shared with "
         f"other work: 1-minute load average {min(loads):.1f}–{max(loads):.1f} during the runs (above 2, "
         "the two threads and often the one do not get a core of their own, so wall seconds overstate "
         "and CPU seconds are the steadier figure). "
         "`dnnplace generate series-parallel --blocks B --width W --chain-length L --accelerators 6 "
         f"--cpus 1 --seed 1`, then `dnnplace solve --method dp --threads T`; median of {runs} run(s)"
         + (", this build and the one compared with run back to back" if has_before else "") + ". "
         "**pairs**: (ideal, sub-ideal) pairs of the lattice, which a DP without pruning would examine; "
         "**blocks**: the blocks the DP examined (its message), summed over all its runs; "
         "**s**: the plan's `seconds` (the whole solve); **CPU s**: user + system seconds of the process; "
         "**blocks/s**, **pairs/s**: per CPU second of the one-thread solve. `bench/run_wide_dp.sh`.", ""]
header = "| B, W, L | ideals | pairs | status |"
rule = "|---|---|---|---|"
if has_before:
    header += " before: s (1 thread) | before: s (2 threads) | before: blocks | before: CPU s (1 thread) |"
    rule += "---|---|---|---|"
header += " s (1 thread) | s (2 threads) | blocks | CPU s (1 / 2 threads) | blocks/s | pairs/s |"
rule += "---|---|---|---|---|---|"
lines += [header, rule]
for r in rows:
    a1, a2 = r["results"][("after", 1)], r["results"][("after", 2)]
    statuses = sorted(set(a1["statuses"]) | set(a2["statuses"]))
    line = f"| {', '.join(map(str, r['spec']))} | {r['ideals']:,} | {sci(r['pairs'])} | {', '.join(statuses)} |"
    if has_before:
        b1, b2 = r["results"][("before", 1)], r["results"][("before", 2)]
        line += (f" {fmt(b1['seconds'])} | {fmt(b2['seconds'])} | {sci(b1['blocks'])} | {fmt(b1['cpu'])} |")
    rate = (lambda n: sci(n / a1["cpu"]) if n and a1["cpu"] else "—")
    line += (f" {fmt(a1['seconds'])} | {fmt(a2['seconds'])} | {sci(a1['blocks'])} | "
             f"{fmt(a1['cpu'])} / {fmt(a2['cpu'])} | {rate(a1['blocks'])} | {rate(r['pairs'])} |")
    lines.append(line)
section = "<!-- BEGIN dp-wide -->\n" + "\n".join(lines) + "\n<!-- END dp-wide -->"
doc = os.environ["DOC"]
text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
pattern = re.compile(r"<!-- BEGIN dp-wide -->.*?<!-- END dp-wide -->", re.S)
if pattern.search(text):
    text = pattern.sub(lambda _: section, text)
elif "<!-- END dp -->" in text:
    text = text.replace("<!-- END dp -->", "<!-- END dp -->\n\n" + section, 1)
else:
    text = text.rstrip("\n") + "\n\n" + section + "\n"
open(doc, "w").write(text)
print("\n".join(lines))
PY
