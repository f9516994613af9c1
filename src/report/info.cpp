#include "dnnplace/info.hpp"

#include <chrono>
#include <cstdio>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dp/ideal_lattice.hpp"

namespace dnnplace {

WorkloadStatistics workloadStatistics(const Workload& w, std::uint64_t maxIdeals,
                                      double timeLimitSeconds, const std::atomic<bool>* interrupt) {
  WorkloadStatistics s;
  std::vector<char> classHasForward(w.graph().numClasses, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const Node& node = w.graph().nodes[v];
    (node.isBackward ? s.backwardNodes : s.forwardNodes)++;
    s.acceleratorWork += node.fpgaLatency;
    s.cpuWork += node.cpuLatency;
    s.memory += node.size;
    if (!node.isBackward) classHasForward[w.graph().classOf[v]] = 1;
  }
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (w.graph().nodes[v].isBackward && !classHasForward[w.graph().classOf[v]])
      ++s.orphanBackwardNodes;
  s.edges = w.graph().edges.size();
  s.colorClasses = w.graph().numClasses;
  s.maxLoadLowerBound = trivialThroughputLowerBound(w);
  if (w.machine.syncBandwidth > 0) s.replicatedLowerBound = replicatedThroughputLowerBound(w);

  CountLimits limits;
  limits.deadline = std::chrono::steady_clock::now() +
                    std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(timeLimitSeconds));
  limits.interrupt = interrupt;
  const IdealCount ideals = countIdeals(w, maxIdeals, limits);
  s.ideals = ideals.count;
  s.idealsExceeded = ideals.exceeded;
  s.idealsStopped = ideals.stopped;
  s.idealsTimeLimitSeconds = timeLimitSeconds;
  return s;
}

std::string statisticsToText(const Workload& w, const WorkloadStatistics& s) {
  std::string text;
  auto line = [&text](const char* pattern, auto... values) {
    char buffer[512];
    std::snprintf(buffer, sizeof buffer, pattern, values...);
    text += buffer;
  };
  const auto ideals = static_cast<unsigned long long>(s.ideals);
  text += "workload:                 " + w.name + "\n";
  line("machine:                  %d accelerators of %.6g bytes, %d CPU core%s\n", w.machine.maxFpgas,
       w.machine.maxSizePerFpga, w.machine.maxCpus, w.machine.maxCpus == 1 ? "" : "s");
  line("nodes:                    %d (%d forward, %d backward)\n", s.forwardNodes + s.backwardNodes,
       s.forwardNodes, s.backwardNodes);
  line("edges:                    %zu\n", s.edges);
  line("color classes:            %d\n", s.colorClasses);
  line("orphan backward nodes:    %d\n", s.orphanBackwardNodes);
  if (s.idealsExceeded)
    line("ideals (contracted):      more than %llu\n", ideals);
  else if (s.idealsStopped)
    line("ideals (contracted):      at least %llu (counting stopped at --time-limit %g s)\n", ideals,
         s.idealsTimeLimitSeconds);
  else
    line("ideals (contracted):      %llu\n", ideals);
  line("total accelerator work:   %.10g\n", s.acceleratorWork);
  line("total CPU work:           %.10g\n", s.cpuWork);
  line("total memory:             %.10g bytes\n", s.memory);
  line("max-load lower bound:     %.10g%s\n", s.maxLoadLowerBound,
       s.replicatedLowerBound > 0 ? " (without replicated stages)" : "");
  if (s.replicatedLowerBound > 0)
    line("  with replicated stages: %.10g (syncBandwidth: solve --replicate)\n",
         s.replicatedLowerBound);
  return text;
}

}  // namespace dnnplace
