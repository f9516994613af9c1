// The summary line `import pipedream` and `import piper` print on stderr.

#include <string>

#include "dnnplace/import.hpp"
#include "util/format.hpp"

namespace dnnplace {

std::string importedWorkloadSummary(const std::string& importer, const Workload& workload) {
  const Graph& g = workload.graph();
  int backward = 0;
  double parameters = 0;
  for (const Node& n : g.nodes) {
    backward += n.isBackward ? 1 : 0;
    parameters += n.parameterSize;
  }
  const Machine& m = workload.machine;
  std::string line = "import " + importer + ": " + std::to_string(workload.numNodes()) + " nodes (" +
                     std::to_string(workload.numNodes() - backward) + " forward, " +
                     std::to_string(backward) + " backward), " + std::to_string(g.edges.size()) +
                     " edges" + (parameters > 0 ? ", parameters " + formatBytes(parameters) : "") +
                     "; " + std::to_string(m.maxFpgas) + " accelerators of " +
                     formatBytes(m.maxSizePerFpga) + ", " + std::to_string(m.maxCpus) + " CPU cores";
  if (m.syncBandwidth > 0) line += ", all-reduce at " + formatBytes(m.syncBandwidth * 1000) + "/s";
  return line + "\n";
}

}  // namespace dnnplace
