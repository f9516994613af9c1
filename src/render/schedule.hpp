#pragma once
// The single-sample schedule of a latency plan (docs/model.md §5), for the
// timeline: when each accelerator subgraph and each CPU node runs, and the
// critical path. The render component computes it from the plan; tests check
// that its makespan is the evaluator's latency.

#include <optional>
#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::render {

struct ScheduledTask {
  int device = -1;      ///< the placement's device number
  int piece = 0;        ///< accelerators: 1-based subgraph index; CPU nodes: 0
  NodeIndex node = -1;  ///< CPU nodes: the node
  int numNodes = 0;
  double start = 0, finish = 0;
  double compute = 0, communication = 0;  ///< duration = compute + communication
  bool critical = false;
};

struct LatencySchedule {
  std::vector<ScheduledTask> tasks;
  double makespan = 0;
};

/// The schedule, or nullopt when subgraphs wait on each other in a cycle
/// (or a node is unplaced): no schedule exists.
std::optional<LatencySchedule> latencySchedule(const Workload& workload, const Placement& placement);

}  // namespace dnnplace::render
