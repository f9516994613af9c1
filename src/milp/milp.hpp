#pragma once
/// Integer programs on COIN-OR CBC (DESIGN §3, §5).
///
/// Throughput (`options.objective == Throughput`): assignment of color classes
/// to the k accelerators and ℓ CPU cores minimizing the max-load (or, with
/// `diffMaxima`, max forward + max backward load). `options.contiguity`:
///  - None: any placement;
///  - Convex: the forward nodes of every device form a convex set of the
///    forward graph (no forward path leaves the device and re-enters it) —
///    the reference's "contig" mode, weaker than the DP's acyclic block graph
///    (DESIGN §4), so its optimum can lie below the DP's.
/// Latency (`Objective::Latency`): at most `options.q` subgraphs per
/// accelerator run one after another; the model's subgraphs are exactly the
/// evaluator's pieces (1 + the largest number of re-entries along a path),
/// so the integer optimum is the optimum of the evaluated latency.
///
/// Every run starts from the best plan the cheaper registered methods find
/// (dp, local-search, scotch, greedy, single, cpu: those that succeed),
/// breaks symmetry among identical devices, honours `timeLimitSeconds`,
/// `relativeGap` and `interrupt` (returning the incumbent), and exports the
/// model when `writeModelPath` ends in .lp or .mps. `lowerBound` is the
/// bound CBC proves; when it stops on the relative gap the bound reported is
/// objective × (1 − relativeGap) unless CBC's is lower.

#include <optional>
#include <string>

#include "dnnplace/solver.hpp"

namespace dnnplace {

SolveOutcome solveMilp(const Workload& workload, const SolveOptions& options);

/// Size of an exported model as CBC's own readers parse it back.
struct MilpModelSize {
  int rows = 0;
  int columns = 0;
  int integers = 0;
};

/// Reads a model written through `writeModelPath` (.lp or .mps). On failure
/// returns nullopt and sets *error.
std::optional<MilpModelSize> readMilpModel(const std::string& path, std::string* error);

}  // namespace dnnplace
