#pragma once
/// The method "bound": proves a lower bound on the optimal max-load of every
/// placement (bounds/throughput_bound.hpp; docs/bounds.md), contiguous or not.
/// Its plan is the one whose max-load the bound is searched below — the DP's
/// contiguous optimum when the DP finishes in its share of the time, else
/// local search's — so its status is Optimal when the bound meets that plan
/// (within 0.01%, the width its bisection stops at), Feasible otherwise; for the best plan, run milp.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveBound(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
