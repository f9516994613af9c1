#pragma once
/// What dp-linear and pipedream share: the DP along one topological order.

#include <string>

#include "dnnplace/solver.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// Contracts with `contraction` plus a linearizing edge between consecutive
/// super-nodes (so the only ideals are the prefixes of the order), then the
/// DP with no seed; Feasible, lowerBound 0. `method` names the method in
/// messages; `describe` writes the note of a plan found on the graph.
/// Phases: contract, enumerate, dp, backtrack.
SolveOutcome solveAlongOneOrder(const Workload& workload, const SolveOptions& options,
                                const char* method, ContractionOptions contraction,
                                std::string (*describe)(const ContractedGraph&));

}  // namespace dnnplace::dp
