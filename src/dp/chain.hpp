#pragma once
/// The DP on one contracted graph (solveChain): enumerate its lattice of
/// ideals, run the lattice DP below a cut (probing upwards from a lower
/// bound when no plan is known), and backtrack the chain of blocks it found.

#include <cstdint>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dp/device_states.hpp"
#include "dp/ideal_lattice.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// One block of a chain: super-nodes that share one device.
struct Block {
  bool accelerator = true;
  std::vector<std::int32_t> superNodes;
  int replicas = 1;  ///< accelerators running the block (docs/model.md §9)
};

/// The max-load of a chain, recomputed from scratch on the original graph.
double chainObjective(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<Block>& blocks);

/// A chain as a placement of the original nodes. Backtracking yields the
/// blocks from the last to the first: devices are numbered in pipeline order.
Placement placementOf(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<Block>& blocks);

/// What one DP solve on one contracted graph produced.
struct ChainResult {
  enum class Kind { Found, NoChain, IdealLimit, MemoryLimit, TimeLimit, Interrupted, InternalError };
  Kind kind = Kind::NoChain;
  /// Found: the optimal chain. Stopped by a limit: the best chain a
  /// good-enough run found before it (empty: none).
  std::vector<Block> blocks;
  double objective = kInfinity;  ///< of `blocks`, recomputed from scratch on the original graph
  /// The DP's own max-load of `blocks`, on the grids of snapToExactGrid
  /// (exact_sums.hpp): at most `objective`. Found: no chain's true max-load is below it.
  double exactOptimum = kInfinity;
  std::uint64_t ideals = 0;
  std::uint64_t bytes = 0;  ///< latticeBytes + tableBytes
  std::uint64_t latticeBytes = 0, tableBytes = 0;
  /// Set when the tables were refused before any enumeration: the device
  /// states per ideal (tableBytes then counts the fewest ideals any lattice has).
  std::uint64_t deviceStates = 0;
  DpStats stats;
  int rounds = 0;               ///< DP runs (probes or good-enough runs, then the decisive one)
  double provenLowerBound = 0;  ///< no chain has a smaller max-load
  /// Time spent enumerating the lattice, in the DP runs, and backtracking.
  double enumerateSeconds = 0, dpSeconds = 0, backtrackSeconds = 0;
};

/// a · b, or the largest value when that overflows.
std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b);

/// Whether a limit (ideals, memory, time, interrupt) stopped the solve.
bool isLimit(ChainResult::Kind kind);
/// The stop reason a limit kind reports (None for the others).
StopReason stopReasonOf(ChainResult::Kind kind);

/// The DP on one contracted graph. upperBound: a known plan's max-load
/// (chains at or above it are not tracked; infinite: none known);
/// lowerBound: a proven lower bound, if any. `built`: the graph's complete
/// lattice, if the caller has one (then not enumerated again, and the
/// user's ideal cap not applied to it).
ChainResult solveChain(const Workload& workload, const ContractedGraph& graph,
                       const SolveOptions& options, Clock::time_point deadline, double upperBound,
                       double lowerBound = 0, const IdealLattice* built = nullptr);

}  // namespace dnnplace::dp
