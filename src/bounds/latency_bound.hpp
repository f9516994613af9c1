#pragma once
/// Lower bounds on the single-sample latency (docs/model.md §5) of every placement.
///
/// 1. Compute path: the longest path with each node weighted by its cheapest
///    admissible latency.
/// 2. Split path: along that path, a node runs on a CPU core or in an
///    accelerator piece; consecutive path nodes in one piece form a run. Each
///    run is a piece of its own (leaving a piece and coming back is a
///    re-entry, hence another piece), so there are at most maxFPGAs·q runs, and
///    the classes a run touches share one accelerator, so they fit its memory.
///    Where the path leaves an accelerator piece, that piece sends the last
///    node's output (cost paid inside the piece); where it enters one, the
///    piece receives it; a CPU node waits for its predecessor. So the latency
///    is at least Σ (run or CPU node time) + Σ over boundaries of the costs
///    paid there; the minimum over all such splits of the path is found by a
///    dynamic program along the path. This is what proves, e.g., that a chain
///    that memory forces onto three accelerators pays two boundaries.
///
/// The split path takes O(path length) memory. Without the limit on runs it
/// takes linear time (the runs ending at a node form a window that only
/// moves forward); when its best split keeps to maxFPGAs·q runs, that is
/// the bound. Otherwise the runs are counted: exactly, one pass per number
/// of runs, when path length × (runs + 1) is at most 2^24; past that, by a
/// Lagrangian relaxation (each run costs a penalty, searched by bisection),
/// which may give less than the exact split path (splitPathRelaxed).

#include <chrono>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct LatencyLowerBound {
  double computePath = 0;  ///< bound 1
  double splitPath = 0;    ///< bound 2 (≥ computePath)
  int pathNodes = 0;       ///< length of the path the bounds follow
  /// The split path's limit on runs was relaxed (a weaker bound than the
  /// exact one) or its deadline cut it short.
  bool splitPathRelaxed = false;
  double intervalPath = 0;  ///< bound 3 (latency_paths.hpp), 0 when not computed
  int intervalPaths = 0;    ///< paths bound 3 tried
  /// Bound 3's best split read as plans (LatencyPathBound::plan and
  /// closurePlan, when not empty): per node an accelerator, or -1 for a CPU
  /// core. Seeds, not necessarily feasible.
  std::vector<std::vector<int>> suggestedPlans;
  /// Per node: the compute path ending there, a bound on its finish time.
  std::vector<double> earliestFinish;
  double value() const {
    const double two = splitPath > computePath ? splitPath : computePath;
    return intervalPath > two ? intervalPath : two;
  }
};

/// acceleratorAllowed: per class, whether it may run on an accelerator
/// (supported and fits one); cpuAllowed: whether CPU cores exist. Classes
/// allowed nowhere count as free (the caller reports them as infeasible).
/// q: subgraphs per accelerator. Past `deadline` the split path is given up
/// (splitPath = computePath when it was not started, else the best bound
/// proven by then); the interval path (bound 3) stops at a quarter of the
/// time left to `deadline` with the best bound proven by then.
LatencyLowerBound latencyLowerBound(
    const Workload& workload, const std::vector<char>& acceleratorAllowed, bool cpuAllowed, int q,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace dnnplace
