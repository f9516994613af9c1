#pragma once
/// A DNN computation graph with profiled costs and the machine it must run on
/// (DESIGN §1). Immutable once built; nodes are addressed by dense indices
/// 0..n-1 in input order, adjacency is stored in flat CSR arrays.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dnnplace {

using NodeIndex = std::int32_t;

struct Node {
  std::int64_t id = 0;
  bool supportedOnFpga = true;
  double cpuLatency = 0;
  double fpgaLatency = 0;
  bool isBackward = false;
  std::optional<std::int64_t> colorClass;  ///< absent: the node is alone in its class
  double size = 0;                          ///< bytes on an accelerator
  std::string name;                         ///< optional label from the input
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

struct Machine {
  double maxSizePerFpga = 0;  ///< bytes per accelerator
  int maxFpgas = 0;           ///< k
  int maxCpus = 0;            ///< ℓ
};

class Workload {
 public:
  std::string name;  ///< file name (or label) used in messages
  Machine machine;
  std::vector<Node> nodes;
  std::vector<Edge> edges;       ///< distinct (source, dest) pairs, first-occurrence order
  std::vector<double> outCost;   ///< per node: cost of its outgoing edges, 0 without any
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
                                               const std::vector<RawEdge>& edges,
                                               std::string* error);
  std::vector<std::int32_t> succStart_, succ_, predStart_, pred_;
  std::vector<std::int32_t> classStart_, classNodes_;
  std::unordered_map<std::int64_t, NodeIndex> indexOfId_;
};

/// Validates the graph-level rules of DESIGN §1 (unique ids, existing endpoints,
/// no self-loops, equal costs per source, acyclic, no backward→forward edge,
/// finite non-negative numbers) and builds the indexed workload. On failure
/// returns nullopt and sets *error to one line naming file, element and field.
std::optional<Workload> buildWorkload(std::string name, Machine machine,
                                      std::vector<Node> nodes,
                                      const std::vector<RawEdge>& edges,
                                      std::string* error);

// Reading and writing the workload format (src/io/workload_json.cpp,
// src/io/read_file.cpp); the rules above are buildWorkload's (src/model/).

/// Parses workload JSON text (DESIGN §1). `name` prefixes error messages.
std::optional<Workload> parseWorkload(std::string_view text, const std::string& name,
                                      std::string* error);

/// Reads and parses a workload file ("-": standard input).
std::optional<Workload> loadWorkload(const std::string& path, std::string* error);

/// Serializes a workload to the JSON input format (used by the example generator).
std::string workloadToJson(const Workload& workload);

/// Limits on machine sizes the parser accepts (larger values are rejected as
/// implausible rather than letting solvers allocate per-device arrays for them).
inline constexpr std::int64_t kMaxDevicesPerKind = 1 << 20;

/// Reads a whole file ("-": standard input); on failure sets *error
/// ("PATH: cannot open: reason").
std::optional<std::string> readFile(const std::string& path, std::string* error);

/// The name messages give a file read by readFile: "standard input" for "-".
std::string inputName(const std::string& path);

}  // namespace dnnplace
