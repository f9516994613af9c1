#pragma once
/// A human-expert split read from SolveOptions::expertPlanPath.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveExpert(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
