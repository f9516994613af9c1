#pragma once
/// Statistics of a workload (`dnnplace info`): sizes, work, memory, and how
/// many ideals the DP would enumerate.

#include <atomic>
#include <cstdint>
#include <string>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct WorkloadStatistics {
  int forwardNodes = 0, backwardNodes = 0;
  std::size_t edges = 0;
  int colorClasses = 0;
  int orphanBackwardNodes = 0;              ///< backward nodes whose class has no forward node
  double acceleratorWork = 0, cpuWork = 0;  ///< sums of the nodes' latencies
  double memory = 0;                        ///< bytes, summed over the nodes
  double maxLoadLowerBound = 0;             ///< trivialThroughputLowerBound
  /// replicatedThroughputLowerBound when the workload allows replicated
  /// stages (syncBandwidth), else 0.
  double replicatedLowerBound = 0;
  /// Ideals of the contracted forward graph: exact unless idealsExceeded
  /// (more than the cap) or idealsStopped (at least this many: the time
  /// limit or an interrupt stopped the count).
  std::uint64_t ideals = 0;
  bool idealsExceeded = false, idealsStopped = false;
  double idealsTimeLimitSeconds = 0;  ///< the limit the count ran under
};

/// maxIdeals == 0: no cap on the count; it stops after timeLimitSeconds
/// (or once *interrupt is set).
WorkloadStatistics workloadStatistics(const Workload& workload, std::uint64_t maxIdeals,
                                      double timeLimitSeconds,
                                      const std::atomic<bool>* interrupt = nullptr);

/// The statistics as aligned "name: value" lines.
std::string statisticsToText(const Workload& workload, const WorkloadStatistics& statistics);

}  // namespace dnnplace
