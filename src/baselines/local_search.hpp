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
/// Each descent is followed by an iterated local search: kick 1–3 classes
/// (the first, half of the time, from a most loaded device) to random
/// feasible devices, descend again, keep the result when its max-load is not
/// higher (so plateaus are walked), otherwise undo the kick through the move
/// log. It stops after max(50, 2 × classes) kicks in a row without a strict
/// max-load improvement. This escapes optima that no single move improves
/// (e.g. where only exchanging two classes helps) and, per second, beats
/// plain random restarts by a wide margin on the paper's layer graphs.
///
/// Options: `restarts` (default 10; each is a random start, a descent and its
/// iterated local search), `timeLimitSeconds` (the best plan found
/// so far is returned when it expires), `seed` (deterministic for a given
/// seed as long as the time limit does not cut the run short), `interrupt`.
/// Memory and unsupported operators are respected (unlike the reference).

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveLocalSearch(const Workload& workload, const SolveOptions& options);

/// One descent plus its iterated local search (kicks drawn from `seed`) from
/// a given feasible placement, no restarts, within `timeLimitSeconds`. The
/// result's objective is never above the start's max-load. Returns InvalidInput when
/// `start` is not a feasible placement for this workload. The deadline and
/// interrupt are checked while the counts are built too; under
/// `memoryLimitBytes` the counts cover only the accelerators the start uses
/// plus empty ones up to what fits (NoPlan with StopReason::MemoryLimit when
/// the start alone uses more).
SolveOutcome localSearchFrom(const Workload& workload, const Placement& start,
                             const SolveOptions& options);

}  // namespace dnnplace
