// The evaluator on small graphs whose loads were worked out by hand
// (docs/model.md §3 for throughput, §5 for latency, §4 for contiguity).

#include <gtest/gtest.h>

#include <chrono>

#include "dnnplace/evaluator.hpp"
#include "dnnplace/generator.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using testing::parseOrDie;

// 1 → 2 → 4 and 1 → 3 → 4; costs are per source node.
const char* kDiamond = R"({
  "maxSizePerFPGA": 250, "maxFPGAs": 2, "maxCPUs": 1,
  "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 10, "fpgaLatency": 1, "isBackwardNode": 0, "size": 100},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 20, "fpgaLatency": 2, "isBackwardNode": 0, "size": 100},
    {"id": 3, "supportedOnFpga": 1, "cpuLatency": 30, "fpgaLatency": 3, "isBackwardNode": 0, "size": 100},
    {"id": 4, "supportedOnFpga": 0, "cpuLatency": 40, "fpgaLatency": 4, "isBackwardNode": 0}
  ],
  "edges": [
    {"sourceId": 1, "destId": 2, "cost": 0.5}, {"sourceId": 1, "destId": 3, "cost": 0.5},
    {"sourceId": 2, "destId": 4, "cost": 0.25}, {"sourceId": 3, "destId": 4, "cost": 0.125}
  ]})";

Placement place(const Workload& w, int accelerators, int cpus,
                std::initializer_list<std::pair<std::int64_t, int>> where) {
  Placement p;
  p.numAccelerators = accelerators;
  p.numCpus = cpus;
  p.deviceOf.assign(w.numNodes(), Placement::kUnplaced);
  for (auto [id, device] : where) p.deviceOf[*w.indexOf(id)] = device;
  return p;
}

TEST(EvaluatorThroughput, PaysEachCrossingSourceOncePerAccelerator) {
  Workload w = parseOrDie(kDiamond);
  // {1,2} | {3,4}: node 4 is unsupported on accelerators.
  Evaluation e = evaluate(w, place(w, 2, 1, {{1, 0}, {2, 0}, {3, 1}, {4, 1}}), {});
  ASSERT_EQ(e.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(e.devices[0].load, 1 + 2 + 0.5 + 0.25);  // sends 1→3, 2→4
  EXPECT_DOUBLE_EQ(e.devices[1].load, 3 + 4 + 0.5 + 0.25);  // fed by 1 and 2
  EXPECT_DOUBLE_EQ(e.objective, 7.75);
  EXPECT_DOUBLE_EQ(e.devices[0].memory, 200);
  EXPECT_FALSE(e.feasible);
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0], "nodes not supported on accelerators are placed on one: 4");
  EXPECT_TRUE(e.contiguous);
}

TEST(EvaluatorThroughput, CpuPaysNoCommunicationAndMemoryIsChecked) {
  Workload w = parseOrDie(kDiamond);
  Evaluation e = evaluate(w, place(w, 2, 1, {{1, 0}, {2, 0}, {3, 0}, {4, 2}}), {});
  ASSERT_EQ(e.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(e.devices[0].load, 6 + 0.25 + 0.125);
  EXPECT_TRUE(e.devices[1].accelerator == false);
  EXPECT_DOUBLE_EQ(e.devices[1].load, 40);
  EXPECT_DOUBLE_EQ(e.objective, 40);
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0], "accelerator 0 holds 300 bytes, more than maxSizePerFPGA = 250");
}

TEST(EvaluatorThroughput, NonContiguousSplitIsDetected) {
  Workload w = parseOrDie(kDiamond);
  Placement p = place(w, 2, 1, {{1, 0}, {4, 2}, {2, 1}, {3, 1}});
  EXPECT_TRUE(evaluate(w, p, {}).contiguous);
  p = place(w, 2, 1, {{1, 0}, {4, 0}, {2, 1}, {3, 1}});
  EvaluateOptions options;
  options.requireContiguous = true;
  Evaluation e = evaluate(w, p, options);
  EXPECT_FALSE(e.contiguous);
  EXPECT_DOUBLE_EQ(e.devices[0].load, 1 + 4 + 0.5 + 0.25 + 0.125);
  EXPECT_DOUBLE_EQ(e.devices[1].load, 5 + 0.5 + 0.25 + 0.125);
  ASSERT_EQ(e.violations.size(), 2u);
  EXPECT_EQ(e.violations[1],
            "not contiguous: forward edges form a cycle among the blocks of accelerator 0, "
            "accelerator 1");
}

TEST(EvaluatorThroughput, CountsDevicesAndUnplacedNodes) {
  Workload w = parseOrDie(kDiamond);
  Evaluation e = evaluate(w, place(w, 3, 2, {{1, 0}, {2, 1}, {3, 2}, {4, 3}}), {});
  EXPECT_FALSE(e.feasible);
  EXPECT_EQ(e.violations.back(), "the plan uses 3 accelerators, maxFPGAs is 2");
  e = evaluate(w, place(w, 2, 2, {{1, 2}, {2, 3}, {3, 2}}), {});
  ASSERT_EQ(e.violations.size(), 2u);
  EXPECT_EQ(e.violations[0], "nodes not placed on any device: 4");
  EXPECT_EQ(e.violations[1], "the plan uses 2 CPU cores, maxCPUs is 1");
}

// Training: 1 → 2 forward, 2 → 12 → 11 backward; classes {1, 11} and {2, 12}.
const char* kTraining = R"({
  "maxSizePerFPGA": 1e9, "maxFPGAs": 2, "maxCPUs": 0,
  "nodes": [
    {"id": 1, "supportedOnFpga": true, "cpuLatency": 0, "fpgaLatency": 1, "isBackwardNode": false, "colorClass": 7},
    {"id": 2, "supportedOnFpga": true, "cpuLatency": 0, "fpgaLatency": 2, "isBackwardNode": false, "colorClass": 8},
    {"id": 11, "supportedOnFpga": true, "cpuLatency": 0, "fpgaLatency": 30, "isBackwardNode": true, "colorClass": 7},
    {"id": 12, "supportedOnFpga": true, "cpuLatency": 0, "fpgaLatency": 20, "isBackwardNode": true, "colorClass": 8}
  ],
  "edges": [
    {"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 2, "destId": 12, "cost": 2},
    {"sourceId": 12, "destId": 11, "cost": 3}
  ]})";

TEST(EvaluatorThroughput, TrainingSplitsForwardAndBackwardLoad) {
  Workload w = parseOrDie(kTraining);
  Placement p = place(w, 2, 0, {{1, 0}, {11, 0}, {2, 1}, {12, 1}});
  Evaluation e = evaluate(w, p, {});
  ASSERT_TRUE(e.feasible);
  EXPECT_DOUBLE_EQ(e.devices[0].forwardLoad, 1 + 1);    // sends node 1
  EXPECT_DOUBLE_EQ(e.devices[0].backwardLoad, 30 + 3);  // fed by node 12
  EXPECT_DOUBLE_EQ(e.devices[1].forwardLoad, 2 + 1);    // fed by node 1
  EXPECT_DOUBLE_EQ(e.devices[1].backwardLoad, 20 + 3);  // sends node 12
  EXPECT_DOUBLE_EQ(e.objective, 35);
  EvaluateOptions diff;
  diff.diffMaxima = true;
  EXPECT_DOUBLE_EQ(evaluate(w, p, diff).objective, 3 + 33);
}

TEST(EvaluatorThroughput, SplitColorClassIsAViolation) {
  Workload w = parseOrDie(kTraining);
  Evaluation e = evaluate(w, place(w, 2, 0, {{1, 0}, {11, 1}, {2, 1}, {12, 1}}), {});
  ASSERT_EQ(e.violations.size(), 1u);
  EXPECT_EQ(e.violations[0],
            "color class 7 (nodes 1, 11) is split across accelerator 0, accelerator 1");
}

TEST(EvaluatorLatency, ChainsSubgraphsThroughTheirInputs) {
  Workload w = parseOrDie(kDiamond);
  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  // Memory and support aside, {1,2} then {3,4}: 3.75, then 0.75 + 7 after it.
  Evaluation e = evaluate(w, place(w, 2, 1, {{1, 0}, {2, 0}, {3, 1}, {4, 1}}), latency);
  EXPECT_DOUBLE_EQ(e.objective, 11.5);
  EXPECT_DOUBLE_EQ(e.devices[0].finish, 3.75);
  EXPECT_EQ(e.devices[1].pieces, 1);
}

TEST(EvaluatorLatency, SerializesPiecesOfOneAccelerator) {
  Workload w = parseOrDie(kDiamond);
  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  Placement p = place(w, 2, 1, {{1, 0}, {4, 0}, {2, 1}, {3, 1}});
  Evaluation e = evaluate(w, p, latency);
  EXPECT_EQ(e.devices[0].pieces, 2);
  EXPECT_EQ(e.violations.back(), "accelerator 0 runs 2 contiguous subgraphs, more than q = 1");
  latency.q = 2;
  e = evaluate(w, p, latency);
  // {1}: 1 + 0.5 → 1.5; {2,3}: 0.5 + 5 + 0.375 → 7.375; {4}: 0.375 + 4 → 11.75.
  EXPECT_DOUBLE_EQ(e.objective, 11.75);
  EXPECT_DOUBLE_EQ(e.devices[1].finish, 7.375);
  EXPECT_EQ(e.violations.size(), 1u);  // only node 4's support remains
}

TEST(EvaluatorLatency, CpuNodesRunInParallel) {
  Workload w = parseOrDie(kDiamond);
  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  // Everything on CPUs: the critical path 10 + 30 + 40, whatever maxCPUs says.
  Evaluation e = evaluate(w, place(w, 0, 1, {{1, 0}, {2, 0}, {3, 0}, {4, 0}}), latency);
  EXPECT_DOUBLE_EQ(e.objective, 80);
  EXPECT_TRUE(e.feasible);
}

TEST(EvaluatorLatency, CyclicWaitBetweenSubgraphsIsInfeasible) {
  // a1 → a2 and b2 → b1: {a1, b1} and {a2, b2} each convex, yet each waits on the other.
  Workload w = parseOrDie(R"({"maxSizePerFPGA": 10, "maxFPGAs": 2, "maxCPUs": 0, "nodes": [
    {"id": 1, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
    {"id": 2, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
    {"id": 3, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0},
    {"id": 4, "supportedOnFpga": 1, "cpuLatency": 1, "fpgaLatency": 1, "isBackwardNode": 0}],
    "edges": [{"sourceId": 1, "destId": 2, "cost": 1}, {"sourceId": 4, "destId": 3, "cost": 1}]})");
  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  Evaluation e = evaluate(w, place(w, 2, 0, {{1, 0}, {3, 0}, {2, 1}, {4, 1}}), latency);
  EXPECT_FALSE(e.feasible);
  EXPECT_EQ(e.violations.back(),
            "subgraphs wait on each other in a cycle, so no schedule exists: accelerator 0 piece "
            "1, accelerator 1 piece 1");
}

// The latency walk costs the accelerators' spans of the order, not the
// accelerators times the graph: a chain of 100,000 nodes, each on its own
// accelerator, is 10^10 steps the quadratic way (over a minute) and 10^5
// this way. A complexity check with a generous bound, not a speed test.
TEST(Evaluator, LatencyWithOneNodePerAcceleratorIsNearLinear) {
  GeneratorOptions options;
  options.shape = GraphShape::Chain;
  options.blocks = 100000;
  options.accelerators = 100000;
  options.cpus = 0;
  const Workload w = generateWorkload(options);
  ASSERT_EQ(w.numNodes(), 100000);
  Placement p;
  p.numAccelerators = w.machine.maxFpgas;
  p.numCpus = 0;
  p.deviceOf.resize(w.numNodes());
  for (NodeIndex v = 0; v < w.numNodes(); ++v) p.deviceOf[v] = v;
  EvaluateOptions latency;
  latency.objective = Objective::Latency;
  const auto start = std::chrono::steady_clock::now();
  const Evaluation e = evaluate(w, p, latency);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(e.feasible);
  // A chain on distinct devices: every node and every edge's cost twice
  // (sent, then received) lie on the one path.
  double expected = 0;
  for (NodeIndex v = 0; v < w.numNodes(); ++v) {
    expected += w.graph().nodes[v].fpgaLatency;
    if (!w.successors(v).empty()) expected += 2 * w.graph().outCost[v];
  }
  EXPECT_NEAR(e.objective, expected, 1e-9 * expected);
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace dnnplace
