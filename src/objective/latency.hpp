#pragma once
/// The latency schedule of docs/model.md §5, the solver side's one copy (the
/// evaluator keeps an independent one).
///
/// Each accelerator runs its nodes as pieces: a node's piece is 1 + the
/// largest number of re-entries into the accelerator along a path ending at
/// it. Pieces of one accelerator run one after another in index order; a
/// piece pays the cost of every node it sends out of it once, and of every
/// outside node feeding it once; it starts when its feeders have finished.
/// CPU nodes each run on their own core as soon as their predecessors end.

#include <optional>
#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace::objective {

/// Per node: its piece index on its accelerator, 0 for CPU nodes.
std::vector<int> pieceIndices(const Workload& workload, const Placement& placement);

/// The latency of a placement, or nullopt when some accelerator needs more
/// than q pieces or pieces wait on each other in a cycle.
std::optional<double> latencyOf(const Workload& workload, const Placement& placement, int q);

}  // namespace dnnplace::objective
