#include "preprocess/contraction.hpp"

#include <algorithm>
#include <compare>
#include <functional>
#include <queue>
#include <span>
#include <tuple>
#include <utility>

#include "util/union_find.hpp"

namespace dnnplace {

namespace {

using ClassEdge = std::pair<int, int>;

/// Sorted, distinct (source, target) pairs as adjacency lists in one array
/// (a graph of a few hundred groups is built several times per solve: one
/// allocation each, not one per group).
struct Adjacency {
  std::vector<int> start, targets;
  Adjacency(int numVertices, const std::vector<std::pair<int, int>>& arcs) : start(numVertices + 1, 0) {
    targets.reserve(arcs.size());
    for (auto [a, b] : arcs) {
      ++start[a + 1];
      targets.push_back(b);
    }
    for (int v = 0; v < numVertices; ++v) start[v + 1] += start[v];
  }
  std::span<const int> operator[](int v) const {
    return {targets.data() + start[v], targets.data() + start[v + 1]};
  }
};

/// The current union-find roots' arcs, sorted and distinct (no loops);
/// `undirected`: smaller root first.
std::vector<std::pair<int, int>> groupArcs(UnionFind& groups, const std::vector<ClassEdge>& classEdges,
                                           bool undirected) {
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(classEdges.size());
  for (auto [a, b] : classEdges) {
    const int ga = groups.find(a), gb = groups.find(b);
    if (ga != gb) arcs.push_back(undirected && gb < ga ? std::pair{gb, ga} : std::pair{ga, gb});
  }
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  return arcs;
}

/// Directed group graph: adjacency of the current union-find roots.
Adjacency groupSuccessors(UnionFind& groups, int numClasses, const std::vector<ClassEdge>& classEdges) {
  return Adjacency(numClasses, groupArcs(groups, classEdges, false));
}

/// Step 3: fuses every strongly connected component of the group graph
/// (iterative Tarjan). Returns how many classes' groups were absorbed.
int fuseCycles(UnionFind& groups, int numClasses, const std::vector<ClassEdge>& classEdges) {
  const auto out = groupSuccessors(groups, numClasses, classEdges);
  std::vector<int> index(numClasses, -1), low(numClasses, 0), stack;
  std::vector<char> onStack(numClasses, 0);
  std::vector<std::pair<int, std::size_t>> frames;
  std::vector<std::vector<int>> components;
  int counter = 0;
  for (int root = 0; root < numClasses; ++root) {
    if (groups.find(root) != root || index[root] != -1) continue;
    frames.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    onStack[root] = 1;
    while (!frames.empty()) {
      auto& [v, next] = frames.back();
      if (next < out[v].size()) {
        const int w = out[v][next++];
        if (index[w] == -1) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          onStack[w] = 1;
          frames.push_back({w, 0});
        } else if (onStack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const int finished = v;
      frames.pop_back();
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[finished]);
      if (low[finished] == index[finished]) {
        std::vector<int> component;
        int w;
        do {
          w = stack.back();
          stack.pop_back();
          onStack[w] = 0;
          component.push_back(w);
        } while (w != finished);
        if (component.size() > 1) components.push_back(std::move(component));
      }
    }
  }
  int absorbed = 0;
  for (const auto& component : components)
    for (std::size_t i = 1; i < component.size(); ++i)
      absorbed += groups.unite(component[0], component[i]) ? 1 : 0;
  return absorbed;
}

/// PipeDream emulation: biconnected components of the undirected group graph
/// (iterative Hopcroft–Tarjan over an edge stack); the sources of each
/// component's edges are united. Returns how many groups were absorbed.
int mergeBiconnectedSources(UnionFind& groups, int numClasses,
                            const std::vector<ClassEdge>& classEdges) {
  const auto out = groupSuccessors(groups, numClasses, classEdges);
  struct UndirectedEdge {
    int source, dest;
  };
  std::vector<UndirectedEdge> edges;
  std::vector<std::vector<std::pair<int, int>>> adjacency(numClasses);  // (neighbour, edge)
  for (int v = 0; v < numClasses; ++v)
    for (int w : out[v]) {
      const int id = static_cast<int>(edges.size());
      edges.push_back({v, w});
      adjacency[v].push_back({w, id});
      adjacency[w].push_back({v, id});
    }
  std::vector<int> discovered(numClasses, -1), low(numClasses, 0), edgeStack;
  struct Frame {
    int vertex, parentEdge;
    std::size_t next;
  };
  std::vector<Frame> frames;
  std::vector<std::vector<int>> sourceSets;
  int counter = 0;
  for (int root = 0; root < numClasses; ++root) {
    if (groups.find(root) != root || discovered[root] != -1) continue;
    discovered[root] = low[root] = counter++;
    frames.push_back({root, -1, 0});
    while (!frames.empty()) {
      Frame& frame = frames.back();
      const int v = frame.vertex;
      if (frame.next < adjacency[v].size()) {
        const auto [w, edge] = adjacency[v][frame.next++];
        if (edge == frame.parentEdge) continue;
        if (discovered[w] == -1) {
          edgeStack.push_back(edge);
          discovered[w] = low[w] = counter++;
          frames.push_back({w, edge, 0});
        } else if (discovered[w] < discovered[v]) {
          edgeStack.push_back(edge);
          low[v] = std::min(low[v], discovered[w]);
        }
        continue;
      }
      const int treeEdge = frame.parentEdge;
      frames.pop_back();
      if (frames.empty()) break;
      const int parent = frames.back().vertex;
      low[parent] = std::min(low[parent], low[v]);
      if (low[v] >= discovered[parent]) {
        std::vector<int> sources;
        int edge;
        do {
          edge = edgeStack.back();
          edgeStack.pop_back();
          sources.push_back(edges[edge].source);
        } while (edge != treeEdge);
        sourceSets.push_back(std::move(sources));
      }
    }
  }
  int absorbed = 0;
  for (const auto& sources : sourceSets)
    for (std::size_t i = 1; i < sources.size(); ++i)
      absorbed += groups.unite(sources[0], sources[i]) ? 1 : 0;
  return absorbed;
}

/// A topological numbering of the vertices v with isVertex[v] of a DAG
/// (successors of v: targets[start[v] .. start[v + 1])), ties broken as
/// `order` says by firstNode[v], the smallest original node of v (distinct
/// per vertex). -1 for the others; *numbered: how many were numbered.
std::vector<int> numberTopologically(std::span<const int> start, std::span<const int> targets,
                                     const std::vector<int>& firstNode,
                                     const std::vector<char>& isVertex, ContractionOptions::Order order,
                                     int* numbered) {
  const int numVertices = static_cast<int>(isVertex.size());
  auto out = [&](int v) { return targets.subspan(start[v], start[v + 1] - start[v]); };
  std::vector<int> inDegree(numVertices, 0);
  for (int g = 0; g < numVertices; ++g)
    for (int w : out(g)) ++inDegree[w];
  using Ready = std::pair<int, int>;  // (first original node, vertex)
  std::vector<int> numberOf(numVertices, -1);
  *numbered = 0;
  if (order != ContractionOptions::Order::DepthFirst) {
    // Key: (depth, first original node, vertex); depth stays 0 unless breadth-first.
    const bool breadth = order == ContractionOptions::Order::BreadthFirst;
    std::vector<int> depth(numVertices, 0);
    using Key = std::tuple<int, int, int>;
    std::priority_queue<Key, std::vector<Key>, std::greater<>> ready;
    for (int g = 0; g < numVertices; ++g)
      if (isVertex[g] && inDegree[g] == 0) ready.push({0, firstNode[g], g});
    while (!ready.empty()) {
      const int g = std::get<2>(ready.top());
      ready.pop();
      numberOf[g] = (*numbered)++;
      for (int w : out(g)) {
        if (breadth) depth[w] = std::max(depth[w], depth[g] + 1);
        if (--inDegree[w] == 0) ready.push({depth[w], firstNode[w], w});
      }
    }
  } else {
    // Depth-first: a stack; successors readied together go smallest on top.
    std::vector<Ready> stack, readied;
    for (int g = numVertices - 1; g >= 0; --g)
      if (isVertex[g] && inDegree[g] == 0) stack.push_back({firstNode[g], g});
    std::sort(stack.begin(), stack.end(), std::greater<>());
    while (!stack.empty()) {
      const int g = stack.back().second;
      stack.pop_back();
      numberOf[g] = (*numbered)++;
      readied.clear();
      for (int w : out(g))
        if (--inDegree[w] == 0) readied.push_back({firstNode[w], w});
      std::sort(readied.begin(), readied.end(), std::greater<>());
      stack.insert(stack.end(), readied.begin(), readied.end());
    }
  }
  return numberOf;
}

/// The forward DAG's CSR arrays from sorted, distinct (source, target) pairs.
void setEdges(ContractedGraph& graph, const std::vector<std::pair<int, int>>& superEdges) {
  const int n = graph.numSuperNodes;
  graph.succStart.assign(n + 1, 0);
  graph.predStart.assign(n + 1, 0);
  for (auto [a, b] : superEdges) {
    ++graph.succStart[a + 1];
    ++graph.predStart[b + 1];
  }
  for (int s = 0; s < n; ++s) {
    graph.succStart[s + 1] += graph.succStart[s];
    graph.predStart[s + 1] += graph.predStart[s];
  }
  graph.succ.resize(superEdges.size());
  graph.pred.resize(superEdges.size());
  std::vector<std::int32_t> fillSucc(graph.succStart.begin(), graph.succStart.end() - 1);
  std::vector<std::int32_t> fillPred(graph.predStart.begin(), graph.predStart.end() - 1);
  for (auto [a, b] : superEdges) {
    graph.succ[fillSucc[a]++] = b;
    graph.pred[fillPred[b]++] = a;
  }
}

/// The hyperedges per super-node (in hyperedge order) from hyperStart and hyperNodes.
void setIncidence(ContractedGraph& graph) {
  const int n = graph.numSuperNodes;
  graph.incidenceStart.assign(n + 1, 0);
  for (int s : graph.hyperNodes) ++graph.incidenceStart[s + 1];
  for (int s = 0; s < n; ++s) graph.incidenceStart[s + 1] += graph.incidenceStart[s];
  graph.incidence.assign(graph.hyperNodes.size(), 0);
  std::vector<std::int32_t> fill(graph.incidenceStart.begin(), graph.incidenceStart.end() - 1);
  for (std::size_t h = 0; h + 1 < graph.hyperStart.size(); ++h)
    for (int i = graph.hyperStart[h]; i < graph.hyperStart[h + 1]; ++i)
      graph.incidence[fill[graph.hyperNodes[i]]++] = static_cast<std::int32_t>(h);
}

}  // namespace

ContractedGraph contractWorkload(const Workload& workload, const ContractionOptions& options) {
  const int numNodes = workload.numNodes();
  const int numClasses = workload.graph().numClasses;
  ContractedGraph graph;

  // Step 1–2: classes stand for their forward super-node; a class with only
  // backward nodes (orphan) gets an artificial forward twin, i.e. it is still
  // a forward vertex here, tied by mirrored backward edges.
  std::vector<char> hasForward(numClasses, 0), hasBackward(numClasses, 0);
  for (NodeIndex v = 0; v < numNodes; ++v)
    (workload.graph().nodes[v].isBackward ? hasBackward : hasForward)[workload.graph().classOf[v]] = 1;
  for (int c = 0; c < numClasses; ++c)
    if (!hasForward[c] && hasBackward[c]) ++graph.artificialTwins;

  std::vector<ClassEdge> classEdges;
  for (const Edge& edge : workload.graph().edges) {
    const bool sourceBackward = workload.graph().nodes[edge.source].isBackward;
    const bool destBackward = workload.graph().nodes[edge.dest].isBackward;
    const int cs = workload.graph().classOf[edge.source], cd = workload.graph().classOf[edge.dest];
    if (cs == cd) continue;
    if (!sourceBackward && !destBackward) {
      classEdges.push_back({cs, cd});
    } else if (sourceBackward && destBackward && (!hasForward[cs] || !hasForward[cd])) {
      classEdges.push_back({cd, cs});  // mirror image: twin(b2) -> twin(b1)
    }
  }

  UnionFind groups(numClasses);
  graph.classesFusedByCycles = fuseCycles(groups, numClasses, classEdges);
  if (options.mergeBiconnected) {
    graph.classesMergedBiconnected = mergeBiconnectedSources(groups, numClasses, classEdges);
    graph.classesFusedByCycles += fuseCycles(groups, numClasses, classEdges);
  }

  // Step 4: zero-work leaves.
  if (options.mergeZeroWorkLeaves) {
    std::vector<double> work(numClasses, 0);
    std::vector<char> touchesBackward(numClasses, 0);
    for (NodeIndex v = 0; v < numNodes; ++v)
      work[groups.find(workload.graph().classOf[v])] += workload.graph().nodes[v].cpuLatency +
                                                        workload.graph().nodes[v].fpgaLatency;
    for (const Edge& edge : workload.graph().edges) {
      const bool sb = workload.graph().nodes[edge.source].isBackward;
      const bool db = workload.graph().nodes[edge.dest].isBackward;
      if (sb != db) touchesBackward[groups.find(workload.graph().classOf[edge.source])] = 1;
    }
    // Distinct neighbours: their number, and their XOR, which is the
    // neighbour itself when there is one.
    const std::vector<std::pair<int, int>> pairs = groupArcs(groups, classEdges, true);
    std::vector<int> degree(numClasses, 0), neighbourXor(numClasses, 0);
    for (auto [a, b] : pairs) {
      ++degree[a];
      ++degree[b];
      neighbourXor[a] ^= b;
      neighbourXor[b] ^= a;
    }
    std::vector<int> rootBefore(numClasses);
    for (int c = 0; c < numClasses; ++c) rootBefore[c] = groups.find(c);
    std::vector<char> alive(numClasses, 0);
    for (int c = 0; c < numClasses; ++c) alive[groups.find(c)] = 1;
    auto isLeaf = [&](int g) {
      return alive[g] && work[g] == 0 && !touchesBackward[g] && degree[g] == 1;
    };
    std::vector<int> pending;  // first in, first out
    for (int g = 0; g < numClasses; ++g)
      if (isLeaf(g)) pending.push_back(g);
    for (std::size_t next = 0; next < pending.size(); ++next) {
      const int leaf = pending[next];
      if (!isLeaf(leaf)) continue;
      const int into = neighbourXor[leaf];
      --degree[into];
      neighbourXor[into] ^= leaf;
      degree[leaf] = neighbourXor[leaf] = 0;
      alive[leaf] = 0;
      groups.attach(leaf, into);
      ++graph.zeroWorkLeavesMerged;
      if (isLeaf(into)) pending.push_back(into);
    }
    for (NodeIndex v = 0; v < numNodes; ++v) {
      const int c = workload.graph().classOf[v];
      if (groups.find(c) != rootBefore[c] || !alive[rootBefore[c]]) {
        graph.zeroWorkLeafBytes += workload.graph().nodes[v].size;
        if (!workload.graph().nodes[v].supportedOnFpga) graph.zeroWorkLeafUnsupported = true;
      }
    }
  }

  // Number the groups topologically; ties go to the smallest original node.
  std::vector<int> firstNode(numClasses, numNodes);
  for (NodeIndex v = numNodes - 1; v >= 0; --v) firstNode[groups.find(workload.graph().classOf[v])] = v;
  const Adjacency out = groupSuccessors(groups, numClasses, classEdges);
  std::vector<char> isGroup(numClasses, 0);
  for (int g = 0; g < numClasses; ++g) isGroup[g] = groups.find(g) == g;
  int numbered = 0;
  const std::vector<int> numberOf =
      numberTopologically(out.start, out.targets, firstNode, isGroup, options.order, &numbered);
  const int n = numbered;
  graph.numSuperNodes = n;

  graph.superOf.resize(numNodes);
  graph.memberStart.assign(n + 1, 0);
  graph.fpgaLatency.assign(n, 0);
  graph.cpuLatency.assign(n, 0);
  graph.size.assign(n, 0);
  graph.supportedOnFpga.assign(n, 1);
  for (NodeIndex v = 0; v < numNodes; ++v) {
    const int s = numberOf[groups.find(workload.graph().classOf[v])];
    graph.superOf[v] = s;
    ++graph.memberStart[s + 1];
    const Node& node = workload.graph().nodes[v];
    graph.fpgaLatency[s] += node.fpgaLatency;
    graph.cpuLatency[s] += node.cpuLatency;
    graph.size[s] += node.size;
    if (!node.supportedOnFpga) graph.supportedOnFpga[s] = 0;
  }
  for (int s = 0; s < n; ++s) graph.memberStart[s + 1] += graph.memberStart[s];
  graph.members.resize(numNodes);
  {
    std::vector<std::int32_t> fill(graph.memberStart.begin(), graph.memberStart.end() - 1);
    for (NodeIndex v = 0; v < numNodes; ++v) graph.members[fill[graph.superOf[v]]++] = v;
  }

  std::vector<std::pair<int, int>> superEdges;
  for (int g = 0; g < numClasses; ++g)
    for (int w : out[g]) superEdges.push_back({numberOf[g], numberOf[w]});
  if (options.linearize)
    for (int s = 0; s + 1 < n; ++s) superEdges.push_back({s, s + 1});
  std::sort(superEdges.begin(), superEdges.end());
  superEdges.erase(std::unique(superEdges.begin(), superEdges.end()), superEdges.end());
  setEdges(graph, superEdges);

  // Communication hypergraph on the original edges: one hyperedge per
  // distinct set of super-nodes an output reaches (at least two), numbered
  // by first appearance, its weight summed in node order. The sets go into
  // one array and are grouped by sorting, not by a map of vectors: this runs
  // in every solve, and allocations dominate it on graphs of a few hundred nodes.
  struct Touch {
    std::size_t begin, end;  ///< the set in `flat`
    NodeIndex node;
  };
  std::vector<std::int32_t> flat;
  std::vector<Touch> touches;
  for (NodeIndex u = 0; u < numNodes; ++u) {
    const auto successors = workload.successors(u);
    if (successors.empty() || workload.graph().outCost[u] <= 0) continue;
    const std::size_t begin = flat.size();
    flat.push_back(graph.superOf[u]);
    for (NodeIndex w : successors) flat.push_back(graph.superOf[w]);
    std::sort(flat.begin() + static_cast<std::ptrdiff_t>(begin), flat.end());
    flat.erase(std::unique(flat.begin() + static_cast<std::ptrdiff_t>(begin), flat.end()), flat.end());
    if (flat.size() - begin < 2) {
      flat.resize(begin);
      continue;
    }
    touches.push_back({begin, flat.size(), u});
  }
  auto setOf = [&](std::size_t t) {
    return std::span<const std::int32_t>(flat.data() + touches[t].begin, flat.data() + touches[t].end);
  };
  std::vector<std::size_t> bySet(touches.size());
  for (std::size_t t = 0; t < touches.size(); ++t) bySet[t] = t;
  std::sort(bySet.begin(), bySet.end(), [&](std::size_t a, std::size_t b) {
    const auto order = std::lexicographical_compare_three_way(setOf(a).begin(), setOf(a).end(),
                                                              setOf(b).begin(), setOf(b).end());
    return order != 0 ? order < 0 : a < b;
  });
  // Each touch's first touch with the same set; hyperedges in order of those.
  std::vector<std::size_t> firstOf(touches.size());
  for (std::size_t i = 0; i < bySet.size(); ++i) {
    const bool same = i > 0 && std::ranges::equal(setOf(bySet[i]), setOf(bySet[i - 1]));
    firstOf[bySet[i]] = same ? firstOf[bySet[i - 1]] : bySet[i];
  }
  std::vector<std::int32_t> hyperOf(touches.size());
  std::vector<std::size_t> representative;  ///< per hyperedge: its first touch
  for (std::size_t t = 0; t < touches.size(); ++t) {
    if (firstOf[t] == t) {
      hyperOf[t] = static_cast<std::int32_t>(representative.size());
      representative.push_back(t);
      graph.hyperWeight.push_back(0);
    } else {
      hyperOf[t] = hyperOf[firstOf[t]];
    }
    graph.hyperWeight[hyperOf[t]] += workload.graph().outCost[touches[t].node];
  }
  graph.hyperStart.assign(1, 0);
  for (std::size_t t : representative) {
    const auto set = setOf(t);
    graph.hyperNodes.insert(graph.hyperNodes.end(), set.begin(), set.end());
    graph.hyperStart.push_back(static_cast<std::int32_t>(graph.hyperNodes.size()));
  }
  setIncidence(graph);
  return graph;
}

ContractedGraph renumberContracted(const ContractedGraph& graph, ContractionOptions::Order order) {
  const int n = graph.numSuperNodes;
  std::vector<int> firstNode(n);
  for (int s = 0; s < n; ++s) firstNode[s] = graph.members[graph.memberStart[s]];
  int numbered = 0;
  const std::vector<int> numberOf = numberTopologically(graph.succStart, graph.succ, firstNode,
                                                        std::vector<char>(n, 1), order, &numbered);
  std::vector<int> oldOf(n);
  for (int s = 0; s < n; ++s) oldOf[numberOf[s]] = s;

  // A copy (the counters of what preprocessing did, the hyperedges' order
  // and weights stay), its per-super-node arrays then rebuilt in the new order.
  ContractedGraph renumbered = graph;
  for (std::int32_t& s : renumbered.superOf) s = numberOf[s];
  renumbered.memberStart.assign(1, 0);
  renumbered.members.clear();
  renumbered.fpgaLatency.clear();
  renumbered.cpuLatency.clear();
  renumbered.size.clear();
  renumbered.supportedOnFpga.clear();
  for (int t = 0; t < n; ++t) {
    const int s = oldOf[t];
    renumbered.members.insert(renumbered.members.end(), graph.members.begin() + graph.memberStart[s],
                              graph.members.begin() + graph.memberStart[s + 1]);
    renumbered.memberStart.push_back(static_cast<std::int32_t>(renumbered.members.size()));
    renumbered.fpgaLatency.push_back(graph.fpgaLatency[s]);
    renumbered.cpuLatency.push_back(graph.cpuLatency[s]);
    renumbered.size.push_back(graph.size[s]);
    renumbered.supportedOnFpga.push_back(graph.supportedOnFpga[s]);
  }
  std::vector<std::pair<int, int>> superEdges;
  superEdges.reserve(graph.succ.size());
  for (int s = 0; s < n; ++s)
    for (int i = graph.succStart[s]; i < graph.succStart[s + 1]; ++i)
      superEdges.push_back({numberOf[s], numberOf[graph.succ[i]]});
  std::sort(superEdges.begin(), superEdges.end());
  setEdges(renumbered, superEdges);
  // The same hyperedges in the same order, each set renamed and sorted again.
  for (std::int32_t& s : renumbered.hyperNodes) s = numberOf[s];
  for (std::size_t h = 0; h + 1 < graph.hyperStart.size(); ++h)
    std::sort(renumbered.hyperNodes.begin() + graph.hyperStart[h],
              renumbered.hyperNodes.begin() + graph.hyperStart[h + 1]);
  setIncidence(renumbered);
  return renumbered;
}

BlockTotals blockTotals(const Workload& workload, const ContractedGraph& graph,
                        const std::vector<std::int32_t>& superNodes) {
  BlockTotals totals;
  std::vector<char> inBlock(graph.numSuperNodes, 0);
  for (int s : superNodes) inBlock[s] = 1;
  for (int s : superNodes)
    for (int i = graph.memberStart[s]; i < graph.memberStart[s + 1]; ++i) {
      const Node& node = workload.graph().nodes[graph.members[i]];
      totals.fpgaLatency += node.fpgaLatency;
      totals.cpuLatency += node.cpuLatency;
      totals.size += node.size;
      if (!node.supportedOnFpga) totals.supportedOnFpga = false;
    }
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    const bool inside = inBlock[graph.superOf[u]];
    for (NodeIndex w : workload.successors(u))
      if (static_cast<bool>(inBlock[graph.superOf[w]]) != inside) {
        totals.communication += workload.graph().outCost[u];
        break;
      }
  }
  return totals;
}

namespace {
std::string listIds(const Workload& workload, const std::vector<NodeIndex>& nodes) {
  constexpr std::size_t kShown = 8;
  std::string text;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) {
    if (i) text += ", ";
    text += std::to_string(workload.graph().nodes[nodes[i]].id);
  }
  if (nodes.size() > kShown) text += ", … (" + std::to_string(nodes.size()) + " nodes)";
  return text;
}

std::string className(const Workload& workload, int cls) {
  const auto members = workload.classMembers(cls);
  const auto& node = workload.graph().nodes[members.front()];
  if (node.colorClass) return std::to_string(*node.colorClass);
  return "of node " + std::to_string(node.id);
}
}  // namespace

std::string describeClass(const Workload& workload, int cls) {
  const auto members = workload.classMembers(cls);
  std::vector<NodeIndex> nodes(members.begin(), members.end());
  const auto& first = workload.graph().nodes[nodes.front()];
  if (!first.colorClass) return "node " + std::to_string(first.id);
  return "class " + className(workload, cls) + " (node ids " + listIds(workload, nodes) + ")";
}

std::string describeSuperNode(const Workload& workload, const ContractedGraph& graph, int superNode) {
  std::vector<NodeIndex> nodes(graph.members.begin() + graph.memberStart[superNode],
                               graph.members.begin() + graph.memberStart[superNode + 1]);
  std::vector<int> classes;
  for (NodeIndex v : nodes) classes.push_back(workload.graph().classOf[v]);
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  if (classes.size() == 1) return describeClass(workload, classes.front());
  std::string text = "classes ";
  for (std::size_t i = 0; i < classes.size() && i < 8; ++i) {
    if (i) text += ", ";
    text += className(workload, classes[i]);
  }
  if (classes.size() > 8) text += ", …";
  return text + " (node ids " + listIds(workload, nodes) + ")";
}

}  // namespace dnnplace
