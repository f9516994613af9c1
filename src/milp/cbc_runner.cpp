#include "milp/cbc_runner.hpp"

#include <algorithm>
#include <memory>
#include <sstream>

#include "CbcEventHandler.hpp"
#include "CbcModel.hpp"
#include "CbcStrategy.hpp"
#include "OsiClpSolverInterface.hpp"
#include "milp/limits.hpp"
#include "milp/model_builder.hpp"
#include "util/deadline.hpp"
#include "util/format.hpp"

namespace dnnplace::milp {

namespace {

using Clock = std::chrono::steady_clock;

/// Stops the search on Ctrl-C or at the wall-clock deadline, and reports
/// progress at most twice a second.
class StopHandler : public CbcEventHandler {
 public:
  StopHandler(const SolveOptions* options, Clock::time_point start, double deadlineSeconds)
      : options_(options), start_(start), deadline_(deadlineSeconds) {}
  CbcEventHandler* clone() const override { return new StopHandler(*this); }
  CbcAction event(CbcEvent) override {
    const double elapsed = secondsSince(start_);
    if (options_->progress && model_ && elapsed - lastReport_ >= 0.5) {
      lastReport_ = elapsed;
      std::ostringstream line;
      line << "milp: " << elapsed << " s, nodes " << model_->getNodeCount() << ", bound "
           << model_->getBestPossibleObjValue();
      if (model_->bestSolution()) line << ", incumbent " << model_->getObjValue();
      options_->progress(line.str());
    }
    const bool interrupted = options_->interrupt && options_->interrupt->load();
    if (options_->memoryLimitBytes > 0 && elapsed - lastMemoryCheck_ >= 0.05) {
      lastMemoryCheck_ = elapsed;
      if (static_cast<double>(residentBytes()) > 0.95 * static_cast<double>(options_->memoryLimitBytes))
        *memoryReached_ = true;
    }
    return interrupted || elapsed >= deadline_ || *memoryReached_ ? stop : noAction;
  }
  /// Shared by the clones CBC makes.
  std::shared_ptr<bool> memoryReached() const { return memoryReached_; }

 private:
  const SolveOptions* options_;
  Clock::time_point start_;
  double deadline_;
  double lastReport_ = 0;
  double lastMemoryCheck_ = 0;
  std::shared_ptr<bool> memoryReached_ = std::make_shared<bool>(false);
};

}  // namespace

std::vector<double> completeSolution(const OsiClpSolverInterface& base,
                                     const std::vector<std::pair<int, double>>& integers,
                                     double seconds, double* objective, std::string* why,
                                     const std::atomic<bool>* interrupt) {
  const Clock::time_point deadline = deadlineAfter(seconds);
  CoinPtr<OsiClpSolverInterface> lp(dynamic_cast<OsiClpSolverInterface*>(base.clone()));
  lp->getModelPtr()->setMaximumWallSeconds(seconds);
  auto fired = std::make_shared<std::atomic<bool>>(false);
  stopSimplexAt(*lp, deadline, interrupt, fired);
  for (const auto& [column, value] : integers) {
    lp->setColLower(column, value);
    lp->setColUpper(column, value);
  }
  for (int c = 0; c < lp->getNumCols(); ++c) lp->setContinuous(c);
  lp->messageHandler()->setLogLevel(0);
  lp->initialSolve();
  if (!lp->isProvenOptimal() || *fired) {
    if (why)
      *why = lp->isProvenPrimalInfeasible() && !*fired ? "rejected by the model"
             : interrupt && interrupt->load()          ? "not given to CBC: interrupted"
             : lp->getModelPtr()->status() == 3 || *fired  // Clp: stopped on iterations or time
                 ? "not given to CBC: completing it took more than " + formatShortest(seconds) + " s"
                 : "not given to CBC: completing it ended with LP status " +
                       std::to_string(lp->getModelPtr()->status());
    return {};
  }
  *objective = lp->getObjValue();
  return {lp->getColSolution(), lp->getColSolution() + lp->getNumCols()};
}

CbcResult runCbc(OsiClpSolverInterface& solver, const std::vector<double>& start, double startObjective,
                 const SolveOptions& options, Clock::time_point began) {
  CbcResult result;
  const double remaining = std::max(0.5, options.timeLimitSeconds - secondsSince(began));
  auto model = makeCoin<CbcModel>(solver);
  model->setLogLevel(0);
  model->messageHandler()->setLogLevel(0);
  model->solver()->messageHandler()->setLogLevel(0);
  model->setUseElapsedTime(true);
  model->setMaximumSeconds(remaining);
  model->setAllowableFractionGap(options.relativeGap);
  model->setAllowableGap(1e-9);
  CbcStrategyDefault strategy(1, 5, 5);
  model->setStrategy(strategy);
  StopHandler handler(&options, began, options.timeLimitSeconds);
  model->passInEventHandler(&handler);
  if (!start.empty())
    model->setBestSolution(start.data(), static_cast<int>(start.size()), startObjective, true);
  model->branchAndBound();

  // An LP that hit the wall-clock limit inside CBC leaves its bound unproven.
  const bool abandoned = model->isAbandoned();
  result.provenInfeasible = !abandoned && model->isProvenInfeasible() && !model->bestSolution();
  result.provenOptimal = !abandoned && model->isProvenOptimal() && model->bestSolution();
  // Stopped before any node was processed (inside the root's cut or
  // heuristic passes), CBC may report the incumbent as its bound: only
  // trust its bound once the search tree exists or the search finished.
  const bool boundProven = !abandoned && (result.provenOptimal || model->getNodeCount() > 0);
  result.bound = boundProven ? model->getBestPossibleObjValue() : -kInfinity;
  if (abandoned) result.note = "CBC abandoned the search (an LP hit the time limit)";
  if (model->bestSolution()) {
    result.hasSolution = true;
    result.solution.assign(model->bestSolution(), model->bestSolution() + model->getNumCols());
  }
  if (*handler.memoryReached()) {
    result.memoryLimitReached = true;
    result.provenOptimal = result.provenInfeasible = false;
    if (result.note.empty()) result.note = "stopped near the memory limit";
  }
  if (model->isSecondsLimitReached() && result.note.empty()) result.note = "time limit reached";
  return result;
}

}  // namespace dnnplace::milp
