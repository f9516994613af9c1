#pragma once
/// Best-improvement local search over color-class moves.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveLocalSearch(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
