#include "objective/latency.hpp"

#include <algorithm>
#include <utility>

namespace dnnplace::objective {

std::vector<int> pieceIndices(const Workload& w, const Placement& p) {
  const int n = w.numNodes();
  const std::vector<NodeIndex>& order = w.graph().topologicalOrder;
  // Each accelerator's levels are needed only between its first and last
  // node in the order: nothing before its first node follows one of its
  // nodes (level 0 there), and nothing after its last is one of them. So the
  // walks cost the accelerators' spans, not the accelerators times the graph.
  std::vector<int> first(p.numAccelerators, n), last(p.numAccelerators, -1);
  for (int i = 0; i < n; ++i) {
    const int d = p.deviceOf[order[i]];
    if (!p.isAccelerator(d)) continue;
    first[d] = std::min(first[d], i);
    last[d] = i;
  }
  std::vector<int> piece(n, 0), level(n, 0), levelOf(n, -1);  // levelOf[v]: whose level[v] is
  for (int a = 0; a < p.numAccelerators; ++a) {
    // level[v]: the largest number of maximal runs inside a on a path ending at v.
    for (int i = first[a]; i <= last[a]; ++i) {
      const NodeIndex v = order[i];
      const bool inside = p.deviceOf[v] == a;
      int best = inside ? 1 : 0;
      for (NodeIndex u : w.predecessors(v)) {
        const bool uInside = p.deviceOf[u] == a;
        best = std::max(best, (levelOf[u] == a ? level[u] : 0) + (inside && !uInside ? 1 : 0));
      }
      level[v] = best;
      levelOf[v] = a;
      if (inside) piece[v] = best;
    }
  }
  return piece;
}

std::optional<double> latencyOf(const Workload& w, const Placement& p, int q) {
  const int n = w.numNodes();
  const std::vector<int> piece = pieceIndices(w, p);
  // Tasks: the pieces each accelerator uses, in order, then one per node
  // (the CPU nodes' own; an accelerator node's stays empty).
  std::vector<int> pieces(p.numAccelerators, 0);
  for (int v = 0; v < n; ++v) {
    if (piece[v] > q) return std::nullopt;
    if (piece[v] > 0) pieces[p.deviceOf[v]] = std::max(pieces[p.deviceOf[v]], piece[v]);
  }
  std::vector<int> firstTask(p.numAccelerators + 1, 0);
  for (int a = 0; a < p.numAccelerators; ++a) firstTask[a + 1] = firstTask[a] + pieces[a];
  const int pieceTasks = firstTask[p.numAccelerators];
  auto taskOf = [&](NodeIndex v) {
    return piece[v] > 0 ? firstTask[p.deviceOf[v]] + piece[v] - 1 : pieceTasks + v;
  };
  const int tasks = pieceTasks + n;
  std::vector<double> duration(tasks, 0);
  for (NodeIndex v = 0; v < n; ++v)
    duration[taskOf(v)] += piece[v] > 0 ? w.graph().nodes[v].fpgaLatency
                                        : w.graph().nodes[v].cpuLatency;
  // Dependencies (t waits for s) as a list, then grouped by s.
  std::vector<std::pair<int, int>> waits;
  std::vector<NodeIndex> paidBy(tasks, -1);  // the last sender a receiving piece paid for
  for (NodeIndex u = 0; u < n; ++u) {
    const int tu = taskOf(u);
    bool paidOut = false;
    for (NodeIndex x : w.successors(u)) {
      const int tx = taskOf(x);
      if (tx == tu) continue;
      waits.emplace_back(tu, tx);
      if (piece[u] > 0 && !paidOut) {
        paidOut = true;
        duration[tu] += w.graph().outCost[u];
      }
      if (piece[x] > 0 && paidBy[tx] != u) {
        paidBy[tx] = u;
        duration[tx] += w.graph().outCost[u];
      }
    }
  }
  for (int a = 0; a < p.numAccelerators; ++a)
    for (int t = firstTask[a] + 1; t < firstTask[a + 1]; ++t) waits.emplace_back(t - 1, t);
  std::vector<int> afterStart(tasks + 1, 0), after(waits.size()), waiting(tasks, 0);
  for (const auto& [s, t] : waits) {
    ++afterStart[s + 1];
    ++waiting[t];
  }
  for (int t = 0; t < tasks; ++t) afterStart[t + 1] += afterStart[t];
  {
    std::vector<int> next(afterStart.begin(), afterStart.end() - 1);
    for (const auto& [s, t] : waits) after[next[s]++] = t;
  }
  std::vector<double> start(tasks, 0);
  std::vector<int> ready;
  for (int t = 0; t < tasks; ++t)
    if (waiting[t] == 0) ready.push_back(t);
  int done = 0;
  double latency = 0;
  while (!ready.empty()) {
    const int t = ready.back();
    ready.pop_back();
    ++done;
    const double finish = start[t] + duration[t];
    latency = std::max(latency, finish);
    for (int i = afterStart[t]; i < afterStart[t + 1]; ++i) {
      const int s = after[i];
      start[s] = std::max(start[s], finish);
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  if (done < tasks) return std::nullopt;
  return latency;
}

}  // namespace dnnplace::objective
