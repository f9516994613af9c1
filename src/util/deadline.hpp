#pragma once
/// The one way every method checks its time limit and the caller's interrupt.

#include <atomic>
#include <chrono>

namespace dnnplace {

/// A time limit started now, plus the caller's interrupt flag (Ctrl-C).
/// A limit that is not a positive number of seconds below 10^7 means no
/// deadline.
class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  Deadline(double seconds, const std::atomic<bool>* interrupt = nullptr);

  /// The deadline as a time point (Clock::time_point::max() for none).
  Clock::time_point at() const { return end_; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }
  /// The time limit has passed.
  bool expired() const { return Clock::now() > end_; }
  /// The caller asked to stop.
  bool interrupted() const { return interrupt_ && interrupt_->load(); }
  /// Either: the work stops here and returns what it has.
  bool reached() const { return interrupted() || expired(); }

 private:
  Clock::time_point start_;
  Clock::time_point end_;
  const std::atomic<bool>* interrupt_;
};

/// Now plus `seconds`; Clock::time_point::max() when `seconds` is not a
/// positive number below 10^7.
std::chrono::steady_clock::time_point deadlineAfter(double seconds);

/// Seconds from `start` to now.
inline double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// Whether `interrupt` is set or `deadline` has passed.
inline bool pastLimit(std::chrono::steady_clock::time_point deadline,
                      const std::atomic<bool>* interrupt) {
  return (interrupt && interrupt->load()) || std::chrono::steady_clock::now() > deadline;
}

}  // namespace dnnplace
