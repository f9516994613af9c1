#include "bounds/throughput_bound.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>
#include <utility>

#include "OsiClpSolverInterface.hpp"
#include "bounds/max_flow.hpp"
#include "milp/cbc_runner.hpp"
#include "milp/limits.hpp"
#include "milp/model_builder.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace::bounds {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
/// Past this many classes the MILP probes are not tried (their models grow
/// with the square of the classes and CBC rarely finishes one).
constexpr int kMilpClasses = 400;
/// Past this many classes bounds 2 and 3 are not tried (their pairs would
/// take more than about 100 MB), nor when their pairs would take more than
/// half the memory limit, at about this many bytes each (the cut's value,
/// the LP's column, row and coefficients).
constexpr int kMaxClasses = 1500;
constexpr double kBytesPerPair = 96;

/// Whether the accelerators and cores can absorb every class at max-load T
/// with classes split fractionally, and the classes only accelerators can
/// take fit them by count (bound 1's test).
/// `tax`: what every accelerator's block pays besides its work (bound 1b:
/// its least boundary), so that it holds at most T − tax of work;
/// `totalTax`: what all of them pay together (bound 1b passes at least k · tax).
bool workFits(const Workload& w, const objective::ClassTotals& totals, const std::vector<int>& byRatio,
              const std::vector<int>& byBytes, double T, double tax = 0, double totalTax = 0) {
  const Machine& m = w.machine;
  double accelerator = 0, cpu = 0, pinnedBytes = 0;
  std::vector<int> flexible;
  std::vector<char> isFlexible(totals.size.size(), 0);
  std::vector<double> pinned;    // latencies of the classes only an accelerator can take
  const double room0 = T - tax;  // an accelerator's room for work
  for (int c : byRatio) {
    const bool onAccelerator = totals.fitsAccelerator(c, m) && totals.acceleratorLatency[c] <= room0;
    const bool onCpu = m.maxCpus > 0 && totals.cpuLatency[c] <= T;
    if (!onAccelerator && !onCpu) return false;
    if (onAccelerator && onCpu) {
      flexible.push_back(c);
      isFlexible[c] = 1;
    } else if (onAccelerator) {
      accelerator += totals.acceleratorLatency[c];
      pinned.push_back(totals.acceleratorLatency[c]);
      pinnedBytes += totals.size[c];
    } else {
      cpu += totals.cpuLatency[c];
    }
  }
  // Memory: the accelerators hold at most k · maxSizePerFPGA bytes, the
  // pinned classes and some flexible ones; the cores run the rest. With
  // memory alone binding, the least CPU time left is a fractional knapsack
  // (most CPU time per byte kept on the accelerators): a second bound on
  // the cores' work beside the time's below.
  if (m.maxCpus > 0 || pinnedBytes > 0) {
    double bytesRoom = m.maxFpgas * m.maxSizePerFpga * (1 + 1e-12) - pinnedBytes;
    if (bytesRoom < 0) return false;
    double cpuByMemory = cpu;
    for (int c : byBytes) {
      if (!isFlexible[c]) continue;
      const double bytes = totals.size[c];
      const double take = bytes <= bytesRoom ? 1.0 : bytesRoom / bytes;
      bytesRoom -= take * bytes;
      cpuByMemory += (1 - take) * totals.cpuLatency[c];
    }
    if (cpuByMemory > m.maxCpus * T) return false;
  }
  double room = m.maxFpgas * T - totalTax - accelerator;
  if (room < 0) return false;
  // Classes do not split: an accelerator holds at most j classes of latency
  // above T / (j + 1), so the i-th largest pinned class (0-based), of
  // latency v, needs i + 1 ≤ k · floor(T / v) (j rounded up: never stricter).
  std::sort(pinned.begin(), pinned.end(), std::greater<>());
  for (std::size_t i = 0; i < pinned.size() && pinned[i] > 0; ++i)
    if (static_cast<double>(i + 1) > m.maxFpgas * std::floor(room0 / pinned[i] * (1 + 1e-12)))
      return false;
  // Most CPU time saved per accelerator time first.
  for (int c : flexible) {
    const double a = totals.acceleratorLatency[c];
    const double take = a <= room ? 1.0 : room / a;
    room -= take * a;
    cpu += (1 - take) * totals.cpuLatency[c];
  }
  return cpu <= m.maxCpus * T;
}

/// The classes, most CPU time saved per accelerator time first (workFits' order).
std::vector<int> classesByRatio(const objective::ClassTotals& totals, int classes) {
  std::vector<int> byRatio(classes);
  std::iota(byRatio.begin(), byRatio.end(), 0);
  auto saved = [&](int c) {  // CPU time saved per accelerator time
    const double a = totals.acceleratorLatency[c];
    return a > 0 ? totals.cpuLatency[c] / a : kInf;
  };
  std::stable_sort(byRatio.begin(), byRatio.end(), [&](int a, int b) { return saved(a) > saved(b); });
  return byRatio;
}

/// The classes, most CPU time per byte first (workFits' memory knapsack).
std::vector<int> classesByBytes(const objective::ClassTotals& totals, int classes) {
  std::vector<int> byBytes(classes);
  std::iota(byBytes.begin(), byBytes.end(), 0);
  auto perByte = [&](int c) {
    const double bytes = totals.size[c];
    return bytes > 0 ? totals.cpuLatency[c] / bytes : kInf;
  };
  std::stable_sort(byBytes.begin(), byBytes.end(),
                   [&](int a, int b) { return perByte(a) > perByte(b); });
  return byBytes;
}

/// The classes renumbered in a topological order (by their first node), with
/// what bound 2 needs: per position, its latencies, size and whether it may
/// use an accelerator, and the communication as hyperedges over positions:
/// a block pays a hyperedge's cost when it holds some but not all members.
struct ClassGraph {
  int size = 0;
  std::vector<double> work, cpuWork, bytes;
  std::vector<char> onAccelerator;
  struct Hyperedge {
    std::vector<int> members;  ///< positions, ascending
    double cost = 0;
  };
  std::vector<Hyperedge> edges;
  std::vector<std::vector<int>> edgesOf;  ///< per position: its hyperedges
};

ClassGraph classGraph(const Workload& w, const objective::ClassTotals& totals) {
  const Graph& g = w.graph();
  ClassGraph cg;
  cg.size = g.numClasses;
  std::vector<int> position(g.numClasses, -1);
  std::vector<int> classAt;
  for (NodeIndex v : g.topologicalOrder)
    if (position[g.classOf[v]] < 0) {
      position[g.classOf[v]] = static_cast<int>(classAt.size());
      classAt.push_back(g.classOf[v]);
    }
  for (int c : classAt) {
    cg.work.push_back(totals.acceleratorLatency[c]);
    cg.cpuWork.push_back(totals.cpuLatency[c]);
    cg.bytes.push_back(totals.size[c]);
    cg.onAccelerator.push_back(totals.fitsAccelerator(c, w.machine));
  }
  // A node's cost is paid by a block that splits {its class} ∪ {its
  // successors' classes}; nodes with the same member set add up.
  std::map<std::vector<int>, double> byMembers;
  for (NodeIndex u = 0; u < w.numNodes(); ++u) {
    if (g.outCost[u] <= 0) continue;
    std::vector<int> members{position[g.classOf[u]]};
    for (NodeIndex x : w.successors(u)) members.push_back(position[g.classOf[x]]);
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    if (members.size() > 1) byMembers[members] += g.outCost[u];
  }
  cg.edgesOf.resize(cg.size);
  for (auto& [members, cost] : byMembers) {
    for (int m : members) cg.edgesOf[m].push_back(static_cast<int>(cg.edges.size()));
    cg.edges.push_back({members, cost});
  }
  return cg;
}

/// A block's accelerator load as a cut: node 0 the source (inside the
/// block), 1 the sink (outside), 2 + p − r the class at position p ≥ r;
/// positions where `inside` is false are the sink. With `withWork` a class
/// inside pays its latency (arc to the sink), and every hyperedge the block
/// splits pays its cost (Lawler's gadget: a member inside pulls `in` inside,
/// a member outside pulls `out` outside, and in → out costs the cost). A
/// minimum cut with r forced inside (the source arc of r has capacity `big`)
/// is the cheapest such block. sourceArc[p − r]: the source arc of p
/// (capacity 0 but r's), to force more classes in.
template <class Inside>
MaxFlow blockNetwork(const ClassGraph& cg, int r, const Inside& inside, bool withWork, double big,
                     std::vector<int>* sourceArc) {
  MaxFlow flow(2 + cg.size - r);
  auto node = [&](int p) { return p >= r && inside(p) ? 2 + p - r : 1; };
  sourceArc->assign(cg.size - r, -1);
  for (int p = r; p < cg.size; ++p) {
    if (!inside(p)) continue;
    if (withWork && cg.work[p] > 0) flow.addArc(node(p), 1, cg.work[p]);
    (*sourceArc)[p - r] = flow.addArc(0, node(p), p == r ? big : 0);
  }
  for (const auto& e : cg.edges) {
    if (e.members.back() < r) continue;
    bool any = false, outside = false;
    for (int m : e.members) (node(m) == 1 ? outside : any) = true;
    if (!any) continue;
    if (outside) {  // a member outside: the hyperedge is split once any member is inside
      const int in = flow.addNode();
      flow.addArc(in, 1, e.cost);
      for (int m : e.members)
        if (node(m) != 1) flow.addArc(node(m), in, big);
      continue;
    }
    const int in = flow.addNode(), out = flow.addNode();
    flow.addArc(in, out, e.cost);
    for (int m : e.members) {
      flow.addArc(node(m), in, big);
      flow.addArc(out, node(m), big);
    }
  }
  return flow;
}

/// Capacities far above every finite cut, and the flow's zero.
struct Scale {
  double big = 1, epsilon = 1e-12;
  explicit Scale(const ClassGraph& cg) {
    double total = 0;
    for (double a : cg.work) total += a;
    for (const auto& e : cg.edges) total += e.cost;
    big = 4 * total + 1;
    epsilon = 1e-12 * (total + 1);
  }
};

/// Every hyperedge of the class graph on a network whose node 2 + p is the
/// class at position p, as Lawler's gadget: a member on the source side
/// pulls `in` there, a member on the sink side pulls `out` there, and
/// in → out costs the hyperedge's cost, so a cut pays it exactly when the
/// hyperedge is split.
void addHyperedges(const ClassGraph& cg, double big, MaxFlow* flow) {
  for (const auto& e : cg.edges) {
    const int in = flow->addNode(), out = flow->addNode();
    flow->addArc(in, out, e.cost);
    for (int m : e.members) {
      flow->addArc(2 + m, in, big);
      flow->addArc(out, 2 + m, big);
    }
  }
}

/// Bound 1b (docs/bounds.md): at max-load T the accelerators must take at
/// least R of work (what the cores cannot absorb), so when R > (k − 1) T
/// every accelerator's block B holds work ≥ w = R − (k − 1) T. Then B holds
/// one of the heaviest classes S (their work exceeds all but w), s, and
/// misses a class t of every set weighing more than T, so it pays at least
/// λ(s, t), the least cut (a minimum s–t cut of the class hypergraph)
/// between them: m(s) for the set of the largest λ(s, t). The k blocks
/// hold different classes of S, so together they pay at least the k
/// smallest m(s), each at least the smallest, and hold that much less
/// work: the work bound with that room. A bisection on T.
class BoundaryBound {
 public:
  BoundaryBound(const Workload& w, const objective::ClassTotals& totals, const ClassGraph& cg)
      : w_(w), totals_(totals), cg_(cg), scale_(cg), network_(2 + cg.size) {
    byRatio_ = classesByRatio(totals, w.graph().numClasses);
    byBytes_ = classesByBytes(totals, w.graph().numClasses);
    addHyperedges(cg, scale_.big, &network_);
    heavy_.resize(cg.size);
    std::iota(heavy_.begin(), heavy_.end(), 0);
    std::stable_sort(heavy_.begin(), heavy_.end(),
                     [&](int a, int b) { return cg.work[a] > cg.work[b]; });
  }

  /// The largest T proven in (lo, hi) (lo itself when none); *cut and
  /// *totalCut: what each accelerator and all k together pay at least there;
  /// *stopped when the deadline or the interrupt cut it short.
  double run(double lo, double hi, std::chrono::steady_clock::time_point deadline,
             const std::atomic<bool>* interrupt, double* cut, double* totalCut, bool* stopped) {
    *cut = *totalCut = 0;
    for (int i = 0; i < 100 && hi - lo > 1e-9 * hi; ++i) {
      const double mid = 0.5 * (lo + hi);
      double each = 0, total = 0;
      const std::optional<bool> out = ruledOut(mid, deadline, interrupt, &each, &total);
      if (!out) {
        *stopped = true;
        break;
      }
      if (*out) {
        lo = mid;
        *cut = each;
        *totalCut = total;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

 private:
  /// Whether no placement reaches max-load T, for T above the work bound
  /// (run's range); nullopt when stopped.
  std::optional<bool> ruledOut(double T, std::chrono::steady_clock::time_point deadline,
                               const std::atomic<bool>* interrupt, double* cut, double* totalCut) {
    const Machine& m = w_.machine;
    // The accelerators' share R: all the work that may use an accelerator
    // less the most the cores can take at T (a fractional knapsack, most
    // accelerator time per CPU time first, after the classes only a core
    // can run).
    double capable = 0, cpuLeft = m.maxCpus * T;
    for (int p = 0; p < cg_.size; ++p) {
      if (cg_.onAccelerator[p] && cg_.work[p] <= T)
        capable += cg_.work[p];
      else
        cpuLeft -= cg_.cpuWork[p];
    }
    double absorbed = 0;
    for (auto it = byRatio_.rbegin(); it != byRatio_.rend() && cpuLeft > 0; ++it) {
      const int c = *it;
      const double a = totals_.acceleratorLatency[c], p = totals_.cpuLatency[c];
      if (!totals_.fitsAccelerator(c, m) || a > T || p > T) continue;
      const double take = p <= cpuLeft ? 1.0 : cpuLeft / p;
      absorbed += take * a;
      cpuLeft -= take * p;
    }
    const double least = capable - absorbed - (m.maxFpgas - 1) * T;  // w above
    if (!(least > 0)) return false;
    // S: heaviest classes an accelerator may hold until the rest weighs less
    // than `least`.
    std::vector<int> inside, candidates;
    double sum = 0;
    for (int p : heavy_) {
      if (!(cg_.onAccelerator[p] && cg_.work[p] <= T)) continue;
      if (capable - sum < least) break;
      inside.push_back(p);
      sum += cg_.work[p];
    }
    if (capable - sum >= least) return false;
    // The k blocks are disjoint and each holds a class of S.
    if (static_cast<int>(inside.size()) < m.maxFpgas) return true;
    // What a block holding s pays at least, m(s): it misses a class of every
    // set that weighs more than T with s, so λ(s, t) for some t of the set
    // of the largest λ(s, t) (among the heaviest classes) that does.
    sum = 0;
    for (int p : heavy_) {
      if (sum > 2 * T) break;
      candidates.push_back(p);
      sum += cg_.work[p];
    }
    std::vector<double> pays;
    std::vector<std::pair<double, double>> cuts;  // (λ(s, t), t's work)
    for (int s : inside) {
      cuts.clear();
      for (int t : candidates) {
        if (t == s) continue;
        const std::optional<double> lambda = cutBetween(s, t, deadline, interrupt);
        if (!lambda) return std::nullopt;
        cuts.emplace_back(*lambda, cg_.work[t]);
      }
      std::sort(cuts.begin(), cuts.end(), std::greater<>());
      double weight = cg_.work[s], pay = 0;  // the block holds s too
      for (const auto& [lambda, work] : cuts)
        if ((weight += work) > T) {
          pay = lambda;
          break;
        }
      pays.push_back(pay);
    }
    // Each block pays m(s) for a class s of S it holds, a different one per
    // block: every block at least the smallest m, all k at least the k
    // smallest together.
    std::sort(pays.begin(), pays.end());
    const double each = pays[0];
    const double total = std::accumulate(pays.begin(), pays.begin() + m.maxFpgas, 0.0);
    if (!(total > 0)) return false;
    *cut = each;
    *totalCut = total;
    return !workFits(w_, totals_, byRatio_, byBytes_, T, each, total);
  }

  /// λ(s, t): the least cut of a class set holding s and not t (cached;
  /// symmetric, as a set's cut is its complement's).
  std::optional<double> cutBetween(int s, int t, std::chrono::steady_clock::time_point deadline,
                                   const std::atomic<bool>* interrupt) {
    const auto key = std::minmax(s, t);
    if (const auto found = cache_.find(key); found != cache_.end()) return found->second;
    if (pastLimit(deadline, interrupt)) return std::nullopt;
    MaxFlow flow = network_;
    flow.addArc(0, 2 + s, scale_.big);
    flow.addArc(2 + t, 1, scale_.big);
    const double value = flow.augment(0, 1, scale_.epsilon);
    cache_.emplace(key, value);
    return value;
  }

  const Workload& w_;
  const objective::ClassTotals& totals_;
  const ClassGraph& cg_;
  Scale scale_;
  MaxFlow network_;
  std::vector<int> byRatio_, byBytes_, heavy_;
  std::map<std::pair<int, int>, double> cache_;
};

/// Bound 1c (docs/bounds.md): counting the heavy classes. Call the classes
/// of accelerator latency ≥ θ heavy, n of them. An accelerator block of load
/// ≤ T holds at most U of them, U + 1 the least j with L_j > T, where L_j is
/// the least load of a class set holding j heavy classes (an exact minimum
/// over j-sets: a branch and bound whose nodes are minimum cuts with the
/// chosen classes forced inside, each a lower bound for every extension); a
/// core holds at most the floor of a fractional knapsack of them. When
/// n > k·U + ℓ·U_core no placement reaches T. It is what sees that whole
/// classes and the communication around them do not pack: BERT-12's twelve
/// attention products, each needing its inputs and outputs, cannot go three
/// to a device below the load of the cheapest three. θ runs over the
/// largest class latencies.
class CountingBound {
 public:
  CountingBound(const Workload& w, const ClassGraph& cg, const CountingLimits& limits)
      : machine_(w.machine), limits_(limits), cg_(cg), scale_(cg), base_(2 + cg.size) {
    sourceArc_.assign(cg.size, -1);
    for (int p = 0; p < cg.size; ++p) {
      if (!cg.onAccelerator[p]) {
        base_.addArc(2 + p, 1, scale_.big);
        continue;
      }
      if (cg.work[p] > 0) base_.addArc(2 + p, 1, cg.work[p]);
      sourceArc_[p] = base_.addArc(0, 2 + p, 0);
    }
    addHyperedges(cg, scale_.big, &base_);
    std::vector<double> works;
    for (int p = 0; p < cg.size; ++p)
      if (cg.onAccelerator[p] && cg.work[p] > 0) works.push_back(cg.work[p]);
    std::sort(works.begin(), works.end(), std::greater<>());
    works.erase(std::unique(works.begin(), works.end()), works.end());
    if (works.size() > kThresholds) works.resize(kThresholds);
    thresholds_ = std::move(works);
  }

  /// The largest T proven in (lo, hi] (lo itself when none); *how names the
  /// classes counted; *stopped when the deadline or the interrupt
  /// cut it short.
  double run(double lo, double hi, std::chrono::steady_clock::time_point deadline,
             const std::atomic<bool>* interrupt, std::string* how, bool* stopped) {
    for (double theta : thresholds_) {
      std::vector<int> heavy;  // positions, ascending
      for (int p = 0; p < cg_.size; ++p)
        if (cg_.onAccelerator[p] && cg_.work[p] >= theta) heavy.push_back(p);
      bool unknown = false;
      long long most = 0;
      const std::optional<double> proven = bestFor(heavy, lo, hi, deadline, interrupt, &unknown, &most);
      if (!proven) {
        *stopped = true;
        return lo;
      }
      if (*proven > lo) {
        lo = *proven;
        *how = "the " + std::to_string(heavy.size()) + " classes of latency ≥ " +
               formatShortest(theta) + " go at most " + std::to_string(most) +
               " to an accelerator below it";
      }
      // Lighter thresholds count more classes and their branch and bound
      // only grows: the first that runs out of nodes ends the search.
      // (Counting the heaviest classes twice and the next ones once proved
      // nothing more on the shipped workloads.)
      if (unknown) break;
    }
    return lo;
  }

  /// The minimum cuts taken (every branch and bound so far).
  long long cuts() const { return cuts_; }
  /// The branch and bounds that ran out of their node budget (their L_j unknown).
  int exhausted() const { return exhausted_; }

 private:
  static constexpr std::size_t kThresholds = 48;
  /// The most heavy classes a set is asked to hold (the search's depth, each
  /// level a copy of the network: memory bounded by this many copies).
  static constexpr long long kMaxDepth = 32;

  /// The largest T in (lo, hi] that counting `heavy` proves (lo when none;
  /// nullopt when stopped): n > k·U + ℓ·U_core, U + 1 = the least j with
  /// L_j > T (*most: U there).
  std::optional<double> bestFor(const std::vector<int>& heavy, double lo, double hi,
                                std::chrono::steady_clock::time_point deadline,
                                const std::atomic<bool>* interrupt, bool* unknown, long long* most) {
    const long long k = machine_.maxFpgas, cores = machine_.maxCpus;
    const long long total = static_cast<long long>(heavy.size());
    std::map<long long, double> least;  // j → L_j (capped at hi; −1: not found in the node budget)
    long long j = 1;                    // the count the last probe asked an accelerator for
    // Whether no placement reaches max-load T.
    auto proves = [&](double T) -> std::optional<bool> {
      const long long spare = total - 1 - cores * coreCapacity(T, heavy);
      if (spare < 0) return false;
      if (k == 0) return true;  // the cores alone cannot hold them
      j = spare / k + 1;
      // Each level of the branch and bound keeps a copy of the network.
      if (j > kMaxDepth) {
        *unknown = true;
        return false;
      }
      auto found = least.find(j);
      if (found == least.end()) {
        const std::optional<double> value = leastLoad(heavy, j, hi, deadline, interrupt);
        if (!value) return std::nullopt;
        found = least.emplace(j, *value).first;
      }
      if (found->second < 0) {
        *unknown = true;
        return false;
      }
      return T < found->second;
    };
    // Bisection (the proof is monotone: the cores hold less and j grows as
    // T falls); the first probe is the plan itself (only rounding rules it out).
    double top = hi, bottom = lo;
    for (int i = 0; i < 60 && top - bottom > 1e-9 * top; ++i) {
      const double T = i == 0 ? top : 0.5 * (bottom + top);
      const std::optional<bool> out = proves(T);
      if (!out) return std::nullopt;
      if (*unknown) break;
      if (*out) {
        bottom = T;
        *most = k > 0 ? j - 1 : 0;
        if (i == 0) break;
      } else {
        top = T;
      }
    }
    return bottom;
  }

  /// L_j: the least load of a class set holding j or more of `heavy`
  /// (memory aside), capped at `cap`; −1 when the branch and bound passed its
  /// node budget, nullopt when stopped. Each node forces its chosen classes
  /// inside one more minimum cut (the flow found is at most the least cut:
  /// a lower bound), and every extension of a node costs at least as much.
  std::optional<double> leastLoad(const std::vector<int>& heavy, long long j, double cap,
                                  std::chrono::steady_clock::time_point deadline,
                                  const std::atomic<bool>* interrupt) {
    double best = cap;
    long long nodes = 0;
    bool stopped = false, exhausted = false;
    const int n = static_cast<int>(heavy.size());
    std::function<void(const MaxFlow&, double, int, long long)> extend =
        [&](const MaxFlow& flow, double value, int next, long long chosen) {
          for (int i = next; chosen + (n - i) >= j && !stopped && !exhausted; ++i) {
            if (++nodes > limits_.nodes) {
              exhausted = true;
              return;
            }
            if ((limits_.stopAfter >= 0 && cuts_ >= limits_.stopAfter) ||
                ((nodes & 15) == 0 && pastLimit(deadline, interrupt))) {
              stopped = true;
              return;
            }
            ++cuts_;
            MaxFlow forced = flow;
            forced.addCapacity(sourceArc_[heavy[i]], scale_.big);
            const double load = value + forced.augment(0, 1, scale_.epsilon);
            if (!(load < best)) continue;  // every extension costs at least as much
            // The cheapest set may already hold enough of them: no deeper node beats it.
            long long held = 0;
            for (int p : heavy) held += forced.sourceSide(2 + p) ? 1 : 0;
            if (held >= j) {
              best = load;
              continue;
            }
            extend(forced, load, i + 1, chosen + 1);
          }
        };
    MaxFlow start = base_;
    const double value = start.augment(0, 1, scale_.epsilon);
    extend(start, value, 0, 0);
    if (stopped) return std::nullopt;
    if (exhausted) {
      ++exhausted_;
      return -1.0;
    }
    return best;
  }

  /// The most of `heavy` one core can hold at T: a fractional knapsack over
  /// CPU time, the shortest first (its floor).
  long long coreCapacity(double T, const std::vector<int>& heavy) const {
    if (machine_.maxCpus == 0) return 0;
    std::vector<double> times;
    for (int p : heavy)
      if (cg_.cpuWork[p] <= T) times.push_back(cg_.cpuWork[p]);
    std::sort(times.begin(), times.end());
    double room = T, held = 0;
    for (double t : times) {
      const double take = t <= room ? 1.0 : room / t;
      held += take;
      room -= take * t;
      if (take < 1) break;
    }
    return static_cast<long long>(std::floor(held * (1 + 1e-9) + 1e-9));
  }

  const Machine& machine_;
  CountingLimits limits_;
  const ClassGraph& cg_;
  Scale scale_;
  MaxFlow base_;
  std::vector<int> sourceArc_;
  std::vector<double> thresholds_;
  long long cuts_ = 0;
  int exhausted_ = 0;
};

/// load[r][c − r]: the least accelerator load of a block that holds the
/// classes at positions r and c and none before r (∞ when no such block
/// fits: r or c may not use an accelerator, or both exceed its memory), by
/// one minimum cut per r and that cut extended by one source arc per c.
/// Rows not reached by the deadline are 0 (nothing ruled out).
struct CheapestBlocks {
  std::vector<std::vector<double>> load;
  bool complete = true;
};

CheapestBlocks cheapestBlocks(const ClassGraph& cg, const Machine& machine, double upperBound,
                              std::chrono::steady_clock::time_point deadline,
                              const std::atomic<bool>* interrupt) {
  CheapestBlocks result;
  result.load.resize(cg.size);
  const Scale scale(cg);
  auto allowed = [&](int p) { return cg.onAccelerator[p] != 0; };
  std::vector<int> sourceArc;
  for (int r = 0; r < cg.size; ++r) {
    auto& row = result.load[r];
    row.assign(cg.size - r, 0.0);
    if (!result.complete) continue;
    if (pastLimit(deadline, interrupt)) {
      result.complete = false;
      continue;
    }
    if (!cg.onAccelerator[r]) {
      std::fill(row.begin(), row.end(), kInf);
      continue;
    }
    MaxFlow flow = blockNetwork(cg, r, allowed, true, scale.big, &sourceArc);
    const double base = flow.augment(0, 1, scale.epsilon);
    for (int c = r; c < cg.size; ++c) {
      if (!cg.onAccelerator[c] || base >= scale.big ||
          !objective::fitsMemory(cg.bytes[r] + (c == r ? 0 : cg.bytes[c]), machine)) {
        row[c - r] = kInf;
        continue;
      }
      if (base > upperBound || flow.sourceSide(2 + c - r)) {
        row[c - r] = base;  // the cheapest block with r already holds c (or rules r out)
        continue;
      }
      if ((c & 31) == 0 && pastLimit(deadline, interrupt)) {
        result.complete = false;  // the rest of the row stays 0
        break;
      }
      MaxFlow extended = flow;
      extended.addCapacity(sourceArc[c - r], scale.big);
      const double value = base + extended.augment(0, 1, scale.epsilon);
      row[c - r] = value >= scale.big ? kInf : value;
    }
  }
  return result;
}

/// The covering LP at max-load T (docs/bounds.md): the least number of
/// accelerator blocks its relaxation needs (∞: none suffices). Block r may
/// hold the classes c with cheapest(r, c) ≤ T (its window) and pays at least
/// the cheapest cut around r inside its window, κ_r, so it holds at most
/// T − κ_r of work. Nullopt when the simplex was stopped (deadline,
/// interrupt) or ended unproven.
std::optional<double> blocksNeeded(const ClassGraph& cg, const Machine& machine,
                                   const CheapestBlocks& cheapest, double T, bool integer,
                                   double seconds, int* ruledOut,
                                   std::chrono::steady_clock::time_point deadline,
                                   const std::atomic<bool>* interrupt) {
  using milp::Linear;
  const double keep = T * (1 + 1e-9);  // a cut above this rules a pair out
  const Scale scale(cg);
  milp::ModelBuilder b;
  b.stopAt(deadline, interrupt);
  std::vector<Linear> cover(cg.size);
  // Memory in units of one accelerator's (bytes would make the LP badly scaled).
  const double unit = machine.maxSizePerFpga > 0 ? 1 / machine.maxSizePerFpga : 1;
  *ruledOut = 0;
  std::vector<int> sourceArc;
  Linear opened;  // the blocks
  for (int r = 0; r < cg.size; ++r) {
    const auto& row = cheapest.load[r];
    auto inWindow = [&](int p) {
      return p >= r && cg.onAccelerator[p] && cg.work[p] <= T && row[p - r] <= keep;
    };
    if (!inWindow(r)) continue;
    for (int c = r; c < cg.size; ++c) *ruledOut += cg.onAccelerator[c] && !inWindow(c);
    if (pastLimit(deadline, interrupt)) return std::nullopt;
    MaxFlow flow = blockNetwork(cg, r, inWindow, false, scale.big, &sourceArc);
    const double forced = flow.augment(0, 1, scale.epsilon);  // κ_r
    const double room = T - forced;
    if (room < cg.work[r]) continue;
    const int open = b.addColumn(milp::name("open", {r}), 0, 1, 1, integer);
    opened.add(open, 1);
    cover[r].add(open, 1);
    Linear work, memory;
    work.add(open, cg.work[r] - room);
    memory.add(open, unit * cg.bytes[r] - 1);
    for (int c = r + 1; c < cg.size; ++c) {
      if (!inWindow(c)) continue;
      const int share = b.addColumn(milp::name("share", {r, c}), 0, 1, 0, integer);
      cover[c].add(share, 1);
      work.add(share, cg.work[c]);
      memory.add(share, unit * cg.bytes[c]);
      Linear holds;  // block r holds c only if it is open
      holds.add(share, 1).add(open, -1);
      b.addRow(milp::name("holds", {r, c}), holds, -milp::kInfinity, 0);
    }
    b.addRow(milp::name("work", {r}), work, -milp::kInfinity, 0);
    b.addRow(milp::name("memory", {r}), memory, -milp::kInfinity, 0);
  }
  Linear cpu;
  if (machine.maxCpus > 0)
    for (int c = 0; c < cg.size; ++c)
      if (cg.cpuWork[c] <= T) {
        const int q = b.addColumn(milp::name("cpu", {c}), 0, 1, 0, integer);
        cover[c].add(q, 1);
        cpu.add(q, cg.cpuWork[c]);
      }
  for (int c = 0; c < cg.size; ++c) {
    if (cover[c].terms.empty()) return kInf;  // class c fits no block at T
    b.addRow(milp::name("cover", {c}), cover[c], 1, 1);
  }
  if (!cpu.terms.empty()) b.addRow("cpuTime", cpu, -milp::kInfinity, machine.maxCpus * T);
  // The MILP's decision: at most k blocks; CBC proving it infeasible proves T.
  if (integer) b.addRow("blocks", opened, -milp::kInfinity, machine.maxFpgas);
  milp::CoinPtr<OsiClpSolverInterface> solver = b.build();
  solver->messageHandler()->setLogLevel(0);
  solver->getModelPtr()->setLogLevel(0);
  auto fired = std::make_shared<std::atomic<bool>>(false);
  milp::stopSimplexAt(*solver, deadline, interrupt, fired);
  if (integer) {
    SolveOptions limits;
    limits.timeLimitSeconds = seconds;
    limits.interrupt = interrupt;
    const milp::CbcResult cbc = milp::runCbc(*solver, {}, 0, limits, std::chrono::steady_clock::now());
    if (*fired || !cbc.provenInfeasible) return std::nullopt;
    return kInf;
  }
  solver->initialSolve();
  if (*fired) return std::nullopt;
  if (solver->isProvenPrimalInfeasible()) return kInf;
  if (!solver->isProvenOptimal()) return std::nullopt;
  return solver->getObjValue();
}

}  // namespace

double workBound(const Workload& w, const objective::ClassTotals& totals) {
  const int classes = w.graph().numClasses;
  if (classes == 0 || w.machine.maxFpgas + w.machine.maxCpus == 0) return 0;
  const std::vector<int> byRatio = classesByRatio(totals, classes);
  const std::vector<int> byBytes = classesByBytes(totals, classes);
  double hi = 0;
  for (int c = 0; c < classes; ++c)
    hi += std::max(totals.fitsAccelerator(c, w.machine) ? totals.acceleratorLatency[c] : 0.0,
                   w.machine.maxCpus > 0 ? totals.cpuLatency[c] : 0.0);
  const double trivial = objective::throughputLowerBound(w, totals);
  if (!workFits(w, totals, byRatio, byBytes, hi)) return trivial;  // some class fits nowhere
  double lo = 0;  // invariant: nothing fits at lo (or lo = 0), everything at hi
  for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (workFits(w, totals, byRatio, byBytes, mid) ? hi : lo) = mid;
  }
  return std::max(trivial, lo);
}

ThroughputBound throughputBound(const Workload& w, const objective::ClassTotals& totals,
                                double upperBound, std::chrono::steady_clock::time_point deadline,
                                const std::atomic<bool>* interrupt, bool withMilp, double memoryBytes,
                                const CountingLimits& countingLimits) {
  ThroughputBound result;
  result.work = workBound(w, totals);
  if (w.machine.maxFpgas == 0 || w.graph().numClasses == 0) return result;
  // Bounds 2 and 3 keep a value per (representative, class) pair and an LP
  // column per pair in a window: quadratic in the classes.
  const double pairs = 0.5 * w.graph().numClasses * (w.graph().numClasses + 1.0);
  if (w.graph().numClasses > kMaxClasses ||
      (memoryBytes > 0 && pairs * kBytesPerPair > 0.5 * memoryBytes)) {
    result.skipped = true;
    return result;
  }
  const ClassGraph cg = classGraph(w, totals);
  double hi = upperBound;
  if (!std::isfinite(hi)) {  // every block of a plan costs at most everything
    hi = 0;
    for (int c = 0; c < cg.size; ++c) hi += std::max(cg.work[c], cg.cpuWork[c]);
    for (const auto& e : cg.edges) hi += e.cost;
  }
  double lo = result.work;
  if (!(hi > lo)) return result;
  {
    BoundaryBound boundary(w, totals, cg);
    bool stopped = false;
    const double proven =
        boundary.run(lo, hi, deadline, interrupt, &result.boundaryCut, &result.boundaryTotal, &stopped);
    if (proven > lo) result.boundary = lo = proven;
    if (stopped) {
      result.stopped = result.lpStopped = true;
      return result;
    }
  }
  {
    // Bound 1c gets at most half of the time left: the LP needs the rest.
    auto until = deadline;
    if (deadline != std::chrono::steady_clock::time_point::max())
      until = std::chrono::steady_clock::now() + (deadline - std::chrono::steady_clock::now()) / 2;
    CountingBound counting(w, cg, countingLimits);
    bool stopped = false;
    const double proven = counting.run(lo, hi, until, interrupt, &result.countingClasses, &stopped);
    if (proven > lo) result.counting = lo = proven;
    result.countingCuts = counting.cuts();
    result.countingExhausted = counting.exhausted();
    // Its own share ran out: what it proved holds, and the LP still runs.
    result.countingStopped = stopped;
    result.stopped = result.stopped || stopped;
    if (pastLimit(deadline, interrupt)) {
      result.stopped = result.lpStopped = true;
      return result;
    }
    if (!(hi - lo > 1e-4 * hi)) return result;  // the plan is proven optimal (the LP's width)
  }
  const CheapestBlocks cheapest = cheapestBlocks(cg, w.machine, hi, deadline, interrupt);
  result.lpStopped = !cheapest.complete;  // fewer pairs ruled out: a weaker LP
  bool stop = false;
  const double k = w.machine.maxFpgas;
  // Bisection: lo is proven (no placement has max-load below it), the
  // probes could not prove top. Stop at a relative width of 1e-4.
  // LP probes, then (with the time left) MILP probes of the same covering,
  // which also see that classes do not split (bin packing). The first probe
  // of each: can it prove the plan optimal (to the width)?
  auto until = deadline;
  for (const bool integer : {false, true}) {
    if (integer && !withMilp) break;
    if (integer && deadline != std::chrono::steady_clock::time_point::max()) {
      // The MILP probes get half the time left: they rarely finish.
      until = std::chrono::steady_clock::now() + (deadline - std::chrono::steady_clock::now()) / 2;
    }
    double top = hi;
    double probe = top * (1 - 0.5e-4);
    while (top - lo > 1e-4 * top && !stop) {
      const double left =
          std::chrono::duration<double>(until - std::chrono::steady_clock::now()).count();
      if (integer && left < 0.2) break;
      int ruledOut = 0;
      std::optional<double> blocks;
      try {
        blocks = blocksNeeded(cg, w.machine, cheapest, probe, integer, std::clamp(left / 3, 0.2, 20.0),
                              &ruledOut, until, interrupt);
      } catch (const milp::BuildStopped&) {
        stop = true;
        break;
      }
      if (pastLimit(until, interrupt)) stop = true;
      if (!blocks && !integer) {
        stop = true;
        break;
      }
      ++(integer ? result.milpProbes : result.probes);
      result.pairsRuledOut = std::max(result.pairsRuledOut, ruledOut);
      if (blocks && *blocks > k * (1 + 1e-7) + 1e-7) {
        lo = probe;
        (integer ? result.milp : result.representatives) = probe;
      } else {
        top = probe;  // not proven: a MILP probe that ran out of time, too
      }
      probe = 0.5 * (lo + top);
    }
    if (w.graph().numClasses > kMilpClasses) break;
  }
  result.lpStopped = result.lpStopped || stop;
  result.stopped = result.stopped || result.lpStopped;
  return result;
}

std::string ThroughputBound::describe() const {
  std::ostringstream out;
  out << "lower bounds: work " << formatShortest(work);
  if (skipped) out << " (too many classes for the representatives LP)";
  if (boundary > 0)
    out << ", work with boundaries " << formatShortest(boundary) << " (every accelerator pays at least "
        << formatShortest(boundaryCut) << " of communication, all together at least "
        << formatShortest(boundaryTotal) << ")";
  if (counting > 0 || countingStopped) {
    out << ", counting " << (counting > 0 ? formatShortest(counting) : "nothing");
    if (counting > 0) out << " (" << countingClasses << ")";
    if (countingStopped) out << " (stopped by the time limit)";
  }
  // A component whose probes ruled out no max-load above 0 proved nothing.
  auto proved = [](double value) { return value > 0 ? formatShortest(value) : "nothing"; };
  auto probesText = [](int count) {
    return std::to_string(count) + (count == 1 ? " probe" : " probes");
  };
  if (milpProbes > 0)
    out << ", covering MILP " << proved(milp) << " (" << probesText(milpProbes) << ")";
  if (probes > 0 || representatives > 0)
    out << ", representatives LP " << proved(representatives) << " (" << probesText(probes) << ", "
        << pairsRuledOut << " block pairs ruled out by minimum cuts"
        << (lpStopped ? ", stopped by the time limit" : "") << ")";
  else if (lpStopped)
    out << ", representatives LP not reached within the time limit";
  return out.str();
}

}  // namespace dnnplace::bounds
