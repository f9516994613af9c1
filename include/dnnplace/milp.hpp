#pragma once
/// Integer programs on COIN-OR CBC (DESIGN §3, §5).

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveMilp(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
