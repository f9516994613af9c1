#pragma once
/// Latency greedy of the reference (Appendix F), single-sample latency.
///
/// 1. Blocks: color classes that are mutually reachable in the graph of
///    classes (classes whose contraction would create a cycle) are fused into
///    one inseparable block (strongly connected components of the class graph).
/// 2. Order: the blocks in topological order; among blocks ready at the same
///    time, the one whose first node comes first in the input goes first
///    (Kahn's algorithm with a min-heap; deterministic, no seed).
/// 3. Fill: walk the order with one open accelerator; a block joins it while
///    its memory allows, else the next accelerator is opened. A block that
///    fits no accelerator (larger than its memory, or holding an operator not
///    supported on accelerators), and every block once the accelerators are
///    used up, goes to CPU core 0 and closes the open accelerator. So each
///    accelerator holds a run of consecutive blocks of a topological order:
///    a convex set, one contiguous subgraph, and the pieces of the plan form
///    no cycle.
/// The objective is the plan's latency (docs/model.md §5), computed by the method
/// and re-checked by the evaluator. The lower bound is latency_bound.hpp's.

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveLatencyGreedy(const Workload& workload, const SolveOptions& options);

/// Steps 1–3 alone: greedy's plan without its lower bound (for a caller
/// that proves its own, as the bound method does).
SolveOutcome latencyGreedyPlan(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
