#pragma once
/// Running CBC on a built model: the warm start completed to a full
/// solution, branch and bound under the wall-clock limit, the interrupt and
/// progress lines, and what CBC proved.

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/solver.hpp"
#include "milp/model_builder.hpp"

class OsiClpSolverInterface;

namespace dnnplace::milp {

struct CbcResult {
  bool provenOptimal = false;
  bool provenInfeasible = false;
  bool hasSolution = false;
  std::vector<double> solution;
  double bound = -kInfinity;
  bool memoryLimitReached = false;  ///< stopped because the process neared --memory-limit
  std::string note;
};

/// A complete MILP solution extending the given integer values: fix them and
/// solve the LP for the continuous columns. Empty when that LP is infeasible
/// or does not finish within `seconds` or before `*interrupt` is set (then
/// *why, when given, says which).
std::vector<double> completeSolution(const OsiClpSolverInterface& base,
                                     const std::vector<std::pair<int, double>>& integers,
                                     double seconds, double* objective, std::string* why = nullptr,
                                     const std::atomic<bool>* interrupt = nullptr);

/// Branch and bound from the solved root LP of `solver`, started from
/// `start` (empty: none) and stopped at `options.timeLimitSeconds` after
/// `began`, on `options.interrupt`, at `options.relativeGap` or once the
/// process's resident memory nears `options.memoryLimitBytes`; progress
/// lines at most twice a second.
CbcResult runCbc(OsiClpSolverInterface& solver, const std::vector<double>& start, double startObjective,
                 const SolveOptions& options, std::chrono::steady_clock::time_point began);

}  // namespace dnnplace::milp
