#pragma once
/// Integer programs on COIN-OR CBC (docs/model.md §3, §5).
///
/// Throughput (`options.objective == Throughput`): assignment of color classes
/// to the k accelerators and ℓ CPU cores minimizing the max-load (or, with
/// `diffMaxima`, max forward + max backward load). `options.contiguity`:
///  - None: any placement;
///  - Convex: the forward nodes of every device form a convex set of the
///    forward graph (no forward path leaves the device and re-enters it) —
///    the reference's "contig" mode, weaker than the DP's acyclic block graph
///    (docs/model.md §4), so its optimum can lie below the DP's.
/// Latency (`Objective::Latency`): at most `options.q` subgraphs per
/// accelerator run one after another; the model's subgraphs are exactly the
/// evaluator's pieces (1 + the largest number of re-entries along a path),
/// so the integer optimum is the optimum of the evaluated latency.
///
/// A run starts from the best of the warm starts it is given that is a plan
/// of its problem (the registered method "milp", solve/warm_start.hpp, gives
/// it the plans of the cheaper methods), polished by local moves; breaks
/// symmetry among identical devices, honours `timeLimitSeconds`,
/// `relativeGap` and `interrupt` (returning the incumbent; every phase,
/// building and the root LP included, stops at the deadline), and exports
/// the model when `writeModelPath` ends in .lp or .mps. The model's size is
/// estimated before it is built (milp/limits.hpp): one that would not fit in
/// `memoryLimitBytes` or be built in half the time left is built for a
/// smaller q (latency) or not at all, and the message says so. `lowerBound` is the
/// bound CBC proves; when it stops on the relative gap the bound reported is
/// objective × (1 − relativeGap) unless CBC's is lower.
///
/// Source files: model_builder (linear rows and columns on OsiClp),
/// assignment + throughput_model + latency_model (the two models),
/// cbc_runner (completing the warm start, branch and bound), polish
/// (scoring and improving plans), model_file (--write-model, readMilpModel),
/// limits (model sizes, the simplex stop), milp.cpp (this sequence).

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "dnnplace/solver.hpp"

namespace dnnplace {

/// A plan another method found, offered to the MILP as its start.
struct WarmStart {
  Placement placement;
  std::string method;  ///< named in the outcome's message
};

struct MilpInput {
  /// Plans for the workload's machine; the best one that is a plan of the
  /// model's problem starts CBC (none: CBC starts cold).
  std::vector<WarmStart> warmStarts;
  /// When the time limit started counting (the warm starts' time included).
  std::chrono::steady_clock::time_point began = std::chrono::steady_clock::now();
};

/// Why the MILP cannot run with these options on this workload (InvalidInput
/// or Infeasible, with the message), or nullopt when it can. Checked before
/// any warm start is computed, and again by solveMilp.
std::optional<SolveOutcome> milpRefusal(const Workload& workload, const SolveOptions& options);

/// The MILP from the given warm starts. The workload's machine should have
/// no more devices of a kind than classes (the registered method reduces it
/// first: baselines/common.hpp onAtMostOneDevicePerClass).
SolveOutcome solveMilp(const Workload& workload, const SolveOptions& options, const MilpInput& input);

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
