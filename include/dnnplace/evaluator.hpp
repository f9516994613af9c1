#pragma once
/// The independent evaluator: recomputes feasibility and objective of a
/// placement from the original, uncontracted graph (docs/model.md §2, §3, §5).
/// Solvers never share code with it, so it can check them.

#include <string>
#include <vector>

#include "dnnplace/plan.hpp"
#include "dnnplace/workload.hpp"

namespace dnnplace {

enum class Objective { Throughput, Latency };

struct EvaluateOptions {
  Objective objective = Objective::Throughput;
  bool diffMaxima = false;         ///< throughput: max FW + max BW (docs/model.md §3)
  int q = 1;                       ///< latency: contiguous subgraphs per accelerator
  bool requireContiguous = false;  ///< flag non-contiguous placements (docs/model.md §4)
};

struct DeviceReport {
  bool accelerator = true;
  int index = 0;  ///< accelerator or CPU-core number
  int numNodes = 0;
  double load = 0;         ///< throughput: per-sample time on this device
  double forwardLoad = 0;  ///< part of load due to forward nodes (comm: the sender)
  double backwardLoad = 0;
  double memory = 0;  ///< bytes (accelerators): per replica
  /// docs/model.md §9: the accelerators this block runs on, and the share of
  /// load that is the gradient all-reduce (sync(B, r) / r). With r > 1,
  /// load, forwardLoad and backwardLoad are per replica (divided by r):
  /// load = forwardLoad + backwardLoad + syncLoad.
  int replicas = 1;
  double syncLoad = 0;
  int pieces = 0;     ///< latency: contiguous subgraphs run one after another
  double finish = 0;  ///< latency: when its last node finishes
};

struct Evaluation {
  bool feasible = true;
  double objective = 0;  ///< max-load, max FW + max BW, or latency
  std::vector<std::string> violations;
  std::vector<DeviceReport> devices;  ///< one per non-empty device of the placement
  bool contiguous = true;             ///< docs/model.md §4 (forward block graph acyclic)
};

/// Evaluates `placement` for `workload`. Violations are listed, never thrown.
Evaluation evaluate(const Workload& workload, const Placement& placement,
                    const EvaluateOptions& options);

/// Whether the non-empty blocks' graph over forward edges is acyclic (docs/model.md §4).
bool isContiguous(const Workload& workload, const Placement& placement);

/// True when a and b agree to relative tolerance 1e-6 (docs/model.md §7).
bool sameObjective(double a, double b);

}  // namespace dnnplace
