#include <map>
#include <set>
#include <tuple>

#include "milp/model.hpp"
#include "objective/placement_checks.hpp"

namespace dnnplace::milp {

Model throughputModel(const Workload& w, const objective::ClassTotals& totals, const Allowed& allowed,
                      const SolveOptions& options, std::chrono::steady_clock::time_point deadline) {
  Model m;
  m.builder.stopAt(deadline, options.interrupt);
  const int k = w.machine.maxFpgas, cpus = w.machine.maxCpus;
  m.numAccelerators = k;
  m.numCpuDevices = cpus;
  const int devices = k + cpus;
  m.x = classColumns(w, allowed, k, cpus, &m.builder);
  auto& b = m.builder;
  int forwardMax = -1, backwardMax = -1;
  if (options.diffMaxima) {
    forwardMax = b.addColumn("maxForward", 0, kInfinity, 1, false);
    backwardMax = b.addColumn("maxBackward", 0, kInfinity, 1, false);
  } else {
    // Valid bound the LP relaxation misses: each class runs whole somewhere.
    m.simpleBound = objective::throughputLowerBound(w, totals);
    m.objectiveColumn = b.addColumn("maxLoad", m.simpleBound, kInfinity, 1, false);
  }
  addAssignmentAndMemory(w, totals, &m);

  // Communication: sources with the same class, the same set of other
  // successor classes and the same direction behave alike; pay them together.
  struct Group {
    int sourceClass;
    std::vector<int> targets;
    bool backward;
    bool operator<(const Group& o) const {
      return std::tie(sourceClass, targets, backward) < std::tie(o.sourceClass, o.targets, o.backward);
    }
  };
  std::map<Group, double> groups;
  for (NodeIndex u = 0; u < w.numNodes(); ++u) {
    if (w.graph().outCost[u] == 0) continue;
    std::set<int> targets;
    for (NodeIndex x : w.successors(u))
      if (w.graph().classOf[x] != w.graph().classOf[u]) targets.insert(w.graph().classOf[x]);
    if (targets.empty()) continue;
    Group g{w.graph().classOf[u],
            {targets.begin(), targets.end()},
            options.diffMaxima && w.graph().nodes[u].isBackward};
    groups[g] += w.graph().outCost[u];
  }
  std::vector<Linear> forwardLoad(devices), backwardLoad(devices);
  for (int d = 0; d < devices; ++d)
    for (int c = 0; c < w.graph().numClasses; ++c) {
      const bool acc = d < k;
      forwardLoad[d].add(m.x[c][d], acc ? totals.acceleratorForward[c] : totals.cpuForward[c]);
      backwardLoad[d].add(m.x[c][d], acc ? totals.acceleratorBackward[c] : totals.cpuBackward[c]);
    }
  int groupIndex = 0;
  for (const auto& [group, cost] : groups) {
    for (int a = 0; a < k; ++a) {
      const int xs = m.x[group.sourceClass][a];
      bool anyTarget = false;
      for (int t : group.targets) anyTarget |= m.x[t][a] >= 0;
      if (xs < 0 && !anyTarget) continue;
      const int z = b.addColumn(name("comm", {groupIndex, a}), 0, 1, 0, false);
      for (int t : group.targets) {
        if (m.x[t][a] < 0 && xs < 0) continue;
        Linear out, in;
        out.add(z, 1).add(xs, -1).add(m.x[t][a], 1);
        in.add(z, 1).add(xs, 1).add(m.x[t][a], -1);
        b.addRow(name("commOut", {groupIndex, t, a}), out, 0, kInfinity);
        b.addRow(name("commIn", {groupIndex, t, a}), in, 0, kInfinity);
      }
      (group.backward ? backwardLoad : forwardLoad)[a].add(z, cost);
    }
    ++groupIndex;
  }
  for (int d = 0; d < devices; ++d) {
    if (options.diffMaxima) {
      Linear fw = forwardLoad[d], bw = backwardLoad[d];
      fw.add(forwardMax, -1);
      bw.add(backwardMax, -1);
      b.addRow(name("forwardLoad", {d}), fw, -kInfinity, 0);
      b.addRow(name("backwardLoad", {d}), bw, -kInfinity, 0);
    } else {
      Linear load = forwardLoad[d];
      load.add(backwardLoad[d], 1).add(m.objectiveColumn, -1);
      b.addRow(name("load", {d}), load, -kInfinity, 0);
    }
  }
  breakSymmetry(&m, 0, k, "symAcc");
  breakSymmetry(&m, k, cpus, "symCpu");

  if (options.contiguity == Contiguity::Convex) {
    // reach[v][d] ≥ "some forward path from device d's block ends at v";
    // a node outside d that is reached may not feed d (that path re-enters).
    // Reach only matters for nodes from which a forward edge between two
    // classes can be reached (reverse topological order).
    std::vector<char> needsReach(w.numNodes(), 0);
    for (auto it = w.graph().topologicalOrder.rbegin(); it != w.graph().topologicalOrder.rend(); ++it) {
      const NodeIndex u = *it;
      for (NodeIndex x : w.successors(u))
        if (objective::isForwardEdge(w, u, x) &&
            (w.graph().classOf[u] != w.graph().classOf[x] || needsReach[x]))
          needsReach[u] = 1;
    }
    for (int d = 0; d < devices; ++d) {
      std::vector<int> reach(w.numNodes(), -1);
      for (NodeIndex v = 0; v < w.numNodes(); ++v) {
        if (w.graph().nodes[v].isBackward || !needsReach[v]) continue;
        reach[v] = b.addColumn(name("reach", {v, d}), 0, 1, 0, false);
        Linear row;
        row.add(reach[v], 1).add(m.x[w.graph().classOf[v]][d], -1);
        b.addRow(name("reachSelf", {v, d}), row, 0, kInfinity);
      }
      for (NodeIndex u = 0; u < w.numNodes(); ++u) {
        if (reach[u] < 0) continue;
        for (NodeIndex x : w.successors(u)) {
          if (!objective::isForwardEdge(w, u, x)) continue;
          if (reach[x] >= 0) {
            Linear row;
            row.add(reach[x], 1).add(reach[u], -1);
            b.addRow(name("reachEdge", {u, x, d}), row, 0, kInfinity);
          }
          if (w.graph().classOf[u] != w.graph().classOf[x] && m.x[w.graph().classOf[x]][d] >= 0) {
            Linear row;
            row.add(m.x[w.graph().classOf[x]][d], 1)
                .add(reach[u], 1)
                .add(m.x[w.graph().classOf[u]][d], -1);
            b.addRow(name("convex", {u, x, d}), row, -kInfinity, 1);
          }
        }
      }
    }
  }

  m.integerValues = [xColumns = m.x, &w](const Placement& p) {
    return classColumnValues(w, xColumns, p);
  };
  return m;
}

}  // namespace dnnplace::milp
