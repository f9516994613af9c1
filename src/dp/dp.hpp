#pragma once
/// Exact dynamic program over the lattice of ideals for contiguous placements (docs/model.md §4), its
/// single-topological-order variant, and the PipeDream emulation.
///
/// All three work on the contracted graph of contraction.hpp (docs/model.md §4 steps
/// 1–4) and report plans on the original nodes; none supports --diffmaxima.

#include "dnnplace/solver.hpp"

namespace dnnplace {

/// Method "dp": the optimal contiguous max-load (status Optimal, lowerBound =
/// objective). Its sums are exact on binary grids a little below the true
/// values (dp/exact_sums.hpp): when the true max-load of its best plan is
/// more than 1e-9 above the DP's own optimum (only with magnitudes far
/// apart), Feasible with that optimum as the lower bound. Infeasible names the class (or group of classes contraction
/// keeps together) that fits no device, or says that device counts and memory
/// cannot cover the graph contiguously. options.maxIdeals / memoryLimitBytes
/// → NoSolution saying how far it got; time limit / interrupt → the plan
/// optimal along one topological order (Feasible) if there is one, else
/// NoSolution. With Objective::Latency: the same plan, objective = its latency
/// (docs/model.md §5, options.q), status Feasible.
SolveOutcome solveDp(const Workload& workload, const SolveOptions& options);

/// Method "dp-linear": the same DP over the prefixes of one deterministic
/// topological order of the contracted graph (Kahn's algorithm, the ready
/// super-node with the smallest original node index first); polynomial.
/// Feasible (optimal for that order only), lowerBound 0. When a limit stops
/// the DP: the best chain along the order found without a lattice (or a
/// greedy packing of it), Feasible, with the stop reason; else NoPlan.
SolveOutcome solveDpLinear(const Workload& workload, const SolveOptions& options);

/// Method "pipedream": steps 1–3, then for every biconnected
/// component of the undirected forward super-node graph the sources of its
/// edges join one class (cycles this creates are fused), step 4, then
/// dp-linear's order and DP. Feasible, contiguous, never below "dp".
SolveOutcome solvePipedream(const Workload& workload, const SolveOptions& options);

namespace detail {
/// The first seed of "dp", as "dp" computes it: the best max-load over
/// chains of intervals of dp-linear's order, each interval on an accelerator
/// or a CPU core, computed without a lattice (a greedy packing, then a
/// forward pass over interval starts cut by it); infinite when there is
/// none. Exposed so tests can hold it to dp-linear.
double linearOrderBound(const Workload& workload);
}  // namespace detail

}  // namespace dnnplace
