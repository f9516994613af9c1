#include "bounds/latency_bound.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <utility>

#include "bounds/latency_paths.hpp"
#include "objective/class_totals.hpp"

namespace dnnplace {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool pastDeadline(std::chrono::steady_clock::time_point deadline) {
  return std::chrono::steady_clock::now() > deadline;
}

/// The split path's data along the path (latency_bound.hpp), one entry per path node.
struct PathData {
  int n = 0;
  int maxRuns = 0;
  std::vector<char> cpuSide;     ///< the node may end on a CPU core (or runs nowhere: free)
  std::vector<double> cpuTime;   ///< its time there
  std::vector<double> fpgaTime;  ///< its accelerator latency
  std::vector<double> sent;      ///< [i]: the output of node i - 1 (0 for i = 0)
  /// [i]: the first j such that nodes j..i may form one accelerator run
  /// (all on accelerators, their classes fit one); i + 1 when none may.
  std::vector<int> runStart;
};

/// The exact DP's cells of path node i: ending on a CPU core, ending a run.
std::size_t cpuCell(int i) { return 2 * static_cast<std::size_t>(i); }
std::size_t runCell(int i) { return 2 * static_cast<std::size_t>(i) + 1; }

/// A (time, runs) pair of a partial split; compared on time + penalty · runs.
struct Partial {
  double time = kInfinity;
  int runs = 0;
};

/// One pass of the split-path DP over the path. With `layer` < 0, the runs
/// are not counted against maxRuns: each run adds `penalty` to the
/// comparison (the Lagrangian relaxation of the device limit), and the
/// result is the best (time, runs). With `layer` = r ≥ 1, `previous` holds
/// the best times with r - 1 runs ending at each node ([2i]: on a CPU core,
/// [2i + 1]: ending a run), and `current` receives those with r runs.
class SplitPass {
 public:
  explicit SplitPass(const PathData& data) : d_(data), front_(data.n) {}

  /// The penalized pass: the best split ending anywhere at the last node.
  Partial penalized(double penalty) {
    penalty_ = penalty;
    std::vector<Partial> cpu(d_.n), run(d_.n);
    reset(0);
    for (int i = 0; i < d_.n; ++i) {
      run[i] = runEnding(i, [&](int j) {
        if (j == 0) return Partial{0, 1};
        const double s = d_.sent[j];
        Partial best = better(shifted(cpu[j - 1], s), shifted(run[j - 1], 2 * s));
        ++best.runs;
        return best;
      });
      cpu[i] = cpuEnding(i, cpu, run);
    }
    return better(cpu[d_.n - 1], run[d_.n - 1]);
  }

  /// Layer r ≥ 1 of the exact DP (see the class comment).
  void layer(int r, const std::vector<double>& previous, std::vector<double>* current) {
    penalty_ = 0;
    std::vector<Partial> cpu(d_.n), run(d_.n);
    reset(0);
    for (int i = 0; i < d_.n; ++i) {
      run[i] = runEnding(i, [&](int j) {
        if (j == 0) return Partial{r == 1 ? 0 : kInfinity, 0};
        const double s = d_.sent[j];
        return Partial{std::min(previous[cpuCell(j - 1)] + s, previous[runCell(j - 1)] + 2 * s), 0};
      });
      cpu[i] = cpuEnding(i, cpu, run);
      (*current)[cpuCell(i)] = cpu[i].time;
      (*current)[runCell(i)] = run[i].time;
    }
  }

 private:
  bool less(const Partial& a, const Partial& b) const {
    const double x = a.time + penalty_ * a.runs, y = b.time + penalty_ * b.runs;
    return x < y || (x == y && a.runs < b.runs);
  }
  Partial better(const Partial& a, const Partial& b) const { return less(b, a) ? b : a; }
  static Partial shifted(Partial p, double by) {
    p.time += by;
    return p;
  }

  /// The best split ending at i with i on a CPU core.
  Partial cpuEnding(int i, const std::vector<Partial>& cpu, const std::vector<Partial>& run) const {
    if (!d_.cpuSide[i]) return Partial{};
    Partial before = i == 0 ? Partial{0, 0} : better(cpu[i - 1], shifted(run[i - 1], d_.sent[i]));
    return shifted(before, d_.cpuTime[i]);
  }

  /// The best run j..i over the j of the window [runStart[i], i], each
  /// entered as `enter(j)` says, plus the run's compute. The window only
  /// moves forward, so a two-stack queue keeps it: the back holds the
  /// newest entries as one running best, the front the older ones as
  /// suffix bests; sums are of non-negative terms, never differences.
  template <typename Enter>
  Partial runEnding(int i, const Enter& enter) {
    const int lo = d_.runStart[i];
    if (lo > i) {
      reset(i + 1);
      return Partial{};
    }
    back_ = shifted(better(back_, enter(i)), d_.fpgaTime[i]);
    backSum_ += d_.fpgaTime[i];
    if (lo > backStart_) {  // the front is used up: the back's entries in the window become it
      double sum = 0;
      Partial best;
      for (int j = i; j >= lo; --j) {
        sum += d_.fpgaTime[j];
        best = better(shifted(enter(j), sum), best);
        front_[j] = best;
      }
      frontStart_ = lo;
      backStart_ = i + 1;
      back_ = Partial{};
      backSum_ = 0;
    }
    frontStart_ = std::max(frontStart_, lo);
    Partial result = back_;
    if (frontStart_ < backStart_) result = better(result, shifted(front_[frontStart_], backSum_));
    return result;
  }

  void reset(int start) {
    frontStart_ = backStart_ = start;
    back_ = Partial{};
    backSum_ = 0;
  }

  const PathData& d_;
  double penalty_ = 0;
  std::vector<Partial> front_;  ///< [j]: the best entry at j..backStart_-1 plus compute to there
  int frontStart_ = 0, backStart_ = 0;
  Partial back_;        ///< the best over backStart_..i, compute included
  double backSum_ = 0;  ///< compute of backStart_..i
};

/// runStart for every path node: a window that only moves forward, its
/// distinct classes' memory kept by additions and subtractions, with a
/// bound on their rounding so that a run is only refused when it surely
/// does not fit (refusing one that fits could lift the bound above the
/// optimum).
std::vector<int> runStarts(const Workload& workload, const std::vector<NodeIndex>& path,
                           const std::vector<char>& onAccelerator,
                           const std::vector<double>& classSize) {
  const int n = static_cast<int>(path.size());
  constexpr double kEpsilon = std::numeric_limits<double>::epsilon();
  std::vector<int> start(n);
  std::vector<int> inWindow(workload.graph().numClasses, 0);
  double size = 0, error = 0;
  int lo = 0;
  auto classAt = [&](int j) { return workload.graph().classOf[path[j]]; };
  for (int i = 0; i < n; ++i) {
    if (!onAccelerator[i]) {
      for (int j = lo; j < i; ++j) --inWindow[classAt(j)];
      lo = i + 1;
      size = error = 0;
      start[i] = i + 1;
      continue;
    }
    if (inWindow[classAt(i)]++ == 0) {
      size += classSize[classAt(i)];
      error += kEpsilon * size;
    }
    while (lo <= i && !objective::fitsMemory(size - error, workload.machine)) {
      if (--inWindow[classAt(lo)] == 0) {
        size -= classSize[classAt(lo)];
        error += kEpsilon * std::max(size, 0.0) + kEpsilon * classSize[classAt(lo)];
      }
      ++lo;
    }
    if (lo > i) size = error = 0;  // the window is empty: exact again
    start[i] = lo;
  }
  return start;
}

/// Bounds 1 and 2.
LatencyLowerBound pathOnlyBounds(const Workload& workload, const std::vector<char>& acceleratorAllowed,
                                 bool cpuAllowed, int q,
                                 std::chrono::steady_clock::time_point deadline) {
  LatencyLowerBound bound;
  const int numNodes = workload.numNodes();
  if (numNodes == 0) return bound;
  auto onAccelerator = [&](NodeIndex v) {
    return acceleratorAllowed[workload.graph().classOf[v]] != 0;
  };
  auto cheapest = [&](NodeIndex v) {
    const Node& node = workload.graph().nodes[v];
    double best = kInfinity;
    if (onAccelerator(v)) best = node.fpgaLatency;
    if (cpuAllowed) best = std::min(best, node.cpuLatency);
    return best == kInfinity ? 0.0 : best;
  };

  // 1. The compute path, remembering the predecessor each finish time came from.
  std::vector<double>& finish = bound.earliestFinish;
  finish.assign(numNodes, 0);
  std::vector<NodeIndex> from(numNodes, -1);
  NodeIndex last = 0;
  for (NodeIndex v : workload.graph().topologicalOrder) {
    double start = 0;
    for (NodeIndex u : workload.predecessors(v))
      if (from[v] < 0 || finish[u] > start) {
        start = finish[u];
        from[v] = u;
      }
    finish[v] = start + cheapest(v);
    if (finish[v] > finish[last]) last = v;
  }
  bound.computePath = finish[last];
  bound.splitPath = bound.computePath;
  std::vector<NodeIndex> path;
  for (NodeIndex v = last; v >= 0; v = from[v]) path.push_back(v);
  std::reverse(path.begin(), path.end());
  const int n = static_cast<int>(path.size());
  bound.pathNodes = n;
  if (pastDeadline(deadline)) return bound;

  // 2. The split path, on O(n) memory.
  PathData data;
  data.n = n;
  data.maxRuns = static_cast<int>(
      std::min<std::int64_t>(n, static_cast<std::int64_t>(std::max(0, workload.machine.maxFpgas)) *
                                    std::max(1, q)));
  data.cpuSide.resize(n);
  data.cpuTime.resize(n);
  data.fpgaTime.resize(n);
  data.sent.assign(n, 0);
  std::vector<char> accelerator(n);
  for (int i = 0; i < n; ++i) {
    const NodeIndex v = path[i];
    accelerator[i] = onAccelerator(v);
    const bool nowhere = !accelerator[i] && !cpuAllowed;
    data.cpuSide[i] = cpuAllowed || nowhere;
    data.cpuTime[i] = nowhere ? 0 : workload.graph().nodes[v].cpuLatency;
    data.fpgaTime[i] = workload.graph().nodes[v].fpgaLatency;
    if (i > 0) data.sent[i] = workload.graph().outCost[path[i - 1]];
  }
  if (data.maxRuns == 0) std::fill(accelerator.begin(), accelerator.end(), 0);
  data.runStart = runStarts(workload, path, accelerator, objective::ClassTotals(workload).size);
  SplitPass pass(data);
  auto finishWith = [&](double value) {
    if (value != kInfinity) bound.splitPath = std::max(bound.splitPath, value);
  };

  // Without the limit on runs: exact when its best split keeps to the limit.
  // (With it, a split that needs more runs than allowed means no plan exists;
  // the bound then stays the compute path, the callers report infeasibility.)
  const Partial free = pass.penalized(0);
  if (free.time == kInfinity) return bound;
  if (free.runs <= data.maxRuns) {
    finishWith(free.time);
    return bound;
  }

  // The exact DP, one layer per number of runs, when it is small enough.
  constexpr std::int64_t kExactCells = std::int64_t{1} << 24;
  if (static_cast<std::int64_t>(n) * (data.maxRuns + 1) <= kExactCells) {
    std::vector<double> previous(2 * static_cast<std::size_t>(n), kInfinity), current(previous.size());
    double cpuOnly = 0;
    for (int i = 0; i < n; ++i) {  // layer 0: every node on a CPU core
      cpuOnly = data.cpuSide[i] && cpuOnly != kInfinity ? cpuOnly + data.cpuTime[i] : kInfinity;
      previous[cpuCell(i)] = cpuOnly;
    }
    double best = cpuOnly;
    for (int r = 1; r <= data.maxRuns; ++r) {
      if (pastDeadline(deadline)) {
        finishWith(free.time);  // valid, if weaker: the limit on runs can only raise it
        bound.splitPathRelaxed = true;
        return bound;
      }
      pass.layer(r, previous, &current);
      best = std::min({best, current[cpuCell(n - 1)], current[runCell(n - 1)]});
      std::swap(previous, current);
    }
    finishWith(best);
    return bound;
  }

  // Otherwise the Lagrangian relaxation: each run costs `penalty` more, and
  // maxRuns · penalty is given back; every penalty gives a valid bound, and
  // the best is searched by bisection (more runs than allowed: raise it).
  bound.splitPathRelaxed = true;
  double low = 0, high = 1;
  for (int i = 0; i < n; ++i) high += data.fpgaTime[i] + data.cpuTime[i] + 2 * data.sent[i];
  for (int step = 0; step < 60 && !pastDeadline(deadline); ++step) {
    const double penalty = step == 0 ? high : 0.5 * (low + high);
    const Partial best = pass.penalized(penalty);
    if (best.time == kInfinity) break;
    // At the largest penalty the fewest runs win: more than allowed means no
    // split of this path keeps the limit.
    if (step == 0 && best.runs > data.maxRuns) break;
    if (step == 0) finishWith(free.time);
    finishWith(best.time + penalty * (best.runs - data.maxRuns));
    if (best.runs > data.maxRuns)
      low = penalty;
    else if (step > 0)
      high = penalty;
    if (best.runs == data.maxRuns) break;
  }
  return bound;
}

}  // namespace

LatencyLowerBound latencyLowerBound(const Workload& workload,
                                    const std::vector<char>& acceleratorAllowed, bool cpuAllowed, int q,
                                    std::chrono::steady_clock::time_point deadline) {
  LatencyLowerBound bound = pathOnlyBounds(workload, acceleratorAllowed, cpuAllowed, q, deadline);
  if (pastDeadline(deadline)) return bound;
  // Bound 3 gets a quarter of the time left (its search could fill any
  // limit on graphs of thousands of nodes); without a deadline, all it needs.
  auto pathDeadline = deadline;
  const auto now = std::chrono::steady_clock::now();
  if (deadline != std::chrono::steady_clock::time_point::max())
    pathDeadline = now + (deadline - now) / 4;
  const LatencyPathBound paths =
      latencyPathBound(workload, acceleratorAllowed, cpuAllowed, q, pathDeadline);
  bound.intervalPath = paths.value;
  bound.intervalPaths = paths.pathsTried;
  for (const std::vector<int>* plan : {&paths.plan, &paths.closurePlan})
    if (!plan->empty()) bound.suggestedPlans.push_back(*plan);
  return bound;
}

}  // namespace dnnplace
