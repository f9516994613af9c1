#pragma once
// Helpers shared by the baseline methods (scotch, local-search, greedy):
// per-color-class aggregates and the throughput load of a placement computed
// the way the baselines optimize it. Private to src/.

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "io/json_input.hpp"

namespace dnnplace::baseline {

/// Totals of one color class: what moving the class as a whole moves.
struct ClassTotals {
  std::vector<double> fpgaLatency, cpuLatency, size;
  std::vector<char> supported;  ///< every member may run on an accelerator

  explicit ClassTotals(const Workload& workload)
      : fpgaLatency(workload.numClasses, 0),
        cpuLatency(workload.numClasses, 0),
        size(workload.numClasses, 0),
        supported(workload.numClasses, 1) {
    for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
      const int c = workload.classOf[v];
      const Node& node = workload.nodes[v];
      fpgaLatency[c] += node.fpgaLatency;
      cpuLatency[c] += node.cpuLatency;
      size[c] += node.size;
      if (!node.supportedOnFpga) supported[c] = 0;
    }
  }
  /// Whether class c may sit on an (otherwise empty) accelerator.
  bool fitsAccelerator(int c, const Machine& machine) const {
    return supported[c] && machine.maxFpgas > 0 && size[c] <= machine.maxSizePerFpga;
  }
};

/// Names a color class in messages: its colorClass id when it has one,
/// else its only node's id.
inline std::string describeClass(const Workload& workload, int c) {
  const NodeIndex first = workload.classMembers(c).front();
  const Node& node = workload.nodes[first];
  if (node.colorClass) return "color class " + std::to_string(*node.colorClass);
  return "node " + std::to_string(node.id);
}

/// Why no placement can exist (a class that fits no device), or "" when each
/// class fits some device on its own.
inline std::string whyUnplaceable(const Workload& workload, const ClassTotals& totals) {
  const Machine& machine = workload.machine;
  if (machine.maxFpgas + machine.maxCpus == 0) return "the machine has no devices";
  for (int c = 0; c < workload.numClasses; ++c) {
    if (totals.fitsAccelerator(c, machine) || machine.maxCpus > 0) continue;
    if (!totals.supported[c])
      return describeClass(workload, c) +
             " has an operator unsupported on accelerators and maxCPUs is 0";
    return describeClass(workload, c) + " needs " + json_input::formatNumber(totals.size[c]) +
           " bytes, accelerators hold " + json_input::formatNumber(machine.maxSizePerFpga) +
           " bytes, and maxCPUs is 0";
  }
  return "";
}

/// The Infeasible outcome every baseline returns when some class fits no
/// device, or nullopt when each class fits somewhere on its own.
inline std::optional<SolveOutcome> unplaceableOutcome(const Workload& workload,
                                                      const ClassTotals& totals) {
  std::string why = whyUnplaceable(workload, totals);
  if (why.empty()) return std::nullopt;
  SolveOutcome outcome;
  outcome.status = SolveStatus::Infeasible;
  outcome.message = std::move(why);
  return outcome;
}

/// Per-device max-load terms of DESIGN §3 for a complete placement.
/// Accelerator d pays cost(u) for every node u with an edge (u, w) such that
/// exactly one of u, w is on d; a CPU core pays only cpuLatency.
inline std::vector<double> deviceLoads(const Workload& workload, const Placement& placement) {
  std::vector<double> load(placement.numDevices(), 0);
  std::vector<int> seenOn(placement.numDevices(), -1);  // last u that paid on d
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int d = placement.deviceOf[v];
    load[d] += placement.isAccelerator(d) ? workload.nodes[v].fpgaLatency
                                          : workload.nodes[v].cpuLatency;
  }
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    if (workload.outCost[u] == 0) continue;
    const int du = placement.deviceOf[u];
    for (NodeIndex w : workload.successors(u)) {
      const int dw = placement.deviceOf[w];
      if (dw == du) continue;
      // The edge crosses: both endpoint devices pay u once (accelerators only).
      for (int d : {du, dw}) {
        if (placement.isAccelerator(d) && seenOn[d] != u) {
          seenOn[d] = u;
          load[d] += workload.outCost[u];
        }
      }
    }
  }
  return load;
}

inline double maxOf(const std::vector<double>& values) {
  double best = 0;
  for (double x : values) best = std::max(best, x);
  return best;
}

/// Number of devices of a placement holding at least one node.
inline int devicesUsed(const Placement& placement) {
  std::vector<char> used(placement.numDevices(), 0);
  for (auto d : placement.deviceOf)
    if (d >= 0 && d < placement.numDevices()) used[d] = 1;
  int count = 0;
  for (char u : used) count += u;
  return count;
}

/// A deadline measured on the steady clock.
class Deadline {
 public:
  explicit Deadline(double seconds)
      : start_(std::chrono::steady_clock::now()), seconds_(seconds) {}
  double elapsed() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  bool expired() const { return seconds_ > 0 && elapsed() >= seconds_; }

 private:
  std::chrono::steady_clock::time_point start_;
  double seconds_;
};

/// A plan uses at most one device per color class, so a machine with more
/// devices of a kind than there are classes is solved as one with as many as
/// classes: work and memory per device then scale with the graph, not with
/// maxFPGAs (2^20 accelerators and 4 classes once cost local-search its whole
/// time limit, and milp 2^22 columns). The plan's CPU cores are numbered back
/// after the original accelerators.
template <class SolveOn>
SolveOutcome onAtMostOneDevicePerClass(const Workload& w, const SolveOn& solveOn) {
  const int enough = std::max(1, w.numClasses);  // an empty graph keeps a device of each kind it has
  const int accelerators = std::min(w.machine.maxFpgas, enough);
  const int cpus = std::min(w.machine.maxCpus, enough);
  if (accelerators == w.machine.maxFpgas && cpus == w.machine.maxCpus) return solveOn(w);
  Workload fewer = w;
  fewer.machine.maxFpgas = accelerators;
  fewer.machine.maxCpus = cpus;
  SolveOutcome outcome = solveOn(fewer);
  if (outcome.placement) {
    Placement& p = *outcome.placement;
    for (auto& device : p.deviceOf)
      if (device >= accelerators) device += w.machine.maxFpgas - accelerators;
    p.numAccelerators = w.machine.maxFpgas;
    p.numCpus = w.machine.maxCpus;
  }
  return outcome;
}

}  // namespace dnnplace::baseline
