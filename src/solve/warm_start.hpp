#pragma once
/// The method "milp": a portfolio of cheaper methods, whose plans warm-start
/// the integer program (milp/milp.hpp). The methods are called directly, one
/// after another, each with a share of the time limit; none goes through
/// solve(), so no method calls back into the registry.

#include <vector>

#include "dnnplace/solver.hpp"
#include "milp/milp.hpp"

namespace dnnplace {

/// The plans of the cheaper methods that succeed, in the order they ran
/// (throughput: scotch, single, cpu, local-search, dp; latency: greedy,
/// single, cpu, dp). A method that fails, runs out of memory or throws is
/// skipped; an interrupt stops the portfolio.
std::vector<WarmStart> warmStartPortfolio(const Workload& workload, const SolveOptions& options);

/// The registered method "milp": on a machine reduced to at most one device
/// of a kind per class, the portfolio, then the MILP from its plans. Its
/// phases: "warm start", then the MILP's.
SolveOutcome solveMilpWarmStarted(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
