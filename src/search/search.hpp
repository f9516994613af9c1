#pragma once
/// Method "search": the DP along one topological order (dp-linear's chain
/// DP) evaluated over many orders found by a biased random-key genetic
/// algorithm, then the local search on the best plan (docs/model.md,
/// "search").
///
/// A chromosome is one key per super-node of the contracted graph; its
/// order takes the ready super-node with the smallest key (random_keys.hpp);
/// its fitness is the best max-load of a chain of intervals of that order
/// (order_chain.hpp). The first population holds the orders the project
/// already produces (smallest-first, depth-first, breadth-first, and the
/// block order of pipedream's plan) and perturbations of them; each
/// generation keeps the elite, adds mutants (a window of an elite's order
/// shuffled, near its bottleneck block half of the time, or fresh random
/// keys) and fills up with biased crossovers of an elite and a non-elite
/// parent. Only orders that may join the elite are solved exactly: the DP
/// of a generation is cut at its elite's worst max-load. Then, unless
/// --contiguity convex asks for contiguous plans, the local search
/// (local_search.hpp) starts from the best chain in the last fifth of the
/// time, then local-search's own random restarts use what is left; a
/// better plan is kept (it may not be contiguous). Throughput only; training workloads as the DP
/// handles them (backward twins in their forward class's super-node); no --diffmaxima, no --replicate.
/// Deterministic for a seed and a thread count whenever the time limit does not end it (the population
/// is evaluated by `threads` threads, each order by one, with the same cut: the same result for any
/// number of threads as long as the same generations run).

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveSearch(const Workload& workload, const SolveOptions& options);

}  // namespace dnnplace
