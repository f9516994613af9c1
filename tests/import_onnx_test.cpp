// import onnx on small models built here with ONNX's protobuf classes: every
// rule of the cost model (docs/cost-model.md) checked by hand-computed figures,
// and every malformed-model message as printed.

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <variant>

#include "dnnplace/import.hpp"
#include "dnnplace/workload.hpp"
#include "test_support.hpp"

namespace dnnplace {
namespace {

using testing::runCli;

/// A graph under construction: typed tensors, nodes, inputs and outputs.
class ModelBuilder {
 public:
  ModelBuilder() {
    model_.set_ir_version(8);
    auto* opset = model_.add_opset_import();
    opset->set_domain("");
    opset->set_version(14);
    model_.mutable_graph()->set_name("test");
  }
  /// A shape entry: a number, or a symbol (dim_param) when negative is not enough.
  using Dims = std::vector<std::variant<std::int64_t, std::string>>;

  ModelBuilder& input(const std::string& name, const Dims& dims, int type = onnx::TensorProto::FLOAT) {
    fill(model_.mutable_graph()->add_input(), name, dims, type);
    return *this;
  }
  ModelBuilder& output(const std::string& name, const Dims& dims) {
    fill(model_.mutable_graph()->add_output(), name, dims, onnx::TensorProto::FLOAT);
    return *this;
  }
  ModelBuilder& valueInfo(const std::string& name, const Dims& dims) {
    fill(model_.mutable_graph()->add_value_info(), name, dims, onnx::TensorProto::FLOAT);
    return *this;
  }
  onnx::NodeProto* node(const std::string& type, const std::string& name,
                        const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                        const std::string& domain = "") {
    auto* node = model_.mutable_graph()->add_node();
    node->set_op_type(type);
    node->set_name(name);
    node->set_domain(domain);
    for (const auto& i : inputs) node->add_input(i);
    for (const auto& o : outputs) node->add_output(o);
    return node;
  }
  static void integer(onnx::NodeProto* node, const std::string& name, std::int64_t value) {
    auto* attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::INT);
    attribute->set_i(value);
  }
  /// A Constant node's value: a one-element int64 tensor.
  static void constantValue(onnx::NodeProto* node, std::int64_t value) {
    auto* attribute = node->add_attribute();
    attribute->set_name("value");
    attribute->set_type(onnx::AttributeProto::TENSOR);
    attribute->mutable_t()->set_data_type(onnx::TensorProto::INT64);
    attribute->mutable_t()->add_dims(1);
    attribute->mutable_t()->add_int64_data(value);
  }
  static void ints(onnx::NodeProto* node, const std::string& name,
                   const std::vector<std::int64_t>& values) {
    auto* attribute = node->add_attribute();
    attribute->set_name(name);
    attribute->set_type(onnx::AttributeProto::INTS);
    for (auto v : values) attribute->add_ints(v);
  }
  onnx::ModelProto& proto() { return model_; }

  std::filesystem::path write() const {
    const auto path = testing::tempPath(".onnx");
    std::ofstream out(path, std::ios::binary);
    out << model_.SerializeAsString();
    return path;
  }

 private:
  static void fill(onnx::ValueInfoProto* info, const std::string& name, const Dims& dims, int type) {
    info->set_name(name);
    auto* tensor = info->mutable_type()->mutable_tensor_type();
    tensor->set_elem_type(type);
    auto* shape = tensor->mutable_shape();
    for (const auto& d : dims) {
      auto* dim = shape->add_dim();
      if (std::holds_alternative<std::int64_t>(d))
        dim->set_dim_value(std::get<std::int64_t>(d));
      else
        dim->set_dim_param(std::get<std::string>(d));
    }
  }
  onnx::ModelProto model_;
};

/// 1 TFLOP/s, 1 GB/s, 1 GB, a link of 0.5 GB/s, no overhead: latencies are
/// easy to compute by hand.
DeviceSpec testAccelerator() { return {"test", 1e12, 1e9, 1e9, 0.5e9, 0, "", ""}; }
DeviceSpec testCpu() { return {"cpu", 1e10, 1e8, 0, 0, 1e-6, "", ""}; }

OnnxImportOptions optionsFor(const std::filesystem::path& path);

/// Imports the model with the test devices and symbolic dimensions `dims`.
std::optional<Workload> importBuilt(const ModelBuilder& builder,
                                    std::vector<std::pair<std::string, std::int64_t>> dims,
                                    ImportSummary* summary) {
  OnnxImportOptions options = optionsFor(builder.write());
  options.dims = std::move(dims);
  ImportError error;
  auto workload = importOnnx(options, summary, &error);
  EXPECT_TRUE(workload) << error.message;
  return workload;
}

OnnxImportOptions optionsFor(const std::filesystem::path& path) {
  OnnxImportOptions options;
  options.modelPath = path.string();
  options.accelerator = testAccelerator();
  options.cpu = testCpu();
  options.accelerators = 2;
  options.cpus = 1;
  return options;
}

const Node* nodeNamed(const Workload& workload, const std::string& name) {
  for (const Node& node : workload.graph().nodes)
    if (node.name == name) return &node;
  return nullptr;
}

/// input [1,3,8,8] -> Conv(W [4,3,3,3], B [4], pads 1) -> Relu -> output.
ModelBuilder convRelu() {
  ModelBuilder b;
  b.input("x", {std::int64_t{1}, std::int64_t{3}, std::int64_t{8}, std::int64_t{8}})
      .input("conv.weight", {std::int64_t{4}, std::int64_t{3}, std::int64_t{3}, std::int64_t{3}})
      .input("conv.bias", {std::int64_t{4}});
  auto* conv = b.node("Conv", "/conv/Conv", {"x", "conv.weight", "conv.bias"}, {"c"});
  ModelBuilder::ints(conv, "kernel_shape", {3, 3});
  ModelBuilder::ints(conv, "pads", {1, 1, 1, 1});
  b.node("Relu", "/relu/Relu", {"c"}, {"y"});
  b.output("y", {std::int64_t{1}, std::int64_t{4}, std::int64_t{8}, std::int64_t{8}});
  return b;
}

TEST(ImportOnnx, ConvolutionFlopsBytesLatencyCostAndMemory) {
  const auto path = convRelu().write();
  ImportSummary summary;
  ImportError error;
  const auto workload = importOnnx(optionsFor(path), &summary, &error);
  ASSERT_TRUE(workload) << error.message;
  ASSERT_EQ(workload->numNodes(), 3);  // the input, Conv, Relu
  EXPECT_EQ(summary.operators, 2);
  // Conv: 2 · (1·4·8·8 outputs) · (3 · 3·3) = 13824; Relu: 256 outputs.
  EXPECT_DOUBLE_EQ(summary.forwardFlops, 13824 + 256);
  EXPECT_DOUBLE_EQ(summary.parameterBytes, (108 + 4) * 4);
  const Node* conv = nodeNamed(*workload, "/conv/Conv");
  const Node* relu = nodeNamed(*workload, "/relu/Relu");
  const Node* input = nodeNamed(*workload, "x");
  ASSERT_TRUE(conv && relu && input);
  // Conv bytes: x 768, W 432, B 16, out 1024 = 2240 bytes: 2.24 µs at 1 GB/s
  // against 13.824 ns of compute: memory-bound.
  EXPECT_DOUBLE_EQ(conv->fpgaLatency, 1000 * (2240 / 1e9));
  EXPECT_DOUBLE_EQ(conv->cpuLatency, 1000 * (std::max(13824 / 1e10, 2240 / 1e8) + 1e-6));
  EXPECT_DOUBLE_EQ(conv->size, 448);
  EXPECT_EQ(conv->parameterSize, 0);  // inference: no gradients to all-reduce
  EXPECT_DOUBLE_EQ(relu->fpgaLatency, 1000 * (2048 / 1e9));
  EXPECT_EQ(input->fpgaLatency, 0);
  EXPECT_EQ(input->size, 0);
  // Costs: the input sends 768 bytes, Conv 1024, over 0.5 GB/s; Relu's output leaves the model.
  const Graph& graph = workload->graph();
  EXPECT_DOUBLE_EQ(graph.outCost[*workload->indexOf(input->id)], 1000 * 768 / 0.5e9);
  EXPECT_DOUBLE_EQ(graph.outCost[*workload->indexOf(conv->id)], 1000 * 1024 / 0.5e9);
  EXPECT_EQ(graph.edges.size(), 2u);
  // The machine: k accelerators of the device's memory, l cores.
  EXPECT_EQ(workload->machine.maxFpgas, 2);
  EXPECT_EQ(workload->machine.maxCpus, 1);
  EXPECT_DOUBLE_EQ(workload->machine.maxSizePerFpga, 1e9);
  // Layers: each operator's module scope.
  ASSERT_TRUE(conv->layerId && relu->layerId);
  EXPECT_NE(*conv->layerId, *relu->layerId);
  EXPECT_FALSE(input->layerId);
}

TEST(ImportOnnx, TrainingAddsTwinsReversedEdgesAndMemoryForGradientsAndState) {
  const auto path = convRelu().write();
  OnnxImportOptions options = optionsFor(path);
  options.training = true;
  ImportError error;
  const auto workload = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(workload) << error.message;
  ASSERT_EQ(workload->numNodes(), 5);
  const Node* conv = nodeNamed(*workload, "/conv/Conv");
  const Node* convB = nodeNamed(*workload, "/conv/Conv (backward)");
  const Node* relu = nodeNamed(*workload, "/relu/Relu");
  const Node* reluB = nodeNamed(*workload, "/relu/Relu (backward)");
  ASSERT_TRUE(conv && convB && relu && reluB);
  EXPECT_TRUE(convB->isBackward);
  EXPECT_EQ(convB->colorClass, conv->colorClass);
  EXPECT_EQ(reluB->colorClass, relu->colorClass);
  EXPECT_NE(conv->colorClass, relu->colorClass);
  EXPECT_DOUBLE_EQ(convB->fpgaLatency, 2 * conv->fpgaLatency);  // no overhead in this spec
  // Weights, gradient and Adam's two moments, and the 1024 output bytes kept.
  EXPECT_DOUBLE_EQ(conv->size, 448 * 4 + 1024);
  EXPECT_DOUBLE_EQ(conv->parameterSize, 448);
  EXPECT_DOUBLE_EQ(relu->size, 1024);
  const Graph& graph = workload->graph();
  const NodeIndex rb = *workload->indexOf(reluB->id), cb = *workload->indexOf(convB->id);
  ASSERT_EQ(graph.successors(rb).size(), 1u);
  EXPECT_EQ(graph.successors(rb)[0], cb);
  // The gradient of Conv's output: 1024 bytes.
  EXPECT_DOUBLE_EQ(graph.outCost[rb], 1000 * 1024 / 0.5e9);
  // The model's output starts the backward pass.
  const NodeIndex r = *workload->indexOf(relu->id);
  ASSERT_EQ(graph.successors(r).size(), 1u);
  EXPECT_EQ(graph.successors(r)[0], rb);
  options.optimizerStates = 0;  // plain SGD
  const auto sgd = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(sgd);
  EXPECT_DOUBLE_EQ(nodeNamed(*sgd, "/conv/Conv")->size, 448 * 2 + 1024);
}

TEST(ImportOnnx, MatMulGemmAndASharedParameter) {
  // x [2,5,8] -> MatMul(W [8,16]) -> Gemm-free path; the embedding-style
  // table E [16,4] is read by two operators, so it becomes a node of its own.
  ModelBuilder b;
  b.input("x", {std::string("batch"), std::int64_t{5}, std::int64_t{8}})
      .input("w", {std::int64_t{8}, std::int64_t{16}})
      .input("e", {std::int64_t{16}, std::int64_t{4}});
  b.node("MatMul", "/proj/MatMul", {"x", "w"}, {"h"});
  b.node("MatMul", "/head/MatMul", {"h", "e"}, {"y"});
  b.node("Transpose", "/tie/Transpose", {"e"}, {"et"});  // folded: derived from a parameter
  b.node("MatMul", "/back/MatMul", {"y", "et"}, {"z"});
  b.output("z", {std::string("batch"), std::int64_t{5}, std::int64_t{16}});
  ImportSummary summary;
  const auto workload = importBuilt(b, {{"batch", 2}}, &summary);
  ASSERT_TRUE(workload);
  EXPECT_EQ(summary.operators, 3);  // the Transpose of a weight is not an operator of the pass
  // 2·(2·5·16)·8 + 2·(2·5·4)·16 + 2·(2·5·16)·4
  EXPECT_DOUBLE_EQ(summary.forwardFlops, 2560 + 1280 + 1280);
  EXPECT_DOUBLE_EQ(summary.parameterBytes, (128 + 64) * 4);
  const Node* table = nodeNamed(*workload, "e");
  ASSERT_TRUE(table);
  EXPECT_DOUBLE_EQ(table->size, 256);
  EXPECT_EQ(table->parameterSize, 0);
  EXPECT_EQ(table->fpgaLatency, 0);
  const Graph& graph = workload->graph();
  const NodeIndex t = *workload->indexOf(table->id);
  EXPECT_EQ(graph.successors(t).size(), 2u);
  EXPECT_EQ(graph.outCost[t], 0);
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/proj/MatMul")->size, 512);
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/head/MatMul")->size, 0);  // its weight is the shared node's
}

TEST(ImportOnnx, GemmWithTransposedOperandAndShapeSubgraphsFolded) {
  // Flatten's shape computed at run time (Shape → Gather → Concat → Reshape)
  // is folded: only Reshape and Gemm are operators.
  ModelBuilder b;
  b.input("x", {std::string("batch"), std::int64_t{2}, std::int64_t{3}})
      .input("fc.weight", {std::int64_t{10}, std::int64_t{6}})
      .input("fc.bias", {std::int64_t{10}});
  b.node("Shape", "/Shape", {"x"}, {"s"});
  ModelBuilder::constantValue(b.node("Constant", "Constant_0", {}, {"zero"}), 0);
  ModelBuilder::constantValue(b.node("Constant", "Constant_1", {}, {"m1"}), -1);
  b.node("Gather", "/Gather", {"s", "zero"}, {"n"});
  ModelBuilder::integer(b.node("Concat", "/Concat", {"n", "m1"}, {"shape"}), "axis", 0);
  b.node("Reshape", "/Reshape", {"x", "shape"}, {"flat"});
  ModelBuilder::integer(b.node("Gemm", "/fc/Gemm", {"flat", "fc.weight", "fc.bias"}, {"y"}), "transB",
                        1);
  b.output("y", {std::string("batch"), std::int64_t{10}});
  ImportSummary summary;
  const auto workload = importBuilt(b, {{"batch", 4}}, &summary);
  ASSERT_TRUE(workload);
  EXPECT_EQ(summary.operators, 2);
  EXPECT_EQ(workload->numNodes(), 3);
  EXPECT_DOUBLE_EQ(summary.forwardFlops, 2.0 * 4 * 10 * 6);
  EXPECT_TRUE(summary.bytesOnlyTypes.empty());
  // Reshape reads x (96 bytes) and the shape (16 bytes), writes 96: data movement, bytes only.
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/Reshape")->fpgaLatency, 1000 * 208 / 1e9);
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/Reshape")->size, 16);  // the constant shape it holds
  EXPECT_FALSE(nodeNamed(*workload, "/Reshape")->layerId);       // the top-level module's own
}

TEST(ImportOnnx, AnOperatorWithoutARuleIsEstimatedByBytesAndListed) {
  ModelBuilder b;
  b.input("x", {std::int64_t{1}, std::int64_t{16}});
  auto* opset = b.proto().add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  b.node("Relu", "/a/Relu", {"x"}, {"r"});
  b.node("Mystery", "/b/Mystery", {"r"}, {"y"}, "com.example");
  b.valueInfo("y", {std::int64_t{1}, std::int64_t{16}});
  b.output("y", {std::int64_t{1}, std::int64_t{16}});
  const auto path = b.write();
  ImportSummary summary;
  ImportError error;
  const auto workload = importOnnx(optionsFor(path), &summary, &error);
  ASSERT_TRUE(workload) << error.message;
  EXPECT_EQ(summary.bytesOnlyTypes, std::vector<std::string>{"com.example.Mystery"});
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/b/Mystery")->fpgaLatency, 1000 * 128 / 1e9);
  EXPECT_NE(importSummaryText(summary, *workload, "test")
                .find("estimated by bytes only (no FLOP rule): com.example.Mystery"),
            std::string::npos);
}

TEST(ImportOnnx, LayerGranularityAndDepthFuseModules) {
  // Two blocks of two convolutions each: at depth 1 each block is one node.
  ModelBuilder b;
  b.input("x", {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{4}});
  std::string last = "x";
  for (const std::string block : {"/block1", "/block2"})
    for (const std::string conv : {"/conv1", "/conv2"}) {
      const std::string weight = block.substr(1) + conv.substr(1) + ".weight";
      b.input(weight, {std::int64_t{2}, std::int64_t{2}, std::int64_t{1}, std::int64_t{1}});
      auto* node = b.node("Conv", block + conv + "/Conv", {last, weight}, {block + conv});
      ModelBuilder::ints(node, "kernel_shape", {1, 1});
      last = block + conv;
    }
  b.output(last, {std::int64_t{1}, std::int64_t{2}, std::int64_t{4}, std::int64_t{4}});
  const auto path = b.write();
  OnnxImportOptions options = optionsFor(path);
  options.training = true;
  ImportError error;
  const auto operators = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(operators) << error.message;
  EXPECT_EQ(operators->numNodes(), 9);
  options.granularity = OnnxImportOptions::Granularity::Layer;
  const auto leaves = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(leaves) << error.message;
  EXPECT_EQ(leaves->numNodes(), 9);  // each conv is its own module
  options.layerDepth = 1;
  const auto blocks = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(blocks) << error.message;
  ASSERT_EQ(blocks->numNodes(), 5);  // the input, two blocks, their two backward nodes
  const Node* block1 = nodeNamed(*blocks, "/block1");
  const Node* block1b = nodeNamed(*blocks, "/block1 (backward)");
  ASSERT_TRUE(block1 && block1b);
  EXPECT_DOUBLE_EQ(block1->fpgaLatency, nodeNamed(*operators, "/block1/conv1/Conv")->fpgaLatency +
                                            nodeNamed(*operators, "/block1/conv2/Conv")->fpgaLatency);
  EXPECT_EQ(block1->colorClass, block1b->colorClass);
  EXPECT_DOUBLE_EQ(block1->parameterSize, 2 * 16);
}

/// What `dnnplace import onnx` prints for a model file, with `extra` options.
testing::CommandResult importCli(const std::filesystem::path& model, const std::string& extra) {
  return runCli("import onnx '" + model.string() + "' --device a100 --accelerators 4 " + extra +
                " --out " + testing::tempPath(".json").string());
}

TEST(ImportOnnxErrors, SymbolicDimensionWithoutDim) {
  ModelBuilder b;
  b.input("tokens", {std::string("batch"), std::int64_t{8}});
  b.node("Relu", "/Relu", {"tokens"}, {"y"});
  b.output("y", {std::string("batch"), std::int64_t{8}});
  const auto path = b.write();
  auto result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                            ": input 'tokens' dimension 0 is symbolic ('batch'): give its value with "
                            "--dim batch=N\n");
  result = importCli(path, "--dim batch=2 --dim seq=9");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                            ": --dim seq: the model's inputs have no symbolic dimension 'seq' (they "
                            "have: batch)\n");
  result = importCli(path, "--dim batch=zero");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: import onnx: --dim expects NAME=VALUE with a positive integer VALUE, got "
            "'batch=zero'\n");
  result = importCli(path, "--dim batch=2");
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

TEST(ImportOnnxErrors, TruncatedNotOnnxAndUnknownOpset) {
  const auto good = convRelu().write();
  std::string bytes;
  {
    std::ifstream in(good, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  const auto truncated = testing::tempPath(".onnx");
  std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const auto json = testing::writeTemp("{\"nodes\": []}\n", ".onnx");
  testing::CommandResult result;
  for (const auto& path : {truncated, json}) {
    result = importCli(path, "");
    EXPECT_EQ(result.exitCode, 2);
    EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                              ": not an ONNX model (no ONNX graph could be read from it: a truncated "
                              "file, or another format)\n");
  }

  const auto empty = testing::writeTemp("", ".onnx");
  result = importCli(empty, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + empty.string() + ": not an ONNX model (the file is empty)\n");

  result = importCli("/nonexistent/model.onnx", "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err.rfind("dnnplace: /nonexistent/model.onnx: cannot open", 0), 0u) << result.err;

  ModelBuilder dangling;  // reads a tensor nothing makes
  dangling.input("x", {std::int64_t{1}});
  dangling.node("Add", "/Add", {"x", "nowhere"}, {"y"});
  dangling.output("y", {std::int64_t{1}});
  const auto danglingPath = dangling.write();
  result = importCli(danglingPath, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err.rfind("dnnplace: " + danglingPath.string() + ": not a valid ONNX model: ", 0),
            0u)
      << result.err;
  EXPECT_NE(result.err.find("nowhere"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);

  ModelBuilder future = convRelu();
  future.proto().mutable_opset_import(0)->set_version(99);
  const auto path = future.write();
  result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(
      result.err.rfind("dnnplace: " + path.string() +
                           ": opset 99 of domain 'ai.onnx' is not one this ONNX library knows (1 to ",
                       0),
      0u)
      << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1);
}

TEST(ImportOnnxErrors, AnOperatorWhoseOutputHasNoShape) {
  ModelBuilder b;
  b.input("x", {std::int64_t{1}, std::int64_t{16}});
  auto* opset = b.proto().add_opset_import();
  opset->set_domain("com.example");
  opset->set_version(1);
  b.node("Mystery", "/m/Mystery", {"x"}, {"y"}, "com.example");
  b.node("Relu", "/r/Relu", {"y"}, {"z"});
  b.output("z", {std::int64_t{1}, std::int64_t{16}});
  const auto path = b.write();
  const auto result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                            ": operator '/m/Mystery' (Mystery) output: tensor 'y' has no shape after "
                            "ONNX shape inference (an operator it cannot infer, or a dimension "
                            "computed from data)\n");
}

TEST(ImportOnnxErrors, ParametersLargerThanEveryDeviceAreInfeasible) {
  // A 1e9 × 1 float weight: 4 GB, more than a 1 GB device, and no CPU core.
  ModelBuilder b;
  b.input("x", {std::int64_t{1}, std::int64_t{1}})
      .input("w", {std::int64_t{1}, std::int64_t{1000000000}});
  b.node("MatMul", "/big/MatMul", {"x", "w"}, {"y"});
  b.output("y", {std::int64_t{1}, std::int64_t{1000000000}});
  const auto path = b.write();
  const auto spec = testing::writeTemp(
      R"({"name": "small", "peakFlops": 1e12, "memoryBandwidth": 1e12, "memory": 1e9,
          "linkBandwidth": 1e10, "opOverhead": 0})");
  auto result = runCli("import onnx '" + path.string() + "' --device '" + spec.string() +
                       "' --accelerators 8 --out " + testing::tempPath(".json").string());
  EXPECT_EQ(result.exitCode, 3);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                            ": operator '/big/MatMul' needs 4.0 GB (parameters), more than one small "
                            "holds (1.0 GB), and there is no CPU core (--cpus)\n");
  // With a CPU core it can run there.
  result = runCli("import onnx '" + path.string() + "' --device '" + spec.string() +
                  "' --accelerators 8 --cpus 1 --out " + testing::tempPath(".json").string());
  EXPECT_EQ(result.exitCode, 0) << result.err;
}

}  // namespace
}  // namespace dnnplace

namespace dnnplace {
namespace {

TEST(ImportOnnx, RecurrentLayersCountTheirMatrixProducts) {
  // An LSTM over 7 steps of a batch of 3, input 5, hidden 4: W [1, 16, 5], R [1, 16, 4].
  ModelBuilder b;
  b.input("x", {std::int64_t{7}, std::int64_t{3}, std::int64_t{5}})
      .input("w", {std::int64_t{1}, std::int64_t{16}, std::int64_t{5}})
      .input("r", {std::int64_t{1}, std::int64_t{16}, std::int64_t{4}});
  ModelBuilder::integer(b.node("LSTM", "/lstm/LSTM", {"x", "w", "r"}, {"y"}), "hidden_size", 4);
  b.output("y", {std::int64_t{7}, std::int64_t{1}, std::int64_t{3}, std::int64_t{4}});
  ImportSummary summary;
  ASSERT_TRUE(importBuilt(b, {}, &summary));
  EXPECT_DOUBLE_EQ(summary.forwardFlops, 2.0 * 7 * 3 * (80 + 64));
  EXPECT_TRUE(summary.bytesOnlyTypes.empty());
  EXPECT_DOUBLE_EQ(summary.parameterBytes, (80 + 64) * 4);
}

TEST(ImportOnnxErrors, OptionsThatCannotWork) {
  const auto model = convRelu().write();
  auto result = importCli(model, "--optimizer-states 1");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: import onnx: --optimizer-states applies to --training only\n");
  result = runCli("import onnx '" + model.string() + "' --device a100 --accelerators 0");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: import onnx: the machine has no device: give --accelerators or --cpus\n");
  result = runCli("import onnx '" + model.string() + "' --device a100 --accelerators 1 --out '" +
                  model.string() + "'");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: import onnx: --out " + model.string() + " is the model itself\n");
  ModelBuilder symbolic;
  symbolic.input("x", {std::string("batch")});
  symbolic.node("Relu", "/Relu", {"x"}, {"y"});
  symbolic.output("y", {std::string("batch")});
  const auto symbolicPath = symbolic.write();
  result = importCli(symbolicPath, "--dim batch=1 --dim batch=2");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: import onnx: --dim batch is given twice\n");
  result = importCli(symbolicPath, "--dim batch=99999999999999999999");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err.rfind("dnnplace: import onnx: --dim expects NAME=VALUE with a positive integer",
                             0),
            0u)
      << result.err;
  // A model given where a workload is wanted.
  result = runCli("solve '" + model.string() + "'");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_NE(result.err.find("(an ONNX model? 'dnnplace import onnx' makes a workload of it)\n"),
            std::string::npos)
      << result.err;
}

TEST(ImportOnnx, SyncBandwidthForReplicatedStagesFromTheFlagOrTheDevice) {
  // docs/model.md §9: syncBandwidth in bytes per millisecond, from
  // --sync-bandwidth (bytes per second) or else the accelerator's figure.
  const auto model = convRelu().write();
  OnnxImportOptions options = optionsFor(model);
  options.training = true;
  ImportError error;
  auto workload = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(workload) << error.message;
  EXPECT_EQ(workload->machine.syncBandwidth, 0);  // the test accelerator states none
  options.accelerator.syncBandwidth = 2e11;
  workload = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(workload) << error.message;
  EXPECT_DOUBLE_EQ(workload->machine.syncBandwidth, 2e8);
  EXPECT_DOUBLE_EQ(workload->machine.samplesPerSync, 1);
  options.syncBandwidth = 5e9;
  options.samplesPerSync = 4;
  workload = importOnnx(options, nullptr, &error);
  ASSERT_TRUE(workload) << error.message;
  EXPECT_DOUBLE_EQ(workload->machine.syncBandwidth, 5e6);
  EXPECT_DOUBLE_EQ(workload->machine.samplesPerSync, 4);

  // From the command line: the catalog's A100 (NVLink, 300 GB/s one way), the
  // flag over it, a device without a figure, and what solve --replicate makes of each.
  const auto out = testing::tempPath(".json");
  auto result = runCli("import onnx '" + model.string() +
                       "' --device a100 --accelerators 4 --training --out " + out.string() +
                       " --quiet");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  auto read = loadWorkload(out.string(), &result.err);
  ASSERT_TRUE(read) << result.err;
  EXPECT_DOUBLE_EQ(read->machine.syncBandwidth, 3e8);
  result = runCli("solve " + out.string() + " --method dp --replicate --quiet");
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_NE(result.out.find("\"replicas\""), std::string::npos) << result.out;
  result = runCli("import onnx '" + model.string() +
                  "' --device a100 --accelerators 4 --training --sync-bandwidth 1e10 "
                  "--samples-per-sync 8 --quiet --out " +
                  out.string());
  ASSERT_EQ(result.exitCode, 0) << result.err;
  read = loadWorkload(out.string(), &result.err);
  ASSERT_TRUE(read) << result.err;
  EXPECT_DOUBLE_EQ(read->machine.syncBandwidth, 1e7);
  EXPECT_DOUBLE_EQ(read->machine.samplesPerSync, 8);
  result = runCli("import onnx '" + model.string() +
                  "' --device tpu-v4 --accelerators 4 --training --out " + out.string() + " --quiet");
  ASSERT_EQ(result.exitCode, 0) << result.err;
  result = runCli("solve " + out.string() + " --method dp --replicate");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(
      result.err,
      "dnnplace: dp: --replicate needs the workload's syncBandwidth (docs/model.md §9): without it "
      "no block can be replicated (import onnx --sync-bandwidth, or a device with a sync figure, "
      "sets it)\n");

  // Below 1e-27 bytes per second the workload's syncBandwidth (bytes per ms)
  // would be below the 1e-30 its reader takes.
  for (const char* tiny : {"0", "1e-28"}) {
    result = importCli(model, std::string("--sync-bandwidth ") + tiny);
    EXPECT_EQ(result.exitCode, 2);
    EXPECT_EQ(result.err,
              std::string("dnnplace: --sync-bandwidth: expected a number of bytes per second "
                          "from 1e-27 (a workload's 1e-30 per ms), got '") +
                  tiny + "' (see --help)\n");
  }
  result = importCli(model, "--samples-per-sync 0.5");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: --samples-per-sync: expected a number >= 1, got '0.5' (see --help)\n");
}

TEST(ImportOnnxErrors, AGraphWithoutOperators) {
  ModelBuilder empty;
  empty.input("x", {std::int64_t{1}});
  empty.output("x", {std::int64_t{1}});
  const auto path = empty.write();
  const auto result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() + ": the model's graph has no operators\n");
}

TEST(ImportOnnxErrors, GeometryShapeInferenceWouldDivideBy) {
  // ONNX's shape inference divides by a convolution's strides and trusts a
  // block size: a stride of 0 was a division by zero inside libonnx (found by
  // the fuzzer; tests/fuzz/regressions/onnx-conv-stride-0).
  struct Case {
    const char* attribute;
    std::vector<std::int64_t> values;
    const char* expected;
  };
  for (const Case& c :
       {Case{"strides", {1, 0}, "strides has the value 0 (each must be 1 to 2^31)"},
        Case{"dilations", {-3, 1}, "dilations has the value -3 (each must be 1 to 2^31)"},
        Case{"pads", {1, -1, 1, 1}, "pads has the value -1 (each must be 0 to 2^31)"},
        Case{"kernel_shape",
             {3, std::int64_t{1} << 40},
             "kernel_shape has the value 1099511627776 (each must be 1 to 2^31)"}}) {
    ModelBuilder b = convRelu();
    auto* conv = b.proto().mutable_graph()->mutable_node(0);
    conv->clear_attribute();
    ModelBuilder::ints(conv, c.attribute, c.values);
    const auto path = b.write();
    const auto result = importCli(path, "");
    EXPECT_EQ(result.exitCode, 2) << c.attribute;
    EXPECT_EQ(result.err, "dnnplace: " + path.string() + ": operator '/conv/Conv' (Conv): attribute " +
                              c.expected + "\n");
  }
  ModelBuilder blocks;
  blocks.input("x", {std::int64_t{1}, std::int64_t{4}, std::int64_t{2}, std::int64_t{2}});
  ModelBuilder::integer(blocks.node("DepthToSpace", "/d2s", {"x"}, {"y"}), "blocksize", 0);
  blocks.output("y", {std::int64_t{1}, std::int64_t{1}, std::int64_t{4}, std::int64_t{4}});
  const auto path = blocks.write();
  const auto result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "dnnplace: " + path.string() +
                            ": operator '/d2s' (DepthToSpace): attribute blocksize has the value 0 "
                            "(each must be 1 to 2^31)\n");
}

TEST(ImportOnnxErrors, RawDataThatIsNotTheTensorsElements) {
  // libonnx's ParseData copies all of raw_data into raw_data.size() /
  // sizeof(T) elements: 4 bytes for an int64 wrote to a null vector's data
  // (found by the fuzzer; tests/fuzz/regressions/onnx-raw-data-short).
  ModelBuilder constant = convRelu();
  auto* node = constant.node("Constant", "/c", {}, {"c"});
  ModelBuilder::constantValue(node, 1);
  node->mutable_attribute(0)->mutable_t()->clear_int64_data();
  node->mutable_attribute(0)->mutable_t()->set_raw_data(std::string(4, '\x01'));
  const auto path = constant.write();
  const auto result = importCli(path, "");
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err,
            "dnnplace: " + path.string() +
                ": operator '/c' (Constant) tensor '': raw_data holds 4 bytes, its type and "
                "dims need 8\n");
  ModelBuilder weights = convRelu();
  auto* init = weights.proto().mutable_graph()->add_initializer();
  init->set_name("w_extra");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(3);
  init->set_raw_data(std::string(13, '\0'));
  const auto second = weights.write();
  const auto refused = importCli(second, "");
  EXPECT_EQ(refused.exitCode, 2);
  EXPECT_EQ(refused.err,
            "dnnplace: " + second.string() +
                ": initializer 'w_extra': raw_data holds 13 bytes, its type and dims need 12\n");
}

}  // namespace
}  // namespace dnnplace

namespace dnnplace {
namespace {

TEST(ImportOnnx, ShapeArithmeticOnnxDoesNotFollowIsEvaluated) {
  // x [batch, 6] reshaped to [batch, 6 / 2, -1]: the Div of shape values is
  // one ONNX 1.12's data propagation does not follow, so without the
  // importer's own evaluation the Reshape and Relu have no shapes.
  ModelBuilder b;
  b.input("x", {std::string("batch"), std::int64_t{6}});
  b.node("Shape", "/Shape", {"x"}, {"s"});
  ModelBuilder::constantValue(b.node("Constant", "Constant_0", {}, {"zero"}), 0);
  ModelBuilder::constantValue(b.node("Constant", "Constant_1", {}, {"one"}), 1);
  ModelBuilder::constantValue(b.node("Constant", "Constant_2", {}, {"two"}), 2);
  ModelBuilder::constantValue(b.node("Constant", "Constant_3", {}, {"minus"}), -1);
  b.node("Gather", "/Gather", {"s", "zero"}, {"n"});  // [1]
  b.node("Gather", "/Gather_1", {"s", "one"}, {"c"});
  b.node("Div", "/Div", {"c", "two"}, {"half"});
  ModelBuilder::integer(b.node("Concat", "/Concat", {"n", "half", "minus"}, {"shape"}), "axis", 0);
  b.node("Reshape", "/Reshape", {"x", "shape"}, {"r"});
  b.node("Relu", "/act/Relu", {"r"}, {"y"});
  b.output("y", {std::string("batch"), std::int64_t{3}, std::int64_t{2}});
  ImportSummary summary;
  const auto workload = importBuilt(b, {{"batch", 5}}, &summary);
  ASSERT_TRUE(workload);
  EXPECT_EQ(summary.operators, 2);  // Reshape and Relu: the shape arithmetic is folded
  EXPECT_DOUBLE_EQ(summary.forwardFlops, 5 * 3 * 2);
  // Relu reads and writes 5·3·2 floats.
  EXPECT_DOUBLE_EQ(nodeNamed(*workload, "/act/Relu")->fpgaLatency, 1000 * 240 / 1e9);
}

}  // namespace
}  // namespace dnnplace
