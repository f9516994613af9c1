#include "baselines/greedy.hpp"
#include "dnnplace/solver.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "baselines/common.hpp"
#include "bounds/latency_bound.hpp"
#include "objective/class_totals.hpp"
#include "objective/latency.hpp"
#include "util/deadline.hpp"
#include "util/scc.hpp"

namespace dnnplace {
namespace {

using objective::ClassTotals;
using objective::fitsMemory;

/// Strongly connected components of the class graph (iterative Tarjan).
/// Returns the component of each class; components are numbered arbitrarily.
std::vector<int> classComponents(const Workload& workload, int* numComponents) {
  const int numClasses = workload.graph().numClasses;
  std::vector<std::vector<int>> next(numClasses);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u)
    for (NodeIndex w : workload.successors(u))
      if (workload.graph().classOf[u] != workload.graph().classOf[w])
        next[workload.graph().classOf[u]].push_back(workload.graph().classOf[w]);

  return stronglyConnectedComponents(next, numComponents);
}

}  // namespace

SolveOutcome latencyGreedyPlan(const Workload& workload, const SolveOptions& options) {
  SolveOutcome outcome;
  if (options.objective != Objective::Latency)
    return failedCall(CallStatus::InvalidInput, "greedy optimizes the latency objective only");
  const ClassTotals totals(workload);
  if (auto refused = baseline::unplaceableOutcome(workload, totals)) return *refused;
  const Machine& machine = workload.machine;
  PhaseTimes phases(&outcome.phases);

  // 1. Inseparable blocks.
  int numBlocks = 0;
  const std::vector<int> blockOfClass = classComponents(workload, &numBlocks);
  std::vector<std::vector<NodeIndex>> blockNodes(numBlocks);
  std::vector<double> blockSize(numBlocks, 0);
  std::vector<char> blockSupported(numBlocks, 1);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int b = blockOfClass[workload.graph().classOf[v]];
    blockNodes[b].push_back(v);  // in index order, so front() is the first node
    blockSize[b] += workload.graph().nodes[v].size;
    if (!workload.graph().nodes[v].supportedOnFpga) blockSupported[b] = 0;
  }

  // 2. Topological order of blocks, ready blocks by first node index.
  std::vector<std::vector<int>> next(numBlocks);
  std::vector<int> indegree(numBlocks, 0);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u)
    for (NodeIndex w : workload.successors(u)) {
      const int a = blockOfClass[workload.graph().classOf[u]],
                b = blockOfClass[workload.graph().classOf[w]];
      if (a == b) continue;
      next[a].push_back(b);
      ++indegree[b];
    }
  using Entry = std::pair<NodeIndex, int>;  // (first node, block)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (int b = 0; b < numBlocks; ++b)
    if (indegree[b] == 0) ready.emplace(blockNodes[b].front(), b);
  std::vector<int> order;
  while (!ready.empty()) {
    const int b = ready.top().second;
    ready.pop();
    order.push_back(b);
    for (int c : next[b])
      if (--indegree[c] == 0) ready.emplace(blockNodes[c].front(), c);
  }
  if (static_cast<int>(order.size()) != numBlocks)  // impossible: SCCs of a graph form a DAG
    return failedCall(CallStatus::InternalError, "greedy: the block graph is cyclic");

  phases.end("blocks");

  // 3. Fill accelerators in that order.
  Placement placement;
  placement.numAccelerators = machine.maxFpgas;
  placement.numCpus = machine.maxCpus;
  placement.deviceOf.assign(workload.numNodes(), Placement::kUnplaced);
  const int cpu = Placement::cpuDevice(machine.maxFpgas, 0);
  int open = -1, used = 0, blocksOnCpu = 0;
  double openMemory = 0;
  for (int b : order) {
    int device = -1;
    const bool fits = blockSupported[b] && fitsMemory(blockSize[b], machine);
    if (fits && open >= 0 && fitsMemory(openMemory + blockSize[b], machine)) {
      device = open;
      openMemory += blockSize[b];
    } else if (fits && used < machine.maxFpgas) {
      device = open = used++;
      openMemory = blockSize[b];
    } else {
      if (machine.maxCpus == 0)
        return baseline::refusal(SolveStatus::NoPlan,
                                 "greedy: the accelerators' memory is used up and maxCPUs is 0");
      device = cpu;
      open = -1;  // a CPU block in between would make the accelerator non-convex
      ++blocksOnCpu;
    }
    for (NodeIndex v : blockNodes[b]) placement.deviceOf[v] = device;
  }

  // Each accelerator holds one convex piece.
  const auto latency = objective::latencyOf(workload, placement, 1);
  if (!latency)  // impossible: runs of a topological order are convex
    return failedCall(CallStatus::InternalError,
                      "greedy: an accelerator's blocks are not one convex piece");
  outcome.objective = *latency;
  phases.end("fill");
  outcome.placement = std::move(placement);
  outcome.status = SolveStatus::Feasible;
  outcome.message = std::to_string(numBlocks) + " inseparable blocks on " + std::to_string(used) +
                    " accelerators, " + std::to_string(blocksOnCpu) + " on CPU";
  return outcome;
}

SolveOutcome solveLatencyGreedy(const Workload& workload, const SolveOptions& options) {
  const Deadline deadline(options.timeLimitSeconds, options.interrupt);
  SolveOutcome outcome = latencyGreedyPlan(workload, options);
  if (!outcome.found()) return outcome;
  // The plan is linear-time; only its bound can be slow (long runs on long paths).
  PhaseTimes phases(&outcome.phases);
  const LatencyLowerBound bound =
      latencyLowerBound(workload, ClassTotals(workload).acceleratorAllowed(workload.machine),
                        workload.machine.maxCpus > 0, options.q, deadline.at());
  outcome.lowerBound = bound.value();
  phases.end("bound");
  if (bound.splitPathRelaxed)
    outcome.message +=
        "; the lower bound counts the accelerators' runs on its path by a relaxation (the exact "
        "count would take too long), so it may be weaker";
  return outcome;
}

}  // namespace dnnplace
