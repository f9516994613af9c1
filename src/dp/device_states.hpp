#pragma once
/// The DP's device states and the bounds that rule states out (docs/model.md §3–4):
/// per ideal, the work sums every chain through it must pay, and the tests
/// that compare them with the cut. Shared by the lattice DP, the seeds and
/// the chain solver; header-only where the DP's inner loops call it.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "preprocess/contraction.hpp"
#include "util/deadline.hpp"

namespace dnnplace::dp {

using Clock = std::chrono::steady_clock;
constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Bounds are sums in another order than the values they bound: allow rounding.
constexpr double kMargin = 1 - 1e-9;

/// Just above `bound`: a plan whose max-load is `bound`, summed in another
/// order, stays below it despite rounding.
inline double aboveRounding(double bound) { return bound * (1 + 1e-9) + 1e-12; }

/// The DP's device states: (a, c) = at most a accelerators and c CPU cores,
/// stored as s = a * (cpus + 1) + c.
struct DeviceStates {
  int accelerators = 0, cpus = 0;
  /// In 64 bits: up to 2^20 devices of each kind pass validation. The lattice
  /// DP indexes states with an int, so it runs only up to kMaxCount.
  std::int64_t count() const {
    return (static_cast<std::int64_t>(accelerators) + 1) * (static_cast<std::int64_t>(cpus) + 1);
  }
  static constexpr std::int64_t kMaxCount = std::numeric_limits<std::int32_t>::max() / 2;
  int acceleratorStep() const { return cpus + 1; }
  int acceleratorsOf(int s) const { return s / (cpus + 1); }
  int cpusOf(int s) const { return s % (cpus + 1); }
};

/// Makes best[] (one value per state) closed under "leave a device empty":
/// a state's value is at most that of any state with fewer devices.
/// (Nested loops: acceleratorsOf/cpusOf divide.)
inline void closeUnderUnusedDevices(DeviceStates states, double* best) {
  const int step = states.acceleratorStep();
  for (int c = 1; c <= states.cpus; ++c) best[c] = std::min(best[c], best[c - 1]);
  for (std::int64_t s = step; s < states.count(); s += step) {
    best[s] = std::min(best[s], best[s - step]);
    for (int c = 1; c <= states.cpus; ++c)
      best[s + c] = std::min({best[s + c], best[s + c - step], best[s + c - 1]});
  }
}

/// Per ideal, sums that bound any chain from below: accelerator work of
/// the super-nodes that fit an accelerator, CPU work of those that do not
/// (and how many), and all CPU work; all accelerator latency, and the
/// weight of the hyperedges crossing the ideal's boundary.
struct Work {
  double acceleratorFit = 0, forcedCpu = 0, cpu = 0;
  std::int32_t notOnAccelerator = 0;
  double fpga = 0, crossing = 0;
};

/// What a DP run counted, for messages.
struct DpStats {
  std::uint64_t blocksVisited = 0;
  bool memoryRejectedABlock = false;  ///< memory, not compute, excluded some accelerator block
};

/// A lower bound on the max-load L of `a` accelerators and `c` CPU cores
/// covering work `w` (infinite if they cannot). `ratio` is the largest
/// accelerator/CPU latency ratio of a super-node. Mixed case: moving CPU
/// work X off the accelerators saves at most ratio·X accelerator work, so
/// a·L ≥ acceleratorFit − ratio·(c·L − forcedCpu).
inline double workBoundOf(const Work& w, int a, int c, double ratio) {
  if (a + c == 0) return w.acceleratorFit == 0 && w.cpu == 0 && w.notOnAccelerator == 0 ? 0 : kInfinity;
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
double cpuAbsorbable(const ContractedGraph& graph, int cores, double maxLoad);

/// The largest accelerator/CPU latency ratio of a super-node with accelerator work.
double latencyRatio(const ContractedGraph& graph);

/// Bounds on the max-load of any chain: every super-node needs some device
/// (lower; also the work bound of all devices), and no block can exceed all
/// accelerator work plus all communication, or all CPU work (upper).
struct ChainBounds {
  double lower = 0, upper = 0;
};
ChainBounds chainBounds(const ContractedGraph& graph, DeviceStates states, double memoryPerAccelerator);

/// The tests of one DP run (one cut) that rule a state out at an ideal from
/// the ideal's Work: the ideal itself must fit the state's devices below
/// the cut (prefix), and the rest of the graph the devices the state
/// leaves (future).
class StateBounds {
 public:
  StateBounds() = default;
  /// `all`: the Work of the whole graph; `absorbable[c]`: cpuAbsorbable(c, cut).
  StateBounds(DeviceStates states, double cut, double ratio, const Work& all,
              std::vector<double> absorbable)
      : states_(states), cut_(cut), ratio_(ratio), all_(all), absorbable_(std::move(absorbable)) {}

  double workBound(const Work& w, int a, int c) const { return workBoundOf(w, a, c, ratio_); }

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

  /// Whether the rest of the graph (outside an ideal with Work `here`) fits
  /// the devices that state s leaves. Monotone: false for an ideal stays
  /// false for its sub-ideals.
  bool futureAlive(const Work& here, int s) const {
    return workBound(restOf(here), states_.accelerators - states_.acceleratorsOf(s),
                     states_.cpus - states_.cpusOf(s)) *
               kMargin <
           cut_;
  }
  /// The work sums outside an ideal (clamped at 0: differences of running sums).
  Work restOf(const Work& here) const {
    Work rest;
    rest.acceleratorFit = std::max(0.0, all_.acceleratorFit - here.acceleratorFit);
    rest.forcedCpu = std::max(0.0, all_.forcedCpu - here.forcedCpu);
    rest.cpu = std::max(0.0, all_.cpu - here.cpu);
    rest.notOnAccelerator = all_.notOnAccelerator - here.notOnAccelerator;
    rest.fpga = all_.fpga - here.fpga;
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

  /// Whether state s at an ideal with Work `here` can lie on a chain below the cut.
  bool prefixAlive(const Work& here, int s) const {
    const int a = states_.acceleratorsOf(s), c = states_.cpusOf(s);
    return workBound(here, a, c) * kMargin < cut_ && communicationAlive(here.fpga, here.crossing, a, c);
  }
  /// Whether the rest of the graph, which pays the ideal's crossing
  /// hyperedges too, fits the devices state s leaves (not monotone).
  bool restPaysCrossingAlive(const Work& here, int s) const {
    const double restFpga = all_.fpga - here.fpga;
    return communicationAlive(restFpga, here.crossing, states_.accelerators - states_.acceleratorsOf(s),
                              states_.cpus - states_.cpusOf(s));
  }
  /// A lower bound on the largest load of the blocks after I, for a chain
  /// through state s at I whose blocks all stay below the cut: the work and
  /// the communication bounds of futureAlive and restPaysCrossingAlive, as
  /// numbers.
  double restBound(const Work& here, int s) const {
    const Work rest = restOf(here);
    const int a = states_.accelerators - states_.acceleratorsOf(s),
              c = states_.cpus - states_.cpusOf(s);
    double bound = workBound(rest, a, c);
    if (a > 0) bound = std::max(bound, communicationExcess(rest.fpga, here.crossing, c) / a);
    return bound * kMargin;
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
    int fMaxNot;   ///< D may hold at most this many CPU-only super-nodes (-1: the state is dead)
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

  /// The tests for live state s of an ideal with work `whole`, when the block takes device `step` (1 or
  /// the accelerator step).
  StateTest stateTest(int s, int step, const Work& whole) const {
    StateTest t{};
    t.state = s;
    const int sub = s - step;
    // The rest outside I: all − I (clamped at 0 like futureAlive); rest of J = that + D.
    const double restFit = std::max(0.0, all_.acceleratorFit - whole.acceleratorFit);
    const double restForced = std::max(0.0, all_.forcedCpu - whole.forcedCpu);
    const double restCpu = std::max(0.0, all_.cpu - whole.cpu);
    const int restNot = all_.notOnAccelerator - whole.notOnAccelerator;
    const LinearBound future = linearBound(states_.accelerators - states_.acceleratorsOf(sub),
                                           states_.cpus - states_.cpusOf(sub));
    t.fAlways = future.never;
    t.fFit = future.fit;
    t.fForced = future.forced;
    t.fCpu = future.cpu;
    t.fLimit = future.firstLimit -
               (future.fit * restFit + future.forced * restForced + future.cpu * restCpu);
    t.fSecondFit = future.secondFit;
    t.fSecondForced = future.secondForced;
    t.fSecondLimit = future.secondLimit -
                     (future.secondFit * restFit + future.secondForced * restForced);
    t.fMaxNot = future.noForced ? (restNot > 0 ? -1 : 0) : std::numeric_limits<int>::max();
    // J = I − D: coefficient·(I − D) < limit  ⇔  coefficient·D > coefficient·I − limit.
    const LinearBound prefix = linearBound(states_.acceleratorsOf(sub), states_.cpusOf(sub));
    t.pNever = prefix.never;
    t.pFit = prefix.fit;
    t.pForced = prefix.forced;
    t.pCpu = prefix.cpu;
    t.pLimit = prefix.fit * whole.acceleratorFit + prefix.forced * whole.forcedCpu +
               prefix.cpu * whole.cpu - prefix.firstLimit;
    t.pSecondFit = prefix.secondFit;
    t.pSecondForced = prefix.secondForced;
    t.pSecondLimit = prefix.secondFit * whole.acceleratorFit + prefix.secondForced * whole.forcedCpu -
                     prefix.secondLimit;
    t.pNeedNot = prefix.noForced ? whole.notOnAccelerator : -1;
    return t;
  }

 private:
  DeviceStates states_;
  double cut_ = 0, ratio_ = 0;
  Work all_;
  std::vector<double> absorbable_;
};

}  // namespace dnnplace::dp
