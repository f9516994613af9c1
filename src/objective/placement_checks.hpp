#pragma once
/// The solver side's checks of a candidate placement (docs/model.md §3, §4): the
/// machine's device counts, classes kept whole, support and memory, and the
/// convexity the MILP's contiguity mode asks for. solve() re-checks every
/// returned plan with the independent evaluator.

#include <string>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::objective {

/// The placement has the machine's numbers of accelerators and CPU cores.
bool matchesMachine(const Workload& workload, const Placement& placement);

/// "" when the placement respects classes, support, memory and device
/// ranges; otherwise a short word on the first problem found.
std::string placementProblem(const Workload& workload, const Placement& placement);

/// Each device's forward nodes form a convex set of the forward graph (no
/// forward path leaves the device and re-enters it).
bool isConvexPlacement(const Workload& workload, const Placement& placement);

/// u → x joins two forward nodes.
inline bool isForwardEdge(const Workload& workload, NodeIndex u, NodeIndex x) {
  return !workload.graph().nodes[u].isBackward && !workload.graph().nodes[x].isBackward;
}

}  // namespace dnnplace::objective
