#pragma once
/// Per-color-class totals and the checks every method makes before placing
/// anything (docs/model.md §3): which classes fit an accelerator, and a class that
/// fits no device at all. The solver side's one copy of these; the evaluator
/// keeps its own, independent one.

#include <optional>
#include <string>
#include <vector>

#include "dnnplace/workload.hpp"

namespace dnnplace::objective {

/// Memory holds `bytes` when they are at most the accelerator's capacity,
/// up to a relative rounding slack of 1e-12 (the evaluator's tolerance).
inline bool fitsMemory(double bytes, const Machine& machine) {
  return bytes <= machine.maxSizePerFpga * (1 + 1e-12);
}

/// Totals of one color class: what moving the class as a whole moves.
struct ClassTotals {
  std::vector<double> acceleratorLatency, cpuLatency, size;
  /// The same latencies split by direction (docs/model.md §3 diffmaxima).
  std::vector<double> acceleratorForward, acceleratorBackward, cpuForward, cpuBackward;
  std::vector<char> supported;  ///< every member may run on an accelerator

  explicit ClassTotals(const Workload& workload);
  /// Whether class c may sit on an (otherwise empty) accelerator: supported,
  /// the machine has one, and the class fits its memory.
  bool fitsAccelerator(int c, const Machine& machine) const;
  /// fitsAccelerator for every class.
  std::vector<char> acceleratorAllowed(const Machine& machine) const;
};

/// Names a color class in messages: "color class N" (its colorClass id)
/// when it has one, else "node N" (its only node's id).
std::string describeClass(const Workload& workload, int c);

/// Why a class fits no device on its own.
struct Unplaceable {
  enum class Reason {
    NoDevices,    ///< the machine has no accelerator and no CPU core
    Unsupported,  ///< an operator is unsupported on accelerators, no CPU core
    TooLarge,     ///< larger than an accelerator's memory, no CPU core
  };
  Reason reason;
  int cls = -1;  ///< the class (-1 for NoDevices)
};

/// The first class that fits no device (accelerators as fitsAccelerator
/// says; CPU cores when `cpuAllowed`), or nullopt when each class fits some
/// device on its own.
std::optional<Unplaceable> findUnplaceable(const Workload& workload, const ClassTotals& totals,
                                           bool cpuAllowed);

/// The baselines' message for findUnplaceable (CPU cores allowed when the
/// machine has any), or "" when each class fits some device.
std::string whyUnplaceable(const Workload& workload, const ClassTotals& totals);

/// A bound on the optimal max-load valid for every placement (docs/model.md §3):
/// each class must go somewhere, and the total work spreads over k + ℓ
/// devices (compute only; co-location may avoid any communication).
double throughputLowerBound(const Workload& workload, const ClassTotals& totals);

}  // namespace dnnplace::objective
