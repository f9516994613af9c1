#pragma once
/// The throughput objective of docs/model.md §3 for a complete placement, the
/// solver side's one copy (the evaluator keeps an independent one).
///
/// A device's load is the latency of its nodes on its kind of device, plus,
/// on an accelerator, cost(u) once for every node u with an edge (u, w)
/// where exactly one of u, w is on it. CPU cores pay no communication.

#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::objective {

/// docs/model.md §9: a block of accelerator load `load` whose nodes hold
/// `parameterBytes` of weights, on `replicas` accelerators:
/// (load + sync) / r, sync = 4 · (r − 1)/r · parameterBytes / syncBandwidth / samplesPerSync
/// (0 for r = 1, or without a syncBandwidth).
double replicatedLoad(double load, double parameterBytes, int replicas, const Machine& machine);

/// Per device: its load (per replica, for a replicated accelerator).
std::vector<double> deviceLoads(const Workload& workload, const Placement& placement);

/// Per device: its load split into forward and backward nodes' shares (a
/// communication cost counts on the side of the node that sends it).
struct DirectionLoads {
  std::vector<double> forward, backward;
};
DirectionLoads directionLoads(const Workload& workload, const Placement& placement);

/// The largest value (0 for none).
double maxOf(const std::vector<double>& values);

/// Max-load, or with `diffMaxima` max forward load + max backward load.
double throughputObjective(const Workload& workload, const Placement& placement, bool diffMaxima);

}  // namespace dnnplace::objective
