#pragma once
/// What the DP methods tell the user: why no placement can exist and how far
/// a run got when a limit stopped it (numbers as util/format.hpp writes them).

#include <string>

#include "dnnplace/solver.hpp"
#include "dp/chain.hpp"
#include "preprocess/contraction.hpp"
#include "util/format.hpp"

namespace dnnplace::dp {

/// A reason no placement (or no contiguous one) can exist, found before the
/// DP: a class, or a group of classes contraction keeps together, that fits
/// on no device. Empty when nothing obvious is wrong.
std::string obviousInfeasibility(const Workload& workload, const ContractedGraph& graph);

/// Why no chain exists at all: the device counts and memory cannot cover the graph.
std::string noChainReason(const Workload& workload);

/// Which limit stopped a chain solve, and how far it got.
std::string limitMessage(const ChainResult& chain, const SolveOptions& options);

/// The outcome for a workload without nodes: optimal, nothing placed.
SolveOutcome emptyWorkloadOutcome(const Workload& workload);

/// How dp-linear and pipedream order the contracted graph.
inline constexpr const char* kOrderNote =
    "topological order of the contracted graph: Kahn's algorithm, ready super-node with the "
    "smallest original node index first";

}  // namespace dnnplace::dp
