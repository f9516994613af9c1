#pragma once
/// The DP of dp-linear along any topological order of a contracted graph,
/// without renumbering the graph: the best chain of intervals of the order
/// (each interval on one accelerator or one CPU core) below a cut. The
/// search evaluates thousands of orders with one instance per thread, so
/// its tables and the order's arrays live in the instance and are reused.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "dnnplace/workload.hpp"
#include "dp/chain.hpp"
#include "preprocess/contraction.hpp"
#include "util/deadline.hpp"

namespace dnnplace::search {

using Clock = std::chrono::steady_clock;

/// The DP along one order. The graph is not linearized; on the exact grids
/// of dp/exact_sums.hpp its sums (and so the values below) are exact, and
/// at most the true max-loads.
class OrderChainDp {
 public:
  OrderChainDp(const Workload& workload, const ContractedGraph& graph);

  /// The table's bytes for one instance (value and start per prefix and state).
  static std::uint64_t tableBytes(const Workload& workload, const ContractedGraph& graph);

  enum class Result { Found, NoChain, Stopped };

  /// The smallest max-load, in the graph's numbers, of a chain of intervals
  /// of `order` (super-nodes, a topological order of the graph) with every
  /// load below `cut`: Found (value()), NoChain (none below the cut) or
  /// Stopped (the deadline or the interrupt, checked every few thousand steps).
  /// The rows of the prefix this order shares with the last one solved (with
  /// the same cut) are kept: orders that differ late cost less.
  Result solve(std::span<const std::int32_t> order, double cut, Clock::time_point deadline,
               const std::atomic<bool>* interrupt);

  double value() const { return value_; }
  /// The chain of the last Found solve, from the last block to the first
  /// (as dp::placementOf expects).
  std::vector<dp::Block> blocks() const;
  /// The positions [first, second) of a most loaded block of that chain.
  std::pair<int, int> bottleneck() const;
  /// Interval steps taken by all solves (a step: one super-node added to
  /// one interval), for the benchmarks.
  std::uint64_t steps() const { return steps_; }

 private:
  void layOut(std::span<const std::int32_t> order);

  const ContractedGraph& graph_;
  double memory_;
  int n_;
  // Device states (a, c) as a · columns_ + c; a type with at least n devices
  // is unlimited and takes no dimension (its step is 0).
  bool unlimitedAccelerators_, unlimitedCpus_, anyAccelerator_, anyCpu_;
  int columns_, numStates_, acceleratorStep_, cpuStep_, devicesInState_;
  std::vector<int> devicesLeft_;  ///< per state: devices not used yet (limited types)

  // The order's arrays, by position.
  std::vector<std::int32_t> order_;
  std::vector<double> fpga_, cpu_, size_, rest_;   ///< rest_[p]: least work of positions p..n-1
  std::vector<double> computeBefore_, cpuBefore_;  ///< accelerator and CPU work of positions 0..p-1
  std::vector<char> supported_;
  std::vector<std::int32_t> incidenceStart_, incidence_;  ///< hyperedges per position
  std::vector<std::int32_t> firstPos_;                    ///< per hyperedge: its first position
  std::vector<std::int32_t> hyperSize_;
  std::vector<std::int32_t> inside_, touched_;

  // value_[j · numStates_ + s]: best max-load of positions 0..j-1 on state
  // s's devices; how_: the last interval's start, negated − 1 on a CPU core.
  std::vector<double> table_;
  std::vector<std::int32_t> how_;
  std::vector<int> viaAccelerator_, viaCpu_;
  double value_ = 0;
  bool complete_ = false;  ///< the last solve filled every row (it was not stopped)
  double lastCut_ = 0;
  int finalState_ = -1;
  std::uint64_t steps_ = 0;
};

}  // namespace dnnplace::search
