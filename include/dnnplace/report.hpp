#pragma once
/// Turning outcomes and evaluations into the plan JSON of DESIGN §6 and into
/// human-readable text.

#include <string>

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

}  // namespace dnnplace
