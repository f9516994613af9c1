#!/usr/bin/env bash
# Benchmarks of the exact throughput DP: runs `dnnplace solve --method dp
# --quiet` on every shipped throughput workload several times and on generated
# series-parallel graphs of 6.5·10^4 to 10^6 ideals, then writes the tables
# (median solve seconds, the DP's own memory and the process's peak resident
# MB, ideals, optimum, reference figures) to the dp section of
# docs/benchmarks.md, with the commit and the date.
#
# Usage: bench/run_benchmarks.sh [BUILD_DIR] [SHARED_DIR]
#   BUILD_DIR  holds the dnnplace executable   (env DNNPLACE_BUILD, default ./build)
#   SHARED_DIR holds workloads/ and expected/  (env DNNPLACE_SHARED, default ../shared)
#   env RUNS (default 5), THREADS (default: the machine's cores, as the CLI), BIG_TIME_LIMIT (seconds, default 60),
#   BIG_RUNS (default 1), SKIP_BIG=1 to leave out the generated graphs of 6.5·10^4 to 10^6 ideals.
# Peak memory comes from GNU time (/usr/bin/time, Debian package "time", which
# scripts/dev.sh installs).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${DNNPLACE_BUILD:-$repo/build}}"
shared="${2:-${DNNPLACE_SHARED:-$repo/../shared}}"
runs="${RUNS:-5}"
threads="${THREADS:-$(nproc 2>/dev/null || echo 1)}"
big_limit="${BIG_TIME_LIMIT:-60}"
cli="$build/dnnplace"
[[ -x "$cli" ]] || { echo "error: $cli not found (build the dnnplace target first)" >&2; exit 2; }
[[ -f "$shared/expected/throughput.json" ]] || { echo "error: $shared/expected/throughput.json not found" >&2; exit 2; }
command -v python3 >/dev/null || { echo "error: python3 is required" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time is required (Debian package time; scripts/dev.sh installs it)" >&2; exit 2; }

commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo uncommitted)"
if [[ "$commit" != uncommitted ]] && [[ -n "$(git -C "$repo" status --porcelain -- . ":(exclude)docs" 2>/dev/null)" ]]; then  # the tables the scripts write do not count
  commit="$commit (+ uncommitted changes)"
fi
cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown)"
cores="$(nproc 2>/dev/null || echo '?')"

big=""
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [[ "${SKIP_BIG:-0}" != 1 ]]; then
  # One block of w parallel chains of 3 layers: 4^w + 2 ideals (65,538,
  # 262,146 and 1,048,578), to show where exact solving stops.
  for width in 8 9 10; do
    "$cli" generate series-parallel --blocks 1 --width "$width" --seed 1 --out "$tmp/series_parallel_w$width.json"
    big="${big:+$big:}$tmp/series_parallel_w$width.json"
  done
fi

TMPDIR_BENCH="$tmp" BIG_RUNS="${BIG_RUNS:-1}" CLI="$cli" SHARED="$shared" RUNS="$runs" THREADS="$threads" BIG="$big" BIG_LIMIT="$big_limit" \
COMMIT="$commit" CPU="$cpu" CORES="$cores" DOC="$repo/docs/benchmarks.md" python3 - <<'PY'
import datetime, json, os, re, statistics, subprocess

cli, shared = os.environ["CLI"], os.environ["SHARED"]
runs, threads = int(os.environ["RUNS"]), os.environ["THREADS"]
expected = json.load(open(os.path.join(shared, "expected", "throughput.json")))["workloads"]
load_at_start = os.getloadavg()[0]  # the machine is shared: say how busy it was

def run(args):
    """Runs the CLI under GNU time; returns (exit code, stdout, peak resident MB).
    The peak comes from GNU time, whose small process is what the CLI is exec'd
    from: a child forked from Python would report Python's own resident set
    (about 10 MB) as its peak."""
    rss_file = os.path.join(os.environ["TMPDIR_BENCH"], "rss")
    child = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", rss_file, cli] + args,
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    peak_kb = float(open(rss_file).read().strip().splitlines()[-1])
    return child.returncode, child.stdout, peak_kb / 1024.0

def ideals(path):
    code, out, _ = run(["info", path])
    match = re.search(rb"ideals \(contracted\):\s*(\d+)", out)
    return int(match.group(1)) if match and code == 0 else None

def dp_bytes(message):
    """The DP's own memory (lattice + tables) as the solver reports it in its message, or None."""
    match = re.search(r"DP memory: lattice (\d+) bytes \+ tables (\d+) bytes", message or "")
    if match:
        return (int(match.group(1)) + int(match.group(2))) / 1e6
    # A run stopped by a limit says "about 1.2 GB in use" (same accounting, rounded).
    match = re.search(r"about ([\d.]+) (MB|GB) in use", message or "")
    return float(match.group(1)) * (1000 if match.group(2) == "GB" else 1) if match else None

def measure(path, extra, repeat=None):
    """Median in-process solve seconds (the plan's `seconds`), max peak RSS MB,
    DP-own MB, objective."""
    solves, peaks, dp_mb, objective, codes, statuses = [], [], None, None, set(), set()
    lower = None
    command = ["solve", path, "--method", "dp", "--quiet", "--threads", threads] + extra
    for _ in range(repeat or runs):
        code, out, peak = run(command)
        peaks.append(peak)
        codes.add(code)
        if code == 0:
            plan = json.loads(out)
            objective = plan.get("maxLoad")
            lower = plan.get("lowerBound")
            statuses.add(str(plan.get("status")))
            if plan.get("seconds") is not None:
                solves.append(float(plan["seconds"]))
            dp_mb = dp_bytes(plan.get("message")) or dp_mb
    measure.statuses = statuses
    return dict(solve=statistics.median(solves) if solves else None,
                solve_range=(min(solves), max(solves)) if solves else None,
                peak=max(peaks), dp_mb=dp_mb, objective=objective, lower=lower, codes=codes)

rows = []
for name, figures in expected.items():
    if "dp_optimum" not in figures:
        continue
    path = os.path.join(shared, "workloads", name)
    m = measure(path, [])
    reference = figures.get("reference_implementation", {})
    m.update(name=name.replace("throughput/", ""), ideals=ideals(path), ref_s=reference.get("dp_seconds"),
             ref_mb=reference.get("dp_peak_mb"), outcome=reference.get("dp_outcome"))
    m["match"] = m["objective"] is not None and abs(m["objective"] - figures["dp_optimum"]) <= 1e-6 * figures["dp_optimum"]
    rows.append(m)

big_rows = []
for big in filter(None, os.environ.get("BIG", "").split(":")):
    row = measure(big, ["--time-limit", os.environ["BIG_LIMIT"]], int(os.environ["BIG_RUNS"]))
    row.update(width=re.search(r"_w(\d+)\.json$", big).group(1), ideals=ideals(big),
               statuses=sorted(measure.statuses))
    big_rows.append(row)

def fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}f}"

now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
lines = ["## Exact throughput DP (dp)", "",
         f"Commit {os.environ['COMMIT']}, {now}; {os.environ['CPU']}, {os.environ['CORES']} cores "
         f"(shared with other work; 1-minute load average {load_at_start:.1f} when the run started); `dnnplace solve W --method dp --quiet --threads {threads}`, {runs} runs each. "
         "**Reference s / MB**: the paper authors' program on this class of machine (`expected/throughput.json`). "
         "It has no clock of its own (it reads the workload on standard input and prints the plan: "
         "`throughput-dp/dp.cpp` of msr-fiddle/dnn-partitioning), so its figures are its whole process's wall time "
         "and peak resident memory, to 10 ms and 1 MB. "
         "**solve s** = median in-process solve time, the plan's `seconds` field (contraction, "
         "seeding, ideal enumeration, DP, backtracking); **solve speed-up** = reference s / solve s. "
         "**DP MB** = the DP's own data (ideal lattice + DP tables, as the solver reports it); **RSS MB** = "
         "the process's peak resident set (GNU time), which includes the executable's start-up and the parsed "
         "workload. Memory ratio = reference MB / RSS MB. `bench/run_benchmarks.sh`.", "",
         "| workload | ideals | solve s | DP MB | RSS MB | optimum | = reference | reference s | reference MB | solve speed-up | memory ratio |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
for r in rows:
    def speedup(ours):
        return (f"{r['ref_s'] / ours:.0f}×" if r["ref_s"] and ours else
                ("reference did not finish" if r["outcome"] else "—"))
    ratio = f"{r['ref_mb'] / r['peak']:.1f}×" if r["ref_mb"] else "—"
    lines.append(f"| {r['name']} | {r['ideals'] if r['ideals'] is not None else '—'} | "
                 f"{fmt(r['solve'], 4)} | {fmt(r['dp_mb'], 2)} | {fmt(r['peak'], 1)} | {fmt(r['objective'], 6)} | "
                 f"{'yes' if r['match'] else 'NO (exit ' + str(sorted(r['codes'])) + ')'} | "
                 f"{fmt(r['ref_s'], 2) if r['ref_s'] else (r['outcome'] or '—')} | {fmt(r['ref_mb'], 0) if r['ref_mb'] else '—'} | "
                 f"{speedup(r['solve'])} | {ratio} |")
if big_rows:
    lines += ["", f"Generated series-parallel graphs (`dnnplace generate series-parallel --blocks 1 --width W --seed 1`: "
              f"one block of W parallel 3-layer chains, 4 accelerators, 1 CPU core), time limit {os.environ['BIG_LIMIT']} s, "
              f"{os.environ['BIG_RUNS']} run(s) each. 'feasible' means the time limit stopped the exact DP: the plan is the best "
              "seed plan and the lower bound is the one proven before the limit.", "",
              "| W | ideals | status | solve s (median) | solve s (each run, lowest–highest) | DP MB | RSS MB | max-load | lower bound |",
              "|---|---|---|---|---|---|---|---|---|"]
    for r in big_rows:
        spread = "—" if not r["solve_range"] else f"{r['solve_range'][0]:.2f}–{r['solve_range'][1]:.2f}"
        lines.append(f"| {r['width']} | {r['ideals'] if r['ideals'] is not None else '—'} | {', '.join(r['statuses']) or '—'} | "
                     f"{fmt(r['solve'], 2)} | {spread} | {fmt(r['dp_mb'], 1)} | {fmt(r['peak'], 1)} | {fmt(r['objective'], 6)} | "
                     f"{fmt(r['lower'], 6)} |")
section = "<!-- BEGIN dp -->\n" + "\n".join(lines) + "\n<!-- END dp -->"

doc = os.environ["DOC"]
text = open(doc).read() if os.path.exists(doc) else "# Benchmarks\n"
pattern = re.compile(r"<!-- BEGIN dp -->.*?<!-- END dp -->", re.S)
text = pattern.sub(lambda _: section, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + section + "\n"
os.makedirs(os.path.dirname(doc), exist_ok=True)
open(doc, "w").write(text)
print("\n".join(lines))
PY
