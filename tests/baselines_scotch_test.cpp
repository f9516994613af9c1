// Scotch baseline: feasibility and evaluator agreement, seeded determinism,
// CPU-only classes, memory repair, and the paper's throughput workloads.

#include <gtest/gtest.h>

#include <set>

#include <nlohmann/json.hpp>

#include "baselines/scotch.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/solver.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

bool hasPlan(const SolveOutcome& outcome) {
  return outcome.status == SolveStatus::Feasible || outcome.status == SolveStatus::Optimal;
}

TEST(Scotch, GeneratedWorkloadsFeasibleAndAgreeWithEvaluator) {
  GeneratorOptions g;
  g.blocks = 4;
  g.accelerators = 4;
  const std::vector<Workload> workloads = testing::generatedShapes(g);
  ASSERT_EQ(workloads.size(), 8u);
  for (const Workload& workload : workloads) {
    const SolveOutcome outcome = solve(workload, "scotch", SolveOptions{});
    ASSERT_TRUE(hasPlan(outcome)) << resultName(outcome) << ": " << outcome.message;
    EXPECT_TRUE(outcome.evaluation.feasible);
    // A partition into k parts: more than one accelerator used on these graphs.
    std::set<int> accelerators;
    for (auto d : outcome.placement->deviceOf)
      if (d < workload.machine.maxFpgas) accelerators.insert(d);
    EXPECT_GT(accelerators.size(), 1u);
  }
}

TEST(Scotch, SameSeedSamePlan) {
  GeneratorOptions g;
  g.shape = GraphShape::SeriesParallel;
  g.blocks = 5;
  g.accelerators = 5;
  const Workload workload = generateWorkload(g);
  SolveOptions options;
  options.seed = 11;
  const SolveOutcome a = solve(workload, "scotch", options);
  const SolveOutcome b = solve(workload, "scotch", options);
  ASSERT_TRUE(hasPlan(a) && hasPlan(b));
  EXPECT_EQ(a.placement->deviceOf, b.placement->deviceOf);
}

TEST(Scotch, CpuOnlyClassesGoToTheCpuAndOneAcceleratorTakesTheRest) {
  const Workload workload = testing::parseOrDie(R"({
    "maxSizePerFPGA": 100, "maxFPGAs": 1, "maxCPUs": 2,
    "nodes": [
      {"id": 1, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0},
      {"id": 2, "supportedOnFpga": 0, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0},
      {"id": 3, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "size": 101},
      {"id": 4, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0}
    ],
    "edges": [
      {"sourceId": 1, "destId": 2, "cost": 1},
      {"sourceId": 2, "destId": 3, "cost": 1},
      {"sourceId": 3, "destId": 4, "cost": 1}
    ]})");
  const SolveOutcome outcome = solve(workload, "scotch", SolveOptions{});
  ASSERT_TRUE(hasPlan(outcome)) << outcome.message;
  EXPECT_EQ(outcome.placement->deviceOf, (std::vector<std::int32_t>{0, 1, 1, 0}));
  // CPU core 0 holds nodes 2 and 3 (18); the accelerator pays 1 + 2 comm + 1.
  EXPECT_DOUBLE_EQ(outcome.objective, 18);
  EXPECT_NE(outcome.message.find("2 classes that fit no accelerator"), std::string::npos)
      << outcome.message;
}

TEST(Scotch, RepairsAPartitionThatOverflowsMemory) {
  // Balancing accelerator latency puts the two light but large layers (1 ms,
  // 6 bytes each) together against the 2 ms layer; 12 bytes exceed the 10
  // per accelerator, so one large layer must move.
  const Workload workload = testing::parseOrDie(R"({
    "maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 1,
    "nodes": [
      {"id": 1, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 1, "isBackwardNode": 0, "size": 6},
      {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 1, "isBackwardNode": 0, "size": 6},
      {"id": 3, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 1}
    ],
    "edges": [
      {"sourceId": 1, "destId": 2, "cost": 0.01},
      {"sourceId": 2, "destId": 3, "cost": 0.01}
    ]})");
  const SolveOutcome outcome = solve(workload, "scotch", SolveOptions{});
  ASSERT_TRUE(hasPlan(outcome)) << resultName(outcome) << ": " << outcome.message;
  EXPECT_TRUE(outcome.evaluation.feasible);
  EXPECT_NE(outcome.placement->deviceOf[0], outcome.placement->deviceOf[1]);
  EXPECT_NE(outcome.message.find("memory repair moved 1 classes"), std::string::npos)
      << outcome.message;
}

TEST(Scotch, ReportsWhatCannotBePlaced) {
  const Workload workload = testing::parseOrDie(R"({
    "maxSizePerFPGA": 100, "maxFPGAs": 2, "maxCPUs": 0,
    "nodes": [
      {"id": 1, "supportedOnFpga": 0, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0}
    ],
    "edges": []})");
  const SolveOutcome outcome = solve(workload, "scotch", SolveOptions{});
  EXPECT_EQ(outcome.status, SolveStatus::Infeasible);
  EXPECT_NE(outcome.message.find("node 1 has an operator unsupported"), std::string::npos)
      << outcome.message;
  SolveOptions diff;
  diff.diffMaxima = true;
  EXPECT_EQ(solve(workload, "scotch", diff).call, CallStatus::InvalidInput);
}

// Every paper throughput workload gets a feasible, evaluator-checked plan.
TEST(Scotch, SharedThroughputWorkloadsFeasible) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const int checked = testing::forEachExpectedWorkload(
      shared, "throughput.json", nullptr,
      [](const std::string&, const nlohmann::json&, const Workload& workload) {
        const SolveOutcome outcome = solve(workload, "scotch", SolveOptions{});
        EXPECT_TRUE(hasPlan(outcome)) << resultName(outcome) << ": " << outcome.message;
      });
  EXPECT_EQ(checked, 15);
}

}  // namespace
}  // namespace dnnplace
