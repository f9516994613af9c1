#pragma once
/// The lattice DP's thread pool: ideals are handed out in id order, a few at
/// a time, and an ideal reads only the records of its sub-ideals, which have
/// smaller ids; so a thread waits only when a sub-ideal it meets is still
/// being computed by another one (no barrier per level of the lattice).

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "dp/device_states.hpp"

namespace dnnplace::dp {

enum class DpRun { Complete, TimeLimit, Interrupted };

struct DpLimits {
  Clock::time_point deadline = Clock::time_point::max();
  Clock::duration threadStart{0};  ///< the other threads join once a run has taken this long
  const std::atomic<bool>* interrupt = nullptr;
  std::function<void(const std::string&)> progress;
};

/// Thrown in a thread that waits for an ideal after another thread failed.
struct RunAbandoned {};

class Wavefront {
 public:
  /// At most `threads` threads, fewer on small lattices: a thread costs
  /// about as much to start as a few hundred small ideals.
  Wavefront(std::int32_t numIdeals, int threads);

  int threads() const { return threads_; }

  /// (Once per Wavefront.) Calls process(thread, ideal) once for every ideal but the empty one
  /// (id 0, done before), thread 0 on the calling thread. Stops early at the
  /// deadline or the interrupt (the result says which). The first exception
  /// any thread throws is rethrown here once every thread has stopped.
  DpRun run(const DpLimits& limits, const std::function<void(int, std::int32_t)>& process);

  /// Per ideal, whether process() has finished it; null with one thread
  /// (then every ideal met is finished).
  const std::atomic<char>* doneFlags() const { return done_.get(); }

  /// Returns once `ideal` is finished; throws RunAbandoned if another
  /// thread failed, since the ideal may then never be.
  void waitFor(std::int32_t ideal) const;

 private:
  std::int32_t numIdeals_;
  int threads_;
  std::unique_ptr<std::atomic<char>[]> done_;
  std::atomic<bool> abandoned_{false};
};

/// How a DP reads other ideals' records while a pool may be filling them:
/// await(ideal) returns once the ideal is finished (at once outside a run,
/// or with one thread, when every ideal met is finished).
class WavefrontReader {
 public:
  void await(std::int32_t ideal) const {
    if (done_ && !done_[ideal].load(std::memory_order_acquire)) wavefront_->waitFor(ideal);
  }

  /// Ends the reading through a pool when it goes, however the run ends.
  class Attached {
   public:
    explicit Attached(WavefrontReader* reader) : reader_(reader) {}
    Attached(const Attached&) = delete;
    Attached& operator=(const Attached&) = delete;
    ~Attached() {
      reader_->wavefront_ = nullptr;
      reader_->done_ = nullptr;
    }

   private:
    WavefrontReader* reader_;
  };
  /// Reads through `wavefront` for as long as the result lives.
  [[nodiscard]] Attached attach(const Wavefront& wavefront) {
    wavefront_ = &wavefront;
    done_ = wavefront.doneFlags();
    return Attached(this);
  }

 private:
  const Wavefront* wavefront_ = nullptr;
  const std::atomic<char>* done_ = nullptr;
};

}  // namespace dnnplace::dp
