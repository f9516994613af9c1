// The exact contiguous max-load DP (DESIGN §3–4), dp-linear and pipedream.
//
// Pipeline: contract (contraction.hpp) → enumerate the ideals of the
// contracted forward DAG level by level (ideal_lattice.hpp) → for every
// ideal I and device state s = (a accelerators, c CPU cores), in order of
// size: value(I, s) = min over sub-ideals J of max(value(J, s − one device),
// load(I ∖ J)) → backtrack the chain → map blocks back to original nodes.
//
// What keeps it fast (issue 3):
// * a bound ("cut") from seed plans that are chains of this lattice too;
//   only values below it are tracked, so a run that finds no chain proves
//   the best seed optimal;
// * per ideal, only states that the work can fit (prefix) and that leave
//   enough devices for the rest of the graph (future) are computed; the work
//   bound uses the largest accelerator/CPU latency ratio, which is tight when
//   CPU cores are much slower than accelerators; a second bound adds the
//   hyperedges crossing the ideal's boundary, which both sides pay;
// * sub-ideals are walked without a hash or visited set (canonical order) and
//   the walk stops as soon as compute + unavoidable communication, memory,
//   or the rest of the graph rule a block and all its supersets out;
// * per ideal and state, a lower bound from the sub-ideals one element
//   smaller (a chain restricted to them changes one block): states out of
//   reach there stay out of reach, and a state that reaches its bound is
//   final (lowerBounds);
// * a state also stops once its best is no larger than a lower bound on the
//   blocks after I (restBound): every chain through it is at least that
//   large anyway, so nothing smaller could change the optimum. Such a value
//   may be above the exact one, so it is stored negated ("inexact"), and
//   lowerBounds takes nothing from it; a value that an inexact one could
//   have lowered is inexact too (relax, markInexact);
// * with a known plan of max-load K, a state also stops at 0.99·K ("good
//   enough"): the run then either returns a chain above that, which is
//   optimal, or a chain at most 0.99·K, and runs again below it
//   (solveChain);
// * a block whose remaining state has no accelerator leaves a small J to the
//   CPU cores: those J are walked up from the empty ideal, not down from I;
// * a sub-ideal's record is read only when one of its states can matter;
//   when the lattice and the table outgrow the cache, a few blocks after
//   the walk meets it, with a prefetch in between: the records (and the
//   links the walk follows) are met in no cache-friendly order, and waiting
//   for each made the walk memory-bound (the 10^6-ideal graph took 45 s
//   instead of 33 s);
// * those per-state tests are precomputed per ideal as linear thresholds on
//   the block's own sums (no divisions, no sub-ideal sums in the inner loop);
// * threads take ideals in id order, a few at a time, and wait only when a
//   sub-ideal they read is still being computed (ids grow with size);
// * the seeds: the DP along three topological orders, each a plain pass
//   over interval starts with no lattice (linearChainSeed; the first cut by
//   a greedy packing, which alone seeds lattices of at most twice as many
//   ideals as super-nodes), and the DP on graphs whose chains stay whole or are
//   cut in two (when those lattices are small next to the full one); the
//   best plan cuts the full DP; with no bound at all, the DP probes from a
//   lower bound upwards (solveChain).

#include "dp/dp.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "preprocess/contraction.hpp"
#include "dp/ideal_lattice.hpp"

namespace dnnplace {

namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Whether the caller's interrupt is set or the deadline has passed.
bool pastLimit(Clock::time_point deadline, const std::atomic<bool>* interrupt) {
  return (interrupt && interrupt->load()) || Clock::now() > deadline;
}

std::string formatBytes(double bytes) {
  char text[64];
  if (bytes >= 1e9)
    std::snprintf(text, sizeof text, "%.1f GB", bytes / 1e9);
  else if (bytes >= 1e6)
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  else
    std::snprintf(text, sizeof text, "%.0f bytes", bytes);
  return text;
}

std::string formatNumber(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

/// The DP's device states: (a, c) = at most a accelerators and c CPU cores,
/// stored as s = a * (cpus + 1) + c.
struct DeviceStates {
  int accelerators = 0, cpus = 0;
  int count() const { return (accelerators + 1) * (cpus + 1); }
  int acceleratorStep() const { return cpus + 1; }
  int acceleratorsOf(int s) const { return s / (cpus + 1); }
  int cpusOf(int s) const { return s % (cpus + 1); }
};

/// Per ideal, sums that bound any chain from below: accelerator work of
/// the super-nodes that fit an accelerator, CPU work of those that do not
/// (and how many), and all CPU work; all accelerator latency, and the
/// weight of the hyperedges crossing the ideal's boundary.
struct Work {
  double acceleratorFit = 0, forcedCpu = 0, cpu = 0;
  std::int32_t notOnAccelerator = 0;
  double fpga = 0, crossing = 0;
};

/// A lower bound on the max-load L of `a` accelerators and `c` CPU cores
/// covering work `w` (infinite if they cannot). `ratio` is the largest
/// accelerator/CPU latency ratio of a super-node. Mixed case: moving CPU
/// work X off the accelerators saves at most ratio·X accelerator work, so
/// a·L ≥ acceleratorFit − ratio·(c·L − forcedCpu).
double workBoundOf(const Work& w, int a, int c, double ratio) {
  if (a + c == 0)
    return w.acceleratorFit == 0 && w.cpu == 0 && w.notOnAccelerator == 0 ? 0 : kInfinity;
  if (c == 0) return w.notOnAccelerator > 0 ? kInfinity : w.acceleratorFit / a;
  if (a == 0) return w.cpu / c;
  const double forced = w.forcedCpu / c;
  if (!std::isfinite(ratio)) return forced;
  return std::max(forced, (w.acceleratorFit + ratio * w.forcedCpu) / (a + ratio * c));
}

/// How much accelerator load `cores` CPU cores, each loaded below `maxLoad`,
/// can take off any node set, at most: a super-node moved to a CPU core
/// removes its accelerator latency and at most its hyperedges (the boundary
/// ones an accelerator block would otherwise pay). A fractional knapsack of
/// cores · maxLoad CPU time over the super-nodes a core can hold at all,
/// best load per CPU time first (infinite when a super-node with load takes
/// no CPU time).
double cpuAbsorbable(const ContractedGraph& graph, int cores, double maxLoad) {
  double budget = cores * maxLoad;
  std::vector<std::pair<double, double>> items;  // (load per CPU time, CPU time)
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    double load = graph.fpgaLatency[v];
    for (int i = graph.incidenceStart[v]; i < graph.incidenceStart[v + 1]; ++i) {
      const int h = graph.incidence[i];
      if (graph.hyperStart[h + 1] - graph.hyperStart[h] >= 2) load += graph.hyperWeight[h];
    }
    if (load <= 0 || graph.cpuLatency[v] * (1 - 1e-9) >= maxLoad) continue;
    if (!(graph.cpuLatency[v] > 0)) return kInfinity;
    items.emplace_back(load / graph.cpuLatency[v], graph.cpuLatency[v]);
  }
  std::sort(items.begin(), items.end(), std::greater<>());
  double absorbed = 0;
  for (const auto& [density, time] : items) {
    if (budget <= 0) break;
    const double taken = std::min(time, budget);
    absorbed += density * taken;
    budget -= taken;
  }
  return absorbed;
}

/// Starts loading the cache lines of `bytes` (> 0) bytes from `data`.
// GCC 12 deleted the loop (no prefetch left, the walk 40% slower) when it
// was written as a template with an early return, or as a loop over
// offsets: after a change here, check `objdump -d dnnplace | grep prefetcht0`.
[[gnu::always_inline]] inline void prefetchLines(const void* data, std::size_t bytes) {
  const auto first = reinterpret_cast<std::uintptr_t>(data) & ~std::uintptr_t{63};
  const auto last = reinterpret_cast<std::uintptr_t>(data) + bytes - 1;
  for (std::uintptr_t line = first; line <= last; line += 64) __builtin_prefetch(reinterpret_cast<const void*>(line));
}

/// Just above `bound`: a plan whose max-load is `bound`, summed in another
/// order, stays below it despite rounding.
double aboveRounding(double bound) { return bound * (1 + 1e-9) + 1e-12; }

double latencyRatio(const ContractedGraph& graph) {
  double ratio = 0;
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    if (graph.fpgaLatency[v] <= 0) continue;
    ratio = graph.cpuLatency[v] > 0 ? std::max(ratio, graph.fpgaLatency[v] / graph.cpuLatency[v]) : kInfinity;
  }
  return ratio;
}

struct DpStats {
  std::uint64_t blocksVisited = 0;
  bool memoryRejectedABlock = false;  ///< memory, not compute, excluded some accelerator block
};

struct DpLimits {
  Clock::time_point deadline = Clock::time_point::max();
  Clock::duration threadStart{0};  ///< the other threads join once a run has taken this long
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const std::string&)> progress;
};

enum class DpRun { Complete, TimeLimit, Interrupted };

/// Thrown in a thread that waits for an ideal after another thread failed.
struct RunAbandoned {};

/// Walks the sub-ideals J of one ideal I depth-first along lattice links,
/// keeping the totals of the block D = I ∖ J up to date one super-node at a
/// time. Blocks whose compute or memory alone rules them out are not
/// expanded: compute, memory and unsupported nodes only grow with D.
// Aligned to a cache line: each thread has one, and they sit side by side
// in a vector while their running sums change on every block.
class alignas(64) BlockWalker {
 public:
  /// fetchAhead: prefetch every line of the links the walk may follow next,
  /// not only the first (worth its instructions when the lattice is not in
  /// the cache).
  BlockWalker(const ContractedGraph& graph, const IdealLattice& lattice, double memoryPerAccelerator,
              bool acceleratorsExist, bool cpusExist, bool fetchAhead)
      : graph_(graph),
        lattice_(lattice),
        memory_(memoryPerAccelerator),
        acceleratorsExist_(acceleratorsExist),
        cpusExist_(cpusExist),
        fetchAhead_(fetchAhead),
        inside_(graph.hyperWeight.size(), 0),
        fits_(graph.numSuperNodes),
        memberStamp_(graph.numSuperNodes, 0),
        exitStamp_(graph.hyperWeight.size(), 0),
        exits_(graph.hyperWeight.size(), 0),
        countStamp_(graph.hyperWeight.size(), 0) {
    for (int v = 0; v < graph.numSuperNodes; ++v)
      fits_[v] = graph.supportedOnFpga[v] && graph.size[v] <= memoryPerAccelerator;
  }

  double fpga = 0, cpu = 0, size = 0, communication = 0;
  /// The part of `communication` no larger block inside I can avoid: hyperedges
  /// with an element in D and one outside I stay cut. With fpga it bounds the
  /// accelerator load of every block the walk reaches from here.
  double committed = 0;
  int unsupported = 0;
  /// D's share of the Work sums (see LatticeDp::Work): accelerator latency of
  /// super-nodes that fit an accelerator, CPU latency of those that do not.
  double fitAccelerator = 0, forcedCpu = 0;
  int notOnAccelerator = 0;

  bool acceleratorFits() const { return acceleratorsExist_ && unsupported == 0 && size <= memory_; }
  double acceleratorLoad() const { return fpga + communication; }

  /// Marks I's elements (what the tests against I below read);
  /// nothing to do when I is already marked.
  void mark(std::int32_t ideal) {
    if (markedIdeal_ == ideal) return;
    // Ideals come in id order, so the marked one is often I's canonical
    // parent I ∖ v: then only v joins (on chain-like graphs a full marking
    // costs |I| steps per ideal). Only hyperedges through v can stop exiting.
    const std::span<const IdealLattice::Link> links = lattice_.links(ideal);
    if (markedIdeal_ >= 0 && !links.empty() && markedIdeal_ == links.back().target) {
      const IdealLattice::Link parent = links.back();
      memberStamp_[parent.element] = walkStamp_;
      for (int i = graph_.incidenceStart[parent.element]; i < graph_.incidenceStart[parent.element + 1]; ++i)
        exitStamp_[graph_.incidence[i]] = 0;
      markedIdeal_ = ideal;
      return;
    }
    if (++walkStamp_ == 0) {  // wrapped: reset the stamps
      std::fill(memberStamp_.begin(), memberStamp_.end(), 0);
      std::fill(exitStamp_.begin(), exitStamp_.end(), 0);
      walkStamp_ = 1;
    }
    forEachElement(ideal, [&](int v) { memberStamp_[v] = walkStamp_; });
    markedIdeal_ = ideal;
  }

  /// For the largest element v of the marked ideal I: how much the weight of
  /// hyperedges crossing the boundary grows from I ∖ v to I.
  double crossingChange(int v) const {
    double change = 0;
    for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const int h = graph_.incidence[i];
      const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
      const int inside = elementsInMarkedIdeal(h);
      const bool after = inside > 0 && inside < total, before = inside - 1 > 0 && inside - 1 < total;
      change += (after ? graph_.hyperWeight[h] : 0.0) - (before ? graph_.hyperWeight[h] : 0.0);
    }
    return change;
  }

  /// For a maximal element v of the marked ideal I: the most that taking v
  /// out of a block B ⊆ I can raise B's load (≥ 0). Hyperedges through v
  /// that lie inside I may become cut; v's latency goes, and so do
  /// hyperedges through v with no other element in I (v is maximal, so its
  /// own output always is one). A CPU block only loses v's latency.
  double removalIncrease(int v) const {
    double increase = -graph_.fpgaLatency[v];
    for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const int h = graph_.incidence[i];
      const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
      if (total < 2) continue;  // never cut
      const int inside = elementsInMarkedIdeal(h);
      if (inside == total)
        increase += graph_.hyperWeight[h];
      else if (inside == 1)
        increase -= graph_.hyperWeight[h];
    }
    return std::max(0.0, increase);
  }

  /// Walks the sub-ideals J ≠ I of I upwards from the empty ideal, keeping
  /// the sums on the block D = I ∖ J. J gains element u only while
  /// grow(u) holds (called with D's sums before u leaves D; it must only
  /// turn false as J grows). Calls visit(J) for the empty ideal and every
  /// J entered. Each J is met once: canonical children add an element
  /// above J's largest one.
  template <typename Grow, typename Visit>
  void walkUp(std::int32_t ideal, const Grow& grow, Visit&& visit, DpStats* stats) {
    fpga = cpu = size = communication = committed = fitAccelerator = forcedCpu = 0;
    unsupported = notOnAccelerator = 0;
    mark(ideal);
    forEachElement(ideal, [&](int v) { add(v); });
    climb(ideal, grow, visit, stats, [&](int u) { remove(u); }, [&](int u) { add(u); });
    // D is I again: empty it, leaving the hyperedge counters clean.
    forEachElement(ideal, [&](int v) { remove(v); });
  }

  /// walkUp, for a block D = I whose sums are known (`whole`: the table's
  /// Work of I) instead of added up element by element: a hyperedge is
  /// counted when an element leaving D first meets it, so a walk that takes
  /// few elements into J costs little however large I is. Only when no block
  /// can exceed an accelerator's memory: sizes are not kept, and a block fits
  /// when none of its super-nodes is unsupported (none is too large).
  template <typename Grow, typename Visit>
  void walkUpFrom(std::int32_t ideal, const Work& whole, const Grow& grow, Visit&& visit, DpStats* stats) {
    fitAccelerator = whole.acceleratorFit;
    forcedCpu = whole.forcedCpu;
    notOnAccelerator = unsupported = whole.notOnAccelerator;
    fpga = whole.fpga;
    cpu = whole.cpu;
    communication = whole.crossing;
    size = committed = 0;  // not kept (committed only serves walk)
    mark(ideal);
    if (++countWalk_ == 0) {  // wrapped: reset the stamps
      std::fill(countStamp_.begin(), countStamp_.end(), 0);
      countWalk_ = 1;
    }
    counted_.clear();
    // leave and rejoin are remove and add without `committed`, which only
    // walk reads (reusing those two cost 2.5% more instructions on BERT-3
    // training), and with each hyperedge counted when first met.
    auto leave = [&](int v) {  // v leaves D for J
      moveSums(v, -1);
      for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
        const int h = graph_.incidence[i];
        if (countStamp_[h] != countWalk_) {  // first met: none of its elements has left D yet
          countStamp_[h] = countWalk_;
          inside_[h] = elementsInMarkedIdeal(h);
          counted_.push_back(h);
        }
        const int inside = inside_[h]--;
        const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
        if (inside == total) communication += graph_.hyperWeight[h];
        if (inside == 1) communication -= graph_.hyperWeight[h];
      }
    };
    auto rejoin = [&](int v) {  // v comes back to D (its hyperedges are counted)
      moveSums(v, +1);
      for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
        const int h = graph_.incidence[i];
        const int inside = ++inside_[h];
        const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
        if (inside == 1) communication += graph_.hyperWeight[h];
        if (inside == total) communication -= graph_.hyperWeight[h];
      }
    };
    climb(ideal, grow, visit, stats, leave, rejoin);
    for (int h : counted_) inside_[h] = 0;  // clean for the next walk
  }

  /// Calls visit(J, path) for every sub-ideal J ≠ I still alive under the
  /// thresholds (read through the callback, so they may shrink during the
  /// walk); visit returns false to stop the walk. The path lists the
  /// super-nodes of D = I ∖ J.
  ///
  /// Each D is generated exactly once, without marks: D's canonical parent
  /// is D minus its smallest element (always removable, since its
  /// predecessors have smaller numbers), so from D we only add maximal
  /// elements of J below min(D). Links are sorted by element, so those are a
  /// prefix of J's links.
  template <typename Thresholds, typename Usable, typename Visit>
  void walk(std::int32_t ideal, const Thresholds& thresholds, const Usable& usable, Visit&& visit,
            DpStats* stats) {
    fpga = cpu = size = communication = committed = fitAccelerator = forcedCpu = 0;
    unsupported = notOnAccelerator = 0;
    frames_.clear();
    path_.clear();
    mark(ideal);
    frames_.push_back({lattice_.links(ideal), 0, graph_.numSuperNodes});
    while (!frames_.empty()) {
      Frame& frame = frames_.back();
      if (frame.next < frame.links.size() && frame.links[frame.next].element < frame.bound) {
        const IdealLattice::Link link = frame.links[frame.next++];
        const int v = link.element;
        double acceleratorLimit, cpuLimit;
        thresholds(&acceleratorLimit, &cpuLimit);
        // Compute, memory and support only grow with D: test before adding.
        const bool fits = acceleratorsExist_ && unsupported == 0 && graph_.supportedOnFpga[v];
        const bool acceleratorAlive =
            fits && size + graph_.size[v] <= memory_ && fpga + graph_.fpgaLatency[v] < acceleratorLimit;
        const bool cpuAlive = cpusExist_ && cpu + graph_.cpuLatency[v] < cpuLimit;
        if (!acceleratorAlive && !cpuAlive) {
          if (stats && fits && size + graph_.size[v] > memory_ &&
              fpga + graph_.fpgaLatency[v] < acceleratorLimit)
            stats->memoryRejectedABlock = true;
          continue;
        }
        add(v);
        if ((!(acceleratorAlive && fpga + committed < acceleratorLimit) && !cpuAlive) ||
            !usable(link.target)) {
          remove(v);
          continue;
        }
        path_.push_back(v);
        if (stats) ++stats->blocksVisited;
        if (!visit(link.target, path_)) {
          // Leave the hyperedge counters clean for the next walk.
          for (std::int32_t u : path_) remove(u);
          path_.clear();
          frames_.clear();
          return;
        }
        frames_.push_back({lattice_.targetLinks(link), 0, v});
        // The children's links are the next cache misses: start loading them
        // now, they are read after the first child's subtree. (An ideal has
        // a few to a few dozen links: one line or several.)
        for (const IdealLattice::Link& child : frames_.back().links) {
          if (child.element >= v) break;
          const std::span<const IdealLattice::Link> links = lattice_.targetLinks(child);
          if (fetchAhead_ && !links.empty())
            prefetchLines(links.data(), links.size_bytes());
          else
            __builtin_prefetch(links.data());
        }
      } else {
        frames_.pop_back();
        if (!frames_.empty()) {
          remove(path_.back());
          path_.pop_back();
        }
      }
    }
  }

 private:
  struct Frame {
    std::span<const IdealLattice::Link> links;
    std::size_t next;
    std::int32_t bound;  ///< min(D): only smaller elements may be added
  };

  /// Whether hyperedge h has an element outside the walk's ideal (cached per walk).
  bool exits(int h) {
    if (exitStamp_[h] != walkStamp_) {
      exitStamp_[h] = walkStamp_;
      exits_[h] = 0;
      for (int i = graph_.hyperStart[h]; i < graph_.hyperStart[h + 1]; ++i)
        if (memberStamp_[graph_.hyperNodes[i]] != walkStamp_) {
          exits_[h] = 1;
          break;
        }
    }
    return exits_[h];
  }

  /// The walk of walkUp and walkUpFrom: leave(u) as u goes from D to J,
  /// rejoin(u) as it comes back.
  template <typename Grow, typename Visit, typename Leave, typename Rejoin>
  void climb(std::int32_t ideal, const Grow& grow, Visit&& visit, DpStats* stats, const Leave& leave,
             const Rejoin& rejoin) {
    upFrames_.clear();
    if (stats) ++stats->blocksVisited;
    visit(lattice_.emptyIdeal());
    upFrames_.push_back({lattice_.emptyIdeal(), lattice_.childBegin(lattice_.emptyIdeal()), -1});
    while (!upFrames_.empty()) {
      UpFrame& frame = upFrames_.back();
      if (frame.next < lattice_.childBegin(frame.ideal + 1)) {
        const std::int32_t child = frame.next++;
        const int u = lattice_.addedElement(child);
        if (child == ideal || memberStamp_[u] != walkStamp_ || !grow(u)) continue;
        leave(u);
        if (stats) ++stats->blocksVisited;
        visit(child);
        upFrames_.push_back({child, lattice_.childBegin(child), u});
      } else {
        if (frame.added >= 0) rejoin(frame.added);
        upFrames_.pop_back();
      }
    }
  }

  /// D's sums without hyperedges and size, as v joins (sign +1) or leaves (−1).
  [[gnu::always_inline]] void moveSums(int v, int sign) {
    if (fits_[v]) {
      fitAccelerator += sign * graph_.fpgaLatency[v];
    } else {
      forcedCpu += sign * graph_.cpuLatency[v];
      notOnAccelerator += sign;
    }
    fpga += sign * graph_.fpgaLatency[v];
    cpu += sign * graph_.cpuLatency[v];
    unsupported += graph_.supportedOnFpga[v] ? 0 : sign;
  }

  [[gnu::always_inline]] void add(int v) {
    moveSums(v, +1);
    size += graph_.size[v];
    for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const int h = graph_.incidence[i];
      const int inside = ++inside_[h];
      const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
      if (inside == 1) {
        communication += graph_.hyperWeight[h];
        if (exits(h)) committed += graph_.hyperWeight[h];
      }
      if (inside == total) communication -= graph_.hyperWeight[h];
    }
  }
  [[gnu::always_inline]] void remove(int v) {
    moveSums(v, -1);
    size -= graph_.size[v];
    for (int i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const int h = graph_.incidence[i];
      const int inside = inside_[h]--;
      const int total = graph_.hyperStart[h + 1] - graph_.hyperStart[h];
      if (inside == total) communication += graph_.hyperWeight[h];
      if (inside == 1) {
        communication -= graph_.hyperWeight[h];
        if (exits_[h]) committed -= graph_.hyperWeight[h];
      }
    }
  }

  int elementsInMarkedIdeal(int h) const {
    int inside = 0;
    for (int j = graph_.hyperStart[h]; j < graph_.hyperStart[h + 1]; ++j)
      inside += memberStamp_[graph_.hyperNodes[j]] == walkStamp_ ? 1 : 0;
    return inside;
  }

  template <typename F>
  void forEachElement(std::int32_t ideal, const F& f) const {
    for (std::int32_t x = ideal; x != lattice_.emptyIdeal();) {
      const IdealLattice::Link parent = lattice_.links(x).back();
      f(parent.element);
      x = parent.target;
    }
  }

  const ContractedGraph& graph_;
  const IdealLattice& lattice_;
  double memory_;
  bool acceleratorsExist_, cpusExist_, fetchAhead_;
  std::vector<std::int32_t> inside_;
  std::vector<char> fits_;
  std::uint32_t walkStamp_ = 0;
  std::int32_t markedIdeal_ = -1;
  std::vector<std::uint32_t> memberStamp_;  ///< == walkStamp_: in the walk's ideal
  std::vector<std::uint32_t> exitStamp_;    ///< == walkStamp_: exits_ is valid
  std::vector<char> exits_;
  std::vector<std::uint32_t> countStamp_;  ///< == countWalk_: inside_ counted (walkUpFrom)
  std::uint32_t countWalk_ = 0;
  std::vector<int> counted_;
  std::vector<Frame> frames_;
  struct UpFrame {
    std::int32_t ideal, next, added;  ///< J, its next canonical child, the element J gained (-1: none)
  };
  std::vector<UpFrame> upFrames_;
  std::vector<std::int32_t> path_;
};

/// The DP over the lattice. value(I, s) = the smallest max-load that places
/// the ideal I on at most the devices of state s as a chain of blocks;
/// values ≥ `cut` are not tracked (stored as `cut`). A value stored negated
/// is inexact: the max-load of a real chain of I on s, possibly above the
/// smallest, but no larger than the rest of the graph forces on every chain
/// through (I, s) (see relax). So the full ideal's value is exact: nothing
/// comes after it.
class LatticeDp {
 public:
  /// `goodEnough`: a state may stop once its best is at most this (see
  /// solveChain); 0 for exact values up to the rest bounds.
  LatticeDp(const ContractedGraph& graph, const IdealLattice& lattice, DeviceStates states,
            double memoryPerAccelerator, double cut, double goodEnough = 0, bool alwaysFetchAhead = false)
      : graph_(graph),
        lattice_(lattice),
        states_(states),
        memory_(memoryPerAccelerator),
        cut_(cut),
        goodEnough_(goodEnough),
        stride_(kWorkFields + states.count()),
        // Left unwritten here: computeWork fills it under the deadline (on
        // the 10^6-ideal graph, 134 MB of fresh pages take about 0.4 s).
        table_(new double[static_cast<std::size_t>(lattice.numIdeals()) * stride_]),
        fetchAhead_(alwaysFetchAhead ||
                    lattice.bytes() + static_cast<std::uint64_t>(lattice.numIdeals()) * bytesPerIdeal(states) >
                        kCacheResidentBytes) {}

  static std::uint64_t bytesPerIdeal(DeviceStates states) {
    return (states.count() + kWorkFields) * sizeof(double);
  }

  DpRun run(const DpLimits& limits, int threads, DpStats* stats) {
    const std::int32_t numIdeals = lattice_.numIdeals();
    // A thread costs about as much to start as a few hundred small ideals.
    threads = std::max(1, std::min(threads, static_cast<int>(std::max<std::int32_t>(1, numIdeals / 256))));
    std::vector<BlockWalker> walkers;
    for (int t = 0; t < threads; ++t)
      walkers.emplace_back(graph_, lattice_, memory_, states_.accelerators > 0, states_.cpus > 0, fetchAhead_);
    // One cache line per thread: blocksVisited changes on every block.
    struct alignas(64) ThreadStats : DpStats {};
    std::vector<ThreadStats> threadStats(threads);
    std::vector<Scratch> scratch(threads);
    if (const DpRun stopped = computeWork(limits); stopped != DpRun::Complete) return stopped;
    // Ideals are handed out in id order, a few at a time; an ideal only reads
    // the records of its sub-ideals, which have smaller ids, so a thread waits
    // only when a sub-ideal it meets is still being computed by another one
    // (no barrier per level).
    std::unique_ptr<std::atomic<char>[]> done;
    if (threads > 1) {
      done.reset(new std::atomic<char>[static_cast<std::size_t>(numIdeals)]);
      for (std::int32_t i = 0; i < numIdeals; ++i) done[i].store(0, std::memory_order_relaxed);
      done[lattice_.emptyIdeal()].store(1, std::memory_order_relaxed);
    }
    done_ = done.get();
    std::atomic<std::int32_t> next{1};
    // Why the threads stop early, if they do (one store; read by all).
    std::atomic<DpRun> stop{DpRun::Complete};
    // The other threads join once this run has taken limits.threadStart:
    // on these 2-core VMs a thread costs ~0.5 ms to start and warm up, and
    // runs of 15 ms or less (BERT's operator graphs) went slower with two.
    const auto started = Clock::now();
    auto lastReport = started;
    std::vector<std::thread> pool;
    // The first exception any thread throws (bad_alloc, a throwing progress
    // callback, a thread that cannot start). The others give up the run, the
    // pool is joined, and it is rethrown here: an exception left in a thread,
    // or a joinable thread left behind, would end the process.
    std::exception_ptr failure;
    std::mutex failureMutex;
    std::atomic<bool> abandoned{false};
    std::function<void(int)> work;
    auto guarded = [&](int t) {
      try {
        work(t);
      } catch (const RunAbandoned&) {
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failureMutex);
        if (!failure) failure = std::current_exception();
        abandoned.store(true);
      }
    };
    auto startOthers = [&] {
      for (int other = 1; other < threads; ++other) pool.emplace_back(guarded, other);
    };
    work = [&](int t) {
      if (t == 0 && threads > 1 && limits.threadStart <= Clock::duration::zero()) startOthers();
      constexpr std::int32_t kChunk = 4;  // ideals differ a lot in cost: hand them out finely
      std::int32_t sinceCheck = 0;
      for (;;) {
        const std::int32_t first = next.fetch_add(kChunk, std::memory_order_relaxed);
        if (first >= numIdeals || stop.load(std::memory_order_relaxed) != DpRun::Complete ||
            abandoned.load(std::memory_order_relaxed))
          return;
        const std::int32_t last = std::min(numIdeals, first + kChunk);
        for (std::int32_t ideal = first; ideal < last; ++ideal) {
          relax(ideal, walkers[t], scratch[t], &threadStats[t]);
          if (done) done[ideal].store(1, std::memory_order_release);
        }
        if ((sinceCheck += kChunk) < 256) continue;
        sinceCheck = 0;
        if (limits.interrupt && limits.interrupt->load()) stop = DpRun::Interrupted;
        const auto now = Clock::now();
        if (now > limits.deadline) stop = DpRun::TimeLimit;
        // A thread only ever waits for ideals already handed out, which
        // their threads finish before they look at `stop`: no one is left waiting.
        if (stop.load() != DpRun::Complete) return;
        if (t == 0 && pool.empty() && threads > 1 && now - started >= limits.threadStart) startOthers();
        if (t == 0 && limits.progress && now - lastReport > std::chrono::milliseconds(500)) {
          lastReport = now;
          limits.progress("dp: " + std::to_string(last) + " of " + std::to_string(numIdeals) + " ideals done");
        }
      }
    };
    abandoned_ = &abandoned;
    guarded(0);
    for (auto& thread : pool) thread.join();
    done_ = nullptr;
    abandoned_ = nullptr;
    if (failure) std::rethrow_exception(failure);
    for (const auto& s : threadStats) {
      stats->blocksVisited += s.blocksVisited;
      stats->memoryRejectedABlock = stats->memoryRejectedABlock || s.memoryRejectedABlock;
    }
    return stop.load();
  }

  double value(std::int32_t ideal, int state) const {
    return std::fabs(valuesOf(ideal)[state]);
  }

  struct Block {
    bool accelerator = true;
    std::vector<std::int32_t> superNodes;
  };

  /// Recovers a chain of blocks whose max-load is at most `target` (up to
  /// rounding of the incremental sums), from the full ideal and state s.
  bool backtrack(std::int32_t ideal, int state, double target, std::vector<Block>* blocks) const {
    BlockWalker walker(graph_, lattice_, memory_, states_.accelerators > 0, states_.cpus > 0, false);
    const double tolerance = aboveRounding(target);
    const int step = states_.acceleratorStep();
    // Values at the cut are "not tracked", not a plan: the tolerance may reach them.
    auto known = [&](std::int32_t sub, int s) { return value(sub, s) < cut_ ? value(sub, s) : kInfinity; };
    while (ideal != lattice_.emptyIdeal()) {
      const int a = states_.acceleratorsOf(state), c = states_.cpusOf(state);
      const double here = value(ideal, state);
      if (a > 0 && value(ideal, state - step) <= here) {
        state -= step;
        continue;
      }
      if (c > 0 && value(ideal, state - 1) <= here) {
        state -= 1;
        continue;
      }
      bool found = false;
      Block block;
      std::int32_t next = -1;
      auto thresholds = [&](double* accelerator, double* cpu) {
        *accelerator = a > 0 ? tolerance : -1;
        *cpu = c > 0 ? tolerance : -1;
      };
      walker.walk(
          ideal, thresholds, [](std::int32_t) { return true; },
          [&](std::int32_t sub, const std::vector<std::int32_t>& path) {
            if (a > 0 && walker.acceleratorFits() &&
                std::max(known(sub, state - step), walker.acceleratorLoad()) <= tolerance) {
              block.accelerator = true;
            } else if (c > 0 && std::max(known(sub, state - 1), walker.cpu) <= tolerance) {
              block.accelerator = false;
            } else {
              return true;
            }
            block.superNodes = path;
            next = sub;
            found = true;
            return false;
          },
          nullptr);
      if (!found) return false;
      state -= block.accelerator ? step : 1;
      ideal = next;
      blocks->push_back(std::move(block));
    }
    return true;
  }

 private:
  Work workOf(std::int32_t ideal) const {
    const double* record = &table_[static_cast<std::size_t>(ideal) * stride_];
    return {record[0], record[1], record[2], static_cast<std::int32_t>(record[3]), record[4], record[5]};
  }

  /// Work::crossing of I from its canonical parent's (whose record must be
  /// final): only the hyperedges through I's largest element change.
  void computeCrossing(std::int32_t ideal, BlockWalker& walker) {
    const IdealLattice::Link parent = lattice_.links(ideal).back();
    if (done_ && !done_[parent.target].load(std::memory_order_acquire)) waitFor(parent.target);
    walker.mark(ideal);
    table_[static_cast<std::size_t>(ideal) * stride_ + kCrossingField] =
        workOf(parent.target).crossing + walker.crossingChange(parent.element);
  }

  /// Writes every record's work fields and sets its values to `cut` (not
  /// tracked yet); the empty ideal's are all 0.
  DpRun computeWork(const DpLimits& limits) {
    ratio_ = latencyRatio(graph_);
    double totalSize = 0;
    for (int v = 0; v < graph_.numSuperNodes; ++v) totalSize += graph_.size[v];
    sizeNeverBinds_ = totalSize <= memory_;
    absorbable_.resize(states_.cpus + 1);
    for (int c = 0; c <= states_.cpus; ++c) absorbable_[c] = cpuAbsorbable(graph_, c, cut_);
    std::fill_n(&table_[0], stride_, 0.0);
    for (std::int32_t ideal = 1; ideal < lattice_.numIdeals(); ++ideal) {
      if ((ideal & 4095) == 0) {
        if (limits.interrupt && limits.interrupt->load()) return DpRun::Interrupted;
        if (Clock::now() > limits.deadline) return DpRun::TimeLimit;
      }
      // The last link removes the largest element: the canonical parent.
      const IdealLattice::Link parent = lattice_.links(ideal).back();
      const int v = parent.element;
      Work w = workOf(parent.target);
      const bool fits = graph_.supportedOnFpga[v] && graph_.size[v] <= memory_;
      (fits ? w.acceleratorFit : w.forcedCpu) += fits ? graph_.fpgaLatency[v] : graph_.cpuLatency[v];
      w.cpu += graph_.cpuLatency[v];
      w.notOnAccelerator += fits ? 0 : 1;
      w.fpga += graph_.fpgaLatency[v];
      double* record = &table_[static_cast<std::size_t>(ideal) * stride_];
      record[0] = w.acceleratorFit;
      record[1] = w.forcedCpu;
      record[2] = w.cpu;
      record[3] = w.notOnAccelerator;
      record[4] = w.fpga;
      record[kCrossingField] = 0;  // set when the ideal is relaxed
      std::fill_n(record + kWorkFields, states_.count(), cut_);
    }
    return DpRun::Complete;
  }

  double workBound(const Work& w, int a, int c) const { return workBoundOf(w, a, c, ratio_); }

  static constexpr double kMargin = 1 - 1e-9;  // bounds are sums in another order: allow rounding

  /// "workBound(w, a, c) · kMargin < cut" as at most two linear tests on the
  /// Work sums, so the walk checks a state with a few multiply-adds instead
  /// of divisions: first·w < firstLimit, second·w < secondLimit, and (when
  /// noForced) no super-node that must go to a CPU. Rounding differs from
  /// workBound by a few ulps, far inside kMargin.
  struct LinearBound {
    double fit = 0, forced = 0, cpu = 0, firstLimit = kInfinity;
    double secondFit = 0, secondForced = 0, secondLimit = kInfinity;
    bool noForced = false;
    bool never = false;  ///< no devices: only the empty set passes (handled by the caller)
  };
  LinearBound linearBound(int a, int c) const {
    LinearBound b;
    const double limit = cut_ / kMargin;
    if (a + c == 0) {
      b.never = true;
    } else if (c == 0) {
      b.noForced = true;
      b.fit = 1;
      b.firstLimit = a * limit;
    } else if (a == 0) {
      b.cpu = 1;
      b.firstLimit = c * limit;
    } else {
      b.forced = 1;
      b.firstLimit = c * limit;
      if (std::isfinite(ratio_)) {
        b.secondFit = 1;
        b.secondForced = ratio_;
        b.secondLimit = (a + ratio_ * c) * limit;
      }
    }
    return b;
  }

  /// Whether the rest of the graph (outside the ideal) fits the devices that
  /// state s leaves. Monotone: false for an ideal stays false for its sub-ideals.
  bool futureAlive(std::int32_t ideal, int s) const {
    if (ideal == lattice_.fullIdeal()) return true;
    return futureAlive(workOf(ideal), s);
  }
  bool futureAlive(const Work& here, int s) const {
    return workBound(restOf(here), states_.accelerators - states_.acceleratorsOf(s),
                     states_.cpus - states_.cpusOf(s)) * kMargin < cut_;
  }
  /// The work sums outside an ideal (clamped at 0: differences of running sums).
  Work restOf(const Work& here) const {
    const Work all = workOf(lattice_.fullIdeal());
    Work rest;
    rest.acceleratorFit = std::max(0.0, all.acceleratorFit - here.acceleratorFit);
    rest.forcedCpu = std::max(0.0, all.forcedCpu - here.forcedCpu);
    rest.cpu = std::max(0.0, all.cpu - here.cpu);
    rest.notOnAccelerator = all.notOnAccelerator - here.notOnAccelerator;
    rest.fpga = all.fpga - here.fpga;
    return rest;
  }

  /// What the accelerator blocks of a node set with accelerator latency
  /// `fpga` and boundary hyperedges `crossing` pay at least, when c CPU
  /// cores loaded below the cut take what they can.
  double communicationExcess(double fpga, double crossing, int c) const {
    return fpga + crossing - absorbable_[c];
  }

  /// Whether a accelerators and c CPU cores can cover a node set with
  /// accelerator latency `fpga` and boundary hyperedges `crossing` below the
  /// cut: each boundary hyperedge is cut by every block holding one of its
  /// elements in the set, so the accelerator blocks pay fpga + crossing
  /// minus what the CPU cores (c · cut of CPU time) take off.
  bool communicationAlive(double fpga, double crossing, int a, int c) const {
    const double excess = communicationExcess(fpga, crossing, c);
    // The sums are running totals: an empty rest leaves rounding dust, not work.
    return excess * kMargin < a * cut_ || excess <= 1e-9 * cut_;
  }

  /// Whether state s at this ideal can lie on a chain below the cut.
  bool prefixAlive(const Work& here, int s) const {
    const int a = states_.acceleratorsOf(s), c = states_.cpusOf(s);
    return workBound(here, a, c) * kMargin < cut_ && communicationAlive(here.fpga, here.crossing, a, c);
  }
  /// Whether the rest of the graph, which pays the ideal's crossing
  /// hyperedges too, fits the devices state s leaves (not monotone).
  bool restPaysCrossingAlive(const Work& here, int s) const {
    const double restFpga = workOf(lattice_.fullIdeal()).fpga - here.fpga;
    return communicationAlive(restFpga, here.crossing, states_.accelerators - states_.acceleratorsOf(s),
                              states_.cpus - states_.cpusOf(s));
  }
  /// A lower bound on the largest load of the blocks after I, for a chain
  /// through state s at I whose blocks all stay below the cut: the work and
  /// the communication bounds of futureAlive and restPaysCrossingAlive, as
  /// numbers.
  double restBound(const Work& here, int s) const {
    const Work rest = restOf(here);
    const int a = states_.accelerators - states_.acceleratorsOf(s), c = states_.cpus - states_.cpusOf(s);
    double bound = workBound(rest, a, c);
    if (a > 0) bound = std::max(bound, communicationExcess(rest.fpga, here.crossing, c) / a);
    return bound * kMargin;
  }
  bool stateAlive(std::int32_t ideal, int s) const {
    const Work here = workOf(ideal);
    return prefixAlive(here, s) && futureAlive(ideal, s) && restPaysCrossingAlive(here, s);
  }

  /// For one live state s of the ideal I and the state s' = s minus the
  /// block's device, tests on the block D's own sums (the walker's):
  /// "the rest of the graph, outside I ∖ D, fits the devices s' leaves"
  /// (future: holds for small D only) and "I ∖ D can fit s' below the cut"
  /// (prefix: holds for large D only). Same meaning as futureAlive/prefixAlive.
  struct StateTest {
    int state;
    // future: coefficients · D < limit (the rest's own part is moved into the limits)
    double fFit, fForced, fCpu, fLimit, fSecondFit, fSecondForced, fSecondLimit;
    int fMaxNot;  ///< D may hold at most this many CPU-only super-nodes (-1: the state is dead)
    bool fAlways;  ///< no test (no devices left: cannot happen below the full ideal; kept conservative)
    // prefix: coefficients · D > limit
    double pFit, pForced, pCpu, pLimit, pSecondFit, pSecondForced, pSecondLimit;
    int pNeedNot;  ///< D must hold exactly this many CPU-only super-nodes (-1: any)
    bool pNever;   ///< s' has no devices: only the empty sub-ideal (tested by id)

    bool future(double fit, double forced, double cpu, int notOnAccelerator) const {
      if (fAlways) return true;
      return notOnAccelerator <= fMaxNot && fFit * fit + fForced * forced + fCpu * cpu < fLimit &&
             fSecondFit * fit + fSecondForced * forced < fSecondLimit;
    }
    bool prefix(double fit, double forced, double cpu, int notOnAccelerator) const {
      if (pNever) return false;
      return (pNeedNot < 0 || notOnAccelerator == pNeedNot) &&
             pFit * fit + pForced * forced + pCpu * cpu > pLimit &&
             pSecondFit * fit + pSecondForced * forced > pSecondLimit;
    }
  };

  /// The tests for live state s of an ideal with work `whole`, when the block takes device `step` (1 or the accelerator step).
  StateTest stateTest(int s, int step, const Work& whole) const {
    StateTest t{};
    t.state = s;
    const int sub = s - step;
    const Work all = workOf(lattice_.fullIdeal());
    // The rest outside I: all − I (clamped at 0 like futureAlive); rest of J = that + D.
    const double restFit = std::max(0.0, all.acceleratorFit - whole.acceleratorFit);
    const double restForced = std::max(0.0, all.forcedCpu - whole.forcedCpu);
    const double restCpu = std::max(0.0, all.cpu - whole.cpu);
    const int restNot = all.notOnAccelerator - whole.notOnAccelerator;
    const LinearBound future = linearBound(states_.accelerators - states_.acceleratorsOf(sub),
                                           states_.cpus - states_.cpusOf(sub));
    t.fAlways = future.never;
    t.fFit = future.fit;
    t.fForced = future.forced;
    t.fCpu = future.cpu;
    t.fLimit = future.firstLimit - (future.fit * restFit + future.forced * restForced + future.cpu * restCpu);
    t.fSecondFit = future.secondFit;
    t.fSecondForced = future.secondForced;
    t.fSecondLimit = future.secondLimit - (future.secondFit * restFit + future.secondForced * restForced);
    t.fMaxNot = future.noForced ? (restNot > 0 ? -1 : 0) : std::numeric_limits<int>::max();
    // J = I − D: coefficient·(I − D) < limit  ⇔  coefficient·D > coefficient·I − limit.
    const LinearBound prefix = linearBound(states_.acceleratorsOf(sub), states_.cpusOf(sub));
    t.pNever = prefix.never;
    t.pFit = prefix.fit;
    t.pForced = prefix.forced;
    t.pCpu = prefix.cpu;
    t.pLimit = prefix.fit * whole.acceleratorFit + prefix.forced * whole.forcedCpu + prefix.cpu * whole.cpu -
               prefix.firstLimit;
    t.pSecondFit = prefix.secondFit;
    t.pSecondForced = prefix.secondForced;
    t.pSecondLimit = prefix.secondFit * whole.acceleratorFit + prefix.secondForced * whole.forcedCpu -
                     prefix.secondLimit;
    t.pNeedNot = prefix.noForced ? whole.notOnAccelerator : -1;
    return t;
  }

  struct alignas(64) Scratch {
    /// Live states by the device their last block takes, walked down from I.
    std::vector<int> acceleratorStates, cpuStates;
    /// The same, when the state left has no accelerator: walked up (walkUp).
    std::vector<int> upAcceleratorStates, upCpuStates;
    std::vector<StateTest> acceleratorTests, cpuTests;
    std::vector<double> lower;  ///< per state: value(I, s) is at least this
    /// Per state: max(lower, restBound, goodEnough): a best this small is final.
    std::vector<double> closeAt;
    /// Per state: the smallest block load met with an inexact sub-ideal value.
    std::vector<double> minInexactLoad;
  };

  const double* valuesOf(std::int32_t ideal) const {
    return &table_[static_cast<std::size_t>(ideal) * stride_ + kWorkFields];
  }
  double* valuesOf(std::int32_t ideal) { return &table_[static_cast<std::size_t>(ideal) * stride_ + kWorkFields]; }
  void prefetchValues(std::int32_t ideal) const {
    const double* values = valuesOf(ideal);
    prefetchLines(values, states_.count() * sizeof(double));
  }

  /// value(I, s) ≥ value(I ∖ v, s) − removalIncrease(v) for every maximal
  /// element v of I: restricted to I ∖ v, a chain of I is a chain of I ∖ v
  /// on no more devices, and only the block that held v changes. So a state
  /// that is out of reach below every such I ∖ v stays out of reach at I, and
  /// a state whose value is inherited from one is final at once.
  void lowerBounds(std::int32_t ideal, BlockWalker& walker, std::vector<double>* lower) const {
    const int numStates = states_.count();
    lower->assign(numStates, 0.0);
    walker.mark(ideal);
    for (const IdealLattice::Link& link : lattice_.links(ideal)) {
      const double increase = walker.removalIncrease(link.element);
      if (done_ && !done_[link.target].load(std::memory_order_acquire)) waitFor(link.target);
      const double* sub = valuesOf(link.target);
      const Work subWork = workOf(link.target);
      for (int s = 1; s < numStates; ++s) {
        // A state the rest of the graph ruled out holds the cut without being that large.
        if (!futureAlive(subWork, s) || !restPaysCrossingAlive(subWork, s)) continue;
        if (std::signbit(sub[s])) continue;  // inexact: may be above value(I ∖ v, s)
        const double bound = increase > 0 ? (sub[s] - increase) * kMargin : sub[s];
        (*lower)[s] = std::max((*lower)[s], bound);
      }
    }
  }

  /// The blocks D = I ∖ J of the states in scratch.up*States: J must fit
  /// the sub-state's CPU cores below the state's best, so J's CPU work is
  /// below cores · best, which only grows with J.
  void walkUp(std::int32_t ideal, const Work& whole, BlockWalker& walker, Scratch& scratch, DpStats* stats) {
    const int step = states_.acceleratorStep();
    double* best = valuesOf(ideal);
    // Whether a sub-ideal J with CPU work subCpu can still serve a state.
    auto admits = [&](double subCpu) {
      for (int s : scratch.upAcceleratorStates)  // the sub-state (0, c) has c cores
        if (best[s] > scratch.closeAt[s] && subCpu < states_.cpusOf(s) * best[s]) return true;
      for (int s : scratch.upCpuStates)  // the sub-state (0, c − 1)
        if (best[s] > scratch.closeAt[s] && subCpu < (states_.cpusOf(s) - 1) * best[s]) return true;
      return false;
    };
    if (sizeNeverBinds_ && !admitsAFirstElement(ideal, admits)) {
      // Only J = ∅ is met, so D = I, whose sums the table holds (with no
      // CPU core, for every ideal). Even beside walkUpFrom, which starts from
      // those sums too, skipping the walk saves 2-4% of the DP's instructions
      // on BERT-3's operator graphs. The empty ideal's values are 0.
      if (stats) ++stats->blocksVisited;
      bool improved = false;
      auto offer = [&](int s, double load) {
        const double candidate = std::max(0.0, load);
        if (candidate < best[s]) {
          best[s] = candidate;
          improved = true;
        }
      };
      if (whole.notOnAccelerator == 0)
        for (int s : scratch.upAcceleratorStates) offer(s, whole.fpga + whole.crossing);
      for (int s : scratch.upCpuStates) offer(s, whole.cpu);
      if (improved) close(best);
      return;
    }
    auto grow = [&](int u) { return admits((whole.cpu - walker.cpu + graph_.cpuLatency[u]) * kMargin); };
    auto visit = [&](std::int32_t sub) {
      if (done_ && !done_[sub].load(std::memory_order_acquire)) waitFor(sub);
      const double* previous = valuesOf(sub);
      bool improved = false;
      auto offer = [&](int s, double subValue, double load) {
        const double candidate = std::max(subValueOf(subValue, load, &scratch.minInexactLoad[s]), load);
        if (candidate < best[s]) {
          best[s] = candidate;
          improved = true;
        }
      };
      if (walker.acceleratorFits()) {
        const double load = walker.acceleratorLoad();
        for (int s : scratch.upAcceleratorStates) offer(s, previous[s - step], load);
      }
      for (int s : scratch.upCpuStates) offer(s, previous[s - 1], walker.cpu);
      if (improved) close(best);
    };
    if (sizeNeverBinds_)
      walker.walkUpFrom(ideal, whole, grow, visit, stats);
    else
      walker.walkUp(ideal, grow, visit, stats);
  }

  /// Whether a sub-ideal {u} ≠ I of one element u could be admitted (u is
  /// not checked to be in I: a yes only costs the full walk).
  template <typename Admits>
  bool admitsAFirstElement(std::int32_t ideal, const Admits& admits) const {
    const std::int32_t empty = lattice_.emptyIdeal();
    for (std::int32_t child = lattice_.childBegin(empty); child < lattice_.childBegin(empty + 1); ++child)
      if (child != ideal && admits(graph_.cpuLatency[lattice_.addedElement(child)] * kMargin)) return true;
    return false;
  }

  /// A sub-ideal's stored value as a number; notes the block's load when
  /// the value is inexact (relax decides from that whether it mattered).
  static double subValueOf(double stored, double load, double* minInexactLoad) {
    if (stored >= 0) [[likely]] return stored;  // an inexact value is never 0: see markInexact
    *minInexactLoad = std::min(*minInexactLoad, load);
    return -stored;
  }

  /// Per state s of the ideal just relaxed: best[s] is exact when it reached
  /// its lower bound, or when the walk ran to its end (best[s] above
  /// closeAt[s]) and every inexact sub-ideal value it met came with a block
  /// at least best[s] (a smaller exact value there could not have won).
  /// Otherwise it is stored negated.
  void markInexact(double* best, const Scratch& scratch) const {
    for (int s = 1; s < states_.count(); ++s) {
      if (!(best[s] < cut_) || best[s] <= scratch.lower[s]) continue;
      if (best[s] <= scratch.closeAt[s] || scratch.minInexactLoad[s] < best[s]) best[s] = -best[s];
    }
  }

  /// best[s] only ever holds an upper bound on the final value; keeping it
  /// closed under "leave a device empty" lets every state prune with it.
  /// (Nested loops: acceleratorsOf/cpusOf divide, and this runs after every improvement.)
  void close(double* best) const {
    const int step = states_.acceleratorStep();
    for (int c = 1; c <= states_.cpus; ++c) best[c] = std::min(best[c], best[c - 1]);
    for (int s = step; s < states_.count(); s += step) {
      best[s] = std::min(best[s], best[s - step]);
      for (int c = 1; c <= states_.cpus; ++c)
        best[s + c] = std::min({best[s + c], best[s + c - step], best[s + c - 1]});
    }
  }

  void relax(std::int32_t ideal, BlockWalker& walker, Scratch& scratch, DpStats* stats) {
    const int numStates = states_.count();
    const int step = states_.acceleratorStep();
    double* best = valuesOf(ideal);
    computeCrossing(ideal, walker);
    lowerBounds(ideal, walker, &scratch.lower);
    const std::vector<double>& lower = scratch.lower;
    // Why stopping at the rest bound keeps the optimum: along an optimal
    // chain, every state's rest bound is at most the optimum L, so by
    // induction each stored value there is ≤ max(L, goodEnough) (a stopped
    // walk stops at most there; a full one meets the chain's previous
    // ideal), and so is the full ideal's value: above goodEnough, it is L.
    // lowerBounds stays sound because it reads exact values only.
    // (A state that is not walked keeps the cut: a value it has comes from a
    // state with fewer devices and is marked inexact.)
    const Work whole = workOf(ideal);
    scratch.closeAt.assign(numStates, cut_);
    scratch.minInexactLoad.assign(numStates, kInfinity);
    const std::vector<double>& closeAt = scratch.closeAt;
    scratch.acceleratorStates.clear();
    scratch.cpuStates.clear();
    scratch.upAcceleratorStates.clear();
    scratch.upCpuStates.clear();
    for (int s = 1; s < numStates; ++s) {
      if (lower[s] >= cut_ || !stateAlive(ideal, s)) continue;
      scratch.closeAt[s] = std::max(lower[s], std::min(std::max(restBound(whole, s), goodEnough_), cut_ * kMargin));
      // A block whose sub-state has no accelerator leaves J to CPU cores
      // alone, so J is small: those J are walked up from the empty ideal.
      const int a = states_.acceleratorsOf(s);
      if (a > 0) (a == 1 ? scratch.upAcceleratorStates : scratch.acceleratorStates).push_back(s);
      if (states_.cpusOf(s) > 0) (a == 0 ? scratch.upCpuStates : scratch.cpuStates).push_back(s);
    }
    // A state whose best reached its lower bound or the rest bound is final.
    auto open = [&](int s) { return best[s] > closeAt[s]; };
    auto close = [&] { this->close(best); };
    double acceleratorLimit = 0, cpuLimit = 0;
    auto updateLimits = [&] {
      acceleratorLimit = cpuLimit = -1;
      for (int s : scratch.acceleratorStates)
        if (open(s)) acceleratorLimit = std::max(acceleratorLimit, best[s]);
      for (int s : scratch.cpuStates)
        if (open(s)) cpuLimit = std::max(cpuLimit, best[s]);
    };
    close();
    if (!scratch.upAcceleratorStates.empty() || !scratch.upCpuStates.empty()) walkUp(ideal, whole, walker, scratch, stats);
    updateLimits();
    if (acceleratorLimit < 0 && cpuLimit < 0) {
      markInexact(best, scratch);
      return;
    }
    auto thresholds = [&](double* accelerator, double* cpu) {
      *accelerator = acceleratorLimit;
      *cpu = cpuLimit;
    };
    // A sub-ideal whose remainder no longer fits the devices a live state
    // leaves is useless, and so are all its sub-ideals.
    // The sub-ideal's Work is the ideal's minus the block's: no need to read
    // its record (a cache miss) unless it can matter.
    // (The tests below work on the block's sums: the sub-ideal's Work is
    // the ideal's minus the block's.)
    // Per state: the block must still be able to beat that state's best
    // (accelerator: compute + unavoidable communication) while the rest of
    // the graph fits the devices it leaves. Both only worsen as D grows.
    scratch.acceleratorTests.clear();
    scratch.cpuTests.clear();
    for (int s : scratch.acceleratorStates) scratch.acceleratorTests.push_back(stateTest(s, step, whole));
    for (int s : scratch.cpuStates) scratch.cpuTests.push_back(stateTest(s, 1, whole));
    auto usable = [&](std::int32_t) {
      const double fit = walker.fitAccelerator, forced = walker.forcedCpu, cpu = walker.cpu;
      const int notOn = walker.notOnAccelerator;
      if (walker.acceleratorFits()) {
        const double acceleratorFloor = walker.fpga + walker.committed;
        for (const StateTest& t : scratch.acceleratorTests)
          if (acceleratorFloor < best[t.state] && open(t.state) && t.future(fit, forced, cpu, notOn)) return true;
      }
      for (const StateTest& t : scratch.cpuTests)
        if (cpu < best[t.state] && open(t.state) && t.future(fit, forced, cpu, notOn)) return true;
      return false;
    };
    // With fetchAhead_, a met sub-ideal's record is read a few blocks later,
    // after a prefetch: the walk goes on meanwhile, so the cache miss (the
    // records are read in no cache-friendly order) overlaps other blocks'
    // work instead of stalling each block. Pruning with limits that lag a
    // few blocks behind only prunes less.
    struct Pending {
      std::int32_t sub;
      bool acceleratorFits;
      double acceleratorLoad, cpuLoad;
    };
    constexpr unsigned kPendingDepth = 4;
    std::array<Pending, kPendingDepth> pending;
    unsigned queued = 0;
    auto apply = [&](const Pending& block) __attribute__((always_inline)) {
      if (done_ && !done_[block.sub].load(std::memory_order_acquire)) waitFor(block.sub);
      const double* previous = valuesOf(block.sub);
      bool improved = false;
      if (block.acceleratorFits) {
        const double load = block.acceleratorLoad;
        if (load < acceleratorLimit)
          for (int s : scratch.acceleratorStates) {
            const double candidate = std::max(subValueOf(previous[s - step], load, &scratch.minInexactLoad[s]), load);
            if (candidate < best[s]) {
              best[s] = candidate;
              improved = true;
            }
          }
      }
      if (block.cpuLoad < cpuLimit) {
        const double load = block.cpuLoad;
        for (int s : scratch.cpuStates) {
          const double candidate = std::max(subValueOf(previous[s - 1], load, &scratch.minInexactLoad[s]), load);
          if (candidate < best[s]) {
            best[s] = candidate;
            improved = true;
          }
        }
      }
      if (improved) {
        close();
        updateLimits();
      }
    };
    walker.walk(
        ideal, thresholds, usable,
        [&](std::int32_t sub, const std::vector<std::int32_t>&) {
          // States the sub-ideal's own work rules out hold the cut: skip them.
          // (The empty sub-ideal is tested by id: its Work here is a difference
          // of sums, zero only up to rounding.)
          if (sub != lattice_.emptyIdeal()) {
            const double fit = walker.fitAccelerator, forced = walker.forcedCpu, cpu = walker.cpu;
            const int notOn = walker.notOnAccelerator;
            bool anyAlive = false;
            for (const StateTest& t : scratch.acceleratorTests)
              if (t.prefix(fit, forced, cpu, notOn)) {
                anyAlive = true;
                break;
              }
            if (!anyAlive)
              for (const StateTest& t : scratch.cpuTests)
                if (t.prefix(fit, forced, cpu, notOn)) {
                  anyAlive = true;
                  break;
                }
            if (!anyAlive) return true;
          }
          const Pending block{sub, walker.acceleratorFits(), walker.acceleratorLoad(), walker.cpu};
          if (!fetchAhead_) {
            apply(block);
            return true;
          }
          Pending& slot = pending[queued++ % kPendingDepth];
          if (queued > kPendingDepth) apply(slot);
          prefetchValues(sub);
          slot = block;
          return true;
        },
        stats);
    for (unsigned i = queued > kPendingDepth ? queued - kPendingDepth : 0; i < queued; ++i)
      apply(pending[i % kPendingDepth]);
    markInexact(best, scratch);
  }

  double ratio_ = 0;
  /// The whole graph fits one accelerator's memory: a block fits one
  /// exactly when it has no super-node that cannot go to an accelerator.
  bool sizeNeverBinds_ = false;
  std::vector<double> absorbable_;  ///< per number of CPU cores c: cpuAbsorbable(c, cut)
  /// With several threads: per ideal, whether its record is final.
  std::atomic<char>* done_ = nullptr;
  /// Set while threads share a run: whether one of them failed, so that the
  /// ideal another waits for may never be finished.
  const std::atomic<bool>* abandoned_ = nullptr;
  void waitFor(std::int32_t ideal) const {
    for (int spins = 0; !done_[ideal].load(std::memory_order_acquire); ++spins) {
      if (abandoned_->load(std::memory_order_relaxed)) throw RunAbandoned{};
      if (spins < 64)
        __builtin_ia32_pause();
      else
        std::this_thread::yield();  // the machine may be busy: let the other thread run
    }
  }
  const ContractedGraph& graph_;
  const IdealLattice& lattice_;
  DeviceStates states_;
  double memory_;
  double cut_;
  double goodEnough_;
  /// Per ideal, one record: its Work (kWorkFields numbers), then its value
  /// per state. Why together: lowerBounds reads both for each sub-ideal
  /// one element smaller, so one record costs one miss. (The walk in relax
  /// reads only the values: prefetchValues.)
  static constexpr int kWorkFields = 6;
  static constexpr int kCrossingField = 5;
  std::size_t stride_;
  std::unique_ptr<double[]> table_;
  /// Whether the lattice and the table outgrow the cache: then relax reads
  /// sub-ideal records late, after a prefetch, and walks prefetch whole link
  /// lists. On smaller ones that only adds instructions (15% more on
  /// bert_l-12 inference, 0.9 MB).
  static constexpr std::uint64_t kCacheResidentBytes = std::uint64_t{16} << 20;
  bool fetchAhead_;
};

/// What one DP solve on one contracted graph produced.
struct ChainResult {
  enum class Kind { Found, NoChain, IdealLimit, MemoryLimit, TimeLimit, Interrupted, InternalError };
  Kind kind = Kind::NoChain;
  /// Found: the optimal chain. Stopped by a limit: the best chain a
  /// good-enough run found before it (empty: none).
  std::vector<LatticeDp::Block> blocks;
  double objective = kInfinity;  ///< of `blocks`, recomputed from scratch on the original graph
  std::uint64_t ideals = 0;
  std::uint64_t bytes = 0;  ///< latticeBytes + tableBytes
  std::uint64_t latticeBytes = 0, tableBytes = 0;
  DpStats stats;
  int rounds = 0;                 ///< DP runs (probes or good-enough runs, then the decisive one)
  double provenLowerBound = 0;    ///< no chain has a smaller max-load
};

double chainObjective(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<LatticeDp::Block>& blocks) {
  double worst = 0;
  for (const auto& block : blocks) {
    const BlockTotals totals = blockTotals(workload, graph, block.superNodes);
    worst = std::max(worst, block.accelerator ? totals.acceleratorLoad() : totals.cpuLatency);
  }
  return worst;
}

/// The sums of an interval of a contracted graph's numbering, grown one
/// super-node at a time: compute, memory, communication (the hyperedges it
/// holds some but not all of) and the part of that it can no longer shed by
/// growing (hyperedges with an element before its start).
class IntervalSums {
 public:
  explicit IntervalSums(const ContractedGraph& graph)
      : graph_(graph), inside_(graph.hyperWeight.size(), 0), firstMember_(graph.hyperWeight.size()) {
    for (std::size_t h = 0; h < firstMember_.size(); ++h)
      firstMember_[h] = *std::min_element(graph.hyperNodes.begin() + graph.hyperStart[h],
                                          graph.hyperNodes.begin() + graph.hyperStart[h + 1]);
  }

  void restart(int start) {
    for (std::int32_t h : touched_) inside_[h] = 0;
    touched_.clear();
    start_ = start;
    compute = size = communication = committed = 0;
  }
  void add(int v) {
    compute += graph_.fpgaLatency[v];
    size += graph_.size[v];
    for (std::int32_t i = graph_.incidenceStart[v]; i < graph_.incidenceStart[v + 1]; ++i) {
      const std::int32_t h = graph_.incidence[i];
      if (inside_[h]++ == 0) {
        touched_.push_back(h);
        communication += graph_.hyperWeight[h];
        if (firstMember_[h] < start_) committed += graph_.hyperWeight[h];
      }
      if (inside_[h] == graph_.hyperStart[h + 1] - graph_.hyperStart[h]) communication -= graph_.hyperWeight[h];
    }
  }
  double load() const { return compute + communication; }

  double compute = 0, size = 0, communication = 0, committed = 0;

 private:
  const ContractedGraph& graph_;
  std::vector<std::int32_t> inside_, firstMember_, touched_;
  int start_ = 0;
};

/// A chain found without the lattice, and its exact max-load.
struct LinearSeed {
  double objective = kInfinity;
  std::vector<LatticeDp::Block> blocks;  ///< empty: none found
};

/// A quick chain along the order of a contracted graph's numbering
/// (topological: its prefixes are ideals, so its intervals are blocks):
/// cut the order into intervals, each on an accelerator or a CPU core, under
/// a limit T, binary-searching the smallest T the packing meets, and price
/// that packing exactly. For a given T, reach[a][c] is how far a accelerators
/// and c cores get, each interval the longest whose load is under T (its
/// accelerator load counts communication, a large share on operator graphs);
/// the next interval goes to whichever device type reaches further. None
/// when no packing is found (then the DP probes instead).
LinearSeed greedyChain(const Workload& workload, const ContractedGraph& linear,
                       Clock::time_point deadline = Clock::time_point::max(),
                       const std::atomic<bool>* interrupt = nullptr) {
  const int n = linear.numSuperNodes;
  const int accelerators = std::min(workload.machine.maxFpgas, n);
  const int cpus = std::min(workload.machine.maxCpus, n);
  const double memory = workload.machine.maxSizePerFpga;
  if (n == 0 || accelerators + cpus <= 0) return {};
  // Every super-node needs a device: T is at least its smaller latency.
  double low = 0, high = 0;
  for (int v = 0; v < n; ++v) {
    high += linear.fpgaLatency[v] + linear.cpuLatency[v];
    low = std::max(low, std::min(cpus > 0 ? linear.cpuLatency[v] : kInfinity,
                                 accelerators > 0 ? linear.fpgaLatency[v] : kInfinity));
  }
  for (double w : linear.hyperWeight) high += w;

  IntervalSums interval(linear);
  // The furthest end of an accelerator interval starting at `start` with a
  // load under `limit`. An interval's communication falls when it takes a
  // hyperedge whole, so it grows on past a load above the limit until the
  // part it can no longer shed reaches it (on operator graphs stopping at the
  // first excess left the bound 1.3 to 7 times the optimum).
  auto acceleratorReach = [&](int start, double limit) {
    interval.restart(start);
    int reach = start;
    for (int v = start; v < n; ++v) {
      if (!linear.supportedOnFpga[v] || interval.size + linear.size[v] > memory) break;
      interval.add(v);
      if (interval.compute + interval.committed > limit) break;
      if (interval.load() <= limit) reach = v + 1;
    }
    return reach;
  };
  auto cpuReach = [&](int start, double limit) {
    double time = 0;
    int v = start;
    while (v < n && time + linear.cpuLatency[v] <= limit) time += linear.cpuLatency[v++];
    return v;
  };
  // reach[a][c] and whether its last interval is on a CPU core.
  const int columns = cpus + 1;
  std::vector<int> reach((accelerators + 1) * columns);
  std::vector<char> lastOnCpu(reach.size());
  // Cells often start an accelerator interval at the same super-node.
  std::vector<int> acceleratorReachFrom(n + 1);
  auto pack = [&](double limit) -> int {  // a cell reaching the end, or -1
    std::fill(acceleratorReachFrom.begin(), acceleratorReachFrom.end(), -1);
    for (int a = 0; a <= accelerators; ++a)
      for (int c = 0; c <= cpus; ++c) {
        const int cell = a * columns + c;
        if (cell == 0) {
          reach[0] = 0;
          continue;
        }
        int byAccelerator = -1;
        if (a > 0) {
          int& known = acceleratorReachFrom[reach[cell - columns]];
          if (known < 0) known = acceleratorReach(reach[cell - columns], limit);
          byAccelerator = known;
        }
        const int byCpu = c > 0 ? cpuReach(reach[cell - 1], limit) : -1;
        lastOnCpu[cell] = byCpu > byAccelerator;
        reach[cell] = std::max(byAccelerator, byCpu);
        if (reach[cell] == n) return cell;
      }
    return -1;
  };
  if (pack(high) < 0) return {};
  // Only a cut for linearChainSeed: a per mille is close enough. Past the
  // deadline the last limit packed serves (a packing takes linear time: on
  // a chain of a million nodes the search alone took seconds).
  for (int iteration = 0; iteration < 40 && high - low > 1e-3 * high; ++iteration) {
    if (pastLimit(deadline, interrupt)) break;
    const double middle = (low + high) / 2;
    (pack(middle) >= 0 ? high : low) = middle;
  }
  int cell = pack(high);
  std::vector<LatticeDp::Block> blocks;
  while (cell > 0) {
    const int previous = lastOnCpu[cell] ? cell - 1 : cell - columns;
    LatticeDp::Block block;
    block.accelerator = !lastOnCpu[cell];
    for (int v = reach[previous]; v < reach[cell]; ++v) block.superNodes.push_back(v);
    if (!block.superNodes.empty()) blocks.push_back(std::move(block));
    cell = previous;
  }
  LinearSeed seed;
  seed.objective = chainObjective(workload, linear, blocks);
  seed.blocks = std::move(blocks);
  return seed;
}

/// The best chain of intervals of a contracted graph's numbering (each interval
/// on an accelerator or a CPU core) whose max-load is below `cut`, priced
/// exactly; none when there is no such chain. The lattice DP restricted to
/// one order, but without a lattice: a forward pass over interval starts,
/// each interval grown until its compute plus the communication it can no
/// longer shed (hyperedges reaching back before its start) reaches the cut.
/// None either when the deadline passes or the interrupt is set, or when
/// its table would need more than memoryLimitBytes (0: no limit).
LinearSeed linearChainSeed(const Workload& workload, const ContractedGraph& linear, double cut,
                           Clock::time_point deadline, const std::atomic<bool>* interrupt,
                           std::uint64_t memoryLimitBytes = 0) {
  const int n = linear.numSuperNodes;
  const int accelerators = std::min(workload.machine.maxFpgas, n);
  const int cpus = std::min(workload.machine.maxCpus, n);
  const double memory = workload.machine.maxSizePerFpga;
  // Without a cut every interval is tried: quadratic, so only for small graphs.
  constexpr int kUncutLimit = 2000;
  if (n == 0 || (!std::isfinite(cut) && n > kUncutLimit)) return {};
  const int columns = cpus + 1, numStates = (accelerators + 1) * columns;
  const std::uint64_t tableBytes =
      static_cast<std::uint64_t>(n + 1) * static_cast<std::uint64_t>(numStates) * (sizeof(double) + sizeof(std::int32_t));
  if (memoryLimitBytes && tableBytes > memoryLimitBytes) return {};
  // value[j · numStates + s]: best max-load of the first j super-nodes on
  // state s's devices; how[...]: the last interval's start, negated − 1 on a CPU core.
  std::vector<double> value(static_cast<std::size_t>(n + 1) * numStates, cut);
  std::vector<std::int32_t> how(value.size(), 0);
  value[0] = 0;
  IntervalSums interval(linear);
  std::vector<int> viaAccelerator, viaCpu;  // states s whose s − device is reached at i
  // Quadratic on long chains: a limit gives up the seed. Counted in steps of
  // the inner loops (one interval start may grow across most of the chain).
  std::uint64_t steps = 0, nextCheck = 0;
  auto outOfTime = [&] {
    if (steps < nextCheck) return false;
    nextCheck = steps + 16384;
    return pastLimit(deadline, interrupt);
  };
  for (int i = 0; i < n; ++i) {
    if (outOfTime()) return {};
    const double* from = &value[static_cast<std::size_t>(i) * numStates];
    viaAccelerator.clear();
    viaCpu.clear();
    // A state that one with a device fewer reaches i as well is left out:
    // whatever follows it, follows that one too.
    auto pushes = [&](int t) {
      return from[t] < cut && !(t >= columns && from[t - columns] <= from[t]) &&
             !(t % columns != 0 && from[t - 1] <= from[t]);
    };
    for (int s = 0; s < numStates; ++s) {
      if (s >= columns && pushes(s - columns)) viaAccelerator.push_back(s);
      if (s % columns != 0 && pushes(s - 1)) viaCpu.push_back(s);
    }
    if (viaAccelerator.empty() && viaCpu.empty()) continue;
    interval.restart(i);
    for (int j = i; j < n && !viaAccelerator.empty(); ++j) {
      if (++steps >= nextCheck && outOfTime()) return {};
      if (!linear.supportedOnFpga[j] || interval.size + linear.size[j] > memory) break;
      interval.add(j);
      if (interval.compute + interval.committed >= cut) break;
      const double load = interval.load();
      if (load >= cut) continue;
      double* to = &value[static_cast<std::size_t>(j + 1) * numStates];
      for (int s : viaAccelerator) {
        const double candidate = std::max(from[s - columns], load);
        if (candidate < to[s]) {
          to[s] = candidate;
          how[static_cast<std::size_t>(j + 1) * numStates + s] = i;
        }
      }
    }
    double time = 0;
    for (int j = i; j < n && !viaCpu.empty(); ++j) {
      if (++steps >= nextCheck && outOfTime()) return {};
      time += linear.cpuLatency[j];
      if (time >= cut) break;
      double* to = &value[static_cast<std::size_t>(j + 1) * numStates];
      for (int s : viaCpu) {
        const double candidate = std::max(from[s - 1], time);
        if (candidate < to[s]) {
          to[s] = candidate;
          how[static_cast<std::size_t>(j + 1) * numStates + s] = -i - 1;
        }
      }
    }
  }
  const double* last = &value[static_cast<std::size_t>(n) * numStates];
  int state = static_cast<int>(std::min_element(last, last + numStates) - last);
  if (!(last[state] < cut)) return {};
  std::vector<LatticeDp::Block> blocks;
  for (int end = n; end > 0;) {
    const std::int32_t code = how[static_cast<std::size_t>(end) * numStates + state];
    LatticeDp::Block block;
    block.accelerator = code >= 0;
    const int start = code >= 0 ? code : -code - 1;
    for (int v = start; v < end; ++v) block.superNodes.push_back(v);
    blocks.push_back(std::move(block));
    state -= code >= 0 ? columns : 1;
    end = start;
  }
  LinearSeed seed;
  seed.objective = chainObjective(workload, linear, blocks);
  seed.blocks = std::move(blocks);
  return seed;
}

/// linearChainSeed below `best` (a known plan's max-load), or below a greedy
/// packing of the same order when no plan is known yet.
LinearSeed orderSeed(const Workload& workload, const ContractedGraph& ordered, double best,
                     Clock::time_point deadline = Clock::time_point::max(),
                     const std::atomic<bool>* interrupt = nullptr, std::uint64_t memoryLimitBytes = 0) {
  LinearSeed greedy;
  if (!std::isfinite(best)) greedy = greedyChain(workload, ordered, deadline, interrupt);
  const double cut = std::isfinite(best) ? best : greedy.objective;
  LinearSeed exact =
      linearChainSeed(workload, ordered, aboveRounding(cut), deadline, interrupt, memoryLimitBytes);
  // A limit may stop the exact chain: the greedy one is still a plan.
  return exact.blocks.empty() ? greedy : exact;
}

/// Bounds on the max-load of any chain: every super-node needs some device
/// (lower; also the work bound of all devices), and no block can exceed all
/// accelerator work plus all communication, or all CPU work (upper).
struct ChainBounds {
  double lower = 0, upper = 0;
};
ChainBounds chainBounds(const ContractedGraph& graph, DeviceStates states, double memoryPerAccelerator) {
  ChainBounds bounds;
  Work all;
  double fpgaTotal = 0;
  for (int v = 0; v < graph.numSuperNodes; ++v) {
    const bool fits = states.accelerators > 0 && graph.supportedOnFpga[v] && graph.size[v] <= memoryPerAccelerator;
    const double alone = std::min(fits ? graph.fpgaLatency[v] : kInfinity,
                                  states.cpus > 0 ? graph.cpuLatency[v] : kInfinity);
    if (std::isfinite(alone)) bounds.lower = std::max(bounds.lower, alone);
    (fits ? all.acceleratorFit : all.forcedCpu) += fits ? graph.fpgaLatency[v] : graph.cpuLatency[v];
    all.cpu += graph.cpuLatency[v];
    all.notOnAccelerator += fits ? 0 : 1;
    fpgaTotal += graph.fpgaLatency[v];
  }
  const double work = workBoundOf(all, states.accelerators, states.cpus, latencyRatio(graph));
  if (std::isfinite(work)) bounds.lower = std::max(bounds.lower, work);
  double communication = 0;
  for (double w : graph.hyperWeight) communication += w;
  bounds.upper = std::max(fpgaTotal + communication, all.cpu);
  return bounds;
}

/// The DP on one contracted graph. upperBound: a known plan's max-load
/// (chains at or above it are not tracked; infinite: none known);
/// lowerBound: a proven lower bound, if any.
ChainResult solveChain(const Workload& workload, const ContractedGraph& graph,
                       const SolveOptions& options, Clock::time_point deadline, double upperBound,
                       double lowerBound = 0, const IdealLattice* built = nullptr) {
  ChainResult result;
  const Machine& machine = workload.machine;
  DeviceStates states;
  // More devices than super-nodes can never help.
  states.accelerators = std::min(machine.maxFpgas, graph.numSuperNodes);
  states.cpus = std::min(machine.maxCpus, graph.numSuperNodes);

  // Known before any work, so a run stopped early still reports it.
  const ChainBounds bounds = chainBounds(graph, states, machine.maxSizePerFpga);
  result.provenLowerBound = std::max(bounds.lower, lowerBound);

  // The caller's complete lattice of this graph, if it has one (built with
  // no limits of the user's to apply), or one built here under them.
  IdealLattice own;
  auto status = IdealLattice::Status::Complete;
  if (!built) {
    IdealLattice::Limits limits;
    limits.maxIdeals = options.maxIdeals;
    limits.memoryLimitBytes = options.memoryLimitBytes;
    limits.extraBytesPerIdeal = LatticeDp::bytesPerIdeal(states);
    limits.deadline = deadline;
    limits.interrupt = options.interrupt;
    if (options.progress)
      limits.progress = [&](std::uint64_t ideals) {
        options.progress("dp: enumerating ideals: " + std::to_string(ideals) + " so far");
      };
    status = own.build(graph, limits);
  }
  const IdealLattice& lattice = built ? *built : own;
  result.ideals = static_cast<std::uint64_t>(std::max(0, lattice.numIdeals()));
  result.latticeBytes = lattice.bytes();
  result.tableBytes = result.ideals * LatticeDp::bytesPerIdeal(states);
  result.bytes = result.latticeBytes + result.tableBytes;
  switch (status) {
    case IdealLattice::Status::Complete: break;
    case IdealLattice::Status::IdealLimit: result.kind = ChainResult::Kind::IdealLimit; return result;
    case IdealLattice::Status::MemoryLimit: result.kind = ChainResult::Kind::MemoryLimit; return result;
    case IdealLattice::Status::TimeLimit: result.kind = ChainResult::Kind::TimeLimit; return result;
    case IdealLattice::Status::Interrupted: result.kind = ChainResult::Kind::Interrupted; return result;
  }
  if (options.memoryLimitBytes && result.bytes > options.memoryLimitBytes) {
    result.kind = ChainResult::Kind::MemoryLimit;
    return result;
  }

  // With no known plan, probing from below: a DP run with cut c only tracks
  // chains below c, and the number of blocks it walks grows steeply with c.
  // So runs at c = L·(1 + δ) with δ = 5%, 10%, 20%, … over the last bound L
  // are tried: the first that finds a chain has found the optimum, each one
  // that does not proves a higher lower bound, and past every possible
  // max-load the run decides. With a known plan, one run below it: near an
  // optimum, a failed probe costs about as much as the decisive run.
  // In that run a state may stop once its best is at most 0.99 times the
  // known plan's max-load K (good enough): a chain above 0.99·K is then the
  // optimum, and a chain at most 0.99·K becomes the known plan for one more
  // run. (On the shared workloads the first run decides; on the 10^6-ideal
  // graph it walks a third of the blocks of an exact run.)
  constexpr double kGoodEnoughGap = 0.01;
  const bool probing = !std::isfinite(upperBound);
  const double ceiling = probing ? bounds.upper * 2 + 1 : upperBound;
  double proven = std::max(bounds.lower, lowerBound);
  double step = 0.05;
  double known = ceiling;  ///< not probing: the max-load of a chain of this lattice
  for (;;) {
    double target = known;
    bool probe = false;
    if (probing && proven > 0 && proven * (1 + step) < ceiling) {
      target = proven * (1 + step);
      probe = true;
      step *= 2;
    }
    // Below a known plan only better chains are tracked: the cut is its
    // max-load itself, so a run finding none proves that plan optimal (up to
    // the rounding of the sums) and walks far fewer blocks than one that must
    // rebuild it (on ResNet-50's operator graph 2,653 against 4,715).
    const double cut = probing ? aboveRounding(target) : target;
    const double goodEnough = probing ? 0 : known * (1 - kGoodEnoughGap);
    LatticeDp dp(graph, lattice, states, machine.maxSizePerFpga, cut, goodEnough, options.dpAlwaysFetchAhead);
    DpLimits dpLimits;
    dpLimits.deadline = deadline;
    dpLimits.interrupt = options.interrupt;
    dpLimits.threadStart = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.0, options.threadStartSeconds)));
    if (options.progress) {
      dpLimits.progress = [&](const std::string& line) {
        options.progress(line + (probe ? " (probing below " + formatNumber(target) + ")" : "") +
                         (probing ? "" : ", best so far " + formatNumber(known)));
      };
    }
    ++result.rounds;
    const DpRun run = dp.run(dpLimits, options.threads, &result.stats);
    result.provenLowerBound = proven;
    if (run == DpRun::TimeLimit) {
      result.kind = ChainResult::Kind::TimeLimit;
      return result;
    }
    if (run == DpRun::Interrupted) {
      result.kind = ChainResult::Kind::Interrupted;
      return result;
    }
    const int finalState = states.count() - 1;
    const double optimum = dp.value(lattice.fullIdeal(), finalState);
    if (!(optimum < cut)) {
      if (probe) {
        proven = target;  // no chain below target
        continue;
      }
      // Nothing below the known plan: it is optimal (the seed's, or after a
      // good-enough run, that run's chain).
      result.kind = result.blocks.empty() ? ChainResult::Kind::NoChain : ChainResult::Kind::Found;
      result.provenLowerBound = result.blocks.empty() ? (probing ? kInfinity : upperBound) : result.objective;
      return result;
    }
    result.blocks.clear();
    if (!dp.backtrack(lattice.fullIdeal(), finalState, optimum, &result.blocks)) {
      result.kind = ChainResult::Kind::InternalError;
      return result;
    }
    result.objective = chainObjective(workload, graph, result.blocks);
    if (optimum <= goodEnough && goodEnough > 0) {
      // A better plan, not shown optimal: the incumbent (returned if a
      // limit stops the next run), and the next run looks below it. (Each
      // such plan is 1% below the last; with K = 0 nothing is below.)
      known = optimum;
      if (options.progress) options.progress("dp: found a plan of max-load " + formatNumber(known) + ", looking below it");
      continue;
    }
    result.kind = ChainResult::Kind::Found;
    result.provenLowerBound = result.objective;
    return result;
  }
}

Placement placementOf(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<LatticeDp::Block>& blocks) {
  Placement placement;
  placement.numAccelerators = workload.machine.maxFpgas;
  placement.numCpus = workload.machine.maxCpus;
  std::vector<int> deviceOfSuper(graph.numSuperNodes, Placement::kUnplaced);
  int accelerators = 0, cpus = 0;
  // Backtracking yields the blocks from the last to the first: number devices
  // in pipeline order.
  for (auto it = blocks.rbegin(); it != blocks.rend(); ++it) {
    const int device = it->accelerator ? accelerators++
                                       : Placement::cpuDevice(placement.numAccelerators, cpus++);
    for (int s : it->superNodes) deviceOfSuper[s] = device;
  }
  placement.deviceOf.resize(workload.numNodes());
  for (NodeIndex v = 0; v < workload.numNodes(); ++v)
    placement.deviceOf[v] = deviceOfSuper[graph.superOf[v]];
  return placement;
}

/// A reason no placement (or no contiguous one) can exist, found before the
/// DP: a class, or a group of classes contraction keeps together, that fits
/// on no device. Empty when nothing obvious is wrong.
std::string obviousInfeasibility(const Workload& workload, const ContractedGraph& graph) {
  const Machine& machine = workload.machine;
  if (machine.maxFpgas == 0 && machine.maxCpus == 0)
    return "no devices: maxFPGAs and maxCPUs are both 0";
  if (machine.maxCpus > 0) return "";
  auto whyNotAccelerator = [&](double size, bool supported, const std::vector<NodeIndex>& nodes) {
    if (machine.maxFpgas == 0) return std::string("maxFPGAs is 0");
    if (!supported) {
      std::string ids;
      for (NodeIndex v : nodes)
        if (!workload.nodes[v].supportedOnFpga) {
          if (!ids.empty()) ids += ", ";
          ids += std::to_string(workload.nodes[v].id);
        }
      return nodes.size() == 1 ? std::string("is not supported on accelerators")
                               : "has nodes not supported on accelerators (" + ids + ")";
    }
    if (size > machine.maxSizePerFpga)
      return "needs " + formatBytes(size) + ", accelerators hold " + formatBytes(machine.maxSizePerFpga);
    return std::string();
  };
  for (int cls = 0; cls < workload.numClasses; ++cls) {
    const auto members = workload.classMembers(cls);
    std::vector<NodeIndex> nodes(members.begin(), members.end());
    double size = 0;
    bool supported = true;
    for (NodeIndex v : nodes) {
      size += workload.nodes[v].size;
      supported = supported && workload.nodes[v].supportedOnFpga;
    }
    const std::string why = whyNotAccelerator(size, supported, nodes);
    if (!why.empty()) return describeClass(workload, cls) + " " + why + ", and maxCPUs is 0";
  }
  for (int s = 0; s < graph.numSuperNodes; ++s) {
    std::vector<NodeIndex> nodes(graph.members.begin() + graph.memberStart[s],
                                 graph.members.begin() + graph.memberStart[s + 1]);
    const std::string why = whyNotAccelerator(graph.size[s], graph.supportedOnFpga[s], nodes);
    if (!why.empty())
      return "no contiguous placement: " + describeSuperNode(workload, graph, s) +
             " must share a device (contraction fused them) and " + why + ", and maxCPUs is 0";
  }
  return "";
}

std::string noChainReason(const Workload& workload) {
  const Machine& m = workload.machine;
  double total = 0;
  for (const Node& node : workload.nodes) total += node.size;
  return "no contiguous placement: " + std::to_string(m.maxFpgas) + " accelerator(s) of " +
         formatBytes(m.maxSizePerFpga) + " and " + std::to_string(m.maxCpus) +
         " CPU core(s) cannot cover the graph (" + formatBytes(total) + " in total)";
}

std::string limitMessage(const ChainResult& chain, const SolveOptions& options) {
  const std::string reached = std::to_string(chain.ideals) + " ideals enumerated, about " +
                              formatBytes(static_cast<double>(chain.bytes)) + " in use";
  switch (chain.kind) {
    case ChainResult::Kind::IdealLimit:
      return "stopped at the ideal limit (--max-ideals " + std::to_string(options.maxIdeals) + "): " + reached;
    case ChainResult::Kind::MemoryLimit:
      return "stopped at the memory limit (--memory-limit " + std::to_string(options.memoryLimitBytes) +
             " bytes): " + reached;
    case ChainResult::Kind::TimeLimit: return "stopped at the time limit: " + reached;
    case ChainResult::Kind::Interrupted: return "interrupted: " + reached;
    default: return reached;
  }
}

bool isLimit(ChainResult::Kind kind) {
  return kind == ChainResult::Kind::IdealLimit || kind == ChainResult::Kind::MemoryLimit ||
         kind == ChainResult::Kind::TimeLimit || kind == ChainResult::Kind::Interrupted;
}

SolveOutcome emptyWorkloadOutcome(const Workload& workload) {
  SolveOutcome outcome;
  outcome.status = SolveStatus::Optimal;
  Placement placement;
  placement.numAccelerators = workload.machine.maxFpgas;
  placement.numCpus = workload.machine.maxCpus;
  outcome.placement = placement;
  outcome.message = "empty workload";
  return outcome;
}

const char* kOrderNote =
    "topological order of the contracted graph: Kahn's algorithm, ready super-node with the "
    "smallest original node index first";

/// dp-linear and pipedream: one topological order, then the DP.
SolveOutcome solveLinearized(const Workload& workload, const SolveOptions& options, bool pipedream) {
  SolveOutcome outcome;
  if (options.diffMaxima) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = std::string(pipedream ? "pipedream" : "dp-linear") +
                      " does not support --diffmaxima; use milp";
    return outcome;
  }
  if (options.objective != Objective::Throughput) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = std::string(pipedream ? "pipedream" : "dp-linear") +
                      " optimizes throughput only";
    return outcome;
  }
  if (workload.numNodes() == 0) return emptyWorkloadOutcome(workload);
  ContractionOptions contraction;
  contraction.linearize = true;
  contraction.mergeBiconnected = pipedream;
  const ContractedGraph graph = contractWorkload(workload, contraction);
  if (const std::string why = obviousInfeasibility(workload, graph); !why.empty()) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = why;
    return outcome;
  }
  const ChainResult chain = solveChain(workload, graph, options, deadlineOf(options), kInfinity);
  if (isLimit(chain.kind)) {
    outcome.status = SolveStatus::NoSolution;
    outcome.message = limitMessage(chain, options);
    return outcome;
  }
  if (chain.kind == ChainResult::Kind::InternalError) {
    outcome.status = SolveStatus::Error;
    outcome.message = "internal error: the DP could not recover its plan";
    return outcome;
  }
  if (chain.kind == ChainResult::Kind::NoChain) {
    // Only this order failed; other contiguous placements may exist.
    outcome.status = SolveStatus::NoSolution;
    outcome.message = "no feasible placement along the " + std::string(kOrderNote);
    return outcome;
  }
  outcome.status = SolveStatus::Feasible;
  outcome.placement = placementOf(workload, graph, chain.blocks);
  outcome.objective = chain.objective;
  outcome.lowerBound = 0;
  if (pipedream) {
    outcome.message = "PipeDream emulation: sources of each biconnected component's edges merged (" +
                      std::to_string(graph.classesMergedBiconnected) + " classes absorbed), " +
                      std::to_string(graph.numSuperNodes) +
                      " super-nodes, optimal for the " + kOrderNote;
  } else {
    outcome.message = "optimal for one " + std::string(kOrderNote) + " (" +
                      std::to_string(graph.numSuperNodes) + " super-nodes); not for all contiguous placements";
  }
  return outcome;
}

}  // namespace

namespace {

/// The workload with every chain of super-nodes (u → v, v u's only successor
/// and u v's only predecessor, in the contracted forward DAG) cut into
/// `pieces` runs of consecutive super-nodes, each run made one color class:
/// the same nodes and edges, so its plans are plans of the original, and
/// each of its ideals is an ideal of the original. nullopt when no chain has
/// two super-nodes.
std::optional<Workload> chainCoarsened(const Workload& workload, const ContractedGraph& graph, int pieces) {
  const int n = graph.numSuperNodes;
  std::vector<int> chainOf(n), position(n, 0), length(n, 1);
  bool merged = false;
  for (int u = 0; u < n; ++u) chainOf[u] = u;
  for (int u = 0; u < n; ++u) {  // topological numbering: chainOf[u] is final here
    if (graph.succStart[u + 1] - graph.succStart[u] != 1) continue;
    const int v = graph.succ[graph.succStart[u]];
    if (graph.predStart[v + 1] - graph.predStart[v] != 1) continue;
    chainOf[v] = chainOf[u];
    position[v] = position[u] + 1;
    length[chainOf[u]] = position[v] + 1;
    merged = true;
  }
  if (!merged) return std::nullopt;
  // Cut each chain into `pieces` runs of about equal length: the piece of
  // super-node v is its chain head's number times `pieces` plus its run.
  for (int v = 0; v < n; ++v) {
    const int head = chainOf[v];
    chainOf[v] = head * pieces + position[v] * pieces / length[head];
  }
  std::vector<Node> nodes = workload.nodes;
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) nodes[v].colorClass = chainOf[graph.superOf[v]];
  std::vector<RawEdge> edges;
  edges.reserve(workload.edges.size());
  for (const Edge& e : workload.edges)
    edges.push_back({workload.nodes[e.source].id, workload.nodes[e.dest].id, workload.outCost[e.source]});
  std::string error;
  return buildWorkload(workload.name, workload.machine, std::move(nodes), edges, &error);
}

}  // namespace

SolveOutcome solveDp(const Workload& workload, const SolveOptions& options) {
  SolveOutcome outcome;
  if (options.diffMaxima) {
    outcome.status = SolveStatus::InvalidInput;
    outcome.message = "dp does not support --diffmaxima; use milp";
    return outcome;
  }
  if (workload.numNodes() == 0) return emptyWorkloadOutcome(workload);
  const auto deadline = deadlineOf(options);
  const ContractedGraph graph = contractWorkload(workload, ContractionOptions{});
  if (const std::string why = obviousInfeasibility(workload, graph); !why.empty()) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = why;
    return outcome;
  }

  // Seeds: plans whose max-load cuts the full DP. Each is a chain of ideals
  // of this very graph, so the DP can reach it again.
  // * The same DP along one topological order, computed without a lattice
  //   (linearChainSeed), for three orders (smallest-first, depth-first,
  //   breadth-first), each cut by the best plan so far, the first by a greedy
  //   packing of its order.
  // * The full DP on a coarser graph whose chains of super-nodes stay whole
  //   (wide graphs: it groups whole branches, which no single order can).
  // A small lattice is cheaper to solve than all but the first order's seed,
  // and one with hardly more ideals than super-nodes than that one too: the
  // greedy packing's chain alone seeds it.
  SolveOptions seedOptions = options;
  seedOptions.maxIdeals = 0;  // the user's cap is on the DP's own lattice; memory is memory
  seedOptions.progress = nullptr;
  // Enumerated once under a cap: a small lattice is complete and also
  // serves the final DP, unless it holds more ideals than the user allows.
  constexpr std::uint64_t kSmallLattice = 4096;
  IdealLattice smallLatticeBuilt;
  IdealLattice::Limits capped;
  capped.maxIdeals = kSmallLattice;
  capped.deadline = deadline;
  capped.interrupt = options.interrupt;
  const bool smallLattice = smallLatticeBuilt.build(graph, capped) == IdealLattice::Status::Complete;
  const bool nearlyChain = smallLattice && smallLatticeBuilt.numIdeals() <= 2 * graph.numSuperNodes;
  // (solveChain applies the memory limit to a lattice it is given.)
  const bool reuseLattice =
      smallLattice && (options.maxIdeals == 0 || static_cast<std::uint64_t>(smallLatticeBuilt.numIdeals()) <= options.maxIdeals);
  if (!reuseLattice) smallLatticeBuilt = IdealLattice{};
  std::optional<Placement> seedPlan;
  double seedObjective = kInfinity;
  auto offer = [&](const Workload& w, const ContractedGraph& g, double objective,
                   const std::vector<LatticeDp::Block>& blocks) {
    if (!blocks.empty() && objective < seedObjective) {
      seedPlan = placementOf(w, g, blocks);
      seedObjective = objective;
    }
  };
  // The seeds read only the order's numbering, the sums and the hypergraph:
  // `graph` is already numbered smallest-first.
  for (auto order : {ContractionOptions::Order::SmallestFirst, ContractionOptions::Order::DepthFirst,
                     ContractionOptions::Order::BreadthFirst}) {
    if (smallLattice && order != ContractionOptions::Order::SmallestFirst) break;
    // The first order always gives a plan; the others only while time is left.
    if (order != ContractionOptions::Order::SmallestFirst && pastLimit(deadline, options.interrupt)) break;
    std::optional<ContractedGraph> renumbered;
    if (order != ContractionOptions::Order::SmallestFirst) {
      ContractionOptions numbering;
      numbering.order = order;
      renumbered = contractWorkload(workload, numbering);
    }
    const ContractedGraph& ordered = renumbered ? *renumbered : graph;
    const LinearSeed seed = nearlyChain ? greedyChain(workload, ordered, deadline, options.interrupt)
                                        : orderSeed(workload, ordered, seedObjective, deadline, options.interrupt,
                                                    options.memoryLimitBytes);
    offer(workload, ordered, seed.objective, seed.blocks);
  }
  if (!smallLattice) {
    // Whole chains, then chains cut in two. Only when cheap next to the full
    // DP: on the paper's graphs a larger coarse lattice costs more than it saves.
    for (int pieces : {1, 2}) {
      if (pastLimit(deadline, options.interrupt)) break;
      const std::optional<Workload> coarse = chainCoarsened(workload, graph, pieces);
      if (!coarse) break;
      const ContractedGraph coarseGraph = contractWorkload(*coarse, ContractionOptions{});
      if (coarseGraph.numSuperNodes >= graph.numSuperNodes) continue;
      // Whole chains: at most 2,000 ideals. Chains cut in two: at most an
      // eighth of the full lattice (both counts capped: the full lattice may
      // be far too large to count).
      CountLimits countLimits;
      countLimits.deadline = deadline;
      countLimits.interrupt = options.interrupt;
      const IdealCount coarseIdeals = countIdeals(coarseGraph, pieces == 1 ? 2000 : 1u << 22, countLimits);
      if (coarseIdeals.exceeded || coarseIdeals.stopped) continue;
      if (pieces == 2 && !countIdeals(graph, 8 * coarseIdeals.count, countLimits).exceeded) continue;
      const ChainResult r = solveChain(*coarse, coarseGraph, seedOptions, deadline, seedObjective);
      if (r.kind == ChainResult::Kind::Found) offer(*coarse, coarseGraph, r.objective, r.blocks);
    }
  }
  if (options.progress && seedPlan)
    options.progress("dp: best seed plan: " + formatNumber(seedObjective));

  const IdealLattice* built = reuseLattice ? &smallLatticeBuilt : nullptr;
  ChainResult chain = solveChain(workload, graph, options, deadline, seedObjective, 0, built);
  if (chain.kind == ChainResult::Kind::NoChain && !seedPlan && std::isfinite(seedObjective))
    chain = solveChain(workload, graph, options, deadline, kInfinity, 0, built);  // only rounding could get here

  if (isLimit(chain.kind)) {
    // Whichever limit stopped the DP, the best plan known is returned (exit 4
    // is for a limit that left no plan at all): a good-enough run's plan if
    // one beat the seeds, else the best seed plan.
    const bool runFound = !chain.blocks.empty() && chain.objective < seedObjective;
    if (runFound || seedPlan) {
      outcome.placement = runFound ? placementOf(workload, graph, chain.blocks) : *seedPlan;
      outcome.objective = runFound ? chain.objective : seedObjective;
      outcome.lowerBound = chain.provenLowerBound;
      // A plan that meets the bound proven before the limit is optimal all the same.
      outcome.status = outcome.objective <= outcome.lowerBound * (1 + 1e-9) ? SolveStatus::Optimal
                                                                             : SolveStatus::Feasible;
      outcome.message =
          limitMessage(chain, options) + (runFound ? "; returning the best plan found" : "; returning the best seed plan");
    } else {
      outcome.status = SolveStatus::NoSolution;
      outcome.message = limitMessage(chain, options);
      return outcome;
    }
  } else if (chain.kind == ChainResult::Kind::InternalError) {
    outcome.status = SolveStatus::Error;
    outcome.message = "internal error: the DP could not recover its plan";
    return outcome;
  } else if (chain.kind != ChainResult::Kind::Found && !seedPlan) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = noChainReason(workload);
    return outcome;
  } else {
    // Nothing strictly below the seed's cut (up to rounding): the seed is optimal.
    const bool found = chain.kind == ChainResult::Kind::Found;
    outcome.status = SolveStatus::Optimal;
    outcome.placement = found ? placementOf(workload, graph, chain.blocks) : *seedPlan;
    outcome.objective = found ? chain.objective : seedObjective;
    outcome.lowerBound = outcome.objective;
    outcome.message = "optimal over contiguous placements: " + std::to_string(graph.numSuperNodes) +
                      " super-nodes, " + std::to_string(chain.ideals) + " ideals, " +
                      std::to_string(chain.stats.blocksVisited) + " blocks examined; DP memory: lattice " +
                      std::to_string(chain.latticeBytes) + " bytes + tables " + std::to_string(chain.tableBytes) +
                      " bytes";
    if (graph.zeroWorkLeavesMerged > 0 && chain.stats.memoryRejectedABlock &&
        (graph.zeroWorkLeafBytes > 0 || graph.zeroWorkLeafUnsupported))
      outcome.message += "; note: memory limits excluded some blocks and the zero-work-leaf rule "
                         "merged " + std::to_string(graph.zeroWorkLeavesMerged) +
                         " leaves carrying " + formatBytes(graph.zeroWorkLeafBytes) +
                         " into their neighbours, so a placement splitting them could be better";
  }

  if (options.objective == Objective::Latency && outcome.placement) {
    EvaluateOptions latency;
    latency.objective = Objective::Latency;
    latency.q = options.q;
    const Evaluation evaluation = evaluate(workload, *outcome.placement, latency);
    if (!evaluation.feasible) {
      // Only q can bind here (memory is the DP's own constraint): on a
      // training graph an accelerator runs its forward block, then later its
      // backward twins, as two subgraphs.
      int pieces = 0;
      for (const DeviceReport& device : evaluation.devices) pieces = std::max(pieces, device.pieces);
      SolveOutcome refused;
      refused.status = SolveStatus::InvalidInput;
      refused.message = "its latency mode reports the latency of the max-load-optimal contiguous plan, and in that plan " +
                        evaluation.violations.front() +
                        " (on a training graph: a forward block, then its backward twins): pass --q " +
                        std::to_string(pieces) + ", or use --method greedy or milp for a latency plan with q = " +
                        std::to_string(options.q);
      return refused;
    }
    outcome.message = std::string(outcome.status == SolveStatus::Optimal
                                      ? "latency of the max-load-optimal contiguous plan (max-load "
                                      : "latency of the DP's best contiguous plan so far (max-load ") +
                      formatNumber(outcome.objective) + "), not a latency optimum; " + outcome.message;
    outcome.objective = evaluation.objective;
    outcome.lowerBound = 0;
    outcome.status = SolveStatus::Feasible;
  }
  return outcome;
}

namespace detail {
double linearOrderBound(const Workload& workload) {
  return orderSeed(workload, contractWorkload(workload, ContractionOptions{}), kInfinity).objective;
}
}  // namespace detail

SolveOutcome solveDpLinear(const Workload& workload, const SolveOptions& options) {
  return solveLinearized(workload, options, false);
}

SolveOutcome solvePipedream(const Workload& workload, const SolveOptions& options) {
  return solveLinearized(workload, options, true);
}

}  // namespace dnnplace
