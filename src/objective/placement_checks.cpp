#include "objective/placement_checks.hpp"

#include <algorithm>
#include <vector>

#include "objective/class_totals.hpp"

namespace dnnplace::objective {

bool matchesMachine(const Workload& workload, const Placement& placement) {
  return placement.numAccelerators == workload.machine.maxFpgas &&
         placement.numCpus == workload.machine.maxCpus;
}

std::string placementProblem(const Workload& w, const Placement& p) {
  if (static_cast<int>(p.deviceOf.size()) != w.numNodes()) return "wrong size";
  std::vector<double> memory(p.numAccelerators, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const int d = p.deviceOf[v];
    if (d < 0 || d >= p.numDevices()) return "unplaced node";
    if (p.deviceOf[w.classMembers(w.graph().classOf[v]).front()] != d) return "split class";
    if (p.isAccelerator(d)) {
      if (!w.graph().nodes[v].supportedOnFpga) return "unsupported node on an accelerator";
      memory[d] += w.graph().nodes[v].size;
    }
  }
  for (double m : memory)
    if (!fitsMemory(m, w.machine)) return "memory exceeded";
  return "";
}

bool isConvexPlacement(const Workload& w, const Placement& p) {
  std::vector<char> reached(w.numNodes());
  for (int d = 0; d < p.numDevices(); ++d) {
    std::fill(reached.begin(), reached.end(), 0);
    for (NodeIndex v : w.graph().topologicalOrder) {
      if (w.graph().nodes[v].isBackward) continue;
      const bool inside = p.deviceOf[v] == d;
      bool fromOutsideReached = false;
      for (NodeIndex u : w.predecessors(v)) {
        if (w.graph().nodes[u].isBackward) continue;
        if (reached[u]) reached[v] = 1;
        if (reached[u] && p.deviceOf[u] != d) fromOutsideReached = true;
      }
      if (inside) {
        if (fromOutsideReached) return false;  // a path left d and re-enters here
        reached[v] = 1;
      }
    }
  }
  return true;
}

}  // namespace dnnplace::objective
