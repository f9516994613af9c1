#pragma once
/// Running several methods on several workloads side by side (`dnnplace compare`).

#include <optional>
#include <string>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

struct CompareRow {
  std::string workload;
  SolveOutcome outcome;
  double ratioToBest = 0;  ///< objective / best feasible objective on this workload
  int devicesUsed = 0;     ///< devices its plan uses, each replica counted
};

/// Whether a method returned a plan (optimal or feasible).
bool hasPlan(const SolveOutcome& outcome);

/// Methods run by default for an objective (with `diffMaxima`: its max FW +
/// max BW form): every registered method that supports it and needs no
/// extra input (e.g. not "expert").
std::vector<std::string> defaultMethods(Objective objective, bool diffMaxima = false);

/// The methods of a comma-separated list ("" : defaultMethods), each known,
/// supporting the objective (and diffmaxima when asked) and needing no plan
/// file, none twice; nullopt and *error (one line) for the first that is not.
std::optional<std::vector<std::string>> methodsToCompare(const std::string& list, Objective objective,
                                                         std::string* error, bool diffMaxima = false);

/// How many rows compareMethods gives per workload: one per method, and with
/// options.replicate one more per method that can replicate blocks.
std::size_t rowsPerWorkload(const std::vector<std::string>& methods, const SolveOptions& options);

/// With options.replicate: why the comparison cannot run as asked (one line),
/// or "" when it can: no listed method replicates blocks, or a workload has
/// no syncBandwidth for the methods that do (every such row would be refused).
std::string replicateRefusal(const std::vector<const Workload*>& workloads,
                             const std::vector<std::string>& methods, const SolveOptions& options);

/// Runs each method on each workload (every plan re-checked by the evaluator);
/// after an interrupt, the rows run so far (ratios among them). With
/// options.replicate, each method that can replicate blocks (docs/model.md §9)
/// runs twice, its second row named "METHOD --replicate".
std::vector<CompareRow> compareMethods(const std::vector<const Workload*>& workloads,
                                       const std::vector<std::string>& methods,
                                       const SolveOptions& options);

}  // namespace dnnplace
