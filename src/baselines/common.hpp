#pragma once
// Helpers shared by the baseline methods (scotch, local-search, greedy) and
// milp: the refusal when some class fits no device, and the reduction of a
// machine to at most one device per class. Private to src/.

#include <algorithm>
#include <limits>
#include <optional>
#include <string>

#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "objective/class_totals.hpp"
#include "objective/latency.hpp"
#include "objective/loads.hpp"

namespace dnnplace::baseline {

/// An outcome without a plan: the status and why.
inline SolveOutcome refusal(SolveStatus status, std::string message) {
  SolveOutcome outcome;
  outcome.status = status;
  outcome.message = std::move(message);
  return outcome;
}

/// Every node on `device` (a CPU core's device number adds a core if the machine has none).
inline Placement allOn(const Workload& w, int device) {
  Placement p;
  p.numAccelerators = w.machine.maxFpgas;
  p.numCpus = std::max(w.machine.maxCpus, device >= w.machine.maxFpgas ? 1 : 0);
  p.deviceOf.assign(w.numNodes(), device);
  return p;
}

/// The objective of a one-device plan (docs/model.md §3, §5): one device, or
/// every CPU node on its own core, so one piece at most.
inline double oneDeviceObjective(const Workload& w, const Placement& p, const SolveOptions& options) {
  if (options.objective == Objective::Throughput)
    return objective::throughputObjective(w, p, options.diffMaxima);
  return objective::latencyOf(w, p, 1).value();
}

/// About the bytes a loaded workload holds (nodes, edges, CSR lists, classes).
inline double workloadBytes(const Workload& w) {
  return static_cast<double>(w.numNodes()) * (sizeof(Node) + 64) +
         static_cast<double>(w.graph().edges.size()) * (sizeof(Edge) + 2 * sizeof(NodeIndex) + 16);
}

/// The bytes a method may still allocate under options.memoryLimitBytes
/// (infinity without a limit): the limit less the workload itself.
inline double memoryLeft(const Workload& w, const SolveOptions& options) {
  if (options.memoryLimitBytes == 0) return std::numeric_limits<double>::infinity();
  return std::max(0.0, static_cast<double>(options.memoryLimitBytes) - workloadBytes(w));
}

/// The Infeasible outcome, saying why.
inline SolveOutcome infeasible(std::string why) {
  return refusal(SolveStatus::Infeasible, std::move(why));
}

/// The Infeasible outcome every baseline returns when some class fits no
/// device, or nullopt when each class fits somewhere on its own.
inline std::optional<SolveOutcome> unplaceableOutcome(const Workload& workload,
                                                      const objective::ClassTotals& totals) {
  std::string why = objective::whyUnplaceable(workload, totals);
  if (why.empty()) return std::nullopt;
  return refusal(SolveStatus::Infeasible, std::move(why));
}

/// A plan uses at most one device per color class, so a machine with more
/// devices of a kind than there are classes is solved as one with as many as
/// classes: work and memory per device then scale with the graph, not with
/// maxFPGAs (2^20 accelerators and 4 classes once cost local-search its whole
/// time limit, and milp 2^22 columns). The plan's CPU cores are numbered back
/// after the original accelerators.
template <class SolveOn>
SolveOutcome onAtMostOneDevicePerClass(const Workload& w, const SolveOn& solveOn) {
  const int enough =
      std::max(1, w.graph().numClasses);  // an empty graph keeps a device of each kind it has
  const int accelerators = std::min(w.machine.maxFpgas, enough);
  const int cpus = std::min(w.machine.maxCpus, enough);
  if (accelerators == w.machine.maxFpgas && cpus == w.machine.maxCpus) return solveOn(w);
  Machine machine = w.machine;
  machine.maxFpgas = accelerators;
  machine.maxCpus = cpus;
  SolveOutcome outcome = solveOn(w.onMachine(machine));  // the graph is shared, not copied
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
