// dp, dp-linear and pipedream with --replicate (docs/model.md §9): the DP over
// the ideals of the contracted graph where an accelerator block D may run on
// r identical accelerators, load(D, r) = (load(D) + sync(D, r)) / r.
//
// The DP beside the bounded one of lattice_dp.cpp: for every ideal I (in id
// order, so sub-ideals come first) the blocks D = I ∖ J are walked by
// BlockWalker (D's compute, communication and memory kept up to date). A
// block on r replicas may carry r times a state's best, so a walk bounded
// by compute alone meets nearly every pair of nested ideals; three bounds
// keep it near the pure DP's (docs/benchmarks.md, "Replication speed"):
//  - per replica count, the all-reduce: load(D, r) ≥ (fpga + committed
//    communication + syncPerByte(r) · weights(D)) / r, every term growing
//    with D, and a block on r replicas serves only states of at least r
//    accelerators (Scratch::replicaLimit);
//  - only live states are served: I's devices can cover I and those left
//    the rest (the pure DP's work bounds, which replicas cannot beat);
//  - value(I, s) ≥ value(I ∖ v, s) − removalIncrease(v) for every maximal
//    element v of I kills a state or makes it final;
//  - a state without CPU cores puts its last block on all its a
//    accelerators only from the empty sub-ideal: that block (D = I) is met
//    from the ideal's own sums (wholeIdeal), not at the end of a walk
//    through nearly every block of I;
// and the search is for a chain below the best known plan (dp-linear
// --replicate's or the pure pipeline's): when there is none, that plan is
// the optimum. As in the pure DP, a state stops once its best is within a
// few percent of that plan (goodEnough): a run then either proves the plan
// optimal, returns the optimum (a chain above goodEnough), or finds a
// better plan for the next round to look below (the value (I ∖ v, s) of
// the third bound is then read only where it is exact). Backtracking walks
// the same blocks again: their sums follow each block's canonical path, so
// they are the very numbers the DP compared.

#include "dp/replicated.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "baselines/replicas.hpp"
#include "dp/block_walker.hpp"
#include "dp/chain.hpp"
#include "dp/device_states.hpp"
#include "dp/dp.hpp"
#include "dp/exact_sums.hpp"
#include "dp/ideal_lattice.hpp"
#include "dp/messages.hpp"
#include "dp/wavefront.hpp"
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace::dp {

namespace {

class ReplicatedDp {
 public:
  ReplicatedDp(const Workload& workload, const ContractedGraph& graph, const IdealLattice& lattice,
               DeviceStates states, double cut, double goodEnough)
      : graph_(graph),
        lattice_(lattice),
        states_(states),
        machine_(workload.machine),
        cut_(cut),
        goodEnough_(goodEnough),
        stride_(static_cast<std::size_t>(states.count())),
        values_(static_cast<std::size_t>(lattice.numIdeals()) * stride_, kInfinity),
        parameters_(graph.numSuperNodes, 0) {
    // The weights a super-node's replicas all-reduce: its members'.
    for (int v = 0; v < graph.numSuperNodes; ++v)
      for (int i = graph.memberStart[v]; i < graph.memberStart[v + 1]; ++i)
        parameters_[v] += workload.graph().nodes[graph.members[i]].parameterSize;
    // On a binary grid, as exact_sums.hpp puts the latencies: each weight
    // rounded down to a multiple of 2^(e − 53), 2^e above their total, so
    // that every sum of them is exact in any order (a whole ideal's weights
    // are summed along its canonical parents, the backtrack's along its walk)
    // and at most the true one.
    double total = 0;
    for (double w : parameters_) total += w;
    if (total > 0 && std::isfinite(total)) {
      int exponent = 0;
      std::frexp(total, &exponent);
      const double grid = std::ldexp(1.0, exponent - 53);
      for (double& w : parameters_) w = std::floor(w / grid) * grid;
    }
  }

  /// Fills the table; false when the deadline or the interrupt stopped it.
  /// With several threads the ideals go to the pool of the pure DP
  /// (wavefront.hpp): an ideal reads only its sub-ideals' values, each
  /// awaited until its thread has finished it.
  bool run(const DpLimits& limits, int threads, std::uint64_t* blocks) {
    {
      BlockWalker walker(graph_, lattice_, acceleratorMemory(graph_, machine_),
                         states_.accelerators > 0, states_.cpus > 0, false);
      computeWork(walker);
    }
    std::fill_n(values_.begin(), stride_, 0.0);  // the empty ideal
    Wavefront wavefront(lattice_.numIdeals(), threads);
    threads = wavefront.threads();
    std::vector<BlockWalker> walkers;
    for (int t = 0; t < threads; ++t)
      walkers.emplace_back(graph_, lattice_, acceleratorMemory(graph_, machine_),
                           states_.accelerators > 0, states_.cpus > 0, false);
    std::vector<Scratch> scratch(threads);
    for (Scratch& own : scratch) {
      own.replicaLoads.assign(states_.accelerators + 1, 0.0);
      own.replicaLimit.assign(states_.accelerators + 1, 0.0);
    }
    const auto attached = pool_.attach(wavefront);
    const DpRun result =
        wavefront.run(limits, [&](int t, std::int32_t ideal) { relax(ideal, walkers[t], scratch[t]); });
    for (const Scratch& own : scratch) *blocks += own.blocks;
    return result == DpRun::Complete;
  }

  double optimum() const { return value(lattice_.fullIdeal(), static_cast<int>(stride_) - 1); }

  /// The chain of blocks (last first) whose max-load is the optimum.
  bool backtrack(std::vector<Block>* blocks) const {
    const double target = optimum();
    BlockWalker walker(graph_, lattice_, acceleratorMemory(graph_, machine_), states_.accelerators > 0,
                       states_.cpus > 0, false);
    const int step = states_.acceleratorStep();
    std::int32_t ideal = lattice_.fullIdeal();
    int state = static_cast<int>(stride_) - 1;
    std::vector<double> parameters(1, 0.0);
    std::vector<double> replicaLoads(states_.accelerators + 1, 0.0);
    while (ideal != lattice_.emptyIdeal()) {
      const int a = states_.acceleratorsOf(state), c = states_.cpusOf(state);
      Block block;
      std::int32_t next = -1;
      int nextState = state;
      walker.walk(
          ideal,
          [&](double* accelerator, double* cpu) { limits(a * target, target, accelerator, cpu); },
          [](std::int32_t) { return true; },
          [&](std::int32_t sub, const std::vector<std::int32_t>& path) {
            const double weights = pathParameters(path, &parameters);
            const double* previous = valuesOf(sub);
            if (a > 0 && walker.acceleratorFits()) {
              fillReplicaLoads(walker.acceleratorLoad(), weights, a, &replicaLoads);
              for (int r = 1; r <= a; ++r)
                if (std::max(previous[state - r * step], replicaLoads[r]) <= target) {
                  block.accelerator = true;
                  block.replicas = r;
                  nextState = state - r * step;
                }
            }
            if (nextState == state && c > 0 && std::max(previous[state - 1], walker.cpu) <= target) {
              block.accelerator = false;
              nextState = state - 1;
            }
            if (nextState == state) return true;
            block.superNodes = path;
            next = sub;
            return false;
          },
          nullptr);
      if (next < 0) return false;
      blocks->push_back(std::move(block));
      ideal = next;
      state = nextState;
    }
    return true;
  }

 private:
  double value(std::int32_t ideal, int state) const {
    return values_[static_cast<std::size_t>(ideal) * stride_ + state];
  }
  const double* valuesOf(std::int32_t ideal) const {
    return &values_[static_cast<std::size_t>(ideal) * stride_];
  }
  double* valuesOf(std::int32_t ideal) { return &values_[static_cast<std::size_t>(ideal) * stride_]; }

  /// The backtrack's thresholds: load(D, r) ≥ load(D) / r, so an
  /// accelerator block of load `acceleratorWork` (a accelerators times the
  /// target) or a CPU block of load `cpuBest` or more serves no chain.
  void limits(double acceleratorWork, double cpuBest, double* accelerator, double* cpu) const {
    *accelerator = aboveRounding(acceleratorWork);
    *cpu = aboveRounding(cpuBest);
  }

  /// The weights of the walk's block, kept per depth of its path (the walk
  /// calls visit right after adding the path's last super-node).
  double pathParameters(const std::vector<std::int32_t>& path, std::vector<double>* sums) const {
    if (sums->size() <= path.size()) sums->resize(path.size() + 1, 0.0);
    (*sums)[path.size()] = (*sums)[path.size() - 1] + parameters_[path.back()];
    return (*sums)[path.size()];
  }

  /// (*loads)[r] = load(D, r) for r = 1..upTo.
  void fillReplicaLoads(double load, double weights, int upTo, std::vector<double>* loads) const {
    for (int r = 1; r <= upTo; ++r) (*loads)[r] = objective::replicatedLoad(load, weights, r, machine_);
  }

  /// What one thread's relax keeps between its steps (one per thread).
  struct alignas(64) Scratch {
    std::vector<int> live;      ///< the relaxed ideal's live states that are not final
    std::vector<double> lower;  ///< per state of the relaxed ideal: a lower bound
    /// per state: the least load of a block met with an inexact sub-ideal value below the cut
    std::vector<double> minInexact;
    std::vector<char> dead, alive;
    std::vector<double> replicaLimit;  ///< per r: r · the largest best a block on r replicas may beat
    std::vector<double> replicaLoads;  ///< per r: load(D, r) of the block visited
    std::vector<double> pathSums;
    int replicas = 0;  ///< the most accelerators of an open state
    int openStates = 0;
    double acceleratorWork = 0, cpuLimit = 0;
    std::uint64_t blocks = 0;
  };

  /// Per ideal its Work sums (device_states.hpp) and its weights, from its
  /// canonical parent's; then the state bounds of the cap.
  void computeWork(BlockWalker& walker) {
    const std::size_t n = static_cast<std::size_t>(lattice_.numIdeals());
    work_.assign(n, Work{});
    weights_.assign(n, 0.0);
    sizes_.assign(n, 0.0);
    aliveOf_.assign(n * stride_, 0);
    std::fill_n(aliveOf_.begin(), stride_, 1);
    exact_.assign(n * stride_, 1);  // the empty ideal's values are exact (0)
    const double memory = acceleratorMemory(graph_, machine_);
    for (std::int32_t ideal = 1; ideal < lattice_.numIdeals(); ++ideal) {
      const IdealLattice::Link parent = lattice_.links(ideal).back();
      const int v = parent.element;
      Work w = work_[parent.target];
      const bool fits = graph_.supportedOnFpga[v] && graph_.size[v] <= memory;
      (fits ? w.acceleratorFit : w.forcedCpu) += fits ? graph_.fpgaLatency[v] : graph_.cpuLatency[v];
      w.notOnAccelerator += fits ? 0 : 1;
      w.cpu += graph_.cpuLatency[v];
      w.fpga += graph_.fpgaLatency[v];
      walker.mark(ideal);
      w.crossing += walker.crossingChange(v);
      work_[ideal] = w;
      sizes_[ideal] = sizes_[parent.target] + graph_.size[v];
      weights_[ideal] = weights_[parent.target] + parameters_[v];
    }
    std::vector<double> absorbable(states_.cpus + 1);
    for (int c = 0; c <= states_.cpus; ++c) absorbable[c] = cpuAbsorbable(graph_, c, cut_);
    bounds_ = StateBounds(states_, cut_, latencyRatio(graph_), work_[lattice_.fullIdeal()],
                          std::move(absorbable));
    syncPerByte_.assign(states_.accelerators + 1, 0.0);
    for (int r = 2; r <= states_.accelerators; ++r)
      syncPerByte_[r] = objective::replicatedLoad(0, 1, r, machine_) * r;
  }

  /// The states of an ideal I the walk must serve. Live: I's devices can
  /// cover I and those left the rest below the cut (load(D, r) ≥ load(D)/r,
  /// so r replicas below the cut take at most r times it, as r accelerators
  /// would, and the pure DP's work bounds hold). The work bound of a union
  /// is at most the larger of its parts', so the state before the last block
  /// of a chain below the cap to a live state is live too: by induction a
  /// live state's value is its true value whenever that is at most the cap.
  /// Then for a maximal element v of I, value(I, s) ≥ value(I ∖ v, s) −
  /// removalIncrease(v) (the chain restricted to I ∖ v: only v's block
  /// changes, and (load + increase + sync)/r ≤ load(D, r) + increase), so a
  /// state is dead when that exceeds the cap, and final once its best
  /// reaches it.
  void liveStates(std::int32_t ideal, BlockWalker& walker, const double* best, Scratch& own) {
    own.live.clear();
    own.minInexact.assign(stride_, kInfinity);
    const Work& here = work_[ideal];
    const int numStates = static_cast<int>(stride_);
    own.lower.assign(numStates, 0.0);
    own.dead.assign(numStates, 0);
    own.alive.assign(numStates, 0);
    for (int s = 1; s < numStates; ++s)
      own.alive[s] = bounds_.prefixAlive(here, s) && bounds_.futureAlive(here, s) ? 1 : 0;
    walker.mark(ideal);
    for (const IdealLattice::Link& link : lattice_.links(ideal)) {
      const double increase = walker.removalIncrease(link.element);
      pool_.await(link.target);
      const double* sub = valuesOf(link.target);
      const char* subAlive = &aliveOf_[static_cast<std::size_t>(link.target) * stride_];
      const char* subExact = &exact_[static_cast<std::size_t>(link.target) * stride_];
      for (int s = 1; s < numStates; ++s) {
        if (!own.alive[s] || !subAlive[s]) continue;
        if (!(sub[s] < cut_)) {  // its true value is at least the cut (even when inexact)
          if (increase == 0) own.dead[s] = 1;
          continue;
        }
        if (!subExact[s]) continue;  // may be above the true value: no bound from it
        own.lower[s] = std::max(own.lower[s], increase > 0 ? (sub[s] - increase) * kMargin : sub[s]);
      }
    }
    char* mine = &aliveOf_[static_cast<std::size_t>(ideal) * stride_];
    for (int s = 1; s < numStates; ++s) {
      mine[s] = own.alive[s];
      if (own.alive[s] && !own.dead[s] && own.lower[s] < cut_ && open(s, best, own))
        own.live.push_back(s);
    }
  }

  /// Whether a state of the relaxed ideal still needs blocks.
  bool open(int s, const double* best, const Scratch& own) const {
    return best[s] > std::max(own.lower[s], goodEnough_);
  }

  /// The walk's limits from the live states' best values (capped): a block
  /// on r replicas serves only states of at least r accelerators, and
  /// load(D, r) ≥ (fpga + committed + syncPerByte_[r] · weights) / r, each
  /// term growing with D; CPU blocks below the worst best of a state with a core.
  void updateLimits(const double* best, Scratch& own) const {
    own.replicas = 0;
    std::fill(own.replicaLimit.begin(), own.replicaLimit.end(), 0.0);
    own.cpuLimit = 0;
    own.openStates = 0;
    for (int s : own.live) {
      if (!open(s, best, own)) continue;
      ++own.openStates;
      const int a = states_.acceleratorsOf(s);
      const double b = std::min(best[s], cut_);
      // Without cores, r = a leaves only the empty sub-ideal: wholeIdeal's block.
      const int most = states_.cpusOf(s) == 0 ? a - 1 : a;
      for (int r = 1; r <= most; ++r) own.replicaLimit[r] = std::max(own.replicaLimit[r], b);
      own.replicas = std::max(own.replicas, a);
      if (states_.cpusOf(s) > 0) own.cpuLimit = std::max(own.cpuLimit, b);
    }
    own.acceleratorWork = 0;
    for (int r = 1; r <= own.replicas; ++r) {
      own.replicaLimit[r] *= r;
      own.acceleratorWork = std::max(own.acceleratorWork, own.replicaLimit[r]);
    }
    if (states_.cpus == 0) own.cpuLimit = -1;
  }

  /// Whether a block the walk just reached (sub-ideal `sub` of `ideal`) or a
  /// larger one may still improve a live state.
  bool blockAlive(const BlockWalker& walker, std::int32_t ideal, std::int32_t sub,
                  const Scratch& own) const {
    if (walker.cpu < own.cpuLimit) return true;
    if (!walker.acceleratorFits()) return false;  // memory and support only get worse
    const double load = (walker.fpga + walker.committed) * kMargin;
    // D's weights as a difference of running sums: less the rounding.
    const double weights = std::max(0.0, weights_[ideal] - weights_[sub] - 1e-9 * weights_[ideal]);
    for (int r = 1; r <= own.replicas; ++r)
      if (load + syncPerByte_[r] * weights * kMargin < own.replicaLimit[r]) return true;
    return false;
  }

  /// The block D = I on all of a state's a accelerators, for the states
  /// without CPU cores (their sub-state (0, 0) holds the empty ideal only):
  /// one block, whose sums the ideal's own are, where the walk would reach
  /// it through nearly every block of I.
  void wholeIdeal(std::int32_t ideal, double* best, Scratch& own) const {
    const Work& here = work_[ideal];
    if (states_.accelerators == 0 || here.notOnAccelerator > 0 ||
        !(sizes_[ideal] <= acceleratorMemory(graph_, machine_)))
      return;
    ++own.blocks;
    const double load = here.fpga + here.crossing;
    bool improved = false;
    for (int s : own.live) {
      const int a = states_.acceleratorsOf(s);
      if (a == 0 || states_.cpusOf(s) > 0 || !open(s, best, own)) continue;
      const double candidate = objective::replicatedLoad(load, weights_[ideal], a, machine_);
      if (candidate < best[s] && candidate < cut_) {
        best[s] = candidate;
        improved = true;
      }
    }
    if (improved) closeUnderUnusedDevices(states_, best);
  }

  void relax(std::int32_t ideal, BlockWalker& walker, Scratch& own) {
    double* best = valuesOf(ideal);
    liveStates(ideal, walker, best, own);
    if (own.live.empty()) {
      closeUnderUnusedDevices(states_, best);
      return;
    }
    const int step = states_.acceleratorStep();
    wholeIdeal(ideal, best, own);
    updateLimits(best, own);
    std::vector<double>& parameters = own.pathSums;
    parameters.assign(1, 0.0);
    walker.walk(
        ideal,
        [&](double* accelerator, double* cpu) {
          *accelerator = own.acceleratorWork;
          *cpu = own.cpuLimit;
        },
        [&](std::int32_t sub) { return blockAlive(walker, ideal, sub, own); },
        [&](std::int32_t sub, const std::vector<std::int32_t>& path) {
          ++own.blocks;
          const double weights = pathParameters(path, &parameters);
          pool_.await(sub);
          const double* previous = valuesOf(sub);
          const char* exact = &exact_[static_cast<std::size_t>(sub) * stride_];
          bool improved = false;
          if (walker.acceleratorFits()) {
            const double load = walker.acceleratorLoad();
            fillReplicaLoads(load, weights, own.replicas, &own.replicaLoads);
            for (int s : own.live) {
              // Open states have at most own.replicas accelerators (final ones cannot improve).
              const int a = states_.acceleratorsOf(s);
              if (a == 0 || !open(s, best, own)) continue;
              const double start = std::min(best[s], cut_);
              double b = start;
              // load(D, r) ≥ load(D) / r: fewer than load(D) / b replicas
              // cannot beat b (and a state's a cannot reach that many);
              // previous[] only falls as devices are added: once the
              // sub-ideal alone reaches b, more replicas cannot help.
              const double fewest = std::floor(load / b);
              if (!(fewest < a)) continue;
              for (int r = std::max(1, static_cast<int>(fewest)); r <= a; ++r) {
                const double before = previous[s - r * step];
                // An inexact value (below the cut) may be above the true
                // one: the state's best is exact only if this block could
                // not have beaten it.
                const bool inexact = !exact[s - r * step] && before < cut_;
                if (inexact) own.minInexact[s] = std::min(own.minInexact[s], own.replicaLoads[r]);
                if (before >= b) {
                  if (inexact) continue;
                  break;
                }
                b = std::min(b, std::max(before, own.replicaLoads[r]));
              }
              if (b < start) {
                best[s] = b;
                improved = true;
              }
            }
          }
          if (states_.cpus > 0) {
            const double load = walker.cpu;
            for (int s : own.live) {
              if (states_.cpusOf(s) == 0 || !open(s, best, own)) continue;
              if (!exact[s - 1] && previous[s - 1] < cut_)
                own.minInexact[s] = std::min(own.minInexact[s], load);
              const double candidate = std::max(previous[s - 1], load);
              if (candidate < best[s] && candidate < cut_) {
                best[s] = candidate;
                improved = true;
              }
            }
          }
          if (improved) updateLimits(best, own);
          return own.openStates > 0;
        },
        nullptr);
    closeUnderUnusedDevices(states_, best);
    markExact(ideal, best, own);
  }

  /// Which values of the relaxed ideal are exact (their true value): at
  /// least the cut (no chain below it), at their lower bound, or walked to
  /// the end (above goodEnough) without an inexact sub-ideal value that
  /// could have beaten them; and, as a state takes the best of those with
  /// fewer devices, only if those are exact too. A state closed at
  /// goodEnough is not: only its bound (3) is lost, as the stored values
  /// stay those of real chains and at most max(true value, goodEnough).
  void markExact(std::int32_t ideal, const double* best, const Scratch& own) {
    char* exact = &exact_[static_cast<std::size_t>(ideal) * stride_];
    for (int s : own.live) {
      const double v = best[s];
      exact[s] = !(v < cut_) || v <= own.lower[s] || (v > goodEnough_ && own.minInexact[s] >= v) ? 1
                                                                                                 : 0;
    }
    const int step = states_.acceleratorStep();
    for (int s = 1; s < static_cast<int>(stride_); ++s) {
      if (!(best[s] < cut_)) continue;
      if (s >= step && !exact[s - step]) exact[s] = 0;
      if (states_.cpusOf(s) > 0 && !exact[s - 1]) exact[s] = 0;
    }
  }

  const ContractedGraph& graph_;
  const IdealLattice& lattice_;
  DeviceStates states_;
  const Machine& machine_;
  double cut_;  ///< only values below it are kept (just below a known plan's max-load)
  /// A state stops once its best is at most this (its value may then be
  /// above its true one: markExact); 0 would walk every state to its optimum.
  double goodEnough_;
  std::size_t stride_;
  std::vector<double> values_;
  std::vector<double> parameters_;   ///< per super-node
  std::vector<Work> work_;           ///< per ideal
  std::vector<double> weights_;      ///< per ideal: Σ parameterSize
  std::vector<double> sizes_;        ///< per ideal: Σ size (on the DP's grid: exact)
  std::vector<double> syncPerByte_;  ///< per r: sync(D, r) per byte of D's weights
  StateBounds bounds_;
  std::vector<char> aliveOf_;  ///< per ideal and state: live (prefix and future bounds)
  std::vector<char> exact_;    ///< per ideal and state: the value is the true one (see markExact)
  WavefrontReader pool_;       ///< attached while a run's threads share the lattice
};

}  // namespace

namespace {

/// `known`: the pure pipeline's outcome when the caller has it (the exact
/// DP's chain along one order starts from the pure DP's plan rather than
/// solving the pure chain again).
SolveOutcome replicatedParts(const Workload& workload, const SolveOptions& options, const char* method,
                             ContractionOptions contraction, bool exact, SolverFunction pure,
                             const SolveOutcome* known = nullptr) {
  SolveOutcome outcome;
  const std::string name = method;
  if (auto refused = baseline::replicationRefusal(workload, options)) return *refused;
  // One time limit for all the parts: the pure pipeline gets at most half of
  // it (a lattice it cannot finish, the DP with replicas cannot either), the
  // chain along one order and the DP with replicas what is left. (Each part
  // once counted the whole limit from its own start: 3 s became 6.3 s.)
  const auto deadline = deadlineOf(options);
  // The pure pipeline first: replication keeps every plan it has, so its
  // plan bounds the search (and without one there is none here either).
  SolveOptions pureOptions = optionsUntil(options, deadline, 0.5);
  pureOptions.replicate = false;
  SolveOutcome pipeline = known ? *known : pure(workload, pureOptions);
  if (!pipeline.ok() || !pipeline.placement || workload.numNodes() == 0) return pipeline;
  const double pureMaxLoad = objective::throughputObjective(workload, *pipeline.placement, false);
  // The exact DP also starts from the optimum along one order (few ideals):
  // usually close, and a far tighter cap than the pure pipeline's.
  SolveOutcome incumbent = pipeline;
  std::string incumbentName = "the pure pipeline's plan (no replicas)";
  if (exact) {
    SolveOutcome chain = replicatedParts(workload, optionsUntil(options, deadline), "dp-linear",
                                         contraction, false, solveDpLinear, &pipeline);
    if (chain.ok() && chain.placement && chain.found() && chain.objective < pureMaxLoad) {
      incumbent = std::move(chain);
      incumbentName = "the best plan with replicas along one order (dp-linear --replicate)";
    }
  }
  double cap = objective::throughputObjective(workload, *incumbent.placement, false);

  PhaseTimes phases;
  contraction.linearize = !exact;
  // The sums on exact grids (exact_sums.hpp), so that the backtrack meets the
  // very loads the table holds; a replicated block's own load may reach k
  // times the cap, so nothing below that is clamped.
  const ContractedGraph graph = phases.time("contract", [&] {
    return contractForDp(workload, contraction, cap * std::max(1, workload.machine.maxFpgas));
  });
  DeviceStates states;
  states.accelerators = workload.machine.maxFpgas;  // replicas: more than super-nodes may help
  states.cpus = std::min(workload.machine.maxCpus, graph.numSuperNodes);

  // The outcome returned: the pure pipeline's phases, then this DP's.
  auto finish = [&](SolveOutcome& result) {
    result.phases = pipeline.phases;
    for (const PhaseTime& phase : phases.take())
      result.phases.push_back({"replicate " + phase.name, phase.seconds});
    return result;
  };
  // What stops the search keeps the best plan so far.
  auto keepIncumbent = [&](StopReason stop, std::string why) {
    incumbent.stop = stop;
    // The bound that holds with replicas (work over all devices), not the
    // pure pipeline's: a plan with replicas may go below that.
    incumbent.lowerBound = std::min(incumbent.objective, baseline::replicatedWorkBound(workload));
    incumbent.status = incumbent.objective <= incumbent.lowerBound ? SolveStatus::Optimal
                                                                   : SolveStatus::Feasible;
    incumbent.message = why + "; returning " + incumbentName +
                        " (lower bound: the work bound with replication)";
    return finish(incumbent);
  };
  if (states.count() > DeviceStates::kMaxCount)
    return keepIncumbent(StopReason::MemoryLimit, name + " --replicate: too many device states");
  IdealLattice lattice;
  IdealLattice::Limits limits;
  limits.maxIdeals = options.maxIdeals;
  limits.memoryLimitBytes = options.memoryLimitBytes;
  // Per ideal: its values, liveness and exactness per state, its Work, weights and size.
  limits.extraBytesPerIdeal = static_cast<std::uint64_t>(states.count()) * (sizeof(double) + 2) +
                              sizeof(Work) + 2 * sizeof(double);
  limits.deadline = deadline;
  limits.interrupt = options.interrupt;
  const auto enumerated = phases.time("enumerate", [&] { return lattice.build(graph, limits); });
  switch (enumerated) {
    case IdealLattice::Status::Complete: break;
    case IdealLattice::Status::IdealLimit:
      return keepIncumbent(StopReason::IdealLimit, "the ideal limit stopped the enumeration");
    case IdealLattice::Status::MemoryLimit:
      return keepIncumbent(StopReason::MemoryLimit, "the memory limit stopped the enumeration");
    case IdealLattice::Status::TimeLimit:
      return keepIncumbent(StopReason::TimeLimit, "the time limit stopped the enumeration");
    case IdealLattice::Status::Interrupted:
      return keepIncumbent(StopReason::Interrupt, "interrupted while enumerating ideals");
  }
  // As the pure DP does below a known plan (chain.cpp): only chains below
  // its max-load are kept, so a run that finds none proves it optimal and
  // walks far fewer blocks than one that must rebuild it. The cut is a hair
  // below the plan's true max-load: the DP's sums of that very plan (on
  // exact grids, at most the true ones) may sit below it by rounding. (A
  // chain within 1e-10 of it is not looked for: the plan is optimal to that
  // precision, as its lower bound says.)
  constexpr double kCutGap = 1e-10;
  // As the pure DP does (chain.cpp), a state stops once its best is within
  // a gap of the known plan: the run decides whether a chain beats that
  // plan. Along an optimal chain of max-load L every stored value is at most
  // max(L, goodEnough), so a full ideal's value above goodEnough is the
  // optimum, and one at most goodEnough is a better plan to look below in
  // the next round. The first round's gap is 1% (the known plan is often
  // optimal, and a narrow gap closes the most states); a plan found below it
  // says the optimum may be further down, so later rounds take 5%, which
  // usually ends the search in one more round; from the fourth round on
  // every state is walked to its optimum (goodEnough 0), which ends it.
  // (Every state walked to its own optimum from the start met 2.4–5× the
  // blocks on the BERT operator graphs of docs/benchmarks.md; 1% in every
  // round took up to 16 rounds.) Along one order (dp-linear, pipedream) the
  // known plan is the pure pipeline's, often far above the optimum (ResNet-50's
  // operator graph: 124.3 against 76.9, six rounds), and the chain's lattice
  // is small: there every state is walked to its optimum in one round.
  constexpr double kFirstGap = 0.01, kLaterGap = 0.05;
  constexpr int kGapRounds = 3;
  auto gapOf = [&](int round) {
    if (!exact || round >= kGapRounds) return 1.0;
    return round == 0 ? kFirstGap : kLaterGap;
  };
  std::uint64_t blocks = 0;
  int rounds = 0;
  DpLimits dpLimits;
  dpLimits.deadline = deadline;
  dpLimits.interrupt = options.interrupt;
  dpLimits.threadStart = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(0.0, options.threadStartSeconds)));
  const std::string kind = exact ? "optimal over contiguous placements with replicated blocks"
                                 : "optimal with replicated blocks for one " + std::string(kOrderNote);
  for (;;) {
    const double cut = cap * (1 - kCutGap);
    const double goodEnough = cap * (1 - gapOf(rounds));
    ReplicatedDp dp(workload, graph, lattice, states, cut, goodEnough);
    ++rounds;
    if (!phases.time("dp", [&] { return dp.run(dpLimits, options.threads, &blocks); })) {
      const bool interrupted = options.interrupt && options.interrupt->load();
      return keepIncumbent(interrupted ? StopReason::Interrupt : StopReason::TimeLimit,
                           interrupted ? "interrupted during the DP" : "the time limit stopped the DP");
    }
    const std::string counts = std::to_string(lattice.numIdeals()) + " ideals, " +
                               std::to_string(blocks) + " blocks in " + std::to_string(rounds) +
                               (rounds == 1 ? " round" : " rounds") +
                               "; the pure pipeline: " + formatShortest(pureMaxLoad);
    if (!(dp.optimum() < cut)) {
      // No chain below the known plan: it is the optimum (exact) or the best
      // along the order.
      incumbent.status = exact ? SolveStatus::Optimal : SolveStatus::Feasible;
      incumbent.lowerBound = exact ? std::min(cut, incumbent.objective) : 0;
      incumbent.message = kind + ": " + incumbentName + ", as no chain is below it (" + counts + ")";
      return finish(incumbent);
    }
    std::vector<Block> chain;
    if (!phases.time("backtrack", [&] { return dp.backtrack(&chain); })) {
      outcome.call = CallStatus::InternalError;
      outcome.message = "internal error: " + name + " --replicate could not recover its plan";
      return outcome;
    }
    outcome.placement = placementOf(workload, graph, chain);
    outcome.objective = objective::throughputObjective(workload, *outcome.placement, false);
    int replicated = 0, used = 0;
    for (const Block& block : chain)
      if (block.accelerator) {
        used += block.replicas;
        replicated += block.replicas > 1 ? 1 : 0;
      }
    const std::string shape = std::to_string(replicated) + " of " + std::to_string(chain.size()) +
                              " blocks replicated, " + std::to_string(used) + " accelerators";
    // Above goodEnough the value is the optimum. (A plan whose true max-load
    // does not fall below the known one, which the DP's rounding could
    // allow, ends the search too rather than loop.)
    if (dp.optimum() > goodEnough || !(outcome.objective < cap)) {
      // The grid's optimum is at most the true one (latencies rounded down); an
      // exact method's plan is optimal when its true max-load is that optimum.
      const bool optimal = exact && outcome.objective <= aboveRounding(dp.optimum());
      outcome.status = optimal ? SolveStatus::Optimal : SolveStatus::Feasible;
      outcome.lowerBound = exact ? std::min(dp.optimum(), outcome.objective) : 0;
      outcome.message = kind + " (" + shape + "; " + counts + ")";
      return finish(outcome);
    }
    // A better plan, not shown optimal: the incumbent, and the next round
    // looks below it.
    cap = outcome.objective;
    incumbent.placement = outcome.placement;
    incumbent.objective = outcome.objective;
    incumbentName = "the best plan with replicas found (" + shape + ")";
  }
}

}  // namespace

SolveOutcome solveReplicated(const Workload& workload, const SolveOptions& options, const char* method,
                             ContractionOptions contraction, bool exact, SolverFunction pure) {
  const auto started = Clock::now();
  SolveOutcome outcome = replicatedParts(workload, options, method, contraction, exact, pure);
  outcome.seconds = secondsSince(started);  // all the parts, not the pure pipeline's alone
  return outcome;
}

}  // namespace dnnplace::dp
