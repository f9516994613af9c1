// Method "single": every node on one accelerator.
#include "baselines/single.hpp"

#include "baselines/common.hpp"
#include "util/format.hpp"

namespace dnnplace {

SolveOutcome solveSingleAccelerator(const Workload& w, const SolveOptions& options) {
  if (w.machine.maxFpgas == 0)
    return baseline::infeasible("the machine has no accelerator (maxFPGAs is 0)");
  double memory = 0;
  std::vector<NodeIndex> unsupported;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    memory += w.graph().nodes[v].size;
    if (!w.graph().nodes[v].supportedOnFpga) unsupported.push_back(v);
  }
  if (!unsupported.empty())
    return baseline::infeasible(
        "node " + std::to_string(w.graph().nodes[unsupported[0]].id) +
        (unsupported.size() > 1 ? " (and " + std::to_string(unsupported.size() - 1) + " more)" : "") +
        " cannot run on an accelerator");
  if (!objective::fitsMemory(memory, w.machine))
    return baseline::infeasible("the whole graph needs " + formatShortest(memory) +
                                " bytes, one accelerator holds " +
                                formatShortest(w.machine.maxSizePerFpga));
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = baseline::allOn(w, 0);
  // One device: no edge crosses a boundary, and the latency model runs the
  // whole graph as one subgraph with no communication.
  outcome.objective = baseline::oneDeviceObjective(w, *outcome.placement, options);
  return outcome;
}

}  // namespace dnnplace
