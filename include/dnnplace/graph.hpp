#pragma once
/// A DNN computation graph with profiled costs (docs/model.md §1). Immutable
/// once built; nodes are addressed by dense indices 0..n-1 in input order,
/// adjacency is stored in flat CSR arrays.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnplace/machine.hpp"

namespace dnnplace {

using NodeIndex = std::int32_t;

struct Node {
  std::int64_t id = 0;
  bool supportedOnFpga = true;
  double cpuLatency = 0;
  double fpgaLatency = 0;
  bool isBackward = false;
  std::optional<std::int64_t> colorClass;  ///< absent: the node is alone in its class
  double size = 0;                         ///< bytes on an accelerator
  std::string name;                        ///< optional label from the input
  std::optional<std::int64_t> layerId;     ///< the layer (module) of an operator, for contraction
  double parameterSize = 0;                ///< bytes of trainable weights (docs/model.md §9)
};

/// An edge as written in the input, endpoints given by node id.
struct RawEdge {
  std::int64_t sourceId = 0;
  std::int64_t destId = 0;
  double cost = 0;
};

struct Edge {
  NodeIndex source = 0;
  NodeIndex dest = 0;
};

class Workload;

/// The immutable graph: nodes, deduplicated edges and the derived indices.
/// Built (and validated) only by buildWorkload; shared by every Workload
/// that places it on some machine.
class Graph {
 public:
  std::vector<Node> nodes;
  std::vector<Edge> edges;            ///< distinct (source, dest) pairs, first-occurrence order
  std::vector<double> outCost;        ///< per node: cost of its outgoing edges, 0 without any
  std::vector<std::int32_t> classOf;  ///< dense color-class index per node
  int numClasses = 0;
  std::vector<NodeIndex> topologicalOrder;  ///< of all nodes (forward and backward)

  int numNodes() const { return static_cast<int>(nodes.size()); }
  std::span<const NodeIndex> successors(NodeIndex v) const {
    return {succ_.data() + succStart_[v], succ_.data() + succStart_[v + 1]};
  }
  std::span<const NodeIndex> predecessors(NodeIndex v) const {
    return {pred_.data() + predStart_[v], pred_.data() + predStart_[v + 1]};
  }
  /// Dense index of the node with this id, if any.
  std::optional<NodeIndex> indexOf(std::int64_t id) const;
  /// Nodes of one color class, in index order.
  std::span<const NodeIndex> classMembers(int cls) const {
    return {classNodes_.data() + classStart_[cls], classNodes_.data() + classStart_[cls + 1]};
  }

 private:
  friend std::optional<Workload> buildWorkload(std::string name, Machine machine,
                                               std::vector<Node> nodes,
                                               const std::vector<RawEdge>& edges, std::string* error);
  std::vector<std::int32_t> succStart_, succ_, predStart_, pred_;
  std::vector<std::int32_t> classStart_, classNodes_;
  std::unordered_map<std::int64_t, NodeIndex> indexOfId_;
};

}  // namespace dnnplace
