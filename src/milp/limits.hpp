#pragma once
/// Keeping the MILP inside its time and memory limits: the size of a model
/// estimated before it is built, and a stop for Clp's simplex at the
/// deadline or on the caller's interrupt (Clp's own wall-clock limit is
/// checked too rarely on large models, and never reads the interrupt).

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"

class OsiClpSolverInterface;

namespace dnnplace::milp {

/// Rows, columns and nonzeros of a model, at least as many as it will have.
struct ModelSize {
  std::int64_t rows = 0;
  std::int64_t columns = 0;
  std::int64_t nonzeros = 0;

  /// Peak bytes of building the model and solving it: the builder's rows,
  /// names and temporaries, the matrix Clp loads, Clp's presolved and
  /// factored copies, the LP that completes the warm start and CBC's copies.
  double bytes() const;
  /// Seconds to build, load and presolve it (not to solve it).
  double buildSeconds() const;
  /// "80000 rows, 45000 columns, 1.2 M nonzeros, about 300 MB".
  std::string describe() const;
};

/// Upper estimates (docs/model.md §3–§5), computed from the workload's
/// counts alone in time linear in its size.
ModelSize throughputModelSize(const Workload& w, const SolveOptions& options);
ModelSize latencyModelSize(const Workload& w, int q);

/// The model the MILP can afford: the one asked for when its estimate fits
/// in 80% of the memory limit, its building in half the time left, and its
/// counts in CBC's 32-bit indices; for latency otherwise the largest smaller
/// q that fits (its plans are plans for the q asked for, but its bound is
/// not a bound for them); otherwise none.
struct ModelChoice {
  bool build = true;
  int q = 1;  ///< latency: the q the model is built for
  ModelSize size;
  StopReason limit = StopReason::None;  ///< the limit that shrank or ruled out the model
  std::string note;                     ///< says what was shrunk or skipped, and why
};
ModelChoice chooseModel(const Workload& w, const SolveOptions& options, double secondsLeft);

/// The process's resident bytes now (0 where /proc is not available).
std::uint64_t residentBytes();

/// Stops every simplex solve of `solver` (and of the copies CBC makes of it)
/// once `deadline` passes or `*interrupt` is set: the solve ends with Clp
/// status 5, neither optimal nor proven infeasible. `fired`, when given, is
/// set when it stopped one (a result after that proves nothing).
void stopSimplexAt(OsiClpSolverInterface& solver, std::chrono::steady_clock::time_point deadline,
                   const std::atomic<bool>* interrupt,
                   std::shared_ptr<std::atomic<bool>> fired = nullptr);

}  // namespace dnnplace::milp
