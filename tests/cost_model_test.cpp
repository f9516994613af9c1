// The analytic cost model's one implementation (include/dnnplace/cost_model.hpp):
// the roofline, transfers, memory, backward twins and a workload built from an
// operator graph, against values worked out by hand (docs/model.md §8).

#include "dnnplace/cost_model.hpp"

#include <gtest/gtest.h>

namespace dnnplace {
namespace {

DeviceSpec a100() { return {"a100", 312e12, 1.555e12, 40e9, 25e9, 5e-6, "", ""}; }
DeviceSpec core() { return {"core", 1e11, 2e10, 0, 0, 1e-6, "", ""}; }

TEST(CostModel, RooflineTransferAndMemory) {
  // ResNet-50's 3x3 conv at batch 1 (docs/cost-model.md): memory bound.
  EXPECT_DOUBLE_EQ(operatorLatencyMs(231211008, 1753088, a100()), 1000 * (1753088 / 1.555e12 + 5e-6));
  EXPECT_DOUBLE_EQ(operatorLatencyMs(1e12, 1, a100()), 1000 * (1e12 / 312e12 + 5e-6));
  EXPECT_DOUBLE_EQ(transferMs(25e6, a100()), 1.0);
  const MemoryRules inference{false, 2}, training{true, 2};
  EXPECT_EQ(operatorMemory(100, 10, 50, inference), 110);
  EXPECT_EQ(operatorMemory(100, 10, 50, training), 400 + 10 + 50);
  EXPECT_EQ(allReduceBytes(100, inference), 0);
  EXPECT_EQ(allReduceBytes(100, training), 100);
}

CostModelOptions options(bool training) {
  CostModelOptions o;
  o.accelerator = a100();
  o.cpu = core();
  o.accelerators = 2;
  o.cpus = 1;
  o.memory.training = training;
  return o;
}

// input -> a -> b (the model's output), a also read by b twice over one tensor.
std::vector<CostOperator> chain() {
  CostOperator input{"x", 10, false, std::nullopt, 0, 0, 0, 400, std::nullopt, ""};
  CostOperator a{"a", 20, true, 1e6, 1000, 200, 0, 400, std::nullopt, "m"};
  CostOperator b{"b", 30, true, std::nullopt, 800, 0, 0, 400, 0.5, "m"};
  return {input, a, b};
}
std::vector<CostTensor> chainTensors() {
  return {{0, {1}, 400, false}, {1, {2, 2}, 400, false}, {2, {}, 400, true}};
}

TEST(CostModel, WorkloadFromAnOperatorGraph) {
  std::string error;
  const auto w = buildCostedWorkload("g", chain(), chainTensors(), options(false), &error);
  ASSERT_TRUE(w) << error;
  ASSERT_EQ(w->numNodes(), 3);
  const auto& nodes = w->graph().nodes;
  EXPECT_EQ(nodes[0].id, 10);
  EXPECT_EQ(nodes[0].fpgaLatency, 0);
  EXPECT_DOUBLE_EQ(nodes[1].fpgaLatency, operatorLatencyMs(1e6, 1000, a100()));
  EXPECT_DOUBLE_EQ(nodes[1].cpuLatency, operatorLatencyMs(1e6, 1000, core()));
  EXPECT_DOUBLE_EQ(nodes[2].fpgaLatency, 1000 * (800 / 1.555e12 + 5e-6));  // bytes only
  EXPECT_EQ(nodes[2].cpuLatency, 0.5);                                     // measured
  EXPECT_EQ(nodes[1].size, 200);
  ASSERT_EQ(w->graph().edges.size(), 2u);  // the doubled read is one edge
  EXPECT_DOUBLE_EQ(w->graph().outCost[0], transferMs(400, a100()));
  EXPECT_DOUBLE_EQ(w->graph().outCost[1], transferMs(400, a100()));  // one tensor, paid once
  EXPECT_EQ(w->machine.maxFpgas, 2);
  EXPECT_EQ(w->machine.maxCpus, 1);
}

TEST(CostModel, TrainingTwinsAndContraction) {
  auto o = options(true);
  o.firstBackwardId = 100;
  std::string error;
  const auto w = buildCostedWorkload("g", chain(), chainTensors(), o, &error);
  ASSERT_TRUE(w) << error;
  ASSERT_EQ(w->numNodes(), 5);  // the input has no twin
  const auto& nodes = w->graph().nodes;
  EXPECT_EQ(nodes[3].id, 100);
  EXPECT_EQ(nodes[3].name, "a (backward)");
  EXPECT_TRUE(nodes[3].isBackward);
  EXPECT_DOUBLE_EQ(nodes[3].fpgaLatency, operatorLatencyMs(2e6, 2000, a100()));
  EXPECT_EQ(nodes[4].cpuLatency, 1.0);             // twice the measured forward
  EXPECT_EQ(nodes[1].size, 200 * 4 + 400);         // parameters x 4 + kept output
  EXPECT_EQ(w->graph().edges.size(), 2u + 1 + 1);  // b_b -> a_b and the loss edge b -> b_b
  EXPECT_EQ(w->graph().classOf[1], w->graph().classOf[3]);

  o.contractLayers = true;
  const auto layers = buildCostedWorkload("g", chain(), chainTensors(), o, &error);
  ASSERT_TRUE(layers) << error;
  EXPECT_EQ(layers->numNodes(), 3);  // x, layer m forward, layer m backward
}

TEST(CostModel, BadGraphsAndSpecsAreOneLineErrors) {
  std::string error;
  auto tensors = chainTensors();
  tensors[1].consumers = {7};
  EXPECT_FALSE(buildCostedWorkload("g", chain(), tensors, options(false), &error));
  EXPECT_EQ(error, "g: tensor 1: consumer 7 is not an operator");
  auto o = options(false);
  o.accelerator.linkBandwidth = 0;
  EXPECT_FALSE(buildCostedWorkload("g", chain(), chainTensors(), o, &error));
  EXPECT_EQ(error, "g: the accelerator spec 'a100' needs a positive linkBandwidth");
  auto cycle = chainTensors();
  cycle.push_back({2, {1}, 4, false});
  EXPECT_FALSE(buildCostedWorkload("g", chain(), cycle, options(false), &error));
  EXPECT_NE(error.find("g: the graph is not a valid workload: "), std::string::npos) << error;
}

}  // namespace
}  // namespace dnnplace
