#include "milp/milp.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bounds/latency_bound.hpp"
#include "baselines/local_search.hpp"
#include "baselines/common.hpp"
#include "io/json_input.hpp"

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcStrategy.hpp"
#include "CoinError.hpp"
#include "CoinLpIO.hpp"
#include "CoinMessageHandler.hpp"
#include "CoinMpsIO.hpp"
#include "CoinPackedMatrix.hpp"
#include "CoinPackedVector.hpp"
#include "ClpSimplex.hpp"
#include "OsiClpSolverInterface.hpp"

namespace dnnplace {

namespace {

/// CLP and CBC are not exception-safe: when an allocation fails inside one
/// of their calls, the object can be left with a pointer already freed, and
/// its destructor then frees it again (seen by failing operator new in turn:
/// ~CoinIndexedVector inside ~ClpSimplex, from ~CbcModel). Such an object is
/// leaked instead of destroyed, so the caller gets "ran out of memory", not a
/// crash.
template <class T, class Call>
decltype(auto) leakingOnThrow(std::unique_ptr<T>& object, Call&& call) {
  try {
    return std::forward<Call>(call)();
  } catch (...) {
    (void)object.release();
    throw;
  }
}

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// ---------------------------------------------------------------------------
// Per-class totals and the problem data both models share.

struct ClassInfo {
  double fpga = 0, cpu = 0, size = 0;
  double fpgaForward = 0, fpgaBackward = 0, cpuForward = 0, cpuBackward = 0;
  bool supported = true;
};

std::vector<ClassInfo> classInfo(const Workload& w) {
  std::vector<ClassInfo> info(w.numClasses);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const Node& node = w.nodes[v];
    ClassInfo& c = info[w.classOf[v]];
    c.fpga += node.fpgaLatency;
    c.cpu += node.cpuLatency;
    c.size += node.size;
    (node.isBackward ? c.fpgaBackward : c.fpgaForward) += node.fpgaLatency;
    (node.isBackward ? c.cpuBackward : c.cpuForward) += node.cpuLatency;
    if (!node.supportedOnFpga) c.supported = false;
  }
  return info;
}

std::string className(const Workload& w, int c) {
  const Node& first = w.nodes[w.classMembers(c).front()];
  if (first.colorClass) return "color class " + std::to_string(*first.colorClass);
  return "node " + std::to_string(first.id);
}

/// Which kinds of device each class may use; "" or why some class fits nowhere.
struct Allowed {
  std::vector<char> accelerator;  ///< per class: supported and fits one accelerator
  bool cpu = false;               ///< CPU cores exist
};

std::string allowedDevices(const Workload& w, const std::vector<ClassInfo>& info, bool cpus,
                           Allowed* allowed) {
  allowed->accelerator.assign(w.numClasses, 0);
  allowed->cpu = cpus;
  for (int c = 0; c < w.numClasses; ++c) {
    allowed->accelerator[c] = info[c].supported && w.machine.maxFpgas > 0 &&
                              info[c].size <= w.machine.maxSizePerFpga * (1 + 1e-12);
    if (allowed->accelerator[c] || cpus) continue;
    if (!info[c].supported)
      return className(w, c) + " has an operator unsupported on accelerators and there is no "
             "CPU core (maxCPUs is 0)";
    if (w.machine.maxFpgas == 0) return "the machine has no accelerator and no CPU core";
    std::ostringstream why;
    why << className(w, c) << " needs " << info[c].size << " bytes, accelerators hold "
        << w.machine.maxSizePerFpga << " bytes, and maxCPUs is 0";
    return why.str();
  }
  return "";
}

// ---------------------------------------------------------------------------
// Our own view of a placement: feasibility, objectives, convexity, pieces.
// (solve() re-checks every plan with the independent evaluator.)

/// "" when the placement respects classes, support, memory and device ranges.
std::string placementProblem(const Workload& w, const Placement& p) {
  if (static_cast<int>(p.deviceOf.size()) != w.numNodes()) return "wrong size";
  std::vector<double> memory(p.numAccelerators, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const int d = p.deviceOf[v];
    if (d < 0 || d >= p.numDevices()) return "unplaced node";
    if (p.deviceOf[w.classMembers(w.classOf[v]).front()] != d) return "split class";
    if (p.isAccelerator(d)) {
      if (!w.nodes[v].supportedOnFpga) return "unsupported node on an accelerator";
      memory[d] += w.nodes[v].size;
    }
  }
  for (double m : memory)
    if (m > w.machine.maxSizePerFpga * (1 + 1e-12)) return "memory exceeded";
  return "";
}

/// Max-load, or max forward + max backward load (DESIGN §3).
double throughputObjective(const Workload& w, const Placement& p, bool diffMaxima) {
  const int devices = p.numDevices();
  std::vector<double> forward(devices, 0), backward(devices, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    const int d = p.deviceOf[v];
    const Node& node = w.nodes[v];
    (node.isBackward ? backward : forward)[d] +=
        p.isAccelerator(d) ? node.fpgaLatency : node.cpuLatency;
  }
  std::vector<char> pays(devices, 0);
  for (NodeIndex u = 0; u < w.numNodes(); ++u) {
    if (w.outCost[u] == 0) continue;
    std::fill(pays.begin(), pays.end(), 0);
    const int du = p.deviceOf[u];
    for (NodeIndex x : w.successors(u)) {
      const int dx = p.deviceOf[x];
      if (dx == du) continue;
      pays[du] = 1;
      pays[dx] = 1;
    }
    for (int d = 0; d < p.numAccelerators; ++d)
      if (pays[d]) (w.nodes[u].isBackward ? backward : forward)[d] += w.outCost[u];
  }
  double maxLoad = 0, maxForward = 0, maxBackward = 0;
  for (int d = 0; d < devices; ++d) {
    maxLoad = std::max(maxLoad, forward[d] + backward[d]);
    maxForward = std::max(maxForward, forward[d]);
    maxBackward = std::max(maxBackward, backward[d]);
  }
  return diffMaxima ? maxForward + maxBackward : maxLoad;
}

bool isForwardEdge(const Workload& w, NodeIndex u, NodeIndex x) {
  return !w.nodes[u].isBackward && !w.nodes[x].isBackward;
}

/// Each device's forward nodes form a convex set of the forward graph.
bool isConvexPlacement(const Workload& w, const Placement& p) {
  std::vector<char> reached(w.numNodes());
  for (int d = 0; d < p.numDevices(); ++d) {
    std::fill(reached.begin(), reached.end(), 0);
    for (NodeIndex v : w.topologicalOrder) {
      if (w.nodes[v].isBackward) continue;
      const bool inside = p.deviceOf[v] == d;
      bool fromOutsideReached = false;
      for (NodeIndex u : w.predecessors(v)) {
        if (w.nodes[u].isBackward) continue;
        if (reached[u]) reached[v] = 1;
        if (reached[u] && p.deviceOf[u] != d) fromOutsideReached = true;
      }
      if (inside) {
        if (fromOutsideReached) return false;  // a path left d and re-enters here
        reached[v] = 1;
      }
    }
  }
  return true;
}

/// Piece index per node on its accelerator (DESIGN §5): 1 + the largest number
/// of re-entries along a path ending at it; 0 for CPU nodes.
std::vector<int> pieceIndices(const Workload& w, const Placement& p) {
  const int n = w.numNodes();
  std::vector<int> piece(n, 0), level(n, 0);
  for (int a = 0; a < p.numAccelerators; ++a) {
    // level[v]: the largest number of maximal runs inside a on a path ending at v.
    for (NodeIndex v : w.topologicalOrder) {
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

/// Latency of a placement (DESIGN §5), or nullopt when some accelerator needs
/// more than q pieces or pieces wait on each other in a cycle.
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
    duration[taskOf(v)] += piece[v] > 0 ? w.nodes[v].fpgaLatency : w.nodes[v].cpuLatency;
  for (NodeIndex u = 0; u < n; ++u) {
    const int tu = taskOf(u);
    bool paidOut = false;
    std::set<int> paidIn;
    for (NodeIndex x : w.successors(u)) {
      const int tx = taskOf(x);
      if (tx == tu) continue;
      after[tu].push_back(tx);
      if (piece[u] > 0 && !paidOut) {
        paidOut = true;
        duration[tu] += w.outCost[u];
      }
      if (piece[x] > 0 && paidIn.insert(tx).second) duration[tx] += w.outCost[u];
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

/// Relabels identical devices so accelerators (and CPU cores) appear in order
/// of their lowest class index, empty ones last: the representative the
/// symmetry-breaking rows admit. For latency all CPU nodes go to core 0.
Placement canonical(const Workload& w, const Placement& p, bool latency) {
  std::vector<int> lowestClass(p.numDevices(), std::numeric_limits<int>::max());
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    lowestClass[p.deviceOf[v]] = std::min(lowestClass[p.deviceOf[v]], w.classOf[v]);
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

// ---------------------------------------------------------------------------
// A small linear-model builder on top of OsiClp.

struct Linear {
  std::vector<std::pair<int, double>> terms;
  double constant = 0;
  Linear& add(int column, double coefficient) {
    if (column >= 0 && coefficient != 0) terms.emplace_back(column, coefficient);
    return *this;
  }
  Linear& add(const Linear& other, double factor) {
    for (const auto& [column, coefficient] : other.terms) add(column, coefficient * factor);
    constant += other.constant * factor;
    return *this;
  }
  bool isZero() const { return terms.empty() && constant == 0; }
};

class ModelBuilder {
 public:
  int addColumn(std::string name, double lower, double upper, double objective, bool integer) {
    names_.push_back(std::move(name));
    lower_.push_back(lower);
    upper_.push_back(upper);
    objective_.push_back(objective);
    integer_.push_back(integer);
    return static_cast<int>(lower_.size()) - 1;
  }
  /// lower ≤ expr ≤ upper; rows without variables are dropped (callers only
  /// build those when they hold trivially).
  void addRow(std::string name, const Linear& expr, double lower, double upper) {
    std::map<int, double> merged;
    for (const auto& [column, coefficient] : expr.terms) merged[column] += coefficient;
    const std::size_t before = rowColumns_.size();
    for (const auto& [column, coefficient] : merged)
      if (coefficient != 0) {
        rowColumns_.push_back(column);
        rowValues_.push_back(coefficient);
      }
    if (rowColumns_.size() == before) return;
    rowStart_.push_back(static_cast<int>(rowColumns_.size()));
    rowNames_.push_back(std::move(name));
    rowLower_.push_back(lower == -kInfinity ? -COIN_DBL_MAX : lower - expr.constant);
    rowUpper_.push_back(upper == kInfinity ? COIN_DBL_MAX : upper - expr.constant);
  }
  int numColumns() const { return static_cast<int>(lower_.size()); }
  int numRows() const { return static_cast<int>(rowNames_.size()); }
  bool isInteger(int column) const { return integer_[column]; }

  std::unique_ptr<OsiClpSolverInterface> build() const {
    // Built in one piece: appending rows one by one is quadratic.
    std::vector<int> lengths(numRows());
    for (int r = 0; r < numRows(); ++r) lengths[r] = rowStart_[r + 1] - rowStart_[r];
    CoinPackedMatrix matrix(false, numColumns(), numRows(), rowStart_.back(), rowValues_.data(),
                            rowColumns_.data(), rowStart_.data(), lengths.data());
    std::vector<double> lower(lower_), upper(upper_);
    for (auto& u : upper)
      if (u == kInfinity) u = COIN_DBL_MAX;
    auto solver = std::make_unique<OsiClpSolverInterface>();
    leakingOnThrow(solver, [&] {
      solver->messageHandler()->setLogLevel(0);
      solver->loadProblem(matrix, lower.data(), upper.data(), objective_.data(), rowLower_.data(),
                          rowUpper_.data());
      for (int c = 0; c < numColumns(); ++c) {
        if (integer_[c]) solver->setInteger(c);
        solver->setColName(c, names_[c]);
      }
      for (int r = 0; r < numRows(); ++r) solver->setRowName(r, rowNames_[r]);
    });
    return solver;
  }

 private:
  std::vector<std::string> names_;
  std::vector<double> lower_, upper_, objective_;
  std::vector<char> integer_;
  std::vector<int> rowStart_{0}, rowColumns_;  ///< rows in CSR form
  std::vector<double> rowValues_;
  std::vector<std::string> rowNames_;
  std::vector<double> rowLower_, rowUpper_;
};

std::string name(const char* prefix, std::initializer_list<long> indices) {
  std::string text = prefix;
  for (long i : indices) text += "_" + std::to_string(i);
  return text;
}

// ---------------------------------------------------------------------------
// The two models. Both assign classes to devices through binaries x[c][d]
// (−1 where class c may not use device d) and read a placement back from them.

struct Model {
  ModelBuilder builder;
  int numAccelerators = 0;
  int numCpuDevices = 0;                ///< throughput: ℓ cores; latency: 1 pool (or 0)
  std::vector<std::vector<int>> x;      ///< x[c][d]
  int objectiveColumn = -1;             ///< T or L (throughput with diffMaxima: −1)
  double simpleBound = 0;               ///< a bound known without solving anything
  /// Integer column values for a placement (others are solved for by an LP).
  std::function<std::vector<std::pair<int, double>>(const Placement&)> integerValues;
};

/// Rows that keep only the representative of identical devices
/// first..first+count−1: device i holds class c only if device i−1 holds a
/// class of lower index (so devices are ordered by lowest class, empty last).
void breakSymmetry(Model* m, int first, int count, const char* label) {
  const int classes = static_cast<int>(m->x.size());
  for (int i = 1; i < count; ++i) {
    const int d = first + i;
    Linear lowerOnPrevious;
    for (int c = 0; c < classes; ++c) {
      if (m->x[c][d] >= 0) {
        Linear row;
        row.add(m->x[c][d], 1).add(lowerOnPrevious, -1);
        m->builder.addRow(name(label, {c, i}), row, -kInfinity, 0);
      }
      lowerOnPrevious.add(m->x[c][d - 1], 1);
    }
  }
}

void addAssignmentAndMemory(const Workload& w, const std::vector<ClassInfo>& info, Model* m) {
  const int devices = m->numAccelerators + m->numCpuDevices;
  for (int c = 0; c < w.numClasses; ++c) {
    Linear row;
    for (int d = 0; d < devices; ++d) row.add(m->x[c][d], 1);
    m->builder.addRow(name("assign", {c}), row, 1, 1);
  }
  for (int a = 0; a < m->numAccelerators; ++a) {
    Linear row;
    double total = 0;
    for (int c = 0; c < w.numClasses; ++c) {
      row.add(m->x[c][a], info[c].size);
      if (m->x[c][a] >= 0) total += info[c].size;
    }
    if (total > w.machine.maxSizePerFpga)
      m->builder.addRow(name("memory", {a}), row, -kInfinity, w.machine.maxSizePerFpga);
  }
}

std::vector<std::vector<int>> classColumns(const Workload& w, const Allowed& allowed,
                                           int accelerators, int cpuDevices,
                                           ModelBuilder* builder) {
  // Symmetry breaking (with breakSymmetry): the r-th class (0-based) that may
  // use a kind of device can only be on the first r+1 devices of that kind.
  std::vector<std::vector<int>> x(w.numClasses, std::vector<int>(accelerators + cpuDevices, -1));
  int acceleratorRank = 0, cpuRank = 0;
  for (int c = 0; c < w.numClasses; ++c) {
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

/// Throughput model (DESIGN §3, §4 for Convex).
Model throughputModel(const Workload& w, const std::vector<ClassInfo>& info,
                      const Allowed& allowed, const SolveOptions& options) {
  Model m;
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
    m.simpleBound = trivialThroughputLowerBound(w);
    m.objectiveColumn = b.addColumn("maxLoad", m.simpleBound, kInfinity, 1, false);
  }
  addAssignmentAndMemory(w, info, &m);

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
    if (w.outCost[u] == 0) continue;
    std::set<int> targets;
    for (NodeIndex x : w.successors(u))
      if (w.classOf[x] != w.classOf[u]) targets.insert(w.classOf[x]);
    if (targets.empty()) continue;
    Group g{w.classOf[u], {targets.begin(), targets.end()},
            options.diffMaxima && w.nodes[u].isBackward};
    groups[g] += w.outCost[u];
  }
  std::vector<Linear> forwardLoad(devices), backwardLoad(devices);
  for (int d = 0; d < devices; ++d)
    for (int c = 0; c < w.numClasses; ++c) {
      const bool acc = d < k;
      forwardLoad[d].add(m.x[c][d], acc ? info[c].fpgaForward : info[c].cpuForward);
      backwardLoad[d].add(m.x[c][d], acc ? info[c].fpgaBackward : info[c].cpuBackward);
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
    for (auto it = w.topologicalOrder.rbegin(); it != w.topologicalOrder.rend(); ++it) {
      const NodeIndex u = *it;
      for (NodeIndex x : w.successors(u))
        if (isForwardEdge(w, u, x) && (w.classOf[u] != w.classOf[x] || needsReach[x]))
          needsReach[u] = 1;
    }
    for (int d = 0; d < devices; ++d) {
      std::vector<int> reach(w.numNodes(), -1);
      for (NodeIndex v = 0; v < w.numNodes(); ++v) {
        if (w.nodes[v].isBackward || !needsReach[v]) continue;
        reach[v] = b.addColumn(name("reach", {v, d}), 0, 1, 0, false);
        Linear row;
        row.add(reach[v], 1).add(m.x[w.classOf[v]][d], -1);
        b.addRow(name("reachSelf", {v, d}), row, 0, kInfinity);
      }
      for (NodeIndex u = 0; u < w.numNodes(); ++u) {
        if (reach[u] < 0) continue;
        for (NodeIndex x : w.successors(u)) {
          if (!isForwardEdge(w, u, x)) continue;
          if (reach[x] >= 0) {
            Linear row;
            row.add(reach[x], 1).add(reach[u], -1);
            b.addRow(name("reachEdge", {u, x, d}), row, 0, kInfinity);
          }
          if (w.classOf[u] != w.classOf[x] && m.x[w.classOf[x]][d] >= 0) {
            Linear row;
            row.add(m.x[w.classOf[x]][d], 1).add(reach[u], 1).add(m.x[w.classOf[u]][d], -1);
            b.addRow(name("convex", {u, x, d}), row, -kInfinity, 1);
          }
        }
      }
    }
  }

  const auto xColumns = m.x;
  m.integerValues = [xColumns, &w](const Placement& p) {
    std::vector<std::pair<int, double>> values;
    for (int c = 0; c < w.numClasses; ++c) {
      const int d = p.deviceOf[w.classMembers(c).front()];
      for (int e = 0; e < static_cast<int>(xColumns[c].size()); ++e)
        if (xColumns[c][e] >= 0) values.emplace_back(xColumns[c][e], e == d ? 1.0 : 0.0);
    }
    return values;
  };
  return m;
}

/// Latency model (DESIGN §5), `upperBound` a known latency (or ∞).
Model latencyModel(const Workload& w, const std::vector<ClassInfo>& info, const Allowed& allowed,
                   int q, double upperBound) {
  Model m;
  const int k = w.machine.maxFpgas, n = w.numNodes();
  m.numAccelerators = k;
  m.numCpuDevices = allowed.cpu ? 1 : 0;
  m.x = classColumns(w, allowed, k, m.numCpuDevices, &m.builder);
  auto& b = m.builder;
  addAssignmentAndMemory(w, info, &m);
  breakSymmetry(&m, 0, k, "symAcc");

  // Big-M: no finish time of a plan at least as good as the incumbent exceeds
  // its latency; without one, running everything one after another bounds it.
  double bigM = upperBound;
  if (bigM == kInfinity) {
    bigM = 0;
    for (NodeIndex v = 0; v < n; ++v)
      bigM += std::max(w.nodes[v].cpuLatency, w.nodes[v].fpgaLatency) +
              w.outCost[v] * (1 + static_cast<double>(w.successors(v).size()));
  }
  bigM = bigM * (1 + 1e-7) + 1e-9;

  auto xOf = [&](NodeIndex v, int a) { return m.x[w.classOf[v]][a]; };
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
    for (int c = 0; c < w.numClasses; ++c) anyAllowed |= m.x[c][a] >= 0;
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
        const bool sameClass = w.classOf[u] == w.classOf[v];
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
        for (int j = 0; j < q; ++j)
          b.addRow(name("levelUp", {v, a, j + 1}), upper[j], -kInfinity, 0);
    }
  }

  // Timing.
  // Per node, no finish before the compute path to it. The split-path bound
  // (latency_bound.hpp) counts the communication that memory and device
  // counts force onto the critical path, which the big-M relaxation cannot
  // see; as the latency column's floor it also lets CBC stop once an
  // incumbent reaches it.
  const LatencyLowerBound bound = latencyLowerBound(w, allowed.accelerator, allowed.cpu, q);
  const std::vector<double>& head = bound.earliestFinish;
  const double floor = bound.value();
  const double timeUpper = upperBound == kInfinity ? kInfinity : bigM;
  const int latency = b.addColumn("latency", std::min(floor, timeUpper), timeUpper, 1, false);
  m.simpleBound = floor;
  m.objectiveColumn = latency;
  std::vector<int> finish(n);
  for (NodeIndex v = 0; v < n; ++v)
    finish[v] = b.addColumn(name("finish", {v}), head[v], timeUpper, 0, false);
  for (NodeIndex v = 0; v < n; ++v) {
    const double cpuTime = cpuDevice >= 0 ? w.nodes[v].cpuLatency : 0;
    Linear own;
    own.add(finish[v], 1).add(cpuDevice >= 0 ? xOf(v, cpuDevice) : -1, -cpuTime);
    b.addRow(name("cpuSelf", {v}), own, 0, kInfinity);
    for (NodeIndex u : w.predecessors(v)) {
      Linear row;
      row.add(finish[v], 1).add(finish[u], -1).add(cpuDevice >= 0 ? xOf(v, cpuDevice) : -1,
                                                    -cpuTime);
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
    for (int c = 0; c < w.numClasses; ++c) anyAllowed |= m.x[c][a] >= 0;
    if (!anyAllowed) continue;
    int previousFinish = -1;
    for (int j = 0; j < q; ++j) {
      const int start = b.addColumn(name("start", {a, j + 1}), 0, timeUpper, 0, false);
      const int end = b.addColumn(name("end", {a, j + 1}), 0, timeUpper, 0, false);
      Linear duration;
      for (NodeIndex v = 0; v < n; ++v) duration.add(slot[v][a][j], w.nodes[v].fpgaLatency);
      for (NodeIndex u = 0; u < n; ++u) {
        // Which successors may sit in another subgraph than u?
        std::vector<NodeIndex> others;
        for (NodeIndex x : w.successors(u))
          if (q >= 2 || w.classOf[x] != w.classOf[u]) others.push_back(x);
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
        duration.add(in, w.outCost[u]).add(out, w.outCost[u]);
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
    std::vector<std::pair<int, double>> values;
    for (int c = 0; c < w.numClasses; ++c) {
      const int d = p.deviceOf[w.classMembers(c).front()];
      for (int e = 0; e < static_cast<int>(xColumns[c].size()); ++e)
        if (xColumns[c][e] >= 0) values.emplace_back(xColumns[c][e], e == d ? 1.0 : 0.0);
    }
    if (q >= 2) {
      const std::vector<int> piece = pieceIndices(w, p);
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

// ---------------------------------------------------------------------------
// Running CBC.

/// Stops the search on Ctrl-C or at the wall-clock deadline, and reports
/// progress at most twice a second.
class StopHandler : public CbcEventHandler {
 public:
  StopHandler(const SolveOptions* options, Clock::time_point start, double deadlineSeconds)
      : options_(options), start_(start), deadline_(deadlineSeconds) {}
  CbcEventHandler* clone() const override { return new StopHandler(*this); }
  CbcAction event(CbcEvent) override {
    const double elapsed = secondsSince(start_);
    if (options_->progress && model_ && elapsed - lastReport_ >= 0.5) {
      lastReport_ = elapsed;
      std::ostringstream line;
      line << "milp: " << elapsed << " s, nodes " << model_->getNodeCount() << ", bound "
           << model_->getBestPossibleObjValue();
      if (model_->bestSolution()) line << ", incumbent " << model_->getObjValue();
      options_->progress(line.str());
    }
    const bool interrupted = options_->interrupt && options_->interrupt->load();
    return interrupted || elapsed >= deadline_ ? stop : noAction;
  }

 private:
  const SolveOptions* options_;
  Clock::time_point start_;
  double deadline_;
  double lastReport_ = 0;
};

struct CbcResult {
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool hasSolution = false;
  std::vector<double> solution;
  double bound = -kInfinity;
  std::string note;
};

/// A complete MILP solution extending the given integer values: fix them and
/// solve the LP for the continuous columns. Empty when that LP is infeasible.
std::vector<double> completeSolution(const OsiClpSolverInterface& base,
                                     const std::vector<std::pair<int, double>>& integers,
                                     double seconds, double* objective, std::string* why = nullptr) {
  std::unique_ptr<OsiClpSolverInterface> lp(dynamic_cast<OsiClpSolverInterface*>(base.clone()));
  return leakingOnThrow(lp, [&]() -> std::vector<double> {
    lp->getModelPtr()->setMaximumWallSeconds(seconds);
    for (const auto& [column, value] : integers) {
      lp->setColLower(column, value);
      lp->setColUpper(column, value);
    }
    for (int c = 0; c < lp->getNumCols(); ++c) lp->setContinuous(c);
    lp->messageHandler()->setLogLevel(0);
    lp->initialSolve();
    if (!lp->isProvenOptimal()) {
      if (why)
        *why = lp->isProvenPrimalInfeasible() ? "rejected by the model"
               : lp->getModelPtr()->status() == 3  // Clp: stopped on iterations or time
                   ? "not given to CBC: completing it took more than " + json_input::formatNumber(seconds) + " s"
                   : "not given to CBC: completing it ended with LP status " +
                         std::to_string(lp->getModelPtr()->status());
      return {};
    }
    *objective = lp->getObjValue();
    return {lp->getColSolution(), lp->getColSolution() + lp->getNumCols()};
  });
}

CbcResult runCbc(OsiClpSolverInterface& solver, const std::vector<double>& start,
                 double startObjective, const SolveOptions& options, Clock::time_point began) {
  CbcResult result;
  const double remaining = std::max(0.5, options.timeLimitSeconds - secondsSince(began));
  auto model = std::make_unique<CbcModel>(solver);
  leakingOnThrow(model, [&] {
    model->setLogLevel(0);
    model->messageHandler()->setLogLevel(0);
    model->solver()->messageHandler()->setLogLevel(0);
    model->setUseElapsedTime(true);
    model->setMaximumSeconds(remaining);
    model->setAllowableFractionGap(options.relativeGap);
    model->setAllowableGap(1e-9);
    CbcStrategyDefault strategy(1, 5, 5);
    model->setStrategy(strategy);
    StopHandler handler(&options, began, options.timeLimitSeconds);
    model->passInEventHandler(&handler);
    if (!start.empty())
      model->setBestSolution(start.data(), static_cast<int>(start.size()), startObjective, true);
    model->branchAndBound();

    // An LP that hit the wall-clock limit inside CBC leaves its bound unproven.
    const bool abandoned = model->isAbandoned();
    result.provenInfeasible = !abandoned && model->isProvenInfeasible() && !model->bestSolution();
    result.provenOptimal = !abandoned && model->isProvenOptimal() && model->bestSolution();
    // Stopped before any node was processed (inside the root's cut or
    // heuristic passes), CBC may report the incumbent as its bound: only
    // trust its bound once the search tree exists or the search finished.
    const bool boundProven = !abandoned && (result.provenOptimal || model->getNodeCount() > 0);
    result.bound = boundProven ? model->getBestPossibleObjValue() : -kInfinity;
    if (abandoned) result.note = "CBC abandoned the search (an LP hit the time limit)";
    if (model->bestSolution()) {
      result.hasSolution = true;
      result.solution.assign(model->bestSolution(), model->bestSolution() + model->getNumCols());
    }
    if (model->isSecondsLimitReached() && result.note.empty()) result.note = "time limit reached";
  });
  return result;
}

/// Cheaper methods whose best plan warm-starts the integer program.
std::vector<std::pair<std::string, double>> warmStartMethods(const SolveOptions& options) {
  // Shares of the time limit. The DP optimum is the strongest start and
  // sometimes needs a while (InceptionV3: ~36 s here), so it gets the most.
  if (options.objective == Objective::Latency)
    return {{"greedy", 0.05}, {"single", 0.02}, {"cpu", 0.02}, {"dp", 0.4}};
  return {{"scotch", 0.05}, {"single", 0.02}, {"cpu", 0.02}, {"local-search", 0.1}, {"dp", 0.7}};
}

struct Candidate {
  Placement placement;
  double objective = kInfinity;
  std::string method;
};

/// Our objective for a placement, or nullopt when it is not a plan of the
/// problem the model solves.
std::optional<double> objectiveFor(const Workload& w, const Placement& p,
                                   const SolveOptions& options) {
  if (p.numAccelerators != w.machine.maxFpgas || p.numCpus != w.machine.maxCpus) return std::nullopt;
  if (!placementProblem(w, p).empty()) return std::nullopt;
  if (options.objective == Objective::Latency) return latencyOf(w, p, options.q);
  if (options.contiguity == Contiguity::Convex && !isConvexPlacement(w, p)) return std::nullopt;
  return throughputObjective(w, p, options.diffMaxima);
}

/// First-improvement descent over moves of one color class to another
/// accelerator or to the CPU, scored by the exact latency; stops at a local
/// optimum, the time budget or Ctrl-C.
void polishLatency(const Workload& w, const SolveOptions& options, const Allowed& allowed,
                   double seconds, Candidate* best) {
  const auto began = Clock::now();
  const int k = w.machine.maxFpgas;
  Placement p = best->placement;
  std::vector<double> memory(k, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v)
    if (p.deviceOf[v] < k) memory[p.deviceOf[v]] += w.nodes[v].size;
  std::vector<double> classSize(w.numClasses, 0);
  for (NodeIndex v = 0; v < w.numNodes(); ++v) classSize[w.classOf[v]] += w.nodes[v].size;
  double value = best->objective;
  auto moveClass = [&](int c, int to) {
    const int from = p.deviceOf[w.classMembers(c).front()];
    if (from < k) memory[from] -= classSize[c];
    if (to < k) memory[to] += classSize[c];
    for (NodeIndex v : w.classMembers(c)) p.deviceOf[v] = to;
  };
  bool improved = true, improvedAny = false;
  while (improved) {
    improved = false;
    for (int c = 0; c < w.numClasses; ++c) {
      if (secondsSince(began) > seconds || (options.interrupt && options.interrupt->load())) {
        improved = false;
        break;
      }
      const int from = p.deviceOf[w.classMembers(c).front()];
      bool triedEmpty = false;
      for (int to = 0; to <= k; ++to) {
        if (to == from) continue;
        if (to < k) {
          if (!allowed.accelerator[c] ||
              memory[to] + classSize[c] > w.machine.maxSizePerFpga * (1 + 1e-12))
            continue;
          if (memory[to] == 0) {  // empty accelerators are interchangeable
            bool empty = true;
            for (NodeIndex v = 0; v < w.numNodes() && empty; ++v) empty = p.deviceOf[v] != to;
            if (empty && triedEmpty) continue;
            triedEmpty |= empty;
          }
        } else if (!allowed.cpu) {
          continue;
        }
        moveClass(c, to);
        const auto moved = latencyOf(w, p, options.q);
        if (moved && *moved < value * (1 - 1e-12)) {
          value = *moved;
          improved = improvedAny = true;
          break;
        }
        moveClass(c, from);
      }
    }
  }
  if (improvedAny)
    *best = {canonical(w, p, true), value, best->method + " + latency descent"};
}

/// One local-search descent from the candidate; kept when it is still a plan
/// of the model's problem and strictly better.
void polish(const Workload& w, const SolveOptions& options, const Allowed& allowed,
            double seconds, Candidate* best) {
  if (best->objective == kInfinity) return;
  if (options.interrupt && options.interrupt->load()) return;
  if (options.objective == Objective::Latency) {
    polishLatency(w, options, allowed, seconds, best);
    return;
  }
  SolveOptions sub = options;
  sub.timeLimitSeconds = std::max(0.1, seconds);
  sub.progress = nullptr;
  const SolveOutcome o = localSearchFrom(w, best->placement, sub);
  if ((o.status != SolveStatus::Optimal && o.status != SolveStatus::Feasible) || !o.placement)
    return;
  const auto value = objectiveFor(w, *o.placement, options);
  if (value && *value < best->objective * (1 - 1e-12))
    *best = {canonical(w, *o.placement, false), *value, best->method + " + local search"};
}

std::string extension(const std::string& path) {
  const auto dot = path.rfind('.');
  if (dot == std::string::npos) return "";
  std::string ext = path.substr(dot + 1);
  for (auto& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext;
}

SolveOutcome solveMilpOn(const Workload& w, const SolveOptions& options) {
  const auto began = Clock::now();
  SolveOutcome outcome;
  const bool latency = options.objective == Objective::Latency;
  if (latency && options.q < 1) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "q must be at least 1";
    return outcome;
  }
  if (!options.writeModelPath.empty()) {
    const std::string ext = extension(options.writeModelPath);
    if (ext != "lp" && ext != "mps") {
      outcome.status = SolveStatus::InvalidInput;
      outcome.message = "--write-model: '" + options.writeModelPath +
                        "' must end in .lp or .mps";
      return outcome;
    }
    // CBC's writers throw, or print to stdout, on a path they cannot open:
    // find out first, in one line.
    std::FILE* file = std::fopen(options.writeModelPath.c_str(), "w");
    if (!file) {
      outcome.status = SolveStatus::InvalidInput;
      outcome.message = "--write-model: " + options.writeModelPath + ": cannot write: " + std::strerror(errno);
      return outcome;
    }
    std::fclose(file);
  }
  if (latency && options.contiguity == Contiguity::Convex) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "--contiguity applies to the throughput objective only";
    return outcome;
  }
  const std::vector<ClassInfo> info = classInfo(w);
  Allowed allowed;
  // Latency: CPU nodes run on as many cores as needed, but need at least one to exist.
  const std::string why = allowedDevices(w, info, w.machine.maxCpus > 0, &allowed);
  if (!why.empty()) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = why;
    return outcome;
  }

  // Warm start: the best plan of the cheaper methods that succeed.
  Candidate best;
  std::vector<std::string> tried;
  for (const auto& [method, share] : warmStartMethods(options)) {
    if (options.interrupt && options.interrupt->load()) break;
    SolveOptions sub = options;
    sub.timeLimitSeconds = std::max(0.2, options.timeLimitSeconds * share);
    sub.progress = nullptr;
    sub.writeModelPath.clear();
    // Local search is cheap per restart: use the time it is given.
    if (method == "local-search") sub.restarts = std::max(options.restarts, 1000);
    SolveOutcome o = solve(w, method, sub);
    if ((o.status != SolveStatus::Optimal && o.status != SolveStatus::Feasible) || !o.placement)
      continue;
    Placement p = canonical(w, *o.placement, latency);
    const auto value = objectiveFor(w, p, options);
    if (!value) continue;
    tried.push_back(method + " " + std::to_string(*value));
    if (*value < best.objective) best = {p, *value, method};
  }

  polish(w, options, allowed, (latency ? 0.25 : 0.05) * options.timeLimitSeconds, &best);

  Model model = latency ? latencyModel(w, info, allowed, options.q, best.objective)
                        : throughputModel(w, info, allowed, options);
  std::unique_ptr<OsiClpSolverInterface> solver = model.builder.build();
  std::ostringstream notes;
  notes << (latency ? "latency, q = " + std::to_string(options.q)
                    : std::string("throughput") + (options.diffMaxima ? " (diffmaxima)" : "") +
                          (options.contiguity == Contiguity::Convex
                               ? ", convex blocks (forward paths never re-enter a device)"
                               : ", any placement"))
        << "; model " << model.builder.numRows() << " rows, " << model.builder.numColumns()
        << " columns";

  if (!options.writeModelPath.empty()) {
    const std::string& path = options.writeModelPath;
    const std::string stem = path.substr(0, path.rfind('.'));
    // Full precision (the writers default to 5 decimals) and no compression.
    if (extension(path) == "lp") {
      solver->writeLp(stem.c_str(), "lp", 1e-14, 10, 15);
    } else {
      std::vector<std::string> rowNames, columnNames;
      for (int r = 0; r < solver->getNumRows(); ++r) rowNames.push_back(solver->getRowName(r));
      for (int c = 0; c < solver->getNumCols(); ++c) columnNames.push_back(solver->getColName(c));
      std::vector<char> integerType(solver->getNumCols());
      for (int c = 0; c < solver->getNumCols(); ++c) integerType[c] = solver->isInteger(c) ? 1 : 0;
      auto writer = std::make_unique<CoinMpsIO>();
      writer->messageHandler()->setLogLevel(0);
      // The char* overload: CoinUtils 2.11's std::vector<std::string> one leaks the names.
      std::vector<const char*> rowPointers, columnPointers;
      for (const auto& text : rowNames) rowPointers.push_back(text.c_str());
      for (const auto& text : columnNames) columnPointers.push_back(text.c_str());
      leakingOnThrow(writer, [&] {
        writer->setMpsData(*solver->getMatrixByCol(), solver->getInfinity(), solver->getColLower(),
                           solver->getColUpper(), solver->getObjCoefficients(), integerType.data(),
                           solver->getRowLower(), solver->getRowUpper(), columnPointers.data(),
                           rowPointers.data());
        writer->writeMps(path.c_str(), 0, 1, 2);
      });
    }
  }

  std::vector<double> start;
  double startObjective = 0;
  if (best.objective < kInfinity) {
    std::string why;
    start = completeSolution(*solver, model.integerValues(best.placement), std::max(0.2, 0.2 * options.timeLimitSeconds),
                             &startObjective, &why);
    notes << "; warm start " << best.method << " " << best.objective;
    if (start.empty()) notes << " (" << why << ")";
  }

  // The root LP relaxation first, under a wall-clock limit CBC itself would
  // not apply to it (large latency models take minutes); its optimum is a
  // proven bound, and its basis starts CBC.
  const double secondsLeft = options.timeLimitSeconds - secondsSince(began);
  solver->getModelPtr()->setMaximumWallSeconds(std::max(0.2, secondsLeft));
  leakingOnThrow(solver, [&] { solver->initialSolve(); });
  const bool rootSolved = solver->isProvenOptimal();
  const bool rootInfeasible = solver->isProvenPrimalInfeasible();
  const double rootBound = rootSolved ? solver->getObjValue() : -kInfinity;
  CbcResult cbc;
  if (rootSolved && !(options.interrupt && options.interrupt->load()) &&
      secondsSince(began) < options.timeLimitSeconds) {
    solver->getModelPtr()->setMaximumWallSeconds(
        std::max(0.2, options.timeLimitSeconds - secondsSince(began)));
    cbc = runCbc(*solver, start, startObjective, options, began);
  } else if (rootInfeasible) {
    cbc.provenInfeasible = true;
  } else {
    cbc.bound = rootBound;
    cbc.note = rootSolved ? "stopped after the LP relaxation"
                          : "the LP relaxation did not finish within the time limit";
  }
  cbc.bound = std::max({cbc.bound, rootBound, model.simpleBound});

  // Read the plan back from the class columns.
  if (cbc.hasSolution) {
    Placement p;
    p.numAccelerators = w.machine.maxFpgas;
    p.numCpus = w.machine.maxCpus;
    p.deviceOf.assign(w.numNodes(), Placement::kUnplaced);
    for (NodeIndex v = 0; v < w.numNodes(); ++v) {
      const auto& columns = model.x[w.classOf[v]];
      for (int d = 0; d < static_cast<int>(columns.size()); ++d)
        if (columns[d] >= 0 && cbc.solution[columns[d]] > 0.5) p.deviceOf[v] = d;
    }
    const auto value = objectiveFor(w, p, options);
    if (value && *value < best.objective * (1 - 1e-12)) best = {p, *value, "milp"};
    if (!value) notes << "; the integer solution did not check out, keeping the warm start";
  }
  polish(w, options, allowed, std::min(5.0, 0.05 * options.timeLimitSeconds), &best);

  if (best.objective == kInfinity) {
    outcome.status = cbc.provenInfeasible ? SolveStatus::Infeasible : SolveStatus::NoSolution;
    outcome.message = cbc.provenInfeasible
                          ? "no placement satisfies the memory and device constraints"
                          : "stopped before finding a feasible plan (" +
                                (cbc.note.empty() ? std::string("interrupted") : cbc.note) + ")";
    outcome.seconds = secondsSince(began);
    return outcome;
  }
  outcome.placement = best.placement;
  outcome.objective = best.objective;
  // CBC's bound; when it proved optimality up to the relative gap, honestly
  // only objective × (1 − gap) is proven unless its bound says less.
  double bound = cbc.bound;
  if (cbc.provenOptimal) bound = std::min(bound, best.objective * (1 - options.relativeGap));
  bound = std::max(bound, model.simpleBound);  // proven without CBC
  if (!std::isfinite(bound)) bound = 0;
  bound = std::max(0.0, std::min(bound, best.objective));
  outcome.lowerBound = bound;
  const bool withinGap = best.objective - bound <= options.relativeGap * best.objective + 1e-9;
  outcome.status = cbc.provenOptimal && withinGap ? SolveStatus::Optimal : SolveStatus::Feasible;
  const bool interrupted = options.interrupt && options.interrupt->load();
  if (interrupted) notes << "; interrupted";
  if (!cbc.note.empty()) notes << "; " << cbc.note;
  notes << "; best plan from " << best.method;
  outcome.message = notes.str();
  outcome.seconds = secondsSince(began);
  return outcome;
}

}  // namespace

SolveOutcome solveMilp(const Workload& w, const SolveOptions& options) {
  // The model needs no more columns than classes per device type.
  return baseline::onAtMostOneDevicePerClass(w, [&](const Workload& on) { return solveMilpOn(on, options); });
}

std::optional<MilpModelSize> readMilpModel(const std::string& path, std::string* error) {
  const std::string ext = extension(path);
  MilpModelSize size;
  if (ext == "lp") {
    CoinLpIO reader;
    reader.messageHandler()->setLogLevel(0);
    try {
      reader.readLp(path.c_str());
    } catch (const CoinError& e) {
      *error = path + ": not a readable LP file: " + e.message();
      return std::nullopt;
    }
    size.rows = reader.getNumRows();
    size.columns = reader.getNumCols();
    for (int c = 0; c < size.columns; ++c) size.integers += reader.isInteger(c) ? 1 : 0;
  } else if (ext == "mps") {
    CoinMpsIO reader;
    reader.messageHandler()->setLogLevel(0);
    if (reader.readMps(path.c_str(), "") != 0) {
      *error = path + ": not a readable MPS file";
      return std::nullopt;
    }
    size.rows = reader.getNumRows();
    size.columns = reader.getNumCols();
    for (int c = 0; c < size.columns; ++c) size.integers += reader.isInteger(c) ? 1 : 0;
  } else {
    *error = path + ": expected a .lp or .mps file";
    return std::nullopt;
  }
  return size;
}

}  // namespace dnnplace
