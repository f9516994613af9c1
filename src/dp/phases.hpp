#pragma once
/// Timing the named phases of a DP method's run (SolveOutcome::phases).

#include <string>
#include <utility>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dp/device_states.hpp"

namespace dnnplace::dp {

inline double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Seconds per phase, in the order the phases were first timed; a phase
/// may be timed several times (its seconds add up).
class PhaseTimes {
 public:
  /// Runs f() and adds the time it took to phase `name`; returns f's result.
  template <typename F>
  auto time(const char* name, F&& f) {
    const auto start = Clock::now();
    auto result = std::forward<F>(f)();
    add(name, secondsSince(start));
    return result;
  }
  void add(const std::string& name, double seconds) {
    for (PhaseTime& phase : phases_)
      if (phase.name == name) {
        phase.seconds += seconds;
        return;
      }
    phases_.push_back({name, seconds});
  }
  std::vector<PhaseTime> take() { return std::move(phases_); }

 private:
  std::vector<PhaseTime> phases_;
};

}  // namespace dnnplace::dp
