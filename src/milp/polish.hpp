#pragma once
/// Scoring candidate plans by the model's own objective, and polishing the
/// best one by local moves before and after CBC.

#include <optional>
#include <string>

#include "dnnplace/solver.hpp"
#include "milp/model.hpp"
#include "milp/model_builder.hpp"

namespace dnnplace::milp {

/// A plan with its objective and where it came from.
struct Candidate {
  Placement placement;
  double objective = kInfinity;
  std::string method;
};

/// Our objective for a placement, or nullopt when it is not a plan of the
/// problem the model solves (the machine's device counts, whole classes,
/// support and memory, and convexity or q pieces where the options ask).
std::optional<double> objectiveFor(const Workload& w, const Placement& p, const SolveOptions& options);

/// One descent from the candidate within `seconds`, kept when it is still a
/// plan of the model's problem and strictly better: for throughput the
/// local search's, for latency a first-improvement descent over moves of one
/// class to another accelerator or to the CPU, scored by the exact latency.
void polish(const Workload& w, const SolveOptions& options, const Allowed& allowed, double seconds,
            Candidate* best);

}  // namespace dnnplace::milp
