#include "milp/polish.hpp"

#include <algorithm>

#include "baselines/local_search.hpp"
#include "milp/model.hpp"
#include "objective/class_totals.hpp"
#include "objective/latency.hpp"
#include "objective/loads.hpp"
#include "objective/placement_checks.hpp"
#include "util/deadline.hpp"

namespace dnnplace::milp {

std::optional<double> objectiveFor(const Workload& w, const Placement& p, const SolveOptions& options) {
  if (!objective::matchesMachine(w, p)) return std::nullopt;
  if (!objective::placementProblem(w, p).empty()) return std::nullopt;
  if (options.objective == Objective::Latency) return objective::latencyOf(w, p, options.q);
  if (options.contiguity == Contiguity::Convex && !objective::isConvexPlacement(w, p))
    return std::nullopt;
  return objective::throughputObjective(w, p, options.diffMaxima);
}

namespace {

/// First-improvement descent over moves of one color class to another
/// accelerator or to the CPU, scored by the exact latency; stops at a local
/// optimum, the time budget or Ctrl-C.
void polishLatency(const Workload& w, const SolveOptions& options, const Allowed& allowed,
                   double seconds, Candidate* best) {
  const Deadline limit(seconds, options.interrupt);
  const int k = w.machine.maxFpgas;
  Placement p = best->placement;
  std::vector<double> memory(k, 0);
  std::vector<int> nodesOn(k, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (p.deviceOf[v] < k) {
      memory[p.deviceOf[v]] += w.graph().nodes[v].size;
      ++nodesOn[p.deviceOf[v]];
    }
  const std::vector<double> classSize = objective::ClassTotals(w).size;
  double value = best->objective;
  auto moveClass = [&](int c, int to) {
    const int from = p.deviceOf[w.classMembers(c).front()];
    const int members = static_cast<int>(w.classMembers(c).size());
    if (from < k) {
      memory[from] -= classSize[c];
      nodesOn[from] -= members;
    }
    if (to < k) {
      memory[to] += classSize[c];
      nodesOn[to] += members;
    }
    for (NodeIndex v : w.classMembers(c)) p.deviceOf[v] = to;
  };
  bool improved = true, improvedAny = false, stopped = false;
  while (improved && !stopped) {
    improved = false;
    for (int c = 0; c < w.graph().numClasses && !stopped; ++c) {
      const int from = p.deviceOf[w.classMembers(c).front()];
      bool triedEmpty = false;
      for (int to = 0; to <= k; ++to) {
        // Each try recomputes the whole latency: with many accelerators one
        // class alone can take seconds, so the limit is checked per try.
        if (limit.elapsed() > seconds || limit.interrupted()) {
          stopped = true;
          break;
        }
        if (to == from) continue;
        if (to < k) {
          if (!allowed.accelerator[c] || !objective::fitsMemory(memory[to] + classSize[c], w.machine))
            continue;
          if (nodesOn[to] == 0) {  // empty accelerators are interchangeable
            if (triedEmpty) continue;
            triedEmpty = true;
          }
        } else if (!allowed.cpu) {
          continue;
        }
        moveClass(c, to);
        const auto moved = objective::latencyOf(w, p, options.q);
        if (moved && *moved < value * (1 - 1e-12)) {
          value = *moved;
          improved = improvedAny = true;
          break;
        }
        moveClass(c, from);
      }
    }
  }
  if (improvedAny) *best = {canonical(w, p, true), value, best->method + " + latency descent"};
}

}  // namespace

void polish(const Workload& w, const SolveOptions& options, const Allowed& allowed, double seconds,
            Candidate* best) {
  if (best->objective == kInfinity) return;
  if (options.interrupt && options.interrupt->load()) return;
  if (options.objective == Objective::Latency) {
    polishLatency(w, options, allowed, seconds, best);
    return;
  }
  SolveOptions sub = options;
  sub.timeLimitSeconds = std::max(0.1, seconds);
  sub.progress = nullptr;
  const SolveOutcome o = localSearchFrom(w, best->placement, sub);
  if (o.stop == StopReason::MemoryLimit) {
    // polish runs before and after CBC: one note is enough.
    const std::string note = " (local search polish skipped: " + o.message + ")";
    if (best->method.find(note) == std::string::npos) best->method += note;
    return;
  }
  if ((o.status != SolveStatus::Optimal && o.status != SolveStatus::Feasible) || !o.placement) return;
  const auto value = objectiveFor(w, *o.placement, options);
  if (value && *value < best->objective * (1 - 1e-12))
    *best = {canonical(w, *o.placement, false), *value, best->method + " + local search"};
}

}  // namespace dnnplace::milp
