#include "dnnplace/solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <optional>

#include "baselines/cpu.hpp"
#include "baselines/expert.hpp"
#include "baselines/greedy.hpp"
#include "baselines/local_search.hpp"
#include "baselines/replicas.hpp"
#include "baselines/scotch.hpp"
#include "baselines/single.hpp"
#include "bounds/throughput_bound.hpp"
#include "dp/dp.hpp"
#include "objective/class_totals.hpp"
#include "preprocess/layers.hpp"
#include "search/search.hpp"
#include "solve/bound_method.hpp"
#include "solve/warm_start.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {

const char* callStatusName(CallStatus status) {
  switch (status) {
    case CallStatus::Ok: return "ok";
    case CallStatus::InvalidInput: return "invalid_input";
    case CallStatus::InternalError: return "error";
  }
  return "error";
}

const char* statusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::Optimal: return "optimal";
    case SolveStatus::Feasible: return "feasible";
    case SolveStatus::Infeasible: return "infeasible";
    case SolveStatus::NoPlan: return "no_solution";
  }
  return "no_solution";
}

const char* stopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::None: return "none";
    case StopReason::TimeLimit: return "time_limit";
    case StopReason::IdealLimit: return "ideal_limit";
    case StopReason::MemoryLimit: return "memory_limit";
    case StopReason::Interrupt: return "interrupt";
    case StopReason::OutOfMemory: return "out_of_memory";
  }
  return "none";
}

const char* boundScopeName(BoundScope scope) {
  switch (scope) {
    case BoundScope::Every: return "all";
    case BoundScope::Convex: return "convex";
    case BoundScope::Contiguous: return "contiguous";
  }
  return "all";
}

const char* resultName(const SolveOutcome& outcome) {
  return outcome.ok() ? statusName(outcome.status) : callStatusName(outcome.call);
}

SolveOutcome failedCall(CallStatus call, std::string message) {
  SolveOutcome outcome;
  outcome.call = call;
  outcome.message = std::move(message);
  return outcome;
}

const std::vector<MethodInfo>& methods() {
  using enum MethodOption;
  static const std::vector<MethodInfo> table = {
      {"dp",
       true,
       true,
       "exact contiguous max-load (DP over ideals); for latency: the latency of that plan",
       solveDp,
       true,
       {Replicate}},
      {"dp-linear",
       true,
       false,
       "the DP restricted to one topological order (polynomial)",
       solveDpLinear,
       true,
       {Replicate}},
      {"milp",
       true,
       true,
       "integer program on CBC (non-contiguous/convex throughput, latency)",
       solveMilpWarmStarted,
       false,
       {WriteModel, Contiguity, Gap, Restarts, Replicate},
       false,
       true},
      {"bound",
       true,
       true,
       "proves a lower bound on every placement's max-load (plan: dp's or local-search's) or "
       "latency (plan: greedy's)",
       solveBound,
       false,
       {},
       false,
       true},
      {"pipedream",
       true,
       false,
       "PipeDream emulation: merge biconnected components, linearize, DP",
       solvePipedream,
       true,
       {Replicate}},
      {"scotch", true, false, "Scotch graph partitioning of the color-class graph", solveScotch},
      {"local-search",
       true,
       false,
       "random restarts of best-improvement class moves",
       solveLocalSearch,
       false,
       {Restarts}},
      // Not contiguous: the local search on its best chain may split blocks
      // (--contiguity convex skips it: its plans are then chains, contiguous).
      {"search",
       true,
       false,
       "genetic search over topological orders, the DP along each, then local search",
       solveSearch,
       false,
       {Contiguity}},
      {"greedy", false, true, "latency greedy: fill accelerators in topological order",
       solveLatencyGreedy},
      {"single",
       true,
       true,
       "everything on one accelerator",
       solveSingleAccelerator,
       false,
       {},
       false,
       true},
      {"cpu", true, true, "everything on one CPU core", solveSingleCpu, false, {}, false, true},
      {"expert",
       true,
       true,
       "a human-expert split given with --plan",
       solveExpert,
       false,
       {Plan},
       true,
       true},
  };
  return table;
}

const MethodInfo* findMethod(const std::string& name) {
  for (const auto& method : methods())
    if (method.name == name) return &method;
  return nullptr;
}

std::string unknownMethod(const std::string& name) {
  std::string names;
  for (const auto& method : methods()) names += (names.empty() ? "" : ", ") + method.name;
  return "unknown method '" + name + "' (expected one of: " + names + ")";
}

std::string unsupportedObjective(const std::string& name, Objective objective) {
  return "method '" + name + "' does not support the " +
         (objective == Objective::Latency ? "latency" : "throughput") + " objective";
}

namespace {

/// Where each option of MethodOption applies, in the order they are checked.
/// An option with an objective applies to every method under that objective;
/// one without applies to the methods whose `takes` has it (their names are
/// in its message).
struct OptionRule {
  MethodOption option;
  std::optional<Objective> objective;
  const char* refusal;
};

constexpr OptionRule kOptionRules[] = {
    {MethodOption::Plan, std::nullopt, "--plan is read by --method expert only"},
    {MethodOption::WriteModel, std::nullopt, "--write-model is written by --method milp only"},
    {MethodOption::Contiguity, std::nullopt, "--contiguity applies to --method milp and search only"},
    {MethodOption::Gap, std::nullopt, "--gap applies to --method milp only"},
    {MethodOption::Restarts, std::nullopt,
     "--restarts applies to --method local-search and milp (its warm start) only"},
    {MethodOption::Replicate, std::nullopt,
     "--replicate applies to --method dp, dp-linear, pipedream and milp only"},
    {MethodOption::Replicate, Objective::Throughput,
     "--replicate applies to --objective throughput only"},
    {MethodOption::Q, Objective::Latency, "--q applies to --objective latency only"},
    {MethodOption::DiffMaxima, Objective::Throughput,
     "--diffmaxima applies to --objective throughput only"},
};

}  // namespace

std::string ignoredOption(const MethodInfo* method, Objective objective, OptionSet given) {
  for (const OptionRule& rule : kOptionRules) {
    if (!given.has(rule.option)) continue;
    const bool ignored = rule.objective ? *rule.objective != objective
                                        : method && !method->takes.has(rule.option);
    if (ignored) return rule.refusal;
  }
  return "";
}

std::chrono::steady_clock::time_point deadlineOf(const SolveOptions& options) {
  return deadlineAfter(options.timeLimitSeconds);
}

SolveOptions optionsUntil(const SolveOptions& options, std::chrono::steady_clock::time_point deadline,
                          double share) {
  if (deadline == std::chrono::steady_clock::time_point::max()) return options;
  SolveOptions within = options;
  const double left =
      std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
  // A limit that is not positive would mean none.
  within.timeLimitSeconds = std::max(1e-3, share * left);
  return within;
}

Evaluation evaluatePlan(const Workload& workload, const PlanFile& plan,
                        const EvaluateOptions& options) {
  std::vector<std::string> problems;
  const Placement placement = resolvePlan(workload, plan, &problems);
  Evaluation evaluation = evaluate(workload, placement, options);
  evaluation.violations.insert(evaluation.violations.begin(), problems.begin(), problems.end());
  evaluation.feasible = evaluation.violations.empty();
  return evaluation;
}

std::optional<Evaluation> evaluatePlanFile(const Workload& workload, const std::string& path,
                                           const EvaluateOptions& options, std::string* error) {
  const auto plan = loadPlan(path, error);
  if (!plan || !checkReplicas(workload, *plan, inputName(path), error)) return std::nullopt;
  return evaluatePlan(workload, *plan, options);
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
static SolveOutcome solveAndCheck(const Workload& workload, const std::string& name,
                                  const SolveOptions& options,
                                  std::chrono::steady_clock::time_point start) {
  SolveOutcome outcome;
  const MethodInfo* method = findMethod(name);
  if (!method) {
    outcome = failedCall(CallStatus::InvalidInput, "unknown method '" + name + "'");
    outcome.method = name;
    return outcome;
  }
  if (!method->supports(options.objective)) {
    outcome = failedCall(CallStatus::InvalidInput, unsupportedObjective(name, options.objective));
    outcome.method = name;
    return outcome;
  }
  // Latency: CPU nodes run on as many cores as they need (docs/model.md §5: maxCPUs
  // is ignored, as the evaluator and the reference ignore it). A machine
  // without CPU cores still runs them, so the methods see one core: the
  // device every CPU node of the plan is listed on.
  Machine machine = workload.machine;
  if (options.objective == Objective::Latency) machine.maxCpus = std::max(machine.maxCpus, 1);
  outcome = method->run(workload.onMachine(machine), options);  // the graph is shared, not copied
  outcome.method = name;
  // What its bound and "optimal" are over: the contiguous placements for the
  // methods that return only those (dp's optimum; dp-linear and pipedream
  // prove none), the convex ones for milp --contiguity convex (CBC's bound
  // is over its model).
  if (method->contiguousPlans)
    outcome.boundScope = BoundScope::Contiguous;
  else if (name == "milp" && options.contiguity == Contiguity::Convex)
    outcome.boundScope = BoundScope::Convex;
  if (outcome.seconds == 0) outcome.seconds = secondsSince(start);

  if (!outcome.placement) {
    if (outcome.found()) {
      outcome.call = CallStatus::InternalError;
      outcome.message = "internal error: method reported a plan but returned none";
    }
    return outcome;
  }
  // The independent re-check: every returned plan, from the original graph.
  const double claimed = outcome.objective;
  EvaluateOptions check = evaluateOptionsFor(options);
  check.requireContiguous = method->contiguousPlans;
  outcome.evaluation = PhaseTimes(&outcome.phases).time("verify", [&] {
    return evaluate(workload, *outcome.placement, check);
  });
  if (!outcome.evaluation.feasible) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: the evaluator rejects the plan of '" + name +
                      "': " + outcome.evaluation.violations.front();
    return outcome;
  }
  if (!sameObjective(claimed, outcome.evaluation.objective)) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: '" + name + "' claims objective " + std::to_string(claimed) +
                      " but the evaluator computes " + std::to_string(outcome.evaluation.objective);
    return outcome;
  }
  outcome.objective = outcome.evaluation.objective;
  // A bound above the plan the method itself found is a bug, not rounding:
  // say so instead of hiding it.
  if (outcome.lowerBound > outcome.objective && !sameObjective(outcome.lowerBound, outcome.objective)) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: '" + name + "' claims lower bound " +
                      std::to_string(outcome.lowerBound) + " above its plan's objective " +
                      std::to_string(outcome.objective);
    return outcome;
  }
  outcome.lowerBound = std::min(outcome.lowerBound, outcome.objective);
  outcome.gap = outcome.objective > 0
                    ? std::max(0.0, (outcome.objective - outcome.lowerBound) / outcome.objective)
                    : 0.0;
  // A plan that meets its method's proven bound is optimal (over the bound's
  // placements), whatever method found it: greedy's latency plan at the
  // split-path bound said feasible where milp said optimal.
  if (outcome.status == SolveStatus::Feasible && outcome.lowerBound > 0 && outcome.gap <= 1e-9)
    outcome.status = SolveStatus::Optimal;
  return outcome;
}

/// solveAndCheck on the layer graph, its plan mapped back onto the original
/// nodes and checked again there. The layer graph's optimum is a plan of the
/// original problem, not its optimum: the outcome is Feasible, without a
/// bound, and its message gives the layer graph's figures.
static SolveOutcome solveLayers(const Workload& workload, const std::string& name,
                                const SolveOptions& options,
                                std::chrono::steady_clock::time_point start) {
  std::string error;
  PhaseTimes contraction;
  auto fusion = contraction.time("contract-layers", [&] { return fuseLayers(workload, &error); });
  if (!fusion) {
    SolveOutcome outcome = failedCall(CallStatus::InvalidInput, error);
    outcome.method = name;
    return outcome;
  }
  SolveOptions inner = options;
  inner.contractLayers = false;
  SolveOutcome outcome = solveAndCheck(fusion->workload, name, inner, start);
  const std::vector<PhaseTime> first = contraction.take();
  outcome.phases.insert(outcome.phases.begin(), first.begin(), first.end());
  if (!outcome.ok() || !outcome.placement) return outcome;
  const Placement layers = *outcome.placement;
  Placement& placement = *outcome.placement;
  placement.deviceOf.resize(workload.numNodes());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    placement.deviceOf[v] = layers.deviceOf[fusion->fusedOf[v]];
  outcome.evaluation = PhaseTimes(&outcome.phases).time("verify", [&] {
    return evaluate(workload, placement, evaluateOptionsFor(options));
  });
  if (!outcome.evaluation.feasible) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: the evaluator rejects the plan of '" + name +
                      "' mapped back from the layer graph: " + outcome.evaluation.violations.front();
    return outcome;
  }
  // Nothing fused (every layer one node): the layer graph is the problem
  // itself, and its status and bound stand.
  if (fusion->workload.numNodes() == workload.numNodes()) {
    outcome.message = "no two nodes share a layer: solved as given; " + outcome.message;
    return outcome;
  }
  const std::string layerFigures = std::string(statusName(outcome.status)) + " on the layer graph (" +
                                   std::to_string(fusion->workload.numNodes()) +
                                   " nodes): " + formatTenDigits(outcome.objective);
  outcome.message = outcome.message.empty() ? layerFigures : layerFigures + "; " + outcome.message;
  if (outcome.status == SolveStatus::Optimal) outcome.status = SolveStatus::Feasible;
  outcome.objective = outcome.evaluation.objective;
  // The layer graph's bound does not hold for the finer graph: no bound,
  // so the gap is 1, as for every method without one (not 0: "proven").
  outcome.lowerBound = 0;
  outcome.gap = outcome.objective > 0 ? 1.0 : 0.0;
  return outcome;
}

SolveOutcome solve(const Workload& workload, const std::string& name, const SolveOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // The solvers and the re-check may throw (bad_alloc, solver library
  // errors, in any thread of a method): a caller gets a status instead.
  auto failed = [&](CallStatus call, StopReason stop, std::string message) {
    SolveOutcome outcome = failedCall(call, std::move(message));
    outcome.method = name;
    outcome.stop = stop;
    outcome.seconds = secondsSince(start);
    return outcome;
  };
  try {
    return options.contractLayers ? solveLayers(workload, name, options, start)
                                  : solveAndCheck(workload, name, options, start);
  } catch (const std::bad_alloc&) {
    return failed(CallStatus::Ok, StopReason::OutOfMemory, "ran out of memory");
  } catch (const std::exception& e) {
    return failed(CallStatus::InternalError, StopReason::None,
                  std::string("internal error: ") + e.what());
  } catch (...) {  // e.g. CoinError, which is not a std::exception
    return failed(CallStatus::InternalError, StopReason::None,
                  "internal error: an exception that is not a std::exception");
  }
}

double trivialThroughputLowerBound(const Workload& workload) {
  // Bound 1 of bounds.md (cheap: a sort of the classes): at least §3's, and
  // what solve's methods report, so that info and render agree with them.
  return bounds::workBound(workload, objective::ClassTotals(workload));
}

double replicatedThroughputLowerBound(const Workload& workload) {
  return baseline::replicatedWorkBound(workload);
}

}  // namespace dnnplace
