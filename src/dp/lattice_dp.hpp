#pragma once
/// The DP over the lattice of ideals (docs/model.md §4). value(I, s) = the smallest
/// max-load that places the ideal I on at most the devices of state s as a
/// chain of blocks; values ≥ `cut` are not tracked (stored as `cut`). A
/// value stored negated is inexact: the max-load of a real chain of I on s,
/// possibly above the smallest, but no larger than the rest of the graph
/// forces on every chain through (I, s) (see relax). So the full ideal's
/// value is exact: nothing comes after it.

#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "dp/block_walker.hpp"
#include "dp/chain.hpp"
#include "dp/device_states.hpp"
#include "dp/ideal_lattice.hpp"
#include "dp/wavefront.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

class LatticeDp {
 public:
  /// `goodEnough`: a state may stop once its best is at most this (see
  /// solveChain); 0 for exact values up to the rest bounds.
  LatticeDp(const ContractedGraph& graph, const IdealLattice& lattice, DeviceStates states,
            double memoryPerAccelerator, double cut, double goodEnough = 0,
            bool alwaysFetchAhead = false);

  static std::uint64_t bytesPerIdeal(DeviceStates states) {
    return (static_cast<std::uint64_t>(states.count()) + kWorkFields) * sizeof(double);
  }

  /// Computes every ideal's values on up to `threads` threads.
  DpRun run(const DpLimits& limits, int threads, DpStats* stats);

  double value(std::int32_t ideal, int state) const { return std::fabs(valuesOf(ideal)[state]); }

  /// Recovers a chain of blocks whose max-load (in the graph's exact sums)
  /// is at most `target`, from the full ideal and state s; false only if
  /// no stored value leads to one (a defect, not an input's doing).
  bool backtrack(std::int32_t ideal, int state, double target, std::vector<Block>* blocks) const;

 private:
  struct alignas(64) Scratch {
    /// Live states by the device their last block takes, walked down from I.
    std::vector<int> acceleratorStates, cpuStates;
    /// The same, when the state left has no accelerator: walked up (walkUp).
    std::vector<int> upAcceleratorStates, upCpuStates;
    std::vector<StateBounds::StateTest> acceleratorTests, cpuTests;
    std::vector<double> lower;  ///< per state: value(I, s) is at least this
    /// Per state: max(lower, restBound, goodEnough): a best this small is final.
    std::vector<double> closeAt;
    /// Per state: the smallest block load met with an inexact sub-ideal value.
    std::vector<double> minInexactLoad;
  };

  Work workOf(std::int32_t ideal) const {
    const double* record = &table_[static_cast<std::size_t>(ideal) * stride_];
    return {record[0], record[1], record[2], static_cast<std::int32_t>(record[3]),
            record[4], record[5]};
  }
  const double* valuesOf(std::int32_t ideal) const {
    return &table_[static_cast<std::size_t>(ideal) * stride_ + kWorkFields];
  }
  double* valuesOf(std::int32_t ideal) {
    return &table_[static_cast<std::size_t>(ideal) * stride_ + kWorkFields];
  }
  void prefetchValues(std::int32_t ideal) const {
    const double* values = valuesOf(ideal);
    prefetchLines(values, states_.count() * sizeof(double));
  }
  /// Returns once another thread has finished the ideal's record.
  void await(std::int32_t ideal) const { pool_.await(ideal); }

  /// Whether the rest of the graph fits the devices state s leaves at the ideal.
  bool futureAlive(std::int32_t ideal, int s) const {
    if (ideal == lattice_.fullIdeal()) return true;
    return bounds_.futureAlive(workOf(ideal), s);
  }
  /// Whether state s at this ideal can lie on a chain below the cut.
  bool stateAlive(std::int32_t ideal, int s) const {
    const Work here = workOf(ideal);
    return bounds_.prefixAlive(here, s) && futureAlive(ideal, s) &&
           bounds_.restPaysCrossingAlive(here, s);
  }

  void computeCrossing(std::int32_t ideal, BlockWalker& walker);
  DpRun computeWork(const DpLimits& limits);
  void lowerBounds(std::int32_t ideal, BlockWalker& walker, std::vector<double>* lower) const;
  void walkUp(std::int32_t ideal, const Work& whole, BlockWalker& walker, Scratch& scratch,
              DpStats* stats);
  template <typename Admits>
  bool admitsAFirstElement(std::int32_t ideal, const Admits& admits) const;
  void markInexact(double* best, const Scratch& scratch) const;
  void relax(std::int32_t ideal, BlockWalker& walker, Scratch& scratch, DpStats* stats);

  /// A sub-ideal's stored value as a number; notes the block's load when
  /// the value is inexact (relax decides from that whether it mattered).
  static double subValueOf(double stored, double load, double* minInexactLoad) {
    if (stored >= 0) [[likely]]
      return stored;  // an inexact value is never 0: see markInexact
    *minInexactLoad = std::min(*minInexactLoad, load);
    return -stored;
  }

  /// best[s] only ever holds an upper bound on the final value; keeping it
  /// closed under "leave a device empty" lets every state prune with it
  /// (this runs after every improvement).
  void close(double* best) const { closeUnderUnusedDevices(states_, best); }

  /// The tests against the cut; set up by computeWork.
  StateBounds bounds_;
  /// The whole graph fits one accelerator's memory: a block fits one
  /// exactly when it has no super-node that cannot go to an accelerator.
  bool sizeNeverBinds_ = false;
  /// Attached while several threads share a run.
  WavefrontReader pool_;
  const ContractedGraph& graph_;
  const IdealLattice& lattice_;
  DeviceStates states_;
  double memory_;
  double cut_;
  double goodEnough_;
  /// Per ideal, one record: its Work (kWorkFields numbers), then its value
  /// per state. Why together: lowerBounds reads both for each sub-ideal
  /// one element smaller, so one record costs one miss. (The walk in relax
  /// reads only the values: prefetchValues.)
  static constexpr int kWorkFields = 6;
  static constexpr int kCrossingField = 5;
  std::size_t stride_;
  std::unique_ptr<double[]> table_;
  /// Whether the lattice and the table outgrow the cache: then relax reads
  /// sub-ideal records late, after a prefetch, and walks prefetch whole link
  /// lists. On smaller ones that only adds instructions.
  static constexpr std::uint64_t kCacheResidentBytes = std::uint64_t{16} << 20;
  bool fetchAhead_;
};

}  // namespace dnnplace::dp
