#pragma once
/// The DP's numbers on grids where its sums are exact: every running sum,
/// table value and load it forms is then the same whatever the order of
/// its terms, so the values a table holds and the loads its backtrack
/// recomputes agree exactly, for any magnitudes the validator accepts.

#include "dnnplace/plan.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// Rounds the sums of a contracted graph (the DP's own copy) onto two
/// binary grids, in place:
/// * latencies and hyperedge weights down to multiples of
///   Q = 2^(ceil(log2 T) − 53), T their total: every sum of some of them is
///   an integer times Q below 2^53·Q, so exact; each is at most its true
///   value, so a DP value is a lower bound on the true max-load of its chain;
/// * sizes, each first clamped to twice `memoryPerAccelerator` (too large
///   stays too large), up to multiples of a power of two chosen the same
///   way for their total: a block whose rounded sizes fit never holds more
///   than the evaluator allows, held to the largest step at most the memory plus half the
///   evaluator's tolerance (graph->dpMemoryBound): a block fits when its
///   true sizes do, but for a rounding of each size of a step (2^-52 of
///   their total at most); integer sizes with a total below 2^53 do not
///   move, and below 2 TB of memory the bound is the memory itself.
/// Counts, structure and the notes for messages (zeroWorkLeafBytes, …) stay
/// as they are; renumberContracted keeps the numbers, so its result stays
/// on the grids.
///
/// `knownMaxLoad`: the true max-load of a known plan, if any (infinite: none).
/// A latency or weight above 1024 times it is first clamped there: a chain
/// whose loads hold one is above the known plan either way, and the grid of
/// the rest becomes as fine as the known plan's magnitude allows (a cost of
/// 1e16 next to latencies of 1 would otherwise round those to 0). The DP,
/// cut at the known plan, then still never tracks such a chain.
void snapToExactGrid(ContractedGraph* graph, double memoryPerAccelerator, double knownMaxLoad);

/// The max-load of a placement in the graph's own numbers (on the grids:
/// exact, at most the true max-load), each super-node on its first
/// member's device: the cut under which the DP finds a better chain, or
/// proves none exists, without rebuilding this one.
double gridMaxLoad(const ContractedGraph& graph, const Placement& placement);

/// The memory a block's sizes are held to: the DP's bound on a graph on
/// the grids (dpMemoryBound), else the machine's.
inline double acceleratorMemory(const ContractedGraph& graph, const Machine& machine) {
  return graph.dpMemoryBound >= 0 ? graph.dpMemoryBound : machine.maxSizePerFpga;
}

/// contractWorkload, then snapToExactGrid with the workload's accelerator memory.
ContractedGraph contractForDp(const Workload& workload, const ContractionOptions& options,
                              double knownMaxLoad);

}  // namespace dnnplace::dp
