// The model zoo (examples/models, scripts/export_models.py) through import
// onnx: FLOPs against the published counts, parameters, every model on every
// catalog accelerator with every main method, and layer contraction.

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>

#include "dnnplace/generator.hpp"
#include "dnnplace/import.hpp"
#include "dnnplace/solver.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

std::string modelPath(const std::string& name) {
  return std::string(DNNPLACE_SOURCE_DIR) + "/examples/models/" + name + ".onnx";
}

bool isLanguageModel(const std::string& name) { return name == "bert_base" || name == "gpt2_small"; }

/// A device that makes fpgaLatency FLOPs / 1e9 ms: 1 TFLOP/s, unbounded memory traffic, no overhead.
DeviceSpec flopCounter() { return {"flops", 1e12, 1e30, 1e12, 1e10, 0, "", ""}; }

OnnxImportOptions zooOptions(const std::string& name, std::int64_t batch) {
  OnnxImportOptions options;
  options.modelPath = modelPath(name);
  options.accelerator = flopCounter();
  options.cpu = {"cpu", 1e11, 1e10, 0, 0, 1e-6, "", ""};
  options.accelerators = 4;
  options.dims = {{"batch", batch}};
  if (isLanguageModel(name)) options.dims.push_back({"seq", 128});
  return options;
}

/// The encoder's multiply-adds at sequence length s: per layer the q, k, v
/// and output projections (4 s d²), the attention scores and context
/// (2 s² d) and the feed-forward block (2 s d f).
double transformerMacs(double layers, double s, double d, double f) {
  return layers * (4 * s * d * d + 2 * s * s * d + 2 * s * d * f);
}

struct Published {
  const char* model;
  double flops;  ///< twice the published multiply-accumulates of one sample
};

const std::vector<Published>& published() {
  static const std::vector<Published> table = {
      {"resnet50", 2 * 4.09e9},
      {"vgg16", 2 * 15.47e9},
      {"inception_v3", 2 * 5.71e9},
      {"mobilenet_v2", 2 * 0.30e9},
      {"vit_b_16", 2 * 17.56e9},
      // BERT-base: 12 layers, hidden 768, FFN 3072, at 128 tokens.
      {"bert_base", 2 * transformerMacs(12, 128, 768, 3072)},
      // GPT-2 small: the same blocks plus the 768 × 50257 language-model head.
      {"gpt2_small", 2 * (transformerMacs(12, 128, 768, 3072) + 128.0 * 768 * 50257)},
  };
  return table;
}

TEST(ImportZoo, ForwardFlopsMatchThePublishedCountsAndLatenciesFollowThem) {
  for (const auto& [model, expected] : published()) {
    SCOPED_TRACE(model);
    ImportSummary summary;
    ImportError error;
    const auto workload = importOnnx(zooOptions(model, 1), &summary, &error);
    ASSERT_TRUE(workload) << error.message;
    EXPECT_NEAR(summary.forwardFlops / expected, 1.0, 0.05);
    double forward = 0;
    for (const Node& node : workload->graph().nodes)
      if (!node.isBackward) forward += node.fpgaLatency;
    EXPECT_NEAR(forward, summary.forwardFlops / 1e9, 1e-9 * forward);
    EXPECT_TRUE(summary.bytesOnlyTypes.empty()) << summary.bytesOnlyTypes.front();
    // A batch of 8 is 8 times the work.
    ImportSummary eight;
    ASSERT_TRUE(importOnnx(zooOptions(model, 8), &eight, &error)) << error.message;
    EXPECT_NEAR(eight.forwardFlops / summary.forwardFlops, 8.0, 1e-9);
  }
}

TEST(ImportZoo, ParametersAreTheModelsOwn) {
  // torch's parameter counts (examples/models/README.md), 4 bytes each.
  const std::vector<std::pair<const char*, double>> counts = {{"vit_b_16", 86'567'656},
                                                              {"bert_base", 108'890'112},
                                                              {"gpt2_small", 163'037'184}};
  for (const auto& [model, count] : counts) {
    SCOPED_TRACE(model);
    ImportSummary summary;
    ImportError error;
    const auto workload = importOnnx(zooOptions(model, 1), &summary, &error);
    ASSERT_TRUE(workload) << error.message;
    EXPECT_DOUBLE_EQ(summary.parameterBytes, 4 * count);
    // parameterSize, what a replica's all-reduce moves: the weights in training only.
    OnnxImportOptions options = zooOptions(model, 1);
    options.training = true;
    const auto training = importOnnx(options, nullptr, &error);
    ASSERT_TRUE(training) << error.message;
    double parameters = 0, inference = 0;
    for (const Node& node : training->graph().nodes) parameters += node.parameterSize;
    for (const Node& node : workload->graph().nodes) inference += node.parameterSize;
    EXPECT_DOUBLE_EQ(parameters, 4 * count);
    EXPECT_EQ(inference, 0);
  }
}

/// One model per test, so that ctest runs them side by side.
class ImportZooModel : public ::testing::TestWithParam<std::string> {};

TEST_P(ImportZooModel, SolvesOnEveryCatalogAcceleratorWithTheMainMethods) {
  const std::string model = GetParam();
  std::vector<DeviceSpec> accelerators;
  DeviceSpec cpu;
  for (const auto& [kind, spec] : deviceCatalog())
    (kind == DeviceKind::Accelerator ? accelerators.push_back(spec) : void(cpu = spec));
  ASSERT_GE(accelerators.size(), 4u);
  int solved = 0;
  for (bool training : {false, true})
    for (const DeviceSpec& device : accelerators)
      for (int k : {4, 8}) {
        OnnxImportOptions options = zooOptions(model, 8);
        options.accelerator = device;
        options.cpu = cpu;
        options.accelerators = k;
        options.training = training;
        ImportError error;
        const auto workload = importOnnx(options, nullptr, &error);
        ASSERT_TRUE(workload) << model << " on " << device.name << ": " << error.message;
        for (const char* method : {"dp", "milp", "scotch", "local-search"}) {
          SolveOptions solveOptions;
          // Under AddressSanitizer the DP over Inception-v3's 10,633 ideals on 8
          // accelerators takes seconds a run: there it gets one second and must
          // return a feasible plan (its seeds); the plain build proves each optimal.
          const bool dp = std::string(method) == "dp";
          solveOptions.timeLimitSeconds = dp ? (testing::kSanitized ? 1 : 60) : 0.1;
          const SolveOutcome outcome = solve(*workload, method, solveOptions);
          // solve() re-checks every plan with the evaluator on this graph.
          EXPECT_TRUE(outcome.found())
              << model << (training ? " training" : " inference") << " on " << k << " x " << device.name
              << ", " << method << ": " << resultName(outcome) << " " << outcome.message;
          if (dp && !testing::kSanitized) {
            EXPECT_EQ(outcome.status, SolveStatus::Optimal);
          }
          ++solved;
        }
      }
  EXPECT_EQ(solved, 2 * static_cast<int>(accelerators.size()) * 2 * 4);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ImportZooModel,
                         ::testing::Values("resnet50", "vgg16", "inception_v3", "mobilenet_v2",
                                           "vit_b_16", "bert_base", "gpt2_small"));

TEST(ImportZoo, ResNet50LayersAreItsModuleCalls) {
  OnnxImportOptions options = zooOptions("resnet50", 8);
  options.granularity = OnnxImportOptions::Granularity::Layer;
  ImportError error;
  const auto layers = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(layers) << error.message;
  // torchvision's ResNet-50 with batch norm folded into the convolutions:
  // the stem's conv1, relu and maxpool (3); 16 bottlenecks, each conv1, relu,
  // conv2, relu_1, conv3, its own residual Add and relu_2 (the one ReLU module
  // called three times; 112); 4 downsample convolutions; avgpool; fc: 121
  // module calls, plus the top-level Flatten and the input.
  EXPECT_EQ(layers->numNodes(), 123);
  int withLayer = 0;
  for (const Node& node : layers->graph().nodes) withLayer += node.layerId ? 1 : 0;
  EXPECT_EQ(withLayer, 121);
  // At depth 2, a layer is a bottleneck block: the stem's 3 modules, 16
  // blocks, avgpool, fc, Flatten and the input.
  options.layerDepth = 2;
  const auto blocks = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(blocks) << error.message;
  EXPECT_EQ(blocks->numNodes(), 3 + 16 + 2 + 2);
}

TEST(ImportZoo, ContractLayersOnTheOperatorGraphGivesTheLayerGraphsOptimum) {
  for (const std::string model : {"resnet50", "bert_base"}) {
    SCOPED_TRACE(model);
    OnnxImportOptions options = zooOptions(model, 8);
    options.training = true;
    options.layerDepth = model == "bert_base" ? 3 : 2;
    options.accelerator = {"gpu", 100e12, 1e12, 16e9, 16e9, 5e-6, "", ""};
    options.accelerators = 4;
    ImportError error;
    const auto operators = importOnnx(options, nullptr, &error);
    ASSERT_TRUE(operators) << error.message;
    options.granularity = OnnxImportOptions::Granularity::Layer;
    const auto layers = importOnnx(options, nullptr, &error);
    ASSERT_TRUE(layers) << error.message;
    ASSERT_LT(layers->numNodes(), operators->numNodes() / 4);

    SolveOptions solveOptions;
    const SolveOutcome onLayers = solve(*layers, "dp", solveOptions);
    ASSERT_EQ(onLayers.status, SolveStatus::Optimal) << onLayers.message;
    std::string why;
    const auto contracted = contractLayers(*operators, &why);
    ASSERT_TRUE(contracted) << why;
    EXPECT_EQ(contracted->numNodes(), layers->numNodes());
    const SolveOutcome onContracted = solve(*contracted, "dp", solveOptions);
    ASSERT_EQ(onContracted.status, SolveStatus::Optimal);
    EXPECT_DOUBLE_EQ(onContracted.objective, onLayers.objective);

    // solve --contract-layers: the layer graph's plan placed on the operators,
    // checked there; its objective there is at most the layer graph's.
    solveOptions.contractLayers = true;
    const SolveOutcome mapped = solve(*operators, "dp", solveOptions);
    ASSERT_TRUE(mapped.found()) << mapped.message;
    EXPECT_EQ(mapped.status, SolveStatus::Feasible);
    EXPECT_EQ(mapped.placement->deviceOf.size(), static_cast<std::size_t>(operators->numNodes()));
    EXPECT_LE(mapped.objective, onLayers.objective * (1 + 1e-12));
    // The layer graph's bound does not hold on the operators: none, gap 1.
    EXPECT_EQ(mapped.lowerBound, 0);
    EXPECT_EQ(mapped.gap, 1);
    EXPECT_NE(mapped.message.find("optimal on the layer graph (" + std::to_string(layers->numNodes()) +
                                  " nodes)"),
              std::string::npos)
        << mapped.message;
    // The plain operator-graph optimum is at least as good.
    solveOptions.contractLayers = false;
    const SolveOutcome full = solve(*operators, "dp", solveOptions);
    ASSERT_EQ(full.status, SolveStatus::Optimal);
    EXPECT_LE(full.objective, mapped.objective * (1 + 1e-12));
  }
}

TEST(ImportZoo, ContractLayersWithNothingToFuseKeepsTheStatusAndBound) {
  // A graph without layer ids fuses nothing: --contract-layers solves the
  // problem as given, and its optimum and bound stand (it once said
  // feasible, lower bound 0, gap 0).
  GeneratorOptions generator;
  generator.shape = GraphShape::Transformer;
  generator.blocks = 2;
  generator.width = 3;
  generator.accelerators = 3;
  generator.training = true;
  const Workload w = generateWorkload(generator);
  SolveOptions options;
  const SolveOutcome plain = solve(w, "dp", options);
  ASSERT_EQ(plain.status, SolveStatus::Optimal) << plain.message;
  options.contractLayers = true;
  const SolveOutcome contracted = solve(w, "dp", options);
  EXPECT_EQ(contracted.status, SolveStatus::Optimal) << contracted.message;
  EXPECT_DOUBLE_EQ(contracted.objective, plain.objective);
  EXPECT_DOUBLE_EQ(contracted.lowerBound, plain.lowerBound);
  EXPECT_DOUBLE_EQ(contracted.gap, plain.gap);
  EXPECT_LT(contracted.gap, 1e-9);
  EXPECT_EQ(contracted.message.rfind("no two nodes share a layer: solved as given; ", 0), 0u)
      << contracted.message;
}

TEST(ImportZoo, EveryMethodRunsOnAnImportedWorkload) {
  // Inception-v3 (branching blocks) and BERT (attention), trained on 4 A100s
  // with 2 CPU cores: every method of the registry, both objectives.
  DeviceSpec a100, cpu;
  for (const auto& [kind, spec] : deviceCatalog()) {
    if (spec.name == "a100") a100 = spec;
    if (kind == DeviceKind::Cpu) cpu = spec;
  }
  ASSERT_EQ(a100.name, "a100");
  for (const std::string model : {"inception_v3", "bert_base"}) {
    OnnxImportOptions options = zooOptions(model, 8);
    options.accelerator = a100;
    options.cpu = cpu;
    options.cpus = 2;
    options.training = true;
    ImportError error;
    const auto workload = importOnnx(options, nullptr, &error);
    ASSERT_TRUE(workload) << error.message;
    int ran = 0;
    for (const MethodInfo& method : methods()) {
      if (method.needsPlan) continue;
      for (Objective objective : {Objective::Throughput, Objective::Latency}) {
        if (!(objective == Objective::Throughput ? method.throughput : method.latency)) continue;
        SolveOptions solveOptions;
        solveOptions.objective = objective;
        solveOptions.timeLimitSeconds = 2;
        solveOptions.q = 2;  // training: forward and backward subgraphs per accelerator
        const SolveOutcome outcome = solve(*workload, method.name, solveOptions);
        EXPECT_TRUE(outcome.found()) << model << " " << method.name << " "
                                     << (objective == Objective::Latency ? "latency" : "throughput")
                                     << ": " << resultName(outcome) << " " << outcome.message;
        ++ran;
      }
    }
    EXPECT_GE(ran, 10);
  }
}

TEST(ImportZoo, ContractLayersOnTheCommandLine) {
  const auto operators = testing::tempPath(".json");
  auto result = testing::runCli("import onnx " + modelPath("bert_base") +
                                " --device v100 --accelerators 4 --dim batch=8 --dim seq=128 "
                                "--layer-depth 3 --training --quiet --out " +
                                operators.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err, "");
  const auto plan = testing::tempPath(".json");
  result = testing::runCli("solve " + operators.string() + " --contract-layers --out " + plan.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err.rfind("dp: feasible, max-load ", 0), 0u) << result.err;
  EXPECT_NE(result.err.find("optimal on the layer graph (79 nodes): "), std::string::npos)
      << result.err;
  // The plan places every operator and passes the evaluator on the operator graph.
  result = testing::runCli("evaluate " + operators.string() + " " + plan.string() + " --contiguous");
  EXPECT_EQ(result.exitCode, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("feasible:   yes"), std::string::npos) << result.out;
}

TEST(ImportZoo, TheReadmesTwoCommands) {
  // README: from a model to a placement in two commands.
  const auto workload = testing::tempPath(".json");
  auto result = testing::runCli("import onnx " + modelPath("resnet50") +
                                " --device a100 --accelerators 4 --dim batch=32 --training --out " +
                                workload.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  EXPECT_EQ(result.err.rfind("import onnx: 122 operators, 245 nodes, parameters 102.1 MB, forward ", 0),
            0u)
      << result.err;
  // Both solves print what the README shows, but for the seconds.
  std::string error;
  const auto readme =
      readFile((std::filesystem::path(DNNPLACE_SOURCE_DIR) / "README.md").string(), &error);
  ASSERT_TRUE(readme) << error;
  // A line's seconds (", 0.000 s" at its end) vary from run to run.
  const std::regex seconds(", [0-9]+\\.[0-9]+ s\n");
  const std::string expected = std::regex_replace(*readme, seconds, "\n");
  for (const std::string flags : {"", " --replicate"}) {
    result = testing::runCli("solve " + workload.string() + flags + " --out /dev/null");
    EXPECT_EQ(result.exitCode, 0) << result.err;
    std::string shown;  // as the README shows it: each line indented by four
    std::stringstream lines(std::regex_replace(result.err, seconds, "\n"));
    for (std::string line; std::getline(lines, line);) shown += "    " + line + "\n";
    EXPECT_NE(expected.find(shown), std::string::npos)
        << "README.md does not show what solve" << flags << " prints:\n"
        << shown;
  }
  result = testing::runCli("info " + workload.string());
  EXPECT_EQ(result.exitCode, 0);
  EXPECT_NE(result.out.find("nodes:                    245 (123 forward, 122 backward)"),
            std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace dnnplace
