#include "baselines/replicas.hpp"

#include <algorithm>

#include "objective/loads.hpp"

namespace dnnplace::baseline {

std::optional<SolveOutcome> replicationRefusal(const Workload& workload, const SolveOptions& options) {
  SolveOutcome refused;
  refused.call = CallStatus::InvalidInput;
  if (options.objective != Objective::Throughput || options.diffMaxima) {
    refused.message = "--replicate applies to the throughput objective (max-load) only";
    return refused;
  }
  if (!(workload.machine.syncBandwidth > 0)) {
    refused.message =
        "--replicate needs the workload's syncBandwidth (docs/model.md §9): without it no block "
        "can be replicated (import onnx --sync-bandwidth, or a device with a sync figure, sets it)";
    return refused;
  }
  return std::nullopt;
}

Placement replicateBottlenecks(const Workload& workload, Placement placement) {
  const int k = placement.numAccelerators;
  std::vector<double> parameters(k, 0);
  std::vector<char> used(k, 0);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int d = placement.deviceOf[v];
    if (d == Placement::kUnplaced || !placement.isAccelerator(d)) continue;
    used[d] = 1;
    parameters[d] += workload.graph().nodes[v].parameterSize;
  }
  if (placement.replicas.empty()) placement.replicas.assign(k, 1);
  int spare = workload.machine.maxFpgas;
  for (int d = 0; d < k; ++d) spare -= used[d] ? placement.replicas[d] : 0;
  // Loads with one replica each: the base of load(B, r).
  std::vector<int> replicas = placement.replicas;
  placement.replicas.assign(k, 1);
  const std::vector<double> base = objective::deviceLoads(workload, placement);
  placement.replicas = replicas;
  std::vector<double> load = objective::deviceLoads(workload, placement);
  while (spare > 0) {
    const int worst = static_cast<int>(std::max_element(load.begin(), load.end()) - load.begin());
    if (!placement.isAccelerator(worst) || !used[worst]) break;
    int extra = 1;
    const int r = placement.replicas[worst];
    while (extra <= spare && objective::replicatedLoad(base[worst], parameters[worst], r + extra,
                                                       workload.machine) >= load[worst])
      ++extra;
    if (extra > spare) break;
    placement.replicas[worst] = r + extra;
    load[worst] =
        objective::replicatedLoad(base[worst], parameters[worst], r + extra, workload.machine);
    spare -= extra;
  }
  if (std::all_of(placement.replicas.begin(), placement.replicas.end(), [](int r) { return r == 1; }))
    placement.replicas.clear();
  return placement;
}

double replicatedWorkBound(const Workload& workload) {
  const int devices = workload.machine.maxFpgas + workload.machine.maxCpus;
  if (devices == 0) return 0;
  double work = 0;
  for (const Node& node : workload.graph().nodes) {
    const bool accelerator = node.supportedOnFpga && workload.machine.maxFpgas > 0;
    const bool cpu = workload.machine.maxCpus > 0;
    work += accelerator && cpu ? std::min(node.fpgaLatency, node.cpuLatency)
            : accelerator      ? node.fpgaLatency
                               : node.cpuLatency;
  }
  return work / devices;
}

}  // namespace dnnplace::baseline
