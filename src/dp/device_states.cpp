#include "dp/device_states.hpp"

#include <functional>
#include <utility>

namespace dnnplace::dp {

double cpuAbsorbable(const ContractedGraph& graph, int cores, double maxLoad) {
  double budget = cores * maxLoad;
  std::vector<std::pair<double, double>> items;  // (load per CPU time, CPU time)
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    double load = graph.fpgaLatency[v];
    for (int i = graph.incidenceStart[v]; i < graph.incidenceStart[v + 1]; ++i) {
      const int h = graph.incidence[i];
      if (graph.hyperStart[h + 1] - graph.hyperStart[h] >= 2) load += graph.hyperWeight[h];
    }
    if (load <= 0 || graph.cpuLatency[v] * (1 - 1e-9) >= maxLoad) continue;
    if (!(graph.cpuLatency[v] > 0)) return kInfinity;
    items.emplace_back(load / graph.cpuLatency[v], graph.cpuLatency[v]);
  }
  std::sort(items.begin(), items.end(), std::greater<>());
  double absorbed = 0;
  for (const auto& [density, time] : items) {
    if (budget <= 0) break;
    const double taken = std::min(time, budget);
    absorbed += density * taken;
    budget -= taken;
  }
  return absorbed;
}

double latencyRatio(const ContractedGraph& graph) {
  double ratio = 0;
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    if (graph.fpgaLatency[v] <= 0) continue;
    ratio = graph.cpuLatency[v] > 0 ? std::max(ratio, graph.fpgaLatency[v] / graph.cpuLatency[v])
                                    : kInfinity;
  }
  return ratio;
}

ChainBounds chainBounds(const ContractedGraph& graph, DeviceStates states,
                        double memoryPerAccelerator) {
  ChainBounds bounds;
  Work all;
  double fpgaTotal = 0;
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    const bool fits = states.accelerators > 0 && graph.supportedOnFpga[v] &&
                      graph.size[v] <= memoryPerAccelerator;
    const double alone = std::min(fits ? graph.fpgaLatency[v] : kInfinity,
                                  states.cpus > 0 ? graph.cpuLatency[v] : kInfinity);
    if (std::isfinite(alone)) bounds.lower = std::max(bounds.lower, alone);
    (fits ? all.acceleratorFit : all.forcedCpu) += fits ? graph.fpgaLatency[v] : graph.cpuLatency[v];
    all.cpu += graph.cpuLatency[v];
    all.notOnAccelerator += fits ? 0 : 1;
    fpgaTotal += graph.fpgaLatency[v];
  }
  const double work = workBoundOf(all, states.accelerators, states.cpus, latencyRatio(graph));
  if (std::isfinite(work)) bounds.lower = std::max(bounds.lower, work);
  double communication = 0;
  for (double w : graph.hyperWeight) communication += w;
  bounds.upper = std::max(fpgaTotal + communication, all.cpu);
  return bounds;
}

}  // namespace dnnplace::dp
