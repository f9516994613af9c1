#pragma once
/// Turning outcomes and evaluations into the plan JSON of docs/model.md §6 and into
/// human-readable text, and writing results where they are asked for.

#include <string>
#include <vector>

#include "dnnplace/compare.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

/// The plan JSON: `maxLoad` (or `totalLatency`), `fpgas`, `cpus` with one
/// entry per used device, plus method, status, objective, lowerBound, gap,
/// seconds and per-device memory. Requires outcome.placement; `options` are
/// those the outcome was evaluated with.
std::string planToJson(const Workload& workload, const SolveOutcome& outcome,
                       const EvaluateOptions& options);

/// One-paragraph human summary of a solve for stderr; `options` say what
/// the objective measures (latency, max-load, or with diffMaxima max forward
/// + max backward load).
std::string outcomeSummary(const Workload& workload, const SolveOutcome& outcome,
                           const EvaluateOptions& options);

/// The evaluator's verdict as JSON: feasible, objective, objectiveKind
/// (throughput, diffmaxima or latency), violations, devices.
std::string evaluationToJson(const Evaluation& evaluation, const EvaluateOptions& options);
/// The evaluator's verdict as an aligned text table.
std::string evaluationToText(const Evaluation& evaluation, const EvaluateOptions& options);

/// compare's rows; format: "text" (aligned table), "json" or "csv".
std::string formatComparison(const std::vector<CompareRow>& rows, const std::string& format);

/// The methods for a help text: one line each, "\n  NAME  SUMMARY".
std::string methodTable();

/// "phases: load 0.002 s, validate 0.010 s, ..., write 0.001 s\n" (--verbose).
std::string phasesLine(const std::vector<PhaseTime>& phases);

/// Writes text to the file at `path` ("" or "-": standard output). On
/// failure sets *error ("PATH: cannot write: reason") and returns false.
bool writeText(const std::string& path, const std::string& text, std::string* error);

/// Why writeText could not write `path` ("PATH: cannot write: reason"), or
/// "" when it can, as far as can be told without creating it: checked
/// before a long run so that its result is not lost at the end.
std::string unwritablePath(const std::string& path);

/// A message as one line: control characters (a newline or a terminal
/// escape in a file name, say) are written as escapes.
std::string oneLine(const std::string& message);

}  // namespace dnnplace
