#pragma once
/// The DP's preprocessing (docs/model.md §4, steps 1–4): the workload is reduced to a
/// DAG of forward super-nodes. Each super-node stands for a set of color
/// classes that every contiguous placement the DP considers keeps on one
/// device; it owns all their original nodes, forward and backward, so a
/// block of super-nodes maps back to original nodes directly.

#include <cstdint>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace {

struct ContractionOptions {
  /// PipeDream emulation: after steps 1–3, for every biconnected
  /// component of the undirected forward super-node graph, the sources of its
  /// edges join one class; cycles this creates are fused again.
  bool mergeBiconnected = false;
  /// Add an edge between consecutive super-nodes of the (topological)
  /// numbering, so that the only ideals left are its prefixes (dp-linear).
  bool linearize = false;
  /// Step 4 (zero-work leaves); off only for tests of the other steps.
  bool mergeZeroWorkLeaves = true;
  /// How ties in the topological numbering are broken (the partition into
  /// super-nodes does not depend on it): Kahn's algorithm taking the ready
  /// super-node with the smallest original node index, or depth-first (the
  /// one readied last, so parallel branches stay together), or breadth-first
  /// (by longest path from a source, then smallest node: parallel branches
  /// advance together).
  enum class Order { SmallestFirst, DepthFirst, BreadthFirst };
  Order order = Order::SmallestFirst;
};

/// The contracted forward DAG. Super-nodes are numbered 0..n-1 in a
/// deterministic topological order (ContractionOptions::order), so every
/// edge goes from a lower to a higher number.
struct ContractedGraph {
  int numSuperNodes = 0;
  std::vector<std::int32_t> superOf;                  ///< per original node (forward and backward)
  std::vector<std::int32_t> memberStart, members;     ///< CSR: original nodes per super-node
  std::vector<double> fpgaLatency, cpuLatency, size;  ///< sums over members
  std::vector<char> supportedOnFpga;                  ///< all members supported
  /// Forward DAG over super-nodes (real, artificial and linearization edges), deduplicated.
  std::vector<std::int32_t> succStart, succ, predStart, pred;

  /// Communication as a weighted hypergraph over super-nodes: an original node
  /// u with outgoing edges is paid by a block D exactly when D contains some
  /// but not all of T(u) = {super(u)} ∪ {super(w) : u→w}. Nodes with equal T
  /// are merged (weights summed); T of size 1 is never cut and is dropped.
  std::vector<std::int32_t> hyperStart, hyperNodes;
  std::vector<double> hyperWeight;
  std::vector<std::int32_t> incidenceStart, incidence;  ///< hyperedges per super-node

  // What preprocessing did, for messages and tests.
  int artificialTwins = 0;       ///< orphan backward classes given a forward twin
  int classesFusedByCycles = 0;  ///< classes absorbed by strongly connected components
  int classesMergedBiconnected = 0;
  int zeroWorkLeavesMerged = 0;          ///< super-nodes merged by step 4
  double zeroWorkLeafBytes = 0;          ///< memory those leaves carried into their neighbours
  bool zeroWorkLeafUnsupported = false;  ///< a merged leaf is unsupported on accelerators

  /// Set when the DP rounded the sums onto exact grids (dp/exact_sums.hpp):
  /// the accelerator memory its rounded sizes are held to instead of
  /// maxSizePerFPGA. Negative: the sums are the true ones.
  double dpMemoryBound = -1;
};

ContractedGraph contractWorkload(const Workload& workload, const ContractionOptions& options);

/// The same contracted graph numbered in another order: equal, field by
/// field, to contractWorkload with that order (and no linearize, whose
/// edges follow the numbering), without contracting again.
ContractedGraph renumberContracted(const ContractedGraph& graph, ContractionOptions::Order order);

/// Totals of a block (a set of super-nodes) computed from scratch on the
/// ORIGINAL graph, independent of the hypergraph; used to check the DP's
/// incremental numbers and to report plans.
struct BlockTotals {
  double fpgaLatency = 0, cpuLatency = 0, size = 0, communication = 0;
  bool supportedOnFpga = true;
  double acceleratorLoad() const { return fpgaLatency + communication; }
};
BlockTotals blockTotals(const Workload& workload, const ContractedGraph& graph,
                        const std::vector<std::int32_t>& superNodes);

/// "class 17 (node ids 4, 9)" / "classes 3, 5 (node ids …)" for a super-node,
/// listing at most a few ids.
std::string describeSuperNode(const Workload& workload, const ContractedGraph& graph, int superNode);

/// "class 17 (node ids 4, 9)" for an original class (a node without a color
/// class is named by its id alone).
std::string describeClass(const Workload& workload, int cls);

}  // namespace dnnplace
