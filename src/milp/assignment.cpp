#include <algorithm>
#include <limits>
#include <string>

#include "milp/model.hpp"

namespace dnnplace::milp {

void breakSymmetry(Model* m, int first, int count, const char* label) {
  // x[c][d] ≤ Σ_{c' < c} x[c'][d−1], through running sums: prefix[c] ≤
  // prefix[c−1] + x[c][d−1] (at most the sum, which is all the rows need), so
  // the rows grow with classes × devices, not with its square.
  const int classes = static_cast<int>(m->x.size());
  const std::string prefixLabel = std::string(label) + "Prefix";
  for (int i = 1; i < count; ++i) {
    const int d = first + i;
    int previousPrefix = -1;  // Σ_{c' < c} x[c'][d−1] ≥ this column (−1: nothing yet)
    for (int c = 0; c < classes; ++c) {
      if (m->x[c][d] >= 0) {
        Linear row;
        row.add(m->x[c][d], 1).add(previousPrefix, -1);
        m->builder.addRow(name(label, {c, i}), row, -kInfinity, 0);
      }
      if (m->x[c][d - 1] < 0 || c + 1 == classes) continue;
      const int prefix =
          m->builder.addColumn(name(prefixLabel.c_str(), {c, i}), 0, kInfinity, 0, false);
      Linear sum;
      sum.add(prefix, 1).add(previousPrefix, -1).add(m->x[c][d - 1], -1);
      m->builder.addRow(name(prefixLabel.c_str(), {c, i}), sum, -kInfinity, 0);
      previousPrefix = prefix;
    }
  }
}

void addAssignmentAndMemory(const Workload& w, const objective::ClassTotals& totals, Model* m) {
  const int devices = m->numAccelerators + m->numCpuDevices;
  for (int c = 0; c < w.graph().numClasses; ++c) {
    Linear row;
    for (int d = 0; d < devices; ++d) row.add(m->x[c][d], 1);
    m->builder.addRow(name("assign", {c}), row, 1, 1);
  }
  for (int a = 0; a < m->numAccelerators; ++a) {
    Linear row;
    double total = 0;
    for (int c = 0; c < w.graph().numClasses; ++c) {
      row.add(m->x[c][a], totals.size[c]);
      if (m->x[c][a] >= 0) total += totals.size[c];
    }
    if (total > w.machine.maxSizePerFpga)
      m->builder.addRow(name("memory", {a}), row, -kInfinity, w.machine.maxSizePerFpga);
  }
}

std::vector<std::vector<int>> classColumns(const Workload& w, const Allowed& allowed, int accelerators,
                                           int cpuDevices, ModelBuilder* builder) {
  std::vector<std::vector<int>> x(w.graph().numClasses,
                                  std::vector<int>(accelerators + cpuDevices, -1));
  int acceleratorRank = 0, cpuRank = 0;
  for (int c = 0; c < w.graph().numClasses; ++c) {
    for (int d = 0; d < accelerators + cpuDevices; ++d) {
      const bool accelerator = d < accelerators;
      const int index = accelerator ? d : d - accelerators;
      if (accelerator ? !allowed.accelerator[c] || index > acceleratorRank
                      : !allowed.cpu || index > cpuRank)
        continue;
      x[c][d] = builder->addColumn(name("x", {c, d}), 0, 1, 0, true);
    }
    if (allowed.accelerator[c]) ++acceleratorRank;
    if (allowed.cpu) ++cpuRank;
  }
  return x;
}

std::vector<std::pair<int, double>> classColumnValues(const Workload& w,
                                                      const std::vector<std::vector<int>>& x,
                                                      const Placement& p) {
  std::vector<std::pair<int, double>> values;
  for (int c = 0; c < w.graph().numClasses; ++c) {
    const int d = p.deviceOf[w.classMembers(c).front()];
    for (int e = 0; e < static_cast<int>(x[c].size()); ++e)
      if (x[c][e] >= 0) values.emplace_back(x[c][e], e == d ? 1.0 : 0.0);
  }
  return values;
}

Placement canonical(const Workload& w, const Placement& p, bool latency) {
  std::vector<int> lowestClass(p.numDevices(), std::numeric_limits<int>::max());
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    lowestClass[p.deviceOf[v]] = std::min(lowestClass[p.deviceOf[v]], w.graph().classOf[v]);
  std::vector<int> newIndex(p.numDevices());
  auto order = [&](int first, int count) {
    std::vector<int> devices(count);
    for (int i = 0; i < count; ++i) devices[i] = first + i;
    std::stable_sort(devices.begin(), devices.end(),
                     [&](int a, int b) { return lowestClass[a] < lowestClass[b]; });
    for (int i = 0; i < count; ++i) newIndex[devices[i]] = first + i;
  };
  order(0, p.numAccelerators);
  order(p.numAccelerators, p.numCpus);
  Placement result = p;
  for (auto& d : result.deviceOf) {
    d = newIndex[d];
    if (latency && !p.isAccelerator(d)) d = p.numAccelerators;
  }
  return result;
}

}  // namespace dnnplace::milp
