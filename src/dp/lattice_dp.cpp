#include "dp/lattice_dp.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>

namespace dnnplace::dp {

LatticeDp::LatticeDp(const ContractedGraph& graph, const IdealLattice& lattice, DeviceStates states,
                     double memoryPerAccelerator, double cut, double goodEnough, bool alwaysFetchAhead)
    : graph_(graph),
      lattice_(lattice),
      states_(states),
      memory_(memoryPerAccelerator),
      cut_(cut),
      goodEnough_(goodEnough),
      stride_(kWorkFields + states.count()),
      // Left unwritten here: computeWork fills it under the deadline (fresh
      // pages are slow to come by on a large lattice).
      table_(new double[static_cast<std::size_t>(lattice.numIdeals()) * stride_]),
      fetchAhead_(alwaysFetchAhead ||
                  lattice.bytes() +
                          static_cast<std::uint64_t>(lattice.numIdeals()) * bytesPerIdeal(states) >
                      kCacheResidentBytes) {}

DpRun LatticeDp::run(const DpLimits& limits, int threads, DpStats* stats) {
  Wavefront wavefront(lattice_.numIdeals(), threads);
  threads = wavefront.threads();
  std::vector<BlockWalker> walkers;
  for (int t = 0; t < threads; ++t)
    walkers.emplace_back(graph_, lattice_, memory_, states_.accelerators > 0, states_.cpus > 0,
                         fetchAhead_);
  // One cache line per thread: blocksVisited changes on every block.
  struct alignas(64) ThreadStats : DpStats {};
  std::vector<ThreadStats> threadStats(threads);
  std::vector<Scratch> scratch(threads);
  if (const DpRun stopped = computeWork(limits); stopped != DpRun::Complete) return stopped;
  const auto attached = pool_.attach(wavefront);
  const DpRun result = wavefront.run(limits, [&](int t, std::int32_t ideal) {
    relax(ideal, walkers[t], scratch[t], &threadStats[t]);
  });
  for (const auto& s : threadStats) {
    stats->blocksVisited += s.blocksVisited;
    stats->memoryRejectedABlock = stats->memoryRejectedABlock || s.memoryRejectedABlock;
  }
  return result;
}

bool LatticeDp::backtrack(std::int32_t ideal, int state, double target,
                          std::vector<Block>* blocks) const {
  BlockWalker walker(graph_, lattice_, memory_, states_.accelerators > 0, states_.cpus > 0, false);
  // The sums are exact (exact_sums.hpp): the walk meets every block again
  // with the very loads relax stored, so a chain at most `target` is found
  // with no tolerance. (The walk's thresholds are strict: just above it.)
  const double tolerance = target;
  const double threshold = std::nextafter(target, kInfinity);
  const int step = states_.acceleratorStep();
  // Values at the cut are "not tracked", not a plan: the tolerance may reach them.
  auto known = [&](std::int32_t sub, int s) {
    return value(sub, s) < cut_ ? value(sub, s) : kInfinity;
  };
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
      *accelerator = a > 0 ? threshold : -1;
      *cpu = c > 0 ? threshold : -1;
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

/// Work::crossing of I from its canonical parent's (whose record must be
/// final): only the hyperedges through I's largest element change.
void LatticeDp::computeCrossing(std::int32_t ideal, BlockWalker& walker) {
  const IdealLattice::Link parent = lattice_.links(ideal).back();
  await(parent.target);
  walker.mark(ideal);
  table_[static_cast<std::size_t>(ideal) * stride_ + kCrossingField] =
      workOf(parent.target).crossing + walker.crossingChange(parent.element);
}

/// Writes every record's work fields and sets its values to `cut` (not
/// tracked yet); the empty ideal's are all 0.
DpRun LatticeDp::computeWork(const DpLimits& limits) {
  double totalSize = 0;
  for (int v = 0; v < graph_.numSuperNodes; ++v) totalSize += graph_.size[v];
  sizeNeverBinds_ = totalSize <= memory_;
  std::vector<double> absorbable(states_.cpus + 1);
  for (int c = 0; c <= states_.cpus; ++c) absorbable[c] = cpuAbsorbable(graph_, c, cut_);
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
  bounds_ = StateBounds(states_, cut_, latencyRatio(graph_), workOf(lattice_.fullIdeal()),
                        std::move(absorbable));
  return DpRun::Complete;
}

/// value(I, s) ≥ value(I ∖ v, s) − removalIncrease(v) for every maximal
/// element v of I: restricted to I ∖ v, a chain of I is a chain of I ∖ v
/// on no more devices, and only the block that held v changes. So a state
/// that is out of reach below every such I ∖ v stays out of reach at I, and
/// a state whose value is inherited from one is final at once.
void LatticeDp::lowerBounds(std::int32_t ideal, BlockWalker& walker, std::vector<double>* lower) const {
  const int numStates = states_.count();
  lower->assign(numStates, 0.0);
  walker.mark(ideal);
  for (const IdealLattice::Link& link : lattice_.links(ideal)) {
    const double increase = walker.removalIncrease(link.element);
    await(link.target);
    const double* sub = valuesOf(link.target);
    const Work subWork = workOf(link.target);
    for (int s = 1; s < numStates; ++s) {
      // A state the rest of the graph ruled out holds the cut without being that large.
      if (!bounds_.futureAlive(subWork, s) || !bounds_.restPaysCrossingAlive(subWork, s)) continue;
      if (std::signbit(sub[s])) continue;  // inexact: may be above value(I ∖ v, s)
      const double bound = increase > 0 ? (sub[s] - increase) * kMargin : sub[s];
      (*lower)[s] = std::max((*lower)[s], bound);
    }
  }
}

/// Whether a sub-ideal {u} ≠ I of one element u could be admitted (u is
/// not checked to be in I: a yes only costs the full walk).
template <typename Admits>
bool LatticeDp::admitsAFirstElement(std::int32_t ideal, const Admits& admits) const {
  const std::int32_t empty = lattice_.emptyIdeal();
  for (std::int32_t child = lattice_.childBegin(empty); child < lattice_.childBegin(empty + 1); ++child)
    if (child != ideal && admits(graph_.cpuLatency[lattice_.addedElement(child)] * kMargin))
      return true;
  return false;
}

/// The blocks D = I ∖ J of the states in scratch.up*States: J must fit
/// the sub-state's CPU cores below the state's best, so J's CPU work is
/// below cores · best, which only grows with J.
void LatticeDp::walkUp(std::int32_t ideal, const Work& whole, BlockWalker& walker, Scratch& scratch,
                       DpStats* stats) {
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
    // those sums too, skipping the walk saves instructions on operator
    // graphs. The empty ideal's values are 0.
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
    await(sub);
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

/// Per state s of the ideal just relaxed: best[s] is exact when it reached
/// its lower bound, or when the walk ran to its end (best[s] above
/// closeAt[s]) and every inexact sub-ideal value it met came with a block
/// at least best[s] (a smaller exact value there could not have won).
/// Otherwise it is stored negated.
void LatticeDp::markInexact(double* best, const Scratch& scratch) const {
  for (int s = 1; s < states_.count(); ++s) {
    if (!(best[s] < cut_) || best[s] <= scratch.lower[s]) continue;
    if (best[s] <= scratch.closeAt[s] || scratch.minInexactLoad[s] < best[s]) best[s] = -best[s];
  }
}

void LatticeDp::relax(std::int32_t ideal, BlockWalker& walker, Scratch& scratch, DpStats* stats) {
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
    scratch.closeAt[s] = std::max(lower[s], std::min(std::max(bounds_.restBound(whole, s), goodEnough_),
                                                     cut_ * kMargin));
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
  if (!scratch.upAcceleratorStates.empty() || !scratch.upCpuStates.empty())
    walkUp(ideal, whole, walker, scratch, stats);
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
  for (int s : scratch.acceleratorStates)
    scratch.acceleratorTests.push_back(bounds_.stateTest(s, step, whole));
  for (int s : scratch.cpuStates) scratch.cpuTests.push_back(bounds_.stateTest(s, 1, whole));
  auto usable = [&](std::int32_t) {
    const double fit = walker.fitAccelerator, forced = walker.forcedCpu, cpu = walker.cpu;
    const int notOn = walker.notOnAccelerator;
    if (walker.acceleratorFits()) {
      const double acceleratorFloor = walker.fpga + walker.committed;
      for (const StateBounds::StateTest& t : scratch.acceleratorTests)
        if (acceleratorFloor < best[t.state] && open(t.state) && t.future(fit, forced, cpu, notOn))
          return true;
    }
    for (const StateBounds::StateTest& t : scratch.cpuTests)
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
    await(block.sub);
    const double* previous = valuesOf(block.sub);
    bool improved = false;
    if (block.acceleratorFits) {
      const double load = block.acceleratorLoad;
      if (load < acceleratorLimit)
        for (int s : scratch.acceleratorStates) {
          const double candidate =
              std::max(subValueOf(previous[s - step], load, &scratch.minInexactLoad[s]), load);
          if (candidate < best[s]) {
            best[s] = candidate;
            improved = true;
          }
        }
    }
    if (block.cpuLoad < cpuLimit) {
      const double load = block.cpuLoad;
      for (int s : scratch.cpuStates) {
        const double candidate =
            std::max(subValueOf(previous[s - 1], load, &scratch.minInexactLoad[s]), load);
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
          for (const StateBounds::StateTest& t : scratch.acceleratorTests)
            if (t.prefix(fit, forced, cpu, notOn)) {
              anyAlive = true;
              break;
            }
          if (!anyAlive)
            for (const StateBounds::StateTest& t : scratch.cpuTests)
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

}  // namespace dnnplace::dp
