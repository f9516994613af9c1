#pragma once
/// Latency greedy of the reference (Appendix F).

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveLatencyGreedy(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
