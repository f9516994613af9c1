// The DP's limits hold whatever the input: costs of any magnitude, device
// counts whose state tables outgrow an int, seed tables past the memory
// limit, the ideal cap on the seeds' own lattices, and the memory limit on a
// large lattice. Each case asserts the limit (and for exact sums the
// optimum), not a speed: time is measured against generous bounds, peak
// memory in a child process with GNU time.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>

#include <nlohmann/json.hpp>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/solver.hpp"
#include "dp/device_states.hpp"
#include "test_support.hpp"
#include "util/deadline.hpp"

namespace dnnplace {
namespace {

using Clock = std::chrono::steady_clock;

/// `dnnplace solve WORKLOAD ARGUMENTS...` in a process of its own, and the
/// plan it wrote (null when none).
testing::MeasuredRun measuredSolve(const std::filesystem::path& workload,
                                   std::vector<std::string> arguments, nlohmann::json* plan) {
  const auto planPath = testing::tempPath(".plan.json");
  arguments.insert(arguments.begin(), {"solve", workload.string()});
  arguments.insert(arguments.end(), {"--quiet", "--out", planPath.string()});
  const testing::MeasuredRun run = testing::runCliMeasured(arguments);
  std::ifstream planFile(planPath);
  *plan = planFile ? nlohmann::json::parse(planFile, nullptr, false) : nlohmann::json();
  std::filesystem::remove(planPath);
  return run;
}

/// Peak memory under a 100 MB limit, with 10% to spare (plain builds).
void expectPeakWithinLimit(const testing::MeasuredRun& run) {
  if (testing::kPeakMemoryMeaningful) {
    EXPECT_LT(run.peakBytes, 110e6) << "peak resident bytes";
  }
}

std::filesystem::path generated(const std::string& arguments) {
  const auto path = testing::tempPath(".json");
  EXPECT_EQ(testing::runCli("generate " + arguments + " --out " + path.string()).exitCode, 0)
      << arguments;
  return path;
}

// A cost of 1e16 beside latencies of 1 (found by fuzzing): sums of such
// terms lose the small ones, and the DP once failed to recover its plan.
TEST(LimitsDp, CostsOfAnyMagnitudeKeepTheOptimum) {
  std::ifstream file(std::string(DNNPLACE_SOURCE_DIR) +
                     "/tests/fuzz/regressions/pipeline-dp-cost-1e16.json");
  ASSERT_TRUE(file);
  const Workload workload = testing::parseOrDie(
      std::string(std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()));
  const SolveOutcome dp = solve(workload, "dp", SolveOptions{});
  ASSERT_TRUE(dp.ok()) << dp.message;
  EXPECT_EQ(dp.status, SolveStatus::Optimal) << dp.message;
  EXPECT_DOUBLE_EQ(dp.objective, 3);  // all three on one accelerator
  EXPECT_DOUBLE_EQ(dp.lowerBound, 3);
  for (const char* method : {"dp-linear", "pipedream"}) {
    const SolveOutcome along = solve(workload, method, SolveOptions{});
    ASSERT_TRUE(along.ok()) << method << ": " << along.message;
    EXPECT_EQ(along.status, SolveStatus::Feasible) << method;
    EXPECT_DOUBLE_EQ(along.objective, 3) << method;
  }
  const auto result = testing::runCli("solve " + std::string(DNNPLACE_SOURCE_DIR) +
                                      "/tests/fuzz/regressions/pipeline-dp-cost-1e16.json --method dp");
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

// (k + 1)(ℓ + 1) states pass 2^31 at k = ℓ = 46,340: counted in 64 bits, and
// refused before any enumeration, with a plan from the seeds.
TEST(LimitsDp, DeviceStatesPastAnIntAreRefusedCleanly) {
  EXPECT_EQ((dp::DeviceStates{46340, 46340}.count()), std::int64_t{2147488281});
  GeneratorOptions chain;
  chain.blocks = 46341;
  chain.accelerators = chain.cpus = 46341;
  const Workload workload = generateWorkload(chain);
  SolveOptions options;
  options.timeLimitSeconds = 1;
  options.memoryLimitBytes = 100'000'000;
  const auto start = Clock::now();
  const SolveOutcome outcome = solve(workload, "dp", options);
  EXPECT_LT(secondsSince(start), 3.0);
  ASSERT_TRUE(outcome.ok()) << outcome.message;
  ASSERT_TRUE(outcome.placement) << outcome.message;
  EXPECT_EQ(outcome.status, SolveStatus::Feasible) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::MemoryLimit) << outcome.message;
  EXPECT_NE(outcome.message.find("device states per ideal"), std::string::npos) << outcome.message;
  EXPECT_TRUE(outcome.evaluation.feasible);
}

// k = ℓ = n: the seeds' tables of min(k, n)·min(ℓ, n) cells keep the memory
// limit (fewer devices) and the time limit, and the plan is still decent
// (one node per device costs far more than the lower bound).
TEST(LimitsDp, SeedsKeepTheTimeAndMemoryLimits) {
  const auto workload = generated("chain --blocks 3000 --accelerators 3000 --cpus 3000");
  nlohmann::json plan;
  testing::MeasuredRun run =
      measuredSolve(workload, {"--time-limit", "1", "--memory-limit", "100000000"}, &plan);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_LT(run.seconds, 3.0);
  expectPeakWithinLimit(run);
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["status"], "feasible");
  EXPECT_LT(plan["maxLoad"].get<double>(), 2 * plan["lowerBound"].get<double>()) << plan.dump();
  const double lowerBound = plan["lowerBound"].get<double>();
  // Along one order, the DP's tables are refused as well: the chain found
  // without a lattice is the plan.
  run = measuredSolve(workload,
                      {"--method", "dp-linear", "--time-limit", "1", "--memory-limit", "100000000"},
                      &plan);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_LT(run.seconds, 3.0);
  expectPeakWithinLimit(run);
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["status"], "feasible");
  EXPECT_LT(plan["maxLoad"].get<double>(), 2 * lowerBound) << plan.dump();
  std::filesystem::remove(workload);
}

// --max-ideals caps the lattices of the seeds on coarsened graphs too, and a
// limit that has already passed is the one reported.
TEST(LimitsDp, TheIdealCapHoldsForTheSeeds) {
  GeneratorOptions wide;
  wide.shape = GraphShape::SeriesParallel;
  wide.blocks = 1;
  wide.width = 12;
  wide.chainLength = 20;
  const Workload workload = generateWorkload(wide);
  SolveOptions options;
  options.maxIdeals = 100;
  const auto start = Clock::now();
  SolveOutcome outcome = solve(workload, "dp", options);
  EXPECT_LT(secondsSince(start), 5.0);
  ASSERT_TRUE(outcome.placement) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::IdealLimit) << outcome.message;

  std::atomic<bool> stop{true};
  options.interrupt = &stop;
  outcome = solve(workload, "dp", options);
  EXPECT_EQ(outcome.stop, StopReason::Interrupt) << outcome.message;
}

// The seeds' coarse DPs get at most half the time left: on a lattice too
// wide for the limit (W = 12, L = 3: 16.7 M ideals; the chains cut in two,
// 531,441 ideals) they once took the whole limit and the DP never began. A
// coarse DP stopped there still offers the chain its good-enough run found.
TEST(LimitsDp, TheSeedsLeaveTheDpHalfTheTime) {
  GeneratorOptions wide;
  wide.shape = GraphShape::SeriesParallel;
  wide.blocks = 1;
  wide.width = 12;
  wide.chainLength = 3;
  wide.accelerators = 6;
  wide.cpus = 1;
  const Workload workload = generateWorkload(wide);
  SolveOptions options;
  options.timeLimitSeconds = 4;
  options.memoryLimitBytes = 300e6;
  options.threads = 1;
  const SolveOutcome outcome = solve(workload, "dp", options);
  ASSERT_TRUE(outcome.placement) << outcome.message;
  // The full lattice does not fit either limit: whichever comes first.
  EXPECT_TRUE(outcome.stop == StopReason::TimeLimit || outcome.stop == StopReason::MemoryLimit)
      << outcome.message;
  double seed = -1, enumerate = -1;
  for (const PhaseTime& phase : outcome.phases) {
    if (phase.name == "seed") seed = phase.seconds;
    if (phase.name == "enumerate") enumerate = phase.seconds;
  }
  EXPECT_GT(seed, 0);
  // Half the limit, and the step between the deadline checks (several times
  // longer under AddressSanitizer).
  EXPECT_LT(seed, 0.5 * 4 + (testing::kSanitized ? 1.5 : 0.5));
  EXPECT_GT(enumerate, 0) << outcome.message;
}

// The memory limit covers the lattice, its tables, the seed tables and the
// coarse lattices: peak resident memory stays within 10% of it.
TEST(LimitsDp, TheMemoryLimitHoldsOnALargeLattice) {
  const auto workload = generated("series-parallel --blocks 1 --width 12 --chain-length 20");
  nlohmann::json plan;
  const testing::MeasuredRun run =
      measuredSolve(workload, {"--memory-limit", "100000000", "--time-limit", "5"}, &plan);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  expectPeakWithinLimit(run);
  EXPECT_LT(run.seconds, 7.0);
  ASSERT_TRUE(plan.is_object());
  EXPECT_EQ(plan["stopReason"], "memory_limit") << plan.dump();
  std::filesystem::remove(workload);
}

}  // namespace
}  // namespace dnnplace
