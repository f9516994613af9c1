#include "milp/milp.hpp"
#include "dnnplace/solver.hpp"
#include "util/deadline.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "OsiClpSolverInterface.hpp"
#include "baselines/common.hpp"
#include "bounds/latency_bound.hpp"
#include "bounds/throughput_bound.hpp"
#include "milp/cbc_runner.hpp"
#include "milp/limits.hpp"
#include "milp/model.hpp"
#include "milp/model_file.hpp"
#include "milp/polish.hpp"
#include "objective/class_totals.hpp"
#include "objective/placement_checks.hpp"
#include "util/format.hpp"

namespace dnnplace {

using namespace milp;

namespace {

using Clock = std::chrono::steady_clock;

/// MILP's message for a class that fits no device.
std::string unplaceableMessage(const Workload& w, const objective::ClassTotals& totals,
                               const objective::Unplaceable& unplaceable) {
  using Reason = objective::Unplaceable::Reason;
  if (unplaceable.reason == Reason::NoDevices) return "the machine has no accelerator and no CPU core";
  const std::string what = objective::describeClass(w, unplaceable.cls);
  if (unplaceable.reason == Reason::Unsupported)
    return what +
           " has an operator unsupported on accelerators and there is no CPU core (maxCPUs is 0)";
  std::ostringstream why;
  why << what << " needs " << totals.size[unplaceable.cls] << " bytes, accelerators hold "
      << w.machine.maxSizePerFpga << " bytes, and maxCPUs is 0";
  return why.str();
}

}  // namespace

std::optional<SolveOutcome> milpRefusal(const Workload& w, const SolveOptions& options) {
  const bool latency = options.objective == Objective::Latency;
  if (latency && options.q < 1) return failedCall(CallStatus::InvalidInput, "q must be at least 1");
  if (!options.writeModelPath.empty())
    if (std::string why = modelPathProblem(options.writeModelPath); !why.empty())
      return failedCall(CallStatus::InvalidInput, why);
  if (latency && options.contiguity == Contiguity::Convex)
    return failedCall(CallStatus::InvalidInput,
                      "--contiguity applies to the throughput objective only");
  // Latency: CPU nodes run on as many cores as needed, but need at least one to exist.
  const objective::ClassTotals totals(w);
  if (const auto unplaceable = objective::findUnplaceable(w, totals, w.machine.maxCpus > 0))
    return baseline::refusal(SolveStatus::Infeasible, unplaceableMessage(w, totals, *unplaceable));
  return std::nullopt;
}

SolveOutcome solveMilp(const Workload& w, const SolveOptions& options, const MilpInput& input) {
  const auto began = input.began;
  if (auto refusal = milpRefusal(w, options)) return *refusal;
  SolveOutcome outcome;
  PhaseTimes phases(&outcome.phases);
  const bool latency = options.objective == Objective::Latency;
  const objective::ClassTotals totals(w);
  Allowed allowed{totals.acceleratorAllowed(w.machine), w.machine.maxCpus > 0};
  // Every phase below stops at the deadline or on the interrupt.
  Clock::time_point deadline = deadlineAfter(options.timeLimitSeconds);
  if (deadline != Clock::time_point::max()) deadline -= Clock::now() - began;
  auto secondsLeft = [&] { return options.timeLimitSeconds - secondsSince(began); };
  auto stopped = [&] { return pastLimit(deadline, options.interrupt); };

  // The best warm start that is a plan of the model's problem.
  Candidate best;
  for (const WarmStart& start : input.warmStarts) {
    if (!objective::matchesMachine(w, start.placement) ||
        !objective::placementProblem(w, start.placement).empty())
      continue;
    Placement p = canonical(w, start.placement, latency);
    const auto value = objectiveFor(w, p, options);
    if (value && *value < best.objective) best = {p, *value, start.method};
  }

  polish(w, options, allowed,
         std::min((latency ? 0.25 : 0.05) * options.timeLimitSeconds, 0.5 * secondsLeft()), &best);
  phases.end("polish start");

  // Throughput: the bounds of bounds/throughput_bound.hpp below the best
  // start, with up to 40% of the time limit (they often prove it optimal,
  // and then CBC is not needed), without the covering MILP (CBC's own
  // model sees integrality). They bound diffmaxima and convex plans too.
  std::optional<bounds::ThroughputBound> strong;
  if (!latency && !stopped()) {
    const auto until = std::min(deadline, deadlineAfter(std::min(0.4 * options.timeLimitSeconds,
                                                                 0.6 * std::max(0.0, secondsLeft()))));
    strong = bounds::throughputBound(w, totals, best.objective, until, options.interrupt, false,
                                     baseline::memoryLeft(w, options));
  }
  phases.end("bound");
  const double strongBound = strong ? strong->value() : 0;
  const bool boundCloses = best.objective < kInfinity &&
                           strongBound >= best.objective * (1 - options.relativeGap);

  // Latency: the bound first (the model needs it too); its best split,
  // read as plans and each polished, gives more starts.
  std::optional<LatencyLowerBound> latencyBound;
  if (latency) {
    latencyBound = latencyLowerBound(w, allowed.accelerator, allowed.cpu, options.q, deadline);
    phases.end("latency bound");
    for (const std::vector<int>& plan : latencyBound->suggestedPlans) {
      Placement p;
      p.numAccelerators = w.machine.maxFpgas;
      p.numCpus = w.machine.maxCpus;
      p.deviceOf.resize(w.numNodes());
      for (NodeIndex v = 0; v < w.numNodes(); ++v)
        p.deviceOf[v] = plan[v] >= 0 ? plan[v] : Placement::cpuDevice(p.numAccelerators, 0);
      if (!objective::matchesMachine(w, p) || !objective::placementProblem(w, p).empty()) continue;
      p = canonical(w, p, latency);
      const auto value = objectiveFor(w, p, options);
      if (!value) continue;
      Candidate split{p, *value, "bound split"};
      polish(w, options, allowed, std::min(0.05 * options.timeLimitSeconds, 0.25 * secondsLeft()),
             &split);
      if (split.objective < best.objective * (1 - 1e-12)) best = split;
    }
    phases.end("bound split");
  }

  // The model the limits allow (for latency perhaps a smaller q), built
  // only while time is left.
  ModelChoice choice = chooseModel(w, options, secondsLeft());
  if (boundCloses && choice.build && options.writeModelPath.empty()) {
    choice.build = false;
    choice.note = "the lower bound proves the start optimal: no MILP was built";
  }
  std::ostringstream notes;
  notes << (latency ? "latency, q = " + std::to_string(options.q)
                    : std::string("throughput") + (options.diffMaxima ? " (diffmaxima)" : "") +
                          (options.contiguity == Contiguity::Convex
                               ? ", convex blocks (forward paths never re-enter a device)"
                               : ", any placement"));
  const bool shrunk = choice.build && choice.q != (latency ? options.q : 1);
  double simpleBound = 0;
  std::optional<Model> model;
  CoinPtr<OsiClpSolverInterface> solver;
  std::string skipped = choice.note;
  if (choice.build && stopped())
    skipped = options.interrupt && options.interrupt->load() ? "the model was not built"
                                                             : "no time was left to build the model";
  // A start that meets the latency bound is optimal: no model to build.
  // (Unless the model is to be written.)
  const bool startMeetsBound =
      latencyBound && options.writeModelPath.empty() && best.objective < kInfinity &&
      best.objective - latencyBound->value() <= options.relativeGap * best.objective + 1e-9;
  if (startMeetsBound)
    skipped = "warm start " + best.method + " " + formatShortest(best.objective) +
              " meets the lower bound, so no model was built";
  if ((skipped.empty() || shrunk) && !startMeetsBound) {
    try {
      const bool sameQ = latencyBound && choice.q == options.q;
      model = latency ? latencyModel(w, totals, allowed, choice.q, best.objective, deadline,
                                     options.interrupt, sameQ ? &*latencyBound : nullptr)
                      : throughputModel(w, totals, allowed, options, deadline);
      solver = model->builder.build();
      notes << "; model " << model->builder.numRows() << " rows, " << model->builder.numColumns()
            << " columns";
    } catch (const std::length_error& tooLarge) {
      model.reset();
      solver.reset();
      skipped = std::string(tooLarge.what()) + "; no MILP was built, the plan is the best warm start";
    } catch (const BuildStopped&) {
      model.reset();
      skipped = stopped() && !(options.interrupt && options.interrupt->load())
                    ? "the time limit passed while building the model"
                    : "the model was abandoned half built";
    }
  }
  if (!skipped.empty()) notes << "; " << skipped;
  if (model) simpleBound = model->simpleBound;
  if (latency && (shrunk || !model))  // the bound for the q asked for
    simpleBound = latencyBound->value();
  else if (!model && !options.diffMaxima)
    simpleBound = objective::throughputLowerBound(w, totals);
  simpleBound = std::max(simpleBound, strongBound);
  // CBC's bound starts from the strong one.
  if (solver && model->objectiveColumn >= 0 && strongBound > 0)
    solver->setColLower(model->objectiveColumn,
                        std::max(solver->getColLower()[model->objectiveColumn], strongBound));
  if (solver && !options.writeModelPath.empty()) writeModel(*solver, options.writeModelPath);
  phases.end("build");

  std::vector<double> start;
  double startObjective = 0;
  if (solver && best.objective < kInfinity && !stopped()) {
    // Copying and presolving the model for that LP cannot be interrupted.
    const double given = std::min(std::max(0.2, 0.2 * options.timeLimitSeconds), secondsLeft());
    const double seconds = std::max(0.1, std::floor(given * 10) / 10);
    std::string why = "not given to CBC: completing it would take more than " +
                      formatShortest(seconds) + " s";
    if (choice.size.buildSeconds() <= seconds)
      start = completeSolution(*solver, model->integerValues(best.placement), seconds, &startObjective,
                               &why, options.interrupt);
    notes << "; warm start " << best.method << " " << best.objective;
    if (start.empty()) notes << " (" << why << ")";
  }
  phases.end("complete start");

  // The root LP relaxation first, stopped at the deadline or on the
  // interrupt (CBC would not stop it); its optimum is a proven bound, and
  // its basis starts CBC.
  CbcResult cbc;
  double rootBound = -kInfinity;
  if (solver && !stopped()) {
    auto fired = std::make_shared<std::atomic<bool>>(false);
    stopSimplexAt(*solver, deadline, options.interrupt, fired);
    solver->getModelPtr()->setMaximumWallSeconds(std::max(0.2, secondsLeft()));
    solver->initialSolve();
    const bool rootSolved = solver->isProvenOptimal() && !*fired;
    const bool rootInfeasible = solver->isProvenPrimalInfeasible() && !*fired;
    if (rootSolved) rootBound = solver->getObjValue();
    phases.end("root LP");
    if (rootSolved && !stopped()) {
      solver->getModelPtr()->setMaximumWallSeconds(std::max(0.2, secondsLeft()));
      cbc = runCbc(*solver, start, startObjective, options, began);
      if (*fired) {  // an LP inside CBC was cut short: what it proved is not proven
        cbc.provenOptimal = cbc.provenInfeasible = false;
        cbc.bound = -kInfinity;
      }
    } else if (rootInfeasible) {
      cbc.provenInfeasible = true;
    } else {
      const bool interrupted = options.interrupt && options.interrupt->load();
      cbc.note = rootSolved    ? "stopped after the LP relaxation"
                 : interrupted ? "the LP relaxation did not finish"
                               : "the LP relaxation did not finish within the time limit";
    }
  } else {
    if (solver && !(options.interrupt && options.interrupt->load()))
      cbc.note = "no time was left for the LP relaxation";
    phases.end("root LP");
  }
  if (shrunk) {  // proofs about the smaller q say nothing about the q asked for
    cbc.provenOptimal = cbc.provenInfeasible = false;
    cbc.bound = rootBound = -kInfinity;
  }
  const double cbcOwnBound = std::max(cbc.bound, rootBound);
  cbc.bound = std::max({cbc.bound, rootBound, simpleBound});
  phases.end("branch and bound");

  // Read the plan back from the class columns.
  if (cbc.hasSolution) {
    Placement p;
    p.numAccelerators = w.machine.maxFpgas;
    p.numCpus = w.machine.maxCpus;
    p.deviceOf.assign(w.numNodes(), Placement::kUnplaced);
    for (NodeIndex v = 0; v < w.numNodes(); ++v) {
      const auto& columns = model->x[w.graph().classOf[v]];
      for (int d = 0; d < static_cast<int>(columns.size()); ++d)
        if (columns[d] >= 0 && cbc.solution[columns[d]] > 0.5) p.deviceOf[v] = d;
    }
    const auto value = objectiveFor(w, p, options);
    if (value && *value < best.objective * (1 - 1e-12)) best = {p, *value, "milp"};
    if (!value) notes << "; the integer solution did not check out, keeping the warm start";
  }
  polish(w, options, allowed,
         std::min({5.0, 0.05 * options.timeLimitSeconds, std::max(0.0, secondsLeft() + 0.25)}), &best);
  phases.end("polish plan");

  // CBC ends by proving optimality (within the gap) or infeasibility, or at
  // the time limit or an interrupt.
  const bool interrupted = options.interrupt && options.interrupt->load();
  if (interrupted)
    outcome.stop = StopReason::Interrupt;
  else if (cbc.memoryLimitReached)
    outcome.stop = StopReason::MemoryLimit;
  else if (choice.limit != StopReason::None)
    outcome.stop = choice.limit;
  else if (!cbc.provenOptimal && !cbc.provenInfeasible && !boundCloses && !startMeetsBound)
    outcome.stop = StopReason::TimeLimit;
  if (best.objective == kInfinity) {
    outcome.status = cbc.provenInfeasible ? SolveStatus::Infeasible : SolveStatus::NoPlan;
    outcome.message = cbc.provenInfeasible ? "no placement satisfies the memory and device constraints"
                                           : "stopped before finding a feasible plan (" +
                                                 (!skipped.empty()   ? skipped
                                                  : cbc.note.empty() ? std::string("interrupted")
                                                                     : cbc.note) +
                                                 ")";
    outcome.seconds = secondsSince(began);
    return outcome;
  }
  outcome.placement = best.placement;
  outcome.objective = best.objective;
  // CBC's bound; when it proved optimality up to the relative gap, honestly
  // only objective × (1 − gap) is proven unless its bound says less.
  double bound = cbc.bound;
  if (cbc.provenOptimal) bound = std::min(bound, best.objective * (1 - options.relativeGap));
  bound = std::max(bound, simpleBound);  // proven without CBC
  if (!std::isfinite(bound)) bound = 0;
  bound = std::max(0.0, std::min(bound, best.objective));
  outcome.lowerBound = bound;
  const bool withinGap = best.objective - bound <= options.relativeGap * best.objective + 1e-9;
  outcome.status = (cbc.provenOptimal || boundCloses || startMeetsBound) && withinGap
                       ? SolveStatus::Optimal
                       : SolveStatus::Feasible;
  if (interrupted) notes << "; interrupted";
  if (!cbc.note.empty()) notes << "; " << cbc.note;
  notes << "; best plan from " << best.method;
  if (strong) {
    const bool cbcWon = cbcOwnBound > strongBound * (1 + 1e-9) && !boundCloses;
    notes << "; " << strong->describe() << "; the bound reported is "
          << (cbcWon ? "CBC's" : strong->winner());
  }
  outcome.message = notes.str();
  outcome.seconds = secondsSince(began);
  return outcome;
}

}  // namespace dnnplace
