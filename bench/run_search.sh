#!/usr/bin/env bash
# Method "search" (src/search/): docs/benchmarks.md, section "Search (search)".
#
#  1. The scale probe: `generate transformer --blocks 48 --width 32
#     --accelerators 16` (11,431 operator nodes; the generator has no
#     --granularity option, its transformer is operator-level already and the
#     width, heads per block, takes it past 10,000 nodes). `search` with
#     --time-limit 60 for seeds 1..RUNS under /usr/bin/time -v (peak resident
#     set), beside dp-linear (and the DP along every seed order, from
#     search's message), pipedream, local-search at 60 s (LS_RUNS seeds) and
#     dp at 60 s (2 GB memory limit: its lattice cannot be enumerated).
#  2. order_chain_bench: the per-order DP alone on the probe, orders per second.
#  3. The 15 shipped throughput workloads: search at SHIPPED_LIMIT seconds
#     (seeds 1..RUNS; median and worst), search --contiguity convex (chains
#     only, seed 1), beside dp (the exact contiguous optimum) and dp-linear.
#
# Usage: bench/run_search.sh [BUILD_DIR] [SHARED_DIR]
#   env RUNS (default 3), LS_RUNS (default 1), PROBE_LIMIT (default 60),
#       SHIPPED_LIMIT (default 10), ONLY=probe|shipped
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${DNNPLACE_BUILD:-$repo/build/release}}"
shared="${2:-${DNNPLACE_SHARED:-$repo/../shared}}"
cli="$build/dnnplace"
[[ -x "$cli" ]] || { echo "error: $cli not found (build the dnnplace target first)" >&2; exit 2; }
[[ -d "$shared/workloads/throughput" ]] || { echo "error: $shared/workloads/throughput not found" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "error: /usr/bin/time (GNU time) not found" >&2; exit 2; }

commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo uncommitted)"
if [[ "$commit" != uncommitted ]] && [[ -n "$(git -C "$repo" status --porcelain -- . ":(exclude)docs" 2>/dev/null)" ]]; then
  commit="$commit (+ uncommitted changes)"
fi

CLI="$cli" BUILD="$build" SHARED="$shared" COMMIT="$commit" REPO="$repo" RUNS="${RUNS:-3}" \
LS_RUNS="${LS_RUNS:-1}" PROBE_LIMIT="${PROBE_LIMIT:-60}" SHIPPED_LIMIT="${SHIPPED_LIMIT:-10}" \
ONLY="${ONLY:-}" /usr/bin/python3 - <<'PY'
import datetime, glob, json, os, re, statistics, subprocess, sys, tempfile

cli, build, shared, repo = os.environ["CLI"], os.environ["BUILD"], os.environ["SHARED"], os.environ["REPO"]
runs, ls_runs = int(os.environ["RUNS"]), int(os.environ["LS_RUNS"])
probe_limit, shipped_limit = os.environ["PROBE_LIMIT"], os.environ["SHIPPED_LIMIT"]
only = os.environ["ONLY"]
tmp = tempfile.mkdtemp(prefix="dnnplace-search-")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")

def load():
    return open("/proc/loadavg").read().split()[0]

loads = [load()]

def solve(workload, method, *extra, seed=1, limit=None, measure=False):
    """The plan JSON, the stderr summary and GNU time's peak RSS (bytes) and wall seconds."""
    out = os.path.join(tmp, "plan.json")
    args = [cli, "solve", workload, "--method", method, "--seed", str(seed), "--verbose",
            "--out", out] + (["--time-limit", str(limit)] if limit else []) + list(extra)
    if measure:
        args = ["/usr/bin/time", "-v"] + args
    run = subprocess.run(args, capture_output=True, text=True)
    loads.append(load())
    if run.returncode not in (0, 3, 4):
        sys.exit(f"error: {' '.join(args)}: {run.stderr.strip()}")
    plan = json.load(open(out)) if run.returncode == 0 else {"maxLoad": None, "message": run.stderr.strip()}
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", run.stderr)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", run.stderr)
    genetic = re.search(r"genetic ([\d.]+) s", run.stderr)
    plan["_rss"] = int(rss.group(1)) * 1024 if rss else None
    plan["_wall"] = (int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))) if wall else None
    plan["_genetic"] = float(genetic.group(1)) if genetic else None
    return plan

def orders(plan):
    m = re.search(r"(\d+) orders solved", plan.get("message", ""))
    return int(m.group(1)) if m else None

def seed_values(plan):
    m = re.search(r"the DP along the seeds: (.*?)(?:; local search|$)", plan.get("message", ""))
    return m.group(1) if m else "?"

def fmt(x, digits=3):
    return "—" if x is None else f"{x:.{digits}f}"

def replace_section(path, begin, end, text):
    doc = open(path).read() if os.path.exists(path) else ""
    block = f"{begin}\n{text}\n{end}"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    doc = pattern.sub(lambda _: block, doc) if pattern.search(doc) else doc.rstrip() + "\n\n" + block + "\n"
    open(path, "w").write(doc)

lines = []
if only in ("", "probe"):
    probe = os.path.join(tmp, "transformer48.json")
    subprocess.run([cli, "generate", "transformer", "--blocks", "48", "--width", "32", "--accelerators", "16",
                    "--out", probe], check=True)
    nodes = len(json.load(open(probe))["nodes"])
    searches = [solve(probe, "search", "--threads", "2", seed=s, limit=probe_limit, measure=True)
                for s in range(1, runs + 1)]
    linear = solve(probe, "dp-linear", measure=True)
    pipedream = solve(probe, "pipedream", measure=True)
    local = [solve(probe, "local-search", seed=s, limit=probe_limit, measure=True) for s in range(1, ls_runs + 1)]
    dp = solve(probe, "dp", "--memory-limit", "2000000000", limit=probe_limit, measure=True)
    by_load = sorted(searches, key=lambda p: p["maxLoad"])
    median = by_load[len(by_load) // 2]
    bound = median["lowerBound"]
    rate = [orders(p) / p["_genetic"] * 60 for p in searches if orders(p) and p["_genetic"]]
    lines += [
        "### Scale probe",
        "",
        f"`generate transformer --blocks 48 --width 32 --accelerators 16`: {nodes} operator nodes, 16 "
        "accelerators and a CPU core (the generator has no `--granularity` option: its transformer is "
        "operator-level, and 32 heads per block take it past 10,000 nodes). "
        f"`solve --method search --time-limit {probe_limit} --threads 2 --seed S` for S = 1..{runs}, each under "
        "`/usr/bin/time -v`. The bound is `objective::throughputLowerBound` (work over k + ℓ devices). "
        "(Issue 26's other probe, PipeDream's measured NASNet-mobile profile, is not in the shared "
        "folder's `profiles/`: not run.)",
        "",
        "| method | max-load | gap to the bound | wall s | peak RSS |",
        "|---|---|---|---|---|",
        f"| search (median of {runs}) | {fmt(median['maxLoad'])} | {100 * median['gap']:.2f}% | "
        f"{fmt(statistics.median(p['_wall'] for p in searches), 1)} | "
        f"{max(p['_rss'] for p in searches) / 2**20:.0f} MiB (largest) |",
        f"| search (worst of {runs}) | {fmt(by_load[-1]['maxLoad'])} | {100 * by_load[-1]['gap']:.2f}% | | |",
        f"| dp-linear | {fmt(linear['maxLoad'])} | {100 * (1 - bound / linear['maxLoad']):.2f}% | "
        f"{fmt(linear['_wall'], 1)} | {linear['_rss'] / 2**20:.0f} MiB |",
        f"| pipedream | {fmt(pipedream['maxLoad'])} | {100 * (1 - bound / pipedream['maxLoad']):.2f}% | "
        f"{fmt(pipedream['_wall'], 1)} | {pipedream['_rss'] / 2**20:.0f} MiB |",
    ]
    for i, p in enumerate(local):
        lines.append(f"| local-search {probe_limit} s, seed {i + 1} | {fmt(p['maxLoad'])} | "
                     f"{100 * (1 - bound / p['maxLoad']):.2f}% | {fmt(p['_wall'], 1)} | {p['_rss'] / 2**20:.0f} MiB |")
    dp_gap = f"{100 * (1 - bound / dp['maxLoad']):.2f}%" if dp["maxLoad"] else "—"
    lines += [
        f"| dp {probe_limit} s, --memory-limit 2e9 | {fmt(dp['maxLoad'])} | {dp_gap} | {fmt(dp['_wall'], 1)} | "
        f"{dp['_rss'] / 2**20:.0f} MiB |",
        "",
        f"The DP along each seed order (search's message, seed 1): {seed_values(searches[0])}. "
        f"Orders solved per minute of the genetic phase (2 threads): "
        f"{', '.join(f'{r:.0f}' for r in rate)}. dp's note: {dp.get('message', '')[:200]}",
        "",
        f"search's note (median run): {median['message']}",
        "",
    ]
    bench = os.path.join(build, "bench", "order_chain_bench")
    if os.path.exists(bench):
        run = subprocess.run([bench, "--benchmark_format=json", "--benchmark_repetitions=3",
                              "--benchmark_report_aggregates_only=true"], capture_output=True, text=True, check=True)
        rows = [b for b in json.loads(run.stdout)["benchmarks"] if b.get("aggregate_name") == "median"]
        lines += ["The per-order DP alone (`bench/order_chain_bench`, one thread, median of 3 repetitions) on the "
                  "probe's contracted graph, along orders with a window shuffled as the search's mutants:", "",
                  "| cut | ms per order (CPU) | orders per minute | interval steps per order |", "|---|---|---|---|"]
        for b in rows:
            lines.append(f"| {b['run_name'].split('/')[-1].replace('_', ' ')} | {b['cpu_time']:.1f} | "
                         f"{b['orders_per_s'] * 60:.0f} | {b['steps'] / 1e6:.1f} M |")
        lines.append("")

if only in ("", "shipped"):
    lines += [
        "### The shipped throughput workloads",
        "",
        f"`search --time-limit {shipped_limit}` for seeds 1..{runs} (median and worst max-load), "
        f"`search --contiguity convex --time-limit {shipped_limit}` (chains only: no local search, seed 1), "
        "beside `dp` (the exact contiguous optimum) and `dp-linear`. Gap: the median run's, to "
        "`throughputLowerBound`.",
        "",
        "| workload | dp optimum | dp-linear | search, chains only | search: median | worst | gap | orders solved |",
        "|---|---|---|---|---|---|---|---|",
    ]
    reached = 0
    files = sorted(glob.glob(os.path.join(shared, "workloads", "throughput", "*", "*.json")))
    for path in files:
        name = os.path.relpath(path, os.path.join(shared, "workloads", "throughput"))
        dp = solve(path, "dp")
        linear = solve(path, "dp-linear")
        chains = solve(path, "search", "--contiguity", "convex", limit=shipped_limit)
        found = sorted((solve(path, "search", seed=s, limit=shipped_limit) for s in range(1, runs + 1)),
                       key=lambda p: p["maxLoad"])
        median = found[len(found) // 2]
        if chains["maxLoad"] <= dp["maxLoad"] * (1 + 1e-9):
            reached += 1
        lines.append(f"| {name} | {fmt(dp['maxLoad'])} | {fmt(linear['maxLoad'])} | {fmt(chains['maxLoad'])} | "
                     f"{fmt(median['maxLoad'])} | {fmt(found[-1]['maxLoad'])} | {100 * median['gap']:.2f}% | "
                     f"{orders(median)} |")
    lines += ["", f"Chains only, search reached the dp optimum on {reached} of {len(files)} workloads.", ""]

stamp = (f"Commit {os.environ['COMMIT']}, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {cpu}, "
         f"{os.cpu_count()} cores (shared with other work); 1-minute load average {loads[0]} at the start, "
         f"median {statistics.median(float(x) for x in loads):.2f} over the runs. `bench/run_search.sh`.")
text = "\n".join(["## Search (search)", "", stamp, ""] + lines).rstrip()
replace_section(os.path.join(repo, "docs", "benchmarks.md"), "<!-- BEGIN search -->", "<!-- END search -->", text)
print(text)
PY
