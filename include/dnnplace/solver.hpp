#pragma once
/// The common shape of every placement method: options in, outcome out.
/// `solve` looks a method up by name, runs it and re-checks its plan with the
/// independent evaluator, so no unchecked plan ever leaves the library.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

enum class SolveStatus {
  Optimal,       ///< proven optimal for the method's problem
  Feasible,      ///< a plan, optimality not proven (heuristic, gap, time limit)
  Infeasible,    ///< proven: no feasible placement (message says why)
  NoSolution,    ///< a limit stopped the work before any feasible plan
  InvalidInput,  ///< the method cannot run on this input/options (message says why)
  Error,         ///< internal failure, e.g. the evaluator rejected the plan
};
const char* statusName(SolveStatus status);

enum class Contiguity { None, Convex };

struct SolveOptions {
  Objective objective = Objective::Throughput;
  double timeLimitSeconds = 60;
  int threads = 1;
  /// DP: the other threads join a DP run once it has taken this long (a
  /// thread costs about 0.5 ms to start and warm up here; shorter runs are
  /// faster alone). 0: from the start.
  double threadStartSeconds = 0.005;
  /// DP: read sub-ideal records a few blocks late, after a prefetch, even
  /// when the lattice and the DP table fit the cache (by default only
  /// larger ones are read so); lets tests check that path on small graphs.
  bool dpAlwaysFetchAhead = false;
  std::uint64_t seed = 1;
  int q = 1;                      ///< latency: subgraphs per accelerator
  bool diffMaxima = false;        ///< throughput: max FW + max BW
  Contiguity contiguity = Contiguity::None;  ///< MILP throughput
  double relativeGap = 1e-4;      ///< MILP
  int restarts = 10;              ///< local search
  std::uint64_t maxIdeals = 0;    ///< 0: no cap (DP)
  std::uint64_t memoryLimitBytes = 0;  ///< 0: no cap (DP)
  std::string expertPlanPath;     ///< method "expert"
  std::string writeModelPath;     ///< MILP: export .lp/.mps
  /// Receives progress lines (no trailing newline); may be empty.
  std::function<void(const std::string&)> progress;
  /// Set asynchronously (Ctrl-C): stop and return the incumbent.
  const std::atomic<bool>* interrupt = nullptr;
};

/// The time one named phase of a run took (--verbose lists them in order).
struct PhaseTime {
  std::string name;  ///< e.g. "contract", "seed", "enumerate", "dp", "backtrack", "verify"
  double seconds = 0;
};

struct SolveOutcome {
  std::string method;
  SolveStatus status = SolveStatus::Error;
  std::optional<Placement> placement;
  double objective = 0;    ///< as the evaluator recomputes it
  double lowerBound = 0;   ///< proven bound on the method's problem (0 if none)
  double gap = 0;          ///< (objective - lowerBound) / objective when both known
  double seconds = 0;
  std::string message;     ///< why infeasible / no solution / error; notes otherwise
  Evaluation evaluation;   ///< the evaluator's verdict on `placement`
  std::vector<PhaseTime> phases;  ///< the method's phases, then "verify" (solve() adds it)
};

using SolverFunction = SolveOutcome (*)(const Workload&, const SolveOptions&);

struct MethodInfo {
  std::string name;
  bool throughput;  ///< supports the throughput objective
  bool latency;     ///< supports the latency objective
  std::string summary;
  SolverFunction run;
  bool contiguousPlans = false;  ///< its plans are contiguous (DESIGN §4): solve() re-checks that too
};

/// Every method the library offers, in display order.
const std::vector<MethodInfo>& methods();
const MethodInfo* findMethod(const std::string& name);

/// Runs a method and re-checks its plan with the evaluator (status Error if
/// the evaluator disagrees with the method about feasibility or objective, if
/// a method of contiguous plans returns one that is not, or if the method's
/// lower bound is above its own plan's objective).
SolveOutcome solve(const Workload& workload, const std::string& method,
                   const SolveOptions& options);

/// Now plus the time limit; no deadline when the limit is not a positive
/// number of seconds below 10^7.
std::chrono::steady_clock::time_point deadlineOf(const SolveOptions& options);

/// Evaluator options matching what a solve was asked to optimize.
EvaluateOptions evaluateOptionsFor(const SolveOptions& options);

/// A bound on the optimal max-load valid for every placement (DESIGN §3):
/// each class must go somewhere, and the total work spreads over k + ℓ devices.
double trivialThroughputLowerBound(const Workload& workload);

}  // namespace dnnplace
