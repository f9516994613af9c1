#pragma once
/// Best-improvement local search over color-class moves (throughput, max-load).
///
/// Each restart draws a random memory-feasible start (classes in decreasing
/// size order, each to a uniformly random device with room: accelerators it
/// is supported on, and CPU cores), then repeatedly applies the best move of
/// one color class to another device until no move improves the
/// lexicographic objective (max-load, sum of squared device loads). The
/// second key makes progress possible on the max-load plateau: a move that
/// unloads one of several equally loaded devices improves it. Loads are
/// updated incrementally: for every node u and accelerator d we keep how many
/// of u and its successors are on d, so u's communication cost is paid on d
/// exactly when that count is strictly between 0 and 1 + outdegree(u); a
/// move costs time proportional to the moved class's degree, per accelerator.
///
/// Options: `restarts` (default 10), `timeLimitSeconds` (the best plan found
/// so far is returned when it expires), `seed` (deterministic for a given
/// seed as long as the time limit does not cut the run short), `interrupt`.
/// Memory and unsupported operators are respected (unlike the reference).

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveLocalSearch(const Workload& workload, const SolveOptions& options);

/// One descent from a given feasible placement (no restarts). The result's
/// objective is never above the start's max-load. Returns InvalidInput when
/// `start` is not a feasible placement for this workload.
SolveOutcome localSearchFrom(const Workload& workload, const Placement& start,
                             const SolveOptions& options);

}  // namespace dnnplace
