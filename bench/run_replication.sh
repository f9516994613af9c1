#!/usr/bin/env bash
# Replicated stages (docs/model.md §9) against PipeDream's planner, and what
# replication costs the DP in time.
#
#  1. docs/results.md, section "Replication": every PipeDream profile of the
#     shared folder at every k of expected/pipedream.json, imported with
#     PipeDream's cost (training, 10 GB/s, activations free, no memory limit),
#     solved by dp (the straight pipeline) and by dp, dp-linear, pipedream and
#     milp with --replicate, beside PipeDream's own figures.
#  2. docs/benchmarks.md, section "Replication speed": seconds of dp and of
#     dp --replicate at k = 16 (median of RUNS runs) on those profiles and on
#     every shared throughput workload, given syncBandwidth 10 GB/s and each
#     node's size as its parameterSize (the shared workloads carry no weights).
#
# Usage: bench/run_replication.sh [BUILD_DIR] [SHARED_DIR]
#   env TIME_LIMIT  seconds per run (default 60), MILP_LIMIT milp's (default 10),
#       RUNS        runs per timing (default 3), ONLY=results|speed
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${DNNPLACE_BUILD:-$repo/build/release}}"
shared="${2:-${DNNPLACE_SHARED:-$repo/../shared}}"
cli="$build/dnnplace"
[[ -x "$cli" ]] || { echo "error: $cli not found (build the dnnplace target first)" >&2; exit 2; }
[[ -f "$shared/expected/pipedream.json" ]] || { echo "error: $shared/expected/pipedream.json not found" >&2; exit 2; }

commit="$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo uncommitted)"
if [[ "$commit" != uncommitted ]] && [[ -n "$(git -C "$repo" status --porcelain -- . ":(exclude)docs" 2>/dev/null)" ]]; then
  commit="$commit (+ uncommitted changes)"
fi

CLI="$cli" SHARED="$shared" COMMIT="$commit" REPO="$repo" TIME_LIMIT="${TIME_LIMIT:-60}" \
MILP_LIMIT="${MILP_LIMIT:-10}" RUNS="${RUNS:-3}" ONLY="${ONLY:-}" /usr/bin/python3 - <<'PY'
import datetime, glob, json, os, re, statistics, subprocess, sys, tempfile

cli, shared, repo = os.environ["CLI"], os.environ["SHARED"], os.environ["REPO"]
limit, milp_limit, runs = os.environ["TIME_LIMIT"], os.environ["MILP_LIMIT"], int(os.environ["RUNS"])
only = os.environ["ONLY"]
tmp = tempfile.mkdtemp(prefix="dnnplace-replication-")
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
stamp = (f"Commit {os.environ['COMMIT']}, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {cpu}, "
         f"{os.cpu_count()} cores (shared with other work), 1-minute load average "
         f"{os.getloadavg()[0]:.1f} at the start.")

def compare(workload, methods, time_limit, replicate=True):
    args = [cli, "compare", workload, "--methods", methods, "--time-limit", str(time_limit),
            "--format", "json", "--quiet"] + (["--replicate"] if replicate else [])
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode not in (0, 3):
        sys.exit(f"error: {' '.join(args)}: {run.stderr.strip()}")
    return {row["method"]: row for row in json.loads(run.stdout)}

def import_profile(name, k):
    out = os.path.join(tmp, f"{name}_{k}.json")
    subprocess.run([cli, "import", "pipedream", os.path.join(shared, "profiles", "pipedream", name),
                    "--bandwidth", "1e10", "--accelerators", str(k), "--memory", "1e15", "--training",
                    "--activations", "free", "--out", out], check=True, capture_output=True)
    return out

def replace_section(path, begin, end, text):
    doc = open(path).read() if os.path.exists(path) else ""
    block = f"{begin}\n{text}\n{end}"
    pattern = re.compile(re.escape(begin) + ".*?" + re.escape(end), re.S)
    doc = pattern.sub(lambda _: block, doc) if pattern.search(doc) else doc.rstrip() + "\n\n" + block + "\n"
    open(path, "w").write(doc)

expected = json.load(open(os.path.join(shared, "expected", "pipedream.json")))

def fmt(x):
    return "—" if x is None else f"{x:.3f}"

if only in ("", "results"):
    lines = [
        "## Replication: PipeDream's profiles",
        "",
        stamp + " `bench/run_replication.sh`. Each profile is imported as PipeDream's planner "
        "sees it (`import pipedream --training --bandwidth 1e10 --activations free --memory 1e15`: "
        "its sync formula, 10 GB/s, no activation charge, no memory limit) and solved with "
        f"`compare --replicate` (milp: {milp_limit} s). Figures: time per minibatch, ms. "
        "*PipeDream*: its planner run on the same profile (`expected/pipedream.json`).",
        "",
        "| profile | k | straight: PipeDream / dp | replicated: PipeDream | dp --replicate | "
        "pipedream --replicate | dp-linear --replicate | milp --replicate | dp --replicate / PipeDream |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, by_k in expected["profiles"].items():
        for k, ref in sorted(by_k.items(), key=lambda kv: int(kv[0])):
            w = import_profile(name, int(k))
            rows = compare(w, "dp,dp-linear,pipedream,milp", milp_limit)
            get = lambda m: rows.get(m, {}).get("objective")
            ours = get("dp --replicate")
            lines.append(
                f"| {name[:-4]} | {k} | {ref['straight']:.3f} / {fmt(get('dp'))} | {ref['replicated']:.3f} | "
                f"{fmt(ours)} | {fmt(get('pipedream --replicate'))} | {fmt(get('dp-linear --replicate'))} | "
                f"{fmt(get('milp --replicate'))} | {ours / ref['replicated']:.4f} |")
            print(lines[-1], file=sys.stderr)
    lines += [
        "",
        "dp --replicate is the optimum over contiguous placements with replicated blocks; "
        "PipeDream's planner searches the same space on its own linearization, so it is never "
        "better, and equal on the chains (AlexNet, VGG-16). pipedream --replicate is PipeDream's "
        "method on our linearization: equal to PipeDream's figure on the chains, a few percent off "
        "on ResNet-18 and GNMT, whose branches PipeDream and dnnplace linearize differently "
        "(for GNMT PipeDream's own result also depends on Python's hash order, see "
        "`expected/pipedream.json`). milp --replicate is the non-contiguous MILP's plan with the "
        "idle accelerators given to its bottleneck blocks, or dp --replicate's plan when better "
        "(docs/model.md §9).",
    ]
    replace_section(os.path.join(repo, "docs", "results.md"), "<!-- replication:begin -->",
                    "<!-- replication:end -->", "\n".join(lines))

if only in ("", "speed"):
    cases = [(f"PipeDream {n[:-4]}", import_profile(n, 16)) for n in expected["profiles"]]
    for path in sorted(glob.glob(os.path.join(shared, "workloads", "throughput", "*", "*.json"))):
        w = json.load(open(path))
        w["maxFPGAs"] = 16
        w["syncBandwidth"] = 1e7  # 10 GB/s in bytes per millisecond
        for node in w["nodes"]:
            node["parameterSize"] = node.get("size", 0)
        # (named after its folder too: LayerGraphs and OperatorGraphs both hold a resnet50_inference)
        out = os.path.join(tmp, os.path.basename(os.path.dirname(path)) + "_" + os.path.basename(path))
        json.dump(w, open(out, "w"))
        cases.append((os.path.relpath(path, os.path.join(shared, "workloads", "throughput"))[:-5], out))
    lines = [
        "## Replication speed",
        "",
        stamp + " `bench/run_replication.sh`: seconds of `dp` and `dp --replicate` at k = 16 "
        f"(median of {runs} runs of `compare --methods dp --replicate`, time limit {limit} s). "
        "The shared workloads are given `syncBandwidth` 10 GB/s and each node's size as its "
        "`parameterSize`. Target (#23): dp --replicate within 5× of dp.",
        "",
        "| workload (k = 16) | dp s | dp --replicate s | ratio | blocks: dp / --replicate (rounds) | dp | dp --replicate | status |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for label, w in cases:
        pure, rep, last = [], [], None
        for _ in range(runs):
            last = compare(w, "dp", limit)
            pure.append(last["dp"]["seconds"])
            rep.append(last["dp --replicate"]["seconds"])
        p, r = statistics.median(pure), statistics.median(rep)
        # The blocks each DP walked (deterministic, unlike the seconds): the
        # replicated DP's own, beside the pure DP it runs first.
        def blocks(row):
            found = re.findall(r"(\d+) blocks", row["message"])
            return f"{int(found[-1]):,}" if found else "–"
        rounds = re.findall(r"in (\d+) rounds?", last["dp --replicate"]["message"])
        lines.append(f"| {label} | {p:.3f} | {r:.3f} | {r / max(p, 1e-6):.1f} | {blocks(last['dp'])} / "
                     f"{blocks(last['dp --replicate'])}{f' ({rounds[-1]})' if rounds else ''} | "
                     f"{fmt(last['dp']['objective'])} | "
                     f"{fmt(last['dp --replicate']['objective'])} | {last['dp --replicate']['status']} |")
        print(lines[-1], file=sys.stderr)
    lines += [
        "",
        "Times include what dp --replicate runs first (the pure DP for its plan, dp-linear "
        "--replicate for a first incumbent); ratios of rows where both sides take a few ms or "
        "less are process noise (start-up, page faults, the other jobs on the machine), not the "
        "algorithm: the blocks column (each DP's own walk, deterministic) is the fairer "
        "comparison there. Before commit 6685b9e dp --replicate took 15–770× the pure DP on the "
        "non-trivial rows and stopped at the time limit on the Inception layer graphs: a block "
        "on r replicas may carry r times a state's best, so a walk bounded by compute alone "
        "(max over states of a·best) met nearly every pair of nested ideals (LayerGraphs/"
        "gnmt_training: 15,488,764 blocks against the pure DP's 86,192, the same 0.27 µs per "
        "block). Now (src/dp/replicated.cpp): (1) per replica count r the walk stops once "
        "(compute + unavoidable communication + the all-reduce per byte × the block's weights)/r "
        "reaches the largest best of a state with more than r − 1 accelerators: every term grows "
        "with the block, and with parameterSize = node size the all-reduce of a large block is "
        "many times its compute; (2) only live states are served (the state's devices cover the "
        "ideal and those left the rest: the pure DP's work bounds, which replicas cannot beat); "
        "(3) value(I, s) ≥ value(I ∖ v, s) − removalIncrease(v) for each maximal element v of I, "
        "read from exact values, kills a state or makes it final once its best reaches it; "
        "(4) only chains below the best known plan (dp-linear --replicate's or the pure "
        "pipeline's, less 1e-10) are looked for, so where that plan is optimal, as on most rows, "
        "the run proves it without rebuilding it; (5) a state without CPU cores takes its block on "
        "all its accelerators from the empty sub-ideal only, so that block is the ideal itself, "
        "met from the ideal's own sums instead of at the end of a walk through nearly all of its "
        "blocks; (6) as in the pure DP, a state stops once its best is within 1% of the known "
        "plan (5% in later rounds): a run proves that plan optimal, returns the optimum (a "
        "chain above that margin) or hands a better plan to the next round, and a value a state "
        "stopped at is not used for (3). (6) is what the BERT operator graphs needed: their "
        "optimum is set by communication and the all-reduce rather than by work (bert_l-3_"
        "training: 123 ms of compute on 16 accelerators, optimum 46.5 ms), so the work bounds "
        "leave a dozen accelerators of slack, nearly every state stays live, and walking each "
        "state to its own optimum met 2.4–5× the blocks (bert_l-3_inference 425,870, bert_l-6_"
        "inference 647,252 before (6)). Same optima on every row. Tried and left out: walking up "
        "from the empty ideal the blocks that leave their sub-ideal to CPU cores alone (as the "
        "pure DP does for one accelerator): 0.9–1.7× the blocks on the BERT graphs. Where the "
        "ratio still passes 5×, both sides take milliseconds: the ResNet-50 operator graphs "
        "(2,656 and some 24,000 blocks: two rounds, as replication beats the first incumbent).",
    ]
    replace_section(os.path.join(repo, "docs", "benchmarks.md"), "<!-- replication-speed:begin -->",
                    "<!-- replication-speed:end -->", "\n".join(lines))
PY
