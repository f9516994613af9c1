#include "objective/loads.hpp"

#include <algorithm>

namespace dnnplace::objective {

namespace {

/// Calls pay(d, v) for the compute of every node v on its device d, then
/// charge(d, u) for every accelerator d that pays u's communication cost.
template <class Compute, class Charge>
void forEachLoadTerm(const Workload& workload, const Placement& placement, Compute&& compute,
                     Charge&& charge) {
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) compute(placement.deviceOf[v], v);
  std::vector<int> seenOn(placement.numDevices(), -1);  // last u that paid on d
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    if (workload.graph().outCost[u] == 0) continue;
    const int du = placement.deviceOf[u];
    for (NodeIndex w : workload.successors(u)) {
      const int dw = placement.deviceOf[w];
      if (dw == du) continue;
      // The edge crosses: both endpoint devices pay u once (accelerators only).
      for (int d : {du, dw})
        if (placement.isAccelerator(d) && seenOn[d] != u) {
          seenOn[d] = u;
          charge(d, u);
        }
    }
  }
}

double computeOn(const Workload& workload, const Placement& placement, int d, NodeIndex v) {
  return placement.isAccelerator(d) ? workload.graph().nodes[v].fpgaLatency
                                    : workload.graph().nodes[v].cpuLatency;
}

}  // namespace

double replicatedLoad(double load, double parameterBytes, int replicas, const Machine& machine) {
  if (replicas <= 1 || !(machine.syncBandwidth > 0)) return load;
  const double r = replicas;
  const double sync = 4 * (r - 1) / r * parameterBytes / machine.syncBandwidth / machine.samplesPerSync;
  return (load + sync) / r;
}

std::vector<double> deviceLoads(const Workload& workload, const Placement& placement) {
  std::vector<double> load(placement.numDevices(), 0);
  forEachLoadTerm(
      workload, placement, [&](int d, NodeIndex v) { load[d] += computeOn(workload, placement, d, v); },
      [&](int d, NodeIndex u) { load[d] += workload.graph().outCost[u]; });
  if (!placement.replicas.empty()) {
    std::vector<double> parameters(placement.numAccelerators, 0);
    for (NodeIndex v = 0; v < workload.numNodes(); ++v)
      if (placement.isAccelerator(placement.deviceOf[v]))
        parameters[placement.deviceOf[v]] += workload.graph().nodes[v].parameterSize;
    for (int d = 0; d < placement.numAccelerators; ++d)
      load[d] = replicatedLoad(load[d], parameters[d], placement.replicasOf(d), workload.machine);
  }
  return load;
}

DirectionLoads directionLoads(const Workload& workload, const Placement& placement) {
  DirectionLoads loads;
  loads.forward.assign(placement.numDevices(), 0);
  loads.backward.assign(placement.numDevices(), 0);
  auto side = [&](NodeIndex v) -> std::vector<double>& {
    return workload.graph().nodes[v].isBackward ? loads.backward : loads.forward;
  };
  forEachLoadTerm(
      workload, placement,
      [&](int d, NodeIndex v) { side(v)[d] += computeOn(workload, placement, d, v); },
      [&](int d, NodeIndex u) { side(u)[d] += workload.graph().outCost[u]; });
  return loads;
}

double maxOf(const std::vector<double>& values) {
  double best = 0;
  for (double x : values) best = std::max(best, x);
  return best;
}

double throughputObjective(const Workload& workload, const Placement& placement, bool diffMaxima) {
  if (!diffMaxima) return maxOf(deviceLoads(workload, placement));
  const DirectionLoads loads = directionLoads(workload, placement);
  return maxOf(loads.forward) + maxOf(loads.backward);
}

}  // namespace dnnplace::objective
