#include "dp/exact_sums.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace dnnplace::dp {

namespace {

/// How far above a known plan's max-load latencies and weights are clamped.
constexpr double kClampFactor = 1024;

/// Rounds every value of `lists` onto the finest grid 2^e on which all their
/// sums are exact (their rounded total below 2^(e + 53)): down (latencies,
/// weights) or up (sizes). The total of values on the grid, summed in
/// double, stays below that bound exactly when the true total does
/// (rounding is monotone), so the test is exact. Starts from the grid of
/// the true total and coarsens until the rounded one fits (rounding up adds
/// less than a step per value). Returns the grid's step (0: all values 0).
double snapOntoGrid(const std::vector<std::vector<double>*>& lists, bool up) {
  double total = 0;
  for (const auto* list : lists)
    for (double x : *list) total += x;
  if (!(total > 0)) return 0;
  constexpr int kDigits = std::numeric_limits<double>::digits;
  // Never below the smallest subnormal's exponent: every double is a multiple of it.
  const int finest = std::numeric_limits<double>::min_exponent - kDigits;
  for (int exponent = std::max(finest, static_cast<int>(std::ceil(std::log2(total))) - kDigits);;
       ++exponent) {
    const double grid = std::ldexp(1.0, exponent);
    auto rounded = [&](double x) { return (up ? std::ceil(x / grid) : std::floor(x / grid)) * grid; };
    double snapped = 0;
    for (const auto* list : lists)
      for (double x : *list) snapped += rounded(x);
    if (!(snapped < std::ldexp(1.0, exponent + kDigits))) continue;
    for (auto* list : lists)
      for (double& x : *list) x = rounded(x);
    return grid;
  }
}

}  // namespace

void snapToExactGrid(ContractedGraph* graph, double memoryPerAccelerator, double knownMaxLoad) {
  // Clamped at 1024·K, rounded down onto a grid finer than K (fewer than
  // 2^42 terms): still above K. (Only far above K: a clamped latency also
  // weakens the DP's work bounds, which read every super-node's.)
  if (std::isfinite(knownMaxLoad) && knownMaxLoad > 0)
    for (auto* list : {&graph->fpgaLatency, &graph->cpuLatency, &graph->hyperWeight})
      for (double& x : *list) x = std::min(x, kClampFactor * knownMaxLoad);
  snapOntoGrid({&graph->fpgaLatency, &graph->cpuLatency, &graph->hyperWeight}, false);
  // Sizes only meet the memory: clamped near it (a size above it stays
  // above), so that their grid is fine next to it, then rounded up.
  const double clamp = memoryPerAccelerator > 0 ? 2 * memoryPerAccelerator : 1;
  for (double& x : graph->size) x = std::min(x, clamp);
  const double step = snapOntoGrid({&graph->size}, true);
  // The evaluator accepts a memory 1e-12 over the capacity; half of that
  // leaves room for its own rounding.
  const double bound = memoryPerAccelerator * (1 + 5e-13);
  graph->dpMemoryBound = step > 0 ? std::floor(bound / step) * step : memoryPerAccelerator;
}

double gridMaxLoad(const ContractedGraph& graph, const Placement& placement) {
  const int devices = placement.numAccelerators + placement.numCpus;
  std::vector<double> load(devices, 0);
  std::vector<int> deviceOf(graph.numSuperNodes);
  for (int s = 0; s < graph.numSuperNodes; ++s) {
    const int device = placement.deviceOf[graph.members[graph.memberStart[s]]];
    if (device < 0 || device >= devices) return std::numeric_limits<double>::infinity();  // no plan
    deviceOf[s] = device;
    load[device] += device < placement.numAccelerators ? graph.fpgaLatency[s] : graph.cpuLatency[s];
  }
  // A hyperedge is paid once by each accelerator holding some but not all of it.
  std::vector<int> members(devices, 0);
  for (std::size_t h = 0; h + 1 < graph.hyperStart.size(); ++h) {
    const int total = graph.hyperStart[h + 1] - graph.hyperStart[h];
    for (int i = graph.hyperStart[h]; i < graph.hyperStart[h + 1]; ++i)
      ++members[deviceOf[graph.hyperNodes[i]]];
    for (int i = graph.hyperStart[h]; i < graph.hyperStart[h + 1]; ++i) {
      const int device = deviceOf[graph.hyperNodes[i]];
      if (members[device] == 0) continue;  // counted already
      if (members[device] < total && device < placement.numAccelerators)
        load[device] += graph.hyperWeight[h];
      members[device] = 0;
    }
  }
  double worst = 0;
  for (double x : load) worst = std::max(worst, x);
  return worst;
}

ContractedGraph contractForDp(const Workload& workload, const ContractionOptions& options,
                              double knownMaxLoad) {
  ContractedGraph graph = contractWorkload(workload, options);
  snapToExactGrid(&graph, workload.machine.maxSizePerFpga, knownMaxLoad);
  return graph;
}

}  // namespace dnnplace::dp
