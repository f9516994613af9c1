// The graph: the rules of docs/formats.md checked, and the indexed (CSR)
// workload built. Reading and writing the file format is in src/io/.

#include "dnnplace/workload.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "model/labels.hpp"
#include "util/format.hpp"

namespace dnnplace {

std::string detail::nodeLabel(std::size_t index, std::optional<std::int64_t> id) {
  std::string label = "node #" + std::to_string(index);
  if (id) label += " (id " + std::to_string(*id) + ")";
  return label;
}

Workload::Workload() : graph_(std::make_shared<const Graph>()) {}

Workload::Workload(std::string name, Machine machine, std::shared_ptr<const Graph> graph)
    : name(std::move(name)), machine(machine), graph_(std::move(graph)) {}

std::optional<NodeIndex> Graph::indexOf(std::int64_t id) const {
  auto it = indexOfId_.find(id);
  if (it == indexOfId_.end()) return std::nullopt;
  return it->second;
}

namespace {

using detail::nodeLabel;

std::string edgeLabel(std::size_t index, const RawEdge& edge) {
  return "edge #" + std::to_string(index) + " (" + std::to_string(edge.sourceId) + " -> " +
         std::to_string(edge.destId) + ")";
}

// `where()` names the element; it is built only for a message (a label for
// each of millions of nodes would cost more than reading them).
template <class Where>
bool checkAmount(double value, const Where& where, const char* field, std::string* error) {
  if (std::isfinite(value) && value >= 0) return true;
  *error = where() + ": " + field + " must be a finite number >= 0, got " + formatShortest(value);
  return false;
}

// Latencies, costs and sizes are summed over millions of nodes; past this
// bound sums could overflow to infinity and every objective would be wrong.
constexpr double kMaxAmount = 1e30;

template <class Where>
bool checkSummable(double value, const Where& where, const char* field, std::string* error) {
  if (!checkAmount(value, where, field, error)) return false;
  if (value <= kMaxAmount) return true;
  *error = where() + ": " + field + " must be at most 1e30, got " + formatShortest(value);
  return false;
}

// Kahn's algorithm over the deduplicated edges; lower indices first, so the
// order is deterministic and follows the input where the graph allows.
std::vector<NodeIndex> topologicalOrder(int n, const std::vector<std::int32_t>& succStart,
                                        const std::vector<std::int32_t>& succ,
                                        std::vector<int>* inDegree) {
  std::vector<NodeIndex> order;
  order.reserve(n);
  std::vector<NodeIndex> ready;
  for (NodeIndex v = n - 1; v >= 0; --v)
    if ((*inDegree)[v] == 0) ready.push_back(v);
  while (!ready.empty()) {
    NodeIndex v = ready.back();
    ready.pop_back();
    order.push_back(v);
    for (auto i = succStart[v]; i < succStart[v + 1]; ++i)
      if (--(*inDegree)[succ[i]] == 0) ready.push_back(succ[i]);
  }
  return order;
}

// Called only when a cycle exists. Every node Kahn's algorithm could not
// order still waits for an unordered predecessor, so walking such
// predecessors must revisit a node: the walk from there is a cycle (backwards).
std::string describeCycle(const std::vector<Node>& nodes, const std::vector<std::int32_t>& predStart,
                          const std::vector<std::int32_t>& pred, const std::vector<int>& inDegree) {
  NodeIndex start = 0;
  while (inDegree[start] == 0) ++start;
  std::vector<int> seenAt(nodes.size(), -1);
  std::vector<NodeIndex> path;
  NodeIndex v = start;
  while (seenAt[v] < 0) {
    seenAt[v] = static_cast<int>(path.size());
    path.push_back(v);
    for (auto i = predStart[v]; i < predStart[v + 1]; ++i)
      if (inDegree[pred[i]] > 0) {
        v = pred[i];
        break;
      }
  }
  // path[first..] = c0, c1, …, ck with each c(i+1) a predecessor of c(i):
  // the cycle runs c0 -> ck -> … -> c1 -> c0.
  const std::size_t first = seenAt[v];
  std::vector<NodeIndex> cycle{path[first]};
  for (std::size_t i = path.size() - 1; i > first; --i) cycle.push_back(path[i]);
  std::string text;
  const std::size_t shown = std::min<std::size_t>(cycle.size(), 12);
  for (std::size_t i = 0; i < shown; ++i) text += std::to_string(nodes[cycle[i]].id) + " -> ";
  if (shown < cycle.size()) text += "... -> ";
  return text + std::to_string(nodes[cycle[0]].id);
}

}  // namespace

std::optional<Workload> buildWorkload(std::string name, Machine machine, std::vector<Node> nodes,
                                      const std::vector<RawEdge>& edges, std::string* error) {
  auto graph = std::make_shared<Graph>();
  Graph& w = *graph;
  const std::string& file = name;
  if (!checkAmount(
          machine.maxSizePerFpga, [&] { return file; }, "maxSizePerFPGA", error))
    return std::nullopt;
  if (machine.maxFpgas < 0 || machine.maxFpgas > kMaxDevicesPerKind) {
    *error = file + ": maxFPGAs must be an integer in [0, " + std::to_string(kMaxDevicesPerKind) +
             "], got " + std::to_string(machine.maxFpgas);
    return std::nullopt;
  }
  if (machine.maxCpus < 0 || machine.maxCpus > kMaxDevicesPerKind) {
    *error = file + ": maxCPUs must be an integer in [0, " + std::to_string(kMaxDevicesPerKind) +
             "], got " + std::to_string(machine.maxCpus);
    return std::nullopt;
  }
  if (nodes.size() >= static_cast<std::size_t>(std::numeric_limits<NodeIndex>::max())) {
    *error = file + ": too many nodes (" + std::to_string(nodes.size()) + ")";
    return std::nullopt;
  }
  const int n = static_cast<int>(nodes.size());

  std::unordered_map<std::int64_t, std::int32_t> classIndex;
  w.indexOfId_.reserve(n);
  w.classOf.resize(n);
  for (int v = 0; v < n; ++v) {
    const Node& node = nodes[v];
    const auto where = [&] { return file + ": " + nodeLabel(v, node.id); };
    auto [it, inserted] = w.indexOfId_.emplace(node.id, v);
    if (!inserted) {
      *error = where() + ": id " + std::to_string(node.id) + " is already used by " +
               nodeLabel(it->second, node.id);
      return std::nullopt;
    }
    if (!checkSummable(node.cpuLatency, where, "cpuLatency", error) ||
        !checkSummable(node.fpgaLatency, where, "fpgaLatency", error) ||
        !checkSummable(node.size, where, "size", error) ||
        !checkSummable(node.parameterSize, where, "parameterSize", error))
      return std::nullopt;
    if (node.colorClass) {
      auto [cit, fresh] = classIndex.emplace(*node.colorClass, w.numClasses);
      if (fresh) ++w.numClasses;
      w.classOf[v] = cit->second;
    } else {
      w.classOf[v] = w.numClasses++;
    }
  }

  // Edges: endpoints, self-loops, cost per source, direction; then dedupe.
  w.outCost.assign(n, 0.0);
  std::vector<std::int64_t> costEdge(n, -1);  // first edge that fixed a source's cost
  std::vector<std::pair<NodeIndex, NodeIndex>> pairs;
  pairs.reserve(edges.size());
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const RawEdge& edge = edges[e];
    const auto where = [&] { return file + ": " + edgeLabel(e, edge); };
    auto source = w.indexOf(edge.sourceId);
    if (!source) {
      *error = where() + ": sourceId " + std::to_string(edge.sourceId) + " is not a node id";
      return std::nullopt;
    }
    auto dest = w.indexOf(edge.destId);
    if (!dest) {
      *error = where() + ": destId " + std::to_string(edge.destId) + " is not a node id";
      return std::nullopt;
    }
    if (*source == *dest) {
      *error = where() + ": self-loop (sourceId equals destId)";
      return std::nullopt;
    }
    if (!checkSummable(edge.cost, where, "cost", error)) return std::nullopt;
    if (nodes[*source].isBackward && !nodes[*dest].isBackward) {
      *error = where() + ": edge from backward node " + std::to_string(edge.sourceId) +
               " to forward node " + std::to_string(edge.destId) + " is not allowed";
      return std::nullopt;
    }
    if (costEdge[*source] < 0) {
      costEdge[*source] = static_cast<std::int64_t>(e);
      w.outCost[*source] = edge.cost;
    } else if (!(std::fabs(edge.cost - w.outCost[*source]) <=
                 1e-9 * std::max(std::fabs(edge.cost), std::fabs(w.outCost[*source])))) {
      *error = where() + ": cost " + formatShortest(edge.cost) + " differs from cost " +
               formatShortest(w.outCost[*source]) + " of " +
               edgeLabel(costEdge[*source], edges[costEdge[*source]]) +
               "; all edges leaving a node must carry the same cost";
      return std::nullopt;
    }
    pairs.emplace_back(*source, *dest);
  }
  {
    std::vector<std::pair<NodeIndex, NodeIndex>> sorted = pairs;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    // Keep first-occurrence order for the edge list.
    std::vector<char> taken(sorted.size(), 0);
    for (const auto& p : pairs) {
      auto idx = std::lower_bound(sorted.begin(), sorted.end(), p) - sorted.begin();
      if (taken[idx]) continue;
      taken[idx] = 1;
      w.edges.push_back({p.first, p.second});
    }
  }

  // CSR adjacency in both directions.
  w.succStart_.assign(n + 1, 0);
  w.predStart_.assign(n + 1, 0);
  for (const Edge& e : w.edges) {
    ++w.succStart_[e.source + 1];
    ++w.predStart_[e.dest + 1];
  }
  for (int v = 0; v < n; ++v) {
    w.succStart_[v + 1] += w.succStart_[v];
    w.predStart_[v + 1] += w.predStart_[v];
  }
  w.succ_.resize(w.edges.size());
  w.pred_.resize(w.edges.size());
  {
    std::vector<std::int32_t> sFill(w.succStart_.begin(), w.succStart_.end() - 1);
    std::vector<std::int32_t> pFill(w.predStart_.begin(), w.predStart_.end() - 1);
    for (const Edge& e : w.edges) {
      w.succ_[sFill[e.source]++] = e.dest;
      w.pred_[pFill[e.dest]++] = e.source;
    }
  }

  std::vector<int> inDegree(n);
  for (int v = 0; v < n; ++v) inDegree[v] = w.predStart_[v + 1] - w.predStart_[v];
  w.topologicalOrder = topologicalOrder(n, w.succStart_, w.succ_, &inDegree);
  if (static_cast<int>(w.topologicalOrder.size()) != n) {
    *error = file + ": the graph has a directed cycle through node ids " +
             describeCycle(nodes, w.predStart_, w.pred_, inDegree);
    return std::nullopt;
  }

  // Class membership lists.
  w.classStart_.assign(w.numClasses + 1, 0);
  for (int v = 0; v < n; ++v) ++w.classStart_[w.classOf[v] + 1];
  for (int c = 0; c < w.numClasses; ++c) w.classStart_[c + 1] += w.classStart_[c];
  w.classNodes_.resize(n);
  {
    std::vector<std::int32_t> fill(w.classStart_.begin(), w.classStart_.end() - 1);
    for (int v = 0; v < n; ++v) w.classNodes_[fill[w.classOf[v]]++] = v;
  }
  w.nodes = std::move(nodes);
  return Workload(std::move(name), machine, std::move(graph));
}

}  // namespace dnnplace
