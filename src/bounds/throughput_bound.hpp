#pragma once
/// Lower bounds on the optimal max-load of every placement, contiguous or not
/// (docs/model.md §3; why each is valid: docs/bounds.md). They bound the
/// diffmaxima objective too: max FW + max BW ≥ max (FW + BW) = max-load.
///
/// 1. Work: each class runs whole on an accelerator (its accelerator latency)
///    or a CPU core (its CPU latency), the largest class is at least that
///    alone, and the accelerators (kT) and cores (ℓT) together absorb all
///    the work, the cheapest way round (a fractional knapsack), and what
///    the accelerators' memory (k · maxSizePerFPGA) leaves to the cores (a
///    second knapsack, most CPU time per byte kept); and whole
///    classes pack: an accelerator holds at most j classes of latency above
///    T / (j + 1), counted over the classes no CPU core can take.
/// 1b. Work with boundaries: when the accelerators must hold nearly all the
///    work (more than k − 1 of them can take at T), every accelerator's block
///    holds one of the heaviest classes and misses others, so it pays at
///    least a minimum cut of the class hypergraph between them, and holds
///    that much less work.
/// 1c. Counting: n classes of latency ≥ θ, and L_j the least load of a
///    class set holding j of them (a branch and bound over minimum cuts).
///    Below L_j an accelerator holds at most j − 1 of them (a core: a
///    fractional knapsack's floor), so when k(j − 1) + ℓ·U_core < n no
///    placement reaches T < L_j: whole classes and the communication around
///    them do not pack.
/// 2. Representatives LP at a guessed max-load T: a placement with max-load
///    ≤ T is a partition of the classes into at most k accelerator blocks,
///    each named by its first class in a topological order of the classes
///    (its representative r), and CPU cores. Every block pays the
///    communication of every dependency it holds only part of. Pairs (r, c)
///    whose cheapest block (a minimum cut: c and r inside, the classes
///    before r outside) already costs more than T are ruled out. If the LP
///    relaxation of that partition needs more than k blocks, or has no
///    solution, no placement reaches T: T is a bound. A bisection on T finds
///    the largest T so proven. Identical accelerators thus have no
///    symmetric fractional solutions, and the blocks near the middle of a
///    long graph, which pay for what enters and what leaves them, hold little
///    work: on communication-bound graphs this is far above the work bound.
/// 3. Covering MILP: bound 2's relaxation with integer blocks (a class is in
///    one block whole), run on CBC as a decision at T with the time left;
///    T is proven when CBC proves it infeasible. It sees bin packing: on
///    layer graphs with little communication, whole layers do not split.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>

#include "dnnplace/workload.hpp"
#include "objective/class_totals.hpp"

namespace dnnplace::bounds {

struct ThroughputBound {
  double work = 0;              ///< bound 1
  double boundary = 0;          ///< bound 1b (0 when it proves nothing above bound 1)
  double boundaryCut = 0;       ///< bound 1b: what every accelerator pays at least
  double boundaryTotal = 0;     ///< bound 1b: what all k accelerators pay together at least
  double counting = 0;          ///< bound 1c (0 when it proves nothing above bounds 1 and 1b)
  std::string countingClasses;  ///< bound 1c: the classes counted, and how many fit an accelerator
  double representatives = 0;   ///< bound 2 (0 when not computed)
  double milp = 0;              ///< bound 3: bound 2's covering as a MILP (0 when not proven)
  int probes = 0;               ///< values of T the LP was solved for
  int milpProbes = 0;           ///< values of T the MILP was run for
  int pairsRuledOut = 0;        ///< (representative, class) pairs the minimum cuts excluded
  long long countingCuts = 0;   ///< bound 1c: the minimum cuts its branch and bounds took
  int countingExhausted = 0;    ///< bound 1c: branch and bounds that ran out of their node budget
  bool countingStopped =
      false;  ///< the deadline (its half of the time left) or the interrupt cut bound 1c short
  bool lpStopped = false;  ///< the deadline or the interrupt cut bound 1b, 2 or 3 short
  bool stopped = false;    ///< any of them was cut short (countingStopped or lpStopped)
  bool skipped = false;    ///< too many classes (or too little memory) for bounds 2 and 3
  double value() const { return std::max({work, boundary, counting, representatives, milp}); }
  /// Which bound gave value(): "work", "work with boundaries", "representatives LP" or
  /// "covering MILP".
  const char* winner() const {
    const double first = std::max({work, boundary, counting});
    return milp > std::max(first, representatives) ? "covering MILP"
           : representatives > first               ? "representatives LP"
           : counting > std::max(work, boundary)   ? "counting"
           : boundary > work                       ? "work with boundaries"
                                                   : "work";
  }
  /// One line for a solve's message: the bounds, the probes, what stopped them.
  std::string describe() const;
};

/// Bound 1c's limits. The defaults are the shipped ones; tests force its
/// early exits with small ones.
struct CountingLimits {
  long long nodes = 10000;  ///< minimum cuts one threshold's branch and bound may take
  /// Act as if the deadline had passed after this many minimum cuts (−1: never).
  long long stopAfter = -1;
};

/// Bound 1 alone (cheap: linear in the classes after a sort).
double workBound(const Workload& workload, const objective::ClassTotals& totals);

/// All three bounds. `upperBound` is a known max-load (a plan's; ∞ if none): the
/// bisection searches below it. Bound 2 stops at `deadline` or on
/// `interrupt` with the best T proven so far.
/// `withMilp`: run bound 3 too (milp leaves it out: its own CBC run sees
/// integrality, and gets the time instead). Bounds 2 and 3 take memory
/// quadratic in the classes: they are skipped past 1,500 classes or when
/// they would need more than half of `memoryBytes` (0: no limit).
ThroughputBound throughputBound(const Workload& workload, const objective::ClassTotals& totals,
                                double upperBound, std::chrono::steady_clock::time_point deadline,
                                const std::atomic<bool>* interrupt = nullptr, bool withMilp = true,
                                double memoryBytes = 0, const CountingLimits& counting = {});

}  // namespace dnnplace::bounds
