// ONNX models as workloads through the analytic cost model (docs/model.md §8,
// docs/cost-model.md): which tensors are parameters, which operators are
// folded away, and the nodes, edges, costs and memory of the workload.

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "dnnplace/cost_model.hpp"
#include "dnnplace/import.hpp"
#include "import/flops.hpp"
#include "import/onnx_import.hpp"
#include "import/onnx_model.hpp"
#include "preprocess/layers.hpp"
#include "util/format.hpp"

namespace dnnplace {

namespace {

using onnx_import::Model;
using onnx_import::Operator;
using onnx_import::Tensor;

/// What a tensor is to the cost model.
enum class Kind {
  Activation,  ///< computed by an operator from the model's inputs
  ModelInput,  ///< a graph input that is data (a zero-work source node)
  Parameter,   ///< trainable weights, or derived from them without the inputs
  Constant,    ///< fixed data (integer initializers, Constant, shapes)
};

/// Operand positions that hold weights: a graph input used only there is a
/// parameter (PyTorch's export_params=False writes parameters as inputs).
bool weightOperand(const std::string& type, std::size_t slot) {
  static const std::map<std::string, std::set<std::size_t>> slots = {
      {"Conv", {1, 2}},
      {"ConvTranspose", {1, 2}},
      {"Gemm", {1, 2}},
      {"MatMul", {1}},
      {"BatchNormalization", {1, 2, 3, 4}},
      {"InstanceNormalization", {1, 2}},
      {"LayerNormalization", {1, 2}},
      {"GroupNormalization", {1, 2}},
      {"PRelu", {1}},
      {"Gather", {0}},
      {"Add", {0, 1}},
      {"Sub", {0, 1}},
      {"Mul", {0, 1}},
      {"Div", {0, 1}},
      {"Identity", {0}},
      {"Transpose", {0}},
      {"Reshape", {0}},
      {"Cast", {0}},
      {"Unsqueeze", {0}},
      {"Squeeze", {0}},
      {"Expand", {0}},
      {"Slice", {0}},
      {"Split", {0}},
      {"Tile", {0}},
      {"Flatten", {0}},
      {"LSTM", {1, 2, 3}},
      {"GRU", {1, 2, 3}},
      {"RNN", {1, 2, 3}},
  };
  if (type == "Concat") return true;  // any of its inputs
  const auto it = slots.find(type);
  return it != slots.end() && it->second.count(slot);
}

/// The module an operator belongs to: its name's scope ("/layer1/layer1.0/conv1"
/// of "/layer1/layer1.0/conv1/Conv"), cut to `depth` components if depth > 0.
/// Empty for operators of the top-level module and names without a scope:
/// each of those is a layer of its own.
std::string layerScope(const std::string& name, int depth) {
  const std::size_t slash = name.rfind('/');
  if (slash == std::string::npos || slash == 0) return "";
  std::string scope = name.substr(0, slash);
  if (depth > 0) {
    std::size_t end = 0;
    for (int d = 0; d <= depth && end != std::string::npos; ++d) end = scope.find('/', end + (d > 0));
    if (end != std::string::npos) scope.resize(end);
  }
  return scope;
}

struct Built {
  std::vector<Node> nodes;
  std::vector<RawEdge> edges;
};

class Importer {
 public:
  Importer(const OnnxImportOptions& options, Model& model, ImportSummary* summary)
      : options_(options), model_(model), summary_(summary) {}

  Built build() {
    classify();
    buildForward();
    if (options_.training) buildBackward();
    return std::move(built_);
  }

 private:
  void classify() {
    const std::size_t numTensors = model_.tensors.size();
    kind_.assign(numTensors, Kind::Activation);
    producer_.assign(numTensors, -1);
    roots_.assign(numTensors, {});
    std::vector<std::vector<std::pair<int, std::size_t>>> uses(numTensors);
    for (int o = 0; o < static_cast<int>(model_.operators.size()); ++o) {
      const Operator& op = model_.operators[o];
      for (std::size_t slot = 0; slot < op.inputs.size(); ++slot)
        if (op.inputs[slot] >= 0) uses[op.inputs[slot]].push_back({o, slot});
      for (int t : op.outputs)
        if (t >= 0) producer_[t] = o;
    }
    for (std::size_t t = 0; t < numTensors; ++t) {
      const Tensor& tensor = model_.tensors[t];
      if (tensor.isInitializer) {
        kind_[t] = tensor.trainableType() ? Kind::Parameter : Kind::Constant;
      } else if (tensor.isGraphInput) {
        bool weightsOnly = !uses[t].empty();
        for (const auto& [o, slot] : uses[t])
          weightsOnly = weightsOnly && weightOperand(model_.operators[o].type, slot);
        if (model_.hasInitializers || tensor.inputPosition == 0 || tensor.hadSymbolicDims)
          // A file with its weights has only data as other inputs; PyTorch
          // lists the model's own inputs first; a batch or sequence size is data's.
          kind_[t] = Kind::ModelInput;
        else if (!tensor.trainableType())
          kind_[t] = Kind::Constant;  // an integer buffer (position ids, masks)
        else
          kind_[t] = weightsOnly ? Kind::Parameter : Kind::ModelInput;
      }
      if (kind_[t] == Kind::Parameter) roots_[t] = {static_cast<int>(t)};
    }

    // Operators that read no activation and no model input are folded away:
    // their outputs are parameters (if they read some) or constants. Shape
    // and Size read only metadata, which is static here.
    folded_.assign(model_.operators.size(), false);
    for (std::size_t o = 0; o < model_.operators.size(); ++o) {
      const Operator& op = model_.operators[o];
      bool fold = op.type == "Shape" || op.type == "Size";
      std::vector<int> roots;
      if (!fold) {
        fold = true;
        for (int t : op.inputs) {
          if (t < 0) continue;
          if (kind_[t] == Kind::Activation || kind_[t] == Kind::ModelInput) fold = false;
          roots.insert(roots.end(), roots_[t].begin(), roots_[t].end());
        }
      }
      if (!fold) continue;
      folded_[o] = true;
      for (int t : op.outputs) {
        if (t < 0) continue;
        if (roots.empty()) {
          kind_[t] = Kind::Constant;
        } else {
          kind_[t] = Kind::Parameter;
          // PyTorch writes one Identity per parameter whose initial values
          // equal another's: each copy is a parameter of its own.
          roots_[t] = op.type == "Identity" ? std::vector<int>{t} : roots;
        }
      }
    }
    // The compute operators that read each parameter root.
    readers_.assign(numTensors, {});
    for (std::size_t o = 0; o < model_.operators.size(); ++o) {
      if (folded_[o]) continue;
      for (int t : model_.operators[o].inputs)
        if (t >= 0 && kind_[t] == Kind::Parameter)
          for (int root : roots_[t]) readers_[root].insert(static_cast<int>(o));
    }
  }

  std::int64_t addNode(Node node) {
    node.id = static_cast<std::int64_t>(built_.nodes.size());
    built_.nodes.push_back(std::move(node));
    return built_.nodes.back().id;
  }

  MemoryRules rules() const { return {options_.training, options_.optimizerStates}; }

  void buildForward() {
    const std::size_t numTensors = model_.tensors.size();
    // Which tensors compute operators read.
    std::vector<char> read(numTensors, 0);
    for (std::size_t o = 0; o < model_.operators.size(); ++o)
      if (!folded_[o])
        for (int t : model_.operators[o].inputs)
          if (t >= 0) read[t] = 1;

    // Model inputs: zero-work sources paying their transfer.
    std::vector<std::int64_t> inputNode(numTensors, -1);
    for (std::size_t t = 0; t < numTensors; ++t)
      if (kind_[t] == Kind::ModelInput && read[t]) {
        Node node;
        node.name = model_.tensors[t].name;
        inputNode[t] = addNode(node);
        cost_.push_back(transferMs(model_.tensors[t].bytes, options_.accelerator));
      }
    // Parameters read by several operators: one zero-work node holding them.
    std::vector<std::int64_t> sharedNode(numTensors, -1);
    for (std::size_t t = 0; t < numTensors; ++t)
      if (readers_[t].size() > 1) {
        Node node;
        node.name = model_.tensors[t].name;
        node.size = parameterMemory(model_.tensors[t].bytes, rules());
        node.parameterSize = allReduceBytes(model_.tensors[t].bytes, rules());
        summary_->parameterBytes += model_.tensors[t].bytes;
        sharedNode[t] = addNode(node);
        cost_.push_back(0);
      }

    std::map<std::string, std::int64_t> layerOf;
    std::set<std::string> bytesOnly;
    nodeOfOperator_.assign(model_.operators.size(), -1);
    forwardFlops_.assign(model_.operators.size(), 0);
    forwardBytes_.assign(model_.operators.size(), 0);
    for (std::size_t o = 0; o < model_.operators.size(); ++o) {
      if (folded_[o]) continue;
      const Operator& op = model_.operators[o];
      const std::optional<double> flops = onnx_import::operatorFlops(model_, op);
      if (!flops) bytesOnly.insert(op.domain.empty() ? op.type : op.domain + "." + op.type);
      double bytes = 0, parameters = 0, constants = 0, outputs = 0;
      std::set<int> ownRoots;
      for (int t : op.inputs) {
        if (t < 0) continue;
        bytes += model_.tensors[t].bytes;
        if (kind_[t] == Kind::Constant) constants += model_.tensors[t].bytes;
        if (kind_[t] == Kind::Parameter)
          for (int root : roots_[t])
            if (readers_[root].size() == 1) ownRoots.insert(root);
      }
      for (int root : ownRoots) parameters += model_.tensors[root].bytes;
      for (int t : op.outputs)
        if (t >= 0) {
          bytes += model_.tensors[t].bytes;
          outputs += model_.tensors[t].bytes;
        }
      Node node;
      node.name = op.name;
      node.fpgaLatency = operatorLatencyMs(flops.value_or(0), bytes, options_.accelerator);
      node.cpuLatency = operatorLatencyMs(flops.value_or(0), bytes, options_.cpu);
      node.parameterSize = allReduceBytes(parameters, rules());
      // Training keeps each operator's outputs for its backward pass.
      node.size = operatorMemory(parameters, constants, outputs, rules());
      if (const std::string scope = layerScope(op.name, options_.layerDepth); !scope.empty()) {
        const auto [it, added] = layerOf.try_emplace(scope, static_cast<std::int64_t>(layerOf.size()));
        node.layerId = it->second;
      }
      nodeOfOperator_[o] = addNode(node);
      forwardFlops_[o] = flops.value_or(0);
      forwardBytes_[o] = bytes;
      summary_->forwardFlops += flops.value_or(0);
      summary_->parameterBytes += parameters;
      ++summary_->operators;
      cost_.push_back(0);
    }
    summary_->bytesOnlyTypes.assign(bytesOnly.begin(), bytesOnly.end());

    // Edges: a tensor from its producer (or input node) to each reader; a
    // shared parameter's node to its readers at no cost.
    std::vector<char> paid(numTensors, 0);
    for (std::size_t o = 0; o < model_.operators.size(); ++o) {
      if (folded_[o]) continue;
      const std::int64_t to = nodeOfOperator_[o];
      std::set<std::int64_t> fromShared;
      for (int t : model_.operators[o].inputs) {
        if (t < 0) continue;
        std::int64_t from = -1;
        if (kind_[t] == Kind::ModelInput) {
          from = inputNode[t];
        } else if (kind_[t] == Kind::Activation && producer_[t] >= 0 && !folded_[producer_[t]]) {
          from = nodeOfOperator_[producer_[t]];
          if (!paid[t]) cost_[from] += transferMs(model_.tensors[t].bytes, options_.accelerator);
          paid[t] = 1;
          activationBytes_[{from, to}] += model_.tensors[t].bytes;
        } else if (kind_[t] == Kind::Parameter) {
          for (int root : roots_[t])
            if (sharedNode[root] >= 0) fromShared.insert(sharedNode[root]);
        }
        if (from >= 0) built_.edges.push_back({from, to, 0});
      }
      for (std::int64_t from : fromShared) built_.edges.push_back({from, to, 0});
    }
    for (RawEdge& edge : built_.edges) edge.cost = cost_[edge.sourceId];
  }

  /// A backward twin per operator (docs/model.md §8, addBackwardTwins).
  void buildBackward() {
    ForwardGraph graph;
    graph.work.assign(built_.nodes.size(), std::nullopt);
    for (std::size_t o = 0; o < model_.operators.size(); ++o) {
      if (folded_[o]) continue;
      graph.work[nodeOfOperator_[o]] = std::pair{forwardFlops_[o], forwardBytes_[o]};
      for (int t : model_.operators[o].outputs)
        if (t >= 0 && model_.tensors[t].isGraphOutput) {
          graph.outputNodes.push_back(nodeOfOperator_[o]);
          break;
        }
    }
    graph.nodes = std::move(built_.nodes);
    graph.edges = std::move(built_.edges);
    graph.activationBytes = std::move(activationBytes_);
    graph.cost = cost_;
    addBackwardTwins(graph, options_.accelerator, options_.cpu);
    built_.nodes = std::move(graph.nodes);
    built_.edges = std::move(graph.edges);
  }

  const OnnxImportOptions& options_;
  Model& model_;
  ImportSummary* summary_;
  std::vector<Kind> kind_;
  std::vector<int> producer_;
  std::vector<std::vector<int>> roots_;  ///< per parameter tensor: the parameters it derives from
  std::vector<std::set<int>> readers_;   ///< per parameter root: the compute operators reading it
  std::vector<char> folded_;
  std::vector<std::int64_t> nodeOfOperator_;
  std::vector<double> cost_;                         ///< per node id
  std::vector<double> forwardFlops_, forwardBytes_;  ///< per operator (compute ones only)
  std::map<std::pair<std::int64_t, std::int64_t>, double> activationBytes_;  ///< per forward edge
  Built built_;
};

}  // namespace

namespace {

/// The device figures the formulas divide by.
bool usableSpecs(const OnnxImportOptions& options, const std::string& file, ImportError* error) {
  for (const auto& [spec, what] :
       {std::pair{&options.accelerator, "accelerator"}, std::pair{&options.cpu, "CPU core"}})
    if (!(spec->peakFlops > 0) || !(spec->memoryBandwidth > 0)) {
      error->message = file + ": the " + std::string(what) + " spec '" + spec->name +
                       "' needs a positive peakFlops and memoryBandwidth";
      return false;
    }
  if (!(options.accelerator.linkBandwidth > 0)) {
    error->message = file + ": the accelerator spec '" + options.accelerator.name +
                     "' needs a positive linkBandwidth";
    return false;
  }
  return true;
}

}  // namespace

std::optional<Workload> importOnnx(const OnnxImportOptions& options, ImportSummary* summary,
                                   ImportError* error) {
  const std::string file = inputName(options.modelPath);
  std::string why;
  const auto bytes = readFile(options.modelPath, &why);
  if (!bytes) {
    error->message = why;
    return std::nullopt;
  }
  return onnx_import::importOnnxBytes(*bytes, file, options, summary, error);
}

namespace {

std::optional<Workload> importModel(const std::string& bytes, const std::string& file,
                                    const OnnxImportOptions& options, ImportSummary* summary,
                                    ImportError* error);

}  // namespace

std::optional<Workload> onnx_import::importOnnxBytes(const std::string& bytes, const std::string& file,
                                                     const OnnxImportOptions& options,
                                                     ImportSummary* summary, ImportError* error) {
  auto workload = importModel(bytes, file, options, summary, error);
  // Names in a model file are arbitrary bytes: a message stays one line.
  if (!workload)
    for (char& c : error->message)
      if (c == '\n' || c == '\r') c = ' ';
  return workload;
}

namespace {

std::optional<Workload> importModel(const std::string& bytes, const std::string& file,
                                    const OnnxImportOptions& options, ImportSummary* summary,
                                    ImportError* error) {
  ImportSummary own;
  if (!summary) summary = &own;
  *summary = ImportSummary();
  if (!usableSpecs(options, file, error)) return std::nullopt;
  auto model = onnx_import::parseModel(bytes, file, options.dims, error);
  if (!model) return std::nullopt;
  Built built = Importer(options, *model, summary).build();

  // Memory that no plan can meet: an operator larger than an accelerator
  // with no CPU core to fall back on, or more than all accelerators hold.
  const Machine machine = costedMachine(options.accelerator, options.accelerators, options.cpus,
                                        options.syncBandwidth, options.samplesPerSync);
  if (options.cpus == 0) {
    double total = 0;
    for (const Node& node : built.nodes) {
      total += node.size;
      if (node.size > options.accelerator.memory) {
        error->message =
            file + ": operator '" + node.name + "' needs " + formatBytes(node.size) + " (parameters" +
            (options.training ? ", gradients, optimizer state and activations" : "") +
            "), more than one " + options.accelerator.name + " holds (" +
            formatBytes(options.accelerator.memory) + "), and there is no CPU core (--cpus)";
        error->infeasible = true;
        return std::nullopt;
      }
    }
    if (total > options.accelerator.memory * options.accelerators) {
      error->message = file + ": the model needs " + formatBytes(total) + ", more than " +
                       std::to_string(options.accelerators) + " x " + options.accelerator.name +
                       " hold (" + formatBytes(options.accelerator.memory * options.accelerators) +
                       "), and there is no CPU core (--cpus)";
      error->infeasible = true;
      return std::nullopt;
    }
  }
  std::string why;
  auto workload = buildWorkload(file, machine, std::move(built.nodes), built.edges, &why);
  if (!workload) {
    error->message = file + ": the imported graph is not a valid workload: " + why;
    return std::nullopt;
  }
  if (options.granularity == OnnxImportOptions::Granularity::Operator) return workload;
  auto layers = contractLayers(*workload, &why);
  if (!layers) {
    error->message = why;
    return std::nullopt;
  }
  return layers;
}

}  // namespace

std::string importSummaryText(const ImportSummary& summary, const Workload& workload,
                              const std::string& device) {
  char line[400];
  std::snprintf(line, sizeof line,
                "import onnx: %d operators, %d nodes, parameters %s, forward %.4g GFLOP; on %s\n",
                summary.operators, workload.numNodes(), formatBytes(summary.parameterBytes).c_str(),
                summary.forwardFlops / 1e9, device.c_str());
  std::string text = line;
  if (!summary.bytesOnlyTypes.empty()) {
    text += "import onnx: estimated by bytes only (no FLOP rule):";
    for (const auto& type : summary.bytesOnlyTypes) text += " " + type;
    text += "\n";
  }
  return text;
}

}  // namespace dnnplace
