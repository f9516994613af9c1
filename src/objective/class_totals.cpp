#include "objective/class_totals.hpp"

#include <algorithm>
#include <limits>

#include "util/format.hpp"

namespace dnnplace::objective {

ClassTotals::ClassTotals(const Workload& workload)
    : acceleratorLatency(workload.graph().numClasses, 0),
      cpuLatency(workload.graph().numClasses, 0),
      size(workload.graph().numClasses, 0),
      acceleratorForward(workload.graph().numClasses, 0),
      acceleratorBackward(workload.graph().numClasses, 0),
      cpuForward(workload.graph().numClasses, 0),
      cpuBackward(workload.graph().numClasses, 0),
      supported(workload.graph().numClasses, 1) {
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) {
    const int c = workload.graph().classOf[v];
    const Node& node = workload.graph().nodes[v];
    acceleratorLatency[c] += node.fpgaLatency;
    cpuLatency[c] += node.cpuLatency;
    size[c] += node.size;
    (node.isBackward ? acceleratorBackward : acceleratorForward)[c] += node.fpgaLatency;
    (node.isBackward ? cpuBackward : cpuForward)[c] += node.cpuLatency;
    if (!node.supportedOnFpga) supported[c] = 0;
  }
}

bool ClassTotals::fitsAccelerator(int c, const Machine& machine) const {
  return supported[c] && machine.maxFpgas > 0 && fitsMemory(size[c], machine);
}

std::vector<char> ClassTotals::acceleratorAllowed(const Machine& machine) const {
  std::vector<char> allowed(size.size());
  for (std::size_t c = 0; c < size.size(); ++c)
    allowed[c] = fitsAccelerator(static_cast<int>(c), machine);
  return allowed;
}

std::string describeClass(const Workload& workload, int c) {
  const Node& node = workload.graph().nodes[workload.classMembers(c).front()];
  if (node.colorClass) return "color class " + std::to_string(*node.colorClass);
  return "node " + std::to_string(node.id);
}

std::optional<Unplaceable> findUnplaceable(const Workload& workload, const ClassTotals& totals,
                                           bool cpuAllowed) {
  const Machine& machine = workload.machine;
  if (cpuAllowed) return std::nullopt;
  for (int c = 0; c < workload.graph().numClasses; ++c) {
    if (totals.fitsAccelerator(c, machine)) continue;
    if (!totals.supported[c]) return Unplaceable{Unplaceable::Reason::Unsupported, c};
    if (machine.maxFpgas == 0) return Unplaceable{Unplaceable::Reason::NoDevices, -1};
    return Unplaceable{Unplaceable::Reason::TooLarge, c};
  }
  return std::nullopt;
}

std::string whyUnplaceable(const Workload& workload, const ClassTotals& totals) {
  const Machine& machine = workload.machine;
  if (machine.maxFpgas + machine.maxCpus == 0) return "the machine has no devices";
  const auto unplaceable = findUnplaceable(workload, totals, machine.maxCpus > 0);
  if (!unplaceable) return "";
  const int c = unplaceable->cls;
  if (unplaceable->reason == Unplaceable::Reason::Unsupported)
    return describeClass(workload, c) + " has an operator unsupported on accelerators and maxCPUs is 0";
  return describeClass(workload, c) + " needs " + formatShortest(totals.size[c]) +
         " bytes, accelerators hold " + formatShortest(machine.maxSizePerFpga) +
         " bytes, and maxCPUs is 0";
}

double throughputLowerBound(const Workload& workload, const ClassTotals& totals) {
  const Machine& m = workload.machine;
  constexpr double inf = std::numeric_limits<double>::infinity();
  double bound = 0, total = 0;
  for (int c = 0; c < workload.graph().numClasses; ++c) {
    const double best = std::min(totals.fitsAccelerator(c, m) ? totals.acceleratorLatency[c] : inf,
                                 m.maxCpus > 0 ? totals.cpuLatency[c] : inf);
    if (best == inf) continue;  // infeasible workload; no bound from this class
    bound = std::max(bound, best);
    total += best;
  }
  const int devices = m.maxFpgas + m.maxCpus;
  if (devices > 0) bound = std::max(bound, total / devices);
  return bound;
}

}  // namespace dnnplace::objective
