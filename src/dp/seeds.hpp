#pragma once
/// Seeds of the lattice DP computed without a lattice: chains of intervals
/// of one topological order of a contracted graph (its numbering: its
/// prefixes are ideals, so its intervals are blocks). Their max-load cuts
/// the full DP, and dp-linear's order gives the bound tests hold it to.

#include <atomic>
#include <cstdint>
#include <vector>

#include "dp/chain.hpp"
#include "dp/device_states.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// A chain found without the lattice, and its exact max-load.
struct LinearSeed {
  double objective = kInfinity;
  std::vector<Block> blocks;  ///< empty: none found
};

/// A quick chain along the order of a contracted graph's numbering
/// (topological: its prefixes are ideals, so its intervals are blocks):
/// cut the order into intervals, each on an accelerator or a CPU core, under
/// a limit T, binary-searching the smallest T the packing meets, and price
/// that packing exactly. For a given T, reach[a][c] is how far a accelerators
/// and c cores get, each interval the longest whose load is under T (its
/// accelerator load counts communication, a large share on operator graphs);
/// the next interval goes to whichever device type reaches further. None
/// when no packing is found (then the DP probes instead). The table of
/// reaches stays within seedBudget (half memoryLimitBytes, a gigabyte at
/// most, less with little time left: seeds.cpp): beyond it, fewer
/// devices of each type are packed. The deadline and the interrupt end the
/// search at the last limit packed.
LinearSeed greedyChain(const Workload& workload, const ContractedGraph& linear,
                       Clock::time_point deadline = Clock::time_point::max(),
                       const std::atomic<bool>* interrupt = nullptr, std::uint64_t memoryLimitBytes = 0);

/// The best chain of intervals of a contracted graph's numbering (each interval
/// on an accelerator or a CPU core) whose max-load is below `cut`, priced
/// exactly; none when there is no such chain. The lattice DP restricted to
/// one order, but without a lattice: a forward pass over interval starts,
/// each interval grown until its compute plus the communication it can no
/// longer shed (hyperedges reaching back before its start) reaches the cut.
/// None either when the deadline passes or the interrupt is set. Its table
/// stays within the same budget as greedyChain's: beyond it, the chain uses
/// fewer devices of each type.
LinearSeed linearChainSeed(const Workload& workload, const ContractedGraph& linear, double cut,
                           Clock::time_point deadline, const std::atomic<bool>* interrupt,
                           std::uint64_t memoryLimitBytes = 0);

/// linearChainSeed below `best` (a known plan's max-load), or below a greedy
/// packing of the same order when no plan is known yet.
LinearSeed orderSeed(const Workload& workload, const ContractedGraph& ordered, double best,
                     Clock::time_point deadline = Clock::time_point::max(),
                     const std::atomic<bool>* interrupt = nullptr, std::uint64_t memoryLimitBytes = 0);

}  // namespace dnnplace::dp
