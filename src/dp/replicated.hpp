#pragma once
/// Contiguous placements whose accelerator blocks may be replicated
/// (docs/model.md §9): `dp --replicate` over the whole lattice of ideals,
/// `dp-linear --replicate` and `pipedream --replicate` over the prefixes of
/// their one order (PipeDream's own planner is this DP on its chain).
///
/// value(I, a, c) = min over sub-ideals J of I, D = I ∖ J, of
///   max(value(J, a − r, c), load(D, r))  for r = 1..a (D on r accelerators), and
///   max(value(J, a, c − 1), cpu(D))      (D on a CPU core),
/// with value(∅, ·) = 0 and values closed under "leave a device unused".

#include "dnnplace/solver.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// `pure`: the same method without replication; its plan (replication can
/// only help) bounds the search. `exact`: the contraction's lattice holds
/// every contiguous placement (dp), so the result is Optimal; otherwise
/// (one order) Feasible.
SolveOutcome solveReplicated(const Workload& workload, const SolveOptions& options, const char* method,
                             ContractionOptions contraction, bool exact, SolverFunction pure);

}  // namespace dnnplace::dp
