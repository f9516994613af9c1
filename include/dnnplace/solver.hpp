#pragma once
/// The common shape of every placement method: options in, outcome out.
/// `solve` looks a method up by name, runs it and re-checks its plan with the
/// independent evaluator, so no unchecked plan ever leaves the library.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

/// Did the call work? Apart from what the solve concluded (SolveStatus).
enum class CallStatus {
  Ok,             ///< the method ran; `status` says what it concluded
  InvalidInput,   ///< the method cannot run on this input or these options (message says why)
  InternalError,  ///< a bug, e.g. the evaluator rejected the method's plan (message says what)
};

/// What the solve concluded (meaningful when the call is Ok).
enum class SolveStatus {
  Optimal,     ///< proven optimal for the method's problem
  Feasible,    ///< a plan, optimality not proven (heuristic, gap, a limit)
  Infeasible,  ///< proven: no feasible placement (message says why)
  NoPlan,      ///< the work stopped (see StopReason) before any feasible plan
};

/// What stopped the work before it ended by itself.
enum class StopReason {
  None,         ///< it ran to its end
  TimeLimit,    ///< --time-limit
  IdealLimit,   ///< --max-ideals (DP)
  MemoryLimit,  ///< --memory-limit
  Interrupt,    ///< Ctrl-C (SolveOptions::interrupt)
  OutOfMemory,  ///< an allocation failed
};

const char* callStatusName(CallStatus status);  ///< "ok", "invalid_input", "error"
const char* statusName(SolveStatus status);     ///< "optimal", "feasible", "infeasible", "no_solution"
const char* stopReasonName(StopReason reason);  ///< "none", "time_limit", "ideal_limit", ...

/// The placements a method's lower bound and "optimal" are over: those of
/// the methods of contiguous plans (dp, dp-linear, pipedream, with or
/// without --replicate) over contiguous ones (docs/model.md §4), milp
/// --contiguity convex's over convex ones, every other bound over every placement.
enum class BoundScope { Every, Convex, Contiguous };
const char* boundScopeName(BoundScope scope);  ///< "all", "convex", "contiguous"

enum class Contiguity { None, Convex };

struct SolveOptions {
  Objective objective = Objective::Throughput;
  double timeLimitSeconds = 60;
  int threads = 1;
  /// DP: the other threads join a DP run once it has taken this long
  /// (starting and warming up a thread costs more than a short run gains;
  /// docs/benchmarks.md). 0: from the start.
  double threadStartSeconds = 0.005;
  /// DP: read sub-ideal records a few blocks late, after a prefetch, even
  /// when the lattice and the DP table fit the cache (by default only
  /// larger ones are read so); lets tests check that path on small graphs.
  bool dpAlwaysFetchAhead = false;
  std::uint64_t seed = 1;
  int q = 1;                                 ///< latency: subgraphs per accelerator
  bool diffMaxima = false;                   ///< throughput: max FW + max BW
  Contiguity contiguity = Contiguity::None;  ///< MILP throughput
  double relativeGap = 1e-4;                 ///< MILP
  int restarts = 10;                         ///< local search
  std::uint64_t maxIdeals = 0;               ///< 0: no cap (DP)
  std::uint64_t memoryLimitBytes = 0;        ///< 0: no cap (DP)
  /// Fuse the nodes of each layerId first (contractLayers, dnnplace/import.hpp),
  /// solve the layer graph and place the original nodes as their layers.
  bool contractLayers = false;
  /// docs/model.md §9: accelerator blocks may be replicated (dp, dp-linear, pipedream, milp).
  bool replicate = false;
  std::string expertPlanPath;  ///< method "expert"
  std::string writeModelPath;  ///< MILP: export .lp/.mps
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

/// The one way phases are timed, by the methods, solve() and the CLI.
/// Seconds per phase, in the order the phases were first timed; a phase
/// timed several times adds up. Writes into the given list (an outcome's
/// phases) or into its own, which take() hands over.
class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  PhaseTimes() : into_(&own_) {}
  explicit PhaseTimes(std::vector<PhaseTime>* into) : into_(into) {}
  PhaseTimes(const PhaseTimes&) = delete;
  PhaseTimes& operator=(const PhaseTimes&) = delete;

  /// Ends the phase that began at the last end() or time() (or at construction).
  void end(const std::string& name) {
    add(name, std::chrono::duration<double>(Clock::now() - mark_).count());
    mark_ = Clock::now();
  }
  /// Runs f() and adds the time it took to phase `name`; returns f's result.
  template <typename F>
  auto time(const std::string& name, F&& f) {
    const auto start = Clock::now();
    auto result = std::forward<F>(f)();
    add(name, std::chrono::duration<double>(Clock::now() - start).count());
    mark_ = Clock::now();
    return result;
  }
  void add(const std::string& name, double seconds) {
    for (PhaseTime& phase : *into_)
      if (phase.name == name) {
        phase.seconds += seconds;
        return;
      }
    into_->push_back({name, seconds});
  }
  std::vector<PhaseTime> take() { return std::move(*into_); }

 private:
  std::vector<PhaseTime> own_;
  std::vector<PhaseTime>* into_;
  Clock::time_point mark_ = Clock::now();
};

struct SolveOutcome {
  std::string method;
  CallStatus call = CallStatus::Ok;
  SolveStatus status = SolveStatus::NoPlan;
  StopReason stop = StopReason::None;
  std::optional<Placement> placement;
  double objective = 0;                       ///< as the evaluator recomputes it
  double lowerBound = 0;                      ///< proven bound on the method's problem (0 if none)
  BoundScope boundScope = BoundScope::Every;  ///< the placements lowerBound and Optimal are over
  double gap = 0;                             ///< (objective - lowerBound) / objective when both known
  double seconds = 0;
  std::string message;            ///< why infeasible / no solution / error; notes otherwise
  Evaluation evaluation;          ///< the evaluator's verdict on `placement`
  std::vector<PhaseTime> phases;  ///< the method's phases, then "verify" (solve() adds it)

  bool ok() const { return call == CallStatus::Ok; }
  /// A feasible plan came back (Optimal or Feasible).
  bool found() const {
    return ok() && (status == SolveStatus::Optimal || status == SolveStatus::Feasible);
  }
};

/// The one word reports print for an outcome: the call status when the call
/// failed ("invalid_input", "error"), else what the solve concluded.
const char* resultName(const SolveOutcome& outcome);

/// An outcome that says the call could not run (InvalidInput) or failed (InternalError).
SolveOutcome failedCall(CallStatus call, std::string message);

using SolverFunction = SolveOutcome (*)(const Workload&, const SolveOptions&);

/// Options that only some methods, or only one objective, read. The CLI
/// refuses one given where it would be ignored (ignoredOption).
enum class MethodOption : unsigned {
  Plan,        ///< --plan: the split "expert" evaluates
  WriteModel,  ///< --write-model: the exported MILP
  Contiguity,  ///< --contiguity
  Gap,         ///< --gap: where the MILP stops
  Restarts,    ///< --restarts: local-search restarts (milp's warm start runs them too)
  Q,           ///< --q: latency only, with every method
  DiffMaxima,  ///< --diffmaxima: throughput only, with every method
  Replicate,   ///< --replicate: replicated blocks (dp, dp-linear, pipedream, milp)
};

/// A set of MethodOption.
class OptionSet {
 public:
  constexpr OptionSet() = default;
  constexpr OptionSet(std::initializer_list<MethodOption> options) {
    for (const MethodOption option : options) add(option);
  }
  constexpr void add(MethodOption option) { bits_ |= 1u << static_cast<unsigned>(option); }
  constexpr bool has(MethodOption option) const {
    return (bits_ >> static_cast<unsigned>(option) & 1u) != 0;
  }

 private:
  unsigned bits_ = 0;
};

struct MethodInfo {
  std::string name;
  bool throughput;  ///< supports the throughput objective
  bool latency;     ///< supports the latency objective
  std::string summary;
  SolverFunction run;
  bool contiguousPlans =
      false;  ///< its plans are contiguous (docs/model.md §4): solve() re-checks that too
  /// Of the options only some methods read (Plan, WriteModel, Contiguity,
  /// Gap, Restarts), those this one reads. Q and DiffMaxima follow the objective.
  OptionSet takes = {};
  bool needsPlan = false;   ///< runs only on a split given with --plan (so compare cannot run it)
  bool diffMaxima = false;  ///< supports --diffmaxima (throughput: max FW + max BW)

  bool supports(Objective objective) const {
    return objective == Objective::Latency ? latency : throughput;
  }
  /// The objective, and with `diffMaxima` the max FW + max BW form of it.
  bool supports(Objective objective, bool diffMaximaAsked) const {
    return supports(objective) && (!diffMaximaAsked || diffMaxima);
  }
};

/// Every method the library offers, in display order.
const std::vector<MethodInfo>& methods();
const MethodInfo* findMethod(const std::string& name);

/// "unknown method 'NAME' (expected one of: dp, dp-linear, ...)".
std::string unknownMethod(const std::string& name);

/// "method 'NAME' does not support the latency objective".
std::string unsupportedObjective(const std::string& name, Objective objective);

/// The first option of `given` that would be ignored, as one line saying
/// where it applies ("--gap applies to --method milp only"); empty if none.
/// Without a method (compare, evaluate) only the objective's rules apply.
std::string ignoredOption(const MethodInfo* method, Objective objective, OptionSet given);

/// Runs a method and re-checks its plan with the evaluator (status Error if
/// the evaluator disagrees with the method about feasibility or objective, if
/// a method of contiguous plans returns one that is not, or if the method's
/// lower bound is above its own plan's objective).
SolveOutcome solve(const Workload& workload, const std::string& method, const SolveOptions& options);

/// Now plus the time limit; no deadline when the limit is not a positive
/// number of seconds below 10^7.
std::chrono::steady_clock::time_point deadlineOf(const SolveOptions& options);

/// `options` whose time limit is the time left until `deadline` (at least a
/// millisecond), or, with `share` below 1, that share of it: for the parts of
/// a method made of other methods, so that together they keep one limit.
/// Without a deadline (time_point::max()) `options` as they are.
SolveOptions optionsUntil(const SolveOptions& options, std::chrono::steady_clock::time_point deadline,
                          double share = 1);

/// Evaluator options matching what a solve was asked to optimize.
EvaluateOptions evaluateOptionsFor(const SolveOptions& options);

/// A plan file checked against a workload (`dnnplace evaluate`): ids the
/// workload lacks and nodes listed twice come first among the violations,
/// then the evaluator's; feasible if there are none.
Evaluation evaluatePlan(const Workload& workload, const PlanFile& plan, const EvaluateOptions& options);
/// evaluatePlan of the plan file at `path` ("-": standard input); nullopt
/// (and *error) if it cannot be read or is not a plan.
std::optional<Evaluation> evaluatePlanFile(const Workload& workload, const std::string& path,
                                           const EvaluateOptions& options, std::string* error);

/// A bound on the optimal max-load valid for every placement (docs/model.md §3
/// and the work bound of docs/bounds.md §1): each class must go somewhere,
/// the total work spreads over k + ℓ devices, and whole classes pack.
double trivialThroughputLowerBound(const Workload& workload);

/// The same for placements with replicated stages (docs/model.md §9), which
/// divide a class's load between replicas: the least work of every node over
/// all k + ℓ devices (a block's r replicas together carry at least its work).
double replicatedThroughputLowerBound(const Workload& workload);

}  // namespace dnnplace
