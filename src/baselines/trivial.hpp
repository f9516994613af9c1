#pragma once
/// Trivial plans (one accelerator, one CPU core) and human-expert splits.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveSingleAccelerator(const Workload& workload, const SolveOptions& options);
SolveOutcome solveSingleCpu(const Workload& workload, const SolveOptions& options);
SolveOutcome solveExpert(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
