#include "solve/bound_method.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "baselines/common.hpp"
#include "baselines/greedy.hpp"
#include "baselines/local_search.hpp"
#include "bounds/latency_bound.hpp"
#include "bounds/throughput_bound.hpp"
#include "dp/dp.hpp"
#include "objective/class_totals.hpp"
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

/// The plan the bound is searched below: the DP's within a quarter of the
/// time limit, else local search's within a tenth (nullopt: neither found one).
/// For latency: greedy's plan (linear-time; the bound is proven here, once).
/// With --diffmaxima the plan is theirs for max-load (neither method takes
/// --diffmaxima), its objective max FW + max BW.
std::optional<SolveOutcome> planToBound(const Workload& w, const SolveOptions& options) {
  SolveOptions sub = options;
  sub.progress = nullptr;
  sub.diffMaxima = false;
  struct Source {
    const char* name;
    SolverFunction run;
    double share;
  };
  const std::vector<Source> sources =
      options.objective == Objective::Latency
          ? std::vector<Source>{{"greedy", latencyGreedyPlan, 1}}
          : std::vector<Source>{{"dp", solveDp, 0.25}, {"local-search", solveLocalSearch, 0.1}};
  for (const Source& source : sources) {
    if (options.interrupt && options.interrupt->load()) break;
    sub.timeLimitSeconds = std::max(0.1, source.share * options.timeLimitSeconds);
    SolveOutcome outcome = source.run(w, sub);
    outcome.method = source.name;
    if (!outcome.ok() || !outcome.found() || !outcome.placement) continue;
    if (options.diffMaxima)
      outcome.objective = objective::throughputObjective(w, *outcome.placement, true);
    return outcome;
  }
  return std::nullopt;
}

/// The proven bound, whether a limit cut it short, and what it says.
struct Proven {
  double value = 0;
  bool stopped = false;
  std::string notes;
};

Proven throughputProven(const Workload& w, const objective::ClassTotals& totals, double upper,
                        std::chrono::steady_clock::time_point deadline, const SolveOptions& options) {
  const bounds::ThroughputBound bound = bounds::throughputBound(w, totals, upper, deadline,
                                                                options.interrupt, true,
                                                                baseline::memoryLeft(w, options));
  return {bound.value(), bound.stopped,
          bound.describe() + "; the bound is the " + bound.winner() + " bound"};
}

Proven latencyProven(const Workload& w, const objective::ClassTotals& totals,
                     std::chrono::steady_clock::time_point deadline, const SolveOptions& options) {
  const LatencyLowerBound bound = latencyLowerBound(w, totals.acceleratorAllowed(w.machine),
                                                    w.machine.maxCpus > 0, options.q, deadline);
  std::string notes = "lower bounds: compute path " + formatShortest(bound.computePath) +
                      ", split path " + formatShortest(bound.splitPath) +
                      (bound.splitPathRelaxed ? " (relaxed or cut short)" : "") + " (" +
                      std::to_string(bound.pathNodes) + " path nodes)";
  if (bound.intervalPaths > 0)
    notes += ", interval path " + formatShortest(bound.intervalPath) + " (" +
             std::to_string(bound.intervalPaths) + " paths)";
  return {bound.value(), bound.splitPathRelaxed, notes};
}

SolveOutcome boundOutcome(const Workload& w, const SolveOptions& options) {
  const auto began = std::chrono::steady_clock::now();
  const auto deadline = deadlineAfter(options.timeLimitSeconds);
  const objective::ClassTotals totals(w);
  if (auto refused = baseline::unplaceableOutcome(w, totals)) return *refused;
  SolveOutcome outcome;
  PhaseTimes phases(&outcome.phases);
  std::optional<SolveOutcome> plan = planToBound(w, options);
  phases.end("plan");
  // The bound is on max-load, which max FW + max BW is never below: the
  // search starts below the plan's max-load.
  const double upper = !plan                ? std::numeric_limits<double>::infinity()
                       : options.diffMaxima ? objective::throughputObjective(w, *plan->placement, false)
                                            : plan->objective;
  const bool latency = options.objective == Objective::Latency;
  const Proven bound = latency ? latencyProven(w, totals, deadline, options)
                               : throughputProven(w, totals, upper, deadline, options);
  phases.end("bound");
  const bool interrupted = options.interrupt && options.interrupt->load();
  outcome.stop = interrupted     ? StopReason::Interrupt
                 : bound.stopped ? StopReason::TimeLimit
                                 : StopReason::None;
  const std::string& notes = bound.notes;
  outcome.seconds = secondsSince(began);
  if (!plan) {
    outcome.status = SolveStatus::NoPlan;
    outcome.lowerBound = bound.value;
    outcome.message = std::string("no plan to compare the bound with (") +
                      (latency ? "greedy" : "dp and local-search") + " found none); " + notes;
    return outcome;
  }
  outcome.placement = plan->placement;
  outcome.objective = plan->objective;
  outcome.lowerBound = std::min(bound.value, plan->objective);
  // Optimal to the bisection's width, as milp is to its default gap.
  const bool closes = plan->objective - outcome.lowerBound <= 1e-4 * plan->objective;
  outcome.status = closes ? SolveStatus::Optimal : SolveStatus::Feasible;
  // A workload that allows replicated stages: this bound is for plans without them.
  const std::string replicas =
      !latency && !options.diffMaxima && w.machine.syncBandwidth > 0
          ? "; for placements without replicated stages (with them: solve --replicate, which reports "
            "the work bound with replication)"
          : "";
  outcome.message = "plan from " + plan->method +
                    (options.diffMaxima ? " for max-load, scored as max FW + max BW" : "") +
                    (latency ? std::string() : " (the bound's search starts below it)") + "; " + notes +
                    (options.diffMaxima ? " (on max-load, which max FW + max BW is never below)" : "") +
                    replicas;
  return outcome;
}

}  // namespace

SolveOutcome solveBound(const Workload& workload, const SolveOptions& options) {
  if (options.objective == Objective::Latency) return boundOutcome(workload, options);
  return baseline::onAtMostOneDevicePerClass(workload, [&](const Workload& on) {
    return boundOutcome(on, options);
  });
}

}  // namespace dnnplace
