// dp, dp-linear and pipedream with --replicate (docs/model.md §9): the DP over
// the ideals of the contracted graph where an accelerator block D may run on
// r identical accelerators, load(D, r) = (load(D) + sync(D, r)) / r.
//
// A plain DP beside the bounded one of lattice_dp.cpp: for every ideal I (in
// id order, so sub-ideals come first) the blocks D = I ∖ J are walked by
// BlockWalker (D's compute, communication and memory kept up to date; the
// walk stops where compute alone rules a block out: load(D, r) ≥ load(D)/r,
// so a block whose load exceeds a accelerators times every open state's
// best can serve none). The pure pipeline's plan (r = 1 everywhere) is
// feasible here, so its max-load caps every block and value. Backtracking
// walks the same blocks again: their sums follow each block's canonical
// path, so they are the very numbers the DP compared.

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
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace::dp {

namespace {

class ReplicatedDp {
 public:
  ReplicatedDp(const Workload& workload, const ContractedGraph& graph, const IdealLattice& lattice,
               DeviceStates states, double cap)
      : graph_(graph),
        lattice_(lattice),
        states_(states),
        machine_(workload.machine),
        cap_(cap),
        stride_(static_cast<std::size_t>(states.count())),
        values_(static_cast<std::size_t>(lattice.numIdeals()) * stride_, kInfinity),
        parameters_(graph.numSuperNodes, 0),
        replicaLoads_(states.accelerators + 1, 0) {
    // The weights a super-node's replicas all-reduce: its members'.
    for (int v = 0; v < graph.numSuperNodes; ++v)
      for (int i = graph.memberStart[v]; i < graph.memberStart[v + 1]; ++i)
        parameters_[v] += workload.graph().nodes[graph.members[i]].parameterSize;
  }

  /// Fills the table; false when the deadline or the interrupt stopped it.
  bool run(Clock::time_point deadline, const std::atomic<bool>* interrupt, std::uint64_t* blocks) {
    BlockWalker walker(graph_, lattice_, acceleratorMemory(graph_, machine_), states_.accelerators > 0,
                       states_.cpus > 0, false);
    std::fill_n(values_.begin(), stride_, 0.0);  // the empty ideal
    for (std::int32_t ideal = 1; ideal < lattice_.numIdeals(); ++ideal) {
      if ((ideal & 255) == 0 && pastLimit(deadline, interrupt)) return false;
      relax(ideal, walker, blocks);
    }
    return true;
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
              fillReplicaLoads(walker.acceleratorLoad(), weights, a);
              for (int r = 1; r <= a; ++r)
                if (std::max(previous[state - r * step], replicaLoads_[r]) <= target) {
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

  /// The walk's thresholds: load(D, r) ≥ load(D) / r, so an accelerator
  /// block of load `acceleratorWork` (the most any state's a accelerators
  /// times its best can take) or a CPU block of load `cpuBest` or more
  /// serves no state; neither beyond the cap.
  void limits(double acceleratorWork, double cpuBest, double* accelerator, double* cpu) const {
    *accelerator = aboveRounding(std::min(acceleratorWork, cap_ * states_.accelerators));
    *cpu = aboveRounding(std::min(cpuBest, cap_));
  }

  /// The weights of the walk's block, kept per depth of its path (the walk
  /// calls visit right after adding the path's last super-node).
  double pathParameters(const std::vector<std::int32_t>& path, std::vector<double>* sums) const {
    if (sums->size() <= path.size()) sums->resize(path.size() + 1, 0.0);
    (*sums)[path.size()] = (*sums)[path.size() - 1] + parameters_[path.back()];
    return (*sums)[path.size()];
  }

  /// replicaLoads_[r] = load(D, r) for r = 1..upTo.
  void fillReplicaLoads(double load, double weights, int upTo) const {
    for (int r = 1; r <= upTo; ++r)
      replicaLoads_[r] = objective::replicatedLoad(load, weights, r, machine_);
  }

  void relax(std::int32_t ideal, BlockWalker& walker, std::uint64_t* blocks) {
    double* best = valuesOf(ideal);
    const int step = states_.acceleratorStep();
    const int numStates = static_cast<int>(stride_);
    double acceleratorWork = kInfinity, cpuWorst = kInfinity;
    auto updateLimits = [&] {
      acceleratorWork = cpuWorst = 0;
      for (int s = 1; s < numStates; ++s) {
        const int a = states_.acceleratorsOf(s);
        if (a > 0) acceleratorWork = std::max(acceleratorWork, a * std::min(best[s], cap_));
        if (states_.cpusOf(s) > 0) cpuWorst = std::max(cpuWorst, best[s]);
      }
    };
    std::vector<double>& parameters = pathSums_;
    parameters.assign(1, 0.0);
    walker.walk(
        ideal,
        [&](double* accelerator, double* cpu) { limits(acceleratorWork, cpuWorst, accelerator, cpu); },
        [](std::int32_t) { return true; },
        [&](std::int32_t sub, const std::vector<std::int32_t>& path) {
          ++*blocks;
          const double weights = pathParameters(path, &parameters);
          const double* previous = valuesOf(sub);
          bool improved = false;
          if (walker.acceleratorFits()) {
            const double load = walker.acceleratorLoad();
            fillReplicaLoads(load, weights, states_.accelerators);
            for (int s = step; s < numStates; ++s) {
              const int a = states_.acceleratorsOf(s);
              double b = best[s];
              // load(D, r) ≥ load(D) / r: fewer than load(D) / b replicas
              // cannot beat b (and a state's a cannot reach that many);
              // previous[] only falls as devices are added: once the
              // sub-ideal alone reaches b, more replicas cannot help.
              const double fewest = std::floor(load / b);
              if (!(fewest < a)) continue;
              for (int r = std::max(1, static_cast<int>(fewest)); r <= a; ++r) {
                const double before = previous[s - r * step];
                if (before >= b) break;
                b = std::min(b, std::max(before, replicaLoads_[r]));
              }
              if (b < best[s]) {
                best[s] = b;
                improved = true;
              }
            }
          }
          if (states_.cpus > 0) {
            const double load = walker.cpu;
            for (int s = 1; s < numStates; ++s) {
              if (states_.cpusOf(s) == 0) continue;
              const double candidate = std::max(previous[s - 1], load);
              if (candidate < best[s]) {
                best[s] = candidate;
                improved = true;
              }
            }
          }
          if (improved) {
            closeUnderUnusedDevices(states_, best);
            updateLimits();
          }
          return true;
        },
        nullptr);
    closeUnderUnusedDevices(states_, best);
  }

  const ContractedGraph& graph_;
  const IdealLattice& lattice_;
  DeviceStates states_;
  const Machine& machine_;
  double cap_;
  std::size_t stride_;
  std::vector<double> values_;
  std::vector<double> parameters_;  ///< per super-node
  mutable std::vector<double> replicaLoads_;
  std::vector<double> pathSums_;
};

}  // namespace

SolveOutcome solveReplicated(const Workload& workload, const SolveOptions& options, const char* method,
                             ContractionOptions contraction, bool exact, SolverFunction pure) {
  SolveOutcome outcome;
  const std::string name = method;
  if (auto refused = baseline::replicationRefusal(workload, options)) return *refused;
  // The pure pipeline first: replication keeps every plan it has, so its
  // plan bounds the search (and without one there is none here either).
  SolveOptions pureOptions = options;
  pureOptions.replicate = false;
  SolveOutcome pipeline = pure(workload, pureOptions);
  if (!pipeline.ok() || !pipeline.placement || workload.numNodes() == 0) return pipeline;
  const double pureMaxLoad = objective::throughputObjective(workload, *pipeline.placement, false);
  // The exact DP also starts from the optimum along one order (few ideals):
  // usually close, and a far tighter cap than the pure pipeline's.
  SolveOutcome incumbent = pipeline;
  std::string incumbentName = "the pure pipeline's plan (no replicas)";
  if (exact) {
    SolveOutcome chain =
        solveReplicated(workload, options, "dp-linear", contraction, false, solveDpLinear);
    if (chain.ok() && chain.placement && chain.found() && chain.objective < pureMaxLoad) {
      incumbent = std::move(chain);
      incumbentName = "the best plan with replicas along one order (dp-linear --replicate)";
    }
  }
  const double cap = objective::throughputObjective(workload, *incumbent.placement, false);

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
  const auto deadline = deadlineOf(options);

  // What stops the search keeps the best plan so far.
  auto keepIncumbent = [&](StopReason stop, std::string why) {
    incumbent.stop = stop;
    incumbent.status = SolveStatus::Feasible;
    incumbent.lowerBound = 0;
    incumbent.message = why + "; returning " + incumbentName;
    return incumbent;
  };
  if (states.count() > DeviceStates::kMaxCount)
    return keepIncumbent(StopReason::MemoryLimit, name + " --replicate: too many device states");
  IdealLattice lattice;
  IdealLattice::Limits limits;
  limits.maxIdeals = options.maxIdeals;
  limits.memoryLimitBytes = options.memoryLimitBytes;
  limits.extraBytesPerIdeal = static_cast<std::uint64_t>(states.count()) * sizeof(double);
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
  ReplicatedDp dp(workload, graph, lattice, states, cap);
  std::uint64_t blocks = 0;
  if (!phases.time("dp", [&] { return dp.run(deadline, options.interrupt, &blocks); })) {
    const bool interrupted = options.interrupt && options.interrupt->load();
    return keepIncumbent(interrupted ? StopReason::Interrupt : StopReason::TimeLimit,
                         interrupted ? "interrupted during the DP" : "the time limit stopped the DP");
  }
  std::vector<Block> chain;
  if (!phases.time("backtrack", [&] { return dp.backtrack(&chain); })) {
    outcome.call = CallStatus::InternalError;
    outcome.message = "internal error: " + name + " --replicate could not recover its plan";
    return outcome;
  }
  outcome.placement = placementOf(workload, graph, chain);
  outcome.objective = objective::throughputObjective(workload, *outcome.placement, false);
  // The grid's optimum is at most the true one (latencies rounded down); an
  // exact method's plan is optimal when its true max-load is that optimum.
  const bool optimal = exact && outcome.objective <= aboveRounding(dp.optimum());
  outcome.status = optimal ? SolveStatus::Optimal : SolveStatus::Feasible;
  outcome.lowerBound = exact ? std::min(dp.optimum(), outcome.objective) : 0;
  int replicated = 0, used = 0;
  for (const Block& block : chain)
    if (block.accelerator) {
      used += block.replicas;
      replicated += block.replicas > 1 ? 1 : 0;
    }
  outcome.message =
      std::string(exact ? "optimal over contiguous placements with replicated blocks"
                        : "optimal with replicated blocks for one " + std::string(kOrderNote)) +
      " (" + std::to_string(replicated) + " of " + std::to_string(chain.size()) +
      " blocks replicated, " + std::to_string(used) + " accelerators; " +
      std::to_string(lattice.numIdeals()) + " ideals, " + std::to_string(blocks) +
      " blocks; the pure pipeline: " + formatShortest(pureMaxLoad) + ")";
  outcome.phases = pipeline.phases;
  for (const PhaseTime& phase : phases.take())
    outcome.phases.push_back({"replicate " + phase.name, phase.seconds});
  return outcome;
}

}  // namespace dnnplace::dp
