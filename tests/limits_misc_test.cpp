// Limits kept by the baselines, the latency bound, the plan reader, the
// input reader and compare: time limits asserted as "a limit of T ends
// within T + 1 s (and a margin for a slow machine)", memory as "peak RSS
// below the limit + 10%" measured in a child process.

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "baselines/common.hpp"
#include "baselines/local_search.hpp"
#include "bounds/latency_bound.hpp"
#include "dnnplace/compare.hpp"
#include "dnnplace/plan.hpp"
#include "dnnplace/solver.hpp"
#include "objective/class_totals.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using Clock = std::chrono::steady_clock;

/// A DAG of n nodes with an edge i -> j for every pair i < j of odd sum
/// (about n²/4 edges), k accelerators, memory to spare.
Workload denseDag(int n, int k) {
  std::vector<Node> nodes(n);
  for (int i = 0; i < n; ++i) {
    nodes[i].id = i;
    nodes[i].cpuLatency = 10 + i % 7;
    nodes[i].fpgaLatency = 1 + i % 5;
    nodes[i].size = 1000 + i;
  }
  std::vector<RawEdge> edges;
  edges.reserve(static_cast<std::size_t>(n) * n / 4 + n);
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j)
      if ((i + j) % 2 == 1) edges.push_back({i, j, 0.01 * (1 + i % 3)});
  Machine machine;
  machine.maxFpgas = k;
  machine.maxCpus = 2;
  machine.maxSizePerFpga = 1e12;
  std::string error;
  auto workload = buildWorkload("dense", machine, std::move(nodes), edges, &error);
  EXPECT_TRUE(workload) << error;
  return *workload;
}

/// A chain of n unit nodes (accelerator time 1, CPU time 100, output 0.5),
/// k accelerators of `capacity` bytes, one CPU core.
Workload chain(int n, int k, double capacity) {
  std::vector<Node> nodes(n);
  std::vector<RawEdge> edges;
  for (int i = 0; i < n; ++i) {
    nodes[i].id = i;
    nodes[i].cpuLatency = 100;
    nodes[i].fpgaLatency = 1;
    nodes[i].size = 1;
    if (i > 0) edges.push_back({i - 1, i, 0.5});
  }
  Machine machine;
  machine.maxFpgas = k;
  machine.maxCpus = 1;
  machine.maxSizePerFpga = capacity;
  std::string error;
  auto workload = buildWorkload("chain", machine, std::move(nodes), edges, &error);
  EXPECT_TRUE(workload) << error;
  return *workload;
}

double secondsOf(const std::function<void()>& f) {
  const auto start = Clock::now();
  f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The workload JSON of chain(n, k, capacity).
std::string chainJson(int n, int k, double capacity) {
  std::string text = R"({"maxSizePerFPGA": )" + std::to_string(capacity) + R"(, "maxFPGAs": )" +
                     std::to_string(k) + R"(, "maxCPUs": 1, "nodes": [)";
  for (int i = 0; i < n; ++i)
    text +=
        std::string(i ? "," : "") + R"({"id": )" + std::to_string(i) +
        R"(, "supportedOnFpga": 1, "cpuLatency": 100, "fpgaLatency": 1, "isBackwardNode": 0, "size": 1})";
  text += R"(], "edges": [)";
  for (int i = 1; i < n; ++i)
    text += std::string(i > 1 ? "," : "") + R"({"sourceId": )" + std::to_string(i - 1) +
            R"(, "destId": )" + std::to_string(i) + R"(, "cost": 0.5})";
  return text + "]}";
}

// Scotch is estimated before each call: on a dense DAG (where a single
// call on the whole class graph took several times a short limit) the run
// ends within its limit plus a second and says what it cut.
TEST(LimitsScotch, ADenseDagKeepsAShortTimeLimit) {
  const Workload w = denseDag(2000, 8);
  SolveOptions options;
  options.timeLimitSeconds = 0.5;
  SolveOutcome outcome;
  const double seconds = secondsOf([&] { outcome = solve(w, "scotch", options); });
  ASSERT_TRUE(outcome.found()) << outcome.message;
  // A second more under AddressSanitizer, several times slower (3.0 s once on
  // a loaded machine, Scotch skipped).
  EXPECT_LT(seconds, 0.5 + 1 + (testing::kSanitized ? 2 : 1)) << outcome.message;
  // What was cut: the class graph's lighter edges, or (on a loaded machine,
  // when building it took the time) Scotch itself.
  EXPECT_TRUE(outcome.message.find("heaviest of") != std::string::npos ||
              outcome.message.find("Scotch skipped") != std::string::npos)
      << outcome.message;
}

// Without a time limit the whole class graph goes to Scotch, as before.
TEST(LimitsScotch, WithoutALimitTheWholeGraphIsPartitioned) {
  const Workload w = denseDag(300, 4);
  const SolveOutcome outcome = solve(w, "scotch", SolveOptions{});
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_EQ(outcome.message.find("heaviest"), std::string::npos) << outcome.message;
  EXPECT_EQ(outcome.message.find("skipped"), std::string::npos) << outcome.message;
}

// A memory limit too small for the class graph: Scotch is skipped, the
// plan comes from cutting a topological order, and the message says so.
TEST(LimitsScotch, AMemoryLimitTooSmallForTheClassGraphSkipsScotch) {
  const Workload w = denseDag(400, 4);
  SolveOptions options;
  options.memoryLimitBytes = 1 << 20;
  const SolveOutcome outcome = solve(w, "scotch", options);
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_NE(outcome.message.find("Scotch skipped"), std::string::npos) << outcome.message;
}

/// `solve` of a chain(20000, 20000, capacity) workload by the CLI under a
/// 1 s time limit and a 100 MB memory limit: exit 0 within 3 s, peak below
/// 110 MB, and `expected` in the summary.
void expectChainWithinLimits(double capacity, const std::vector<std::string>& method,
                             const std::string& expected) {
  constexpr double kLimit = 100e6;
  const auto file = testing::writeTemp(chainJson(20000, 20000, capacity));
  std::vector<std::string> arguments = {"solve",          file.string(),
                                        "--time-limit",   "1",
                                        "--memory-limit", std::to_string(static_cast<long>(kLimit))};
  arguments.insert(arguments.end(), method.begin(), method.end());
  const testing::MeasuredRun run = testing::runCliMeasured(arguments);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_LT(run.seconds, 3);
  if (testing::kPeakMemoryMeaningful) {
    EXPECT_LT(run.peakBytes, 1.1 * kLimit);
  }
  EXPECT_NE(run.err.find(expected), std::string::npos) << run.err;
}

// The latency bound once took O(n · min(n, k·q)) memory and quadratic time
// on a long chain with many accelerators. One accelerator holds the chain:
// the bound proves it optimal.
TEST(LimitsGreedy, ALongChainWithManyAcceleratorsKeepsTimeAndMemory) {
  expectChainWithinLimits(1e12, {"--method", "greedy", "--objective", "latency"}, "gap 0.00%");
}

// Few accelerators for what memory forces: the runs are counted, exactly
// on a short path, by the relaxation on a long one; both stay valid.
TEST(LimitsGreedy, CountedRunsExactlyOrRelaxed) {
  for (const auto& [n, k] : {std::pair{300, 10}, std::pair{10000, 2000}}) {
    const Workload w = chain(n, k, 3);
    const objective::ClassTotals totals(w);
    const LatencyLowerBound bound = latencyLowerBound(w, totals.acceleratorAllowed(w.machine), true, 1);
    EXPECT_EQ(bound.splitPathRelaxed, n > 1000) << n;
    SolveOptions options;
    options.objective = Objective::Latency;
    const SolveOutcome greedy = solve(w, "greedy", options);
    ASSERT_TRUE(greedy.found()) << greedy.message;
    EXPECT_LE(bound.value(), greedy.objective * (1 + 1e-9));
    // k accelerators of three nodes, the rest on the CPU core: the bound
    // sees all but a boundary of the greedy's plan.
    EXPECT_GE(bound.value(), greedy.objective - 1) << n;
    EXPECT_EQ(greedy.message.find("relaxation") != std::string::npos, n > 1000) << greedy.message;
  }
}

// Local search keeps one count per node and accelerator: under a small
// memory limit it searches fewer accelerators and says so.
TEST(LimitsLocalSearch, AMemoryLimitShrinksTheAcceleratorsSearched) {
  expectChainWithinLimits(3, {"--method", "local-search"}, "accelerators (the counts per node");
}

// The milp's throughput polish runs the local search from the best warm
// start: under a 100 MB limit its counts table (1.6 GB here) is shrunk or
// the polish skipped, and the run keeps its time limit.
TEST(LimitsMilp, ThePolishKeepsTheMemoryLimitOnManyAccelerators) {
  expectChainWithinLimits(3, {"--method", "milp"}, "feasible");
}

// Without a memory limit the local search builds its whole counts table
// (1 GB on 16000 nodes × 16000 accelerators); the deadline is checked while
// it does, and the best plan known is returned.
TEST(LimitsLocalSearch, ATimeLimitStopsTheTableConstruction) {
  const Workload w = chain(16000, 16000, 3);
  SolveOptions options;
  options.timeLimitSeconds = 0.3;
  SolveOutcome outcome;
  const double seconds = secondsOf([&] { outcome = solve(w, "local-search", options); });
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_LT(seconds, 0.3 + 1) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::TimeLimit) << outcome.message;
}

// The same with Ctrl-C (the interrupt flag) under a long time limit.
TEST(LimitsLocalSearch, AnInterruptStopsTheTableConstruction) {
  const Workload w = chain(16000, 16000, 3);
  SolveOptions options;
  options.timeLimitSeconds = 60;
  std::atomic<bool> interrupt{false};
  options.interrupt = &interrupt;
  Clock::time_point signalled;
  std::thread ctrlC([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    signalled = Clock::now();
    interrupt = true;
  });
  const SolveOutcome outcome = solve(w, "local-search", options);
  const auto ended = Clock::now();
  ctrlC.join();
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_LT(std::chrono::duration<double>(ended - signalled).count(), 1) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::Interrupt) << outcome.message;
}

// From a given start under a memory limit: the search covers the start's
// accelerators plus empty ones up to what fits, and maps the plan back; a
// start on more accelerators than fit is refused.
TEST(LimitsLocalSearch, FromAStartTheTableShrinksToTheAcceleratorsUsed) {
  const Workload w = chain(600, 600, 3);
  Placement start;
  start.numAccelerators = 600;
  start.numCpus = 1;
  for (int v = 0; v < 600; ++v) start.deviceOf.push_back(v / 3);  // 200 accelerators
  const double perAccelerator = 4.0 * 600;
  SolveOptions options;
  options.timeLimitSeconds = 0.5;
  options.memoryLimitBytes =
      static_cast<std::uint64_t>(baseline::workloadBytes(w) + 300 * perAccelerator / 0.8 + 100);
  const SolveOutcome shrunk = localSearchFrom(w, start, options);
  ASSERT_TRUE(shrunk.found()) << shrunk.message;
  EXPECT_NE(shrunk.message.find("searched over 300 of 600"), std::string::npos) << shrunk.message;
  EXPECT_TRUE(evaluate(w, *shrunk.placement, EvaluateOptions{}).feasible) << shrunk.message;
  EXPECT_LE(shrunk.objective, evaluate(w, start, EvaluateOptions{}).objective + 1e-9);
  options.memoryLimitBytes =
      static_cast<std::uint64_t>(baseline::workloadBytes(w) + 100 * perAccelerator / 0.8);
  const SolveOutcome refused = localSearchFrom(w, start, options);
  EXPECT_FALSE(refused.found()) << refused.message;
  EXPECT_EQ(refused.stop, StopReason::MemoryLimit) << refused.message;
}

// A memory limit too small for one accelerator's counts: the refusal names
// the method once.
TEST(LimitsLocalSearch, TheMemoryRefusalNamesTheMethodOnce) {
  const auto file = testing::writeTemp(chainJson(200, 20, 3));
  const testing::MeasuredRun run = testing::runCliMeasured(
      {"solve", file.string(), "--method", "local-search", "--memory-limit", "1"});
  EXPECT_NE(run.err.find("local-search: the counts per node and accelerator"), std::string::npos)
      << run.err;
  EXPECT_EQ(run.err.find("local-search: local-search:"), std::string::npos) << run.err;
}

// A complexity check, not a speed test: one node listed on each of 200,000
// devices resolves in linear time (a quadratic search took minutes).
TEST(LimitsPlan, ANodeOnManyDevicesResolvesInLinearTime) {
  const Workload w = chain(10, 4, 1e9);
  std::string text = R"({"fpgas": [)";
  for (int d = 0; d < 200000; ++d) text += std::string(d ? "," : "") + R"({"nodes": [5]})";
  text += "]}";
  std::string error;
  Evaluation evaluation;
  const double seconds = secondsOf([&] {
    const auto plan = parsePlan(text, "many.json", &error);
    ASSERT_TRUE(plan) << error;
    evaluation = evaluatePlan(w, *plan, EvaluateOptions{});
  });
  EXPECT_LT(seconds, 5);
  ASSERT_FALSE(evaluation.violations.empty());
  EXPECT_EQ(evaluation.violations.front(),
            "node 5 is listed 200000 times (fpgas[0], fpgas[1], fpgas[2], fpgas[3] and 199996 more "
            "devices)");
}

// An endless stream stops at the cap: one line naming the input and the cap.
TEST(LimitsReader, AnEndlessPipeStopsAtTheCap) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([fd = fds[1]] {
    const std::string chunk(65536, '[');
    while (write(fd, chunk.data(), chunk.size()) > 0) {
    }
    close(fd);
  });
  std::string error;
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  const auto text = readFile(path, &error, 1000000);
  close(fds[0]);  // the writer then fails with EPIPE and ends
  writer.join();
  EXPECT_FALSE(text);
  EXPECT_EQ(
      error,
      path +
          ": more than 1000000 bytes, the input cap (a quarter of the memory limit, at least 64 MiB)");

  // A regular file past the cap is refused before it is read; one at the cap is read.
  const auto file = testing::writeTemp(std::string(1000, ' '), ".json");
  EXPECT_FALSE(readFile(file.string(), &error, 999));
  EXPECT_EQ(
      error,
      file.string() +
          ": more than 999 bytes, the input cap (a quarter of the memory limit, at least 64 MiB)");
  const auto whole = readFile(file.string(), &error, 1000);
  ASSERT_TRUE(whole) << error;
  EXPECT_EQ(whole->size(), 1000u);
  EXPECT_EQ(readLimitFor(std::uint64_t{1} << 30), std::uint64_t{1} << 28);
  EXPECT_EQ(readLimitFor(400), std::uint64_t{64} << 20);  // at least 64 MiB
}

// compare gives each method its own limit: three methods of a 0.5 s limit
// end within three times 0.5 s + 1 s.
TEST(LimitsCompare, EachMethodKeepsItsOwnLimit) {
  const Workload w = denseDag(2000, 8);
  SolveOptions options;
  options.timeLimitSeconds = 0.5;
  std::vector<CompareRow> rows;
  const double seconds = secondsOf([&] {
    rows = compareMethods({&w}, {"scotch", "local-search", "single"}, options);
  });
  ASSERT_EQ(rows.size(), 3u);
  for (const CompareRow& row : rows) EXPECT_TRUE(row.outcome.found()) << row.outcome.message;
  EXPECT_LT(seconds, 3 * (0.5 + 1) + 1);
}

}  // namespace
}  // namespace dnnplace
