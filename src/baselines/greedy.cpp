#include "baselines/greedy.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "baselines/common.hpp"
#include "bounds/latency_bound.hpp"

namespace dnnplace {
namespace {

using baseline::ClassTotals;

/// Strongly connected components of the class graph (iterative Tarjan).
/// Returns the component of each class; components are numbered arbitrarily.
std::vector<int> classComponents(const Workload& workload, int* numComponents) {
  const int numClasses = workload.numClasses;
  std::vector<std::vector<int>> next(numClasses);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u)
    for (NodeIndex w : workload.successors(u))
      if (workload.classOf[u] != workload.classOf[w])
        next[workload.classOf[u]].push_back(workload.classOf[w]);

  std::vector<int> index(numClasses, -1), low(numClasses, 0), component(numClasses, -1);
  std::vector<int> stack, callStack, edgePosition(numClasses, 0);
  std::vector<char> onStack(numClasses, 0);
  int counter = 0;
  *numComponents = 0;
  for (int root = 0; root < numClasses; ++root) {
    if (index[root] >= 0) continue;
    callStack.push_back(root);
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!callStack.empty()) {
      const int c = callStack.back();
      if (edgePosition[c] < static_cast<int>(next[c].size())) {
        const int d = next[c][edgePosition[c]++];
        if (index[d] < 0) {
          index[d] = low[d] = counter++;
          stack.push_back(d);
          onStack[d] = 1;
          callStack.push_back(d);
        } else if (onStack[d]) {
          low[c] = std::min(low[c], index[d]);
        }
        continue;
      }
      callStack.pop_back();
      if (!callStack.empty()) low[callStack.back()] = std::min(low[callStack.back()], low[c]);
      if (low[c] == index[c]) {
        int member;
        do {
          member = stack.back();
          stack.pop_back();
          onStack[member] = 0;
          component[member] = *numComponents;
        } while (member != c);
        ++*numComponents;
      }
    }
  }
  return component;
}

/// Latency of a plan whose accelerators each hold consecutive blocks of
/// `blockOrder` (so every accelerator is one convex piece), DESIGN §5.
double planLatency(const Workload& workload, const Placement& placement,
                   const std::vector<std::vector<NodeIndex>>& blockNodes,
                   const std::vector<int>& blockOrder) {
  const int n = workload.numNodes();
  std::vector<double> finish(n, 0);
  std::vector<int> topoPosition(n);
  for (int i = 0; i < n; ++i) topoPosition[workload.topologicalOrder[i]] = i;
  std::vector<char> acceleratorDone(placement.numAccelerators, 0);
  std::vector<NodeIndex> members;
  std::vector<int> paidBy(n, -1);
  for (int block : blockOrder) {
    const NodeIndex first = blockNodes[block].front();
    const int device = placement.deviceOf[first];
    if (placement.isAccelerator(device)) {
      if (acceleratorDone[device]) continue;
      acceleratorDone[device] = 1;
      members.clear();
      for (NodeIndex v = 0; v < n; ++v)
        if (placement.deviceOf[v] == device) members.push_back(v);
      double start = 0, work = 0;
      for (NodeIndex v : members) {
        work += workload.nodes[v].fpgaLatency;
        bool sendsOut = false;
        for (NodeIndex w : workload.successors(v)) sendsOut |= placement.deviceOf[w] != device;
        if (sendsOut) work += workload.outCost[v];
        for (NodeIndex u : workload.predecessors(v)) {
          if (placement.deviceOf[u] == device) continue;
          start = std::max(start, finish[u]);
          if (paidBy[u] != device) {  // each outside feeder is paid once
            paidBy[u] = device;
            work += workload.outCost[u];
          }
        }
      }
      for (NodeIndex v : members) finish[v] = start + work;
    } else {
      members.assign(blockNodes[block].begin(), blockNodes[block].end());
      std::sort(members.begin(), members.end(),
                [&](NodeIndex a, NodeIndex b) { return topoPosition[a] < topoPosition[b]; });
      for (NodeIndex v : members) {
        double start = 0;
        for (NodeIndex u : workload.predecessors(v)) start = std::max(start, finish[u]);
        finish[v] = start + workload.nodes[v].cpuLatency;
      }
    }
  }
  return baseline::maxOf(finish);
}

}  // namespace

SolveOutcome solveLatencyGreedy(const Workload& workload, const SolveOptions& options) {
  const auto deadline = deadlineOf(options);
  SolveOutcome outcome;
  if (options.objective != Objective::Latency) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "greedy optimizes the latency objective only";
    return outcome;
  }
  const ClassTotals totals(workload);
  if (auto refused = baseline::unplaceableOutcome(workload, totals)) return *refused;
  const Machine& machine = workload.machine;

  // 1. Inseparable blocks.
  int numBlocks = 0;
  const std::vector<int> blockOfClass = classComponents(workload, &numBlocks);
  std::vector<std::vector<NodeIndex>> blockNodes(numBlocks);
  std::vector<double> blockSize(numBlocks, 0);
  std::vector<char> blockSupported(numBlocks, 1);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int b = blockOfClass[workload.classOf[v]];
    blockNodes[b].push_back(v);  // in index order, so front() is the first node
    blockSize[b] += workload.nodes[v].size;
    if (!workload.nodes[v].supportedOnFpga) blockSupported[b] = 0;
  }

  // 2. Topological order of blocks, ready blocks by first node index.
  std::vector<std::vector<int>> next(numBlocks);
  std::vector<int> indegree(numBlocks, 0);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u)
    for (NodeIndex w : workload.successors(u)) {
      const int a = blockOfClass[workload.classOf[u]], b = blockOfClass[workload.classOf[w]];
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
  if (static_cast<int>(order.size()) != numBlocks) {
    outcome.status = SolveStatus::Error;  // impossible: SCCs of a graph form a DAG
    outcome.message = "greedy: the block graph is cyclic";
    return outcome;
  }

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
    const bool fits = blockSupported[b] && blockSize[b] <= machine.maxSizePerFpga;
    if (fits && open >= 0 && openMemory + blockSize[b] <= machine.maxSizePerFpga) {
      device = open;
      openMemory += blockSize[b];
    } else if (fits && used < machine.maxFpgas) {
      device = open = used++;
      openMemory = blockSize[b];
    } else {
      if (machine.maxCpus == 0) {
        outcome.status = SolveStatus::NoSolution;
        outcome.message = "greedy: the accelerators' memory is used up and maxCPUs is 0";
        return outcome;
      }
      device = cpu;
      open = -1;  // a CPU block in between would make the accelerator non-convex
      ++blocksOnCpu;
    }
    for (NodeIndex v : blockNodes[b]) placement.deviceOf[v] = device;
  }

  outcome.objective = planLatency(workload, placement, blockNodes, order);
  std::vector<char> acceleratorAllowed(workload.numClasses);
  for (int c = 0; c < workload.numClasses; ++c) acceleratorAllowed[c] = totals.fitsAccelerator(c, machine);
  // The plan is linear-time; only its bound can be slow (long runs on long paths).
  outcome.lowerBound =
      latencyLowerBound(workload, acceleratorAllowed, machine.maxCpus > 0, options.q, deadline).value();
  outcome.placement = std::move(placement);
  outcome.status = SolveStatus::Feasible;
  outcome.message = std::to_string(numBlocks) + " inseparable blocks on " +
                    std::to_string(used) + " accelerators, " + std::to_string(blocksOnCpu) +
                    " on CPU";
  return outcome;
}

}  // namespace dnnplace
