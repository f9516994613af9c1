#include "dp/chain.hpp"
#include "dnnplace/solver.hpp"
#include "util/deadline.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "dp/exact_sums.hpp"
#include "dp/lattice_dp.hpp"
#include "dp/messages.hpp"

namespace dnnplace::dp {

double chainObjective(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<Block>& blocks) {
  // blockTotals of every block in one pass over the edges (one pass per
  // block is quadratic on chains of thousands of blocks), each sum in the
  // same order as blockTotals adds it.
  const int numBlocks = static_cast<int>(blocks.size());
  std::vector<int> blockOf(graph.numSuperNodes, -1);
  std::vector<double> compute(numBlocks, 0), communication(numBlocks, 0);
  for (int b = 0; b < numBlocks; ++b)
    for (int s : blocks[b].superNodes) {
      blockOf[s] = b;
      for (int i = graph.memberStart[s]; i < graph.memberStart[s + 1]; ++i) {
        const Node& node = workload.graph().nodes[graph.members[i]];
        compute[b] += blocks[b].accelerator ? node.fpgaLatency : node.cpuLatency;
      }
    }
  // A block pays u's cost once when it holds u or one of its successors, but
  // not all of them.
  std::vector<NodeIndex> paidFor(numBlocks, -1);
  for (NodeIndex u = 0; u < workload.numNodes(); ++u) {
    const int own = blockOf[graph.superOf[u]];
    bool split = false;
    for (NodeIndex w : workload.successors(u)) {
      const int other = blockOf[graph.superOf[w]];
      if (other == own) continue;
      split = true;
      if (other >= 0 && paidFor[other] != u) {
        paidFor[other] = u;
        communication[other] += workload.graph().outCost[u];
      }
    }
    if (split && own >= 0 && paidFor[own] != u) {
      paidFor[own] = u;
      communication[own] += workload.graph().outCost[u];
    }
  }
  double worst = 0;
  for (int b = 0; b < numBlocks; ++b)
    worst = std::max(worst, blocks[b].accelerator ? compute[b] + communication[b] : compute[b]);
  return worst;
}

Placement placementOf(const Workload& workload, const ContractedGraph& graph,
                      const std::vector<Block>& blocks) {
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
  if (std::any_of(blocks.begin(), blocks.end(), [](const Block& b) { return b.replicas > 1; })) {
    placement.replicas.assign(placement.numAccelerators, 1);
    int device = 0;
    for (auto it = blocks.rbegin(); it != blocks.rend(); ++it)
      if (it->accelerator) placement.replicas[device++] = it->replicas;
  }
  return placement;
}

StopReason stopReasonOf(ChainResult::Kind kind) {
  switch (kind) {
    case ChainResult::Kind::IdealLimit: return StopReason::IdealLimit;
    case ChainResult::Kind::MemoryLimit: return StopReason::MemoryLimit;
    case ChainResult::Kind::TimeLimit: return StopReason::TimeLimit;
    case ChainResult::Kind::Interrupted: return StopReason::Interrupt;
    default: return StopReason::None;
  }
}

bool isLimit(ChainResult::Kind kind) { return stopReasonOf(kind) != StopReason::None; }

std::uint64_t saturatingProduct(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

ChainResult solveChain(const Workload& workload, const ContractedGraph& graph,
                       const SolveOptions& options, Clock::time_point deadline, double upperBound,
                       double lowerBound, const IdealLattice* built) {
  ChainResult result;
  const Machine& machine = workload.machine;
  DeviceStates states;
  // More devices than super-nodes can never help.
  states.accelerators = std::min(machine.maxFpgas, graph.numSuperNodes);
  states.cpus = std::min(machine.maxCpus, graph.numSuperNodes);

  // Known before any work, so a run stopped early still reports it.
  const ChainBounds bounds = chainBounds(graph, states, acceleratorMemory(graph, machine));
  result.provenLowerBound = std::max(bounds.lower, lowerBound);

  // Every lattice holds at least n + 1 ideals (a chain's prefixes): when
  // their tables alone pass the memory limit, or the states outgrow the
  // DP's indices, nothing is enumerated.
  const std::uint64_t leastTableBytes =
      saturatingProduct(static_cast<std::uint64_t>(graph.numSuperNodes) + 1,
                        LatticeDp::bytesPerIdeal(states));
  if (states.count() > DeviceStates::kMaxCount ||
      (options.memoryLimitBytes && leastTableBytes > options.memoryLimitBytes)) {
    result.kind = ChainResult::Kind::MemoryLimit;
    result.tableBytes = leastTableBytes;
    result.bytes = leastTableBytes;
    result.deviceStates = static_cast<std::uint64_t>(states.count());
    return result;
  }

  // The caller's complete lattice of this graph, if it has one (built with
  // no limits of the user's to apply), or one built here under them.
  IdealLattice own;
  auto status = IdealLattice::Status::Complete;
  const auto enumerateStart = Clock::now();
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
  result.enumerateSeconds = secondsSince(enumerateStart);
  const IdealLattice& lattice = built ? *built : own;
  result.ideals = static_cast<std::uint64_t>(std::max(0, lattice.numIdeals()));
  result.latticeBytes = lattice.bytes();
  result.tableBytes = saturatingProduct(result.ideals, LatticeDp::bytesPerIdeal(states));
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
  // run. (Usually the first run decides, and it walks far fewer blocks
  // than an exact run.)
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
    // rebuild it.
    const double cut = probing ? aboveRounding(target) : target;
    const double goodEnough = probing ? 0 : known * (1 - kGoodEnoughGap);
    const auto dpStart = Clock::now();
    LatticeDp dp(graph, lattice, states, acceleratorMemory(graph, machine), cut, goodEnough,
                 options.dpAlwaysFetchAhead);
    DpLimits dpLimits;
    dpLimits.deadline = deadline;
    dpLimits.interrupt = options.interrupt;
    dpLimits.threadStart = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(std::max(0.0, options.threadStartSeconds)));
    if (options.progress) {
      dpLimits.progress = [&](const std::string& line) {
        options.progress(line + (probe ? " (probing below " + formatTenDigits(target) + ")" : "") +
                         (probing ? "" : ", best so far " + formatTenDigits(known)));
      };
    }
    ++result.rounds;
    const DpRun run = dp.run(dpLimits, options.threads, &result.stats);
    result.dpSeconds += secondsSince(dpStart);
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
      // (The bound is in the DP's numbers, on exact grids below the true
      // sums: exactOptimum, not the chain's true max-load.)
      result.kind = result.blocks.empty() ? ChainResult::Kind::NoChain : ChainResult::Kind::Found;
      // The caller's bound (true numbers) may be above the grid's.
      result.provenLowerBound = std::max(lowerBound, result.blocks.empty()
                                                         ? (probing ? kInfinity : upperBound)
                                                         : result.exactOptimum);
      return result;
    }
    const auto backtrackStart = Clock::now();
    result.blocks.clear();
    const bool recovered = dp.backtrack(lattice.fullIdeal(), finalState, optimum, &result.blocks);
    if (recovered) {
      result.objective = chainObjective(workload, graph, result.blocks);
      result.exactOptimum = optimum;
    }
    result.backtrackSeconds += secondsSince(backtrackStart);
    if (!recovered) {
      result.kind = ChainResult::Kind::InternalError;
      return result;
    }
    if (optimum <= goodEnough && goodEnough > 0) {
      // A better plan, not shown optimal: the incumbent (returned if a
      // limit stops the next run), and the next run looks below it. (Each
      // such plan is 1% below the last; with K = 0 nothing is below.)
      known = optimum;
      if (options.progress)
        options.progress("dp: found a plan of max-load " + formatTenDigits(known) +
                         ", looking below it");
      continue;
    }
    result.kind = ChainResult::Kind::Found;
    result.provenLowerBound = std::max(lowerBound, optimum);
    return result;
  }
}

}  // namespace dnnplace::dp
