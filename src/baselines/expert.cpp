// Method "expert": a split written by hand (--plan), checked by the evaluator.
#include "baselines/expert.hpp"

#include "baselines/common.hpp"
#include "dnnplace/plan.hpp"
#include "util/format.hpp"

namespace dnnplace {

SolveOutcome solveExpert(const Workload& w, const SolveOptions& options) {
  if (options.expertPlanPath.empty())
    return failedCall(CallStatus::InvalidInput,
                      "method 'expert' needs --plan FILE (a split written by hand)");
  std::string error;
  auto file = loadPlan(options.expertPlanPath, &error, readLimitFor(options.memoryLimitBytes));
  if (!file || !checkReplicas(w, *file, options.expertPlanPath, &error))
    return failedCall(CallStatus::InvalidInput, error);
  std::vector<std::string> problems;
  Placement placement = resolvePlan(w, *file, &problems);
  EvaluateOptions evalOptions = evaluateOptionsFor(options);
  Evaluation evaluation = evaluate(w, placement, evalOptions);
  problems.insert(problems.end(), evaluation.violations.begin(), evaluation.violations.end());
  if (!problems.empty()) {
    std::string why = options.expertPlanPath + " is not a feasible plan for " + w.name;
    for (const auto& p : problems) why += "; " + p;
    return baseline::infeasible(why);
  }
  SolveOutcome outcome;
  outcome.status = SolveStatus::Feasible;
  outcome.placement = std::move(placement);
  outcome.objective = evaluation.objective;  // the method *is* an evaluation
  return outcome;
}

}  // namespace dnnplace
