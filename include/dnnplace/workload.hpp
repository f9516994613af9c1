#pragma once
/// A workload: a graph (graph.hpp) and the machine it must run on
/// (machine.hpp), and the functions that build, read and write one.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dnnplace/graph.hpp"
#include "dnnplace/machine.hpp"

namespace dnnplace {

/// A graph placed on a machine: what every method solves. Copying one (to
/// try another machine) shares the graph.
class Workload {
 public:
  Workload();
  Workload(std::string name, Machine machine, std::shared_ptr<const Graph> graph);

  std::string name;  ///< file name (or label) used in messages
  Machine machine;

  const Graph& graph() const { return *graph_; }
  const std::shared_ptr<const Graph>& sharedGraph() const { return graph_; }
  /// The same graph on another machine.
  Workload onMachine(const Machine& other) const { return Workload(name, other, graph_); }

  // The graph's own accessors, for brevity.
  int numNodes() const { return graph_->numNodes(); }
  std::span<const NodeIndex> successors(NodeIndex v) const { return graph_->successors(v); }
  std::span<const NodeIndex> predecessors(NodeIndex v) const { return graph_->predecessors(v); }
  std::optional<NodeIndex> indexOf(std::int64_t id) const { return graph_->indexOf(id); }
  std::span<const NodeIndex> classMembers(int cls) const { return graph_->classMembers(cls); }

 private:
  std::shared_ptr<const Graph> graph_;
};

/// Validates the graph-level rules of docs/model.md §1 (unique ids, existing endpoints,
/// no self-loops, equal costs per source, acyclic, no backward→forward edge,
/// finite non-negative numbers) and builds the indexed workload. On failure
/// returns nullopt and sets *error to one line naming file, element and field.
std::optional<Workload> buildWorkload(std::string name, Machine machine, std::vector<Node> nodes,
                                      const std::vector<RawEdge>& edges, std::string* error);

// Reading and writing the workload format (src/io/workload_json.cpp,
// src/io/read_file.cpp); the rules above are buildWorkload's (src/model/).

/// Parses workload JSON text (docs/model.md §1). `name` prefixes error messages.
std::optional<Workload> parseWorkload(std::string_view text, const std::string& name,
                                      std::string* error);

/// The most bytes of input read under a memory limit: a quarter of it (the
/// text, the parser's records and the graph built from them take about 2.5
/// times the text), and at least 64 MiB. A limit of 0 (no cap) counts as the
/// machine's memory: a larger input could not be held anyway.
std::uint64_t readLimitFor(std::uint64_t memoryLimitBytes);

/// readLimitFor(half the machine's memory), the CLI's default limit.
std::uint64_t defaultReadLimit();

/// Reads and parses a workload file ("-": standard input) of at most
/// `maxBytes` bytes (readFile).
std::optional<Workload> loadWorkload(const std::string& path, std::string* error,
                                     std::uint64_t maxBytes = defaultReadLimit());

/// Serializes a workload to the JSON input format (used by the example generator).
std::string workloadToJson(const Workload& workload);

/// Limits on machine sizes the parser accepts (larger values are rejected as
/// implausible rather than letting solvers allocate per-device arrays for them).
inline constexpr std::int64_t kMaxDevicesPerKind = 1 << 20;

/// Reads a whole file ("-": standard input) of at most `maxBytes` bytes; on
/// failure sets *error ("PATH: cannot open: reason"). A longer file or stream
/// (an endless pipe) stops there: "NAME: more than N bytes, the input cap (a
/// quarter of --memory-limit, at least 64 MiB)".
std::optional<std::string> readFile(const std::string& path, std::string* error,
                                    std::uint64_t maxBytes = defaultReadLimit());

/// The name messages give a file read by readFile: "standard input" for "-".
std::string inputName(const std::string& path);

}  // namespace dnnplace
