// Method "cpu": every node on one CPU core.
#include "baselines/cpu.hpp"

#include "baselines/common.hpp"
#include "util/format.hpp"

namespace dnnplace {

SolveOutcome solveSingleCpu(const Workload& w, const SolveOptions& options) {
  if (options.objective == Objective::Throughput && w.machine.maxCpus == 0)
    return baseline::infeasible("the machine has no CPU core (maxCPUs is 0)");
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = baseline::allOn(w, w.machine.maxFpgas);
  // Latency: CPU nodes run on as many cores as they need, so the critical path.
  outcome.objective = baseline::oneDeviceObjective(w, *outcome.placement, options);
  return outcome;
}

}  // namespace dnnplace
