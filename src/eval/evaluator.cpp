#include "dnnplace/evaluator.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "util/format.hpp"

namespace dnnplace {

namespace {

std::string deviceName(const Placement& p, int device) {
  return p.isAccelerator(device) ? "accelerator " + std::to_string(device)
                                 : "cpu " + std::to_string(device - p.numAccelerators);
}

std::string idList(const Workload& w, const std::vector<NodeIndex>& nodes) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(nodes.size(), 10);
  for (std::size_t i = 0; i < shown; ++i)
    text += (i ? ", " : "") + std::to_string(w.graph().nodes[nodes[i]].id);
  if (nodes.size() > shown) text += ", … (" + std::to_string(nodes.size()) + " in all)";
  return text;
}

bool placed(const Placement& p, NodeIndex v) { return p.deviceOf[v] != Placement::kUnplaced; }

/// Devices of the block graph over forward edges that lie on a cycle, or empty.
/// (Memory per device is a few ints: a plan may list a million devices.)
std::vector<int> blockCycle(const Workload& w, const Placement& p) {
  const int devices = p.numDevices();
  std::vector<std::pair<int, int>> arcs;  // (from, to) between distinct devices
  for (const Edge& e : w.graph().edges) {
    if (w.graph().nodes[e.source].isBackward || w.graph().nodes[e.dest].isBackward) continue;
    if (!placed(p, e.source) || !placed(p, e.dest)) continue;
    const int a = p.deviceOf[e.source], b = p.deviceOf[e.dest];
    if (a != b) arcs.emplace_back(a, b);
  }
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  std::vector<std::size_t> first(static_cast<std::size_t>(devices) + 1, 0);
  std::vector<int> inDegree(devices, 0);
  for (const auto& [a, b] : arcs) {
    ++first[static_cast<std::size_t>(a) + 1];
    ++inDegree[b];
  }
  for (int d = 0; d < devices; ++d) first[d + 1] += first[d];
  std::vector<int> ready;
  for (int d = 0; d < devices; ++d)
    if (inDegree[d] == 0) ready.push_back(d);
  int done = 0;
  while (!ready.empty()) {
    int d = ready.back();
    ready.pop_back();
    ++done;
    for (std::size_t i = first[d]; i < first[d + 1]; ++i)
      if (--inDegree[arcs[i].second] == 0) ready.push_back(arcs[i].second);
  }
  std::vector<int> cyclic;
  if (done == devices) return cyclic;
  for (int d = 0; d < devices; ++d)
    if (inDegree[d] > 0) cyclic.push_back(d);
  return cyclic;
}

void checkFeasibility(const Workload& w, const Placement& p, const EvaluateOptions& options,
                      Evaluation* result) {
  auto& violations = result->violations;
  if (static_cast<int>(p.deviceOf.size()) != w.numNodes()) {
    violations.push_back("the placement covers " + std::to_string(p.deviceOf.size()) +
                         " nodes, the workload has " + std::to_string(w.numNodes()));
    return;
  }
  std::vector<NodeIndex> unplaced, unsupported;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const int d = p.deviceOf[v];
    if (d == Placement::kUnplaced) {
      unplaced.push_back(v);
    } else if (d < 0 || d >= p.numDevices()) {
      violations.push_back("node " + std::to_string(w.graph().nodes[v].id) + " is on device " +
                           std::to_string(d) + ", which does not exist");
    } else if (p.isAccelerator(d) && !w.graph().nodes[v].supportedOnFpga) {
      unsupported.push_back(v);
    }
  }
  if (!violations.empty()) return;  // device numbers unusable below
  if (!unplaced.empty()) violations.push_back("nodes not placed on any device: " + idList(w, unplaced));
  if (!unsupported.empty())
    violations.push_back("nodes not supported on accelerators are placed on one: " +
                         idList(w, unsupported));

  for (int c = 0; c < w.graph().numClasses; ++c) {
    std::set<int> devices;
    for (NodeIndex v : w.classMembers(c))
      if (placed(p, v)) devices.insert(p.deviceOf[v]);
    if (devices.size() > 1) {
      const Node& first = w.graph().nodes[w.classMembers(c)[0]];
      std::string where;
      for (int d : devices) where += (where.empty() ? "" : ", ") + deviceName(p, d);
      violations.push_back("color class " + std::to_string(first.colorClass.value_or(first.id)) +
                           " (nodes " +
                           idList(w, {w.classMembers(c).begin(), w.classMembers(c).end()}) +
                           ") is split across " + where);
    }
  }

  std::vector<double> memory(p.numAccelerators, 0);
  std::vector<int> count(p.numDevices(), 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    if (!placed(p, v)) continue;
    ++count[p.deviceOf[v]];
    if (p.isAccelerator(p.deviceOf[v])) memory[p.deviceOf[v]] += w.graph().nodes[v].size;
  }
  const double capacity = w.machine.maxSizePerFpga;
  // docs/model.md §9: an accelerator entry with r replicas stands for r accelerators.
  const bool replicaCountsUsable = p.replicas.empty() ||
                                   static_cast<int>(p.replicas.size()) == p.numAccelerators;
  if (!replicaCountsUsable)
    violations.push_back("the placement gives replica counts for " + std::to_string(p.replicas.size()) +
                         " accelerators, it has " + std::to_string(p.numAccelerators));
  std::int64_t acceleratorsUsed = 0;
  int cpusUsed = 0;
  for (int d = 0; d < p.numDevices(); ++d) {
    if (count[d] == 0) continue;
    if (p.isAccelerator(d)) {
      const int replicas = replicaCountsUsable ? p.replicasOf(d) : 1;
      acceleratorsUsed += std::max(replicas, 1);
      if (replicas < 1)
        violations.push_back(deviceName(p, d) + " has " + std::to_string(replicas) +
                             " replicas (at least 1)");
      if (replicas > 1 && options.objective == Objective::Latency)
        violations.push_back(deviceName(p, d) +
                             " is replicated: replicas apply to the throughput objective only");
      else if (replicas > 1 && options.diffMaxima)
        violations.push_back(deviceName(p, d) +
                             " is replicated: replicas do not apply with diffmaxima");
      else if (replicas > 1 && !(w.machine.syncBandwidth > 0))
        violations.push_back(deviceName(p, d) + " has " + std::to_string(replicas) +
                             " replicas, but the workload has no syncBandwidth to synchronize them");
      if (memory[d] > capacity * (1 + 1e-12))
        violations.push_back(deviceName(p, d) + " holds " + formatShortest(memory[d]) +
                             " bytes, more than maxSizePerFPGA = " + formatShortest(capacity));
    } else {
      ++cpusUsed;
    }
  }
  if (acceleratorsUsed > w.machine.maxFpgas)
    violations.push_back("the plan uses " + std::to_string(acceleratorsUsed) +
                         " accelerators, maxFPGAs is " + std::to_string(w.machine.maxFpgas));
  // In the latency model CPU nodes run on as many cores as they need (docs/model.md §5).
  if (options.objective == Objective::Throughput && cpusUsed > w.machine.maxCpus)
    violations.push_back("the plan uses " + std::to_string(cpusUsed) + " CPU cores, maxCPUs is " +
                         std::to_string(w.machine.maxCpus));

  result->contiguous = blockCycle(w, p).empty();
  if (options.requireContiguous && !result->contiguous) {
    std::string where;
    for (int d : blockCycle(w, p)) where += (where.empty() ? "" : ", ") + deviceName(p, d);
    violations.push_back("not contiguous: forward edges form a cycle among the blocks of " + where);
  }
}

std::vector<DeviceReport> baseReports(const Workload& w, const Placement& p) {
  std::vector<DeviceReport> reports(p.numDevices());
  for (int d = 0; d < p.numDevices(); ++d) {
    reports[d].accelerator = p.isAccelerator(d);
    reports[d].index = p.isAccelerator(d) ? d : d - p.numAccelerators;
    if (p.isAccelerator(d) && static_cast<int>(p.replicas.size()) == p.numAccelerators)
      reports[d].replicas = std::max(p.replicas[d], 1);
  }
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    if (!placed(p, v)) continue;
    auto& r = reports[p.deviceOf[v]];
    ++r.numNodes;
    if (r.accelerator) r.memory += w.graph().nodes[v].size;
  }
  return reports;
}

// docs/model.md §3: an accelerator pays compute of its nodes plus, once, the cost of
// every source node with an edge crossing its boundary in either direction.
void throughputLoads(const Workload& w, const Placement& p, std::vector<DeviceReport>* reports) {
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    if (!placed(p, v)) continue;
    auto& r = (*reports)[p.deviceOf[v]];
    const Node& node = w.graph().nodes[v];
    const double work = r.accelerator ? node.fpgaLatency : node.cpuLatency;
    (node.isBackward ? r.backwardLoad : r.forwardLoad) += work;
  }
  std::vector<NodeIndex> paidBy(p.numDevices(), -1);  // last source paid per device
  for (NodeIndex u = 0; u < w.numNodes(); ++u) {
    if (!placed(p, u)) continue;
    const int du = p.deviceOf[u];
    auto pay = [&](int d) {
      if (!p.isAccelerator(d) || paidBy[d] == u) return;
      paidBy[d] = u;
      auto& r = (*reports)[d];
      (w.graph().nodes[u].isBackward ? r.backwardLoad : r.forwardLoad) += w.graph().outCost[u];
    };
    for (NodeIndex x : w.successors(u)) {
      if (!placed(p, x) || p.deviceOf[x] == du) continue;
      pay(du);
      pay(p.deviceOf[x]);
    }
  }
  // docs/model.md §9: r replicas share the samples and pay the all-reduce of
  // the block's weights: load(B, r) = (load(B) + sync(B, r)) / r.
  std::vector<double> parameters(p.numDevices(), 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (placed(p, v)) parameters[p.deviceOf[v]] += w.graph().nodes[v].parameterSize;
  for (int d = 0; d < p.numDevices(); ++d) {
    auto& r = (*reports)[d];
    if (r.accelerator && r.replicas > 1 && w.machine.syncBandwidth > 0) {
      const double n = r.replicas;
      const double sync = 4 * (n - 1) / n * parameters[d] / w.machine.syncBandwidth /
                          w.machine.samplesPerSync;
      r.forwardLoad /= n;
      r.backwardLoad /= n;
      r.syncLoad = sync / n;
    }
    r.load = r.forwardLoad + r.backwardLoad + r.syncLoad;
  }
}

// docs/model.md §5. Each accelerator's nodes split into pieces by re-entry count;
// pieces and CPU nodes are tasks of a DAG whose longest finish is the latency.
void latency(const Workload& w, const Placement& p, const EvaluateOptions& options,
             Evaluation* result) {
  const int n = w.numNodes();
  auto& reports = result->devices;
  // piece[v]: 1-based piece index of v on its accelerator (0: not on one).
  // Only paths between two nodes of accelerator a can raise a's piece
  // indices, and such a path stays between the first and the last of a's
  // nodes in topological order: each accelerator walks that span alone.
  std::vector<int> piece(n, 0), seen(n, 0), seenBy(n, -1), position(n, 0);
  for (int i = 0; i < n; ++i) position[w.graph().topologicalOrder[i]] = i;
  std::vector<int> first(p.numAccelerators, n), last(p.numAccelerators, -1);
  for (NodeIndex v = 0; v < n; ++v)
    if (placed(p, v) && p.isAccelerator(p.deviceOf[v])) {
      const int a = p.deviceOf[v];
      first[a] = std::min(first[a], position[v]);
      last[a] = std::max(last[a], position[v]);
    }
  for (int a = 0; a < p.numAccelerators; ++a) {
    // seen[v] (when seenBy[v] == a): the largest piece index met on a path
    // ending at v, v outside a; 0 for nodes before the span.
    for (int i = first[a]; i <= last[a]; ++i) {
      const NodeIndex v = w.graph().topologicalOrder[i];
      const bool inside = placed(p, v) && p.deviceOf[v] == a;
      int best = inside ? 1 : 0;
      for (NodeIndex u : w.predecessors(v)) {
        const bool uInside = placed(p, u) && p.deviceOf[u] == a;
        const int seenU = seenBy[u] == a ? seen[u] : 0;
        if (inside)
          best = std::max(best, uInside ? piece[u] : seenU + 1);
        else
          best = std::max(best, uInside ? piece[u] : seenU);
      }
      if (inside) {
        piece[v] = best;
      } else {
        seen[v] = best;
        seenBy[v] = a;
      }
    }
  }
  // Tasks: (accelerator, piece) pairs, then one task per CPU or unplaced node.
  std::map<std::pair<int, int>, int> taskOfPiece;
  for (NodeIndex v = 0; v < n; ++v)
    if (piece[v] > 0) taskOfPiece.emplace(std::pair{p.deviceOf[v], piece[v]}, 0);
  int tasks = 0;
  std::vector<std::pair<int, int>> pieceOfTask;
  for (auto& [key, task] : taskOfPiece) {
    task = tasks++;
    pieceOfTask.push_back(key);
  }
  std::vector<int> taskOf(n);
  for (NodeIndex v = 0; v < n; ++v)
    taskOf[v] = piece[v] > 0 ? taskOfPiece[{p.deviceOf[v], piece[v]}] : tasks++;

  for (int t = 0; t < static_cast<int>(pieceOfTask.size()); ++t) {
    auto& r = reports[pieceOfTask[t].first];
    r.pieces = std::max(r.pieces, pieceOfTask[t].second);
  }
  for (int a = 0; a < p.numAccelerators; ++a)
    if (reports[a].pieces > options.q)
      result->violations.push_back(deviceName(p, a) + " runs " + std::to_string(reports[a].pieces) +
                                   " contiguous subgraphs, more than q = " + std::to_string(options.q));

  std::vector<double> duration(tasks, 0);
  std::vector<std::set<int>> dependsOn(tasks);
  for (NodeIndex v = 0; v < n; ++v) {
    if (piece[v] > 0)
      duration[taskOf[v]] += w.graph().nodes[v].fpgaLatency;
    else if (placed(p, v))
      duration[taskOf[v]] += w.graph().nodes[v].cpuLatency;
  }
  // Communication: per piece, each outside source feeding it and each inside
  // source sending out of it, once.
  std::vector<int> paidIn(tasks, -1), paidOut(tasks, -1);
  for (NodeIndex u = 0; u < n; ++u)
    for (NodeIndex x : w.successors(u)) {
      const int tu = taskOf[u], tx = taskOf[x];
      if (tu == tx) continue;
      dependsOn[tx].insert(tu);
      if (piece[x] > 0 && paidIn[tx] != u) {
        paidIn[tx] = u;
        duration[tx] += w.graph().outCost[u];
      }
      if (piece[u] > 0 && paidOut[tu] != u) {
        paidOut[tu] = u;
        duration[tu] += w.graph().outCost[u];
      }
    }
  // Pieces of one accelerator run in index order.
  for (int t = 1; t < static_cast<int>(pieceOfTask.size()); ++t)
    if (pieceOfTask[t].first == pieceOfTask[t - 1].first) dependsOn[t].insert(t - 1);

  std::vector<int> inDegree(tasks, 0);
  std::vector<std::vector<int>> dependents(tasks);
  for (int t = 0; t < tasks; ++t)
    for (int s : dependsOn[t]) {
      dependents[s].push_back(t);
      ++inDegree[t];
    }
  std::vector<double> finish(tasks, 0), start(tasks, 0);
  std::vector<int> ready;
  for (int t = 0; t < tasks; ++t)
    if (inDegree[t] == 0) ready.push_back(t);
  int done = 0;
  while (!ready.empty()) {
    const int t = ready.back();
    ready.pop_back();
    ++done;
    finish[t] = start[t] + duration[t];
    for (int s : dependents[t]) {
      start[s] = std::max(start[s], finish[t]);
      if (--inDegree[s] == 0) ready.push_back(s);
    }
  }
  if (done < tasks) {
    std::string where;
    for (int t = 0; t < static_cast<int>(pieceOfTask.size()); ++t)
      if (inDegree[t] > 0)
        where += (where.empty() ? "" : ", ") + deviceName(p, pieceOfTask[t].first) + " piece " +
                 std::to_string(pieceOfTask[t].second);
    result->violations.push_back("subgraphs wait on each other in a cycle, so no schedule exists: " +
                                 where);
    return;
  }
  double latencyValue = 0;
  for (int t = 0; t < tasks; ++t) latencyValue = std::max(latencyValue, finish[t]);
  result->objective = latencyValue;
  for (NodeIndex v = 0; v < n; ++v) {
    if (!placed(p, v)) continue;
    auto& r = reports[p.deviceOf[v]];
    r.finish = std::max(r.finish, finish[taskOf[v]]);
    if (!r.accelerator) r.load += w.graph().nodes[v].cpuLatency;
  }
  for (int t = 0; t < static_cast<int>(pieceOfTask.size()); ++t)
    reports[pieceOfTask[t].first].load += duration[t];
}

}  // namespace

bool isContiguous(const Workload& workload, const Placement& placement) {
  return blockCycle(workload, placement).empty();
}

Evaluation evaluate(const Workload& workload, const Placement& placement,
                    const EvaluateOptions& options) {
  Evaluation result;
  checkFeasibility(workload, placement, options, &result);
  if (static_cast<int>(placement.deviceOf.size()) != workload.numNodes() ||
      std::any_of(placement.deviceOf.begin(), placement.deviceOf.end(),
                  [&](int d) { return d < Placement::kUnplaced || d >= placement.numDevices(); })) {
    result.feasible = false;
    return result;
  }
  result.devices = baseReports(workload, placement);
  if (options.objective == Objective::Throughput) {
    throughputLoads(workload, placement, &result.devices);
    double maxLoad = 0, maxForward = 0, maxBackward = 0;
    for (const auto& r : result.devices) {
      maxLoad = std::max(maxLoad, r.load);
      maxForward = std::max(maxForward, r.forwardLoad);
      maxBackward = std::max(maxBackward, r.backwardLoad);
    }
    result.objective = options.diffMaxima ? maxForward + maxBackward : maxLoad;
  } else {
    latency(workload, placement, options, &result);
  }
  std::erase_if(result.devices, [](const DeviceReport& r) { return r.numNodes == 0; });
  result.feasible = result.violations.empty();
  return result;
}

}  // namespace dnnplace
