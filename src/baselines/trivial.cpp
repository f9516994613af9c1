#include "baselines/trivial.hpp"

#include <algorithm>

#include "baselines/common.hpp"
#include "objective/class_totals.hpp"
#include "objective/latency.hpp"
#include "objective/loads.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

Placement allOn(const Workload& w, int device) {
  Placement p;
  p.numAccelerators = w.machine.maxFpgas;
  p.numCpus = std::max(w.machine.maxCpus, device >= w.machine.maxFpgas ? 1 : 0);
  p.deviceOf.assign(w.numNodes(), device);
  return p;
}

/// The objective of a plan that the trivial methods build (DESIGN §3, §5):
/// one device, or every CPU node on its own core, so one piece at most.
double objectiveOf(const Workload& w, const Placement& p, const SolveOptions& options) {
  if (options.objective == Objective::Throughput) return objective::throughputObjective(w, p, options.diffMaxima);
  return objective::latencyOf(w, p, 1).value();
}

SolveOutcome infeasible(std::string why) { return baseline::refusal(SolveStatus::Infeasible, std::move(why)); }

}  // namespace

SolveOutcome solveSingleAccelerator(const Workload& w, const SolveOptions& options) {
  if (w.machine.maxFpgas == 0) return infeasible("the machine has no accelerator (maxFPGAs is 0)");
  double memory = 0;
  std::vector<NodeIndex> unsupported;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    memory += w.graph().nodes[v].size;
    if (!w.graph().nodes[v].supportedOnFpga) unsupported.push_back(v);
  }
  if (!unsupported.empty())
    return infeasible("node " + std::to_string(w.graph().nodes[unsupported[0]].id) +
                      (unsupported.size() > 1 ? " (and " + std::to_string(unsupported.size() - 1) + " more)" : "") +
                      " cannot run on an accelerator");
  if (!objective::fitsMemory(memory, w.machine))
    return infeasible("the whole graph needs " + formatShortest(memory) + " bytes, one accelerator holds " +
                      formatShortest(w.machine.maxSizePerFpga));
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = allOn(w, 0);
  // One device: no edge crosses a boundary, and the latency model runs the
  // whole graph as one subgraph with no communication.
  outcome.objective = objectiveOf(w, *outcome.placement, options);
  return outcome;
}

SolveOutcome solveSingleCpu(const Workload& w, const SolveOptions& options) {
  if (options.objective == Objective::Throughput && w.machine.maxCpus == 0)
    return infeasible("the machine has no CPU core (maxCPUs is 0)");
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = allOn(w, w.machine.maxFpgas);
  // Latency: CPU nodes run on as many cores as they need, so the critical path.
  outcome.objective = objectiveOf(w, *outcome.placement, options);
  return outcome;
}

SolveOutcome solveExpert(const Workload& w, const SolveOptions& options) {
  if (options.expertPlanPath.empty())
    return failedCall(CallStatus::InvalidInput, "method 'expert' needs --plan FILE (a split written by hand)");
  std::string error;
  auto file = loadPlan(options.expertPlanPath, &error);
  if (!file) return failedCall(CallStatus::InvalidInput, error);
  std::vector<std::string> problems;
  Placement placement = resolvePlan(w, *file, &problems);
  EvaluateOptions evalOptions = evaluateOptionsFor(options);
  Evaluation evaluation = evaluate(w, placement, evalOptions);
  problems.insert(problems.end(), evaluation.violations.begin(), evaluation.violations.end());
  if (!problems.empty()) {
    std::string why = options.expertPlanPath + " is not a feasible plan for " + w.name;
    for (const auto& p : problems) why += "; " + p;
    return infeasible(why);
  }
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = std::move(placement);
  outcome.objective = evaluation.objective;  // the method *is* an evaluation
  return outcome;
}

}  // namespace dnnplace
