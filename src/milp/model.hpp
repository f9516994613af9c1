#pragma once
/// The two integer programs (docs/model.md §3 throughput, §5 latency). Both assign
/// classes to devices through binaries x[c][d] (−1 where class c may not use
/// device d) and read a placement back from them.

#include <atomic>
#include <chrono>
#include <functional>
#include <utility>
#include <vector>

#include "bounds/latency_bound.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "milp/model_builder.hpp"
#include "objective/class_totals.hpp"

namespace dnnplace::milp {

/// Which kinds of device each class may use.
struct Allowed {
  std::vector<char> accelerator;  ///< per class: supported and fits one accelerator
  bool cpu = false;               ///< CPU cores exist
};

struct Model {
  ModelBuilder builder;
  int numAccelerators = 0;
  int numCpuDevices = 0;            ///< throughput: ℓ cores; latency: 1 pool (or 0)
  std::vector<std::vector<int>> x;  ///< x[c][d]
  int objectiveColumn = -1;         ///< T or L (throughput with diffMaxima: −1)
  double simpleBound = 0;           ///< a bound known without solving anything
  /// Integer column values for a placement (others are solved for by an LP).
  std::function<std::vector<std::pair<int, double>>(const Placement&)> integerValues;
};

/// Throughput model (docs/model.md §3, §4 for Convex). Building it throws
/// BuildStopped past `deadline` or on `options.interrupt`.
Model throughputModel(
    const Workload& w, const objective::ClassTotals& totals, const Allowed& allowed,
    const SolveOptions& options,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

/// Latency model (docs/model.md §5), `upperBound` a known latency (or ∞).
/// Building it throws BuildStopped past `deadline` or on `interrupt`.
Model latencyModel(
    const Workload& w, const objective::ClassTotals& totals, const Allowed& allowed, int q,
    double upperBound,
    std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max(),
    const std::atomic<bool>* interrupt = nullptr, const LatencyLowerBound* known = nullptr);

// Parts both models share (assignment.cpp).

/// The x[c][d] columns, with the symmetry breaking of breakSymmetry: the
/// r-th class (0-based) that may use a kind of device can only be on the
/// first r+1 devices of that kind.
std::vector<std::vector<int>> classColumns(const Workload& w, const Allowed& allowed, int accelerators,
                                           int cpuDevices, ModelBuilder* builder);

/// Every class on exactly one device; accelerators' memory.
void addAssignmentAndMemory(const Workload& w, const objective::ClassTotals& totals, Model* m);

/// Rows that keep only the representative of identical devices
/// first..first+count−1: device i holds class c only if device i−1 holds a
/// class of lower index (so devices are ordered by lowest class, empty last).
void breakSymmetry(Model* m, int first, int count, const char* label);

/// The x values of a placement: (column, 0 or 1) for every x column.
std::vector<std::pair<int, double>> classColumnValues(const Workload& w,
                                                      const std::vector<std::vector<int>>& x,
                                                      const Placement& p);

/// Relabels identical devices so accelerators (and CPU cores) appear in order
/// of their lowest class index, empty ones last: the representative the
/// symmetry-breaking rows admit. For latency all CPU nodes go to core 0.
Placement canonical(const Workload& w, const Placement& p, bool latency);

}  // namespace dnnplace::milp
