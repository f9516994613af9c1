#pragma once
/// Everything on one accelerator.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveSingleAccelerator(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
