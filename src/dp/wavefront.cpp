#include "dp/wavefront.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace dnnplace::dp {

Wavefront::Wavefront(std::int32_t numIdeals, int threads)
    : numIdeals_(numIdeals),
      threads_(std::max(1, std::min(threads,
                                    static_cast<int>(std::max<std::int32_t>(1, numIdeals / 256))))) {
  if (threads_ == 1) return;
  done_.reset(new std::atomic<char>[static_cast<std::size_t>(numIdeals)]);
  for (std::int32_t i = 0; i < numIdeals; ++i) done_[i].store(0, std::memory_order_relaxed);
  done_[0].store(1, std::memory_order_relaxed);  // the empty ideal
}

void Wavefront::waitFor(std::int32_t ideal) const {
  for (int spins = 0; !done_[ideal].load(std::memory_order_acquire); ++spins) {
    if (abandoned_.load(std::memory_order_relaxed)) throw RunAbandoned{};
    if (spins < 64)
      __builtin_ia32_pause();
    else
      std::this_thread::yield();  // the machine may be busy: let the other thread run
  }
}

DpRun Wavefront::run(const DpLimits& limits, const std::function<void(int, std::int32_t)>& process) {
  const std::int32_t numIdeals = numIdeals_;
  const int threads = threads_;
  std::atomic<char>* const done = done_.get();
  std::atomic<std::int32_t> next{1};
  // Why the threads stop early, if they do (one store; read by all).
  std::atomic<DpRun> stop{DpRun::Complete};
  // The other threads join once this run has taken limits.threadStart:
  // starting and warming up a thread costs about as much as a short run.
  const auto started = Clock::now();
  auto lastReport = started;
  std::vector<std::thread> pool;
  // The first exception any thread throws (bad_alloc, a throwing progress
  // callback, a thread that cannot start). The others give up the run, the
  // pool is joined, and it is rethrown here: an exception left in a thread,
  // or a joinable thread left behind, would end the process.
  std::exception_ptr failure;
  std::mutex failureMutex;
  std::function<void(int)> work;
  auto guarded = [&](int t) {
    try {
      work(t);
    } catch (const RunAbandoned&) {
    } catch (...) {
      const std::lock_guard<std::mutex> lock(failureMutex);
      if (!failure) failure = std::current_exception();
      abandoned_.store(true);
    }
  };
  auto startOthers = [&] {
    for (int other = 1; other < threads; ++other) pool.emplace_back(guarded, other);
  };
  work = [&](int t) {
    if (t == 0 && threads > 1 && limits.threadStart <= Clock::duration::zero()) startOthers();
    constexpr std::int32_t kChunk = 4;  // ideals differ a lot in cost: hand them out finely
    std::int32_t sinceCheck = 0;
    for (;;) {
      const std::int32_t first = next.fetch_add(kChunk, std::memory_order_relaxed);
      if (first >= numIdeals || stop.load(std::memory_order_relaxed) != DpRun::Complete ||
          abandoned_.load(std::memory_order_relaxed))
        return;
      const std::int32_t last = std::min(numIdeals, first + kChunk);
      for (std::int32_t ideal = first; ideal < last; ++ideal) {
        process(t, ideal);
        if (done) done[ideal].store(1, std::memory_order_release);
      }
      if ((sinceCheck += kChunk) < 256) continue;
      sinceCheck = 0;
      if (limits.interrupt && limits.interrupt->load()) stop = DpRun::Interrupted;
      const auto now = Clock::now();
      if (now > limits.deadline) stop = DpRun::TimeLimit;
      // A thread only ever waits for ideals already handed out, which
      // their threads finish before they look at `stop`: no one is left waiting.
      if (stop.load() != DpRun::Complete) return;
      if (t == 0 && pool.empty() && threads > 1 && now - started >= limits.threadStart) startOthers();
      if (t == 0 && limits.progress && now - lastReport > std::chrono::milliseconds(500)) {
        lastReport = now;
        limits.progress("dp: " + std::to_string(last) + " of " + std::to_string(numIdeals) +
                        " ideals done");
      }
    }
  };
  guarded(0);
  for (auto& thread : pool) thread.join();
  if (failure) std::rethrow_exception(failure);
  return stop.load();
}

}  // namespace dnnplace::dp
