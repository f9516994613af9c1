#pragma once
/// The ideals (predecessor-closed node sets) of the contracted forward graph
/// the DP works on: counted without being stored (countIdeals, for `info`
/// and for sizing the DP's seeds), and stored as the lattice the DP walks.
/// Tests hold the two to each other and to brute force.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "dnnplace/workload.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace {

struct IdealCount {
  std::uint64_t count = 0;  ///< exact unless exceeded (then the cap) or stopped (then how far it got)
  bool exceeded = false;
  bool stopped = false;  ///< the deadline or an interrupt stopped the count
};

/// When to give up counting (checked every few thousand ideals).
struct CountLimits {
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  const std::atomic<bool>* interrupt = nullptr;
};

/// Ideals of the forward graph after the DP's preprocessing (docs/model.md §4, 1–4).
/// cap == 0 means no cap.
IdealCount countIdeals(const Workload& workload, std::uint64_t cap, const CountLimits& limits = {});

/// Ideals of a contracted graph (cap == 0: no cap), without storing them.
IdealCount countIdeals(const ContractedGraph& graph, std::uint64_t cap, const CountLimits& limits = {});

/// The lattice of ideals of a contracted forward DAG, stored without hashing.
///
/// Why no hash table: super-nodes are numbered topologically, so the largest
/// element of an ideal is always maximal in it; removing it gives the ideal's
/// canonical parent, and each ideal is generated exactly once as a canonical
/// child (add an element above the current largest whose predecessors are all
/// present). Ideals are generated level by level (level = number of elements),
/// so ids grow with size and every sub-ideal has a smaller id. The link
/// "I minus maximal element v" is found from the parent's link by one binary
/// search among canonical children: I∖{v} = child(P∖{v}, max I).
class IdealLattice {
 public:
  /// Links of an ideal are sorted by element. Each carries where the
  /// target's own links are, so a walk down the lattice reads one array.
  struct Link {
    std::int32_t element;  ///< a maximal element v of the ideal
    std::int32_t target;   ///< id of the ideal without v
    /// The target's links: they start at targetLinks >> 8, and there are
    /// targetLinks & 255 of them. An ideal with k maximal elements has 2^k
    /// sub-ideals and ids are 31-bit, so k < 32; 56 bits address every link.
    std::uint64_t targetLinks;
  };
  static_assert(sizeof(Link) == 16,
                "walks are bound by memory: keep links to a quarter of a cache line");
  struct Limits {
    std::uint64_t maxIdeals = 0;           ///< 0: none
    std::uint64_t memoryLimitBytes = 0;    ///< 0: none
    std::uint64_t extraBytesPerIdeal = 0;  ///< what the caller will add per ideal (DP tables)
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
    const std::atomic<bool>* interrupt = nullptr;
    std::function<void(std::uint64_t ideals)> progress;  ///< called about twice a second
  };
  enum class Status { Complete, IdealLimit, MemoryLimit, TimeLimit, Interrupted };

  /// Enumerates every ideal; stops early (status says why) when a limit is hit.
  Status build(const ContractedGraph& graph, const Limits& limits);

  std::int32_t numIdeals() const { return static_cast<std::int32_t>(linkStart_.size()) - 1; }
  std::int32_t emptyIdeal() const { return 0; }
  std::int32_t fullIdeal() const { return numIdeals() - 1; }
  std::span<const Link> links(std::int32_t ideal) const {
    return {links_.data() + linkStart_[ideal], links_.data() + linkStart_[ideal + 1]};
  }
  std::span<const Link> targetLinks(const Link& link) const {
    return {links_.data() + (link.targetLinks >> 8), static_cast<std::size_t>(link.targetLinks & 255)};
  }
  /// The canonical children of J (J plus one element above max J, whose
  /// predecessors are all in J) have the ids [childBegin(J), childBegin(J + 1));
  /// addedElement(K) is the element child K added (the largest of K).
  /// They let a walk climb from the empty ideal without a hash.
  std::int32_t childBegin(std::int32_t ideal) const { return childBegin_[ideal]; }
  std::int32_t addedElement(std::int32_t ideal) const { return maxElement_[ideal]; }
  /// Bytes held by the lattice.
  std::uint64_t bytes() const;

 private:
  std::vector<std::int32_t>
      levelStart_;  ///< ideals with `level` elements: [levelStart_[level], levelStart_[level + 1])
  std::vector<std::int64_t> linkStart_;
  std::vector<Link> links_;
  std::vector<std::int32_t> childBegin_, maxElement_;  ///< numIdeals + 1 and numIdeals entries
};

}  // namespace dnnplace
