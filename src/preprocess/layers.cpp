// Layer contraction (solve --contract-layers, import onnx --granularity layer).

#include "preprocess/layers.hpp"

#include <map>
#include <set>
#include <utility>

#include "dnnplace/import.hpp"
#include "util/scc.hpp"
#include "util/union_find.hpp"

namespace dnnplace {

namespace {

/// The members' names' common scope ("/layer1/layer1.0/conv1" of
/// "/layer1/layer1.0/conv1/Conv" and ".../Relu"), or the first name.
std::string layerName(const std::vector<Node>& nodes, const std::vector<NodeIndex>& members) {
  const std::string& first = nodes[members.front()].name;
  if (members.size() == 1) return first;
  std::size_t common = first.size();
  for (NodeIndex v : members) {
    const std::string& name = nodes[v].name;
    std::size_t i = 0;
    while (i < common && i < name.size() && name[i] == first[i]) ++i;
    common = i;
  }
  const std::size_t slash = first.rfind('/', common);
  if (slash != std::string::npos && slash > 0)
    return first.substr(0, slash) + (nodes[members.front()].isBackward ? " (backward)" : "");
  return first + " (+" + std::to_string(members.size() - 1) + ")";
}

}  // namespace

std::optional<LayerFusion> fuseLayers(const Workload& workload, std::string* error) {
  const Graph& graph = workload.graph();
  const int n = graph.numNodes();
  // Groups in order of their first member: one per (layerId, direction),
  // one per node without a layerId.
  std::map<std::pair<std::int64_t, bool>, int> groupOfLayer;
  std::vector<std::vector<NodeIndex>> groups;
  LayerFusion fusion;
  fusion.fusedOf.resize(n);
  for (NodeIndex v = 0; v < n; ++v) {
    const Node& node = graph.nodes[v];
    int group = static_cast<int>(groups.size());
    if (node.layerId) {
      const auto [it, added] = groupOfLayer.try_emplace({*node.layerId, node.isBackward}, group);
      group = it->second;
      if (added) groups.emplace_back();
    } else {
      groups.emplace_back();
    }
    groups[group].push_back(v);
    fusion.fusedOf[v] = group;
  }
  // Layers on a directed cycle (one layer's operators both before and after
  // another's) cannot be fused apart: fuse them together.
  {
    std::vector<std::vector<int>> next(groups.size());
    for (NodeIndex u = 0; u < n; ++u)
      for (NodeIndex w : graph.successors(u))
        if (fusion.fusedOf[u] != fusion.fusedOf[w])
          next[fusion.fusedOf[u]].push_back(fusion.fusedOf[w]);
    int numComponents = 0;
    const std::vector<int> component = stronglyConnectedComponents(next, &numComponents);
    if (numComponents < static_cast<int>(groups.size())) {
      fusion.layersFusedByCycles = static_cast<int>(groups.size()) - numComponents;
      std::vector<int> renumbered(numComponents, -1);
      groups.clear();
      for (NodeIndex v = 0; v < n; ++v) {
        int& group = renumbered[component[fusion.fusedOf[v]]];
        if (group < 0) {
          group = static_cast<int>(groups.size());
          groups.emplace_back();
        }
        groups[group].push_back(v);
        fusion.fusedOf[v] = group;
      }
    }
  }
  const int m = static_cast<int>(groups.size());

  // Color classes: a group joins the classes of all its members.
  UnionFind classes(m);
  std::vector<int> firstGroupOfClass(graph.numClasses, -1);
  for (NodeIndex v = 0; v < n; ++v) {
    int& first = firstGroupOfClass[graph.classOf[v]];
    if (first < 0)
      first = fusion.fusedOf[v];
    else
      classes.unite(first, fusion.fusedOf[v]);
  }
  std::vector<int> setSize(m, 0);
  for (int g = 0; g < m; ++g) ++setSize[classes.find(g)];

  std::vector<Node> nodes(m);
  for (int g = 0; g < m; ++g) {
    const std::vector<NodeIndex>& members = groups[g];
    Node& fused = nodes[g];
    const Node& first = graph.nodes[members.front()];
    fused.id = first.id;
    fused.isBackward = first.isBackward;
    fused.layerId = first.layerId;
    fused.name = layerName(graph.nodes, members);
    for (NodeIndex v : members) {
      const Node& node = graph.nodes[v];
      fused.supportedOnFpga = fused.supportedOnFpga && node.supportedOnFpga;
      fused.cpuLatency += node.cpuLatency;
      fused.fpgaLatency += node.fpgaLatency;
      fused.size += node.size;
      fused.parameterSize += node.parameterSize;
    }
    // Fresh class numbers (a group's root), so that no old number meets a new one.
    const int root = classes.find(g);
    if (setSize[root] > 1) fused.colorClass = root;
  }

  // Edges between groups; a group pays the cost of each member with an edge out of it.
  std::set<std::pair<int, int>> arcs;  // ordered: the fused graph's edge order is deterministic
  std::vector<double> cost(m, 0);
  for (NodeIndex u = 0; u < n; ++u) {
    bool leaves = false;
    for (NodeIndex w : graph.successors(u)) {
      const int from = fusion.fusedOf[u], to = fusion.fusedOf[w];
      if (from == to) continue;
      leaves = true;
      arcs.insert({from, to});
    }
    if (leaves) cost[fusion.fusedOf[u]] += graph.outCost[u];
  }
  std::vector<RawEdge> edges;
  for (const auto& [from, to] : arcs) edges.push_back({nodes[from].id, nodes[to].id, cost[from]});

  std::string why;
  auto fused = buildWorkload(workload.name, workload.machine, std::move(nodes), edges, &why);
  if (!fused) {
    *error = workload.name + ": contracting layers: " + why;
    return std::nullopt;
  }
  fusion.workload = std::move(*fused);
  return fusion;
}

std::optional<Workload> contractLayers(const Workload& workload, std::string* error) {
  auto fusion = fuseLayers(workload, error);
  if (!fusion) return std::nullopt;
  return std::move(fusion->workload);
}

}  // namespace dnnplace
