#include "bounds/latency_bound.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "objective/class_totals.hpp"

namespace dnnplace {

LatencyLowerBound latencyLowerBound(const Workload& workload,
                                    const std::vector<char>& acceleratorAllowed, bool cpuAllowed, int q,
                                    std::chrono::steady_clock::time_point deadline) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  LatencyLowerBound bound;
  const int numNodes = workload.numNodes();
  if (numNodes == 0) return bound;
  auto onAccelerator = [&](NodeIndex v) {
    return acceleratorAllowed[workload.graph().classOf[v]] != 0;
  };
  auto cheapest = [&](NodeIndex v) {
    const Node& node = workload.graph().nodes[v];
    double best = kInfinity;
    if (onAccelerator(v)) best = node.fpgaLatency;
    if (cpuAllowed) best = std::min(best, node.cpuLatency);
    return best == kInfinity ? 0.0 : best;
  };

  // 1. The compute path, remembering the predecessor each finish time came from.
  std::vector<double>& finish = bound.earliestFinish;
  finish.assign(numNodes, 0);
  std::vector<NodeIndex> from(numNodes, -1);
  NodeIndex last = 0;
  for (NodeIndex v : workload.graph().topologicalOrder) {
    double start = 0;
    for (NodeIndex u : workload.predecessors(v))
      if (from[v] < 0 || finish[u] > start) {
        start = finish[u];
        from[v] = u;
      }
    finish[v] = start + cheapest(v);
    if (finish[v] > finish[last]) last = v;
  }
  bound.computePath = finish[last];
  std::vector<NodeIndex> path;
  for (NodeIndex v = last; v >= 0; v = from[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  const int n = static_cast<int>(path.size());
  bound.pathNodes = n;

  // 2. The split path: cost[i][r] = least time until path node i finishes
  // with r accelerator runs so far, node i on a CPU core (cpu) or ending a run (run).
  const int maxRuns = static_cast<int>(
      std::min<std::int64_t>(n, static_cast<std::int64_t>(std::max(0, workload.machine.maxFpgas)) *
                                    std::max(1, q)));
  const int width = maxRuns + 1;
  std::vector<double> cpu(static_cast<std::size_t>(n) * width, kInfinity);
  std::vector<double> run(static_cast<std::size_t>(n) * width, kInfinity);
  auto at = [&](std::vector<double>& table, int i, int r) -> double& {
    return table[static_cast<std::size_t>(i) * width + r];
  };
  const std::vector<double> classSize = objective::ClassTotals(workload).size;
  std::vector<int> counted(workload.graph().numClasses,
                           -1);  // == i: the class is in the run ending at i
  for (int i = 0; i < n; ++i) {
    if ((i & 63) == 63 && std::chrono::steady_clock::now() > deadline) {
      bound.splitPath = bound.computePath;
      return bound;
    }
    const NodeIndex v = path[i];
    const bool nowhere = !onAccelerator(v) && !cpuAllowed;
    if (cpuAllowed || nowhere) {
      const double own = nowhere ? 0 : workload.graph().nodes[v].cpuLatency;
      for (int r = 0; r <= maxRuns; ++r) {
        double before = i == 0 ? (r == 0 ? 0 : kInfinity)
                               : std::min(at(cpu, i - 1, r),
                                          at(run, i - 1, r) + workload.graph().outCost[path[i - 1]]);
        at(cpu, i, r) = before + own;
      }
    }
    // Runs p_j..p_i, grown backwards while they fit one accelerator.
    double size = 0, compute = 0;
    for (int j = i; j >= 0; --j) {
      const NodeIndex u = path[j];
      if (!onAccelerator(u)) break;
      const int c = workload.graph().classOf[u];
      if (counted[c] != i) {
        counted[c] = i;
        size += classSize[c];
      }
      if (!objective::fitsMemory(size, workload.machine)) break;
      compute += workload.graph().nodes[u].fpgaLatency;
      for (int r = 1; r <= maxRuns; ++r) {
        double before;
        if (j == 0) {
          before = r == 1 ? 0 : kInfinity;
        } else {
          const double sent = workload.graph().outCost[path[j - 1]];  // received by this run
          before = std::min(at(cpu, j - 1, r - 1) + sent, at(run, j - 1, r - 1) + 2 * sent);
        }
        at(run, i, r) = std::min(at(run, i, r), before + compute);
      }
    }
  }
  double best = kInfinity;
  for (int r = 0; r <= maxRuns; ++r) best = std::min({best, at(cpu, n - 1, r), at(run, n - 1, r)});
  bound.splitPath = best == kInfinity ? bound.computePath : std::max(best, bound.computePath);
  return bound;
}

}  // namespace dnnplace
