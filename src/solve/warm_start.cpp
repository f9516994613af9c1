#include "solve/warm_start.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "baselines/common.hpp"
#include "baselines/cpu.hpp"
#include "baselines/expert.hpp"
#include "baselines/greedy.hpp"
#include "baselines/local_search.hpp"
#include "baselines/replicas.hpp"
#include "baselines/scotch.hpp"
#include "baselines/single.hpp"
#include "dp/dp.hpp"
#include "objective/loads.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

struct PortfolioMethod {
  const char* name;
  SolverFunction run;
  double share;  ///< of the time limit
};

/// Cheaper methods whose best plan warm-starts the integer program.
std::vector<PortfolioMethod> portfolioFor(const SolveOptions& options) {
  // Shares of the time limit, together well below all of it so the integer
  // program keeps time to run. The DP optimum is the strongest start and
  // sometimes needs a while on the paper's largest graphs, so it gets the most.
  // Local search's restarts give most non-contiguous plans (CBC's incumbent
  // rarely beats them) and their best has a long tail: at 60 s, 20% of the
  // limit (10% before) took BERT-12's operator graphs from 415.8 to 403.5
  // (training) and 142.5 to 139.2 (inference), CBC's bounds unchanged
  // (docs/benchmarks.md, lower bounds).
  if (options.objective == Objective::Latency)
    return {{"greedy", solveLatencyGreedy, 0.05},
            {"single", solveSingleAccelerator, 0.02},
            {"cpu", solveSingleCpu, 0.02},
            {"dp", solveDp, 0.4}};
  return {{"scotch", solveScotch, 0.05},
          {"single", solveSingleAccelerator, 0.02},
          {"cpu", solveSingleCpu, 0.02},
          {"local-search", solveLocalSearch, 0.2},
          {"dp", solveDp, 0.5}};
}

/// The method's outcome; a failed allocation or any exception inside it
/// (CBC's CoinError is not a std::exception) only skips the method.
std::optional<SolveOutcome> runGuarded(const PortfolioMethod& method, const Workload& workload,
                                       const SolveOptions& options) {
  try {
    return method.run(workload, options);
  } catch (const std::bad_alloc&) {
  } catch (const std::exception&) {
  } catch (...) {
  }
  return std::nullopt;
}

}  // namespace

std::vector<WarmStart> warmStartPortfolio(const Workload& workload, const SolveOptions& options) {
  std::vector<WarmStart> starts;
  const auto began = std::chrono::steady_clock::now();
  const std::vector<PortfolioMethod> portfolio = portfolioFor(options);
  double shares = 0;
  for (const PortfolioMethod& method : portfolio) shares += method.share;
  for (const PortfolioMethod& method : portfolio) {
    if (options.interrupt && options.interrupt->load()) break;
    // A method that ran past its share shortens those after it: the
    // portfolio as a whole keeps to the sum of the shares.
    const double left = options.timeLimitSeconds * shares - secondsSince(began);
    shares -= method.share;
    if (left <= 0) break;
    SolveOptions sub = options;
    // Every placement is a plan for diffmaxima too (milp scores each start
    // under its own objective), and max-load is its closest relative: the
    // methods that refuse diffmaxima (dp, local search, Scotch) start it
    // from their max-load plans rather than leave it single and cpu.
    sub.diffMaxima = false;
    sub.timeLimitSeconds = std::max(0.2, std::min(options.timeLimitSeconds * method.share, left));
    sub.progress = nullptr;
    sub.writeModelPath.clear();
    // Local search is cheap per restart: use the time it is given.
    if (std::string(method.name) == "local-search") sub.restarts = std::max(options.restarts, 1000);
    std::optional<SolveOutcome> outcome = runGuarded(method, workload, sub);
    if (!outcome || !outcome->placement ||
        (outcome->status != SolveStatus::Optimal && outcome->status != SolveStatus::Feasible))
      continue;
    starts.push_back({std::move(*outcome->placement), method.name});
  }
  return starts;
}

SolveOutcome solveMilpWarmStarted(const Workload& workload, const SolveOptions& options) {
  if (options.replicate) {
    // docs/model.md §9 on CBC would need a replica count per device and a
    // load divided by it (not linear); docs/model.md says why the MILP's
    // plan gets its replicas by a local search instead.
    if (auto refused = baseline::replicationRefusal(workload, options)) return *refused;
    // One time limit for both parts: the MILP without replicas 70% of it,
    // dp --replicate the rest (each once counted the whole limit: 5 s became 14 s).
    const auto deadline = deadlineOf(options);
    SolveOptions pure = optionsUntil(options, deadline, 0.7);
    pure.replicate = false;
    SolveOutcome outcome = solveMilpWarmStarted(workload, pure);
    if (!outcome.ok() || !outcome.placement || !outcome.found()) return outcome;
    const double before = outcome.objective;
    const std::string milpMessage = outcome.message;
    outcome.placement = baseline::replicateBottlenecks(workload, *outcome.placement);
    outcome.objective = objective::throughputObjective(workload, *outcome.placement, false);
    std::string how = "the MILP's plan (max-load " + formatShortest(before) +
                      ") with the accelerators it leaves idle given to its bottleneck blocks as "
                      "replicas";
    // A contiguous plan is a plan too: dp --replicate's optimum, if better.
    const SolveOutcome contiguous = solveDp(workload, optionsUntil(options, deadline));
    if (contiguous.ok() && contiguous.placement && contiguous.found() &&
        contiguous.objective < outcome.objective) {
      how = "dp --replicate's plan, better than " + how + " (" + formatShortest(outcome.objective) +
            ")";
      outcome.placement = contiguous.placement;
      outcome.objective = contiguous.objective;
    }
    // The bound of the MILP without replicas does not hold with them: the
    // work bound with replication does.
    outcome.lowerBound = std::min(outcome.objective, baseline::replicatedWorkBound(workload));
    // Optimal within --gap, as milp's own plans are.
    outcome.status = outcome.objective - outcome.lowerBound <=
                             options.relativeGap * outcome.objective + 1e-9
                         ? SolveStatus::Optimal
                         : SolveStatus::Feasible;
    if (contiguous.stop != StopReason::None && outcome.stop == StopReason::None)
      outcome.stop = contiguous.stop;
    outcome.message = how + "; lower bound: the work bound with replication" +
                      (milpMessage.empty() ? "" : "; the MILP without replicas: " + milpMessage);
    outcome.seconds = 0;  // solve() times both parts
    return outcome;
  }
  // The model needs no more columns than classes per device type.
  return baseline::onAtMostOneDevicePerClass(workload, [&](const Workload& on) {
    MilpInput input;  // the time limit counts from here
    if (auto refusal = milpRefusal(on, options)) return *refusal;
    input.warmStarts = warmStartPortfolio(on, options);
    const double warmSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - input.began).count();
    SolveOutcome outcome = solveMilp(on, options, input);
    outcome.phases.insert(outcome.phases.begin(), PhaseTime{"warm start", warmSeconds});
    return outcome;
  });
}

}  // namespace dnnplace
