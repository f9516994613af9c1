#pragma once
/// The interval path bound on the single-sample latency (docs/model.md §5,
/// "Lower bounds"), the strongest of latency_bound.hpp's bounds.
///
/// Along any path p_0 … p_{L-1}, a placement splits the path into CPU nodes
/// and runs (maximal stretches of consecutive path nodes in one accelerator
/// piece S), one after another. For a run p_j … p_i in piece S:
/// - S holds every node on a path between two of its nodes (a path that left
///   S and came back would re-enter it, hence be another piece), and with
///   q = 1 every class member of its nodes (a class shares an accelerator,
///   and an accelerator is one piece): the closure C ⊆ S of p_j … p_i;
/// - S holds nothing that reaches p_{j-1} nor anything p_{i+1} reaches
///   (again a re-entry), nor a node that may not run on an accelerator;
/// - the classes of C fit one accelerator's memory;
/// - time(S) ≥ Σ_{C} fpgaLatency + Σ cost(u) over predecessors u ∉ C of C
///   that S cannot hold (it pays their input) + Σ min(fpgaLatency(u),
///   cost(u)) over the other predecessors (held: computed, else received)
///   + Σ cost(c) over c ∈ C with a successor S cannot hold (it sends it).
/// A CPU node costs its cpuLatency. The latency is at least the sum over the
/// split, and at most k·q runs exist; a dynamic program over the path takes
/// the least sum over all splits. Every path gives a bound; many are tried.

#include <chrono>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct LatencyPathBound {
  double value = 0;              ///< the best bound over the paths tried (0: none was)
  double beforeCuts = 0;         ///< the same before minimum cuts priced the best paths' runs
  int pathsTried = 0;            ///< paths whose dynamic program finished
  int pathsRefined = 0;          ///< of those, paths whose runs minimum cuts priced
  int bestPathNodes = 0;         ///< length of the path that gave `value`
  bool skipped = false;          ///< the graph is too large for its reachability tables
  bool runLimitDropped = false;  ///< k·q runs was too many to count (a weaker bound)
  /// Plans suggested by the best refined path's split: per node an
  /// accelerator index, or -1 for a CPU core; empty when none. Seeds for
  /// the solvers, to be re-checked: `closurePlan` puts each run's closure
  /// on its own accelerator (feasible at q = 1 when CPU cores exist),
  /// `plan` adds what the runs' cuts keep inside, where it fits.
  std::vector<int> plan, closurePlan;
};

/// acceleratorAllowed, cpuAllowed and q as latencyLowerBound takes them;
/// `earliestFinish` (the compute path's per-node finish, its `from` path
/// choices) seeds the paths. Stops at `deadline` with the best bound so far.
LatencyPathBound latencyPathBound(const Workload& workload, const std::vector<char>& acceleratorAllowed,
                                  bool cpuAllowed, int q,
                                  std::chrono::steady_clock::time_point deadline);

}  // namespace dnnplace
