#include "dp/messages.hpp"

#include <cstdio>
#include <vector>

namespace dnnplace::dp {

std::string obviousInfeasibility(const Workload& workload, const ContractedGraph& graph) {
  const Machine& machine = workload.machine;
  if (machine.maxFpgas == 0 && machine.maxCpus == 0)
    return "no devices: maxFPGAs and maxCPUs are both 0";
  if (machine.maxCpus > 0) return "";
  auto whyNotAccelerator = [&](double size, bool supported, const std::vector<NodeIndex>& nodes) {
    if (machine.maxFpgas == 0) return std::string("maxFPGAs is 0");
    if (!supported) {
      std::string ids;
      for (NodeIndex v : nodes)
        if (!workload.graph().nodes[v].supportedOnFpga) {
          if (!ids.empty()) ids += ", ";
          ids += std::to_string(workload.graph().nodes[v].id);
        }
      return nodes.size() == 1 ? std::string("is not supported on accelerators")
                               : "has nodes not supported on accelerators (" + ids + ")";
    }
    if (size > machine.maxSizePerFpga)
      return "needs " + formatBytes(size) + ", accelerators hold " +
             formatBytes(machine.maxSizePerFpga);
    return std::string();
  };
  for (int cls = 0; cls < workload.graph().numClasses; ++cls) {
    const auto members = workload.classMembers(cls);
    std::vector<NodeIndex> nodes(members.begin(), members.end());
    double size = 0;
    bool supported = true;
    for (NodeIndex v : nodes) {
      size += workload.graph().nodes[v].size;
      supported = supported && workload.graph().nodes[v].supportedOnFpga;
    }
    const std::string why = whyNotAccelerator(size, supported, nodes);
    if (!why.empty()) return describeClass(workload, cls) + " " + why + ", and maxCPUs is 0";
  }
  for (int s = 0; s < graph.numSuperNodes; ++s) {
    std::vector<NodeIndex> nodes(graph.members.begin() + graph.memberStart[s],
                                 graph.members.begin() + graph.memberStart[s + 1]);
    const std::string why = whyNotAccelerator(graph.size[s], graph.supportedOnFpga[s], nodes);
    if (!why.empty())
      return "no contiguous placement: " + describeSuperNode(workload, graph, s) +
             " must share a device (contraction fused them) and " + why + ", and maxCPUs is 0";
  }
  return "";
}

std::string noChainReason(const Workload& workload) {
  const Machine& m = workload.machine;
  double total = 0;
  for (const Node& node : workload.graph().nodes) total += node.size;
  return "no contiguous placement: " + std::to_string(m.maxFpgas) + " accelerator(s) of " +
         formatBytes(m.maxSizePerFpga) + " and " + std::to_string(m.maxCpus) +
         " CPU core(s) cannot cover the graph in contiguous blocks (" + formatBytes(total) +
         " in total); a non-contiguous placement may exist: try --method milp or local-search";
}

std::string limitMessage(const ChainResult& chain, const SolveOptions& options) {
  const std::string reached = std::to_string(chain.ideals) + " ideals enumerated, about " +
                              formatBytes(static_cast<double>(chain.bytes)) + " in use";
  switch (chain.kind) {
    case ChainResult::Kind::IdealLimit:
      return "stopped at the ideal limit (--max-ideals " + std::to_string(options.maxIdeals) +
             "): " + reached;
    case ChainResult::Kind::MemoryLimit:
      if (chain.deviceStates > 0)
        return (options.memoryLimitBytes ? "stopped at the memory limit (--memory-limit " +
                                               std::to_string(options.memoryLimitBytes) + " bytes)"
                                         : std::string("more device states than the DP indexes")) +
               ": no ideals enumerated, the tables of " + std::to_string(chain.deviceStates) +
               " device states per ideal need at least " +
               formatBytes(static_cast<double>(chain.tableBytes));
      return "stopped at the memory limit (--memory-limit " + std::to_string(options.memoryLimitBytes) +
             " bytes): " + reached;
    case ChainResult::Kind::TimeLimit: return "stopped at the time limit: " + reached;
    case ChainResult::Kind::Interrupted: return "interrupted: " + reached;
    default: return reached;
  }
}

SolveOutcome emptyWorkloadOutcome(const Workload& workload) {
  SolveOutcome outcome;
  outcome.status = SolveStatus::Optimal;
  Placement placement;
  placement.numAccelerators = workload.machine.maxFpgas;
  placement.numCpus = workload.machine.maxCpus;
  outcome.placement = placement;
  outcome.message = "empty workload";
  return outcome;
}

}  // namespace dnnplace::dp
