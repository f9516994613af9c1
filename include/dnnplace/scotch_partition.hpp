#pragma once
/// Scotch graph-partitioning baseline.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveScotch(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
