// Method "pipedream": PipeDream's partitioning emulated with the DP along
// one topological order, after merging the sources of each biconnected
// component's edges (contraction.hpp).

#include <string>

#include "dp/dp.hpp"
#include "dp/dp_linear.hpp"
#include "dp/messages.hpp"
#include "dp/replicated.hpp"

namespace dnnplace {

SolveOutcome solvePipedream(const Workload& workload, const SolveOptions& options) {
  ContractionOptions contraction;
  contraction.mergeBiconnected = true;
  if (options.replicate)
    return dp::solveReplicated(workload, options, "pipedream", contraction, false, solvePipedream);
  return dp::solveAlongOneOrder(
      workload, options, "pipedream", contraction, [](const ContractedGraph& graph) {
        return "PipeDream emulation: sources of each biconnected component's edges merged (" +
               std::to_string(graph.classesMergedBiconnected) + " classes absorbed), " +
               std::to_string(graph.numSuperNodes) + " super-nodes, optimal for the " + dp::kOrderNote;
      });
}

}  // namespace dnnplace
