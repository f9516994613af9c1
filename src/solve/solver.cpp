#include "dnnplace/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>

#include "dp/dp.hpp"
#include "baselines/greedy.hpp"
#include "baselines/local_search.hpp"
#include "milp/milp.hpp"
#include "baselines/scotch.hpp"
#include "baselines/trivial.hpp"

namespace dnnplace {

const char* statusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal: return "optimal";
    case SolveStatus::Feasible: return "feasible";
    case SolveStatus::Infeasible: return "infeasible";
    case SolveStatus::NoSolution: return "no_solution";
    case SolveStatus::InvalidInput: return "invalid_input";
    case SolveStatus::Error: return "error";
  }
  return "error";
}

const std::vector<MethodInfo>& methods() {
  static const std::vector<MethodInfo> table = {
      {"dp", true, true,
       "exact contiguous max-load (DP over ideals); for latency: the latency of that plan", solveDp, true},
      {"dp-linear", true, false, "the DP restricted to one topological order (polynomial)",
       solveDpLinear, true},
      {"milp", true, true, "integer program on CBC (non-contiguous/convex throughput, latency)",
       solveMilp},
      {"pipedream", true, false,
       "PipeDream emulation: merge biconnected components, linearize, DP", solvePipedream, true},
      {"scotch", true, false, "Scotch graph partitioning of the color-class graph", solveScotch},
      {"local-search", true, false, "random restarts of best-improvement class moves",
       solveLocalSearch},
      {"greedy", false, true, "latency greedy: fill accelerators in topological order",
       solveLatencyGreedy},
      {"single", true, true, "everything on one accelerator", solveSingleAccelerator},
      {"cpu", true, true, "everything on one CPU core", solveSingleCpu},
      {"expert", true, true, "a human-expert split given with --plan", solveExpert},
  };
  return table;
}

const MethodInfo* findMethod(const std::string& name) {
  for (const auto& method : methods())
    if (method.name == name) return &method;
  return nullptr;
}

std::chrono::steady_clock::time_point deadlineOf(const SolveOptions& options) {
  using Clock = std::chrono::steady_clock;
  if (!(options.timeLimitSeconds > 0) || !std::isfinite(options.timeLimitSeconds) ||
      options.timeLimitSeconds > 1e7)
    return Clock::time_point::max();
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                            std::chrono::duration<double>(options.timeLimitSeconds));
}

EvaluateOptions evaluateOptionsFor(const SolveOptions& options) {
  EvaluateOptions eval;
  eval.objective = options.objective;
  eval.diffMaxima = options.diffMaxima;
  eval.q = options.q;
  return eval;
}

bool sameObjective(double a, double b) {
  if (a == b) return true;
  return std::fabs(a - b) <= 1e-6 * std::max({1e-12, std::fabs(a), std::fabs(b)});
}

/// solve() without its guard: runs the method and re-checks its plan.
static SolveOutcome solveAndCheck(const Workload& workload, const std::string& name, const SolveOptions& options,
                                  std::chrono::steady_clock::time_point start) {
  SolveOutcome outcome;
  const MethodInfo* method = findMethod(name);
  if (!method) {
    outcome.method = name;
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "unknown method '" + name + "'";
    return outcome;
  }
  const bool supported =
      options.objective == Objective::Throughput ? method->throughput : method->latency;
  if (!supported) {
    outcome.method = name;
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "method '" + name + "' does not support the " +
                      (options.objective == Objective::Throughput ? "throughput" : "latency") +
                      " objective";
    return outcome;
  }
  // Latency: CPU nodes run on as many cores as they need (DESIGN §5: maxCPUs
  // is ignored, as the evaluator and the reference ignore it). A machine
  // without CPU cores still runs them, so the methods see one core: the
  // device every CPU node of the plan is listed on.
  std::optional<Workload> withCpu;
  if (options.objective == Objective::Latency && workload.machine.maxCpus == 0) {
    withCpu = workload;
    withCpu->machine.maxCpus = 1;
  }
  outcome = method->run(withCpu ? *withCpu : workload, options);
  outcome.method = name;
  if (outcome.seconds == 0)
    outcome.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (!outcome.placement) {
    if (outcome.status == SolveStatus::Optimal || outcome.status == SolveStatus::Feasible) {
      outcome.status = SolveStatus::Error;
      outcome.message = "internal error: method reported a plan but returned none";
    }
    return outcome;
  }
  // The independent re-check: every returned plan, from the original graph.
  const double claimed = outcome.objective;
  EvaluateOptions check = evaluateOptionsFor(options);
  check.requireContiguous = method->contiguousPlans;
  outcome.evaluation = evaluate(workload, *outcome.placement, check);
  if (!outcome.evaluation.feasible) {
    outcome.status = SolveStatus::Error;
    outcome.message = "internal error: the evaluator rejects the plan of '" + name +
                      "': " + outcome.evaluation.violations.front();
    return outcome;
  }
  if (!sameObjective(claimed, outcome.evaluation.objective)) {
    outcome.status = SolveStatus::Error;
    outcome.message = "internal error: '" + name + "' claims objective " +
                      std::to_string(claimed) + " but the evaluator computes " +
                      std::to_string(outcome.evaluation.objective);
    return outcome;
  }
  outcome.objective = outcome.evaluation.objective;
  // A bound above the plan the method itself found is a bug, not rounding:
  // say so instead of hiding it.
  if (outcome.lowerBound > outcome.objective && !sameObjective(outcome.lowerBound, outcome.objective)) {
    outcome.status = SolveStatus::Error;
    outcome.message = "internal error: '" + name + "' claims lower bound " + std::to_string(outcome.lowerBound) +
                      " above its plan's objective " + std::to_string(outcome.objective);
    return outcome;
  }
  outcome.lowerBound = std::min(outcome.lowerBound, outcome.objective);
  outcome.gap = outcome.objective > 0
                    ? std::max(0.0, (outcome.objective - outcome.lowerBound) / outcome.objective)
                    : 0.0;
  return outcome;
}

SolveOutcome solve(const Workload& workload, const std::string& name, const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // The solvers and the re-check may throw (bad_alloc, solver library
  // errors, in any thread of a method): a caller gets a status instead.
  auto failed = [&](SolveStatus status, std::string message) {
    SolveOutcome outcome;
    outcome.method = name;
    outcome.status = status;
    outcome.message = std::move(message);
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return outcome;
  };
  try {
    return solveAndCheck(workload, name, options, start);
  } catch (const std::bad_alloc&) {
    return failed(SolveStatus::NoSolution, "ran out of memory");
  } catch (const std::exception& e) {
    return failed(SolveStatus::Error, std::string("internal error: ") + e.what());
  } catch (...) {  // e.g. CoinError, which is not a std::exception
    return failed(SolveStatus::Error, "internal error: an exception that is not a std::exception");
  }
}

double trivialThroughputLowerBound(const Workload& workload) {
  // Per class: the cheapest device type it may use (compute only; communication
  // may be avoided by co-location, so it is not counted).
  std::vector<double> acc(workload.numClasses, 0), cpu(workload.numClasses, 0);
  std::vector<bool> accAllowed(workload.numClasses, true);
  std::vector<double> size(workload.numClasses, 0);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const auto& node = workload.nodes[v];
    const int c = workload.classOf[v];
    acc[c] += node.fpgaLatency;
    cpu[c] += node.cpuLatency;
    size[c] += node.size;
    if (!node.supportedOnFpga) accAllowed[c] = false;
  }
  const auto& m = workload.machine;
  double bound = 0, total = 0;
  const double inf = std::numeric_limits<double>::infinity();
  for (int c = 0; c < workload.numClasses; ++c) {
    const bool onAcc = accAllowed[c] && m.maxFpgas > 0 && size[c] <= m.maxSizePerFpga;
    const double best = std::min(onAcc ? acc[c] : inf, m.maxCpus > 0 ? cpu[c] : inf);
    if (best == inf) continue;  // infeasible workload; no bound from this class
    bound = std::max(bound, best);
    total += best;
  }
  const int devices = m.maxFpgas + m.maxCpus;
  if (devices > 0) bound = std::max(bound, total / devices);
  return bound;
}

}  // namespace dnnplace
