#include "objective/latency.hpp"

#include <algorithm>

namespace dnnplace::objective {

std::vector<int> pieceIndices(const Workload& w, const Placement& p) {
  const int n = w.numNodes();
  std::vector<int> piece(n, 0), level(n, 0);
  std::vector<char> used(p.numAccelerators, 0);
  for (NodeIndex v = 0; v < n; ++v)
    if (p.isAccelerator(p.deviceOf[v])) used[p.deviceOf[v]] = 1;
  for (int a = 0; a < p.numAccelerators; ++a) {
    if (!used[a]) continue;
    // level[v]: the largest number of maximal runs inside a on a path ending at v.
    for (NodeIndex v : w.graph().topologicalOrder) {
      const bool inside = p.deviceOf[v] == a;
      int best = inside ? 1 : 0;
      for (NodeIndex u : w.predecessors(v)) {
        const bool uInside = p.deviceOf[u] == a;
        best = std::max(best, level[u] + (inside && !uInside ? 1 : 0));
      }
      level[v] = best;
      if (inside) piece[v] = best;
    }
  }
  return piece;
}

std::optional<double> latencyOf(const Workload& w, const Placement& p, int q) {
  const int n = w.numNodes();
  const std::vector<int> piece = pieceIndices(w, p);
  for (int v = 0; v < n; ++v)
    if (piece[v] > q) return std::nullopt;
  // Tasks: accelerator pieces (a*q + piece-1), then one per CPU node.
  const int pieceTasks = p.numAccelerators * q;
  auto taskOf = [&](NodeIndex v) {
    return piece[v] > 0 ? p.deviceOf[v] * q + piece[v] - 1 : pieceTasks + v;
  };
  const int tasks = pieceTasks + n;
  std::vector<double> duration(tasks, 0);
  std::vector<std::vector<int>> after(tasks);  // after[t]: tasks that wait for t
  for (NodeIndex v = 0; v < n; ++v)
    duration[taskOf(v)] += piece[v] > 0 ? w.graph().nodes[v].fpgaLatency
                                        : w.graph().nodes[v].cpuLatency;
  std::vector<NodeIndex> paidBy(tasks, -1);  // the last sender a receiving piece paid for
  for (NodeIndex u = 0; u < n; ++u) {
    const int tu = taskOf(u);
    bool paidOut = false;
    for (NodeIndex x : w.successors(u)) {
      const int tx = taskOf(x);
      if (tx == tu) continue;
      after[tu].push_back(tx);
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
    for (int j = 1; j < q; ++j) after[a * q + j - 1].push_back(a * q + j);
  std::vector<int> waiting(tasks, 0);
  for (int t = 0; t < tasks; ++t)
    for (int s : after[t]) ++waiting[s];
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
    for (int s : after[t]) {
      start[s] = std::max(start[s], finish);
      if (--waiting[s] == 0) ready.push_back(s);
    }
  }
  if (done < tasks) return std::nullopt;
  return latency;
}

}  // namespace dnnplace::objective
