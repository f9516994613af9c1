#!/usr/bin/env bash
# Lower bounds on the non-contiguous max-load (issue #26, item 1): milp and
# bound on the 15 shipped throughput workloads, one run each with a time limit
# (default 60 s); per workload the plan's max-load, each method's proven
# bound, lowerBound / objective, the bound component that won, and the check
# that no bound exceeds the DP optimum (an upper bound for the non-contiguous
# problem, ../shared/expected/throughput.json). Rewrites only the bounds
# section of docs/benchmarks.md (between the BEGIN/END bounds markers).
# One run per case: a time-limited run measures the bound reached within the
# limit, not a speed to take medians of. Exits 1 if a bound is above a DP optimum.
#
# Usage: bench/run_bounds.sh [BUILD_DIR]
#   BOUNDS_TIME     seconds per run (default 60)
#   BOUNDS_METHODS  methods to run (default "milp bound")
#   BOUNDS_FILTER   regular expression: only workloads whose path matches
#   BOUNDS_KEEP     a folder to keep each run's plan and summary in
#   BOUNDS_PARALLEL non-empty: the methods of one workload run side by side
#                   (one core each on a 2-core machine)
#   DNNPLACE_SHARED the shared folder (default ../shared next to the repository)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
build="${1:-$repo/build}"
cli="$build/dnnplace"
shared="${DNNPLACE_SHARED:-$repo/../shared}"
limit="${BOUNDS_TIME:-60}"
methods="${BOUNDS_METHODS:-milp bound}"
filter="${BOUNDS_FILTER:-.}"
doc="$repo/docs/benchmarks.md"

[[ -x "$cli" ]] || { echo "error: $cli not found; build the dnnplace_cli target first" >&2; exit 1; }
[[ -d "$shared/workloads/throughput" ]] ||
  { echo "error: shared data not found at $shared (set DNNPLACE_SHARED)" >&2; exit 1; }

work="${BOUNDS_KEEP:-$(mktemp -d)}"
mkdir -p "$work"
[[ -n "${BOUNDS_KEEP:-}" ]] || trap 'rm -rf "$work"' EXIT
results="$work/results.jsonl"
: >"$results"
load_before="$(cut -d' ' -f1 /proc/loadavg)"

# one METHOD PATH NAME: one solve, its outcome in $work/NAME.METHOD.row.
one() {
  local method="$1" path="$2" name="$3" rc=0
  "$cli" solve "$path" --method "$method" --time-limit "$limit" --out "$work/$name.$method.json" \
    2>"$work/$name.$method.txt" || rc=$?
  /usr/bin/python3 - "$work/$name.$method.json" "${path#"$shared/workloads/"}" "$method" "$rc" \
    "$(cut -d' ' -f1 /proc/loadavg)" >"$work/$name.$method.row" <<'PY'
import json, sys
plan, relative, method, rc, load = sys.argv[1:]
row = {"workload": relative, "method": method, "exit": int(rc), "load": float(load)}
try:
    p = json.load(open(plan))
    row.update(objective=p.get("maxLoad"), bound=p.get("lowerBound", 0), seconds=p.get("seconds"),
               status=p.get("status"), message=p.get("message", ""))
except (OSError, ValueError):
    pass
print(json.dumps(row))
PY
}

for path in "$shared"/workloads/throughput/*/*.json; do
  relative="${path#"$shared/workloads/"}"
  [[ "$relative" =~ $filter ]] || continue
  name="$(echo "${relative#throughput/}" | tr '/' '_')"
  echo "bounds bench: $methods on $relative" >&2
  for method in $methods; do
    if [[ -n "${BOUNDS_PARALLEL:-}" ]]; then one "$method" "$path" "$name" & else one "$method" "$path" "$name"; fi
  done
  wait
  for method in $methods; do cat "$work/$name.$method.row" >>"$results"; done
done

commit="$(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- src include app || echo ' (+ uncommitted changes)')"
/usr/bin/python3 - "$results" "$shared/expected/throughput.json" "$doc" "$commit" "$limit" \
  "$load_before" <<'PY'
import datetime, json, math, re, sys
results, expected, doc, commit, limit, load_before = sys.argv[1:]
rows = [json.loads(line) for line in open(results)]
dp = {k.removeprefix("throughput/"): v.get("dp_optimum")
      for k, v in json.load(open(expected))["workloads"].items()}
by = {}
for r in rows:
    by.setdefault(r["workload"].removeprefix("throughput/"), {})[r["method"]] = r

def winner(r):
    m = re.search(r"the bound (?:reported )?is (?:the )?([^;]*?)(?:'s| bound)?(?:;|$)", r.get("message", ""))
    return m.group(1) if m else "—"

def fmt(x):
    return "—" if x is None else f"{x:.3f}"

bad = []
lines = [f"Commit {commit}, {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC; {limit} s per run, "
         f"one run per workload and method; 1-minute load average {load_before} at the start, "
         f"{max(r['load'] for r in rows):.2f} at most after a run (a 2-core machine shared with "
         "other work: the time-limited figures depend on it). `bench/run_bounds.sh`. *objective*: "
         "the method's plan; *bound*: its proven lowerBound; *best bound*: the larger of milp's and "
         "bound's, over milp's objective. *won*: the bound component the method names (work, "
         "work with boundaries, representatives LP, covering MILP, CBC's). Every bound is checked against the DP optimum "
         "(a plan of the non-contiguous problem): *≤ DP*.",
         "",
         "| workload | milp objective | milp bound | ratio | won | bound (method) | won | best bound / objective | DP optimum | ≤ DP |",
         "|---|---|---|---|---|---|---|---|---|---|"]
ratios, best_ratios = [], []
for name in sorted(by):
    m, b = by[name].get("milp", {}), by[name].get("bound", {})
    obj = m.get("objective")
    mb, bb = m.get("bound"), b.get("bound")
    ratio = mb / obj if obj and mb is not None else None
    best = max(x for x in (mb, bb, 0) if x is not None)
    best_ratio = best / obj if obj else None
    if ratio: ratios.append(ratio)
    if best_ratio: best_ratios.append(best_ratio)
    ok = dp.get(name) is None or best <= dp[name] * (1 + 1e-6)
    if not ok: bad.append(name)
    lines.append(f"| {name.removesuffix('.json')} | {fmt(obj)} | {fmt(mb)} | "
                 f"{'—' if ratio is None else f'{ratio:.4f}'} | {winner(m) if m else '—'} | {fmt(bb)} | "
                 f"{winner(b) if b else '—'} | {'—' if best_ratio is None else f'{best_ratio:.4f}'} | "
                 f"{fmt(dp.get(name))} | {'yes' if ok else 'NO'} |")
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
lines += ["", f"Geometric mean of milp's lowerBound / objective: {geo(ratios):.4f} over {len(ratios)} "
          f"workloads (smallest {min(ratios, default=float('nan')):.4f}); of the best bound over milp's "
          f"objective: {geo(best_ratios):.4f} (smallest {min(best_ratios, default=float('nan')):.4f})."]
section = ("<!-- BEGIN bounds -->\n## Lower bounds on the non-contiguous max-load (milp, bound)\n\n"
           + "\n".join(lines) + "\n<!-- END bounds -->\n")
try:
    text = open(doc).read()
except OSError:
    text = "# Benchmarks\n"
begin, end = text.find("<!-- BEGIN bounds -->"), text.find("<!-- END bounds -->")
if begin >= 0 and end > begin:
    text = text[:begin] + section + text[end + len("<!-- END bounds -->\n"):]
else:
    text = text.rstrip("\n") + "\n\n" + section
open(doc, "w").write(text)
print("\n".join(lines))
if bad:
    print("error: a bound above the DP optimum on " + ", ".join(bad), file=sys.stderr)
    sys.exit(1)
PY
