#include "util/deadline.hpp"

#include <cmath>

namespace dnnplace {

std::chrono::steady_clock::time_point deadlineAfter(double seconds) {
  using Clock = std::chrono::steady_clock;
  if (!(seconds > 0) || !std::isfinite(seconds) || seconds > 1e7) return Clock::time_point::max();
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

Deadline::Deadline(double seconds, const std::atomic<bool>* interrupt)
    : start_(Clock::now()), end_(deadlineAfter(seconds)), interrupt_(interrupt) {}

}  // namespace dnnplace
