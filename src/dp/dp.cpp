// Method "dp": the exact contiguous max-load DP (docs/model.md §3–4).
//
// Phases (solveDp): contract (preprocess/contraction.hpp) → seed plans
// that cut the DP (seeds.hpp, and the DP on coarsened graphs) → enumerate
// the ideals of the contracted forward DAG level by level
// (ideal_lattice.hpp) → the DP (lattice_dp.hpp): for every ideal I and
// device state s = (a accelerators, c CPU cores), in order of size:
// value(I, s) = min over sub-ideals J of max(value(J, s − one device),
// load(I ∖ J)) → backtrack the chain and map its blocks back to the
// original nodes. chain.hpp runs the last three on one contracted graph.
//
// What keeps it fast:
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
//   for each made the walk memory-bound;
// * those per-state tests are precomputed per ideal as linear thresholds on
//   the block's own sums (no divisions, no sub-ideal sums in the inner loop);
// * threads take ideals in id order, a few at a time, and wait only when a
//   sub-ideal they read is still being computed (ids grow with size);
// * the seeds: the DP along three topological orders, each a plain pass
//   over interval starts with no lattice (linearChainSeed; the first cut by
//   a greedy packing, which alone seeds lattices of at most twice as many
//   ideals as super-nodes), and the DP on graphs whose chains stay whole or are
//   cut into 2, 3, … runs (while those lattices are small next to the full
//   one; on long chains the finer ones come close to the optimum, so the
//   full DP decides in one run); the best plan cuts the full DP; with no bound at all, the DP probes
//   from a lower bound upwards (solveChain).

#include "dp/dp.hpp"
#include "dnnplace/solver.hpp"
#include "dp/replicated.hpp"

#include <algorithm>
#include <array>
#include <atomic>

#include "dp/dp.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "bounds/throughput_bound.hpp"
#include "dp/chain.hpp"
#include "dp/device_states.hpp"
#include "dp/exact_sums.hpp"
#include "dp/ideal_lattice.hpp"
#include "dp/messages.hpp"
#include "dp/seeds.hpp"
#include "objective/class_totals.hpp"
#include "preprocess/contraction.hpp"

namespace dnnplace {

namespace dp {
namespace {

/// The workload with every chain of super-nodes (u → v, v u's only successor
/// and u v's only predecessor, in the contracted forward DAG) cut into
/// `pieces` runs of consecutive super-nodes, each run made one color class:
/// the same nodes and edges, so its plans are plans of the original, and
/// each of its ideals is an ideal of the original. nullopt when no chain has
/// two super-nodes.
std::optional<Workload> chainCoarsened(const Workload& workload, const ContractedGraph& graph,
                                       int pieces) {
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
  std::vector<Node> nodes = workload.graph().nodes;
  for (NodeIndex v = 0; v < workload.numNodes(); ++v) nodes[v].colorClass = chainOf[graph.superOf[v]];
  std::vector<RawEdge> edges;
  edges.reserve(workload.graph().edges.size());
  for (const Edge& e : workload.graph().edges)
    edges.push_back({workload.graph().nodes[e.source].id, workload.graph().nodes[e.dest].id,
                     workload.graph().outCost[e.source]});
  std::string error;
  return buildWorkload(workload.name, workload.machine, std::move(nodes), edges, &error);
}

/// The lattice enumerated under a small cap before seeding. When complete,
/// seeding along more orders or on coarser graphs costs more than solving
/// it, and the final DP reuses it.
struct SmallLattice {
  static constexpr std::uint64_t kIdeals = 4096;
  bool complete = false;
  /// Hardly more ideals than super-nodes: the greedy packing's chain alone seeds it.
  bool nearlyChain = false;
  IdealLattice lattice;  ///< complete and within the user's ideal cap, else empty
  const IdealLattice* reusable() const { return lattice.numIdeals() > 0 ? &lattice : nullptr; }
};

SmallLattice enumerateSmall(const ContractedGraph& graph, const SolveOptions& options,
                            Clock::time_point deadline) {
  SmallLattice small;
  IdealLattice::Limits capped;
  capped.maxIdeals = SmallLattice::kIdeals;
  capped.deadline = deadline;
  capped.interrupt = options.interrupt;
  small.complete = small.lattice.build(graph, capped) == IdealLattice::Status::Complete;
  small.nearlyChain = small.complete && small.lattice.numIdeals() <= 2 * graph.numSuperNodes;
  // A small lattice also serves the final DP, unless it holds more ideals
  // than the user allows. (solveChain applies the memory limit to it.)
  const bool withinCap = options.maxIdeals == 0 ||
                         static_cast<std::uint64_t>(small.lattice.numIdeals()) <= options.maxIdeals;
  if (!small.complete || !withinCap) small.lattice = IdealLattice{};
  return small;
}

/// The best seed plan (none: objective infinite).
struct SeedPlan {
  std::optional<Placement> placement;
  double objective = kInfinity;
};

/// Seeds: plans whose max-load cuts the full DP. Each is a chain of ideals
/// of `graph` itself, so the DP can reach it again.
/// * The same DP along one topological order, computed without a lattice
///   (linearChainSeed), for three orders (smallest-first, depth-first,
///   breadth-first), each cut by the best plan so far, the first by a greedy
///   packing of its order.
/// * The full DP on coarser graphs whose chains of super-nodes stay whole
///   (wide graphs: it groups whole branches, which no single order can),
///   then are cut into 2, 3, … runs.
/// A small lattice is cheaper to solve than all but the first order's seed,
/// and one with hardly more ideals than super-nodes than that one too: the
/// greedy packing's chain alone seeds it.
/// The finest cut of the chains the seeds try: each cut costs a contraction,
/// two counts and perhaps a DP, and on long chains (a 5,000-node chain with
/// 1,000 accelerators) cutting on until the chains give the graph back took
/// 25 s where the seeds had taken 0.06 s; the wide graphs that gain have
/// chains of a few nodes.
constexpr int kMaxSeedPieces = 8;

SeedPlan seedPlans(const Workload& workload, const ContractedGraph& graph, const SmallLattice& small,
                   const SolveOptions& options, Clock::time_point deadline) {
  SeedPlan best;
  auto offer = [&](const Workload& w, const ContractedGraph& g, double objective,
                   const std::vector<Block>& blocks) {
    if (!blocks.empty() && objective < best.objective) {
      best.placement = placementOf(w, g, blocks);
      best.objective = objective;
    }
  };
  // The seeds read only the order's numbering, the sums and the hypergraph:
  // `graph` is already numbered smallest-first, the other orders renumber it.
  for (auto order : {ContractionOptions::Order::SmallestFirst, ContractionOptions::Order::DepthFirst,
                     ContractionOptions::Order::BreadthFirst}) {
    if (small.complete && order != ContractionOptions::Order::SmallestFirst) break;
    // The first order always gives a plan; the others only while time is left.
    if (order != ContractionOptions::Order::SmallestFirst && pastLimit(deadline, options.interrupt))
      break;
    std::optional<ContractedGraph> renumbered;
    if (order != ContractionOptions::Order::SmallestFirst)
      renumbered = renumberContracted(graph, order);
    const ContractedGraph& ordered = renumbered ? *renumbered : graph;
    const LinearSeed seed = small.nearlyChain ? greedyChain(workload, ordered, deadline,
                                                            options.interrupt, options.memoryLimitBytes)
                                              : orderSeed(workload, ordered, best.objective, deadline,
                                                          options.interrupt, options.memoryLimitBytes);
    offer(workload, ordered, seed.objective, seed.blocks);
  }
  if (small.complete) return best;
  // Whole chains, then chains cut into 2, 3, … runs, each lattice finer
  // than the last and its DP cut by the best plan so far. Only while cheap
  // next to the full DP: whole chains at most 2,000 ideals, the others at
  // most an eighth of the full lattice (on the paper's graphs a larger
  // coarse lattice costs more than it saves). On wide series-parallel
  // graphs the finer ones come within a fraction of a percent of the
  // optimum, and the full DP then decides in one run instead of several
  // good-enough runs (each about as costly as the decisive one).
  // The user's caps on ideals and memory hold for the coarse lattices too,
  // and they get at most half the time left: a coarse lattice can itself be
  // too large for the limit (series-parallel W = 12, L = 3, 20 s: the chains
  // cut in two, 531,441 ideals, took all 20 s and the full DP never began).
  // A coarse DP stopped there still offers the chain it had found.
  SolveOptions seedOptions = options;
  seedOptions.progress = nullptr;
  const Clock::time_point now = Clock::now();
  const Clock::time_point seedDeadline =
      deadline <= now || deadline == Clock::time_point::max() ? deadline : now + (deadline - now) / 2;
  for (int pieces = 1; pieces <= kMaxSeedPieces; ++pieces) {
    if (pastLimit(seedDeadline, options.interrupt)) break;
    const std::optional<Workload> coarse = chainCoarsened(workload, graph, pieces);
    if (!coarse) break;
    // A second contraction, of another workload: the coarse one has other
    // color classes, and step 4 may merge more of its super-nodes.
    const ContractedGraph coarseGraph = contractForDp(*coarse, ContractionOptions{}, best.objective);
    // Cut finer, the chains give the full graph back.
    if (coarseGraph.numSuperNodes >= graph.numSuperNodes) break;
    // Both counts capped: the full lattice may be far too large to count.
    CountLimits countLimits;
    countLimits.deadline = seedDeadline;
    countLimits.interrupt = options.interrupt;
    const IdealCount coarseIdeals =
        countIdeals(coarseGraph, pieces == 1 ? 2000 : 1u << 22, countLimits);
    if (coarseIdeals.stopped) break;
    if (coarseIdeals.exceeded) {
      if (pieces == 1) continue;  // whole chains too many: chains cut in two may still pay
      break;                      // finer cuts only have more
    }
    if (pieces >= 2 && !countIdeals(graph, 8 * coarseIdeals.count, countLimits).exceeded) break;
    const ChainResult r = solveChain(*coarse, coarseGraph, seedOptions, seedDeadline, best.objective);
    offer(*coarse, coarseGraph, r.objective, r.blocks);  // a stopped run's chain too, if any
    if (r.kind != ChainResult::Kind::Found && r.kind != ChainResult::Kind::NoChain) break;
  }
  return best;
}

/// The plan of the full DP's chain, or the seed's when the DP found
/// nothing below it; or why there is none.
SolveOutcome outcomeOf(const Workload& workload, const ContractedGraph& graph,
                       const SolveOptions& options, const ChainResult& chain, const SeedPlan& seed) {
  SolveOutcome outcome;
  outcome.stop = stopReasonOf(chain.kind);
  if (isLimit(chain.kind)) {
    // Whichever limit stopped the DP, the best plan known is returned (exit 4
    // is for a limit that left no plan at all): a good-enough run's plan if
    // one beat the seeds, else the best seed plan.
    const bool runFound = !chain.blocks.empty() && chain.objective < seed.objective;
    if (!runFound && !seed.placement) {
      outcome.status = SolveStatus::NoPlan;
      outcome.message = limitMessage(chain, options);
      return outcome;
    }
    outcome.placement = runFound ? placementOf(workload, graph, chain.blocks) : *seed.placement;
    outcome.objective = runFound ? chain.objective : seed.objective;
    outcome.lowerBound = chain.provenLowerBound;
    // A plan that meets the bound proven before the limit is optimal all the same.
    outcome.status = outcome.objective <= outcome.lowerBound * (1 + 1e-9) ? SolveStatus::Optimal
                                                                          : SolveStatus::Feasible;
    outcome.message = limitMessage(chain, options) +
                      (runFound ? "; returning the best plan found" : "; returning the best seed plan");
    return outcome;
  }
  if (chain.kind == ChainResult::Kind::InternalError) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: the DP could not recover its plan";
    return outcome;
  }
  if (chain.kind != ChainResult::Kind::Found && !seed.placement) {
    outcome.status = SolveStatus::Infeasible;
    outcome.message = noChainReason(workload);
    return outcome;
  }
  // The DP's optimum (or, when it found nothing below the seed, the seed's
  // max-load) bounds every chain's true max-load from below; its chain's true
  // max-load lies above its own by the grid's rounding (exact_sums.hpp), so
  // the better of it and the seed is returned, optimal when it meets the bound.
  const bool found = chain.kind == ChainResult::Kind::Found &&
                     !(seed.placement && seed.objective <= chain.objective);
  outcome.placement = found ? placementOf(workload, graph, chain.blocks) : *seed.placement;
  outcome.objective = found ? chain.objective : seed.objective;
  if (!(outcome.objective <= chain.provenLowerBound * (1 + 1e-9))) {
    outcome.status = SolveStatus::Feasible;
    outcome.lowerBound = chain.provenLowerBound;
    outcome.message = "the DP's optimum, " + formatTenDigits(chain.provenLowerBound) +
                      " on its sums rounded down onto an exact grid, bounds the optimum from "
                      "below; its plans price above it at these magnitudes";
    return outcome;
  }
  outcome.status = SolveStatus::Optimal;
  outcome.lowerBound = outcome.objective;
  outcome.message = "optimal over contiguous placements: " + std::to_string(graph.numSuperNodes) +
                    " super-nodes, " + std::to_string(chain.ideals) + " ideals, " +
                    std::to_string(chain.stats.blocksVisited) +
                    " blocks examined; DP memory: lattice " + std::to_string(chain.latticeBytes) +
                    " bytes + tables " + std::to_string(chain.tableBytes) + " bytes";
  if (graph.zeroWorkLeavesMerged > 0 && chain.stats.memoryRejectedABlock &&
      (graph.zeroWorkLeafBytes > 0 || graph.zeroWorkLeafUnsupported))
    outcome.message +=
        "; note: memory limits excluded some blocks and the zero-work-leaf rule "
        "merged " +
        std::to_string(graph.zeroWorkLeavesMerged) + " leaves carrying " +
        formatBytes(graph.zeroWorkLeafBytes) +
        " into their neighbours, so a placement splitting them could be better";
  return outcome;
}

/// With Objective::Latency: the same plan, its latency (docs/model.md §5) as the
/// objective; or why that plan does not meet options.q.
SolveOutcome withLatency(const Workload& workload, const SolveOptions& options, SolveOutcome outcome) {
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
    refused.call = CallStatus::InvalidInput;
    refused.message =
        "its latency mode reports the latency of the max-load-optimal contiguous plan, and in that "
        "plan " +
        evaluation.violations.front() +
        " (on a training graph: a forward block, then its backward twins): pass --q " +
        std::to_string(pieces) +
        ", or use --method greedy or milp for a latency plan with q = " + std::to_string(options.q);
    return refused;
  }
  outcome.message = std::string(outcome.status == SolveStatus::Optimal
                                    ? "latency of the max-load-optimal contiguous plan (max-load "
                                    : "latency of the DP's best contiguous plan so far (max-load ") +
                    formatTenDigits(outcome.objective) + "), not a latency optimum; " + outcome.message;
  outcome.objective = evaluation.objective;
  outcome.lowerBound = 0;
  outcome.status = SolveStatus::Feasible;
  return outcome;
}

}  // namespace
}  // namespace dp

SolveOutcome solveDp(const Workload& workload, const SolveOptions& options) {
  using namespace dp;
  if (options.replicate)
    return solveReplicated(workload, options, "dp", ContractionOptions{}, true, solveDp);
  if (options.diffMaxima) {
    SolveOutcome refused;
    refused.call = CallStatus::InvalidInput;
    refused.message = "dp does not support --diffmaxima; use milp";
    return refused;
  }
  if (workload.numNodes() == 0) return emptyWorkloadOutcome(workload);
  const auto deadline = deadlineOf(options);
  PhaseTimes phases;
  auto finish = [&](SolveOutcome outcome) {
    outcome.phases = phases.take();
    return outcome;
  };

  ContractedGraph graph =
      phases.time("contract", [&] { return contractWorkload(workload, ContractionOptions{}); });
  if (const std::string why = obviousInfeasibility(workload, graph); !why.empty()) {
    SolveOutcome infeasible;
    infeasible.status = SolveStatus::Infeasible;
    infeasible.message = why;
    return finish(std::move(infeasible));
  }

  // Seeding starts with an enumeration capped at a few thousand ideals: it
  // decides which seeds pay off, and a lattice that small serves the DP too.
  const SmallLattice small =
      phases.time("seed", [&] { return enumerateSmall(graph, options, deadline); });
  const SeedPlan seed =
      phases.time("seed", [&] { return seedPlans(workload, graph, small, options, deadline); });
  if (options.progress && seed.placement)
    options.progress("dp: best seed plan: " + formatTenDigits(seed.objective));
  // The seeds only propose chains, priced on the original graph; the DP's
  // sums must be exact (exact_sums.hpp). Its messages name the true sizes:
  // the ones above.
  snapToExactGrid(&graph, workload.machine.maxSizePerFpga, seed.objective);
  // The DP's cut: the best seed in the DP's numbers (at most its true max-load).
  const double seedCut = seed.placement ? gridMaxLoad(graph, *seed.placement) : kInfinity;

  // Enumerate the lattice (unless the small one is it), the DP below the
  // seed, backtrack its chain.
  // Known before any work (bounds.md §1), so that a run the limit stops
  // still reports it (the chain bounds of chain.cpp are weaker on some graphs).
  const double workLowerBound = bounds::workBound(workload, objective::ClassTotals(workload));
  const ChainResult chain =
      solveChain(workload, graph, options, deadline, seedCut, workLowerBound, small.reusable());
  phases.add("enumerate", chain.enumerateSeconds);
  phases.add("dp", chain.dpSeconds);
  phases.add("backtrack", chain.backtrackSeconds);
  SolveOutcome outcome =
      phases.time("backtrack", [&] { return outcomeOf(workload, graph, options, chain, seed); });

  if (options.objective == Objective::Latency && outcome.placement)
    outcome =
        phases.time("latency", [&] { return withLatency(workload, options, std::move(outcome)); });
  return finish(std::move(outcome));
}

namespace detail {
double linearOrderBound(const Workload& workload) {
  return dp::orderSeed(workload, contractWorkload(workload, ContractionOptions{}), dp::kInfinity)
      .objective;
}
}  // namespace detail

}  // namespace dnnplace
