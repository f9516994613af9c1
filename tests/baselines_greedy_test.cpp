// Latency greedy (reference Appendix F): the fill rule on hand-made graphs,
// fusing of mutually reachable classes, feasibility and evaluator agreement,
// and its lower bound against the brute-force optimum.

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>

#include <nlohmann/json.hpp>

#include "baselines/greedy.hpp"
#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "dnnplace/solver.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

SolveOptions latencyOptions() {
  SolveOptions options;
  options.objective = Objective::Latency;
  return options;
}

/// A chain 1 → 2 → … → n of nodes with the given sizes and support flags.
Workload chain(const std::vector<double>& sizes, const std::vector<bool>& supported, double memory,
               int accelerators, int cpus) {
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    Node node;
    node.id = static_cast<std::int64_t>(i + 1);
    node.fpgaLatency = 1;
    node.cpuLatency = 10;
    node.size = sizes[i];
    node.supportedOnFpga = supported[i];
    nodes.push_back(node);
    if (i > 0) edges.push_back({static_cast<std::int64_t>(i), static_cast<std::int64_t>(i + 1), 0.5});
  }
  std::string error;
  auto workload = buildWorkload("chain", Machine{memory, accelerators, cpus}, nodes, edges, &error);
  EXPECT_TRUE(workload) << error;
  return std::move(*workload);
}

void expectFeasible(const SolveOutcome& outcome) {
  ASSERT_TRUE(outcome.status == SolveStatus::Feasible || outcome.status == SolveStatus::Optimal)
      << resultName(outcome) << ": " << outcome.message;
  ASSERT_TRUE(outcome.evaluation.feasible);
  for (const auto& device : outcome.evaluation.devices) {
    if (device.accelerator) {
      EXPECT_EQ(device.pieces, 1) << "accelerator " << device.index;
    }
  }
}

TEST(LatencyGreedy, FillsEachAcceleratorWhileMemoryAllows) {
  // Sizes 4 each, 10 bytes per accelerator: two nodes per accelerator, the
  // fifth node opens a third one; with only two accelerators it goes to the CPU.
  const Workload three = chain({4, 4, 4, 4, 4}, {true, true, true, true, true}, 10, 3, 1);
  SolveOutcome outcome = solve(three, "greedy", latencyOptions());
  expectFeasible(outcome);
  EXPECT_EQ(outcome.placement->deviceOf, (std::vector<std::int32_t>{0, 0, 1, 1, 2}));

  const Workload two = chain({4, 4, 4, 4, 4}, {true, true, true, true, true}, 10, 2, 1);
  outcome = solve(two, "greedy", latencyOptions());
  expectFeasible(outcome);
  EXPECT_EQ(outcome.placement->deviceOf, (std::vector<std::int32_t>{0, 0, 1, 1, 2}));
  // acc0: 2 work + 0.5 out; acc1: 0.5 in + 2 + 0.5 out; cpu: 10.
  EXPECT_DOUBLE_EQ(outcome.objective, 2.5 + 3 + 10);
  std::vector<std::string> phases;
  for (const PhaseTime& phase : outcome.phases) phases.push_back(phase.name);
  EXPECT_EQ(std::vector<std::string>(phases.begin(),
                                     phases.begin() + std::min<std::size_t>(3, phases.size())),
            (std::vector<std::string>{"blocks", "fill", "bound"}));
}

TEST(LatencyGreedy, ABlockOnTheCpuClosesTheOpenAccelerator) {
  // Node 2 is CPU-only: nodes 1 and 3 must not share an accelerator (that
  // accelerator would run two pieces around the CPU node).
  const Workload workload = chain({1, 1, 1}, {true, false, true}, 100, 2, 1);
  const SolveOutcome outcome = solve(workload, "greedy", latencyOptions());
  expectFeasible(outcome);
  EXPECT_EQ(outcome.placement->deviceOf, (std::vector<std::int32_t>{0, 2, 1}));

  // With one accelerator, node 3 has nowhere to go but the CPU.
  const Workload one = chain({1, 1, 1}, {true, false, true}, 100, 1, 1);
  const SolveOutcome single = solve(one, "greedy", latencyOptions());
  expectFeasible(single);
  EXPECT_EQ(single.placement->deviceOf, (std::vector<std::int32_t>{0, 1, 1}));
}

TEST(LatencyGreedy, FusesMutuallyReachableClasses) {
  // a → b → c with a and c in one color class: contracting it makes a cycle
  // with b, so a, b, c form one inseparable block even though memory would
  // allow splitting them after a.
  const Workload workload = testing::parseOrDie(R"({
    "maxSizePerFPGA": 10, "maxFPGAs": 3, "maxCPUs": 1,
    "nodes": [
      {"id": 1, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "size": 3, "colorClass": 5},
      {"id": 2, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "size": 3},
      {"id": 3, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "size": 3, "colorClass": 5},
      {"id": 4, "supportedOnFpga": 1, "cpuLatency": 9, "fpgaLatency": 1, "isBackwardNode": 0, "size": 3}
    ],
    "edges": [
      {"sourceId": 1, "destId": 2, "cost": 1},
      {"sourceId": 2, "destId": 3, "cost": 1},
      {"sourceId": 3, "destId": 4, "cost": 1}
    ]})");
  const SolveOutcome outcome = solve(workload, "greedy", latencyOptions());
  expectFeasible(outcome);
  // The block {1,2,3} (9 bytes) fills accelerator 0; node 4 opens accelerator 1.
  EXPECT_EQ(outcome.placement->deviceOf, (std::vector<std::int32_t>{0, 0, 0, 1}));
}

TEST(LatencyGreedy, GeneratedWorkloadsFeasibleAndAgreeWithEvaluator) {
  for (GraphShape shape :
       {GraphShape::Chain, GraphShape::Transformer, GraphShape::Cnn, GraphShape::SeriesParallel}) {
    for (double memory : {16e9, 2e8}) {
      GeneratorOptions g;
      g.shape = shape;
      g.blocks = 4;
      g.accelerators = 3;
      g.memoryPerAccelerator = memory;
      const Workload workload = generateWorkload(g);
      const SolveOutcome outcome = solve(workload, "greedy", latencyOptions());
      expectFeasible(outcome);
      EXPECT_LE(outcome.lowerBound, outcome.objective * (1 + 1e-9));
      // Deterministic: no seed involved.
      EXPECT_EQ(solve(workload, "greedy", latencyOptions()).placement->deviceOf,
                outcome.placement->deviceOf);
    }
  }
}

/// Best latency over every class-to-device assignment (tiny instances only).
double bruteForceLatency(const Workload& workload) {
  const int devices = workload.machine.maxFpgas + workload.machine.maxCpus;
  std::vector<int> deviceOfClass(workload.graph().numClasses, 0);
  double best = std::numeric_limits<double>::infinity();
  EvaluateOptions options;
  options.objective = Objective::Latency;
  for (;;) {
    Placement p;
    p.numAccelerators = workload.machine.maxFpgas;
    p.numCpus = workload.machine.maxCpus;
    p.deviceOf.resize(workload.numNodes());
    for (NodeIndex v = 0; v < workload.numNodes(); ++v)
      p.deviceOf[v] = deviceOfClass[workload.graph().classOf[v]];
    const Evaluation e = evaluate(workload, p, options);
    if (e.feasible) best = std::min(best, e.objective);
    int c = 0;
    while (c < workload.graph().numClasses && ++deviceOfClass[c] == devices) deviceOfClass[c++] = 0;
    if (c == workload.graph().numClasses) break;
  }
  return best;
}

TEST(LatencyGreedy, LowerBoundNeverExceedsTheBruteForceOptimum) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> latency(0.5, 10), cost(0, 3), size(0, 4);
    std::vector<Node> nodes(7);
    std::vector<RawEdge> edges;
    for (int i = 0; i < 7; ++i) {
      nodes[i].id = i;
      nodes[i].fpgaLatency = latency(rng);
      nodes[i].cpuLatency = latency(rng);
      nodes[i].size = size(rng);
      nodes[i].supportedOnFpga = rng() % 5 != 0;
      if (rng() % 3 == 0) nodes[i].colorClass = static_cast<std::int64_t>(rng() % 2);
      for (int j = 0; j < i; ++j)
        if (rng() % 3 == 0) edges.push_back({j, i, 0});
    }
    // Equal cost on all edges of one source, as the model requires.
    std::vector<double> sourceCost(7);
    for (auto& x : sourceCost) x = cost(rng);
    for (auto& e : edges) e.cost = sourceCost[e.sourceId];
    std::string error;
    auto workload = buildWorkload("tiny", Machine{8, 2, 1}, nodes, edges, &error);
    ASSERT_TRUE(workload) << error;
    const double optimum = bruteForceLatency(*workload);
    const SolveOutcome outcome = solve(*workload, "greedy", latencyOptions());
    expectFeasible(outcome);
    EXPECT_GE(outcome.objective, optimum * (1 - 1e-9)) << "seed " << seed;
    EXPECT_LE(outcome.lowerBound, optimum * (1 + 1e-9)) << "seed " << seed;
  }
}

TEST(LatencyGreedy, RejectsTheThroughputObjectiveAndUsesACpuWhateverMaxCpus) {
  const Workload workload = chain({4, 4}, {true, true}, 10, 1, 0);
  EXPECT_EQ(solveLatencyGreedy(workload, SolveOptions{}).call, CallStatus::InvalidInput);
  // One accelerator holds one 6-byte node; the other runs on a CPU core,
  // though maxCPUs is 0: for latency it is ignored (docs/model.md §5).
  // Latency: node 1 and its output 1 + 0.5, then node 2 on the CPU 10.
  const Workload full = chain({6, 6}, {true, true}, 10, 1, 0);
  const SolveOutcome outcome = solve(full, "greedy", latencyOptions());
  expectFeasible(outcome);
  EXPECT_DOUBLE_EQ(outcome.objective, 11.5);
  ASSERT_TRUE(outcome.placement);
  EXPECT_TRUE(outcome.placement->isAccelerator(outcome.placement->deviceOf[0]));
  EXPECT_FALSE(outcome.placement->isAccelerator(outcome.placement->deviceOf[1]));
}

// The paper's latency workloads: a feasible one-piece-per-accelerator plan,
// never worse than the reference's greedy (which uses another topological order).
TEST(LatencyGreedy, SharedLatencyWorkloadsFeasibleAndNoWorseThanTheReference) {
  DNNPLACE_REQUIRE_SHARED(shared);
  const int checked = testing::forEachExpectedWorkload(
      shared, "latency.json", nullptr,
      [](const std::string&, const nlohmann::json& entry, const Workload& workload) {
        const SolveOutcome outcome = solve(workload, "greedy", latencyOptions());
        expectFeasible(outcome);
        EXPECT_LE(outcome.objective, entry["greedy_latency"].get<double>() * (1 + 1e-9));
      });
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace dnnplace
