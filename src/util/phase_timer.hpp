#pragma once
/// Timing the named phases of a method's run (SolveOutcome::phases), the one
/// way every method does it.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/solver.hpp"
#include "util/deadline.hpp"

namespace dnnplace {

/// Seconds per phase, in the order the phases were first timed; a phase
/// timed several times adds up. Writes into the given list (an outcome's
/// phases) or into its own, which take() hands over.
class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  PhaseTimes() : into_(&own_) {}
  explicit PhaseTimes(std::vector<PhaseTime>* into) : into_(into) {}
  PhaseTimes(const PhaseTimes&) = delete;
  PhaseTimes& operator=(const PhaseTimes&) = delete;

  /// Ends the phase that began at the last end() or time() (or at construction).
  void end(const std::string& name) {
    add(name, secondsSince(mark_));
    mark_ = Clock::now();
  }
  /// Runs f() and adds the time it took to phase `name`; returns f's result.
  template <typename F>
  auto time(const std::string& name, F&& f) {
    const auto start = Clock::now();
    auto result = std::forward<F>(f)();
    add(name, secondsSince(start));
    mark_ = Clock::now();
    return result;
  }
  void add(const std::string& name, double seconds) {
    for (PhaseTime& phase : *into_)
      if (phase.name == name) {
        phase.seconds += seconds;
        return;
      }
    into_->push_back({name, seconds});
  }
  std::vector<PhaseTime> take() { return std::move(*into_); }

 private:
  std::vector<PhaseTime> own_;
  std::vector<PhaseTime>* into_;
  Clock::time_point mark_ = Clock::now();
};

}  // namespace dnnplace
