#include "bounds/latency_paths.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_set>

#include "objective/class_totals.hpp"

namespace dnnplace {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// The reachability tables take 2·n² bits; past this many nodes (16 MiB) the
/// bound is skipped.
constexpr int kMaxNodes = 8192;
/// Counting runs against k·q takes one layer per count; past this many the
/// count is dropped (a valid, weaker bound).
constexpr int kMaxLayers = 64;
/// The search for paths stops after this many in a row that did not raise the bound.
constexpr int kStalePaths = 400;
/// Minimum cuts price the runs of this many of the best paths, of at most
/// kMaxRefineLength nodes (a table of length² run times) on graphs of at
/// most kMaxRefineNodes (the cut's search recurses along its paths).
constexpr std::size_t kRefined = 8;
constexpr std::size_t kMaxRefineLength = 1500;
constexpr int kMaxRefineNodes = 4096;
/// A path with at most this many feasible runs has them all priced by cuts
/// at once; past it, only those the best split uses, again and again.
constexpr std::size_t kEagerRuns = 40000;

using Word = std::uint64_t;

/// Node sets as rows of bits.
class BitRows {
 public:
  BitRows(int rows, int bits)
      : words_((bits + 63) / 64), data_(static_cast<std::size_t>(rows) * words_, 0) {}
  int words() const { return words_; }
  Word* row(int r) { return data_.data() + static_cast<std::size_t>(r) * words_; }
  const Word* row(int r) const { return data_.data() + static_cast<std::size_t>(r) * words_; }

 private:
  int words_;
  std::vector<Word> data_;
};

void setBit(Word* row, int i) { row[i >> 6] |= Word{1} << (i & 63); }

/// Maximum flow (Dinic) on double capacities; infinite ones never saturate.
/// The value is that of a flow it found, so never above the minimum cut.
class MaxFlow {
 public:
  void grow(int nodes) { head_.resize(nodes, -1); }
  /// After run(): the nodes the source reaches in the residual network.
  std::vector<char> reachable(int source) const {
    std::vector<char> seen(head_.size(), 0);
    std::vector<int> stack{source};
    seen[source] = 1;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int e = head_[v]; e >= 0; e = next_[e])
        if (capacity_[e] > kTiny && !seen[to_[e]]) {
          seen[to_[e]] = 1;
          stack.push_back(to_[e]);
        }
    }
    return seen;
  }
  void reset(int nodes) {
    head_.assign(nodes, -1);
    to_.clear();
    next_.clear();
    capacity_.clear();
  }
  void edge(int a, int b, double c) {
    link(a, b, c);
    link(b, a, 0);
  }
  double run(int source, int sink) {
    double total = 0;
    const int nodes = static_cast<int>(head_.size());
    for (;;) {
      level_.assign(nodes, -1);
      std::vector<int> queue{source};
      level_[source] = 0;
      for (std::size_t k = 0; k < queue.size(); ++k)
        for (int e = head_[queue[k]]; e >= 0; e = next_[e])
          if (capacity_[e] > kTiny && level_[to_[e]] < 0) {
            level_[to_[e]] = level_[queue[k]] + 1;
            queue.push_back(to_[e]);
          }
      if (level_[sink] < 0) return total;
      cursor_ = head_;
      for (;;) {
        const double pushed = push(source, sink, kInfinity);
        if (pushed <= kTiny) break;
        if (pushed == kInfinity) return kInfinity;
        total += pushed;
      }
    }
  }

 private:
  static constexpr double kTiny = 1e-12;
  void link(int a, int b, double c) {
    to_.push_back(b);
    capacity_.push_back(c);
    next_.push_back(head_[a]);
    head_[a] = static_cast<int>(to_.size()) - 1;
  }
  double push(int v, int sink, double limit) {
    if (v == sink) return limit;
    for (int& e = cursor_[v]; e >= 0; e = next_[e]) {
      const int x = to_[e];
      if (capacity_[e] <= kTiny || level_[x] != level_[v] + 1) continue;
      const double got = push(x, sink, std::min(limit, capacity_[e]));
      if (got > kTiny) {
        if (capacity_[e] != kInfinity) capacity_[e] -= got;
        if (capacity_[e ^ 1] != kInfinity) capacity_[e ^ 1] += got;
        return got;
      }
    }
    return 0;
  }
  std::vector<int> head_, to_, next_, level_, cursor_;
  std::vector<double> capacity_;
};

/// Everything one path's dynamic program reads, shared by all paths.
struct Tables {
  const Workload& w;
  int n = 0;
  int q = 1;
  std::vector<char> accelerator;  ///< the node may run on an accelerator
  std::vector<char> cpuSide;      ///< the node may run on a CPU core (or nowhere: free)
  std::vector<double> cpuTime, fpgaTime, cost, classSize;
  BitRows descendants, ancestors;  ///< each node included
  int maxRuns = 0;

  Tables(const Workload& workload, int nodes)
      : w(workload), n(nodes), descendants(nodes, nodes), ancestors(nodes, nodes) {}
};

/// One path's interval split (latency_paths.hpp).
class PathProgram {
 public:
  explicit PathProgram(const Tables& t)
      : t_(t),
        inClosure_(t.n, 0),
        isPredecessor_(t.n, 0),
        classCount_(t.w.graph().numClasses, 0),
        position_(t.n, -1),
        first_(t.n),
        last_(t.n),
        closure_(1, t.n),
        down_(1, t.n),
        up_(1, t.n) {
    id_.resize(t.n);
    for (int c = 0; c < t.w.graph().numClasses; ++c) {
      const auto members = t.w.classMembers(c);
      for (std::size_t k = 1; k < members.size(); ++k)
        classLinks_.emplace_back(members[k - 1], members[k]);
    }
  }

  /// The least time over the path's splits (∞ when no split is feasible).
  double evaluate(const std::vector<NodeIndex>& path, bool* limitDropped,
                  std::chrono::steady_clock::time_point deadline) {
    prepare(path);
    const int length = static_cast<int>(path.size());

    const bool layered = std::min(t_.maxRuns, length) <= kMaxLayers;
    if (!layered) *limitDropped = true;
    layers_ = layered ? std::min(t_.maxRuns, length) + 1 : 2;
    // best_[r * (length + 1) + (i + 1)]: least time to finish path nodes 0..i with r runs.
    best_.assign(static_cast<std::size_t>(layers_) * (length + 1), kInfinity);
    best_[0] = 0;
    auto cell = [&](int r, int i) -> double& {
      return best_[static_cast<std::size_t>(r) * (length + 1) + (i + 1)];
    };
    auto finalize = [&](int i) {  // path node i on a CPU core
      if (!t_.cpuSide[path[i]]) return;
      for (int r = 0; r < layers_; ++r)
        cell(r, i) = std::min(cell(r, i), cell(r, i - 1) + t_.cpuTime[path[i]]);
    };
    expire_.assign(length + 1, 0);
    for (int j = 0; j < length; ++j) {
      if ((j & 15) == 0 && std::chrono::steady_clock::now() > deadline) {
        for (NodeIndex v : path) position_[v] = -1;
        return kInfinity;  // cut short: no bound
      }
      if (j > 0) finalize(j - 1);
      bool anyBefore = false;
      for (int r = 0; r < layers_; ++r) anyBefore |= cell(r, j - 1) < kInfinity;
      if (!anyBefore || !t_.accelerator[path[j]] || t_.maxRuns == 0) continue;
      runsFrom(j, length, [&](int i, double time) {
        if (layered) {
          for (int r = 0; r + 1 < layers_; ++r)
            if (cell(r, j - 1) < kInfinity)
              cell(r + 1, i) = std::min(cell(r + 1, i), cell(r, j - 1) + time);
        } else {
          const double before = std::min(cell(0, j - 1), cell(1, j - 1));
          cell(1, i) = std::min(cell(1, i), before + time);
        }
      });
    }
    finalize(length - 1);
    double best = kInfinity;
    for (int r = 0; r < layers_; ++r) best = std::min(best, cell(r, length - 1));
    for (NodeIndex v : path) position_[v] = -1;
    return best;
  }

  /// The same bound with the runs of the best split priced by a minimum cut
  /// instead (latency_paths.hpp), lazily: the split is found again until
  /// every run it uses is priced so. At least evaluate()'s value.
  double refine(const std::vector<NodeIndex>& path, std::chrono::steady_clock::time_point deadline) {
    prepare(path);
    const int length = static_cast<int>(path.size());
    const std::size_t cells = static_cast<std::size_t>(length) * length;
    std::vector<double> runTime(cells, kInfinity);
    std::vector<char> priced(cells, 0);
    expire_.assign(length + 1, 0);
    for (int j = 0; j < length && t_.maxRuns > 0; ++j) {
      if (std::chrono::steady_clock::now() > deadline) {  // a missing run would be priced ∞
        for (NodeIndex v : path) position_[v] = -1;
        return 0;
      }
      if (t_.accelerator[path[j]])
        runsFrom(j, length,
                 [&](int i, double time) { runTime[static_cast<std::size_t>(j) * length + i] = time; });
    }
    // Few runs: price them all at once (one dynamic program); else lazily.
    const std::size_t feasible = static_cast<std::size_t>(
        std::count_if(runTime.begin(), runTime.end(), [](double x) { return x < kInfinity; }));
    if (feasible <= kEagerRuns)
      for (std::size_t at = 0; at < cells; ++at) {
        if (runTime[at] == kInfinity) continue;
        if ((at & 63) == 0 && std::chrono::steady_clock::now() > deadline) break;
        priced[at] = 1;
        runTime[at] = std::max(runTime[at],
                               cutTime(static_cast<int>(at / length), static_cast<int>(at % length)));
      }
    const bool layered = std::min(t_.maxRuns, length) <= kMaxLayers;
    const int layers = layered ? std::min(t_.maxRuns, length) + 1 : 2;
    const std::size_t width = static_cast<std::size_t>(length) + 1;
    std::vector<double> best(layers * width);
    std::vector<int> from(layers * width);  // -1: path node i on a CPU core; else the run's start
    double value = kInfinity;
    for (;;) {
      std::fill(best.begin(), best.end(), kInfinity);
      best[0] = 0;
      for (int i = 0; i < length; ++i)
        for (int r = 0; r < layers; ++r) {
          double& cell = best[r * width + i + 1];
          if (t_.cpuSide[path[i]] && best[r * width + i] < kInfinity) {
            cell = best[r * width + i] + t_.cpuTime[path[i]];
            from[r * width + i + 1] = -1;
          }
          if (r == 0) continue;
          for (int j = 0; j <= i; ++j) {
            const double time = runTime[static_cast<std::size_t>(j) * length + i];
            if (time == kInfinity) continue;
            double before = best[(r - 1) * width + j];
            if (!layered) before = std::min(before, best[r * width + j]);
            if (before + time < cell) {
              cell = before + time;
              from[r * width + i + 1] = j;
            }
          }
        }
      int layer = 0;
      for (int r = 1; r < layers; ++r)
        if (best[r * width + length] < best[layer * width + length]) layer = r;
      value = best[layer * width + length];
      if (value == kInfinity || std::chrono::steady_clock::now() > deadline) break;
      bool raised = false;
      split_.clear();
      for (int i = length - 1; i >= 0;) {
        const int j = from[layer * width + i + 1];
        if (j < 0) {
          --i;
          continue;
        }
        split_.emplace_back(j, i);
        const std::size_t at = static_cast<std::size_t>(j) * length + i;
        if (!priced[at]) {
          priced[at] = 1;
          const double cut = cutTime(j, i);
          if (cut > runTime[at] * (1 + 1e-12)) {
            runTime[at] = cut;
            raised = true;
          }
        }
        if (!layered && layer == 1 && best[width + j] > best[j])
          layer = 0;
        else if (layered)
          --layer;
        i = j - 1;
      }
      if (!raised) break;
    }
    for (NodeIndex v : path) position_[v] = -1;
    return value;
  }

  /// Placements read off refine()'s best split of `path` (which it runs
  /// again): run r's closure on accelerator r, everything else on CPU cores
  /// (-1), in `closures` (feasible at q = 1: the closures are disjoint,
  /// fit, and no path leads from a later one back to an earlier); in
  /// `withCuts` also the nodes each cut keeps inside, while they fit (a node
  /// claimed twice keeps the first). Both empty when the split has more
  /// runs than accelerators.
  void plansOf(const std::vector<NodeIndex>& path, std::vector<int>* closures,
               std::vector<int>* withCuts) {
    refine(path, std::chrono::steady_clock::time_point::max());
    const std::vector<std::pair<int, int>> split = split_;
    closures->clear();
    withCuts->clear();
    if (static_cast<int>(split.size()) > t_.w.machine.maxFpgas) return;
    std::vector<int> device(t_.n, -1);
    std::vector<double> memory(split.size(), 0);
    std::vector<int> classDevice(t_.w.graph().numClasses, -1);
    prepare(path);
    std::vector<NodeIndex> inside;
    for (int pass = 0; pass < 2; ++pass) {  // closures first, then what the cuts add
      for (std::size_t r = 0; r < split.size(); ++r) {
        cutTime(split[r].first, split[r].second, pass == 0 ? nullptr : &inside);
        for (NodeIndex v : pass == 0 ? lastClosure_ : inside) {
          const int c = t_.w.graph().classOf[v];
          if (device[v] >= 0 || (classDevice[c] >= 0 && classDevice[c] != static_cast<int>(r)))
            continue;
          if (classDevice[c] < 0) {
            if (pass == 1 && !objective::fitsMemory(memory[r] + t_.classSize[c], t_.w.machine))
              continue;
            memory[r] += t_.classSize[c];
            classDevice[c] = static_cast<int>(r);
          }
          device[v] = static_cast<int>(r);
        }
      }
      if (pass == 0) *closures = device;
    }
    // A class split by the cuts' additions goes whole to its accelerator.
    for (NodeIndex v = 0; v < t_.n; ++v)
      if (classDevice[t_.w.graph().classOf[v]] >= 0) device[v] = classDevice[t_.w.graph().classOf[v]];
    *withCuts = device;
    for (NodeIndex v : path) position_[v] = -1;
  }

 private:
  /// first(u): the first path index u reaches; last(v): the last index reaching v.
  void prepare(const std::vector<NodeIndex>& path) {
    path_ = &path;
    const int length = static_cast<int>(path.size());
    for (int i = 0; i < length; ++i) position_[path[i]] = i;
    const auto& order = t_.w.graph().topologicalOrder;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const NodeIndex u = *it;
      int f = position_[u] >= 0 ? position_[u] : length;
      for (NodeIndex x : t_.w.successors(u)) f = std::min(f, first_[x]);
      first_[u] = f;
    }
    for (NodeIndex v : order) {
      int l = position_[v];
      for (NodeIndex u : t_.w.predecessors(v)) l = std::max(l, last_[u]);
      last_[v] = l;
    }
  }

  /// The run p_j … p_i priced by a minimum cut: its piece S holds the
  /// closure C and none of the nodes it cannot hold (reaching p_{j-1},
  /// reached from p_{i+1}, not on accelerators, a class that does not fit
  /// beside C's, at q = 1 a class with such a member); every other node
  /// (free) is in S, its fpgaLatency paid, or not; a node outside S feeding
  /// S pays its cost once, and so does a node of S feeding one outside.
  /// Memory beyond that is relaxed away. The network: the source is outside
  /// S, the sink C; free nodes, and ports that pay a cost once for all of a
  /// node's edges.
  double cutTime(int j, int i, std::vector<NodeIndex>* keptInside = nullptr) {
    const std::vector<NodeIndex>& path = *path_;
    resetClosure();
    j_ = j;
    for (int t = j; t <= i; ++t) {
      i_ = t;
      add(path[t]);
      closeUp();
    }
    const auto& classOf = t_.w.graph().classOf;
    const int n = t_.n;
    enum Kind : char { kOutside, kInside, kFree };
    std::vector<char>& kind = kind_;
    std::vector<int>& id = id_;
    kind.assign(n, kOutside);
    outsideClass_.assign(t_.w.graph().numClasses, 0);
    for (NodeIndex v = 0; v < n; ++v) {
      const int c = classOf[v];
      const bool tooLarge =
          classCount_[c] == 0 &&
          !objective::fitsMemory((memory_ + t_.classSize[c]) * (1 - 1e-12), t_.w.machine);
      if (inClosure_[v])
        kind[v] = kInside;
      else if (first_[v] >= j && last_[v] <= i && t_.accelerator[v] && !tooLarge)
        kind[v] = kFree;
      else
        outsideClass_[c] = 1;
    }
    constexpr int source = 0, sink = 1;
    int nodes = 2;
    for (NodeIndex v = 0; v < n; ++v) {
      if (kind[v] == kFree && t_.q == 1 && outsideClass_[classOf[v]]) kind[v] = kOutside;
      id[v] = kind[v] == kFree ? nodes++ : kind[v] == kInside ? sink : source;
    }
    flow_.reset(nodes);
    double fixed = 0;
    auto port = [&] {
      flow_.grow(++nodes);
      return nodes - 1;
    };
    for (NodeIndex v = 0; v < n; ++v) {
      if (kind[v] == kFree && t_.fpgaTime[v] > 0) flow_.edge(source, id[v], t_.fpgaTime[v]);
      if (t_.cost[v] <= 0) continue;
      bool feedsInside = false, feedsFree = false, feedsOutside = false;
      for (NodeIndex x : t_.w.successors(v)) {
        feedsInside |= kind[x] == kInside;
        feedsFree |= kind[x] == kFree;
        feedsOutside |= kind[x] == kOutside;
      }
      // v outside S, feeding S: cost(v) once.
      if (kind[v] == kOutside && feedsInside) {
        fixed += t_.cost[v];
      } else if (kind[v] != kInside && (feedsFree || feedsInside)) {
        const int p = port();
        flow_.edge(id[v], p, t_.cost[v]);
        for (NodeIndex x : t_.w.successors(v))
          if (kind[x] != kOutside) flow_.edge(p, id[x], kInfinity);
      }
      // v in S, feeding a node outside: cost(v) once.
      if (kind[v] == kInside && feedsOutside) {
        fixed += t_.cost[v];
      } else if (kind[v] == kFree && feedsOutside) {
        flow_.edge(source, id[v], t_.cost[v]);
      } else if (kind[v] != kOutside && feedsFree) {
        const int p = port();
        for (NodeIndex x : t_.w.successors(v))
          if (kind[x] == kFree) flow_.edge(id[x], p, kInfinity);
        flow_.edge(p, id[v], t_.cost[v]);
      }
    }
    if (t_.q == 1)  // one piece per accelerator: a class is all in S or all out
      for (const auto& [a, b] : classLinks_)
        if (kind[a] == kFree && kind[b] == kFree) {
          flow_.edge(id[a], id[b], kInfinity);
          flow_.edge(id[b], id[a], kInfinity);
        }
    const double inside = fpga_;
    const double cut = nodes > 2 ? flow_.run(source, sink) : 0;
    lastClosure_ = members_;
    if (keptInside) {  // the free nodes the source cannot reach in the residual network
      keptInside->clear();
      const std::vector<char> reached = flow_.reachable(source);
      for (NodeIndex v = 0; v < n; ++v)
        if (kind[v] == kFree && !reached[id[v]]) keptInside->push_back(v);
    }
    resetClosure();
    return inside + fixed + cut * (1 - 1e-9);
  }

  /// Calls run(i, time) for every feasible run p_j … p_i with its time's bound.
  template <typename Run>
  void runsFrom(int j, int length, const Run& run) {
    const std::vector<NodeIndex>& path = *path_;
    resetClosure();
    j_ = j;
    for (int i = j; i < length; ++i) {
      i_ = i;
      add(path[i]);
      if (!closeUp()) break;
      if (!objective::fitsMemory(memory_ * (1 - 1e-12), t_.w.machine)) break;
      outTimed_ -= expire_[i];
      expire_[i] = 0;
      if (maxLast_ > i) continue;  // the closure holds a node p_{i+1} reaches
      run(i, fpga_ + in_ + outAlways_ + std::max(0.0, outTimed_));
    }
    for (int i = j; i <= length; ++i) expire_[i] = 0;
    resetClosure();
  }

  void resetClosure() {
    for (NodeIndex v : members_) {
      inClosure_[v] = 0;
      --classCount_[t_.w.graph().classOf[v]];
    }
    for (NodeIndex u : predecessorList_) isPredecessor_[u] = 0;
    members_.clear();
    predecessorList_.clear();
    queue_.clear();
    std::fill(closure_.row(0), closure_.row(0) + closure_.words(), 0);
    std::fill(down_.row(0), down_.row(0) + down_.words(), 0);
    std::fill(up_.row(0), up_.row(0) + up_.words(), 0);
    fpga_ = in_ = outAlways_ = outTimed_ = memory_ = 0;
    blocked_ = false;
    maxLast_ = -1;
  }

  /// u's share of the piece's time when u feeds it from outside the closure.
  double inShare(NodeIndex u) const {
    const bool outside = first_[u] < j_ || !t_.accelerator[u];
    return outside ? t_.cost[u] : std::min(t_.cost[u], t_.fpgaTime[u]);
  }

  void add(NodeIndex x) { queue_.push_back(x); }

  /// Adds the queued nodes and what the closure then forces; false when the
  /// piece cannot exist (for this start j, at any end).
  bool closeUp() {
    for (;;) {
      while (!queue_.empty()) {
        const NodeIndex x = queue_.back();
        queue_.pop_back();
        if (inClosure_[x]) continue;
        if (!t_.accelerator[x] || first_[x] < j_) blocked_ = true;
        if (blocked_) return false;
        inClosure_[x] = 1;
        members_.push_back(x);
        setBit(closure_.row(0), x);
        fpga_ += t_.fpgaTime[x];
        const int c = t_.w.graph().classOf[x];
        if (classCount_[c]++ == 0) {
          memory_ += t_.classSize[c];
          if (t_.q == 1)
            for (NodeIndex y : t_.w.classMembers(c)) queue_.push_back(y);
        }
        {
          Word* down = down_.row(0);
          Word* up = up_.row(0);
          const Word* d = t_.descendants.row(x);
          const Word* a = t_.ancestors.row(x);
          for (int k = 0; k < down_.words(); ++k) {
            down[k] |= d[k];
            up[k] |= a[k];
          }
        }
        if (isPredecessor_[x]) {
          in_ -= inShare(x);
          isPredecessor_[x] = 0;
        }
        for (NodeIndex u : t_.w.predecessors(x))
          if (!inClosure_[u] && !isPredecessor_[u]) {
            isPredecessor_[u] = 1;
            predecessorList_.push_back(u);
            in_ += inShare(u);
          }
        bool always = false;
        int sentUntil = -1;  // x's output is surely sent while i < sentUntil
        for (NodeIndex y : t_.w.successors(x)) {
          always |= !t_.accelerator[y];
          sentUntil = std::max(sentUntil, last_[y]);
        }
        if (always)
          outAlways_ += t_.cost[x];
        else if (sentUntil > i_) {
          outTimed_ += t_.cost[x];
          expire_[sentUntil] += t_.cost[x];
        }
        maxLast_ = std::max(maxLast_, last_[x]);
      }
      // Nodes on a path between two members.
      const Word* c = closure_.row(0);
      const Word* down = down_.row(0);
      const Word* up = up_.row(0);
      for (int k = 0; k < closure_.words(); ++k) {
        Word fresh = down[k] & up[k] & ~c[k];
        while (fresh) {
          const int bit = std::countr_zero(fresh);
          fresh &= fresh - 1;
          queue_.push_back(static_cast<NodeIndex>(k * 64 + bit));
        }
      }
      if (queue_.empty()) return true;
    }
  }

  const Tables& t_;
  MaxFlow flow_;
  std::vector<std::pair<NodeIndex, NodeIndex>> classLinks_;  ///< consecutive members of a class
  std::vector<char> kind_, outsideClass_;                    ///< cutTime's
  std::vector<int> id_;
  std::vector<std::pair<int, int>> split_;  ///< refine()'s last best split: runs (j, i)
  std::vector<NodeIndex> lastClosure_;      ///< cutTime()'s closure
  const std::vector<NodeIndex>* path_ = nullptr;
  std::vector<char> inClosure_, isPredecessor_;
  std::vector<int> classCount_;
  std::vector<int> position_, first_, last_;
  BitRows closure_, down_, up_;
  std::vector<NodeIndex> members_, predecessorList_, queue_;
  std::vector<double> expire_, best_;
  int layers_ = 0;
  int j_ = 0, i_ = 0;
  double fpga_ = 0, in_ = 0, outAlways_ = 0, outTimed_ = 0, memory_ = 0;
  bool blocked_ = false;
  int maxLast_ = -1;
};

/// Longest paths under per-node weights: the path through v, for every v.
class PathsThrough {
 public:
  PathsThrough(const Workload& w, const std::vector<double>& weight)
      : head_(w.numNodes()), tail_(w.numNodes()), back_(w.numNodes(), -1), next_(w.numNodes(), -1) {
    const auto& order = w.graph().topologicalOrder;
    for (NodeIndex v : order) {
      double best = 0;
      for (NodeIndex u : w.predecessors(v))
        if (back_[v] < 0 || head_[u] > best) {
          best = head_[u];
          back_[v] = u;
        }
      head_[v] = best + weight[v];
    }
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
      const NodeIndex v = *it;
      double best = 0;
      for (NodeIndex x : w.successors(v))
        if (next_[v] < 0 || tail_[x] > best) {
          best = tail_[x];
          next_[v] = x;
        }
      tail_[v] = best + weight[v];
    }
    for (NodeIndex v = 0; v < w.numNodes(); ++v) through_.push_back(head_[v] + tail_[v] - weight[v]);
  }
  double through(NodeIndex v) const { return through_[v]; }
  std::vector<NodeIndex> path(NodeIndex v) const {
    std::vector<NodeIndex> p;
    for (NodeIndex u = v; u >= 0; u = back_[u]) p.push_back(u);
    std::reverse(p.begin(), p.end());
    for (NodeIndex x = next_[v]; x >= 0; x = next_[x]) p.push_back(x);
    return p;
  }

 private:
  std::vector<double> head_, tail_, through_;
  std::vector<NodeIndex> back_, next_;
};

}  // namespace

LatencyPathBound latencyPathBound(const Workload& w, const std::vector<char>& acceleratorAllowed,
                                  bool cpuAllowed, int q,
                                  std::chrono::steady_clock::time_point deadline) {
  LatencyPathBound result;
  const int n = w.numNodes();
  if (n == 0) return result;
  if (n > kMaxNodes) {
    result.skipped = true;
    return result;
  }
  Tables t(w, n);
  t.q = std::max(1, q);
  t.maxRuns = static_cast<int>(
      std::min<std::int64_t>(n, static_cast<std::int64_t>(std::max(0, w.machine.maxFpgas)) * t.q));
  t.accelerator.resize(n);
  t.cpuSide.resize(n);
  t.cpuTime.resize(n);
  t.fpgaTime.resize(n);
  t.cost = w.graph().outCost;
  t.classSize = objective::ClassTotals(w).size;
  std::vector<double> cheapest(n);
  for (NodeIndex v = 0; v < n; ++v) {
    const Node& node = w.graph().nodes[v];
    t.accelerator[v] = acceleratorAllowed[w.graph().classOf[v]] != 0 && t.maxRuns > 0;
    const bool nowhere = !t.accelerator[v] && !cpuAllowed;
    t.cpuSide[v] = cpuAllowed || nowhere;
    t.cpuTime[v] = nowhere ? 0 : node.cpuLatency;
    t.fpgaTime[v] = node.fpgaLatency;
    double best = kInfinity;
    if (t.accelerator[v]) best = node.fpgaLatency;
    if (cpuAllowed) best = std::min(best, node.cpuLatency);
    cheapest[v] = best == kInfinity ? 0 : best;
  }
  const auto& order = w.graph().topologicalOrder;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Word* row = t.descendants.row(*it);
    setBit(row, *it);
    for (NodeIndex x : w.successors(*it)) {
      const Word* other = t.descendants.row(x);
      for (int k = 0; k < t.descendants.words(); ++k) row[k] |= other[k];
    }
  }
  for (NodeIndex v : order) {
    Word* row = t.ancestors.row(v);
    setBit(row, v);
    for (NodeIndex u : w.predecessors(v)) {
      const Word* other = t.ancestors.row(u);
      for (int k = 0; k < t.ancestors.words(); ++k) row[k] |= other[k];
    }
  }

  // Candidate paths: through every node, longest by cheapest compute, and
  // by compute plus output cost; the longest first, alternating.
  std::vector<double> withCost(n);
  for (NodeIndex v = 0; v < n; ++v) withCost[v] = cheapest[v] + t.cost[v];
  const PathsThrough byCompute(w, cheapest), byCost(w, withCost);
  std::vector<NodeIndex> rankCompute(n), rankCost(n);
  for (NodeIndex v = 0; v < n; ++v) rankCompute[v] = rankCost[v] = v;
  std::stable_sort(rankCompute.begin(), rankCompute.end(), [&](NodeIndex a, NodeIndex b) {
    return byCompute.through(a) > byCompute.through(b);
  });
  std::stable_sort(rankCost.begin(), rankCost.end(),
                   [&](NodeIndex a, NodeIndex b) { return byCost.through(a) > byCost.through(b); });

  PathProgram program(t);
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::pair<double, std::vector<NodeIndex>>> top;  // the best paths, to refine
  // The sums add and subtract shares, and the flows push and cancel
  // capacities: each step may round by half an ulp of the largest term it
  // touches, not of the result. A cost of 8.9e12 added to a piece's inputs
  // and taken off again left 3e-4 in a bound of 8.49, above the optimum
  // (the pipeline fuzzer): so an absolute allowance of a few ulps of all the
  // terms together per step, beside a relative 1e-10.
  double magnitude = 0;
  for (NodeIndex v = 0; v < n; ++v)
    magnitude += std::fabs(t.fpgaTime[v]) + std::fabs(t.cpuTime[v]) + std::fabs(t.cost[v]);
  const double allowance = 16.0 * n * std::numeric_limits<double>::epsilon() * magnitude;
  auto consider = [&](double value, const std::vector<NodeIndex>& path) {
    const double proven = value * (1 - 1e-10) - allowance;
    if (value < kInfinity && proven > result.value) {
      result.value = proven;
      result.bestPathNodes = static_cast<int>(path.size());
    }
  };
  int stale = 0;  // paths in a row that did not raise the bound
  for (int rank = 0; rank < n && stale < kStalePaths; ++rank)
    for (int which = 0; which < 2; ++which) {
      if (std::chrono::steady_clock::now() > deadline) return result;
      const std::vector<NodeIndex> path = which == 0 ? byCompute.path(rankCompute[rank])
                                                     : byCost.path(rankCost[rank]);
      std::uint64_t hash = 1469598103934665603ULL;
      for (NodeIndex v : path) hash = (hash ^ static_cast<std::uint64_t>(v)) * 1099511628211ULL;
      if (!seen.insert(hash).second) continue;
      const double value = program.evaluate(path, &result.runLimitDropped, deadline);
      ++result.pathsTried;
      const double previous = result.value;
      consider(value, path);
      stale = result.value > previous ? 0 : stale + 1;
      if (stale >= kStalePaths) break;
      if (value == kInfinity) continue;
      top.emplace_back(value, path);
      std::sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
      if (top.size() > kRefined) top.pop_back();
    }
  result.beforeCuts = result.value;
  std::vector<NodeIndex> bestPath;
  if (n <= kMaxRefineNodes)
    for (const auto& [value, path] : top) {
      if (std::chrono::steady_clock::now() > deadline || path.size() > kMaxRefineLength) continue;
      const double before = result.value;
      consider(program.refine(path, deadline), path);
      if (result.value > before || bestPath.empty()) bestPath = path;
      ++result.pathsRefined;
    }
  if (!bestPath.empty() && std::chrono::steady_clock::now() < deadline)
    program.plansOf(bestPath, &result.closurePlan, &result.plan);
  return result;
}

}  // namespace dnnplace
