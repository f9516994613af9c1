#pragma once
/// Random-key encoding of topological orders of a contracted graph: a
/// chromosome holds one key per super-node, and its order is the
/// topological sort that always takes the ready super-node with the
/// smallest key. Every key vector decodes to a valid order; the keys of
/// an order (keysOf) decode back to that order.

#include <cstdint>
#include <random>
#include <span>
#include <utility>
#include <vector>

#include "dnnplace/plan.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::search {

/// Decodes key vectors; its heap and in-degrees are reused across calls.
class KeyDecoder {
 public:
  explicit KeyDecoder(const ContractedGraph& graph);

  /// The order of `keys` (ties: the smaller super-node first) into *order.
  void decode(std::span<const float> keys, std::vector<std::int32_t>* order);

 private:
  const ContractedGraph& graph_;
  std::vector<std::int32_t> inDegree_;
  std::vector<std::pair<float, std::int32_t>> heap_;
};

/// Keys that decode to `order`: (position + 1/2) / n.
void keysOf(std::span<const std::int32_t> order, std::vector<float>* keys);

/// New keys, uniform in [lo/n, hi/n), for the super-nodes at positions
/// [lo, hi) of normalized keys (keysOf's: position = ⌊key · n⌋): their
/// order shuffled there, as far as the edges allow.
void shuffleKeys(std::vector<float>* keys, int lo, int hi, std::mt19937_64& rng);

/// The order that keeps the blocks of a placement's devices whole, the
/// blocks in a topological order of the graph between them and, inside a
/// block, the super-nodes in the graph's numbering; a super-node goes with
/// its first member's device. (A contiguous plan's blocks become intervals
/// of it, so the DP along it is no worse than that plan.)
std::vector<std::int32_t> orderOfPlan(const ContractedGraph& graph, const Placement& placement);

/// The permutation of the graph's super-nodes in the numbering `order`
/// (ContractionOptions::Order) would give them.
std::vector<std::int32_t> numberingOrder(const ContractedGraph& graph, ContractionOptions::Order order);

/// A 64-bit hash of an order (to skip orders already evaluated).
std::uint64_t hashOrder(std::span<const std::int32_t> order);

}  // namespace dnnplace::search
