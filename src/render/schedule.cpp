#include "render/schedule.hpp"

#include <algorithm>
#include <map>

namespace dnnplace::render {

namespace {

/// Per node, its 1-based subgraph on its accelerator (0 elsewhere): 1 + how
/// many times a path ending at it re-enters its accelerator's set after
/// leaving it. reach[a] carries, along the topological order, the largest
/// subgraph of accelerator a met so far and whether the path has left a since.
std::vector<int> subgraphIndices(const Workload& workload, const Placement& placement) {
  const int n = workload.numNodes();
  std::vector<int> piece(n, 0);
  for (int a = 0; a < placement.numAccelerators; ++a) {
    bool used = false;
    for (NodeIndex v = 0; v < n && !used; ++v) used = placement.deviceOf[v] == a;
    if (!used) continue;
    // level[v]: largest subgraph index of a on a path to v (v in a: its own);
    // for v outside a, a path through v has left a, so re-entry adds one.
    std::vector<int> level(n, 0);
    for (const NodeIndex v : workload.graph().topologicalOrder) {
      const bool inside = placement.deviceOf[v] == a;
      int best = inside ? 1 : 0;
      for (const NodeIndex u : workload.predecessors(v)) {
        const bool uInside = placement.deviceOf[u] == a;
        const int reentry = (inside && !uInside && level[u] > 0) ? 1 : 0;
        best = std::max(best, level[u] + reentry);
      }
      level[v] = best;
      if (inside) piece[v] = best;
    }
  }
  return piece;
}

}  // namespace

std::optional<LatencySchedule> latencySchedule(const Workload& workload, const Placement& placement) {
  const int n = workload.numNodes();
  for (NodeIndex v = 0; v < n; ++v)
    if (placement.deviceOf[v] < 0 || placement.deviceOf[v] >= placement.numDevices())
      return std::nullopt;
  const std::vector<int> piece = subgraphIndices(workload, placement);
  LatencySchedule schedule;
  std::map<std::pair<int, int>, int> taskOfPiece;  // ordered: pieces of one device consecutive
  for (NodeIndex v = 0; v < n; ++v)
    if (piece[v] > 0) taskOfPiece.emplace(std::pair{placement.deviceOf[v], piece[v]}, 0);
  for (auto& [key, task] : taskOfPiece) {
    task = static_cast<int>(schedule.tasks.size());
    schedule.tasks.push_back({.device = key.first, .piece = key.second});
  }
  std::vector<int> taskOf(n);
  for (NodeIndex v = 0; v < n; ++v) {
    if (piece[v] > 0) {
      taskOf[v] = taskOfPiece[{placement.deviceOf[v], piece[v]}];
    } else {
      taskOf[v] = static_cast<int>(schedule.tasks.size());
      schedule.tasks.push_back({.device = placement.deviceOf[v], .node = v});
    }
    auto& task = schedule.tasks[taskOf[v]];
    ++task.numNodes;
    const Node& node = workload.graph().nodes[v];
    task.compute += piece[v] > 0 ? node.fpgaLatency : node.cpuLatency;
  }
  const int tasks = static_cast<int>(schedule.tasks.size());
  // Dependencies, and each subgraph's transfers: every source feeding it from
  // outside and every inside source sending out, once each.
  std::vector<std::vector<int>> before(tasks);
  std::vector<std::pair<int, NodeIndex>> paid;  // (task, source) pairs charged
  for (NodeIndex u = 0; u < n; ++u)
    for (const NodeIndex x : workload.successors(u)) {
      const int tu = taskOf[u], tx = taskOf[x];
      if (tu == tx) continue;
      before[tx].push_back(tu);
      if (piece[x] > 0) paid.emplace_back(tx, u);
      if (piece[u] > 0) paid.emplace_back(tu, u);
    }
  std::sort(paid.begin(), paid.end());
  paid.erase(std::unique(paid.begin(), paid.end()), paid.end());
  for (const auto& [t, u] : paid) schedule.tasks[t].communication += workload.graph().outCost[u];
  for (int t = 1; t < static_cast<int>(taskOfPiece.size()); ++t)
    if (schedule.tasks[t].device == schedule.tasks[t - 1].device) before[t].push_back(t - 1);

  // Longest paths over the task DAG (Kahn's order); a cycle leaves tasks unordered.
  std::vector<int> inDegree(tasks, 0), order;
  std::vector<std::vector<int>> after(tasks);
  for (int t = 0; t < tasks; ++t)
    for (const int s : before[t]) {
      after[s].push_back(t);
      ++inDegree[t];
    }
  for (int t = 0; t < tasks; ++t)
    if (inDegree[t] == 0) order.push_back(t);
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto& task = schedule.tasks[order[i]];
    task.finish = task.start + task.compute + task.communication;
    for (const int s : after[order[i]]) {
      schedule.tasks[s].start = std::max(schedule.tasks[s].start, task.finish);
      if (--inDegree[s] == 0) order.push_back(s);
    }
  }
  if (static_cast<int>(order.size()) < tasks) return std::nullopt;
  // The critical path: back from the last to finish, through a task that
  // finishes exactly when its successor starts.
  int last = -1;
  for (int t = 0; t < tasks; ++t)
    if (last < 0 || schedule.tasks[t].finish > schedule.tasks[last].finish) last = t;
  if (last >= 0) schedule.makespan = schedule.tasks[last].finish;
  for (int t = last; t >= 0;) {
    schedule.tasks[t].critical = true;
    int next = -1;
    for (const int s : before[t])
      if (next < 0 || schedule.tasks[s].finish > schedule.tasks[next].finish) next = s;
    if (next >= 0 && schedule.tasks[next].finish < schedule.tasks[t].start - 1e-12 * schedule.makespan)
      next = -1;
    t = next;
  }
  return schedule;
}

}  // namespace dnnplace::render
