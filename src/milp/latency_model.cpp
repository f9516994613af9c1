#include <algorithm>

#include "bounds/latency_bound.hpp"
#include "milp/model.hpp"
#include "objective/latency.hpp"

namespace dnnplace::milp {

Model latencyModel(const Workload& w, const objective::ClassTotals& totals, const Allowed& allowed,
                   int q, double upperBound, std::chrono::steady_clock::time_point deadline,
                   const std::atomic<bool>* interrupt, const LatencyLowerBound* known) {
  Model m;
  m.builder.stopAt(deadline, interrupt);
  const int k = w.machine.maxFpgas, n = w.numNodes();
  m.numAccelerators = k;
  m.numCpuDevices = allowed.cpu ? 1 : 0;
  m.x = classColumns(w, allowed, k, m.numCpuDevices, &m.builder);
  auto& b = m.builder;
  addAssignmentAndMemory(w, totals, &m);
  breakSymmetry(&m, 0, k, "symAcc");

  // Big-M: no finish time of a plan at least as good as the incumbent exceeds
  // its latency; without one, running everything one after another bounds it.
  double bigM = upperBound;
  if (bigM == kInfinity) {
    bigM = 0;
    for (NodeIndex v = 0; v < n; ++v)
      bigM += std::max(w.graph().nodes[v].cpuLatency, w.graph().nodes[v].fpgaLatency) +
              w.graph().outCost[v] * (1 + static_cast<double>(w.successors(v).size()));
  }
  bigM = bigM * (1 + 1e-7) + 1e-9;

  auto xOf = [&](NodeIndex v, int a) { return m.x[w.graph().classOf[v]][a]; };
  const int cpuDevice = allowed.cpu ? k : -1;

  // slot[v][a][j]: v runs in the (j+1)-th subgraph of accelerator a.
  std::vector<std::vector<std::vector<Linear>>> slot(
      n, std::vector<std::vector<Linear>>(k, std::vector<Linear>(q)));
  for (NodeIndex v = 0; v < n; ++v)
    for (int a = 0; a < k; ++a) {
      if (xOf(v, a) < 0) continue;
      if (q == 1) {
        slot[v][a][0].add(xOf(v, a), 1);
        continue;
      }
      Linear sum;
      for (int j = 0; j < q; ++j) {
        const int s = b.addColumn(name("slot", {v, a, j + 1}), 0, 1, 0, true);
        slot[v][a][j].add(s, 1);
        sum.add(s, 1);
      }
      sum.add(xOf(v, a), -1);
      b.addRow(name("slotSum", {v, a}), sum, 0, 0);
    }

  // level[v][a][j] = [the largest number of runs inside a on a path ending at
  // v is ≥ j+1]. Lower rows force it up, upper rows (q ≥ 2) pin it down, so a
  // node's slot is exactly the evaluator's piece index.
  for (int a = 0; a < k; ++a) {
    bool anyAllowed = false;
    for (int c = 0; c < w.graph().numClasses; ++c) anyAllowed |= m.x[c][a] >= 0;
    if (!anyAllowed) continue;
    std::vector<std::vector<int>> level(n, std::vector<int>(q));
    for (NodeIndex v = 0; v < n; ++v)
      for (int j = 0; j < q; ++j) {
        level[v][j] = b.addColumn(name("level", {v, a, j + 1}), 0, 1, 0, false);
        Linear suffix;  // Σ_{j' ≥ j} slot
        for (int i = j; i < q; ++i) suffix.add(slot[v][a][i], 1);
        Linear lower = suffix;
        lower.add(level[v][j], -1);
        b.addRow(name("levelIn", {v, a, j + 1}), lower, -kInfinity, 0);
        if (q >= 2) {
          Linear upper;
          upper.add(level[v][j], 1).add(suffix, -1).add(xOf(v, a), 1);
          b.addRow(name("levelInUp", {v, a, j + 1}), upper, -kInfinity, 1);
        }
      }
    for (NodeIndex v = 0; v < n; ++v) {
      std::vector<Linear> upper(q);
      for (int j = 0; j < q; ++j) upper[j].add(level[v][j], 1);
      if (q >= 2) upper[0].add(xOf(v, a), -1);
      for (NodeIndex u : w.predecessors(v)) {
        const bool sameClass = w.graph().classOf[u] == w.graph().classOf[v];
        for (int j = 0; j < q; ++j) {
          Linear row;
          row.add(level[v][j], 1).add(level[u][j], -1);
          b.addRow(name("levelEdge", {u, v, a, j + 1}), row, 0, kInfinity);
          if (!sameClass && xOf(v, a) >= 0) {
            // u outside, v inside: v's level exceeds u's by one (≤ q overall).
            Linear reenter;
            reenter.add(level[u][j], 1).add(xOf(v, a), 1).add(xOf(u, a), -1);
            if (j + 1 < q) reenter.add(level[v][j + 1], -1);
            b.addRow(name("reenter", {u, v, a, j + 1}), reenter, -kInfinity, 1);
          }
          upper[j].add(level[u][j], -1);
          if (q >= 2 && j >= 1 && !sameClass) {
            const int t = b.addColumn(name("enters", {u, v, a, j + 1}), 0, 1, 0, false);
            Linear r1, r2, r3;
            r1.add(t, 1).add(level[u][j - 1], -1).add(level[u][j], 1);
            r2.add(t, 1).add(xOf(v, a), -1);
            r3.add(t, 1).add(xOf(u, a), 1);
            b.addRow(name("entersLevel", {u, v, a, j + 1}), r1, -kInfinity, 0);
            b.addRow(name("entersInside", {u, v, a, j + 1}), r2, -kInfinity, 0);
            b.addRow(name("entersOutside", {u, v, a, j + 1}), r3, -kInfinity, 1);
            upper[j].add(t, -1);
          }
        }
      }
      if (q >= 2)
        for (int j = 0; j < q; ++j) b.addRow(name("levelUp", {v, a, j + 1}), upper[j], -kInfinity, 0);
    }
  }

  // Timing.
  // Per node, no finish before the compute path to it. The split-path bound
  // (latency_bound.hpp) counts the communication that memory and device
  // counts force onto the critical path, which the big-M relaxation cannot
  // see; as the latency column's floor it also lets CBC stop once an
  // incumbent reaches it.
  // The interval path (bound 3) is reported beside CBC's bound but kept out
  // of the column: as a floor close to the optimum it leaves CBC's own
  // bound a rounding below the objective when its search ends.
  const LatencyLowerBound bound =
      known ? *known : latencyLowerBound(w, allowed.accelerator, allowed.cpu, q, deadline);
  const std::vector<double>& head = bound.earliestFinish;
  const double floor = std::max(bound.computePath, bound.splitPath);
  const double timeUpper = upperBound == kInfinity ? kInfinity : bigM;
  const int latency = b.addColumn("latency", std::min(floor, timeUpper), timeUpper, 1, false);
  m.simpleBound = bound.value();
  m.objectiveColumn = latency;
  std::vector<int> finish(n);
  for (NodeIndex v = 0; v < n; ++v)
    finish[v] = b.addColumn(name("finish", {v}), head[v], timeUpper, 0, false);
  for (NodeIndex v = 0; v < n; ++v) {
    const double cpuTime = cpuDevice >= 0 ? w.graph().nodes[v].cpuLatency : 0;
    Linear own;
    own.add(finish[v], 1).add(cpuDevice >= 0 ? xOf(v, cpuDevice) : -1, -cpuTime);
    b.addRow(name("cpuSelf", {v}), own, 0, kInfinity);
    for (NodeIndex u : w.predecessors(v)) {
      Linear row;
      row.add(finish[v], 1).add(finish[u], -1).add(cpuDevice >= 0 ? xOf(v, cpuDevice) : -1, -cpuTime);
      b.addRow(name("after", {u, v}), row, 0, kInfinity);
    }
    if (w.successors(v).empty()) {
      Linear row;
      row.add(latency, 1).add(finish[v], -1);
      b.addRow(name("latencySink", {v}), row, 0, kInfinity);
    }
  }
  for (int a = 0; a < k; ++a) {
    bool anyAllowed = false;
    for (int c = 0; c < w.graph().numClasses; ++c) anyAllowed |= m.x[c][a] >= 0;
    if (!anyAllowed) continue;
    int previousFinish = -1;
    for (int j = 0; j < q; ++j) {
      const int start = b.addColumn(name("start", {a, j + 1}), 0, timeUpper, 0, false);
      const int end = b.addColumn(name("end", {a, j + 1}), 0, timeUpper, 0, false);
      Linear duration;
      for (NodeIndex v = 0; v < n; ++v) duration.add(slot[v][a][j], w.graph().nodes[v].fpgaLatency);
      for (NodeIndex u = 0; u < n; ++u) {
        // Which successors may sit in another subgraph than u?
        std::vector<NodeIndex> others;
        for (NodeIndex x : w.successors(u))
          if (q >= 2 || w.graph().classOf[x] != w.graph().classOf[u]) others.push_back(x);
        if (others.empty()) continue;
        bool anyHere = !slot[u][a][j].isZero();
        for (NodeIndex x : others) anyHere |= !slot[x][a][j].isZero();
        if (!anyHere) continue;
        const int in = b.addColumn(name("in", {u, a, j + 1}), 0, 1, 0, false);
        const int out = b.addColumn(name("out", {u, a, j + 1}), 0, 1, 0, false);
        for (NodeIndex x : others) {
          Linear feeds, sends;
          feeds.add(in, 1).add(slot[x][a][j], -1).add(slot[u][a][j], 1);
          sends.add(out, 1).add(slot[u][a][j], -1).add(slot[x][a][j], 1);
          b.addRow(name("feeds", {u, x, a, j + 1}), feeds, 0, kInfinity);
          b.addRow(name("sends", {u, x, a, j + 1}), sends, 0, kInfinity);
        }
        duration.add(in, w.graph().outCost[u]).add(out, w.graph().outCost[u]);
        // The subgraph starts once every outside node feeding it has finished.
        Linear waits;
        waits.add(start, 1).add(finish[u], -1).add(in, -bigM);
        b.addRow(name("waits", {u, a, j + 1}), waits, -bigM, kInfinity);
      }
      Linear span;
      span.add(end, 1).add(start, -1).add(duration, -1);
      b.addRow(name("span", {a, j + 1}), span, 0, 0);
      if (previousFinish >= 0) {
        Linear order;
        order.add(start, 1).add(previousFinish, -1);
        b.addRow(name("order", {a, j + 1}), order, 0, kInfinity);
      }
      previousFinish = end;
      Linear last;
      last.add(latency, 1).add(end, -1);
      b.addRow(name("latencyEnd", {a, j + 1}), last, 0, kInfinity);
      for (NodeIndex v = 0; v < n; ++v) {
        if (slot[v][a][j].isZero()) continue;
        Linear done;
        done.add(finish[v], 1).add(end, -1).add(slot[v][a][j], -bigM);
        b.addRow(name("done", {v, a, j + 1}), done, -bigM, kInfinity);
      }
    }
  }

  // Slot columns of a placement are its piece indices.
  std::vector<std::vector<std::vector<int>>> slotColumn(
      n, std::vector<std::vector<int>>(k, std::vector<int>(q, -1)));
  if (q >= 2)
    for (NodeIndex v = 0; v < n; ++v)
      for (int a = 0; a < k; ++a)
        for (int j = 0; j < q; ++j)
          if (!slot[v][a][j].terms.empty()) slotColumn[v][a][j] = slot[v][a][j].terms[0].first;
  const auto xColumns = m.x;
  m.integerValues = [xColumns, slotColumn, &w, k, q](const Placement& p) {
    std::vector<std::pair<int, double>> values = classColumnValues(w, xColumns, p);
    if (q >= 2) {
      const std::vector<int> piece = objective::pieceIndices(w, p);
      for (NodeIndex v = 0; v < w.numNodes(); ++v)
        for (int a = 0; a < k; ++a)
          for (int j = 0; j < q; ++j)
            if (slotColumn[v][a][j] >= 0)
              values.emplace_back(slotColumn[v][a][j],
                                  p.deviceOf[v] == a && piece[v] == j + 1 ? 1.0 : 0.0);
    }
    return values;
  };
  return m;
}

}  // namespace dnnplace::milp
