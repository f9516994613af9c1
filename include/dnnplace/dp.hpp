#pragma once
/// Exact dynamic program over the lattice of ideals for contiguous placements (DESIGN §4), its single-topological-order variant, and the PipeDream emulation.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveDp(const Workload& workload, const SolveOptions& options);
SolveOutcome solveDpLinear(const Workload& workload, const SolveOptions& options);
SolveOutcome solvePipedream(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
