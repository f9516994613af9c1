#pragma once
/// The walk over the sub-ideals of one ideal that the lattice DP relaxes
/// from: BlockWalker keeps the sums of the block between the ideal and the
/// sub-ideal it stands on up to date one super-node at a time.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "dp/device_states.hpp"
#include "dp/ideal_lattice.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace::dp {

/// Starts loading the cache lines of `bytes` (> 0) bytes from `data`.
// Written this way because GCC deleted the loop (no prefetch left) when it
// was a template with an early return, or a loop over offsets: after a
// change here, check `objdump -d dnnplace | grep prefetcht0`.
[[gnu::always_inline]] inline void prefetchLines(const void* data, std::size_t bytes) {
  const auto first = reinterpret_cast<std::uintptr_t>(data) & ~std::uintptr_t{63};
  const auto last = reinterpret_cast<std::uintptr_t>(data) + bytes - 1;
  for (std::uintptr_t line = first; line <= last; line += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(line));
}

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
  /// D's share of the Work sums: accelerator latency of
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
      for (int i = graph_.incidenceStart[parent.element]; i < graph_.incidenceStart[parent.element + 1];
           ++i)
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
      const bool after = inside > 0 && inside < total;
      const bool before = inside - 1 > 0 && inside - 1 < total;
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
    climb(
        ideal, grow, visit, stats, [&](int u) { remove(u); }, [&](int u) { add(u); });
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
  void walkUpFrom(std::int32_t ideal, const Work& whole, const Grow& grow, Visit&& visit,
                  DpStats* stats) {
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
    // walk reads (reusing those two costs measurably more instructions),
    // and with each hyperedge counted when first met.
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
        const bool acceleratorAlive = fits && size + graph_.size[v] <= memory_ &&
                                      fpga + graph_.fpgaLatency[v] < acceleratorLimit;
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

}  // namespace dnnplace::dp
