#pragma once
/// Everything on one CPU core.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveSingleCpu(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
