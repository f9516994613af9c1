#pragma once
/// Times the named phases of a method, one after another, into
/// SolveOutcome::phases.

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "dnnplace/solver.hpp"

namespace dnnplace {

class PhaseTimer {
 public:
  explicit PhaseTimer(std::vector<PhaseTime>* phases)
      : phases_(phases), last_(std::chrono::steady_clock::now()) {}
  /// Records the phase that ends now, begun where the previous one ended.
  void end(std::string name) {
    const auto now = std::chrono::steady_clock::now();
    phases_->push_back({std::move(name), std::chrono::duration<double>(now - last_).count()});
    last_ = now;
  }

 private:
  std::vector<PhaseTime>* phases_;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace dnnplace
