// The MILP keeps its limits on graphs it cannot solve in time: a time
// limit, Ctrl-C (the interrupt flag) and a memory limit each end the run
// soon, with the best plan known and a message that says what was cut.

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dnnplace/solver.hpp"
#include "dnnplace/workload.hpp"
#include "milp/limits.hpp"
#include "milp/model.hpp"
#include "objective/class_totals.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using Clock = std::chrono::steady_clock;

double secondsFrom(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// A random DAG: node i has 1–3 edges from random earlier nodes; an
/// accelerator runs a node ten times faster than a CPU core; memory binds
/// loosely (a quarter of the total per accelerator).
Workload randomDag(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto uniform = [&](double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  };
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
  std::vector<double> outCost(n);  // a source's edges share the cost of its output
  for (double& cost : outCost) cost = uniform(0.01, 2);
  double total = 0;
  for (int i = 0; i < n; ++i) {
    Node node;
    node.id = i;
    node.fpgaLatency = uniform(0.1, 10);
    node.cpuLatency = 10 * node.fpgaLatency;
    node.size = uniform(1, 100);
    total += node.size;
    nodes.push_back(node);
    std::vector<int> sources;
    const int count = i == 0 ? 0 : std::uniform_int_distribution<int>(1, 3)(rng);
    for (int e = 0; e < count; ++e)
      sources.push_back(std::uniform_int_distribution<int>(0, i - 1)(rng));
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (int s : sources) edges.push_back({s, i, outCost[s]});
  }
  Machine machine;
  machine.maxFpgas = 8;
  machine.maxCpus = 2;
  machine.maxSizePerFpga = total / 4;
  std::string error;
  auto w = buildWorkload("dag", machine, nodes, edges, &error);
  EXPECT_TRUE(w) << error;
  return std::move(*w);
}

TEST(MilpLimits, AOneSecondLimitEndsSoonWithAPlan) {
  const Workload w = randomDag(600, 1);
  SolveOptions options;
  options.timeLimitSeconds = 1;
  const auto start = Clock::now();
  const SolveOutcome outcome = solve(w, "milp", options);
  EXPECT_LT(secondsFrom(start), 3);
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_EQ(outcome.status, SolveStatus::Feasible) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::TimeLimit) << outcome.message;
  EXPECT_TRUE(outcome.placement);
}

/// Sets the interrupt `delay` into a milp run with the given time limit
/// (as Ctrl-C does), and checks the run ends within 1.5 s of it with a plan.
void expectInterruptEndsTheRun(std::uint64_t seed, double timeLimit, std::chrono::milliseconds delay) {
  const Workload w = randomDag(600, seed);
  SolveOptions options;
  options.timeLimitSeconds = timeLimit;
  std::atomic<bool> interrupt{false};
  options.interrupt = &interrupt;
  Clock::time_point signalled;
  std::thread ctrlC([&] {
    std::this_thread::sleep_for(delay);
    signalled = Clock::now();
    interrupt = true;
  });
  const SolveOutcome outcome = solve(w, "milp", options);
  const auto ended = Clock::now();
  ctrlC.join();
  EXPECT_LT(std::chrono::duration<double>(ended - signalled).count(), 1.5);
  ASSERT_TRUE(outcome.found()) << outcome.message;
  EXPECT_EQ(outcome.stop, StopReason::Interrupt) << outcome.message;
}

TEST(MilpLimits, AnInterruptEndsTheRunWithAPlan) {
  expectInterruptEndsTheRun(2, 120, std::chrono::milliseconds(500));
}

// The interrupt while the root LP runs: the portfolio of warm starts and
// the polish take about 3 s of a 4 s limit.
TEST(MilpLimits, AnInterruptStopsTheRootLp) {
  expectInterruptEndsTheRun(3, 4, std::chrono::milliseconds(3300));
}

// q = 64 would need gigabytes: under a 100 MB limit the model is built for a
// smaller q (or not at all), and the process stays under the limit + 10%.
TEST(MilpLimits, AMemoryLimitShrinksTheLatencyModel) {
  const Workload w = randomDag(300, 4);
  const milp::ModelSize full = milp::latencyModelSize(w, 64);
  ASSERT_GT(full.bytes(), 1e9);
  const std::filesystem::path path = testing::writeTemp(workloadToJson(w));
  constexpr long kLimit = 100'000'000;
  const testing::MeasuredRun run = testing::runCliMeasured(
      {"solve", "--method", "milp", "--objective", "latency", "--q", "64", "--time-limit", "3",
       "--memory-limit", std::to_string(kLimit), path.string()});
  std::filesystem::remove(path);
  EXPECT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.err.find("would pass the memory limit"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("feasible"), std::string::npos) << run.err;
  if (testing::kPeakMemoryMeaningful) {
    EXPECT_LT(run.peakBytes, 1.1 * kLimit) << run.err;
  }
}

// The latency polish tries each class on every accelerator and recomputes
// the latency per try: with 3000 accelerators one class takes long, so the
// limit is checked per try and a 1 s run ends well within 2 s.
TEST(MilpLimits, TheLatencyPolishKeepsTheTimeLimitOnManyAccelerators) {
  const Workload dag = randomDag(3000, 6);
  Machine machine = dag.machine;
  machine.maxFpgas = 3000;
  machine.maxSizePerFpga /= 100;
  const Workload w = dag.onMachine(machine);
  SolveOptions options;
  options.objective = Objective::Latency;
  options.timeLimitSeconds = 1;
  const auto start = Clock::now();
  const SolveOutcome outcome = solve(w, "milp", options);
  EXPECT_LT(secondsFrom(start), 2) << outcome.message;
  ASSERT_TRUE(outcome.found()) << outcome.message;
}

/// The model built has no more rows, columns and nonzeros than estimated.
void expectWithin(const milp::Model& model, const milp::ModelSize& size) {
  EXPECT_LE(model.builder.numRows(), size.rows);
  EXPECT_LE(model.builder.numColumns(), size.columns);
  EXPECT_LE(model.builder.numNonzeros(), size.nonzeros);
  EXPECT_GT(model.builder.numNonzeros(), size.nonzeros / 4);  // and not far fewer
}

// The estimates bound the models actually built.
TEST(MilpLimits, TheEstimateIsAnUpperBound) {
  const Workload w = randomDag(60, 5);
  const objective::ClassTotals totals(w);
  const milp::Allowed allowed{totals.acceleratorAllowed(w.machine), true};
  SolveOptions options;
  for (Contiguity contiguity : {Contiguity::None, Contiguity::Convex}) {
    options.contiguity = contiguity;
    expectWithin(milp::throughputModel(w, totals, allowed, options),
                 milp::throughputModelSize(w, options));
  }
  for (int q : {1, 2, 5, 16})
    expectWithin(milp::latencyModel(w, totals, allowed, q, milp::kInfinity),
                 milp::latencyModelSize(w, q));
}

}  // namespace
}  // namespace dnnplace
