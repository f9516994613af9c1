#include "baselines/local_search.hpp"
#include "dnnplace/solver.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "baselines/common.hpp"
#include "objective/class_totals.hpp"
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {
namespace {

using objective::ClassTotals;
using objective::fitsMemory;

/// Best-improvement descent over class moves with incrementally maintained
/// loads (see local_search.hpp for the invariant behind `crossCount_`).
class ClassMoveSearch {
 public:
  ClassMoveSearch(const Workload& workload, const ClassTotals& totals)
      : workload_(workload),
        totals_(totals),
        numAccelerators_(workload.machine.maxFpgas),
        numDevices_(workload.machine.maxFpgas + workload.machine.maxCpus) {
    buildNeighbourhoods();
  }

  /// Resets the state to `deviceOfClass` (assumed feasible) and rebuilds all
  /// counts and loads from scratch.
  /// Returns false, leaving the state unusable, when the deadline or
  /// interrupt stops the construction (checked every few thousand classes
  /// and nodes: on many accelerators the table alone takes seconds).
  bool assign(const std::vector<int>& deviceOfClass, const Deadline& deadline) {
    deviceOfClass_ = deviceOfClass;
    const int k = numAccelerators_;
    // The table is zeroed a slice at a time: on thousands of accelerators
    // zeroing it alone takes most of a second (a gigabyte of page faults).
    const std::size_t cells = static_cast<std::size_t>(workload_.numNodes()) * k;
    constexpr std::size_t slice = std::size_t{1} << 22;
    crossCount_.clear();
    crossCount_.reserve(cells);
    while (crossCount_.size() < cells) {
      if (deadline.reached()) return false;
      crossCount_.resize(std::min(cells, crossCount_.size() + slice), 0);
    }
    load_.assign(numDevices_, 0);
    memory_.assign(numDevices_, 0);
    if (deadline.reached()) return false;
    for (int c = 0; c < workload_.graph().numClasses; ++c) {
      if ((c & 4095) == 4095 && deadline.reached()) return false;
      const int d = deviceOfClass_[c];
      load_[d] += d < k ? totals_.acceleratorLatency[c] : totals_.cpuLatency[c];
      memory_[d] += totals_.size[c];
      if (d >= k) continue;
      for (int i = affectedStart_[c]; i < affectedStart_[c + 1]; ++i)
        crossCount_[static_cast<std::size_t>(affectedNode_[i]) * k + d] += affectedCount_[i];
    }
    for (NodeIndex u = 0; u < workload_.numNodes(); ++u) {
      if ((u & 4095) == 4095 && deadline.reached()) return false;
      if (!isPayer(u)) continue;
      for (int d = 0; d < k; ++d)
        if (pays(u, crossCount_[static_cast<std::size_t>(u) * k + d]))
          load_[d] += workload_.graph().outCost[u];
    }
    refreshSummary();
    return true;
  }

  /// Applies best moves until none improves (returns true) or the deadline /
  /// interrupt stops it (returns false). The state stays feasible throughout.
  bool descend(const Deadline& deadline) {
    std::vector<double> gain(numAccelerators_);
    for (;;) {
      if (deadline.reached()) return false;
      int bestClass = -1, bestDevice = -1;
      double bestMax = maxLoad_, bestSquares = sumSquares_;
      for (int c = 0; c < workload_.graph().numClasses; ++c) {
        // One pass over the classes can be long on a dense graph: stop
        // inside it too (no move is half made).
        if (((c & 63) == 63 || numAccelerators_ > 4096) && deadline.reached()) return false;
        const int from = deviceOfClass_[c];
        const double fromLoad = load_[from] + removalDelta(c, from);
        auto consider = [&](int to, double toLoad) {
          double newMax = std::max({fromLoad, toLoad, maxExcluding(from, to)});
          double newSquares = sumSquares_ - load_[from] * load_[from] - load_[to] * load_[to] +
                              fromLoad * fromLoad + toLoad * toLoad;
          if (better(newMax, newSquares, bestMax, bestSquares)) {
            bestMax = newMax;
            bestSquares = newSquares;
            bestClass = c;
            bestDevice = to;
          }
        };
        if (totals_.supported[c] && numAccelerators_ > 0) {
          additionDeltas(c, &gain);
          for (int to = 0; to < numAccelerators_; ++to) {
            if (to == from) continue;
            if (!fitsMemory(memory_[to] + totals_.size[c], workload_.machine)) continue;
            consider(to, load_[to] + gain[to]);
          }
        }
        // All CPU cores are alike: the least loaded one is the best target
        // for both keys (max and, by convexity, sum of squares).
        const int cpu = leastLoadedCpu(from);
        if (cpu >= 0) consider(cpu, load_[cpu] + totals_.cpuLatency[c]);
      }
      if (bestClass < 0) return true;
      move(bestClass, bestDevice);
      ++moves_;
    }
  }

  /// Iterated local search from the current (descended) state: kick a few
  /// classes to random feasible devices, descend again, keep the result when
  /// its max-load is not above the current one (plateau walks included),
  /// otherwise undo the kick. Stops after `stallLimit` kicks in a row without
  /// a strict max-load improvement (returns true) or at the deadline /
  /// interrupt (returns false, state = last accepted one). The max-load never
  /// rises, and the final state is always a descended local optimum.
  bool iterate(std::mt19937_64& rng, int stallLimit, const Deadline& deadline) {
    if (workload_.graph().numClasses == 0 || numDevices_ < 2) return true;
    std::vector<std::pair<int, int>> log;
    // Accepting compares with the max-load of the last strict improvement,
    // not the previous kick's, so tolerances cannot add up on a plateau walk.
    double anchorMax = maxLoad_;
    for (int stall = 0; stall < stallLimit;) {
      if (deadline.reached()) return false;
      const double currentMax = anchorMax;
      log.clear();
      log_ = &log;
      kick(rng);
      const bool converged = descend(deadline);
      log_ = nullptr;
      const double tolerance = 1e-9 * std::max(1.0, currentMax);
      if (!converged || maxLoad_ > currentMax + tolerance) {
        undo(log);
        if (!converged) return false;
        ++stall;
        continue;
      }
      ++kicks_;
      if (maxLoad_ < currentMax - tolerance) {
        anchorMax = maxLoad_;
        stall = 0;
      } else {
        ++stall;
      }
    }
    return true;
  }

  double maxLoad() const { return maxLoad_; }
  long long moves() const { return moves_; }
  long long acceptedKicks() const { return kicks_; }
  const std::vector<int>& deviceOfClass() const { return deviceOfClass_; }

 private:
  /// Moves 1–3 classes to uniformly random feasible devices; the first one
  /// comes from a most loaded device half of the time (that is where a
  /// plateau has to be broken).
  void kick(std::mt19937_64& rng) {
    const int count = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < count; ++i) {
      int c = -1;
      if (i == 0 && rng() % 2 == 0) {
        candidates_.clear();
        const int top = top_[0].second;
        for (int x = 0; x < workload_.graph().numClasses; ++x)
          if (deviceOfClass_[x] == top) candidates_.push_back(x);
        if (!candidates_.empty()) c = candidates_[rng() % candidates_.size()];
      }
      if (c < 0) c = static_cast<int>(rng() % static_cast<std::uint64_t>(workload_.graph().numClasses));
      const int from = deviceOfClass_[c];
      candidates_.clear();
      if (totals_.supported[c])
        for (int d = 0; d < numAccelerators_; ++d)
          if (d != from && fitsMemory(memory_[d] + totals_.size[c], workload_.machine))
            candidates_.push_back(d);
      const int cpu = leastLoadedCpu(from);
      if (cpu >= 0) candidates_.push_back(cpu);
      if (candidates_.empty()) continue;
      move(c, candidates_[rng() % candidates_.size()]);
    }
  }

  /// Reverts the moves recorded in `log`, newest first.
  void undo(const std::vector<std::pair<int, int>>& log) {
    for (auto it = log.rbegin(); it != log.rend(); ++it) move(it->first, it->second);
  }

  bool isPayer(NodeIndex u) const {
    return workload_.graph().outCost[u] > 0 && !workload_.successors(u).empty();
  }
  /// u pays its cost on an accelerator holding `count` members of {u} ∪ succ(u)
  /// exactly when some but not all of them are there.
  bool pays(NodeIndex u, int count) const {
    return count > 0 && count < static_cast<int>(workload_.successors(u).size()) + 1;
  }

  /// For each class c: the payers u whose closed successor set {u} ∪ succ(u)
  /// meets c, with the size of the intersection (flat CSR arrays).
  void buildNeighbourhoods() {
    const int n = workload_.numNodes();
    std::vector<int> lastClass(n, -1), slot(n, -1);
    affectedStart_.assign(workload_.graph().numClasses + 1, 0);
    for (int c = 0; c < workload_.graph().numClasses; ++c) {
      affectedStart_[c] = static_cast<int>(affectedNode_.size());
      auto add = [&](NodeIndex u) {
        if (!isPayer(u)) return;
        if (lastClass[u] != c) {
          lastClass[u] = c;
          slot[u] = static_cast<int>(affectedNode_.size());
          affectedNode_.push_back(u);
          affectedCount_.push_back(0);
        }
        ++affectedCount_[slot[u]];
      };
      for (NodeIndex v : workload_.classMembers(c)) {
        add(v);
        for (NodeIndex u : workload_.predecessors(v)) add(u);
      }
    }
    affectedStart_[workload_.graph().numClasses] = static_cast<int>(affectedNode_.size());
  }

  /// Change of the load of `from` (c's device) when c leaves it.
  double removalDelta(int c, int from) const {
    if (from >= numAccelerators_) return -totals_.cpuLatency[c];
    double delta = -totals_.acceleratorLatency[c];
    const int k = numAccelerators_;
    for (int i = affectedStart_[c]; i < affectedStart_[c + 1]; ++i) {
      const NodeIndex u = affectedNode_[i];
      const int count = crossCount_[static_cast<std::size_t>(u) * k + from];
      delta += workload_.graph().outCost[u] * (static_cast<int>(pays(u, count - affectedCount_[i])) -
                                               static_cast<int>(pays(u, count)));
    }
    return delta;
  }

  /// (*gain)[d]: change of accelerator d's load if c joined it.
  void additionDeltas(int c, std::vector<double>* gain) const {
    const int k = numAccelerators_;
    std::fill(gain->begin(), gain->end(), totals_.acceleratorLatency[c]);
    for (int i = affectedStart_[c]; i < affectedStart_[c + 1]; ++i) {
      const NodeIndex u = affectedNode_[i];
      const int extra = affectedCount_[i];
      const double cost = workload_.graph().outCost[u];
      const std::int32_t* counts = crossCount_.data() + static_cast<std::size_t>(u) * k;
      for (int d = 0; d < k; ++d)
        (*gain)[d] += cost * (static_cast<int>(pays(u, counts[d] + extra)) -
                              static_cast<int>(pays(u, counts[d])));
    }
  }

  void move(int c, int to) {
    const int from = deviceOfClass_[c];
    if (log_) log_->push_back({c, from});
    const int k = numAccelerators_;
    for (int i = affectedStart_[c]; i < affectedStart_[c + 1]; ++i) {
      const NodeIndex u = affectedNode_[i];
      const int m = affectedCount_[i];
      const double cost = workload_.graph().outCost[u];
      if (from < k) {
        int& count = crossCount_[static_cast<std::size_t>(u) * k + from];
        load_[from] += cost * (static_cast<int>(pays(u, count - m)) - static_cast<int>(pays(u, count)));
        count -= m;
      }
      if (to < k) {
        int& count = crossCount_[static_cast<std::size_t>(u) * k + to];
        load_[to] += cost * (static_cast<int>(pays(u, count + m)) - static_cast<int>(pays(u, count)));
        count += m;
      }
    }
    load_[from] -= from < k ? totals_.acceleratorLatency[c] : totals_.cpuLatency[c];
    load_[to] += to < k ? totals_.acceleratorLatency[c] : totals_.cpuLatency[c];
    memory_[from] -= totals_.size[c];
    memory_[to] += totals_.size[c];
    deviceOfClass_[c] = to;
    refreshSummary();
  }

  /// Recomputes the max, the sum of squares, the three largest loads and the
  /// two least loaded CPU cores (O(devices) per move).
  void refreshSummary() {
    sumSquares_ = 0;
    top_.fill({-1.0, -1});
    cpuLow_ = {-1, -1};
    for (int d = 0; d < numDevices_; ++d) {
      const double x = load_[d];
      sumSquares_ += x * x;
      std::pair<double, int> entry{x, d};
      for (auto& slot : top_)
        if (entry.first > slot.first) std::swap(entry, slot);
      if (d >= numAccelerators_) {
        if (cpuLow_[0] < 0 || x < load_[cpuLow_[0]]) {
          cpuLow_[1] = cpuLow_[0];
          cpuLow_[0] = d;
        } else if (cpuLow_[1] < 0 || x < load_[cpuLow_[1]]) {
          cpuLow_[1] = d;
        }
      }
    }
    maxLoad_ = std::max(0.0, top_[0].first);
  }

  double maxExcluding(int a, int b) const {
    for (const auto& [value, device] : top_)
      if (device >= 0 && device != a && device != b) return value;
    return 0;
  }

  int leastLoadedCpu(int excluded) const { return cpuLow_[0] != excluded ? cpuLow_[0] : cpuLow_[1]; }

  /// Lexicographic (max-load, sum of squares) with a relative tolerance so
  /// rounding noise never counts as progress.
  static bool better(double newMax, double newSquares, double oldMax, double oldSquares) {
    const double tolerance = 1e-9 * std::max(1.0, oldMax);
    if (newMax < oldMax - tolerance) return true;
    if (newMax > oldMax + tolerance) return false;
    return newSquares < oldSquares - 1e-9 * std::max(1.0, oldSquares);
  }

  const Workload& workload_;
  const ClassTotals& totals_;
  const int numAccelerators_;
  const int numDevices_;
  std::vector<int> affectedStart_, affectedNode_, affectedCount_;

  std::vector<int> deviceOfClass_;
  std::vector<std::int32_t> crossCount_;  ///< [u * k + d]: members of {u} ∪ succ(u) on d
  std::vector<double> load_, memory_;
  double maxLoad_ = 0, sumSquares_ = 0;
  std::array<std::pair<double, int>, 3> top_{};
  std::array<int, 2> cpuLow_{-1, -1};
  long long moves_ = 0, kicks_ = 0;
  std::vector<std::pair<int, int>>* log_ = nullptr;  ///< (class, previous device) per move
  std::vector<int> candidates_;
};

/// Kicks without a max-load improvement after which one iterated local search
/// gives up: proportional to the number of classes, so every class gets a few
/// chances to be kicked on large graphs.
int stallLimitFor(const Workload& workload) { return std::max(50, 2 * workload.graph().numClasses); }

/// A random memory-feasible assignment: classes in decreasing size order (ties
/// by index), each to a uniformly random device with room for it. Returns
/// false when some class found no room.
bool randomStart(const Workload& workload, const ClassTotals& totals, std::mt19937_64& rng,
                 std::vector<int>* deviceOfClass, const Deadline& deadline) {
  const Machine& machine = workload.machine;
  std::vector<int> order(workload.graph().numClasses);
  for (int c = 0; c < workload.graph().numClasses; ++c) order[c] = c;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return totals.size[a] > totals.size[b]; });
  std::vector<double> memory(machine.maxFpgas, 0);
  std::vector<int> candidates;
  deviceOfClass->assign(workload.graph().numClasses, -1);
  bool late = false;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const int c = order[i];
    // Past the deadline the remaining classes go to CPU cores (when there are
    // any) instead of scanning every accelerator, so a plan still comes out.
    if ((i & 1023) == 1023 && !late) late = deadline.reached();
    if (late && machine.maxCpus > 0) {
      (*deviceOfClass)[c] = machine.maxFpgas + static_cast<int>(rng() % machine.maxCpus);
      continue;
    }
    candidates.clear();
    if (totals.supported[c])
      for (int d = 0; d < machine.maxFpgas; ++d)
        if (fitsMemory(memory[d] + totals.size[c], machine)) candidates.push_back(d);
    for (int core = 0; core < machine.maxCpus; ++core) candidates.push_back(machine.maxFpgas + core);
    if (candidates.empty()) return false;
    const int d = candidates[std::uniform_int_distribution<std::size_t>(0, candidates.size() - 1)(rng)];
    (*deviceOfClass)[c] = d;
    if (d < machine.maxFpgas) memory[d] += totals.size[c];
  }
  return true;
}

Placement toPlacement(const Workload& workload, const std::vector<int>& deviceOfClass) {
  Placement placement;
  placement.numAccelerators = workload.machine.maxFpgas;
  placement.numCpus = workload.machine.maxCpus;
  placement.deviceOf.resize(workload.numNodes());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    placement.deviceOf[v] = deviceOfClass[workload.graph().classOf[v]];
  return placement;
}

/// Checks the preconditions shared by both entry points.
std::string unsupportedOptions(const SolveOptions& options) {
  if (options.objective != Objective::Throughput)
    return "local-search optimizes the throughput (max-load) objective only";
  if (options.diffMaxima) return "local-search does not support --diffmaxima";
  return "";
}

SolveOutcome finish(const Workload& workload, const ClassTotals& totals,
                    const std::vector<int>& deviceOfClass, std::string message) {
  SolveOutcome outcome;
  outcome.placement = toPlacement(workload, deviceOfClass);
  // The reported objective is recomputed from scratch, not taken from the
  // incrementally updated loads, so rounding drift never reaches the user.
  outcome.objective = objective::maxOf(objective::deviceLoads(workload, *outcome.placement));
  outcome.lowerBound = objective::throughputLowerBound(workload, totals);
  outcome.status = sameObjective(outcome.objective, outcome.lowerBound) ? SolveStatus::Optimal
                                                                        : SolveStatus::Feasible;
  outcome.message = std::move(message);
  return outcome;
}

/// The search's one large table holds a count per (node, accelerator).
double tableBytes(const Workload& workload, int accelerators) {
  return 4.0 * workload.numNodes() * accelerators;
}

/// How many accelerators the counts table can cover within the memory limit
/// (the machine's own when all fit, 0 when not even one does).
int acceleratorsThatFit(const Workload& workload, const SolveOptions& options) {
  const double memory = 0.8 * baseline::memoryLeft(workload, options);
  const int k = workload.machine.maxFpgas;
  if (k == 0 || tableBytes(workload, k) <= memory) return k;
  return static_cast<int>(std::min<double>(k, memory / tableBytes(workload, 1)));
}

SolveOutcome tableRefusal(const std::string& what, double need) {
  SolveOutcome refused = baseline::refusal(
      SolveStatus::NoPlan, "the counts per node and accelerator for " + what + " need " +
                               formatBytes(need) + ", more than the memory limit leaves");
  refused.stop = StopReason::MemoryLimit;
  return refused;
}

/// Runs `search` on a machine with only the accelerators `kept` (renumbered
/// 0, 1, …; CPU cores follow them) and maps its plan back to the whole
/// machine, with the whole machine's bound and a note on the shrink.
template <class Search>
SolveOutcome onAccelerators(const Workload& workload, const ClassTotals& totals,
                            const std::vector<int>& kept, Search search) {
  const int k = workload.machine.maxFpgas;
  const int fit = static_cast<int>(kept.size());
  Machine fewer = workload.machine;
  fewer.maxFpgas = fit;
  SolveOutcome result = search(workload.onMachine(fewer));
  if (result.placement) {
    for (auto& device : result.placement->deviceOf) {
      if (device == Placement::kUnplaced) continue;
      device = device < fit ? kept[device] : device + k - fit;
    }
    result.placement->numAccelerators = k;
    // The bound is the whole machine's (fewer accelerators have a higher one).
    result.lowerBound = objective::throughputLowerBound(workload, totals);
    result.status = sameObjective(result.objective, result.lowerBound) ? SolveStatus::Optimal
                                                                       : SolveStatus::Feasible;
  }
  result.message += "; searched over " + std::to_string(fit) + " of " + std::to_string(k) +
                    " accelerators (the counts per node and accelerator for all would need " +
                    formatBytes(tableBytes(workload, k)) + ", more than the memory limit leaves)";
  return result;
}

}  // namespace

namespace {
SolveOutcome solveLocalSearchOn(const Workload& workload, const SolveOptions& options) {
  SolveOutcome outcome;
  if (std::string why = unsupportedOptions(options); !why.empty())
    return failedCall(CallStatus::InvalidInput, why);
  if (options.restarts < 1)
    return failedCall(CallStatus::InvalidInput, "local-search needs --restarts of at least 1");
  const ClassTotals totals(workload);
  if (auto refused = baseline::unplaceableOutcome(workload, totals)) return *refused;
  // The neighbourhood lists (one entry per member and predecessor of each class) use int positions.
  if (static_cast<double>(workload.numNodes()) + static_cast<double>(workload.graph().edges.size()) >
      std::numeric_limits<int>::max())
    return failedCall(CallStatus::InvalidInput,
                      "local-search: more than 2^31 nodes and edges together, too many to index");

  PhaseTimes phases(&outcome.phases);
  const Deadline deadline(options.timeLimitSeconds, options.interrupt);
  // The counts per (node, accelerator) are the search's one large table:
  // fewer accelerators are searched when it would not fit the memory limit.
  if (const int fit = acceleratorsThatFit(workload, options); fit < workload.machine.maxFpgas) {
    if (fit < 1) return tableRefusal("one accelerator", tableBytes(workload, 1));
    std::vector<int> kept(fit);
    for (int d = 0; d < fit; ++d) kept[d] = d;
    return onAccelerators(workload, totals, kept,
                          [&](const Workload& on) { return solveLocalSearchOn(on, options); });
  }
  std::mt19937_64 rng(options.seed);
  ClassMoveSearch search(workload, totals);
  std::vector<int> start, best;
  bool found = false;
  double bestLoad = 0;
  int completed = 0, failedStarts = 0;
  bool stoppedEarly = false;
  double lastProgress = -1;
  for (int restart = 0; restart < options.restarts; ++restart) {
    // Always run at least one descent so a tiny time limit still yields a plan.
    if (restart > 0 && deadline.reached()) {
      stoppedEarly = true;
      break;
    }
    if (!randomStart(workload, totals, rng, &start, deadline)) {
      ++failedStarts;
      continue;
    }
    // Building the counts stopped by the deadline: the start is the plan.
    const bool built = search.assign(start, deadline);
    const bool converged = built && search.descend(deadline) &&
                           search.iterate(rng, stallLimitFor(workload), deadline);
    const std::vector<int>& reached = built ? search.deviceOfClass() : start;
    const double load =
        objective::maxOf(objective::deviceLoads(workload, toPlacement(workload, reached)));
    if (!found || load < bestLoad) {
      found = true;
      best = reached;
      bestLoad = load;
    }
    if (!converged) {
      stoppedEarly = true;
      break;
    }
    ++completed;
    if (options.progress && deadline.elapsed() - lastProgress >= 0.5) {
      lastProgress = deadline.elapsed();
      options.progress("local-search: restart " + std::to_string(restart + 1) + "/" +
                       std::to_string(options.restarts) + ", best max-load " +
                       formatTenDigits(bestLoad));
    }
  }
  const StopReason stop = !stoppedEarly            ? StopReason::None
                          : deadline.interrupted() ? StopReason::Interrupt
                                                   : StopReason::TimeLimit;
  if (!found) {
    SolveOutcome none =
        baseline::refusal(SolveStatus::NoPlan,
                          "local-search found no memory-feasible random start in " +
                              std::to_string(failedStarts) +
                              " attempts (classes are too large for the accelerators' memory)");
    none.stop = stop;
    return none;
  }
  std::string note = std::to_string(completed) + " of " + std::to_string(options.restarts) +
                     " restarts ran to a local optimum (descent and iterated local search)";
  if (stoppedEarly) note += " (stopped by the time limit or an interrupt)";
  if (failedStarts > 0)
    note += "; " + std::to_string(failedStarts) + " random starts did not fit in memory";
  phases.end("restarts");
  SolveOutcome result = finish(workload, totals, best, note);
  result.phases = std::move(outcome.phases);
  result.stop = stop;
  return result;
}
}  // namespace

SolveOutcome solveLocalSearch(const Workload& workload, const SolveOptions& options) {
  return baseline::onAtMostOneDevicePerClass(workload, [&](const Workload& on) {
    return solveLocalSearchOn(on, options);
  });
}

SolveOutcome localSearchFrom(const Workload& workload, const Placement& start,
                             const SolveOptions& options) {
  if (std::string why = unsupportedOptions(options); !why.empty())
    return failedCall(CallStatus::InvalidInput, why);
  const Machine& machine = workload.machine;
  if (start.numAccelerators != machine.maxFpgas || start.numCpus != machine.maxCpus ||
      start.deviceOf.size() != static_cast<std::size_t>(workload.numNodes()))
    return failedCall(CallStatus::InvalidInput,
                      "the start placement does not match the workload's machine or node count");
  const Evaluation check = evaluate(workload, start, EvaluateOptions{});
  if (!check.feasible)
    return failedCall(CallStatus::InvalidInput,
                      "the start placement is infeasible: " + check.violations.front());
  const ClassTotals totals(workload);
  const int k = machine.maxFpgas;
  if (const int fit = acceleratorsThatFit(workload, options); fit < k) {
    // Search over the accelerators the start uses plus empty ones up to what
    // fits; refused when the start alone uses more than that.
    std::vector<int> kept, renumbered(k, -1);
    for (int device : start.deviceOf)
      if (device >= 0 && device < k && renumbered[device] < 0) {
        renumbered[device] = static_cast<int>(kept.size());
        kept.push_back(device);
      }
    if (static_cast<int>(kept.size()) > fit || fit < 1)
      return tableRefusal("the start's " + std::to_string(std::max<std::size_t>(1, kept.size())) +
                              " accelerators",
                          tableBytes(workload, std::max<int>(1, static_cast<int>(kept.size()))));
    for (int d = 0; d < k && static_cast<int>(kept.size()) < fit; ++d)
      if (renumbered[d] < 0) {
        renumbered[d] = static_cast<int>(kept.size());
        kept.push_back(d);
      }
    Placement local = start;
    local.numAccelerators = fit;
    for (auto& device : local.deviceOf)
      device = device < k ? renumbered[device] : device - k + fit;
    return onAccelerators(workload, totals, kept, [&](const Workload& on) {
      return localSearchFrom(on, local, options);
    });
  }
  std::vector<int> deviceOfClass(workload.graph().numClasses);
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    deviceOfClass[workload.graph().classOf[v]] = start.deviceOf[v];
  const Deadline deadline(options.timeLimitSeconds, options.interrupt);
  ClassMoveSearch search(workload, totals);
  if (!search.assign(deviceOfClass, deadline))
    return finish(workload, totals, deviceOfClass,
                  "0 moves, stopped by the time limit or an interrupt while counting");
  std::mt19937_64 rng(options.seed);
  const bool converged = search.descend(deadline) &&
                         search.iterate(rng, stallLimitFor(workload), deadline);
  return finish(workload, totals, search.deviceOfClass(),
                std::to_string(search.moves()) + " moves, " + std::to_string(search.acceptedKicks()) +
                    " accepted kicks" +
                    (converged ? ", local optimum" : ", stopped by the time limit or an interrupt"));
}

}  // namespace dnnplace
