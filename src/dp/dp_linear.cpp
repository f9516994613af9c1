// Method "dp-linear": the DP over the prefixes of one topological order.

#include "dp/dp_linear.hpp"
#include "dnnplace/solver.hpp"
#include "util/deadline.hpp"

#include <utility>

#include "dp/chain.hpp"
#include "dp/dp.hpp"
#include "dp/exact_sums.hpp"
#include "dp/messages.hpp"
#include "dp/replicated.hpp"
#include "dp/seeds.hpp"

namespace dnnplace {

namespace dp {

SolveOutcome solveAlongOneOrder(const Workload& workload, const SolveOptions& options,
                                const char* method, ContractionOptions contraction,
                                std::string (*describe)(const ContractedGraph&)) {
  SolveOutcome outcome;
  if (options.diffMaxima) {
    outcome.call = CallStatus::InvalidInput;
    outcome.message = std::string(method) + " does not support --diffmaxima; use milp";
    return outcome;
  }
  if (options.objective != Objective::Throughput) {
    outcome.call = CallStatus::InvalidInput;
    outcome.message = std::string(method) + " optimizes throughput only";
    return outcome;
  }
  if (workload.numNodes() == 0) return emptyWorkloadOutcome(workload);
  PhaseTimes phases;
  contraction.linearize = true;
  ContractedGraph graph =
      phases.time("contract", [&] { return contractWorkload(workload, contraction); });
  if (const std::string why = obviousInfeasibility(workload, graph); !why.empty()) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = why;
    outcome.phases = phases.take();
    return outcome;
  }
  // The DP's sums exact (exact_sums.hpp), as fine as a greedy packing of
  // the order allows: the order's optimum is no larger than that packing.
  // (Its messages name the true sizes: the ones above.)
  // (A quarter of the time: it is only a bound, and a plan if a limit stops the DP.)
  const auto deadline = deadlineOf(options);
  const auto now = Clock::now();
  const LinearSeed greedy = greedyChain(workload, graph,
                                        deadline < now ? deadline : now + (deadline - now) / 4,
                                        options.interrupt, options.memoryLimitBytes);
  snapToExactGrid(&graph, workload.machine.maxSizePerFpga, greedy.objective);
  const ChainResult chain = solveChain(workload, graph, options, deadline, kInfinity);
  phases.add("enumerate", chain.enumerateSeconds);
  phases.add("dp", chain.dpSeconds);
  phases.add("backtrack", chain.backtrackSeconds);
  if (isLimit(chain.kind)) {
    outcome.stop = stopReasonOf(chain.kind);
    outcome.message = limitMessage(chain, options);
    // The same optimum without a lattice, if time is left (its table keeps
    // the memory limit with fewer devices if need be), else the greedy packing.
    LinearSeed along = phases.time("seed", [&] {
      return linearChainSeed(workload, graph, aboveRounding(greedy.objective), deadline,
                             options.interrupt, options.memoryLimitBytes);
    });
    if (along.blocks.empty()) along = greedy;
    outcome.phases = phases.take();
    if (along.blocks.empty()) {
      outcome.status = SolveStatus::NoPlan;
      return outcome;
    }
    outcome.status = SolveStatus::Feasible;
    outcome.placement = placementOf(workload, graph, along.blocks);
    outcome.objective = along.objective;
    outcome.message += "; returning the best chain along the order found without a lattice";
    return outcome;
  }
  outcome.phases = phases.take();
  if (chain.kind == ChainResult::Kind::InternalError) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: the DP could not recover its plan";
    return outcome;
  }
  if (chain.kind == ChainResult::Kind::NoChain) {
    // Only this order failed; other contiguous placements may exist.
    outcome.status = SolveStatus::NoPlan;
    outcome.message = "no feasible placement along the " + std::string(kOrderNote);
    return outcome;
  }
  const auto mapping = Clock::now();
  outcome.status = SolveStatus::Feasible;
  outcome.placement = placementOf(workload, graph, chain.blocks);
  outcome.objective = chain.objective;
  outcome.lowerBound = 0;
  outcome.message = describe(graph);
  outcome.phases.back().seconds += secondsSince(mapping);
  return outcome;
}

}  // namespace dp

SolveOutcome solveDpLinear(const Workload& workload, const SolveOptions& options) {
  if (options.replicate)
    return dp::solveReplicated(workload, options, "dp-linear", ContractionOptions{}, false,
                               solveDpLinear);
  return dp::solveAlongOneOrder(workload, options, "dp-linear", ContractionOptions{},
                                [](const ContractedGraph& graph) {
                                  return "optimal for one " + std::string(dp::kOrderNote) + " (" +
                                         std::to_string(graph.numSuperNodes) +
                                         " super-nodes); not for all contiguous placements";
                                });
}

}  // namespace dnnplace
