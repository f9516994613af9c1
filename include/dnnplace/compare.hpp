#pragma once
/// Running several methods on several workloads side by side (`dnnplace compare`).

#include <string>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

struct CompareRow {
  std::string workload;
  SolveOutcome outcome;
  double ratioToBest = 0;  ///< objective / best feasible objective on this workload
  int devicesUsed = 0;
};

/// Methods run by default for an objective: every registered method that
/// supports it and needs no extra input (e.g. not "expert").
std::vector<std::string> defaultMethods(Objective objective);

/// Runs each method on each workload (every plan re-checked by the evaluator).
std::vector<CompareRow> compareMethods(const std::vector<const Workload*>& workloads,
                                       const std::vector<std::string>& methods,
                                       const SolveOptions& options);

/// format: "text" (aligned table), "json" or "csv".
std::string formatComparison(const std::vector<CompareRow>& rows, const std::string& format);

}  // namespace dnnplace
