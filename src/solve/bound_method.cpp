#include "solve/bound_method.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <string>

#include "baselines/common.hpp"
#include "baselines/local_search.hpp"
#include "bounds/throughput_bound.hpp"
#include "dp/dp.hpp"
#include "objective/class_totals.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

/// The plan the bound is searched below: the DP's within a quarter of the
/// time limit, else local search's within a tenth (nullopt: neither found one).
std::optional<SolveOutcome> planToBound(const Workload& w, const SolveOptions& options) {
  SolveOptions sub = options;
  sub.progress = nullptr;
  struct Source {
    const char* name;
    SolverFunction run;
    double share;
  };
  for (const Source& source :
       {Source{"dp", solveDp, 0.25}, Source{"local-search", solveLocalSearch, 0.1}}) {
    if (options.interrupt && options.interrupt->load()) break;
    sub.timeLimitSeconds = std::max(0.1, source.share * options.timeLimitSeconds);
    SolveOutcome outcome = source.run(w, sub);
    outcome.method = source.name;
    if (outcome.ok() && outcome.found() && outcome.placement) return outcome;
  }
  return std::nullopt;
}

SolveOutcome throughputBoundOutcome(const Workload& w, const SolveOptions& options) {
  const auto began = std::chrono::steady_clock::now();
  const auto deadline = deadlineAfter(options.timeLimitSeconds);
  const objective::ClassTotals totals(w);
  if (auto refused = baseline::unplaceableOutcome(w, totals)) return *refused;
  SolveOutcome outcome;
  PhaseTimes phases(&outcome.phases);
  std::optional<SolveOutcome> plan = planToBound(w, options);
  phases.end("plan");
  const double upper = plan ? plan->objective : std::numeric_limits<double>::infinity();
  const bounds::ThroughputBound bound = bounds::throughputBound(w, totals, upper, deadline,
                                                                options.interrupt, true,
                                                                baseline::memoryLeft(w, options));
  phases.end("bound");
  const bool interrupted = options.interrupt && options.interrupt->load();
  outcome.stop = interrupted     ? StopReason::Interrupt
                 : bound.stopped ? StopReason::TimeLimit
                                 : StopReason::None;
  std::string notes = bound.describe() + "; the bound is " + bound.winner() + "'s";
  outcome.seconds = secondsSince(began);
  if (!plan) {
    outcome.status = SolveStatus::NoPlan;
    outcome.lowerBound = bound.value();
    outcome.message = "no plan to compare the bound with (dp and local-search found none); " + notes;
    return outcome;
  }
  outcome.placement = plan->placement;
  outcome.objective = plan->objective;
  outcome.lowerBound = std::min(bound.value(), plan->objective);
  // Optimal to the bisection's width, as milp is to its default gap.
  const bool closes = plan->objective - outcome.lowerBound <= 1e-4 * plan->objective;
  outcome.status = closes ? SolveStatus::Optimal : SolveStatus::Feasible;
  outcome.message = "plan from " + plan->method + " (the bound's search starts below it); " + notes;
  return outcome;
}

}  // namespace

SolveOutcome solveBound(const Workload& workload, const SolveOptions& options) {
  // The one place a latency bound joins: bounds/latency_bound.hpp.
  if (options.objective == Objective::Latency)
    return failedCall(CallStatus::InvalidInput,
                      "--method bound proves throughput bounds only for now (greedy and milp report "
                      "latency bounds)");
  return baseline::onAtMostOneDevicePerClass(workload, [&](const Workload& on) {
    return throughputBoundOutcome(on, options);
  });
}

}  // namespace dnnplace
